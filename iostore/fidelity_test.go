package iostore_test

import (
	"bytes"
	stdzlib "compress/zlib"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestWriterBlockSize checks that the Writer takes only the block sizes
// the engine reads: powers of two, since its writer and readers round
// offsets to the block size with a mask.
func TestWriterBlockSize(t *testing.T) {
	for _, tc := range []struct {
		bs uint32
		ok bool
	}{
		{0, true}, // 64 KiB
		{16, true},
		{4096, true},
		{0x10000, true},
		{1 << 23, true},
		{4080, false}, // a multiple of 16, not a power of two
		{48, false},
		{3 * 0x10000, false},
		{8, false},
		{1 << 24, false}, // a block could not record its size
	} {
		out := filepath.Join(t.TempDir(), "Blocks-Windows.utoc")
		w, err := iostore.NewWriter(out, &iostore.WriterOptions{BlockSize: tc.bs})
		if tc.ok != (err == nil) {
			t.Errorf("block size %d: error %v, want ok=%v", tc.bs, err, tc.ok)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "power of two") || !strings.Contains(err.Error(), out) {
				t.Errorf("block size %d: error %q does not name the output and the rule", tc.bs, err)
			}
			continue
		}
		w.Abort()
	}
}

// tcOddBlockSize writes a container whose block size is 3 × 4096, which
// no engine reads: a container of one-block chunks built with 4096-byte
// blocks, its chunks moved to multiples of the odd size.
func tcOddBlockSize(t *testing.T) string {
	const bs, odd = 4096, 3 * 4096
	v := iostore.VersionReplaceIoChunkHashWithIoHash
	b := &iostorebuild.Container{Version: v, BlockSize: bs, MountPoint: "../../../Game/Content/"}
	for k := range 3 {
		id, _ := iostore.NewChunkID(uint64(100+k), 0, iostore.ChunkBulkData, v)
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: "Odd" + string(rune('A'+k)) + ".ubulk", Data: tcData(uint64(k), 1000+k)})
	}
	dir := t.TempDir()
	utoc, err := b.WriteFiles(dir, "Odd-Windows")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(utoc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := iostore.DecodeTOC(utoc, data)
	if err != nil {
		t.Fatal(err)
	}
	d.Header.CompressionBlockSize = odd
	for i := range d.OffsetLengths {
		d.OffsetLengths[i].Offset = d.OffsetLengths[i].Offset / bs * odd
	}
	if data, err = d.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(utoc, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return utoc
}

// TestRewriteOddBlockSize checks that a container of a block size the
// engine cannot read is not written again with it: unrmod reads it (its
// reader divides), verify reports the block size, and both rewrite layouts
// refuse, naming the input.
func TestRewriteOddBlockSize(t *testing.T) {
	utoc := tcOddBlockSize(t)
	src, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for i := range src.Chunks() {
		if _, err := src.ReadChunk(i); err != nil {
			t.Fatalf("the forged container does not read: %v", err)
		}
	}
	// verify names the problem.
	r := src.Verify(nil)
	if len(r.Problems) != 1 || r.Problems[0].Struct != "TOC header" || !strings.Contains(r.Problems[0].Msg, "power of two") {
		t.Errorf("verify: %v, want the block size named", r.Problems)
	}
	for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
		out := filepath.Join(t.TempDir(), "Out-Windows.utoc")
		_, err := iostore.Rewrite(src, out, nil, &iostore.RewriteOptions{Layout: layout})
		if err == nil || !strings.Contains(err.Error(), "power of two") || !strings.Contains(err.Error(), utoc) {
			t.Errorf("%v: rewrite of a 12288-byte block size: error %v, want a refusal naming %s", layout, err, utoc)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", layout, out)
		}
	}
}

// TestWriterPartitionsKeepChunks checks that the Writer keeps every
// chunk's blocks in one partition, as the engine's writer does, moving a
// chunk that would straddle the end of a partition to the next one, and
// refuses a chunk larger than a partition.
func TestWriterPartitionsKeepChunks(t *testing.T) {
	const bs = 4096
	v := iostore.VersionPartitionSize
	r := rand.New(rand.NewPCG(7, 7))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		method string
		part   uint64
		sizes  []int // chunk sizes
		random bool  // incompressible data: stored blocks of bs bytes
		bad    bool
	}{
		// Three 3-block chunks fill 9 of 10 blocks: the fourth straddles.
		{"stored", "None", 10 * bs, []int{3 * bs, 3 * bs, 3 * bs, 3 * bs, 2*bs + 5, bs}, true, false},
		{"zlib noise", "Zlib", 10 * bs, []int{3 * bs, 3 * bs, 3 * bs, 3 * bs, 7 * bs, 100}, true, false},
		{"zlib text", "Zlib", 6 * bs, []int{9 * bs, 20 * bs, 3 * bs, 15 * bs, 9 * bs, 100}, false, false},
		{"chunk over a partition", "None", 4 * bs, []int{bs, 5 * bs}, true, true},
		{"first chunk over a partition", "None", 4 * bs, []int{5 * bs}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "Parts-Windows.utoc")
			w, err := iostore.NewWriter(out, &iostore.WriterOptions{Version: v, BlockSize: bs, Method: tc.method, PartitionSize: tc.part, Verify: iostore.VerifyAll})
			if err != nil {
				t.Fatal(err)
			}
			var want [][]byte
			for k, n := range tc.sizes {
				data := tcData(uint64(k), n)
				if tc.random {
					data = noise(n)
				}
				want = append(want, data)
				id, _ := iostore.NewChunkID(uint64(k+1), 0, iostore.ChunkBulkData, v)
				if err = w.AddChunk(id, "Game/Content/P"+string(rune('A'+k))+".ubulk", bytes.NewReader(data)); err != nil {
					break
				}
			}
			if err == nil {
				err = w.Close()
			} else {
				w.Abort()
			}
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), "partition size") {
					t.Fatalf("error %v, want a refusal of a chunk larger than a partition", err)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s written", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := iostore.Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			blocks := c.TOC().Blocks
			for i, ch := range c.Chunks() {
				data, err := c.ReadChunk(i)
				if err != nil || !bytes.Equal(data, want[i]) {
					t.Errorf("chunk %d does not read back (%v)", i, err)
				}
				for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
					b := blocks[k]
					p0 := blocks[ch.FirstBlock].Offset / tc.part
					if p := b.Offset / tc.part; p != p0 {
						t.Errorf("chunk %d: block %d in partition %d, its first block in %d", i, k, p, p0)
					}
					if end := b.Offset%tc.part + b.StoredSize(true); end > tc.part {
						t.Errorf("chunk %d: block %d ends at %d, past the partition size", i, k, end)
					}
				}
			}
			if c.Header().PartitionCount < 2 {
				t.Errorf("%d partitions: the test does not split", c.Header().PartitionCount)
			}
			if report := c.Verify(nil); len(report.Problems) > 0 {
				t.Errorf("verify: %v", report.Problems)
			}
		})
	}
}

// tcInvalidContainerID is FIoContainerId's invalid value, which the
// engine's packer leaves in the global container.
const tcInvalidContainerID = zen.ContainerID(math.MaxUint64)

// TestWriterGlobalContainerID checks the container id the Writer derives:
// CityHash64 of the name, except for the global container, which the
// engine's packer writes with the invalid id (the corpus's global
// containers hold it).
func TestWriterGlobalContainerID(t *testing.T) {
	for _, tc := range []struct {
		name string
		want zen.ContainerID
	}{
		{"global", tcInvalidContainerID},
		{"Global", tcInvalidContainerID},
		{"pakchunk0-Windows", zen.ContainerIDFromName("pakchunk0-Windows")},
		{"global_P", zen.ContainerIDFromName("global_P")},
	} {
		out := filepath.Join(t.TempDir(), tc.name+".utoc")
		w, err := iostore.NewWriter(out, &iostore.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := iostore.NewChunkID(0, 0, iostore.ChunkScriptObjects, iostore.VersionReplaceIoChunkHashWithIoHash)
		if err := w.AddChunk(id, "", bytes.NewReader([]byte("script objects"))); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c, err := iostore.Open(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Header().ContainerID; got != tc.want {
			t.Errorf("%s: container id %v, want %v", tc.name, got, tc.want)
		}
		c.Close()
	}
	// Every corpus global container holds the invalid id.
	n := 0
	for _, utoc := range corpusContainers(t) {
		if !strings.EqualFold(filepath.Base(utoc), "global.utoc") {
			continue
		}
		c, err := iostore.Open(utoc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Header().ContainerID; got != tcInvalidContainerID {
			t.Errorf("%s: container id %v, want %v", utoc, got, tcInvalidContainerID)
		}
		c.Close()
		n++
	}
	if n == 0 {
		t.Error("no global container in the corpus")
	}
}

// TestWriterCompressesWhatEngineCompresses checks that a Zlib container
// stores compressed the blocks zlib at the engine's level (6) shrinks:
// nearly random data with a few repeats, which the fast compressor alone
// left uncompressed.
func TestWriterCompressesWhatEngineCompresses(t *testing.T) {
	const bs = 0x10000
	r := rand.New(rand.NewPCG(22, 7))
	data := make([]byte, 4*bs)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for off := 0; off < len(data); off += bs {
		for range 150 {
			src := off + r.IntN(bs-64)
			dst := src + 8 + r.IntN(off+bs-src-16)
			copy(data[dst:dst+7], data[src:src+7])
		}
	}
	for off := 0; off < len(data); off += bs {
		var z bytes.Buffer
		zw, _ := stdzlib.NewWriterLevel(&z, 6)
		zw.Write(data[off : off+bs])
		zw.Close()
		if z.Len() >= bs {
			t.Fatalf("block at %d: zlib at level 6 does not shrink it (%d bytes): the data does not test the rule", off, z.Len())
		}
	}
	out := filepath.Join(t.TempDir(), "Noise-Windows.utoc")
	w, err := iostore.NewWriter(out, &iostore.WriterOptions{Method: "Zlib"})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionReplaceIoChunkHashWithIoHash)
	if err := w.AddChunk(id, "Game/Content/Noise.ubulk", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for k, b := range c.TOC().Blocks {
		if b.Method == 0 {
			t.Errorf("block %d stored uncompressed (%d bytes), which zlib at the engine's level shrinks", k, b.CompressedSize)
		}
	}
}
