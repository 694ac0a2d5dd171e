package convert

import (
	"errors"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// BenchmarkToLegacy converts every package of the UE 5.8 fixture container
// that its container set names the imports of (decode the zen package,
// ToLegacy, encode the .uasset and .uexp) beside, in the same run, the
// baseline of decoding and encoding the same zen packages, and decoding
// and encoding the converted assets. Imported packages are decoded once
// and kept by the ContainerSource, as a command converting several
// packages of a set would. MB/s counts the zen packages' bytes.
func BenchmarkToLegacy(b *testing.B) {
	ct, src := fixtureSet(b)
	type pkg struct {
		name    string
		zen     []byte
		h, x    []byte
		release uasset.Release
	}
	var set []pkg
	var in int64
	for _, i := range packageChunks(b, ct) {
		data, err := ct.ReadChunk(i)
		if err != nil {
			b.Fatal(err)
		}
		p, err := zen.DecodePackage(ct.PackageName(i), data, nil)
		if err != nil {
			b.Fatal(err)
		}
		a, err := ToLegacy(p, &LegacyOptions{Engine: zen.Engine58, Imports: src})
		if errors.Is(err, ErrUnresolvedImport) {
			continue // engine content outside the set
		}
		if err != nil {
			b.Fatal(err)
		}
		h, x, err := a.Encode()
		if err != nil {
			b.Fatal(err)
		}
		set = append(set, pkg{ct.PackageName(i), data, h, x, a.Release})
		in += int64(len(data))
	}
	run := func(b *testing.B, one func(s pkg) error) { benchEach(b, set, in, one) }
	b.Run("to-legacy", func(b *testing.B) {
		run(b, func(s pkg) error {
			p, err := zen.DecodePackage(s.name, s.zen, nil)
			if err != nil {
				return err
			}
			a, err := ToLegacy(p, &LegacyOptions{Engine: zen.Engine58, Imports: src})
			if err != nil {
				return err
			}
			_, _, err = a.Encode()
			return err
		})
	})
	b.Run("zen-decode-encode", func(b *testing.B) {
		run(b, func(s pkg) error { return zenDecodeEncode(s.name, s.zen) })
	})
	b.Run("asset-decode-encode", func(b *testing.B) {
		run(b, func(s pkg) error { return assetDecodeEncode(s.name, s.h, s.x, &uasset.Options{Release: s.release}) })
	})
}
