package iostore_test

import (
	"bytes"
	stdzlib "compress/zlib"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zlib"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
)

// These tests read containers whose Zlib blocks are stored as given with
// Chunk.Blocks: streams of both encoders at every kind of deflate block
// (stored, fixed and dynamic Huffman), and broken ones, through ReadBlock
// and Extract. inflate_test.go tests the decoder itself.

const zBlockSize = 4096

// zData returns n bytes of one of several kinds: text-like, random, runs.
func zData(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	switch r.IntN(4) {
	case 0:
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case 1:
		for i := range b {
			b[i] = byte(i / (1 + r.IntN(64)))
		}
	default:
		words := []string{"/Game/Maps/", "Texture2D", "None", "\x00\x00\x00\x01", "StaticMesh", "\xff"}
		for i := 0; i < n; {
			if r.IntN(6) == 0 {
				b[i] = byte(r.Uint32())
				i++
				continue
			}
			i += copy(b[i:], words[r.IntN(len(words))])
		}
	}
	return b
}

// zCompress encodes data as a zlib stream: klauspost at level, or the
// standard library (whose small blocks use the fixed codes) when std is set.
func zCompress(t testing.TB, data []byte, level int, std bool) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	if std {
		w, err = stdzlib.NewWriterLevel(&buf, level)
	} else {
		w, err = zlib.NewWriterLevel(&buf, level)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zReference decodes a block the way klauspost/compress does, requiring
// exactly n bytes.
func zReference(stream []byte, n int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	var one [1]byte
	if k, err := zr.Read(one[:]); k > 0 {
		return nil, errors.New("longer than the block entry says")
	} else if err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

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
		data := zData(r, 1+r.IntN(6*zBlockSize))
		if round%10 == 0 {
			data = data[:1+r.IntN(40)]
		}
		for _, enc := range []struct {
			level int
			std   bool
		}{{-2, false}, {0, false}, {1, false}, {5, false}, {9, false}, {0, true}, {1, true}, {9, true}} {
			var blocks [][]byte
			fits := true
			for at := 0; at < len(data); at += zBlockSize {
				stream := zCompress(t, data[at:min(len(data), at+zBlockSize)], enc.level, enc.std)
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
					t.Fatalf("round %d, level %d (std %v), block %d: %v", round, enc.level, enc.std, k, err)
				}
				if ref, err := zReference(stream, len(want)); err != nil || !bytes.Equal(ref, want) {
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
		data := zData(r, 1+r.IntN(zBlockSize-64))
		stream := zCompress(t, data, []int{-2, 1, 6, 9}[round%4], round%5 == 0)
		n := len(data)
		switch r.IntN(4) {
		case 0:
			for range 1 + r.IntN(3) {
				stream[r.IntN(len(stream))] ^= 1 << r.IntN(8)
			}
		case 1:
			// The headers and code tables at the start.
			stream[r.IntN(min(len(stream), 60))] ^= 1 << r.IntN(8)
		case 2:
			stream = stream[:r.IntN(len(stream))]
		case 3:
			n = max(1, n+r.IntN(5)-2)
		}
		want, werr := zReference(stream, n)
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
