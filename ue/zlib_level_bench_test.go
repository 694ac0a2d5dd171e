package ue_test

import (
	stdzlib "compress/zlib"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zlib"

	"github.com/unrmod/unrmod/ue"
)

// BenchmarkZlibIncompressible compresses a 64 KiB block of random bytes,
// which never shrinks: the built-in Zlib compressor, which scans such a
// block for repeats before it would try zlib's own deflate at the engine's
// level, against klauspost's fast level alone (the baseline: what the Zlib
// compressor did before, giving up on the block at once). On the 2-core
// test machine under load: built-in 57–123 MB/s, baseline 2300–2800 MB/s;
// with the count of byte entropy that now comes first (literalsCanShrink),
// under a load average of 7–10: 56–83 MB/s, baseline 950–2800 MB/s.
// Blocks that the fast level shrinks, nearly all of a cooked game, pay
// nothing.
func BenchmarkZlibIncompressible(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	src := make([]byte, 0x10000)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	dst := make([]byte, 0, 0x11000)
	b.Run("builtin", func(b *testing.B) {
		codec, _ := (*ue.Codecs)(nil).Lookup("Zlib")
		c := codec.NewCompressor(ue.DefaultCompression)
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			c(dst, src)
		}
	})
	b.Run("baseline-klauspost", func(b *testing.B) {
		var w writerBuf
		zw, _ := zlib.NewWriterLevel(&w, zlib.DefaultCompression)
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			zw.Reset(&w)
			zw.Write(src)
			zw.Close()
		}
	})
}

// BenchmarkZlibUneven compresses a 64 KiB block of random bytes below 240
// (tcUneven): no repeats, but a Huffman code of its bytes shrinks it by
// about 1%, as in compressed audio and textures, where klauspost's fast
// levels give up. The built-in compressor tries Huffman coding alone
// (klauspost's HuffmanOnly) before zlib's deflate at the engine's level;
// the baseline is that deflate alone (Go's compress/zlib at level 6),
// what such a block cost before when the repeats scan let it through.
// Under a load average of 7–10, 3 runs: built-in 247–329 MB/s, baseline
// 37–46 MB/s.
func BenchmarkZlibUneven(b *testing.B) {
	src := tcUneven(rand.New(rand.NewPCG(1, 1)), 0x10000)
	dst := make([]byte, 0, 0x11000)
	b.Run("builtin", func(b *testing.B) {
		codec, _ := (*ue.Codecs)(nil).Lookup("Zlib")
		c := codec.NewCompressor(ue.DefaultCompression)
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			c(dst, src)
		}
	})
	b.Run("baseline-zlib6", func(b *testing.B) {
		var w writerBuf
		zw, _ := stdzlib.NewWriterLevel(&w, 6)
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			zw.Reset(&w)
			zw.Write(src)
			zw.Close()
		}
	})
}

type writerBuf struct{ n int }

func (w *writerBuf) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
