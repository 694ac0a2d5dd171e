package iostore_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/unrmod/unrmod/iostore"
)

// TestBuildPerfectHashCorpus: for every corpus TOC with seeds, building the
// perfect hash from its chunk ids gives the stored seeds and overflow list,
// and leaves every id where it is.
func TestBuildPerfectHashCorpus(t *testing.T) {
	n := 0
	for _, f := range tcCorpusTOCs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := iostore.DecodeTOC(filepath.Base(f), data)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.PerfectHashSeeds) == 0 {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			seeds, overflow, slot, err := iostore.BuildPerfectHash(d.ChunkIDs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(seeds, d.PerfectHashSeeds) || !slices.Equal(overflow, d.ChunksWithoutPerfectHash) {
				t.Fatalf("%d seeds, %d overflow; stored %d, %d", len(seeds), len(overflow), len(d.PerfectHashSeeds), len(d.ChunksWithoutPerfectHash))
			}
			for i, s := range slot {
				if s != i {
					t.Fatalf("chunk %d goes to slot %d", i, s)
				}
			}
			n++
		})
	}
	if n == 0 {
		t.Fatal("no corpus TOC with seeds")
	}
	t.Logf("%d corpus TOCs: seeds and overflow rebuilt exactly, every id in its slot", n)
}

// tcIDs returns n distinct chunk ids, made from a fixed random sequence.
func tcIDs(t testing.TB, n int) []iostore.ChunkID {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	ids := make([]iostore.ChunkID, n)
	seen := make(map[iostore.ChunkID]bool, n)
	for i := range ids {
		for {
			typ := []iostore.ChunkType{iostore.ChunkExportBundleData, iostore.ChunkBulkData, iostore.ChunkOptionalBulkData}[r.IntN(3)]
			id, err := iostore.NewChunkID(r.Uint64(), uint16(r.IntN(3)), typ, iostore.VersionReplaceIoChunkHashWithIoHash)
			if err != nil {
				t.Fatal(err)
			}
			if !seen[id] {
				seen[id] = true
				ids[i] = id
				break
			}
		}
	}
	return ids
}

// tcPerfectTOC returns a version 8 TOC of ids whose offsets and metas
// identify each chunk's original index.
func tcPerfectTOC(ids []iostore.ChunkID, v iostore.TocVersion) *iostore.TOC {
	d := &iostore.TOC{
		Header:        iostore.Header{Version: v, CompressionBlockSize: 0x10000, PartitionCount: 1, PartitionSize: math.MaxUint64},
		ChunkIDs:      slices.Clone(ids),
		OffsetLengths: make([]iostore.OffsetLength, len(ids)),
		Metas:         make([]iostore.ChunkMeta, len(ids)),
	}
	for i := range ids {
		d.OffsetLengths[i] = iostore.OffsetLength{Offset: uint64(i) << 16, Length: uint64(i)}
		binary.LittleEndian.PutUint32(d.Metas[i].Hash[:], uint32(i))
	}
	return d
}

// tcCheckPerfect checks that d, made by tcPerfectTOC from ids and permuted
// by perm, finds every id with the engine's lookup at its new index, with
// its own offset and meta.
func tcCheckPerfect(t *testing.T, d *iostore.TOC, ids []iostore.ChunkID, perm []int) {
	t.Helper()
	seen := make([]bool, len(ids))
	for i, id := range ids {
		k, ok := d.LookupPerfectHash(id)
		if !ok || k != perm[i] || seen[k] {
			t.Fatalf("id %d: lookup %d %v, perm %d", i, k, ok, perm[i])
		}
		seen[k] = true
		if d.ChunkIDs[k] != id || d.OffsetLengths[k].Length != uint64(i) || binary.LittleEndian.Uint32(d.Metas[k].Hash[:]) != uint32(i) {
			t.Fatalf("id %d: slot %d holds another chunk's data", i, k)
		}
	}
}

// TestBuildPerfectHashGenerated: for id sets of every size class, every id
// is found at its slot afterwards and the seed count is the engine's
// (BenchmarkBuildPerfectHash measures the build's speed). The seeds of the largest set match a digest taken when the
// builder reproduced every corpus TOC, which pins the engine's bucket order
// also where the corpus is not available.
func TestBuildPerfectHashGenerated(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 1000, 50000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ids := tcIDs(t, n)
			d := tcPerfectTOC(ids, iostore.VersionReplaceIoChunkHashWithIoHash)
			perm, err := d.ApplyPerfectHash()
			if err != nil {
				t.Fatal(err)
			}
			if want := max(1, (n+1)/2); len(d.PerfectHashSeeds) != want || d.Header.TocChunkPerfectHashSeedsCount != uint32(want) {
				t.Errorf("%d seeds, want %d", len(d.PerfectHashSeeds), want)
			}
			tcCheckPerfect(t, d, ids, perm)
			t.Logf("%d ids: %d overflow", n, len(d.ChunksWithoutPerfectHash))
			if n == 50000 {
				var b []byte
				for _, s := range d.PerfectHashSeeds {
					b = binary.LittleEndian.AppendUint32(b, uint32(s))
				}
				sum := sha256.Sum256(b)
				if got := hex.EncodeToString(sum[:]); got != tcSeedsDigest50000 {
					t.Errorf("seeds digest %s, want %s", got, tcSeedsDigest50000)
				}
			}
		})
	}
}

// tcSeedsDigest50000 is the SHA-256 of the seeds (int32, little-endian) of
// tcIDs(50000), as BuildPerfectHash made them when it reproduced the seeds
// of every corpus TOC.
const tcSeedsDigest50000 = "2ae30787dcf74676f66c2ea8bc50057bbd4fa0c57cc250764c9ca3763da7aa92"

// TestBuildPerfectHashOverflow forces buckets into the overflow list by
// trying few seeds: the overflow ids take the slots left, in order, their
// buckets hold the overflow marker, and the engine's lookup finds them.
func TestBuildPerfectHashOverflow(t *testing.T) {
	ids := tcIDs(t, 1000)
	for _, primes := range [][]uint32{nil, {2}, {2, 3, 5}} {
		t.Run(fmt.Sprint(primes), func(t *testing.T) {
			seeds, overflow, slot, err := iostore.BuildPerfectHashPrimes(ids, primes)
			if err != nil {
				t.Fatal(err)
			}
			if len(overflow) == 0 {
				t.Fatal("no overflow")
			}
			if !slices.IsSorted(overflow) {
				t.Errorf("overflow slots not in order")
			}
			markers := 0
			for _, s := range seeds {
				if s < -int32(len(ids)) {
					markers++
				}
			}
			if markers == 0 {
				t.Errorf("no overflow marker among the seeds")
			}
			d := tcPerfectTOC(ids, iostore.VersionReplaceIoChunkHashWithIoHash)
			perm, err := iostore.ApplyPerfectHashPrimes(d, primes)
			if err != nil || !slices.Equal(perm, slot) || !slices.Equal(d.PerfectHashSeeds, seeds) || !slices.Equal(d.ChunksWithoutPerfectHash, overflow) {
				t.Fatalf("ApplyPerfectHash differs from BuildPerfectHash (%v)", err)
			}
			tcCheckPerfect(t, d, ids, perm)
			t.Logf("%d overflow ids, %d overflow buckets", len(overflow), markers)

			// Version 4 has no overflow list.
			d = tcPerfectTOC(ids, iostore.VersionPerfectHash)
			_, err = iostore.ApplyPerfectHashPrimes(d, primes)
			tcCheckEncodeErr(t, err, "", "chunks without perfect hash", "version 4 has no overflow list")
			if !slices.Equal(d.ChunkIDs, ids) {
				t.Errorf("the failed call moved chunks")
			}
		})
	}
}

// TestBuildPerfectHashRefuses: duplicate ids and versions without seeds.
func TestBuildPerfectHashRefuses(t *testing.T) {
	ids := tcIDs(t, 10)
	ids[7] = ids[2]
	_, _, _, err := iostore.BuildPerfectHash(ids)
	tcCheckEncodeErr(t, err, "", "chunk id 7", "also chunk id 2")

	d := tcPerfectTOC(tcIDs(t, 10), iostore.VersionPartitionSize)
	d.File = "Old.utoc"
	_, err = d.ApplyPerfectHash()
	tcCheckEncodeErr(t, err, "Old.utoc", "perfect-hash seeds", "version 3 has no perfect-hash seeds")

	d = tcPerfectTOC(ids, iostore.VersionReplaceIoChunkHashWithIoHash)
	d.File = "Dup.utoc"
	_, err = d.ApplyPerfectHash()
	tcCheckEncodeErr(t, err, "Dup.utoc", "chunk id 7", "also chunk id 2")
	d.Metas = d.Metas[1:]
	_, err = d.ApplyPerfectHash()
	tcCheckEncodeErr(t, err, "Dup.utoc", "TOC", "9 chunk metas")
}

// TestEngineSort: the engine's sort orders any input, including runs long
// and tied enough to reach its heap sort, and keeps the elements.
func TestEngineSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 8, 9, 50, 1000, 20000} {
		for _, distinct := range []int{1, 3, 1000} {
			key := make([]int32, n)
			a := make([]int32, n)
			for i := range a {
				a[i] = int32(i)
				key[i] = int32(r.IntN(distinct))
			}
			iostore.EngineSort(a, func(x, y int32) bool { return key[x] > key[y] })
			for i := 1; i < n; i++ {
				if key[a[i-1]] < key[a[i]] {
					t.Fatalf("n=%d distinct=%d: not sorted at %d", n, distinct, i)
				}
			}
			sorted := slices.Clone(a)
			slices.Sort(sorted)
			for i, x := range sorted {
				if x != int32(i) {
					t.Fatalf("n=%d: elements lost", n)
				}
			}
		}
	}
	if p := iostore.PerfectHashPrimes(); len(p) != 1000 || p[0] != 2 || p[999] != 7919 {
		t.Errorf("%d primes, %d … %d", len(p), p[0], p[len(p)-1])
	}
}

// TestApplyPerfectHashContainer perfect-hashes a builder container, gives
// its directory index the new chunk indices, and reads it back: every
// chunk is found by id with the engine's lookup, keeps its path and data,
// and Verify is clean.
func TestApplyPerfectHashContainer(t *testing.T) {
	for _, v := range []iostore.TocVersion{iostore.VersionPerfectHashWithOverflow, iostore.VersionReplaceIoChunkHashWithIoHash} {
		t.Run(v.String(), func(t *testing.T) {
			b := tcSynthetic(t, v, "Zlib", nil)
			toc, parts, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			d, err := iostore.DecodeTOC("Hashed.utoc", toc)
			if err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(d.ChunkIDs)
			x, err := iostore.DecodeDirectoryIndex("Hashed.utoc", d.DirectoryIndex, 0)
			if err != nil {
				t.Fatal(err)
			}
			perm, err := d.ApplyPerfectHash()
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(d.ChunkIDs, before) {
				t.Fatal("the perfect hash moved no chunk; pick other ids")
			}
			files := slices.Clone(x.Files)
			for i := range files {
				files[i].Chunk = uint32(perm[files[i].Chunk])
			}
			y, err := iostore.NewDirectoryIndex(x.MountPoint, files)
			if err != nil {
				t.Fatal(err)
			}
			if d.DirectoryIndex, err = y.AppendBinary(nil); err != nil {
				t.Fatal(err)
			}
			hashed, err := d.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			c, err := iostore.OpenReaders("Hashed.utoc", hashed, []iostore.Partition{{Name: "Hashed.ucas", R: bytes.NewReader(parts[0]), Size: int64(len(parts[0]))}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := c.Verify(nil); !r.OK() || r.HashesChecked != len(b.Chunks) {
				t.Fatalf("verify: %v", r.Problems)
			}
			for i, want := range b.Chunks {
				k, ok := c.TOC().LookupPerfectHash(want.ID)
				if !ok || k != perm[i] {
					t.Fatalf("chunk %d: lookup %d %v, moved to %d", i, k, ok, perm[i])
				}
				ch := c.Chunks()[k]
				data, err := c.ReadChunk(k)
				if err != nil || ch.ID != want.ID || ch.Path != want.Path || !bytes.Equal(data, want.Data) {
					t.Errorf("chunk %d at %d: %v %q (%v)", i, k, ch.ID, ch.Path, err)
				}
			}
		})
	}
}

// TestTOCAppendBinaryNewModel builds a TOC from a zero header: it encodes
// with the engine's constants and zero reserved bytes, and decodes to the
// same model.
func TestTOCAppendBinaryNewModel(t *testing.T) {
	v := iostore.VersionReplaceIoChunkHashWithIoHash
	ids := tcIDs(t, 5)
	m := tcPerfectTOC(ids, v)
	m.File = "New.utoc"
	m.Header.ContainerID, m.Header.ContainerFlags = 0x1234, iostore.FlagIndexed
	m.Blocks = []iostore.CompressionBlock{{Offset: 0, CompressedSize: 10, UncompressedSize: 10}}
	m.Trailing = []byte{1, 2}
	perm, err := m.ApplyPerfectHash()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := iostore.NewDirectoryIndex("../../../Game/Content/", []iostore.IndexedFile{{Path: "A/B.uasset", Chunk: uint32(perm[0])}})
	if err != nil {
		t.Fatal(err)
	}
	if m.DirectoryIndex, err = idx.AppendBinary(nil); err != nil {
		t.Fatal(err)
	}
	out, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if le.Uint32(out[20:]) != 144 || le.Uint32(out[32:]) != 12 || le.Uint32(out[40:]) != 32 || !bytes.Equal(out[100:144], make([]byte, 44)) || out[17] != 0 {
		t.Errorf("header % x", out[:144])
	}
	d, err := iostore.DecodeTOC("New.utoc", out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.ChunkIDs, m.ChunkIDs) || !slices.Equal(d.OffsetLengths, m.OffsetLengths) || !slices.Equal(d.Metas, m.Metas) ||
		!slices.Equal(d.Blocks, m.Blocks) || !slices.Equal(d.PerfectHashSeeds, m.PerfectHashSeeds) ||
		!bytes.Equal(d.DirectoryIndex, m.DirectoryIndex) || !bytes.Equal(d.Trailing, m.Trailing) ||
		d.Header.ContainerID != 0x1234 || d.Header.PartitionSize != math.MaxUint64 {
		t.Errorf("decodes to a different model")
	}
	tcCheckPerfect(t, d, ids, perm)
}

// BenchmarkBuildPerfectHash builds the tables of 50 000 ids.
func BenchmarkBuildPerfectHash(b *testing.B) {
	ids := tcIDs(b, 50000)
	for b.Loop() {
		if _, _, _, err := iostore.BuildPerfectHash(ids); err != nil {
			b.Fatal(err)
		}
	}
}

// TestApplyPerfectHashOnDemand: a version 6 container's per-chunk on-demand
// metas move with their chunks; the per-block part stays.
func TestApplyPerfectHashOnDemand(t *testing.T) {
	d := tcSectionModels(t)["on-demand metas"]
	n := len(d.ChunkIDs)
	before := bytes.Clone(d.OnDemandMetas)
	perm, err := d.ApplyPerfectHash()
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range perm {
		if !bytes.Equal(d.OnDemandMetas[20*k:20*k+20], before[20*i:20*i+20]) {
			t.Errorf("chunk %d: on-demand meta not moved to %d", i, k)
		}
	}
	if !bytes.Equal(d.OnDemandMetas[20*n:], before[20*n:]) {
		t.Errorf("block metas changed")
	}
	if _, err := d.AppendBinary(nil); err != nil {
		t.Fatal(err)
	}
}
