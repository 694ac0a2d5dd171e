package iostore_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// tcGood returns a builder-made version 8 zlib container (TOC and .ucas)
// and where its sections are.
func tcGood(t *testing.T) (toc, cas []byte, sec map[string]iostore.Section) {
	t.Helper()
	b := tcSynthetic(t, iostore.VersionReplaceIoChunkHashWithIoHash, "Zlib", nil)
	toc, parts, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := iostore.DecodeTOC("Good.utoc", toc)
	if err != nil {
		t.Fatal(err)
	}
	sec = map[string]iostore.Section{}
	for _, s := range d.Sections {
		sec[s.Name] = s
	}
	return toc, parts[0], sec
}

// tcOpenBytes opens a container from bytes and turns a panic into a test
// failure.
func tcOpenBytes(t *testing.T, name string, toc, cas []byte, key *ue.Key) (c *iostore.Container, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	var parts []iostore.Partition
	if cas != nil {
		parts = []iostore.Partition{{Name: strings.TrimSuffix(name, ".utoc") + ".ucas", R: bytes.NewReader(cas), Size: int64(len(cas))}}
	}
	return iostore.OpenReaders(name, toc, parts, &iostore.Options{Key: key})
}

func tcSet32(b []byte, off int, v uint32) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[off:], v)
	return b
}

func tcSet64(b []byte, off int, v uint64) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(b[off:], v)
	return b
}

func tcSet8(b []byte, off int, v byte) []byte {
	b = append([]byte(nil), b...)
	b[off] = v
	return b
}

// tcCheckErr checks a decode error: a *ue.FormatError naming the file and
// structure, with an offset, the wanted sentinel and words.
func tcCheckErr(t *testing.T, err error, file, structure string, sentinel error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", structure)
	}
	var fe *ue.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is %T, not *ue.FormatError", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, file+": ") || !strings.Contains(fe.Struct, structure) {
		t.Errorf("message %q does not name the file %q and structure %q (struct %q)", msg, file, structure, fe.Struct)
	}
	if fe.Offset >= 0 && !strings.Contains(msg, "0x") {
		t.Errorf("message %q lacks the offset", msg)
	}
	if sentinel != nil && !errors.Is(err, sentinel) {
		t.Errorf("error %q is not %v", msg, sentinel)
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
}

// TestMalformedTOC breaks the header and every section of a good TOC.
func TestMalformedTOC(t *testing.T) {
	good, cas, sec := tcGood(t)
	tests := []struct {
		name, structure string
		toc             []byte
		sentinel        error
		words           []string
	}{
		{"empty", "TOC header", nil, iostore.ErrNotContainer, nil},
		{"bad magic", "TOC header", tcSet8(good, 3, 'x'), iostore.ErrNotContainer, []string{"magic"}},
		{"pak file", "TOC header", bytes.Repeat([]byte{0xE1, 0x12, 0x6F, 0x5A}, 60), iostore.ErrNotContainer, nil},
		{"short header", "TOC header", good[:100], iostore.ErrCorrupt, []string{"100 bytes", "truncated"}},
		{"version 0", "TOC header", tcSet8(good, 16, 0), iostore.ErrUnsupportedVersion, []string{"version 0"}},
		{"version 11", "TOC header", tcSet8(good, 16, 11), iostore.ErrUnsupportedVersion, []string{"version 11", "newer"}},
		{"version 9 source hashes", "TOC header", tcSet32(tcSet8(good, 16, 9), 100, 3), iostore.ErrUnsupportedVersion, []string{"source hashes"}},
		{"header size", "TOC header", tcSet32(good, 20, 128), iostore.ErrCorrupt, []string{"TocHeaderSize is 128"}},
		{"block entry size", "TOC header", tcSet32(good, 32, 16), iostore.ErrCorrupt, []string{"TocCompressedBlockEntrySize"}},
		{"method name length", "TOC header", tcSet32(good, 40, 16), iostore.ErrCorrupt, []string{"CompressionMethodNameLength"}},
		{"block size over 24 bits", "TOC header", tcSet32(good, 44, 1<<24), iostore.ErrCorrupt, []string{"over 24 bits"}},
		{"block size 0", "TOC header", tcSet32(good, 44, 0), iostore.ErrCorrupt, []string{"CompressionBlockSize is 0"}},
		{"huge partition count", "TOC header", tcSet32(good, 52, 100000), iostore.ErrCorrupt, []string{"PartitionCount 100000"}},
		{"partition size 0", "TOC header", tcSet64(tcSet32(good, 52, 2), 88, 0), iostore.ErrCorrupt, []string{"PartitionSize"}},
		{"partitions past 40 bits", "TOC header", tcSet64(tcSet32(good, 52, 3), 88, 1<<40-1), iostore.ErrCorrupt, []string{"40-bit"}},
		{"unknown encryption", "TOC header", tcSet8(tcSet8(tcSet8(good, 16, 10), 80, 0x0A), 81, 7), iostore.ErrCorrupt, []string{"encryption method 7"}},
		{"IV count without AES-CTR", "TOC header", tcSet32(tcSet8(good, 16, 10), 104, 5), iostore.ErrCorrupt, []string{"EncryptionIVCount is 5", "needs 0"}},
		{"IV count for AES-CTR", "TOC header", tcSet32(tcSet8(tcSet8(tcSet8(good, 16, 10), 80, 0x0B), 81, 2), 104, 12), iostore.ErrCorrupt, []string{"EncryptionIVCount is 12", "needs 13"}},
		{"huge chunk count", "chunk ids", tcSet32(good, 24, 0x7FFFFFFF), iostore.ErrCorrupt, []string{"do not fit"}},
		{"huge block count", "compression blocks", tcSet32(good, 28, 0xFFFFFFFF), iostore.ErrCorrupt, []string{"do not fit"}},
		{"huge seed count", "perfect-hash seeds", tcSet32(good, 84, 0x40000000), iostore.ErrCorrupt, nil},
		{"huge overflow count", "chunks without perfect hash", tcSet32(good, 96, 0x40000000), iostore.ErrCorrupt, nil},
		{"too many methods", "TOC header", tcSet32(good, 36, 300), iostore.ErrCorrupt, []string{"300 compression methods"}},
		{"method name not text", "compression method name 1", tcSet8(good, int(sec["compression method names"].Offset)+1, 0x01), iostore.ErrCorrupt, []string{"printable"}},
		{"huge directory index", "directory index", tcSet32(good, 48, 0x7FFFFFFF), iostore.ErrCorrupt, []string{"do not fit"}},
		{"negative signature size", "signatures", tcSignedNegative(good, sec), iostore.ErrCorrupt, []string{"negative"}},
	}
	// Truncate inside every section: the error names that section.
	for _, s := range []string{"chunk ids", "chunk offsets and lengths", "compression blocks", "compression method names", "directory index", "chunk metas"} {
		at := sec[s].Offset + sec[s].Size/2
		tests = append(tests, struct {
			name, structure string
			toc             []byte
			sentinel        error
			words           []string
		}{"truncated in " + s, s, good[:at], iostore.ErrCorrupt, []string{"truncated"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tcOpenBytes(t, "Bad.utoc", tt.toc, cas, nil)
			if c != nil {
				t.Fatal("OpenReaders returned a container with an error")
			}
			tcCheckErr(t, err, "Bad.utoc", tt.structure, tt.sentinel, tt.words...)
			// DecodeTOC reports the same.
			if _, err2 := iostore.DecodeTOC("Bad.utoc", tt.toc); err2 == nil && !strings.HasPrefix(tt.structure, "directory index") {
				t.Errorf("DecodeTOC accepts what OpenReaders rejects")
			}
		})
	}
}

// tcSignedNegative flags the TOC Signed and puts a negative hash size where
// the signature section starts (after the method names).
func tcSignedNegative(good []byte, sec map[string]iostore.Section) []byte {
	s := sec["compression method names"]
	at := int(s.Offset + s.Size)
	b := append([]byte(nil), good[:at]...)
	b[80] |= byte(iostore.FlagSigned)
	b = binary.LittleEndian.AppendUint32(b, 0xFFFFFFF0)
	return append(b, good[at:]...)
}

// tcDirIndexLayout finds the entries of the builder's directory index.
type tcDirIndexLayout struct {
	at                 int // section offset in the TOC
	dirs, files, strs  int // offsets of the first entries
	nDirs, nFiles, nSt int
}

func tcDirLayout(t *testing.T, toc []byte, sec map[string]iostore.Section) tcDirIndexLayout {
	s := sec["directory index"]
	x, err := iostore.DecodeDirectoryIndex("x", toc[s.Offset:s.Offset+s.Size], s.Offset)
	if err != nil {
		t.Fatal(err)
	}
	l := tcDirIndexLayout{at: int(s.Offset), nDirs: len(x.DirectoryEntries), nFiles: len(x.FileEntries), nSt: len(x.StringTable)}
	l.dirs = l.at + 4 + len(x.MountPoint) + 1 + 4
	l.files = l.dirs + 16*l.nDirs + 4
	l.strs = l.files + 12*l.nFiles
	return l
}

// TestMalformedDirectoryIndex breaks the directory index: cycles, bad
// references, bad names, bad counts.
func TestMalformedDirectoryIndex(t *testing.T) {
	good, cas, sec := tcGood(t)
	l := tcDirLayout(t, good, sec)
	dir := func(i, field int) int { return l.dirs + 16*i + 4*field }
	file := func(i, field int) int { return l.files + 12*i + 4*field }
	tests := []struct {
		name, structure string
		toc             []byte
		words           []string
	}{
		{"root is its own child", "directory entry 0", tcSet32(good, dir(0, 1), 0), []string{"reached twice", "cyclic"}},
		{"sibling loop", "directory entry", tcSet32(good, dir(1, 2), 1), []string{"cyclic"}},
		{"child loop back to parent", "directory entry", tcSet32(good, dir(l.nDirs-1, 1), 1), []string{"cyclic"}},
		{"file list loop", "file entry", tcSet32(good, file(0, 1), 0), []string{"reached twice"}},
		{"child out of range", "directory entry 0", tcSet32(good, dir(0, 1), 99), []string{"first child 99 is outside"}},
		{"file out of range", "directory entry", tcSet32(good, dir(1, 3), 1000), []string{"outside"}},
		{"name out of range", "file entry 0", tcSet32(good, file(0, 0), 500), []string{"outside the"}},
		{"chunk out of range", "file entry", tcSet32(good, file(0, 2), 999), []string{"chunk index 999 is outside the 7 chunks"}},
		{"negative directory count", "directory entries count", tcSet32(good, l.dirs-4, 0xFFFFFFFF), []string{"negative count"}},
		{"huge file count", "file entries count", tcSet32(good, l.files-4, 0x10000000), []string{"count 268435456", "3221225472 bytes"}},
		{"huge string count", "string table count", tcSet32(good, l.strs, 0x10000000), []string{"count 268435456"}},
		{"huge mount point", "mount point", tcSet32(good, l.at, 0x7FFFFFF0), []string{"2147483632 bytes"}},
		{"unterminated string", "string 0", tcSet8(good, l.strs+4+4+len("Blueprints"), 'x'), []string{"not zero-terminated"}},
	}
	// A path that climbs out of the mount point. The builder writes only
	// valid indexes, so build one with "xx" directories and turn the name
	// into "..", which has the same length.
	b := tcSynthetic(t, iostore.VersionReplaceIoChunkHashWithIoHash, "None", nil)
	b.Chunks[0].Path = "xx/xx/xx/xx/etc/passwd"
	climb, _, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	name := []byte("\x03\x00\x00\x00xx\x00")
	if bytes.Count(climb, name) != 1 {
		t.Fatal("the name xx is not stored once")
	}
	climb = bytes.Replace(climb, name, []byte("\x03\x00\x00\x00..\x00"), 1)
	tests = append(tests, struct {
		name, structure string
		toc             []byte
		words           []string
	}{"dot-dot directory", "directory entry", climb, []string{`name ".."`, "not a plain path component"}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tcOpenBytes(t, "Bad.utoc", tt.toc, cas, nil)
			if c != nil {
				t.Fatal("OpenReaders returned a container with an error")
			}
			tcCheckErr(t, err, "Bad.utoc", "directory index "+tt.structure, iostore.ErrCorrupt, tt.words...)
		})
	}
}

// TestDirectoryIndexNames checks the names a directory index must refuse,
// on a hand-built index.
func TestDirectoryIndexNames(t *testing.T) {
	for _, bad := range []string{"..", ".", "a/b", `a\b`, "a\x00b"} {
		idx := tcHandIndex("../../../Game/", []string{bad})
		_, err := iostore.DecodeDirectoryIndex("Bad.utoc", idx, 1000)
		tcCheckErr(t, err, "Bad.utoc", "directory index file entry 0", iostore.ErrCorrupt, "not a plain path component")
	}
	idx := tcHandIndex("../../../Game/", []string{"Fine.uasset"})
	x, err := iostore.DecodeDirectoryIndex("Good.utoc", idx, 0)
	if err != nil || len(x.Files) != 1 || x.Files[0].Path != "Fine.uasset" || x.Size != len(idx) {
		t.Errorf("%+v, %v", x, err)
	}
	// A path longer than MaxPathLen.
	long := strings.Repeat("x", iostore.MaxPathLen+1)
	_, err = iostore.DecodeDirectoryIndex("Long.utoc", tcHandIndex("", []string{long}), 0)
	tcCheckErr(t, err, "Long.utoc", "directory index file entry 0", iostore.ErrCorrupt, "longer than")
	// UTF-16 names read back.
	x, err = iostore.DecodeDirectoryIndex("Wide.utoc", tcHandIndex("../../../Jeu/", []string{"Größe.uasset", "日本.uasset"}), 0)
	if err != nil || len(x.Files) != 2 || x.Files[1].Path != "日本.uasset" {
		t.Errorf("wide names: %+v, %v", x, err)
	}
}

// tcHandIndex serializes a directory index with files in the root only.
func tcHandIndex(mount string, names []string) []byte {
	le := binary.LittleEndian
	fstr := func(b []byte, s string) []byte {
		u := []rune(s)
		wide := false
		for _, r := range u {
			wide = wide || r > 0x7F
		}
		if !wide {
			b = le.AppendUint32(b, uint32(len(s)+1))
			return append(append(b, s...), 0)
		}
		var units []uint16
		for _, r := range u {
			units = append(units, uint16(r))
		}
		b = le.AppendUint32(b, uint32(-int32(len(units)+1)))
		for _, x := range units {
			b = le.AppendUint16(b, x)
		}
		return le.AppendUint16(b, 0)
	}
	b := fstr(nil, mount)
	b = le.AppendUint32(b, 1)
	first := uint32(0)
	if len(names) == 0 {
		first = iostore.NoEntry
	}
	b = append(b, tcU32s(iostore.NoEntry, iostore.NoEntry, iostore.NoEntry, first)...)
	b = le.AppendUint32(b, uint32(len(names)))
	for i := range names {
		next := uint32(i + 1)
		if i == len(names)-1 {
			next = iostore.NoEntry
		}
		b = append(b, tcU32s(uint32(i), next, uint32(i))...)
	}
	b = le.AppendUint32(b, uint32(len(names)))
	for _, n := range names {
		b = fstr(b, n)
	}
	return b
}

func tcU32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// TestMalformedData breaks block entries and .ucas bytes: the TOC opens,
// reading the affected chunk fails clearly and Verify reports it.
func TestMalformedData(t *testing.T) {
	good, cas, sec := tcGood(t)
	blocks := int(sec["compression blocks"].Offset)
	blk := func(k, field int) int { return blocks + 12*k + field } // field: 0 offset, 5 compressed, 8 size, 11 method
	ol := func(i int) int { return int(sec["chunk offsets and lengths"].Offset) + 10*i }
	// Chunk 1 is the bulk data: blocks 1.. (chunk 0 has block 0).
	bigLength := append([]byte(nil), good...)
	copy(bigLength[ol(1)+5:], []byte{0, 0, 0x10, 0, 0}) // 1 MiB: past the blocks
	tests := []struct {
		name      string
		toc, cas  []byte
		structure string
		sentinel  error
		words     []string
	}{
		{"offset past the .ucas", tcSet32(good, blk(1, 0), 0x00FFFFF0), cas, "compression block 1", iostore.ErrCorrupt, []string{"run past the end of Bad.ucas"}},
		{"offset past 40-bit partition", append(tcSet8(good, blk(1, 4), 0xFF), nil...), cas, "compression block 1", iostore.ErrCorrupt, []string{"run past the end"}},
		{"compressed size over block size", tcSet8(good, blk(1, 7), 0x10), cas, "compression block 1", iostore.ErrCorrupt, []string{"compressed size 10", "over the block size 4096"}},
		{"uncompressed size over block size", tcSet8(good, blk(1, 10), 0x10), cas, "compression block 1", iostore.ErrCorrupt, []string{"uncompressed size", "over the block size"}},
		{"method index out of range", tcSet8(good, blk(1, 11), 5), cas, "compression block 1", iostore.ErrCorrupt, []string{"method index 5"}},
		{"chunk past the blocks", bigLength, cas, "chunk 1", iostore.ErrCorrupt, []string{"needs compression blocks"}},
		{"truncated .ucas", good, cas[:len(cas)/2], "compression block", iostore.ErrCorrupt, []string{"run past the end of Bad.ucas"}},
		{"garbage zlib", good, tcGarbleBlock(good, cas, sec, 1), "compression block 1 (Zlib)", iostore.ErrCorrupt, []string{"zlib"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tcOpenBytes(t, "Bad.utoc", tt.toc, tt.cas, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.ReadChunk(1)
			var fe *ue.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, tt.sentinel) {
				t.Fatalf("ReadChunk: %v", err)
			}
			msg := err.Error()
			if !strings.Contains(fe.Struct, tt.structure) {
				t.Errorf("struct %q, want %q (%s)", fe.Struct, tt.structure, msg)
			}
			for _, w := range tt.words {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			r := c.Verify(nil)
			if r.OK() {
				t.Errorf("Verify finds nothing")
			}
			if _, err := c.Extract(t.TempDir(), nil); err == nil {
				t.Errorf("Extract succeeds")
			}
		})
	}
}

// tcGarbleBlock overwrites the stored bytes of block k with garbage.
func tcGarbleBlock(toc, cas []byte, sec map[string]iostore.Section, k int) []byte {
	at := int(sec["compression blocks"].Offset) + 12*k
	off := int(toc[at]) | int(toc[at+1])<<8 | int(toc[at+2])<<16
	size := int(toc[at+5]) | int(toc[at+6])<<8 | int(toc[at+7])<<16
	out := append([]byte(nil), cas...)
	for i := range size {
		out[off+i] = byte(i*31 + 7)
	}
	return out
}

// TestVerifyFindsTOCProblems checks the structural checks of Verify on
// TOCs that decode: shared and unused blocks, duplicate ids, a broken
// perfect hash, trailing bytes.
func TestVerifyFindsTOCProblems(t *testing.T) {
	good, cas, sec := tcGood(t)
	ids := int(sec["chunk ids"].Offset)
	blocks := int(sec["compression blocks"].Offset)
	dupID := append([]byte(nil), good...)
	copy(dupID[ids+12*3:ids+12*4], good[ids:ids+12])
	shared := append([]byte(nil), good...)
	copy(shared[sec["chunk offsets and lengths"].Offset+10*6:], []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x09}) // last chunk on block 0
	overlap := tcSet8(good, blocks+12*2, good[blocks+12*1])                                                 // block 2 stored where block 1 is
	tests := []struct {
		name  string
		toc   []byte
		words []string
	}{
		{"trailing bytes", append(append([]byte(nil), good...), 1, 2, 3), []string{"3 bytes after the last section"}},
		{"duplicate chunk id", dupID, []string{"is also chunk 0"}},
		{"shared block", shared, []string{"also belongs to chunk", "not used by any chunk"}},
		{"overlapping blocks", overlap, []string{"overlap block"}},
		{"bad perfect hash", tcWithSeeds(good, sec, []int32{-99}), []string{"perfect-hash lookup"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tcOpenBytes(t, "Bad.utoc", tt.toc, cas, nil)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, p := range c.Verify(nil).Problems {
				all = append(all, p.String())
			}
			text := strings.Join(all, "\n")
			for _, w := range tt.words {
				if !strings.Contains(text, w) {
					t.Errorf("problems lack %q:\n%s", w, text)
				}
			}
		})
	}
}

// tcWithSeeds inserts perfect-hash seeds into a version 8 TOC.
func tcWithSeeds(good []byte, sec map[string]iostore.Section, seeds []int32) []byte {
	at := int(sec["compression blocks"].Offset)
	b := append([]byte(nil), good[:at]...)
	binary.LittleEndian.PutUint32(b[84:], uint32(len(seeds)))
	for _, s := range seeds {
		b = binary.LittleEndian.AppendUint32(b, uint32(s))
	}
	return append(b, good[at:]...)
}

// TestCorpusPlainKey opens the encrypted fixture with its key given as the
// plain 32-character string and reads the directory index.
func TestCorpusPlainKey(t *testing.T) {
	k, err := ue.ParseKey(tcFixtureKey)
	if err != nil {
		t.Fatal(err)
	}
	c := tcOpen(t, tcEncrypted, &iostore.Options{Key: &k})
	idx, err := c.DirectoryIndex()
	if err != nil {
		t.Fatalf("DirectoryIndex: %v", err)
	}
	if idx.MountPoint != tcMount || len(idx.Files) == 0 || c.Chunks()[0].Path == "" {
		t.Errorf("mount point %q, %d files, first chunk path %q", idx.MountPoint, len(idx.Files), c.Chunks()[0].Path)
	}
}

// TestVersions checks the version table's layout predicates and names.
func TestVersions(t *testing.T) {
	for _, tt := range []struct {
		v         iostore.TocVersion
		name, eng string
		ue5, io   bool
		hash      iostore.HashAlgorithm
	}{
		{2, "DirectoryIndex", "UE 4.26", false, false, iostore.HashSHA1},
		{3, "PartitionSize", "UE 4.27", false, false, iostore.HashSHA1},
		{4, "PerfectHash", "UE 5.0 pre-release", false, false, iostore.HashBLAKE3},
		{5, "PerfectHashWithOverflow", "UE 5.0-5.3", true, false, iostore.HashBLAKE3},
		{6, "OnDemandMetaData", "UE 5.4", true, false, iostore.HashBLAKE3},
		{8, "ReplaceIoChunkHashWithIoHash", "UE 5.5-5.8", true, true, iostore.HashBLAKE3},
		{9, "AddedSourceHashes", "no released engine (development builds before 6.0)", true, true, iostore.HashBLAKE3},
		{10, "ContainerEncryptionMethod", "UE 6.0", true, true, iostore.HashBLAKE3},
	} {
		if tt.v.String() != tt.name || tt.v.Engines() != tt.eng || tt.v.UsesUE5ChunkTypes() != tt.ue5 || tt.v.HasIoHashMetas() != tt.io || tt.v.ChunkHash() != tt.hash {
			t.Errorf("version %d: %s %s %v %v %v", tt.v, tt.v, tt.v.Engines(), tt.v.UsesUE5ChunkTypes(), tt.v.HasIoHashMetas(), tt.v.ChunkHash())
		}
	}
	if iostore.TocVersion(42).String() != "Unknown(42)" || iostore.TocVersion(42).Known() {
		t.Error("unknown version")
	}
	if got := (iostore.FlagCompressed | iostore.FlagIndexed | 0x80).String(); got != "Compressed|Indexed|0x80" {
		t.Errorf("flags %q", got)
	}
	for _, ct := range []iostore.ChunkType{iostore.ChunkExportBundleData, iostore.ChunkBulkData, iostore.ChunkContainerHeader} {
		for _, v := range []iostore.TocVersion{3, 5} {
			raw, ok := ct.Raw(v)
			if !ok || iostore.ChunkTypeOf(raw, v) != ct {
				t.Errorf("%s in v%d: %d %v", ct, v, raw, ok)
			}
		}
	}
	if _, ok := iostore.ChunkScriptObjects.Raw(3); ok {
		t.Error("ScriptObjects exists in 4.27's table")
	}
	if iostore.ChunkTypeOf(10, 3) != iostore.ChunkContainerHeader || iostore.ChunkTypeOf(10, 8) != iostore.ChunkPackageStoreEntry || iostore.ChunkTypeOf(200, 8) != iostore.ChunkUnknown {
		t.Error("type tables")
	}
	id, _ := iostore.ParseChunkID("915ddb99070a4f0400000001")
	if id.String() != "0x915ddb99070a4f0400000001" || id.Hex() != "915ddb99070a4f0400000001" || id.Value() != 0x044f0a0799db5d91 ||
		id.PackageID() != 0x044f0a0799db5d91 || id.Type(8) != iostore.ChunkExportBundleData {
		t.Errorf("chunk id %s %x %s", id, id.Value(), id.Type(8))
	}
	if again, err := iostore.ParseChunkID(id.String()); err != nil || again != id {
		t.Errorf("ParseChunkID(%s) = %v, %v", id, again, err)
	}
	js, err := json.Marshal(struct{ ID iostore.ChunkID }{id})
	if err != nil || string(js) != `{"ID":"0x915ddb99070a4f0400000001"}` {
		t.Errorf("JSON %s, %v", js, err)
	}
}

// TestSharedBlocksBomb points thousands of chunks at the same blocks, the
// shape of a decompression bomb: Verify stays fast with one problem per
// chunk, and Extract refuses before writing anything.
func TestSharedBlocksBomb(t *testing.T) {
	const n = 3000
	b := &iostorebuild.Container{Version: iostore.VersionReplaceIoChunkHashWithIoHash, BlockSize: 4096}
	for i := range n {
		id, _ := iostore.NewChunkID(uint64(i+1), 0, iostore.ChunkBulkData, b.Version)
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Data: bytes.Repeat([]byte{byte(i)}, 16)})
	}
	toc, cas, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := iostore.DecodeTOC("Bomb.utoc", toc)
	if err != nil {
		t.Fatal(err)
	}
	var ol int64
	for _, s := range d.Sections {
		if s.Name == "chunk offsets and lengths" {
			ol = s.Offset
		}
	}
	total := uint64(n) * 4096
	for i := range n {
		e := toc[ol+int64(10*i):]
		copy(e, []byte{0, 0, 0, 0, 0, byte(total >> 32), byte(total >> 24), byte(total >> 16), byte(total >> 8), byte(total)})
	}
	c, err := tcOpenBytes(t, "Bomb.utoc", toc, cas[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Verify(nil)
	if len(r.Problems) > 2*n {
		t.Errorf("verify found %d problems for %d chunks", len(r.Problems), n)
	}
	dir := t.TempDir()
	if _, err := c.Extract(dir, nil); !errors.Is(err, iostore.ErrCorrupt) || !strings.Contains(err.Error(), "also belongs to chunk") {
		t.Errorf("Extract: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("Extract wrote %d entries", len(entries))
	}
}
