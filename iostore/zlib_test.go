package iostore_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/inflate/inflatetest"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
)

// These tests read containers whose Zlib blocks are stored as given with
// Chunk.Blocks: streams of both encoders at every kind of deflate block
// (stored, fixed and dynamic Huffman), and broken ones, through ReadBlock
// and Extract. internal/inflate tests the decoder itself.

const zBlockSize = 4096

// zContainer opens an in-memory container holding one chunk whose blocks
// are stored as given.
func zContainer(t testing.TB, data []byte, blocks [][]byte) *iostore.Container {
	t.Helper()
	id, err := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, 8)
	if err != nil {
		t.Fatal(err)
	}
	b := &iostorebuild.Container{
		Version:    8,
		MountPoint: "../../../Game/Content/",
		BlockSize:  zBlockSize,
		Method:     "Zlib",
		Chunks:     []iostorebuild.Chunk{{ID: id, Path: "Maps/Level.ubulk", Data: data, Blocks: blocks}},
	}
	toc, cas, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	parts := []iostore.Partition{{Name: "Test.ucas", R: bytes.NewReader(cas[0]), Size: int64(len(cas[0]))}}
	c, err := iostore.OpenReaders("Test.utoc", toc, parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestZlibStreams decodes streams of every encoder and level, as blocks
// and as whole chunks, through ReadBlock and Extract.
func TestZlibStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 60 {
		data := inflatetest.Data(r, r.IntN(3), 1+r.IntN(6*zBlockSize))
		if round%10 == 0 {
			data = data[:1+r.IntN(40)]
		}
		for _, enc := range inflatetest.Encoders {
			var blocks [][]byte
			fits := true
			for at := 0; at < len(data); at += zBlockSize {
				stream := inflatetest.Encode(t, enc, data[at:min(len(data), at+zBlockSize)])
				// A block that does not shrink is stored raw instead.
				fits = fits && len(stream) <= zBlockSize
				blocks = append(blocks, stream)
			}
			if !fits {
				continue
			}
			c := zContainer(t, data, blocks)
			for k, stream := range blocks {
				want := data[k*zBlockSize : min(len(data), (k+1)*zBlockSize)]
				got, err := c.ReadBlock(k)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("round %d, encoder %s, block %d: %v", round, enc.Name, k, err)
				}
				if ref, err := inflatetest.Reference(stream, len(want)); err != nil || !bytes.Equal(ref, want) {
					t.Fatalf("klauspost disagrees: %v", err)
				}
			}
			dir := t.TempDir()
			if _, err := c.Extract(dir, nil); err != nil {
				t.Fatalf("round %d: extract: %v", round, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "Game/Content/Maps/Level.ubulk"))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("round %d: extracted file differs (%v)", round, err)
			}
		}
	}
}

// TestZlibBrokenStreams damages streams (bit flips, truncation, wrong
// sizes) and checks that ReadBlock fails exactly when klauspost does, with
// the same bytes when both decode; and that Extract, which skips the
// Adler-32 because it checks the chunk hash, never writes wrong data.
func TestZlibBrokenStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 1000 {
		data := inflatetest.Data(r, r.IntN(3), 1+r.IntN(zBlockSize-64))
		stream := inflatetest.Encode(t, inflatetest.Encoders[r.IntN(len(inflatetest.Encoders))], data)
		stream, n := inflatetest.Damage(r, stream, len(data), 1)
		if len(stream) == 0 || len(stream) > zBlockSize {
			// An empty stored block, or one longer than the block size, is
			// refused before decoding (see the block-entry tests); the
			// Writer does not store one.
			continue
		}
		want, werr := inflatetest.Reference(stream, n)
		c := zContainer(t, make([]byte, n), [][]byte{stream})
		got, err := c.ReadBlock(0)
		if (err == nil) != (werr == nil) {
			t.Fatalf("round %d: klauspost says %v, iostore %v", round, werr, err)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("round %d: decoded bytes differ", round)
		}
		// Extract, with the chunk hash of the undamaged data.
		orig := make([]byte, n)
		copy(orig, data)
		dir := t.TempDir()
		_, err = zContainer(t, orig, [][]byte{stream}).Extract(dir, nil)
		if werr == nil && bytes.Equal(want, orig) && err != nil {
			t.Fatalf("round %d: extract fails on a good stream: %v", round, err)
		}
		if err == nil {
			if got, rerr := os.ReadFile(filepath.Join(dir, "Game/Content/Maps/Level.ubulk")); rerr != nil || !bytes.Equal(got, orig) {
				t.Fatalf("round %d: extract wrote data that does not match the chunk hash (%v)", round, rerr)
			}
		}
	}
}
