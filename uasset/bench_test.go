package uasset_test

import (
	"bytes"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/uasset"
)

// benchPak is the pak whose cooked assets the benchmarks decode: the
// Grounded mod, eleven UE 4.27 data tables (about 0.5 MB).
const benchPak = "other/grounded/500-CreativeUnlock_P.pak"

func benchAssets(b *testing.B) ([]asset, int64) {
	path := corpus.Path(b, benchPak)
	assets := pakAssets(b, path, benchPak)
	var n int64
	for _, a := range assets {
		n += int64(len(a.uasset) + len(a.uexp))
	}
	if len(assets) == 0 {
		b.Fatal("no assets in the pak")
	}
	return assets, n
}

// BenchmarkDecodePak decodes every cooked asset of a pak (files already
// read), with the release detected.
func BenchmarkDecodePak(b *testing.B) {
	assets, n := benchAssets(b)
	b.SetBytes(n)
	for b.Loop() {
		for _, a := range assets {
			if _, err := uasset.Decode(a.name, a.uasset, a.uexp, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodePakHinted decodes the same assets with the release given.
func BenchmarkDecodePakHinted(b *testing.B) {
	assets, n := benchAssets(b)
	opts := &uasset.Options{Release: uasset.Release{Major: 4, Minor: 27}}
	b.SetBytes(n)
	for b.Loop() {
		for _, a := range assets {
			if _, err := uasset.Decode(a.name, a.uasset, a.uexp, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEncodePak encodes the decoded assets again.
func BenchmarkEncodePak(b *testing.B) {
	assets, n := benchAssets(b)
	var ps []*uasset.Package
	for _, a := range assets {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, p)
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, p := range ps {
			if _, _, err := p.Encode(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCopyPak is the baseline: a plain copy of the same bytes.
func BenchmarkCopyPak(b *testing.B) {
	assets, n := benchAssets(b)
	b.SetBytes(n)
	for b.Loop() {
		for _, a := range assets {
			_ = bytes.Clone(a.uasset)
			_ = bytes.Clone(a.uexp)
		}
	}
}

// BenchmarkReadPak is the other baseline: reading the assets' bytes out
// of the pak (uncompressed here), which a decode of a pak's assets adds to.
func BenchmarkReadPak(b *testing.B) {
	path := corpus.Path(b, benchPak)
	r, err := pak.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	_, n := benchAssets(b)
	b.SetBytes(n)
	for b.Loop() {
		for _, f := range r.Files {
			if _, err := f.ReadAll(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodeVerifyPak decodes and verifies every cooked asset of a
// pak (files already read); compare with BenchmarkReadPak and
// BenchmarkDecodePak.
func BenchmarkDecodeVerifyPak(b *testing.B) {
	assets, n := benchAssets(b)
	b.SetBytes(n)
	for b.Loop() {
		for _, a := range assets {
			p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
			if err != nil {
				b.Fatal(err)
			}
			if q := p.Problems(); len(q) != 0 {
				b.Fatal(q)
			}
		}
	}
}
