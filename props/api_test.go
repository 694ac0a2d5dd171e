package props_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// TestLookup resolves paths of every form in the UE 5.8 fixture data asset
// and DataTable.
func TestLookup(t *testing.T) {
	p := findPackage(t, taggedZlib, "/Game/Fixtures/Properties/DA_AllProperties")
	ctx, err := zenprops.ContextFor(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := props.Decode(p.Exports[1].Data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"Integer":                   "305419896",
		"integer":                   "305419896",
		"FixedIntegerArray":         "-2147483648",
		"FixedIntegerArray[2]":      "2147483647",
		"IntegerArray[3]":           "44",
		"StructArray[1].Position.Y": "5",
		"StructArray[2].Samples[2]": "99.75",
		"Nested.Label":              `"PrimaryNested_日本語"`,
		"Box.Min.X":                 "-10.5",
		"Transform.Scale3D.Z":       "0.5",
		"Guid":                      "DEADBEEF0123456789ABCDEF13579BDF",
		"Color":                     "(B=86,G=52,R=18,A=120)",
		"SoftClassReference":        `"/Script/Engine.Texture2D"`,
		" StructArray [0] . Label ": `"First"`,
		"Transform.Translation":     "(X=100.5,Y=-200.25,Z=300.125)",
	} {
		v, off, size, err := l.Lookup(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if got := props.Display(v, nil); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
		if off <= 0 || size < 0 || off+size > len(p.Exports[1].Data) {
			t.Errorf("%s: %d bytes at %d", path, size, off)
		}
	}
	for path, want := range map[string]error{
		"":                            props.ErrNotFound,
		"Missing":                     props.ErrNotFound,
		"StructArray[3]":              props.ErrNotFound,
		"Integer.X":                   props.ErrNotFound,
		"Integer[1]":                  props.ErrNotFound,
		"IntegerArray[x]":             props.ErrNotFound,
		"IntegerArray[1":              props.ErrNotFound,
		"Box.Middle.X":                props.ErrNotFound,
		"ScalarInstancedStruct.Value": props.ErrNotFound,    // its fields are ScriptStruct and Data
		"IntegerMap[0][0]":            props.ErrUnsupported, // a map is kept as its bytes
	} {
		if _, _, _, err := l.Lookup(path); !errors.Is(err, want) {
			t.Errorf("%q: %v, want %v", path, err, want)
		} else {
			t.Logf("%q: %v", path, err)
		}
	}

	dp, dctx := dtAllProperties(t)
	tb, err := props.DecodeDataTable(dp.Exports[0].Data, dctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _, err := tb.Lookup("beta", "Values[3]"); err != nil || v != props.Int(2147483647) {
		t.Errorf("Beta: Values[3] = %v, %v", v, err)
	}
	if v, _, _, err := tb.Lookup("", "RowStruct"); err != nil || v != props.Object(-5) {
		t.Errorf("RowStruct = %v, %v", v, err)
	}
	if _, _, _, err := tb.Lookup("Gamma", "Number"); !errors.Is(err, props.ErrNotFound) {
		t.Errorf("Gamma: %v", err)
	}
}

// TestFormatAndJSON checks the text and JSON forms.
func TestFormatAndJSON(t *testing.T) {
	p := findPackage(t, taggedZlib, "/Game/Fixtures/Properties/DA_AllProperties")
	ctx, err := zenprops.ContextFor(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := props.Decode(p.Exports[1].Data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := zenprops.NewResolver(p, nil)
	text := l.Format(&props.FormatOptions{Object: r.Name, MaxElements: 2, Indent: "\t"})
	for _, want := range []string{
		"IntegerArray (ArrayProperty(IntProperty)) = 4 elements\n\t[0] = 11\n\t[1] = 22\n\t… 2 more\n",
		"InlineObject (ObjectProperty) = /Game/Fixtures/Properties/DA_AllProperties.DA_AllProperties:InlineFixture\n",
		"HardTextureReference (ObjectProperty) = /Game/Fixtures/Textures/T_BC7.<public export 0x",
		`Text (TextProperty) = NSLOCTEXT("", "20FFFBF24214E8B5B3E2C0871BFC6523", "Localized-ish fixture text Ω")`,
		"NameSet (SetProperty(NameProperty)) = 3 elements\n",
		"IntegerMap (MapProperty(NameProperty,IntProperty)) = 3 entries\n",
		"PresentOptional (OptionalProperty(IntProperty)) = set: ",
		`AnsiString (AnsiStrProperty) = "Fixture_ANSI_123"`,
		"FixedIntegerArray[2] (IntProperty) = 2147483647\n",
		"Vector4 (StructProperty(Vector4)) = (X=1.25,Y=-2.5,Z=3.75,W=-4.125)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	js, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Properties []struct {
			Name       struct{ Text string } `json:"name"`
			TypeString string                `json:"type_string"`
			Value      json.RawMessage       `json:"value"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, q := range back.Properties {
		values[q.Name.Text] = string(q.Value)
	}
	for name, want := range map[string]string{
		"Integer":  "305419896",
		"String":   `"CUE4Parse_日本語_äöü"`,
		"Guid":     `{"type":"Guid","native":[{"name":"","offset":1836,"size":16,"value":"DEADBEEF0123456789ABCDEF13579BDF"}],"offset":1836,"size":16}`,
		"Enum":     `"EFixtureEnum::Beta"`,
		"bBoolean": "true",
		"Float":    "1234.25",
		"NameSet":  `{"hex":"0x00000000030000005d000000000000005e000000000000005f00000000000000","text":"3 elements"}`,
	} {
		if values[name] != want {
			t.Errorf("JSON %s = %s, want %s", name, values[name], want)
		}
	}
	if _, err := zenprops.ContextFor(p, 5); !errors.Is(err, props.ErrNotFound) {
		t.Errorf("ContextFor(export 5 of 2): %v", err)
	}
}

// TestDecodeExport reads a DataTable with its rows and an object without,
// and refuses a package cooked without tags.
func TestDecodeExport(t *testing.T) {
	read := func(name string) *zen.Package {
		data, err := os.ReadFile("../examples/packages/zen/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := zen.DecodePackage(name, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	dt := read("DT_DemoItems.uasset")
	e, err := zenprops.DecodeExport(dt, nil, 0)
	if err != nil || e.Table == nil || len(e.Table.Rows) != 3 || e.Properties != e.Table.Properties || len(e.Rest) != 0 || e.Context == nil {
		t.Fatalf("DataTable: %+v, %v", e, err)
	}
	bp := read("BP_DemoPickup.uasset")
	e, err = zenprops.DecodeExport(bp, nil, 1)
	if err != nil || e.Table != nil || len(e.Properties.Properties) != 5 || !e.Context.CDO {
		t.Fatalf("defaults: %+v, %v", e, err)
	}
	bp.PackageFlags |= zen.FlagUnversionedProperties
	if _, err := zenprops.DecodeExport(bp, nil, 1); !errors.Is(err, props.ErrUnversioned) {
		t.Errorf("unversioned: %v", err)
	}
}
