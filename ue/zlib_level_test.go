package ue_test

import (
	"bytes"
	stdgzip "compress/gzip"
	stdzlib "compress/zlib"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/unrmod/unrmod/ue"
)

// tcNearRandom returns n random bytes with a few short repeats: data that
// zlib at the engine's level shrinks by a few percent, and that a fast
// compressor easily gives up on.
func tcNearRandom(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	m, ml := r.IntN(120), 4+r.IntN(5)
	for range m {
		src := r.IntN(n - 64)
		dst := src + 1 + r.IntN(n-src-ml-1)
		copy(b[dst:dst+ml], b[src:src+ml])
	}
	return b
}

// tcUneven returns n random bytes below 240: without repeats, but a
// Huffman code of the bytes alone takes about 1% less than the bytes
// (log2(240) = 7.9 bits each), which zlib at the engine's level finds and
// klauspost's fast levels do not.
func tcUneven(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(240))
	}
	return b
}

// tcEngineSize is the size zlib at Z_DEFAULT_COMPRESSION (6), the
// engine's call, gives b in the method's framing, as Go's port of zlib's
// deflate gives it.
func tcEngineSize(t *testing.T, method string, b []byte) int {
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	if method == "Gzip" {
		w, err = stdgzip.NewWriterLevel(&buf, 6)
	} else {
		w, err = stdzlib.NewWriterLevel(&buf, 6)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Len()
}

// TestZlibShrinksWhatEngineShrinks checks that the Zlib and Gzip
// compressors, at every level a writer may pass, shrink every block that
// zlib at the engine's level shrinks: a writer stores a block that does
// not shrink uncompressed, so a weaker compressor stores raw what the
// engine would have compressed.
func TestZlibShrinksWhatEngineShrinks(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 6))
	for _, data := range []struct {
		name  string
		make  func(r *rand.Rand, n int) []byte
		sizes []int
	}{
		{"near-random", tcNearRandom, []int{4096, 0x10000}},
		// Blocks that only a Huffman code of their bytes shrinks, as
		// in compressed audio and textures.
		{"uneven", tcUneven, []int{0x10000}},
	} {
		for _, method := range []string{"Zlib", "Gzip"} {
			codec, _ := (*ue.Codecs)(nil).Lookup(method)
			for _, level := range []int{ue.DefaultCompression, ue.BestSpeed, ue.BestCompression} {
				compress := codec.NewCompressor(level)
				shrunk, missed := 0, 0
				for trial := range 60 {
					n := data.sizes[trial%len(data.sizes)]
					b := data.make(r, n)
					if tcEngineSize(t, method, b) >= n {
						continue
					}
					shrunk++
					out, err := compress(nil, b)
					if err != nil {
						t.Fatal(err)
					}
					if len(out) >= n {
						missed++
					}
					// What it returns decodes to the block.
					dst := make([]byte, n, n+ue.DecompressSlack)
					if err := codec.Decompress(dst, out); err != nil || !bytes.Equal(dst, b) {
						t.Fatalf("%s, %s level %d: the block does not decode back (%v)", data.name, method, level, err)
					}
				}
				if shrunk < 30 {
					t.Fatalf("%s, %s: only %d of 60 blocks shrink with zlib: the data does not test the rule", data.name, method, shrunk)
				}
				if missed > 0 {
					t.Errorf("%s, %s level %d: %d of the %d blocks zlib at level 6 shrinks come out no smaller", data.name, method, level, missed, shrunk)
				}
			}
		}
	}
}
