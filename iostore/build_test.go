package iostore_test

import (
	"bytes"
	"crypto/aes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/inflate/inflatetest"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// tcECB en- or decrypts AES-256-ECB with the standard library.
func tcECB(k *ue.Key, b []byte, encrypt bool) error {
	c, err := aes.NewCipher(k[:])
	if err != nil {
		return err
	}
	if len(b)%16 != 0 {
		return fmt.Errorf("%d bytes", len(b))
	}
	for i := 0; i < len(b); i += 16 {
		if encrypt {
			c.Encrypt(b[i:i+16], b[i:i+16])
		} else {
			c.Decrypt(b[i:i+16], b[i:i+16])
		}
	}
	return nil
}

// tcTestKey is an arbitrary key for builder-made encrypted containers.
func tcTestKey() *ue.Key {
	var k ue.Key
	for i := range k {
		k[i] = byte(i*7 + 3)
	}
	return &k
}

// tcData returns n bytes of compressible pseudo-random data.
func tcData(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := []string{"Package", "Texture2D", "None", "/Game/Maps/", "StaticMesh", "\x00\x00\x00\x01", "Property"}
	var b bytes.Buffer
	for b.Len() < n {
		if r.IntN(8) == 0 {
			b.WriteByte(byte(r.Uint32()))
		} else {
			b.WriteString(words[r.IntN(len(words))])
		}
	}
	return b.Bytes()[:n]
}

// tcSynthetic returns a container description with a package, bulk data
// over several blocks, an empty chunk, a container header and a chunk
// without a path, in TOC version v's chunk numbering.
func tcSynthetic(t testing.TB, v iostore.TocVersion, method string, key *ue.Key) *iostorebuild.Container {
	t.Helper()
	id := func(value uint64, typ iostore.ChunkType) iostore.ChunkID {
		c, err := iostore.NewChunkID(value, 0, typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const cid = 0x1122334455667788
	pkg := tcPackage(t, v, "/Game/Blueprints/Items/BP_Thing", tcData(1, 3000))
	bulk := tcData(2, 5*4096+123)
	level := tcPackage(t, v, "/Game/Maps/Sub/Level", tcData(3, 4096))
	thing, sub := uint64(zen.PackageIDFromName("/Game/Blueprints/Items/BP_Thing")), uint64(zen.PackageIDFromName("/Game/Maps/Sub/Level"))
	header := tcHeaderFor(t, v, cid, map[uint64][]byte{thing: pkg, sub: level})
	return &iostorebuild.Container{
		Version:     v,
		ContainerID: cid,
		MountPoint:  "../../../Maine/Content/",
		BlockSize:   4096,
		Method:      method,
		Key:         key,
		Chunks: []iostorebuild.Chunk{
			{ID: id(thing, iostore.ChunkExportBundleData), Path: "Blueprints/Items/BP_Thing.uasset", Data: pkg},
			{ID: id(thing, iostore.ChunkBulkData), Path: "Blueprints/Items/BP_Thing.ubulk", Data: bulk},
			{ID: id(0x200, iostore.ChunkOptionalBulkData), Path: "Maps/Empty.uptnl", Data: nil},
			{ID: id(sub, iostore.ChunkExportBundleData), Path: "Maps/Sub/Level.umap", Data: level},
			{ID: id(sub, iostore.ChunkMemoryMappedBulkData), Path: "Maps/Sub/Level.m.ubulk", Data: tcData(4, 100), Raw: true, MemoryMapped: true},
			{ID: id(cid, iostore.ChunkContainerHeader), Data: header, Raw: true},
			{ID: id(0x400, iostore.ChunkShaderCodeLibrary), Data: tcData(5, 777)},
		},
	}
}

// tcPartition gives b the smallest partition size, in steps of 4096 bytes,
// that holds its largest chunk: the engine keeps every chunk in one
// partition, so smaller sizes are refused. When the chunks then fit in one
// partition (compressed), it adds a chunk of incompressible bytes that
// takes a second one.
func tcPartition(t testing.TB, b *iostorebuild.Container) {
	t.Helper()
	parts := func() (int, error) {
		dir := t.TempDir()
		if _, err := b.WriteFiles(dir, "Probe"); err != nil {
			return 0, err
		}
		m, err := filepath.Glob(filepath.Join(dir, "Probe*.ucas"))
		return len(m), err
	}
	for size := uint64(4096); size <= 1<<20; size += 4096 {
		b.PartitionSize = size
		n, err := parts()
		if err != nil && strings.Contains(err.Error(), "partition size") {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			id, err := iostore.NewChunkID(0x500, 0, iostore.ChunkBulkData, b.Version)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(size, 2))
			filler := make([]byte, size/2)
			for i := range filler {
				filler[i] = byte(r.Uint32())
			}
			b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: "Maps/Filler.ubulk", Data: filler})
			if n, err = parts(); err != nil || n < 2 {
				t.Fatalf("%d partitions with a filler chunk (%v)", n, err)
			}
		}
		return
	}
	t.Fatal("no partition size up to 1 MiB holds the chunks")
}

// tcLayout returns the zen package layout of the engine release that writes
// TOC version v.
func tcLayout(v iostore.TocVersion) zen.Layout {
	switch {
	case !v.UsesUE5ChunkTypes():
		return zen.LayoutUE4
	case v >= iostore.VersionReplaceIoChunkHashWithIoHash:
		return zen.LayoutUE56
	case v >= iostore.VersionOnDemandMetaData:
		return zen.LayoutUE54
	}
	return zen.LayoutUE50
}

// tcPackage returns a zen package named name, laid out for the engine
// that writes TOC version v, whose one export holds data.
func tcPackage(t testing.TB, v iostore.TocVersion, name string, data []byte) []byte {
	t.Helper()
	b, err := zenbuild.Blob(name, tcLayout(v), data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tcHeaderFor encodes a container header listing the given packages (id →
// package chunk) in the layout of the engine that writes TOC version v: the
// 4.2x layout, or the UE5 header version of the same engine release.
func tcHeaderFor(t testing.TB, v iostore.TocVersion, cid uint64, pkgs map[uint64][]byte) []byte {
	t.Helper()
	ids := make([]uint64, 0, len(pkgs))
	for id := range pkgs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if !v.UsesUE5ChunkTypes() {
		var entries []zen.StoreEntry
		for _, id := range ids {
			entries = append(entries, zen.StoreEntry{PackageID: zen.PackageID(id), ExportBundlesSize: uint64(len(pkgs[id])), ExportCount: 1, ExportBundleCount: 1})
		}
		return iostorebuild.ContainerHeader427(cid, entries)
	}
	h := &zen.ContainerHeader{Version: zen.HeaderLocalizedPackages, ContainerID: zen.ContainerID(cid)}
	switch {
	case v >= iostore.VersionReplaceIoChunkHashWithIoHash:
		h.Version = zen.HeaderSoftPackageReferencesOffset
	case v >= iostore.VersionOnDemandMetaData:
		h.Version = zen.HeaderNoExportInfo
	}
	for _, id := range ids {
		h.Packages = append(h.Packages, zen.StoreEntry{PackageID: zen.PackageID(id), ExportCount: 1, ExportBundleCount: 1})
		if h.Version >= zen.HeaderNoExportInfo {
			h.Packages[len(h.Packages)-1].ExportCount, h.Packages[len(h.Packages)-1].ExportBundleCount = 0, 0
		}
	}
	data, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tcBuildOpen builds b into dir and opens it.
func tcBuildOpen(t testing.TB, b *iostorebuild.Container, name string, key *ue.Key) *iostore.Container {
	t.Helper()
	utoc, err := b.WriteFiles(t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, &iostore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestBuiltContainers reads back containers of every supported TOC layout
// generation, method, encryption and partitioning.
func TestBuiltContainers(t *testing.T) {
	for _, v := range []iostore.TocVersion{2, 3, 4, 5, 6, 8} {
		for _, method := range []string{"None", "Zlib", "Gzip", "LZ4"} {
			for _, enc := range []bool{false, true} {
				for _, part := range []bool{false, true} {
					if part && !v.HasPartitions() {
						continue
					}
					name := fmt.Sprintf("v%d-%s-enc%v-parts%v", v, method, enc, part)
					t.Run(name, func(t *testing.T) {
						var key *ue.Key
						if enc {
							key = tcTestKey()
						}
						b := tcSynthetic(t, v, method, key)
						if part {
							tcPartition(t, b)
						}
						c := tcBuildOpen(t, b, "Test", key)
						tcCheckBuilt(t, c, b)
					})
				}
			}
		}
	}
}

func tcCheckBuilt(t *testing.T, c *iostore.Container, b *iostorebuild.Container) {
	t.Helper()
	if len(c.Chunks()) != len(b.Chunks) || c.MountPoint() != b.MountPoint {
		t.Fatalf("%d chunks, mount %q", len(c.Chunks()), c.MountPoint())
	}
	r := c.Verify(nil)
	if !r.OK() || r.HashesChecked != len(b.Chunks) {
		t.Fatalf("verify: %v, %d hashed", r.Problems, r.HashesChecked)
	}
	for i, want := range b.Chunks {
		ch := c.Chunks()[i]
		if ch.ID != want.ID || ch.Path != want.Path || ch.Size != uint64(len(want.Data)) {
			t.Errorf("chunk %d: %s %q %d", i, ch.ID, ch.Path, ch.Size)
		}
		got, err := c.ReadChunk(i)
		if err != nil || !bytes.Equal(got, want.Data) {
			t.Errorf("chunk %d: data differs (%v)", i, err)
		}
		sum, err := c.ChunkHash(i)
		var ref []byte
		if b.Version <= iostore.VersionPartitionSize {
			s := sha1.Sum(want.Data)
			ref = s[:]
		} else {
			s := blake3.Sum256(want.Data)
			ref = s[:20]
		}
		if err != nil || !bytes.Equal(sum[:], ref) {
			t.Errorf("chunk %d: ChunkHash %x, want %x (%v)", i, sum, ref, err)
		}
	}
	if k, ok := c.ContainerHeaderChunk(); !ok || c.Chunks()[k].Type != iostore.ChunkContainerHeader {
		t.Errorf("no container-header chunk")
	}
	if n, _ := c.Header().Partitions(); b.PartitionSize > 0 && n < 2 {
		t.Errorf("%d partitions", n)
	}
	res, err := c.Extract(t.TempDir(), nil)
	if err != nil || res.Files != len(b.Chunks) {
		t.Errorf("extract: %v", err)
	}
}

// TestBuiltUE427Layout checks the 4.2x specifics on the bytes: the 4.2x
// chunk-type numbers, the little-endian chunk index, 33-byte metas with
// SHA-1, and a version 3 header with one unlimited partition.
func TestBuiltUE427Layout(t *testing.T) {
	b := tcSynthetic(t, iostore.VersionPartitionSize, "Zlib", nil)
	id, err := iostore.NewChunkID(0x100, 0x0102, iostore.ChunkBulkData, iostore.VersionPartitionSize)
	if err != nil {
		t.Fatal(err)
	}
	b.Chunks[1].ID = id
	toc, cas, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if id[11] != 3 || id[8] != 0x02 || id[9] != 0x01 {
		t.Errorf("4.27 bulk id % x: type 3 and little-endian index expected", id[:])
	}
	if id5, _ := iostore.NewChunkID(0x100, 0x0102, iostore.ChunkBulkData, iostore.VersionPerfectHashWithOverflow); id5[11] != 2 || id5[8] != 0x01 {
		t.Errorf("UE5 bulk id % x: type 2 and big-endian index expected", id5[:])
	}
	c, err := iostore.OpenReaders("Grounded.utoc", toc, []iostore.Partition{{Name: "Grounded.ucas", R: bytes.NewReader(cas[0]), Size: int64(len(cas[0]))}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	types := map[iostore.ChunkType]int{}
	for _, ch := range c.Chunks() {
		types[ch.Type]++
	}
	if types[iostore.ChunkExportBundleData] != 2 || types[iostore.ChunkBulkData] != 1 || types[iostore.ChunkOptionalBulkData] != 1 ||
		types[iostore.ChunkContainerHeader] != 1 || types[iostore.ChunkShaderCodeLibrary] != 1 {
		t.Errorf("types %v", types)
	}
	if c.Chunks()[1].ID.Index(iostore.VersionPartitionSize) != 0x0102 {
		t.Errorf("chunk index %x", c.Chunks()[1].ID.Index(iostore.VersionPartitionSize))
	}
	h := c.Header()
	if n, size := h.Partitions(); n != 1 || size != 1<<64-1 || h.PartitionCount != 1 {
		t.Errorf("partitions %d of %d", n, size)
	}
	var metas iostore.Section
	for _, s := range c.TOC().Sections {
		if s.Name == "chunk metas" {
			metas = s
		}
	}
	if metas.Size != 33*int64(len(b.Chunks)) || metas.Offset+metas.Size != int64(len(toc)) {
		t.Errorf("metas %+v in a %d-byte TOC", metas, len(toc))
	}
	sum := sha1.Sum(b.Chunks[0].Data)
	if !bytes.Equal(toc[metas.Offset:metas.Offset+20], sum[:]) || toc[metas.Offset+32] != byte(iostore.MetaCompressed) {
		t.Errorf("first meta % x", toc[metas.Offset:metas.Offset+33])
	}
	if m := c.Chunks()[4].Meta.Flags; m != iostore.MetaMemoryMapped {
		t.Errorf("memory-mapped chunk meta flags %s", m)
	}
	// A SHA-1 TOC with a BLAKE3 hash (what retoc writes for 4.27) fails.
	bad := append([]byte(nil), toc...)
	b3 := blake3.Sum256(b.Chunks[0].Data)
	copy(bad[metas.Offset:], b3[:20])
	c2, err := iostore.OpenReaders("Grounded.utoc", bad, []iostore.Partition{{Name: "Grounded.ucas", R: bytes.NewReader(cas[0]), Size: int64(len(cas[0]))}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := c2.Verify(nil); len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, "SHA-1 hash of the data") {
		t.Errorf("verify with a BLAKE3 meta in a 4.27 TOC: %v", r.Problems)
	}
}

// TestBuiltGrounded lays out the Grounded (UE 4.27) zen packages of the
// corpus in a version 3 container the way the engine would and reads it
// back.
func TestBuiltGrounded(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus.Dir(t), "other", "grounded", "zen_ue4_27", "*.uasset"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Grounded zen packages: %v", err)
	}
	const cid = 0x0123456789abcdef
	b := &iostorebuild.Container{Version: iostore.VersionPartitionSize, ContainerID: cid, MountPoint: "../../../Maine/Content/", Method: "Zlib"}
	var entries []zen.StoreEntry
	for n, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := zen.DecodePackage(f, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		pid := uint64(p.ID())
		id, _ := iostore.NewChunkID(pid, 0, iostore.ChunkExportBundleData, b.Version)
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: "Mods/" + filepath.Base(f), Data: data})
		e := zen.StoreEntry{PackageID: zen.PackageID(pid), ExportBundlesSize: uint64(len(data)), ExportCount: int32(len(p.Exports)),
			ExportBundleCount: int32(len(p.Bundles)), LoadOrder: uint32(n)}
		for _, g := range p.Graph {
			e.ImportedPackages = append(e.ImportedPackages, g.Package)
		}
		entries = append(entries, e)
		_ = n
	}
	hid, _ := iostore.NewChunkID(cid, 0, iostore.ChunkContainerHeader, b.Version)
	b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: hid, Data: iostorebuild.ContainerHeader427(cid, entries), Raw: true})
	for _, enc := range []bool{false, true} {
		var key *ue.Key
		if enc {
			key = tcTestKey()
		}
		b.Key = key
		c := tcBuildOpen(t, b, "z_Mod_P", key)
		tcCheckBuilt(t, c, b)
		if c.Chunks()[0].Type != iostore.ChunkExportBundleData || c.Chunks()[0].ID.TypeByte() != 2 {
			t.Errorf("package chunk type %s (byte %d)", c.Chunks()[0].Type, c.Chunks()[0].ID.TypeByte())
		}
		k, _ := c.ContainerHeaderChunk()
		data, err := c.ReadChunk(k)
		if err != nil || binary.LittleEndian.Uint64(data) != cid {
			t.Errorf("container header: %v", err)
		}
		if p, _ := c.OutputPath(0); !strings.HasPrefix(p, "Maine/Content/Mods/") {
			t.Errorf("output path %q", p)
		}
	}
}

// TestBuiltWrongKey checks that wrong and missing keys fail clearly, also
// without a directory index (the container-header chunk tells).
func TestBuiltWrongKey(t *testing.T) {
	wrong := ue.Key{1}
	for _, indexed := range []bool{true, false} {
		b := tcSynthetic(t, iostore.VersionReplaceIoChunkHashWithIoHash, "Zlib", tcTestKey())
		if !indexed {
			for i := range b.Chunks {
				b.Chunks[i].Path = ""
			}
		}
		utoc, err := b.WriteFiles(t.TempDir(), "Enc")
		if err != nil {
			t.Fatal(err)
		}
		_, err = iostore.Open(utoc, &iostore.Options{Key: &wrong})
		if !errors.Is(err, iostore.ErrWrongKey) || !strings.Contains(err.Error(), "wrong AES key") || !strings.Contains(err.Error(), "Enc.utoc") {
			t.Errorf("indexed=%v: wrong key: %v", indexed, err)
		}
		c, err := iostore.Open(utoc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadChunk(0); !errors.Is(err, iostore.ErrKeyRequired) {
			t.Errorf("indexed=%v: no key: %v", indexed, err)
		}
		c.Close()
	}
}

// TestBuiltFilter extracts a subset and refuses to follow a symbolic link
// out of the output directory.
func TestBuiltFilter(t *testing.T) {
	c := tcBuildOpen(t, tcSynthetic(t, iostore.VersionReplaceIoChunkHashWithIoHash, "LZ4", nil), "Filter", nil)
	dir := t.TempDir()
	res, err := c.Extract(dir, &iostore.ExtractOptions{Filter: func(ch *iostore.Chunk, p string) bool { return strings.HasSuffix(p, ".umap") }, Workers: 3})
	if err != nil || res.Files != 1 {
		t.Fatalf("%v, %+v", err, res)
	}
	want := []string{"Maine/Content/Maps/Sub/Level.umap"}
	if strings.Join(res.Paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths %q", res.Paths)
	}
	if res, err := c.Extract(dir, &iostore.ExtractOptions{Filter: func(ch *iostore.Chunk, p string) bool { return strings.HasSuffix(p, ".uptnl") }}); err != nil || res.Files != 1 {
		t.Fatalf("%v, %+v", err, res)
	}
	if st, err := os.Stat(filepath.Join(dir, "Maine/Content/Maps/Empty.uptnl")); err != nil || st.Size() != 0 {
		t.Errorf("empty chunk: %v", err)
	}

	outside := t.TempDir()
	dir2 := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir2, "Maine")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := c.Extract(dir2, nil); err == nil {
		t.Error("extract through a symbolic link leading outside the directory succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("wrote outside the output directory: %v", entries)
	}
}

// TestBuiltManyDirectories extracts more directories than Extract keeps
// handles for, so that both ways of addressing a directory are used.
func TestBuiltManyDirectories(t *testing.T) {
	b := &iostorebuild.Container{Version: iostore.VersionPerfectHashWithOverflow, MountPoint: "../../../Game/Content/", BlockSize: 4096, Method: "Zlib"}
	for i := range 300 {
		id, _ := iostore.NewChunkID(uint64(i+1), 0, iostore.ChunkExportBundleData, b.Version)
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: fmt.Sprintf("D%03d/Sub/P%d.uasset", i, i), Data: tcData(uint64(i), 100+i)})
	}
	c := tcBuildOpen(t, b, "Many", nil)
	dir := t.TempDir()
	var last int64
	res, err := c.Extract(dir, &iostore.ExtractOptions{Progress: func(done, total int64) {
		if done < last || done > total {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	}})
	if err != nil || res.Files != 300 {
		t.Fatalf("%v, %+v", err, res)
	}
	for i := range 300 {
		got, err := os.ReadFile(filepath.Join(dir, "Game", "Content", fmt.Sprintf("D%03d", i), "Sub", fmt.Sprintf("P%d.uasset", i)))
		if err != nil || !bytes.Equal(got, b.Chunks[i].Data) {
			t.Fatalf("file %d: %v", i, err)
		}
	}
	// Extracting again replaces the files.
	if _, err := c.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
}

// TestBuiltHashMismatch stores a chunk whose data decodes but differs from
// the data its meta hash was made of: verify must report the hash of the
// data in the TOC version's algorithm (the first one tried, BLAKE3, for
// version 4, whose metas may hold either), with the key hint when the
// container is encrypted; extract must fail and leave no file.
func TestBuiltHashMismatch(t *testing.T) {
	for _, tc := range []struct {
		v   iostore.TocVersion
		key *ue.Key
		alg string
	}{
		{3, nil, "SHA-1"},
		{iostore.VersionPerfectHash, nil, "BLAKE3-160"},
		{iostore.VersionReplaceIoChunkHashWithIoHash, nil, "BLAKE3-160"},
		{iostore.VersionReplaceIoChunkHashWithIoHash, tcTestKey(), "BLAKE3-160"},
	} {
		t.Run(fmt.Sprintf("v%d-key%v", tc.v, tc.key != nil), func(t *testing.T) {
			b := tcSynthetic(t, tc.v, "Zlib", tc.key)
			other := slices.Clone(b.Chunks[0].Data)
			other[100] ^= 0xFF
			b.Chunks[0].Blocks = [][]byte{inflatetest.Encode(t, inflatetest.Encoders[3], other)}
			c := tcBuildOpen(t, b, "Mismatch", tc.key)

			var sum []byte
			if tc.alg == "SHA-1" {
				s := sha1.Sum(other)
				sum = s[:]
			} else {
				s := blake3.Sum256(other)
				sum = s[:20]
			}
			r := c.Verify(nil)
			want := fmt.Sprintf("%s hash of the data is %x, the chunk meta says", tc.alg, sum)
			if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, want) ||
				strings.Contains(r.Problems[0].Msg, "wrong AES key?") != (tc.key != nil) {
				t.Fatalf("verify: %+v, want one problem with %q", r.Problems, want)
			}

			dir := t.TempDir()
			_, err := c.Extract(dir, nil)
			if !errors.Is(err, iostore.ErrHashMismatch) || !strings.Contains(err.Error(), "does not match the chunk meta hash") {
				t.Fatalf("extract: %v", err)
			}
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					t.Errorf("extract left %s", p)
				}
				return err
			})
		})
	}
}
