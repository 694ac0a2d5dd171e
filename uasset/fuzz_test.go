package uasset_test

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

// FuzzDecode decodes arbitrary header and export data: every input is
// either refused with a *FormatError or decodes to a model that encodes
// back to the same bytes. Seeds: an asset the test builds, and every
// asset of the corpus when UNRMOD_CORPUS is set.
func FuzzDecode(f *testing.F) {
	h, x := uasset.BuildSmall(f)
	f.Add(h, x, true)
	f.Add(append(bytes.Clone(h), x...), []byte(nil), false)
	if os.Getenv(corpus.EnvVar) != "" {
		for _, a := range corpusAssets(f) {
			f.Add(a.uasset, a.uexp, a.uexp != nil)
		}
	}
	f.Fuzz(func(t *testing.T, h, x []byte, split bool) {
		defer fuzzbound.Check(t, time.Now(), len(h)+len(x))
		var ux []byte
		if split {
			ux = append([]byte{}, x...)
		}
		p, err := uasset.Decode("fuzz.uasset", h, ux, nil)
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *FormatError: %v", err)
			}
			return
		}
		h2, x2, err := p.Encode()
		if err != nil {
			t.Fatalf("decoded package does not encode: %v", err)
		}
		if !bytes.Equal(h2, h) || !bytes.Equal(x2, ux) || (x2 == nil) != (ux == nil) {
			t.Fatalf("round trip differs: header %d→%d bytes, export data %d→%d bytes", len(h), len(h2), len(ux), len(x2))
		}
	})
}

// FuzzProblems verifies whatever Decode accepts: Problems never panics
// and stays linear (fuzzbound), on the same seeds as FuzzDecode.
func FuzzProblems(f *testing.F) {
	h, x := uasset.BuildSmall(f)
	f.Add(h, x, true)
	f.Add(append(bytes.Clone(h), x...), []byte(nil), false)
	if os.Getenv(corpus.EnvVar) != "" {
		for _, a := range corpusAssets(f) {
			f.Add(a.uasset, a.uexp, a.uexp != nil)
		}
	}
	f.Fuzz(func(t *testing.T, h, x []byte, split bool) {
		defer fuzzbound.Check(t, time.Now(), len(h)+len(x))
		var ux []byte
		if split {
			ux = x
		}
		p, err := uasset.Decode("fuzz.uasset", h, ux, nil)
		if err != nil {
			return
		}
		for _, q := range p.Problems() {
			if q.Struct == "" || q.Msg == "" {
				t.Fatalf("problem without a structure or a message: %#v", q)
			}
		}
	})
}
