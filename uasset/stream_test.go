package uasset_test

import (
	"bytes"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/uasset"
)

// TestCorpusStreamRoundTrip decodes every split asset of the corpus with
// DecodeStream: it must decode as Decode does (release, tables, problems)
// without holding the export data, and EncodeStream must give the
// .uasset and .uexp back byte for byte; with an export loaded and grown,
// the same bytes as Encode of the same change on the asset decoded whole.
func TestCorpusStreamRoundTrip(t *testing.T) {
	streamed, changed := 0, 0
	for _, a := range corpusAssets(t) {
		if a.uexp == nil {
			continue
		}
		full, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			continue // TestCorpusRoundTrip reports it
		}
		p, err := uasset.DecodeStream(a.name, a.uasset, bytes.NewReader(a.uexp), int64(len(a.uexp)), nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		if p.Release != full.Release || !reflect.DeepEqual(p.Fitting, full.Fitting) || !reflect.DeepEqual(p.Names, full.Names) ||
			!reflect.DeepEqual(p.Imports, full.Imports) || len(p.Exports) != len(full.Exports) || !reflect.DeepEqual(p.Problems(), full.Problems()) {
			t.Fatalf("%s: DecodeStream decodes differently from Decode", a.name)
		}
		for i := range p.Exports {
			if p.Exports[i].Data != nil && len(full.Exports[i].Data) > 0 || p.DataLen(i) != len(full.Exports[i].Data) {
				t.Fatalf("%s: export %d holds %d bytes (%d), want none and %d", a.name, i, len(p.Exports[i].Data), p.DataLen(i), len(full.Exports[i].Data))
			}
		}
		if _, _, err := p.Encode(); err == nil {
			t.Fatalf("%s: Encode of a streamed asset did not refuse", a.name)
		}
		h, x, err := p.EncodeStream()
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		got, err := io.ReadAll(x.NewReader())
		if err != nil || !bytes.Equal(h, a.uasset) || !bytes.Equal(got, a.uexp) {
			t.Fatalf("%s: the streamed encoding differs (%v)", a.name, err)
		}
		streamed++
		k := len(p.Exports) - 1
		if k < 0 {
			continue
		}
		if err := p.LoadExport(k); err != nil {
			t.Fatal(err)
		}
		p.Exports[k].Data = append(bytes.Clone(p.Exports[k].Data), 1, 2, 3)
		full.Exports[k].Data = append(bytes.Clone(full.Exports[k].Data), 1, 2, 3)
		wh, wx, werr := full.Encode()
		h, x, err = p.EncodeStream()
		if (err != nil) != (werr != nil) {
			t.Fatalf("%s: EncodeStream %v, Encode %v", a.name, err, werr)
		}
		if err != nil {
			continue
		}
		got, _ = io.ReadAll(x.NewReader())
		if !bytes.Equal(h, wh) || !bytes.Equal(got, wx) {
			t.Fatalf("%s: the changed stream differs from Encode of the same change", a.name)
		}
		changed++
	}
	if streamed == 0 || changed == 0 {
		t.Fatalf("%d assets streamed, %d changed", streamed, changed)
	}
	t.Logf("%d assets streamed, %d changed", streamed, changed)
}

// FuzzDecodeStream checks DecodeStream on any header and .uexp: it
// accepts what Decode accepts, and EncodeStream gives back what Encode
// gives.
func FuzzDecodeStream(f *testing.F) {
	n := 0
	for _, a := range corpusAssets(f) {
		if a.uexp != nil && n < 40 {
			f.Add(a.uasset, a.uexp)
			n++
		}
	}
	f.Fuzz(func(t *testing.T, h, x []byte) {
		defer fuzzbound.Check(t, time.Now(), len(h)+len(x))
		full, ferr := uasset.Decode("fuzz", h, x, nil)
		p, err := uasset.DecodeStream("fuzz", h, bytes.NewReader(x), int64(len(x)), nil)
		if ferr != nil {
			return
		}
		if err != nil {
			return // more than 64 KiB between exports is refused
		}
		wh, wx, werr := full.Encode()
		gh, gx, gerr := p.EncodeStream()
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("Encode %v, EncodeStream %v", werr, gerr)
		}
		if werr != nil {
			return
		}
		got, err := io.ReadAll(gx.NewReader())
		if err != nil || !bytes.Equal(gh, wh) || !bytes.Equal(got, wx) {
			t.Fatal("EncodeStream differs from Encode")
		}
	})
}
