package props_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// TestGroundedBlueprintDefaults reads the class default object of a
// Grounded (UE 4.27) Blueprint, changes one property and checks that only
// its 4 bytes changed.
func TestGroundedBlueprintDefaults(t *testing.T) {
	p := findPackage(t, "", "/Game/Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage")
	const export = 1
	if got := p.ExportName(export); got != "Default__BP_SpicyChoppingDamage_C" {
		t.Fatalf("export 1 is %s", got)
	}
	data := p.Exports[export].Data
	if len(data) != 82 {
		t.Fatalf("export data has %d bytes, want 82", len(data))
	}
	ctx, err := zenprops.ContextFor(p, export)
	if err != nil {
		t.Fatal(err)
	}
	if !ctx.CDO || ctx.FileVersionUE5 != 0 {
		t.Fatalf("context: CDO %v, version %d", ctx.CDO, ctx.FileVersionUE5)
	}
	l, err := props.Decode(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := zenprops.NewResolver(p, nil)
	t.Logf("%s:\n%s", p.ExportPath(export), l.Format(&props.FormatOptions{Object: r.Name}))
	if len(l.Properties) != 2 || l.End != len(data) || l.HasGUIDField || len(l.Rest) != 0 {
		t.Fatalf("%d properties, end %d of %d, GUID field %v, %d bytes after", len(l.Properties), l.End, len(data), l.HasGUIDField, len(l.Rest))
	}
	icons, flags := l.Properties[0], l.Properties[1]
	if icons.Name.Text != "Icons" || icons.TypeString() != "ArrayProperty(ObjectProperty)" || icons.Size != 12 {
		t.Errorf("first property: %s (%s), %d bytes", icons.Label(), icons.TypeString(), icons.Size)
	}
	a, ok := icons.Value.(*props.Array)
	if !ok || len(a.Elements) != 2 || a.Elements[0].Value != props.Object(-11) || a.Elements[1].Value != props.Object(-12) {
		t.Errorf("Icons = %v", icons.Value)
	}
	// The icons are imports 10 and 11, the two textures.
	for i, want := range []string{"/Game/UI/Images/ItemStats/T_UI_Dmg_Chopping.T_UI_Dmg_Chopping", "/Game/UI/Images/ItemStats/T_UI_Dmg_Spice.T_UI_Dmg_Spice"} {
		if p.Imports[10+i] != zen.ObjectIndex(cityhash.PackageImportIndex(want)) {
			t.Errorf("import %d is not %s", 10+i, want)
		}
		if idx, err := r.Index(want); err != nil || idx != int32(-11-i) {
			t.Errorf("Resolver.Index(%s) = %d, %v", want, idx, err)
		}
	}
	if flags.Name.Text != "DamageTypeFlags" || flags.TypeString() != "UInt32Property" || flags.Value != props.UInt32(4354) {
		t.Errorf("second property: %s (%s) = %v", flags.Label(), flags.TypeString(), flags.Value)
	}

	out, ch, err := props.Set(data, ctx, props.Target{Path: "DamageTypeFlags"}, props.Input{Text: "0x1103", Type: "uint32"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("change: %+v", ch)
	if ch.Old != "4354" || ch.New != "4355" || ch.Already || ch.Added || ch.OldSize != 4 || ch.NewSize != 4 {
		t.Errorf("change %+v", ch)
	}
	if len(out) != len(data) || !bytes.Equal(out[:ch.Offset], data[:ch.Offset]) || !bytes.Equal(out[ch.Offset+4:], data[ch.Offset+4:]) ||
		binary.LittleEndian.Uint32(out[ch.Offset:]) != 4355 {
		t.Errorf("data changed beyond the value at 0x%X", ch.Offset)
	}
	nl, err := props.Decode(out, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nl.Properties[1].Value != props.UInt32(4355) || nl.Properties[0].Value.String() != icons.Value.String() {
		t.Errorf("after the change: %s", nl)
	}
	// Setting it again is reported, not an error; the data is unchanged.
	again, ch, err := props.Set(out, ctx, props.Target{Path: "DamageTypeFlags"}, props.Input{Text: "4355"})
	if err != nil || !ch.Already || !bytes.Equal(again, out) {
		t.Errorf("set again: %+v, %v", ch, err)
	}
	// Errors: a negative number, a wrong explicit type, a whole array.
	if _, _, err := props.Set(data, ctx, props.Target{Path: "DamageTypeFlags"}, props.Input{Text: "-1"}); !errors.Is(err, props.ErrRange) {
		t.Errorf("-1 into a UInt32Property: %v", err)
	}
	if _, _, err := props.Set(data, ctx, props.Target{Path: "DamageTypeFlags"}, props.Input{Text: "1", Type: "float"}); !errors.Is(err, props.ErrType) {
		t.Errorf("float into a UInt32Property: %v", err)
	}
	if _, _, err := props.Set(data, ctx, props.Target{Path: "Icons"}, props.Input{Text: "1"}); !errors.Is(err, props.ErrUnsupported) {
		t.Errorf("a whole array: %v", err)
	}
	// An array element by path: the other icon.
	out, ch, err = props.Set(data, ctx, props.Target{Path: "Icons[0]"}, props.Input{Text: "/Game/UI/Images/ItemStats/T_UI_Dmg_Spice.T_UI_Dmg_Spice"})
	if err != nil || ch.New == ch.Old {
		t.Fatalf("Icons[0]: %+v, %v", ch, err)
	}
	if nl, err := props.Decode(out, ctx); err != nil || nl.Properties[0].Value.String() != "[import 11,import 11]" {
		t.Errorf("Icons after the change: %v, %v", nl, err)
	}
	if _, _, err := props.Set(data, ctx, props.Target{Path: "Icons[0]"}, props.Input{Text: "-13"}); !errors.Is(err, props.ErrRange) {
		t.Errorf("import 12 of 12: %v", err)
	}

	// Adding an absent property writes a UE4 tag: name, type, size, array
	// index, has-GUID byte, value.
	names := len(p.Names)
	defer func() { p.Names = p.Names[:names] }()
	out, ch, err = props.Set(data, ctx, props.Target{Path: "DamageMultiplier"}, props.Input{Text: "1.5", Type: "float"})
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Added || ch.NewSize != 8+8+4+4+1+4 || len(out) != len(data)+ch.NewSize || len(p.Names) != names+2 {
		t.Errorf("add: %+v, %d bytes, %d names", ch, len(out), len(p.Names))
	}
	nl, err = props.Decode(out, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if q := nl.Find("DamageMultiplier", 0); q == nil || q.Value != props.Float(1.5) || q.TypeString() != "FloatProperty" {
		t.Errorf("after adding: %s", nl)
	}
	if enc, err := props.Encode(nl, ctx); err != nil || !bytes.Equal(enc, out) {
		t.Errorf("the added tag does not re-encode: %v", err)
	}
}

// TestGroundedDataTable reads the Grounded DataTable Table_SignsJanuary:
// its RowStruct and its rows.
func TestGroundedDataTable(t *testing.T) {
	p := findPackage(t, "", "/Game/Blueprints/Items/Table_SignsJanuary")
	ctx, err := zenprops.ContextFor(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := p.Exports[0].Data
	tb, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := zenprops.NewResolver(p, nil)
	t.Logf("%s:\n%s", p.ExportPath(0), tb.Format(&props.FormatOptions{Object: r.Name}))
	l := tb.Properties
	if len(l.Properties) != 1 || l.Properties[0].Name.Text != "RowStruct" || l.Properties[0].TypeString() != "ObjectProperty" {
		t.Fatalf("properties: %s", l)
	}
	// RowStruct is the script struct /Script/Maine.SignBuildingData.
	idx, err := r.Index("/Script/Maine.SignBuildingData")
	if err != nil || l.Properties[0].Value != props.Object(idx) {
		t.Errorf("RowStruct = %v; /Script/Maine.SignBuildingData is %d (%v)", l.Properties[0].Value, idx, err)
	}
	if !l.HasGUIDField || l.ObjectGUID != nil {
		t.Errorf("object tail: GUID field %v, GUID %v", l.HasGUIDField, l.ObjectGUID)
	}
	if len(tb.Rows) != 0 || tb.End != len(data) || len(tb.Rest) != 0 {
		t.Errorf("%d rows, end %d of %d", len(tb.Rows), tb.End, len(data))
	}
	if out, err := props.EncodeTable(tb, ctx); err != nil || !bytes.Equal(out, data) {
		t.Errorf("EncodeTable: %v", err)
	}
	// Setting RowStruct to the struct it already is.
	out, ch, err := props.Set(data, ctx, props.Target{Path: "RowStruct"}, props.Input{Text: "/Script/Maine.SignBuildingData"})
	if err != nil || !ch.Already || !bytes.Equal(out, data) {
		t.Errorf("RowStruct: %+v, %v", ch, err)
	}
	if _, _, err := props.Set(data, ctx, props.Target{Row: "Sign", Path: "X"}, props.Input{Text: "1"}); !errors.Is(err, props.ErrNotFound) {
		t.Errorf("a row of an empty table: %v", err)
	}
}

// TestGroundedTexture reads the native structs of a Grounded texture's
// properties (IntPoint, Guid) and the texture data after them.
func TestGroundedTexture(t *testing.T) {
	p := findPackage(t, "", "/Engine/Engine_MI_Shaders/T_Emissive")
	ctx, err := zenprops.ContextFor(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := p.Exports[0].Data
	l, err := props.Decode(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := l.String()
	for _, want := range []string{
		"ImportedSize (StructProperty(IntPoint)) = (X=32,Y=32)\n",
		"LightingGuid (StructProperty(Guid)) = 53EA21B64F6E1ABA5A820CB9B377CAD9\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if len(l.Rest) != 1676 {
		t.Errorf("%d bytes after the properties, want 1676", len(l.Rest))
	}
	// A native struct's field, and a one-value struct as a whole.
	out, ch, err := props.Set(data, ctx, props.Target{Path: "ImportedSize.Y"}, props.Input{Text: "64"})
	if err != nil || ch.Old != "32" || ch.New != "64" || ch.Type != "IntProperty" {
		t.Fatalf("ImportedSize.Y: %+v, %v", ch, err)
	}
	out, _, err = props.Set(out, ctx, props.Target{Path: "LightingGuid"}, props.Input{Text: "{00112233-4455-6677-8899-AABBCCDDEEFF}"})
	if err != nil {
		t.Fatal(err)
	}
	nl, err := props.Decode(out, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := nl.String(); !strings.Contains(s, "(X=32,Y=64)") || !strings.Contains(s, "= 00112233445566778899AABBCCDDEEFF\n") {
		t.Errorf("after the changes:\n%s", s)
	}
	if !bytes.Equal(out[len(out)-1676:], data[len(data)-1676:]) {
		t.Error("the texture data after the properties changed")
	}
}
