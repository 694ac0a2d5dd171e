package convert

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

// FuzzToZen converts whatever cooked asset uasset.Decode accepts: ToZen
// either refuses it with a *ue.FormatError or returns a package that
// encodes, decodes again and re-encodes to the same bytes. Seeds: the
// cooked pairs of the corpus (UE 5.4–5.6 and 4.27), each for its release.
func FuzzToZen(f *testing.F) {
	if os.Getenv(corpus.EnvVar) != "" {
		for _, dir := range []string{"other/ue5_cooked_pairs", "other/ue4_27_cooked_pairs"} {
			for _, pr := range pairsFor(f, dir) {
				l, err := zen.DetectLayout(pr.zen)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(pr.uasset, pr.uexp, uint8(l))
			}
		}
	}
	f.Fuzz(func(t *testing.T, h, x []byte, layout uint8) {
		defer fuzzbound.Check(t, time.Now(), len(h)+len(x))
		a, err := uasset.Decode("fuzz.uasset", h, x, nil)
		if err != nil {
			return
		}
		var e zen.Engine
		for _, r := range a.Fitting {
			if c := (zen.Engine{Major: r.Major, Minor: r.Minor}); uint8(c.Layout()) == layout {
				e = c
			}
		}
		p, err := ToZen(a, &Options{Engine: e, PackageName: "/Game/Fuzz"})
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *ue.FormatError: %v", err)
			}
			return
		}
		b, err := p.Encode()
		if err != nil {
			t.Fatalf("converted package does not encode: %v", err)
		}
		d, err := zen.DecodePackage("converted", b, nil)
		if err != nil {
			t.Fatalf("converted package does not decode: %v", err)
		}
		b2, err := d.Encode()
		if err != nil || string(b2) != string(b) {
			t.Fatalf("converted package does not re-encode identically (%v)", err)
		}
	})
}

// FuzzShaderArchive decodes pak-era and IoStore shader libraries: no
// panic, and what decodes encodes back to the same bytes.
func FuzzShaderArchive(f *testing.F) {
	a := miniShaderArchive(f, 3)
	f.Add(a.Encode())
	z, err := ShaderArchiveToZen(a, "PCD3D_SM6", 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(z.Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, err := DecodeShaderArchive("f", data); err == nil {
			if !bytes.Equal(a.Encode(), data) {
				t.Fatal("pak-era library does not encode back")
			}
			if z, err := ShaderArchiveToZen(a, "PCD3D_SM6", 64); err == nil {
				if _, err := DecodeZenShaderArchive("z", z.Encode()); err != nil {
					t.Fatalf("converted header does not decode: %v", err)
				}
			}
		}
		if z, err := DecodeZenShaderArchive("f", data); err == nil && !bytes.Equal(z.Encode(), data) {
			t.Fatal("IoStore library header does not encode back")
		}
	})
}
