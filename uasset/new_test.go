package uasset_test

import (
	"bytes"
	"errors"
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

// TestNewCookedUE5 builds a cooked asset for each UE5 release that lays
// out tables differently (5.4: no Verse cells; 5.6: cells; 5.8: imports
// with a package name), with preload dependencies, data resources and a
// header padded to a given size: it encodes, decodes as that release with
// no problem, keeps every table, and re-encodes identically; the same for
// 4.27 (no data resources there). Releases before 4.26 are refused.
func TestNewCookedUE5(t *testing.T) {
	names := []string{"/Script/CoreUObject", "/Script/Engine", "Class", "Package", "Texture2D", "Default__Texture2D", "T_New", "/Game/T_New", "None"}
	imports := []uasset.Import{
		{ClassPackage: uasset.NameRef{Index: 0}, ClassName: uasset.NameRef{Index: 2}, OuterIndex: -2, ObjectName: uasset.NameRef{Index: 4}, PackageName: uasset.NameRef{Index: 4}},
		{ClassPackage: uasset.NameRef{Index: 0}, ClassName: uasset.NameRef{Index: 3}, ObjectName: uasset.NameRef{Index: 1}, PackageName: uasset.NameRef{Index: 1}},
		{ClassPackage: uasset.NameRef{Index: 1}, ClassName: uasset.NameRef{Index: 4}, OuterIndex: -2, ObjectName: uasset.NameRef{Index: 5}, PackageName: uasset.NameRef{Index: 5}},
	}
	exports := []uasset.Export{{ClassIndex: -1, TemplateIndex: -3, ObjectName: uasset.NameRef{Index: 6}, ObjectFlags: 0xB, IsAsset: true,
		SerializationBeforeCreateDependencies: 2, Data: bytes.Repeat([]byte{7}, 40)}}
	for _, tc := range []struct {
		release uasset.Release
		pad     int32
	}{{uasset.Release{Major: 4, Minor: 27}, 0}, {uasset.Release{Major: 4, Minor: 27}, 900}, {uasset.Release{Major: 5, Minor: 4}, 0}, {uasset.Release{Major: 5, Minor: 6}, 0}, {uasset.Release{Major: 5, Minor: 8}, 0}, {uasset.Release{Major: 5, Minor: 8}, 900}} {
		t.Run(tc.release.String(), func(t *testing.T) {
			a, err := uasset.NewCookedUE5(uasset.CookedUE5{
				Release: tc.release, FileName: "T_New.uasset",
				Summary: uasset.Summary{PackageName: "/Game/T_New", PackageFlags: uasset.PkgCooked | uasset.PkgFilterEditorOnly, NamesReferencedFromExportDataCount: 1},
				Names:   names, Imports: imports, Exports: exports, PreloadDependencies: []uasset.PackageIndex{-1, -3},
				DataResources: []uasset.DataResource{{SerialOffset: 8, DuplicateSerialOffset: -1, SerialSize: 16, RawSize: 16, OuterIndex: 1, LegacyBulkDataFlags: 0x48}},
				HeaderSize:    tc.pad,
			})
			if err != nil {
				t.Fatal(err)
			}
			h, x, err := a.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if tc.pad > 0 && len(h) != int(tc.pad) {
				t.Errorf("header %d bytes, want %d", len(h), tc.pad)
			}
			p, err := uasset.Decode("T_New.uasset", h, x, &uasset.Options{Release: tc.release})
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range p.Problems() {
				t.Errorf("problem: %v", pr)
			}
			wantResources := 1 // 4.27 has no data resource table
			if tc.release.Major == 4 {
				wantResources = 0
			}
			if len(p.Names) != len(names) || len(p.Imports) != 3 || len(p.Exports) != 1 || len(p.PreloadDependencies) != 2 || len(p.DataResources) != wantResources ||
				p.Summary.PackageName != "/Game/T_New" || !p.HasTailTag() || !bytes.Equal(p.Exports[0].Data, exports[0].Data) ||
				p.Summary.BulkDataStartOffset != int64(len(h)+len(exports[0].Data)) {
				t.Errorf("decoded: %d names, %d imports, %d exports, %d preload, %d data resources, name %q, bulk start %d",
					len(p.Names), len(p.Imports), len(p.Exports), len(p.PreloadDependencies), len(p.DataResources), p.Summary.PackageName, p.Summary.BulkDataStartOffset)
			}
			if tc.release.Minor == 8 && p.Imports[0].PackageName != imports[0].PackageName {
				t.Errorf("5.8 import package name %v", p.Imports[0].PackageName)
			}
			h2, x2, err := p.Encode()
			if err != nil || !bytes.Equal(h, h2) || !bytes.Equal(x, x2) {
				t.Errorf("does not re-encode identically (%v)", err)
			}
		})
	}
	if _, err := uasset.NewCookedUE5(uasset.CookedUE5{Release: uasset.Release{Major: 4, Minor: 25}}); !errors.Is(err, uasset.ErrUnsupportedVersion) {
		t.Errorf("4.25: %v", err)
	}
}
