package assetprops_test

import (
	"testing"

	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// benchPaks are the paks whose assets the benchmarks read: the UE 5.8
// fixtures (tagged, uncompressed) and the Grounded DataTables (UE 4.27).
var benchPaks = []string{taggedPaks[0], "other/grounded/500-CreativeUnlock_P.pak"}

func benchBytes(b *testing.B, rel string) int64 {
	var n int64
	for _, a := range readPak(b, rel) {
		n += int64(len(a.uasset) + len(a.uexp))
	}
	return n
}

// BenchmarkReadPak reads every asset of the pak (header and export data):
// the plain read the others add to.
func BenchmarkReadPak(b *testing.B) {
	for _, rel := range benchPaks {
		b.Run(rel, func(b *testing.B) {
			b.SetBytes(benchBytes(b, rel))
			for b.Loop() {
				readPak(b, rel)
			}
		})
	}
}

// BenchmarkDecodePakAssets reads the pak and decodes every asset
// (uasset.Decode, the release detected).
func BenchmarkDecodePakAssets(b *testing.B) {
	for _, rel := range benchPaks {
		b.Run(rel, func(b *testing.B) {
			b.SetBytes(benchBytes(b, rel))
			for b.Loop() {
				for _, a := range readPak(b, rel) {
					if _, err := uasset.Decode(a.name, a.uasset, a.uexp, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkPropertiesPak reads the pak, decodes every asset and every
// export's properties and DataTable rows with report.NewCookedProperties.
func BenchmarkPropertiesPak(b *testing.B) {
	for _, rel := range benchPaks {
		b.Run(rel, func(b *testing.B) {
			b.SetBytes(benchBytes(b, rel))
			for b.Loop() {
				for _, a := range readPak(b, rel) {
					p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := describe(p, ""); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkPropertiesOnly decodes the properties and rows of every export
// of the pak's assets, already decoded: the property decoding alone,
// per byte of export data.
func BenchmarkPropertiesOnly(b *testing.B) {
	for _, rel := range benchPaks {
		b.Run(rel, func(b *testing.B) {
			var pkgs []*uasset.Package
			var n int64
			for _, a := range readPak(b, rel) {
				p := decodeAsset(b, a)
				pkgs = append(pkgs, p)
				for _, e := range p.Exports {
					n += int64(len(e.Data))
				}
			}
			b.SetBytes(n)
			for b.Loop() {
				for _, p := range pkgs {
					if _, err := describe(p, ""); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkVerifyPak reads the pak, decodes every asset and verifies it
// with its properties (uasset's Problems, then assetprops.Problems);
// compare with BenchmarkReadPak over the same bytes.
func BenchmarkVerifyPak(b *testing.B) {
	for _, rel := range benchPaks {
		b.Run(rel, func(b *testing.B) {
			b.SetBytes(benchBytes(b, rel))
			for b.Loop() {
				for _, a := range readPak(b, rel) {
					p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
					if err != nil {
						b.Fatal(err)
					}
					if q := append(p.Problems(), assetprops.Problems(p)...); len(q) != 0 {
						b.Fatal(q)
					}
				}
			}
		})
	}
}
