package iostore_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// Corpus containers (relative to UNRMOD_CORPUS).
const (
	tcDir          = "iostore/cue4parse_ue5_8/"
	tcUncompressed = tcDir + "Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
	tcZlib         = tcDir + "Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	tcOodle        = tcDir + "Tagged/Oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc"
	tcEncrypted    = tcDir + "Tagged/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc"
	tcPartitioned  = tcDir + "Tagged/OodlePartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc"
	tcGlobal58     = tcDir + "Tagged/global.utoc"
	tcPatchBase    = tcDir + "Patch/CUE4ParseFixtures-PatchBase.utoc"
	tcPatchP       = tcDir + "Patch/CUE4ParseFixtures-PatchBase_0_P.utoc"
	tcGlobal50     = "iostore/game_TempleOfGiants_ue5/global.utoc"
	tcTocOnly5     = "iostore/game_TempleOfGiants_ue5/Colliderproject-Windows.utoc"
	tcTocOnly8     = "iostore/game_WayOfTheNinja_ue5/WayOfTheNinja-Windows.utoc"
	// tcFixtureKey is the public test key of the CUE4Parse fixtures: its 32
	// ASCII bytes are the AES key.
	tcFixtureKey = "CUE4ParseFixtureAESKey0123456789"
	tcMount      = "../../../CUE4ParseFixtures/Content/Fixtures/"
)

func tcKey() *ue.Key {
	k := ue.Key([]byte(tcFixtureKey))
	return &k
}

func tcOpen(t testing.TB, rel string, opts *iostore.Options) *iostore.Container {
	t.Helper()
	c, err := iostore.Open(corpus.Path(t, rel), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCorpusContainers opens every container of the corpus and checks what
// it holds and what Verify says.
func TestCorpusContainers(t *testing.T) {
	tests := []struct {
		rel        string
		key        bool
		version    iostore.TocVersion
		chunks     int
		methods    string
		mount      string
		partitions int
		containerH bool // has a container-header chunk
		hashed     int  // chunks whose hash Verify checks
		oodle      int  // chunks Verify cannot decode (Oodle)
		noCAS      bool
	}{
		{tcUncompressed, false, 8, 112, "", tcMount, 1, true, 112, 0, false},
		{tcZlib, false, 8, 112, "Zlib", tcMount, 1, true, 112, 0, false},
		{tcOodle, false, 8, 112, "Oodle", tcMount, 1, true, 1, 111, false},
		{tcEncrypted, true, 8, 112, "Oodle", tcMount, 1, true, 1, 111, false},
		{tcPartitioned, false, 8, 112, "Oodle", tcMount, 5, true, 1, 111, false},
		{tcGlobal58, false, 8, 1, "", "", 1, false, 1, 0, false},
		{tcPatchBase, false, 8, 3, "", "../../../CUE4ParseFixtures/Content/PatchFixtures/", 1, true, 3, 0, false},
		{tcPatchP, false, 8, 2, "", "../../../CUE4ParseFixtures/Content/PatchFixtures/", 1, true, 2, 0, false},
		{tcGlobal50, false, 5, 1, "", "", 1, false, 1, 0, false},
		{tcTocOnly5, false, 5, 1803, "Oodle", "../../../", 1, true, 0, 0, true},
		{tcTocOnly8, false, 8, 5370, "Oodle", "../../../", 1, true, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.rel), func(t *testing.T) {
			var opts *iostore.Options
			if tt.key {
				opts = &iostore.Options{Key: tcKey()}
			}
			c := tcOpen(t, tt.rel, opts)
			h := c.Header()
			if h.Version != tt.version || len(c.Chunks()) != tt.chunks || strings.Join(c.TOC().Methods, ",") != tt.methods ||
				c.MountPoint() != tt.mount {
				t.Errorf("version %d, %d chunks, methods %q, mount %q", h.Version, len(c.Chunks()), c.TOC().Methods, c.MountPoint())
			}
			if n, _ := h.Partitions(); n != tt.partitions {
				t.Errorf("%d partitions, want %d", n, tt.partitions)
			}
			if _, ok := c.ContainerHeaderChunk(); ok != tt.containerH {
				t.Errorf("container-header chunk present: %v", ok)
			}
			if !tt.noCAS && c.DataErr() != nil {
				t.Fatal(c.DataErr())
			}
			if tt.noCAS && !errors.Is(c.DataErr(), iostore.ErrNoCAS) {
				t.Fatalf("DataErr %v, want ErrNoCAS", c.DataErr())
			}
			// Every indexed path is under the mount point and every chunk but
			// the container header and global data has one.
			paths := 0
			for _, ch := range c.Chunks() {
				if ch.Path != "" {
					paths++
				}
			}
			if tt.mount != "" && paths < tt.chunks/2 {
				t.Errorf("%d of %d chunks have paths", paths, tt.chunks)
			}

			if !tt.noCAS {
				r := c.Verify(nil)
				if !r.OK() || r.HashesChecked != tt.hashed || r.NotChecked != tt.oodle {
					t.Errorf("verify: %d problems %v, %d hashed, %d not checked (%s)", len(r.Problems), r.Problems, r.HashesChecked, r.NotChecked, r.NotCheckedWhy)
				}
				if tt.oodle > 0 && !strings.Contains(r.NotCheckedWhy, "Oodle") {
					t.Errorf("NotCheckedWhy %q does not name Oodle", r.NotCheckedWhy)
				}
			} else {
				r := c.Verify(&iostore.VerifyOptions{StructureOnly: true})
				if !r.OK() {
					t.Errorf("structure-only verify of a TOC without .ucas: %v", r.Problems)
				}
				r = c.Verify(nil)
				if r.OK() || !strings.Contains(r.Problems[0].Msg, ".ucas is missing") {
					t.Errorf("full verify without .ucas: %v", r.Problems)
				}
				if _, err := c.ReadChunk(0); !errors.Is(err, iostore.ErrNoCAS) {
					t.Errorf("ReadChunk without .ucas: %v", err)
				}
			}
		})
	}
}

// TestCorpusContainerIDs checks the header's container ids against the
// values in the hashing notes.
func TestCorpusContainerIDs(t *testing.T) {
	for rel, want := range map[string]uint64{
		tcZlib:         0xdc74c2edae5549a3,
		tcUncompressed: 0x8e31e2f0b7de84f2,
		tcOodle:        0x49875bb3cb76703d,
		tcEncrypted:    0x26fb0e45365ce187,
		tcPartitioned:  0xff61f5b2df869ac5,
		tcPatchBase:    0xfd08e8c9c074e95e,
		tcPatchP:       0xaba9e1cf9cfd6859,
		tcGlobal58:     0xffffffffffffffff,
	} {
		c := tcOpen(t, rel, &iostore.Options{Key: tcKey()})
		if got := uint64(c.Header().ContainerID); got != want {
			t.Errorf("%s: container id 0x%016x, want 0x%016x", filepath.Base(rel), got, want)
		}
		if i, ok := c.ContainerHeaderChunk(); ok && c.Chunks()[i].ID.Value() != want {
			t.Errorf("%s: container-header chunk id %s", filepath.Base(rel), c.Chunks()[i].ID)
		}
	}
}

// TestCorpusSameContent reads every chunk of the uncompressed and zlib
// fixtures and compares a BLAKE3-160 computed here with the chunk metas;
// then it compares the Oodle, encrypted and partitioned containers, cooked
// from one project: they store identical compressed blocks (decrypted for
// the encrypted one), which checks partition addressing and decryption
// without an Oodle decoder.
func TestCorpusSameContent(t *testing.T) {
	for _, rel := range []string{tcUncompressed, tcZlib, tcGlobal58, tcGlobal50} {
		c := tcOpen(t, rel, nil)
		for _, ch := range c.Chunks() {
			data, err := c.ReadChunk(ch.Index)
			if err != nil {
				t.Fatal(err)
			}
			if sum := blake3.Sum256(data); !bytes.Equal(sum[:20], ch.Meta.Hash[:20]) || uint64(len(data)) != ch.Size {
				t.Errorf("%s: chunk %s: BLAKE3-160 differs from its meta", filepath.Base(rel), ch.ID)
			}
		}
	}

	oodle := tcOpen(t, tcOodle, nil)
	for _, other := range []*iostore.Container{tcOpen(t, tcPartitioned, nil), tcOpen(t, tcEncrypted, &iostore.Options{Key: tcKey()})} {
		parts := map[int]bool{}
		for _, ch := range oodle.Chunks() {
			if ch.Type == iostore.ChunkContainerHeader {
				continue // its id is the container id, which differs
			}
			j, ok := other.Find(ch.ID)
			if !ok {
				t.Fatalf("%s: chunk %s missing", other.File(), ch.ID)
			}
			och := other.Chunks()[j]
			if och.NumBlocks != ch.NumBlocks || och.Path != ch.Path {
				t.Fatalf("%s: chunk %s has %d blocks at %q, want %d at %q", other.File(), ch.ID, och.NumBlocks, och.Path, ch.NumBlocks, ch.Path)
			}
			for n := range ch.NumBlocks {
				k, ok2 := ch.FirstBlock+n, och.FirstBlock+n
				a, err := oodle.ReadStoredBlock(k)
				if err != nil {
					t.Fatal(err)
				}
				b, err := other.ReadStoredBlock(ok2)
				if err != nil {
					t.Fatal(err)
				}
				if other.Header().Encryption() != iostore.EncryptionNone {
					if err := tcDecryptECB(tcKey(), b); err != nil {
						t.Fatal(err)
					}
				}
				size := oodle.TOC().Blocks[k].CompressedSize
				if !bytes.Equal(a[:size], b[:size]) {
					t.Errorf("%s: chunk %s block %d differs from the Oodle container's", filepath.Base(other.File()), ch.ID, n)
				}
				_, ps := other.Header().Partitions()
				parts[int(other.TOC().Blocks[ok2].Offset/ps)] = true
			}
		}
		if n, _ := other.Header().Partitions(); len(parts) != n {
			t.Errorf("%s: blocks found in %d partitions, want %d", filepath.Base(other.File()), len(parts), n)
		}
	}
}

// tcDecryptECB decrypts with the standard library, independently of the
// reader's own code.
func tcDecryptECB(k *ue.Key, b []byte) error {
	return tcECB(k, b, false)
}

// TestCorpusOodle checks that Oodle blocks fail clearly while everything
// that needs no decompression works.
func TestCorpusOodle(t *testing.T) {
	c := tcOpen(t, tcOodle, nil)
	var i int
	for i = range c.Chunks() {
		if c.Chunks()[i].Type == iostore.ChunkExportBundleData {
			break
		}
	}
	_, err := c.ReadChunk(i)
	if !errors.Is(err, iostore.ErrOodle) || !errors.Is(err, iostore.ErrUnsupportedMethod) || !strings.Contains(err.Error(), "Oodle") {
		t.Errorf("ReadChunk of an Oodle chunk: %v", err)
	}
	var me *iostore.MethodError
	if !errors.As(err, &me) || me.Method != "Oodle" {
		t.Errorf("error is not a *MethodError for Oodle: %#v", err)
	}
	if _, err := c.Extract(t.TempDir(), nil); !errors.Is(err, iostore.ErrOodle) {
		t.Errorf("Extract: %v", err)
	}
	// The container header is stored uncompressed even here.
	k, _ := c.ContainerHeaderChunk()
	data, err := c.ReadChunk(k)
	if err != nil || binary.LittleEndian.Uint32(data) != 0x496F436E {
		t.Errorf("container header: %v, % x", err, data[:min(8, len(data))])
	}
	if _, err := c.ReadStoredBlock(c.Chunks()[i].FirstBlock); err != nil {
		t.Errorf("ReadStoredBlock: %v", err)
	}
}

// TestCorpusEncrypted reads the AES fixture with, without and with a wrong key.
func TestCorpusEncrypted(t *testing.T) {
	file := corpus.Path(t, tcEncrypted)
	c, err := iostore.Open(file, &iostore.Options{Key: tcKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, _ := c.ContainerHeaderChunk()
	data, err := c.ReadChunk(k)
	if err != nil || binary.LittleEndian.Uint32(data) != 0x496F436E {
		t.Fatalf("container header with the key: %v", err)
	}

	// Without a key: the chunk list is there, paths and data are not.
	nk, err := iostore.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nk.Close()
	if len(nk.Chunks()) != 112 || nk.Chunks()[0].Path != "" {
		t.Errorf("without key: %d chunks, first path %q", len(nk.Chunks()), nk.Chunks()[0].Path)
	}
	// Each error advises the key (ue.SettingKey) without naming a
	// command-line flag: the command line names its own.
	if _, err := nk.DirectoryIndex(); !errors.Is(err, iostore.ErrKeyRequired) || !advises(err, ue.SettingKey) {
		t.Errorf("DirectoryIndex without key: %v", err)
	}
	if _, err := nk.ReadChunk(k); !errors.Is(err, iostore.ErrKeyRequired) || !advises(err, ue.SettingKey) {
		t.Errorf("ReadChunk without key: %v", err)
	}
	if _, err := nk.Extract(t.TempDir(), nil); !errors.Is(err, iostore.ErrKeyRequired) || !advises(err, ue.SettingKey) {
		t.Errorf("Extract without key: %v", err)
	}
	if _, err := iostore.Rewrite(nk, filepath.Join(t.TempDir(), "Out.utoc"), nil, nil); !errors.Is(err, iostore.ErrKeyRequired) || !advises(err, ue.SettingKey) {
		t.Errorf("Rewrite without key: %v", err)
	}
	if r := nk.Verify(nil); r.OK() {
		t.Error("Verify without key reports no problem")
	}

	// A wrong key: the directory index does not decode.
	wrong := ue.Key([]byte("CUE4ParseFixtureAESKey0123456780"))
	_, err = iostore.Open(file, &iostore.Options{Key: &wrong})
	var fe *ue.FormatError
	if !errors.Is(err, iostore.ErrWrongKey) || !errors.As(err, &fe) || fe.Struct != "directory index" || !strings.Contains(err.Error(), "wrong AES key") {
		t.Errorf("Open with a wrong key: %v", err)
	}
}

// tcCountingReader counts the bytes read through it.
type tcCountingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *tcCountingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestCorpusRandomAccess checks that reading one chunk reads only its
// blocks from the .ucas.
func TestCorpusRandomAccess(t *testing.T) {
	utoc := corpus.Path(t, tcZlib)
	toc, err := os.ReadFile(utoc)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(iostore.PartitionPath(utoc, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	cr := &tcCountingReader{r: f}
	c, err := iostore.OpenReaders("Zlib.utoc", toc, []iostore.Partition{{Name: "Zlib.ucas", R: cr, Size: st.Size()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := append([]iostore.Chunk(nil), c.Chunks()...)
	sort.Slice(chunks, func(a, b int) bool { return chunks[a].NumBlocks > chunks[b].NumBlocks })
	ch := chunks[0]
	data, err := c.ReadChunk(ch.Index)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(data)) != ch.Size || ch.NumBlocks < 2 {
		t.Fatalf("%d bytes, %d blocks", len(data), ch.NumBlocks)
	}
	if got := cr.n.Load(); uint64(got) != ch.CompressedSize || got >= st.Size()/4 {
		t.Errorf("read %d bytes of a %d-byte .ucas for a chunk of %d stored bytes", got, st.Size(), ch.CompressedSize)
	}
	// The streaming reader gives the same bytes.
	r, _ := c.OpenChunk(ch.Index)
	streamed, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(streamed, data) {
		t.Errorf("OpenChunk differs from ReadChunk: %v", err)
	}
}

// TestCorpusExtract extracts the uncompressed and zlib fixtures and checks
// every file against its chunk's hash, computed here independently.
func TestCorpusExtract(t *testing.T) {
	for _, rel := range []string{tcUncompressed, tcZlib, tcPatchBase} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			c := tcOpen(t, rel, nil)
			dir := t.TempDir()
			var last, calls int64
			res, err := c.Extract(dir, &iostore.ExtractOptions{Progress: func(done, total int64) {
				if done < last || done > total {
					t.Errorf("progress %d of %d after %d", done, total, last)
				}
				last = done
				calls++
			}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Files != len(c.Chunks()) || calls == 0 {
				t.Fatalf("%d files for %d chunks, %d progress calls", res.Files, len(c.Chunks()), calls)
			}
			for i, ch := range c.Chunks() {
				p, err := c.OutputPath(i)
				if err != nil {
					t.Fatal(err)
				}
				if ch.Path != "" && !strings.HasPrefix(p, "CUE4ParseFixtures/Content/") {
					t.Errorf("output path %q", p)
				}
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil {
					t.Fatal(err)
				}
				if sum := blake3.Sum256(data); !bytes.Equal(sum[:20], ch.Meta.Hash[:20]) || uint64(len(data)) != ch.Size {
					t.Errorf("%s: extracted file does not match the chunk hash", p)
				}
			}
			// No temporary file is left behind.
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if strings.HasSuffix(p, ".tmp") {
					t.Errorf("left %s", p)
				}
				return nil
			})
		})
	}
}

// advises reports whether err advises setting s, in words that name no
// command-line flag.
func advises(err error, s ue.Setting) bool {
	var a *ue.Advice
	return errors.As(err, &a) && a.Setting == s && !strings.Contains(err.Error(), "--")
}
