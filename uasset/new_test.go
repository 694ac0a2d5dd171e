package uasset_test

import (
	"bytes"
	"testing"

	"github.com/unrmod/unrmod/uasset"
)

// TestNewCooked427 builds an asset, encodes it, and decodes it as an
// unversioned file would be found: as UE 4.27, with every table, every
// name's hashes and the export data where the encoder put them.
func TestNewCooked427(t *testing.T) {
	names := []string{"/Script/CoreUObject", "Class", "Object", "Package", "Small", "None", "Ünïcode"}
	imports := []uasset.Import{
		{ClassPackage: uasset.NameRef{Index: 0}, ClassName: uasset.NameRef{Index: 3}, ObjectName: uasset.NameRef{Index: 0}},
		{ClassPackage: uasset.NameRef{Index: 0}, ClassName: uasset.NameRef{Index: 1}, OuterIndex: -1, ObjectName: uasset.NameRef{Index: 2}},
	}
	exports := []uasset.Export{
		{ClassIndex: -2, ObjectName: uasset.NameRef{Index: 4}, ObjectFlags: 0x9, IsAsset: true, Data: []byte{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{ClassIndex: -2, ObjectName: uasset.NameRef{Index: 4, Number: 2}, ObjectFlags: 0x8, Data: []byte{5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}},
	}
	h, x, err := uasset.NewCooked427("New.uasset", names, imports, exports).Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := uasset.Decode("New.uasset", h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Release != (uasset.Release{Major: 4, Minor: 27}) || !p.Cooked() || !p.HasTailTag() || p.UnversionedProperties() {
		t.Errorf("release %v cooked %v tag %v unversioned %v", p.Release, p.Cooked(), p.HasTailTag(), p.UnversionedProperties())
	}
	if len(p.Names) != len(names) || len(p.Imports) != 2 || len(p.Exports) != 2 {
		t.Fatalf("%d names, %d imports, %d exports", len(p.Names), len(p.Imports), len(p.Exports))
	}
	for i, n := range p.Names {
		want := uasset.NewName(names[i])
		if n.Value != want.Value || n.NonCaseHash != want.NonCaseHash || n.CaseHash != want.CaseHash {
			t.Errorf("name %d: %+v", i, n)
		}
	}
	for i, e := range p.Exports {
		if !bytes.Equal(e.Data, exports[i].Data) || e.ObjectName != exports[i].ObjectName || e.ClassIndex != exports[i].ClassIndex {
			t.Errorf("export %d: %+v", i, e)
		}
	}
	if p.Exports[1].SerialOffset != int64(len(h))+12 || p.Summary.BulkDataStartOffset != int64(len(h)+len(x)-4) {
		t.Errorf("export 1 at %d, BulkDataStartOffset %d", p.Exports[1].SerialOffset, p.Summary.BulkDataStartOffset)
	}
	if h2, x2, err := p.Encode(); err != nil || !bytes.Equal(h2, h) || !bytes.Equal(x2, x) {
		t.Errorf("round trip differs: %v", err)
	}
}
