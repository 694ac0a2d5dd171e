package zenbuild_test

import (
	"bytes"
	"testing"

	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// TestBuildEveryLayout builds a package with a class, its default object
// and a subobject in every layout: each decodes in canonical form, passes
// every check, and names its objects as the spec does.
func TestBuildEveryLayout(t *testing.T) {
	for l := zen.LayoutUE4; l <= zen.LayoutUE56; l++ {
		s := zenbuild.Spec{
			Name: "/Game/Items/BP_Crate", Layout: l, Versioned: l.IsUE5(),
			Imports:          []string{"/Script/Engine.BlueprintGeneratedClass", "/Script/Engine.Actor"},
			ImportedPackages: []string{"/Game/Items/BP_Base"},
			Exports: []zenbuild.Export{
				{Name: "BP_Crate_C", Class: "/Script/Engine.BlueprintGeneratedClass", Super: "/Script/Engine.Actor", Outer: -1, Flags: zen.FlagPublic | 0x8, Data: []byte("class data")},
				{Name: "Default__BP_Crate_C", Class: "#0", Outer: -1, Flags: zen.FlagPublic | zen.FlagClassDefaultObject, Data: []byte("defaults")},
				{Name: "Mesh", Class: "/Script/Engine.Actor", Outer: 1, Data: nil},
			},
		}
		data, err := zenbuild.Encode(s)
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		p, err := zen.DecodePackage("built", data, nil)
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		if p.Layout != l || len(p.KeptRaw()) > 0 || p.PackageName() != s.Name || p.ExportPath(2) != "/Game/Items/BP_Crate.Default__BP_Crate_C:Mesh" {
			t.Errorf("%v: layout %v, kept %v, name %q, path %q", l, p.Layout, p.KeptRaw(), p.PackageName(), p.ExportPath(2))
		}
		if !bytes.Equal(p.Exports[1].Data, []byte("defaults")) || (l.IsUE5() != (p.Versioning != nil)) {
			t.Errorf("%v: data %q, versioning %+v", l, p.Exports[1].Data, p.Versioning)
		}
		for _, q := range p.Problems(nil) {
			t.Errorf("%v: %s", l, q)
		}
	}
	if _, err := zenbuild.Encode(zenbuild.Spec{Name: "Game/X", Layout: zen.LayoutUE4}); err == nil {
		t.Error("a bad package name is accepted")
	}
	blob, err := zenbuild.Blob("/Game/Maps/Empty", zen.LayoutUE54, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := zen.DecodePackage("blob", blob, nil); err != nil || p.ExportPath(0) != "/Game/Maps/Empty.Empty" || string(p.Exports[0].Data) != "payload" {
		t.Errorf("Blob: %v", err)
	}
}

// TestPropsReadBack writes tagged properties in the UE 4.26/4.27 and the
// UE 5.4+ tag layouts and reads them back with props, which was
// written separately from the same format notes: each side checks the
// other.
func TestPropsReadBack(t *testing.T) {
	for _, l := range []zen.Layout{zen.LayoutUE4, zen.LayoutUE53, zen.LayoutUE56} {
		p, err := zenbuild.Build(zenbuild.Spec{Name: "/Game/Data/DT_Test", Layout: l, Versioned: l.IsUE5(),
			Imports: []string{"/Script/Game.Row", "/Script/Engine.DataTable"},
			Exports: []zenbuild.Export{
				{Name: "DT_Test", Class: "/Script/Engine.DataTable", Outer: -1, Flags: zen.FlagPublic, Table: true,
					Props: []zenbuild.Prop{{Name: "RowStruct", Type: "ObjectProperty", Value: int32(-1)}},
					Rows: []zenbuild.Row{{Name: "First", Props: []zenbuild.Prop{
						{Name: "Count", Type: "IntProperty", Value: int32(-7)},
						{Name: "Big", Type: "Int64Property", Value: int64(1) << 40},
						{Name: "Weight", Type: "FloatProperty", Value: float32(2.5)},
						{Name: "Ratio", Type: "DoubleProperty", Value: 0.125},
						{Name: "On", Type: "BoolProperty", Value: true},
						{Name: "Off", Type: "BoolProperty", Value: false},
						{Name: "Label", Type: "StrProperty", Value: "héllo"},
						{Name: "Tag", Type: "NameProperty", Value: "SomeName"},
						{Name: "Kind", Type: "EnumProperty", Param: "EKind", Module: "/Script/Game", Value: "EKind::Second"},
						{Name: "Level", Type: "ByteProperty", Value: uint8(3)},
						{Name: "Color", Type: "StructProperty", Param: "Color", Module: "/Script/CoreUObject", Value: []byte{1, 2, 3, 4}},
						{Name: "Inner", Type: "StructProperty", Param: "InnerRow", Module: "/Script/Game", Value: []zenbuild.Prop{{Name: "X", Type: "IntProperty", Value: int32(9)}}},
						{Name: "Values", Type: "ArrayProperty", Param: "IntProperty", Value: []int32{4, 5, 6}},
						{Name: "Slots", Type: "IntProperty", ArrayIndex: 2, Value: int32(11)},
					}}}},
			}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := zenprops.ContextFor(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := props.DecodeDataTable(p.Exports[0].Data, ctx)
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		row := tab.Row("First")
		if row == nil {
			t.Fatalf("%v: no row First", l)
		}
		want := map[string]string{"Count": "-7", "Big": "1099511627776", "Weight": "2.5", "Ratio": "0.125", "On": "true", "Off": "false",
			"Label": `"héllo"`, "Tag": "SomeName", "Kind": "EKind::Second", "Level": "3", "Inner.X": "9", "Values[1]": "5"}
		for path, w := range want {
			v, _, _, err := row.Properties.Lookup(path)
			if err != nil || v.String() != w {
				t.Errorf("%v: %s = %v, %v; want %s", l, path, v, err, w)
			}
		}
		if q := row.Properties.Find("Slots", 2); q == nil || q.Value.String() != "11" {
			t.Errorf("%v: Slots[2] = %+v", l, q)
		}
		if out, err := props.EncodeTable(tab, ctx); err != nil || !bytes.Equal(out, p.Exports[0].Data) {
			t.Errorf("%v: the table does not encode back: %v", l, err)
		}
	}
}
