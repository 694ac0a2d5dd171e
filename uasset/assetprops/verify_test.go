package assetprops_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// TestCorpusPropertyProblems reads the properties of every export of the
// corpus's tagged cooked assets (the UE 5.8 paks and the Grounded mod's
// 4.27 data tables; the 4.27 and 5.6 pairs are unversioned and get no
// property problem): each decodes and, on 5.8, spans exactly its script
// serialization range.
func TestCorpusPropertyProblems(t *testing.T) {
	var assets []pakAsset
	for _, rel := range []string{taggedPaks[0], taggedPaks[1], "other/grounded/500-CreativeUnlock_P.pak"} {
		assets = append(assets, readPak(t, rel)...)
	}
	for _, rel := range []string{"other/ue4_27_cooked_pairs/TestModUI", "other/ue5_cooked_pairs/UE5.6_SM_Cube"} {
		h, err := os.ReadFile(corpus.Path(t, rel+".uasset"))
		if err != nil {
			t.Fatal(err)
		}
		x, err := os.ReadFile(corpus.Path(t, rel+".uexp"))
		if err != nil {
			t.Fatal(err)
		}
		assets = append(assets, pakAsset{name: rel, uasset: h, uexp: x})
	}
	checked := 0
	for _, a := range assets {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		for _, q := range assetprops.Problems(p) {
			t.Errorf("%s: %v", a.name, q)
		}
		if !p.UnversionedProperties() {
			checked += len(p.Exports)
		}
	}
	t.Logf("%d exports checked", checked)
	if checked < 20 {
		t.Errorf("only %d exports with tagged properties", checked)
	}
}

// TestPropertyProblemsDamaged damages the properties of the tagged 5.8
// data table and its recorded script range: Problems names the export.
func TestPropertyProblemsDamaged(t *testing.T) {
	var src pakAsset
	for _, a := range readPak(t, taggedPaks[0]) {
		if strings.HasSuffix(a.path, "DT_AllProperties.uasset") {
			src = a
		}
	}
	if src.uasset == nil {
		t.Fatal("DT_AllProperties not in the pak")
	}
	for _, tc := range []struct {
		name   string
		damage func(p *uasset.Package)
		msg    string
	}{
		{"script end one short", func(p *uasset.Package) { p.Exports[0].ScriptSerializationEndOffset-- }, "ScriptSerializationStart/EndOffset say"},
		{"script start one on", func(p *uasset.Package) { p.Exports[0].ScriptSerializationStartOffset++ }, "ScriptSerializationStart/EndOffset say"},
		{"first tag's name out of range", func(p *uasset.Package) {
			e := &p.Exports[0]
			d := bytes.Clone(e.Data)
			binary.LittleEndian.PutUint32(d[e.ScriptSerializationStartOffset+1:], 0x7FFFFFF0) // after the control byte
			e.Data = d
		}, "do not decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := uasset.Decode(src.name, src.uasset, src.uexp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if q := assetprops.Problems(p); len(q) != 0 {
				t.Fatalf("undamaged: %v", q)
			}
			tc.damage(p)
			for _, q := range assetprops.Problems(p) {
				if strings.HasPrefix(q.Struct, `export 0 "DT_AllProperties" properties`) && strings.Contains(q.Msg, tc.msg) {
					t.Logf("%v", q)
					return
				}
			}
			t.Errorf("no problem saying %q: %v", tc.msg, assetprops.Problems(p))
		})
	}
}
