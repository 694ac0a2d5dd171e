package assetprops_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// fuzzBases are the assets whose exports the fuzz target replaces: the
// built Blueprint, and with UNRMOD_CORPUS the tagged fixture paks' assets
// and the Grounded DataTables.
func fuzzBases(tb testing.TB) []pakAsset {
	h, x := buildBlueprint(tb)
	out := []pakAsset{{name: "BP_Test.uasset", uasset: h, uexp: x}}
	if os.Getenv(corpus.EnvVar) != "" {
		out = append(out, readPak(tb, taggedPaks[1])...)
		out = append(out, readPak(tb, "other/grounded/500-CreativeUnlock_P.pak")...)
	}
	return out
}

// FuzzExportProperties puts arbitrary bytes in place of an export's data
// in a cooked asset: what DecodeExport accepts encodes back to the same
// bytes (props.Encode, or props.EncodeTable for a DataTable), and the
// asset with that export encodes and decodes back to the same data.
// Seeds: every export of the bases.
func FuzzExportProperties(f *testing.F) {
	bases := fuzzBases(f)
	releases := make([]uasset.Release, len(bases))
	for k, a := range bases {
		p := decodeAsset(f, a)
		releases[k] = p.Release
		for i, e := range p.Exports {
			f.Add(uint8(k), uint8(i), e.Data)
		}
	}
	f.Fuzz(func(t *testing.T, k, i uint8, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		// Each input decodes its base afresh (the release given: no
		// detection), so that no input sees another's changes.
		k %= uint8(len(bases))
		p, err := uasset.Decode(bases[k].name, bases[k].uasset, bases[k].uexp, &uasset.Options{Release: releases[k]})
		if err != nil {
			t.Fatal(err)
		}
		n := int(i) % len(p.Exports)
		p.Exports[n].Data = bytes.Clone(data)
		x, err := assetprops.DecodeExport(p, n)
		if err != nil {
			return
		}
		var out []byte
		if x.Table != nil {
			out, err = props.EncodeTable(x.Table, x.Context)
		} else {
			out, err = props.Encode(x.Properties, x.Context)
		}
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("export %d decodes but does not encode back (%v): %d bytes → %d", n, err, len(data), len(out))
		}
		h, ux, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		q, err := uasset.Decode(p.FileName, h, ux, nil)
		if err != nil {
			t.Fatalf("the asset with the new export data does not decode: %v", err)
		}
		if !bytes.Equal(q.Exports[n].Data, data) {
			t.Fatalf("export %d reads back different data", n)
		}
	})
}
