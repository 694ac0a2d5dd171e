package convert

import (
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/uasset"
)

// benchSet is the cooked assets of the UE 5.8 fixture project's
// uncompressed legacy pak with the engine's zen package of each.
type benchAsset struct {
	name     string
	h, x     []byte
	zen      []byte
	inBytes  int64
	zenBytes int64
}

func loadBenchSet(b *testing.B) []benchAsset {
	b.Helper()
	dir := corpus.Dir(b)
	paks, _ := filepath.Glob(filepath.Join(dir, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/*.pak"))
	if len(paks) != 1 {
		b.Fatalf("want one uncompressed legacy pak of the 5.8 fixtures, found %d", len(paks))
	}
	r, err := pak.Open(paks[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ct, err := iostore.Open(filepath.Join(dir, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ct.Close()
	var set []benchAsset
	for _, f := range r.Files {
		ext := path.Ext(f.Path)
		if ext != ".uasset" && ext != ".umap" {
			continue
		}
		h, err := f.ReadAll()
		if err != nil {
			b.Fatal(err)
		}
		x, err := r.ReadFile(strings.TrimSuffix(f.Path, ext) + ".uexp")
		if err != nil {
			b.Fatal(err)
		}
		a, err := uasset.Decode(f.Path, h, x, nil)
		if err != nil {
			b.Fatal(err)
		}
		i, ok := ct.PackageChunk(zen.PackageIDFromName(a.Summary.PackageName))
		if !ok {
			b.Fatalf("no package %s", a.Summary.PackageName)
		}
		z, err := ct.ReadChunk(i)
		if err != nil {
			b.Fatal(err)
		}
		set = append(set, benchAsset{f.Path, h, x, z, int64(len(h) + len(x)), int64(len(z))})
	}
	return set
}

// BenchmarkConvert converts the UE 5.8 fixture assets (decode the cooked
// asset, ToZen, encode the package) beside two baselines on the same
// packages in the same run: decoding and encoding the cooked assets, and
// decoding and encoding the engine's zen packages. MB/s counts the cooked
// asset's bytes (.uasset + .uexp); packages/s is reported too.
func BenchmarkConvert(b *testing.B) {
	set := loadBenchSet(b)
	var in int64
	for _, s := range set {
		in += s.inBytes
	}
	run := func(b *testing.B, one func(s benchAsset) error) { benchEach(b, set, in, one) }
	b.Run("convert", func(b *testing.B) {
		run(b, func(s benchAsset) error {
			a, err := uasset.Decode(s.name, s.h, s.x, nil)
			if err != nil {
				return err
			}
			p, err := ToZen(a, nil)
			if err != nil {
				return err
			}
			_, err = p.Encode()
			return err
		})
	})
	b.Run("asset-decode-encode", func(b *testing.B) {
		run(b, func(s benchAsset) error { return assetDecodeEncode(s.name, s.h, s.x, nil) })
	})
	b.Run("zen-decode-encode", func(b *testing.B) {
		run(b, func(s benchAsset) error { return zenDecodeEncode(s.name, s.zen) })
	})
}

// benchEach times one over every element of set in each iteration, in
// bytes per iteration (MB/s) and packages a second.
func benchEach[T any](b *testing.B, set []T, in int64, one func(T) error) {
	b.SetBytes(in)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range set {
			if err := one(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(set))/b.Elapsed().Seconds(), "packages/s")
}

// zenDecodeEncode is the baseline of decoding and encoding a zen package.
func zenDecodeEncode(name string, data []byte) error {
	p, err := zen.DecodePackage(name, data, nil)
	if err != nil {
		return err
	}
	_, err = p.Encode()
	return err
}

// assetDecodeEncode is the baseline of decoding and encoding a cooked
// asset.
func assetDecodeEncode(name string, h, x []byte, opts *uasset.Options) error {
	a, err := uasset.Decode(name, h, x, opts)
	if err != nil {
		return err
	}
	_, _, err = a.Encode()
	return err
}
