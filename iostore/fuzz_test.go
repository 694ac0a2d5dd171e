package iostore_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

const tcFuzzFile = "Fuzz.utoc"

// tcFuzzTOCSeeds returns builder-made TOCs (every layout generation, with
// encryption, AES-CTR IVs included, and partitions), so that fuzzing works
// without the corpus.
func tcFuzzTOCSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, v := range []iostore.TocVersion{1, 2, 3, 4, 5, 6, 8, 10} {
		for _, enc := range []bool{false, true} {
			var key *ue.Key
			if enc {
				key = tcTestKey()
			}
			b := tcSynthetic(f, v, "Zlib", key)
			if v.HasPartitions() && !enc {
				tcPartition(f, b)
			}
			toc, _, err := b.Build()
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, toc)
		}
	}
	// AES-CTR: the IV section and blocks the fuzzer's key decrypts.
	for _, method := range []string{"None", "Zlib"} {
		b := tcSynthetic(f, iostore.VersionContainerEncryptionMethod, method, tcTestKey())
		b.CTR = true
		toc, _, err := b.Build()
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, toc)
	}
	for _, m := range tcSectionModels(f) {
		toc, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, toc)
	}
	return out
}

// tcFuzzCorpus reads the corpus files matching pattern (under
// UNRMOD_CORPUS) that are at most max bytes. It reads the environment
// directly so that fuzzing also works without it.
func tcFuzzCorpus(f *testing.F, pattern string, max int64) [][]byte {
	dir := os.Getenv("UNRMOD_CORPUS")
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	var out [][]byte
	for _, file := range files {
		if st, err := os.Stat(file); err != nil || st.Size() > max {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatalf("corpus seed: %v", err)
		}
		out = append(out, b)
	}
	return out
}

// tcFuzzPartitions returns small zero-filled .ucas readers, one per
// partition the TOC declares (or nil when the header does not decode).
func tcFuzzPartitions(data []byte) []iostore.Partition {
	t, err := iostore.DecodeTOC(tcFuzzFile, data)
	if err != nil {
		return nil
	}
	n, _ := t.Header.Partitions()
	zero := bytes.NewReader(make([]byte, 64<<10))
	parts := make([]iostore.Partition, n)
	for i := range parts {
		parts[i] = iostore.Partition{Name: "Fuzz.ucas", R: zero, Size: 64 << 10}
	}
	return parts
}

func tcCheckFuzzErr(t *testing.T, err error) {
	var fe *ue.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is %T, not *ue.FormatError", err, err)
	}
	if !strings.HasPrefix(err.Error(), tcFuzzFile+": ") || fe.Struct == "" {
		t.Fatalf("error %q does not name the file and structure", err)
	}
}

// tcFuzzEncodeTOC checks that a decoded TOC encodes to the bytes it was
// decoded from. The one exception is a block whose method index is beyond
// the method names: the decoder keeps such a TOC (the other chunks stay
// readable), the encoder refuses it, naming the block.
func tcFuzzEncodeTOC(t *testing.T, d *iostore.TOC, data []byte) {
	out, err := d.AppendBinary(nil)
	for k, b := range d.Blocks {
		if int(b.Method) > len(d.Methods) {
			var fe *ue.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, iostore.ErrNotEncodable) || fe.Struct != fmt.Sprintf("compression block %d", k) {
				t.Fatalf("block %d has method index %d of %d methods; AppendBinary: %v", k, b.Method, len(d.Methods), err)
			}
			return
		}
	}
	if err != nil {
		t.Fatalf("a decoded TOC does not encode: %v", err)
	}
	if !bytes.Equal(out, data) {
		i := 0
		for i < len(out) && i < len(data) && out[i] == data[i] {
			i++
		}
		t.Fatalf("encodes to %d bytes instead of %d; first difference at 0x%X", len(out), len(data), i)
	}
}

// FuzzTOC feeds arbitrary bytes to the TOC and directory-index decoders
// through OpenReaders (with a fixed key, so that encrypted indexes are
// decrypted too) and, when a container opens, exercises Verify, ReadChunk
// and OutputPath against small zero-filled partitions. It must never panic;
// errors are *ue.FormatError naming the file; opening allocates memory in
// proportion to the input. Whatever DecodeTOC decodes, AppendBinary encodes
// to the same bytes (see tcFuzzEncodeTOC).
func FuzzTOC(f *testing.F) {
	for _, b := range tcFuzzTOCSeeds(f) {
		f.Add(b)
	}
	for _, b := range tcFuzzCorpus(f, "iostore/*/*/*/*.utoc", 64<<10) {
		f.Add(b)
	}
	for _, b := range tcFuzzCorpus(f, "iostore/*/*/*.utoc", 64<<10) {
		f.Add(b)
	}
	key := tcTestKey()
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		if d, err := iostore.DecodeTOC(tcFuzzFile, data); err == nil {
			tcFuzzEncodeTOC(t, d, data)
		}
		parts := tcFuzzPartitions(data)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		c, err := iostore.OpenReaders(tcFuzzFile, data, parts, &iostore.Options{Key: key})
		runtime.ReadMemStats(&m1)
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 256*uint64(len(data))+1<<20 {
			t.Fatalf("opening %d bytes allocated %d bytes", len(data), d)
		}
		if err != nil {
			tcCheckFuzzErr(t, err)
			if c != nil {
				t.Fatal("OpenReaders returned a container with an error")
			}
			return
		}
		_ = c.Verify(&iostore.VerifyOptions{Workers: 1})
		for i := range min(len(c.Chunks()), 32) {
			ch := c.Chunks()[i]
			if data, err := c.ReadChunk(i); err == nil && uint64(len(data)) != ch.Size {
				t.Fatalf("chunk %d: %d bytes, size %d", i, len(data), ch.Size)
			}
			if p, err := c.OutputPath(i); err == nil && (strings.Contains("/"+p+"/", "/../") || strings.HasPrefix(p, "/")) {
				t.Fatalf("chunk %d: unsafe output path %q", i, p)
			}
			_ = c.ChunkMethods(i)
		}
		for _, ch := range c.Chunks() {
			c.TOC().LookupPerfectHash(ch.ID)
		}
		c.ContainerHeaderChunk()
	})
}

// tcFuzzIndexSeeds returns directory indexes: hand-built, builder-made and,
// with the corpus, every index of the fixture containers (decrypted).
func tcFuzzIndexSeeds(f *testing.F) [][]byte {
	out := [][]byte{
		tcHandIndex("../../../Game/", []string{"A.uasset", "B.ubulk"}),
		tcHandIndex("", nil),
		tcHandIndex("../../../Jeu/", []string{"Größe.uasset"}),
	}
	add := func(toc []byte, key *ue.Key) {
		t, err := iostore.DecodeTOC("seed", toc)
		if err != nil || t.DirectoryIndex == nil {
			return
		}
		x := append([]byte(nil), t.DirectoryIndex...)
		if t.Header.Encryption() != iostore.EncryptionNone {
			if key == nil || tcECB(key, x, false) != nil {
				return
			}
		}
		out = append(out, x)
	}
	for _, toc := range tcFuzzTOCSeeds(f) {
		add(toc, tcTestKey())
	}
	for _, toc := range tcFuzzCorpus(f, "iostore/*/*/*/*.utoc", 64<<10) {
		add(toc, tcKey())
	}
	for _, toc := range tcFuzzCorpus(f, "iostore/*/*/*.utoc", 64<<10) {
		add(toc, nil)
	}
	return out
}

// FuzzDirectoryIndex feeds arbitrary bytes to DecodeDirectoryIndex. It must
// never panic or loop; errors are *ue.FormatError naming the file; every path
// it returns is made of plain components and within MaxPathLen; memory
// stays proportional to the input; a decoded index encodes to the Size bytes
// it was decoded from.
func FuzzDirectoryIndex(f *testing.F) {
	for _, b := range tcFuzzIndexSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		x, err := iostore.DecodeDirectoryIndex(tcFuzzFile, data, 0)
		runtime.ReadMemStats(&m1)
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 256*uint64(len(data))+64<<10 {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(data), d)
		}
		if err != nil {
			tcCheckFuzzErr(t, err)
			if x != nil {
				t.Fatal("returned an index with an error")
			}
			return
		}
		if x.Size > len(data) || len(x.Files) > len(x.FileEntries) {
			t.Fatalf("size %d of %d, %d files of %d entries", x.Size, len(data), len(x.Files), len(x.FileEntries))
		}
		out, err := x.AppendBinary(nil)
		if err != nil || !bytes.Equal(out, data[:x.Size]) {
			t.Fatalf("a decoded index encodes to %d bytes instead of %d (%v)", len(out), x.Size, err)
		}
		for _, file := range x.Files {
			if len(file.Path) > iostore.MaxPathLen {
				t.Fatalf("path of %d bytes", len(file.Path))
			}
			for _, part := range strings.Split(file.Path, "/") {
				if part == "" || part == "." || part == ".." || strings.ContainsAny(part, "\\\x00") {
					t.Fatalf("path %q has component %q", file.Path, part)
				}
			}
		}
	})
}

// TestFuzzSeedsDecode makes sure the builder seeds are valid containers, so
// that the fuzzers start from inputs that reach the deep code.
func TestFuzzSeedsDecode(t *testing.T) {
	for _, v := range []iostore.TocVersion{1, 2, 3, 4, 5, 6, 8, 10} {
		b := tcSynthetic(t, v, "Zlib", nil)
		toc, cas, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		c, err := iostore.OpenReaders("seed.utoc", toc, []iostore.Partition{{Name: "seed.ucas", R: bytes.NewReader(cas[0]), Size: int64(len(cas[0]))}}, nil)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if r := c.Verify(nil); !r.OK() {
			t.Errorf("v%d: %v", v, r.Problems)
		}
		if v.HasDirectoryIndex() && c.Chunks()[0].Path == "" {
			t.Errorf("v%d: no paths", v)
		}
	}
	// The AES-CTR seed: its IVs decrypt the index and the blocks.
	b := tcSynthetic(t, iostore.VersionContainerEncryptionMethod, "Zlib", tcTestKey())
	b.CTR = true
	toc, cas, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.OpenReaders("seed.utoc", toc, []iostore.Partition{{Name: "seed.ucas", R: bytes.NewReader(cas[0]), Size: int64(len(cas[0]))}}, &iostore.Options{Key: tcTestKey()})
	if err != nil {
		t.Fatalf("CTR: %v", err)
	}
	if r := c.Verify(nil); !r.OK() || len(c.TOC().EncryptionIVs) == 0 || c.Chunks()[0].Path == "" {
		t.Errorf("CTR: %v, %d IVs, path %q", r.Problems, len(c.TOC().EncryptionIVs), c.Chunks()[0].Path)
	}
}
