package oodle_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ue/oodle"
)

// FuzzDecompress hands the library damaged blocks, seeded with the Oodle
// blocks of the corpus (when UNRMOD_CORPUS is set) and blocks of its own:
// Decompress must fail with ErrDecode or fill exactly the size asked,
// never crash; and what Compress writes must decode to its input.
func FuzzDecompress(f *testing.F) {
	lib, _ := open(f, nil)
	if os.Getenv(corpus.EnvVar) != "" {
		for i, r := range oodletest.Records(f, oodletest.Twins(f)) {
			if i%8 == 0 { // a sample keeps the seed corpus small
				f.Add(r.Comp, uint32(len(r.Raw)))
			}
		}
	}
	for _, src := range blocks() {
		comp, err := lib.Compress(nil, src, oodle.Kraken, oodle.Normal)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(comp, uint32(len(src)))
		f.Add(src, uint32(len(src)))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint32) {
		n %= 1 << 20
		dst := make([]byte, n)
		if err := lib.Decompress(dst, data); err != nil && !errors.Is(err, oodle.ErrDecode) {
			t.Fatalf("error %v is not ErrDecode", err)
		}
		if len(data) == 0 {
			return
		}
		comp, err := lib.Compress(nil, data, oodle.Kraken, oodle.SuperFast)
		if err != nil {
			t.Fatal(err)
		}
		back := make([]byte, len(data))
		if err := lib.Decompress(back, comp); err != nil || !bytes.Equal(back, data) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// BenchmarkDecompress decodes a 64 KiB block of a zen package through the
// library and, as the baseline, the same bytes Zlib-compressed through
// unrmod's own decoder.
func BenchmarkDecompress(b *testing.B) {
	lib, _ := open(b, nil)
	src := bytes.Repeat([]byte("/Script/Engine\x00\x00\x00\x00\x01\x00\x00\x00StaticMesh\x00\x00\x07"), 2048)[:64<<10]
	zlib, _ := (*ue.Codecs)(nil).Lookup("Zlib")
	for _, tc := range []struct {
		name  string
		codec ue.Codec
	}{{"library", lib.Codec(oodle.Kraken, oodle.Normal)}, {"zlib-baseline", zlib}} {
		comp, err := tc.codec.NewCompressor(ue.DefaultCompression)(nil, src)
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]byte, len(src))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := tc.codec.Decompress(dst, comp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
