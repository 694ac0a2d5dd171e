package props_test

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// flatten returns every value of a list as path → display, the way Set's
// paths name them: struct members with '.', array elements with [i],
// static array elements with [i] on the property.
func flatten(l *props.List, prefix string, out map[string]string) {
	for _, p := range l.Properties {
		flattenValue(prefix+p.Label(), p.Value, out)
	}
}

func flattenValue(path string, v props.Value, out map[string]string) {
	switch x := v.(type) {
	case *props.Struct:
		switch {
		case x.Tagged != nil:
			flatten(x.Tagged, path+".", out)
			return
		case len(x.Native) == 1 && x.Native[0].Name == "":
		case x.Native != nil:
			for _, f := range x.Native {
				flattenValue(path+"."+f.Name, f.Value, out)
			}
			return
		}
	case *props.Array:
		out[path+".len"] = fmt.Sprint(len(x.Elements))
		for i, e := range x.Elements {
			flattenValue(fmt.Sprintf("%s[%d]", path, i), e.Value, out)
		}
		return
	}
	out[path] = props.Display(v, nil)
}

// flattenTable flattens a DataTable: "Row: path" for row values.
func flattenTable(t *testing.T, data []byte, ctx *props.Context) map[string]string {
	t.Helper()
	tb, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	flatten(tb.Properties, "", out)
	for _, r := range tb.Rows {
		flatten(r.Properties, r.Name.Text+": ", out)
	}
	return out
}

// diff returns the keys whose values differ between a and b.
func diff(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			d = append(d, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k)
		}
	}
	sort.Strings(d)
	return d
}

// dtAllProperties returns the UE 5.8 fixture DataTable's package and the
// context of its export.
func dtAllProperties(tb testing.TB) (*zen.Package, *props.Context) {
	p := findPackage(tb, taggedZlib, "/Game/Fixtures/DataTables/DT_AllProperties")
	ctx, err := zenprops.ContextFor(p, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return p, ctx
}

// TestDTAllPropertiesRows decodes every row of the UE 5.8 fixture DataTable
// with every value, as the bytes hold them.
func TestDTAllPropertiesRows(t *testing.T) {
	p, ctx := dtAllProperties(t)
	if ctx.FileVersionUE5 != 1018 || ctx.CDO {
		t.Errorf("context: version %d, CDO %v", ctx.FileVersionUE5, ctx.CDO)
	}
	data := p.Exports[0].Data
	tb, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", tb.Format(&props.FormatOptions{Object: zenprops.NewResolver(p, nil).Name}))
	if tb.Properties.Control == nil || tb.Properties.Control.Flags != 0 {
		t.Errorf("control byte: %+v", tb.Properties.Control)
	}
	if len(tb.Rows) != 3 || tb.End != len(data) {
		t.Fatalf("%d rows, end %d of %d", len(tb.Rows), tb.End, len(data))
	}
	got := flattenTable(t, data, ctx)
	want := map[string]string{
		"RowStruct": "import 4",

		"Alpha: Number":                "305419896", // 0x12345678
		"Alpha: LargeNumber":           "1234605616436508552",
		"Alpha: Message":               `"Alpha_CUE4Parse_日本語_äöü"`,
		"Alpha: Kind":                  "EFixtureEnum::Alpha",
		"Alpha: Nested.Marker":         "101",
		"Alpha: Nested.Label":          `"NestedAlpha"`,
		"Alpha: Nested.Position.X":     "1.25",
		"Alpha: Nested.Position.Y":     "-2.5",
		"Alpha: Nested.Position.Z":     "3.75",
		"Alpha: Nested.Samples.len":    "3",
		"Alpha: Nested.Samples[0]":     "0.125",
		"Alpha: Nested.Samples[1]":     "-2.5",
		"Alpha: Nested.Samples[2]":     "99.75",
		"Alpha: Nested.bEnabled":       "true",
		"Alpha: Values.len":            "4",
		"Alpha: Values[0]":             "11",
		"Alpha: Values[1]":             "22",
		"Alpha: Values[2]":             "33",
		"Alpha: Values[3]":             "44",
		"Beta: Number":                 "-202020",
		"Beta: LargeNumber":            "-9007199254740991",
		"Beta: Message":                `"Beta_ß_水_🚀"`,
		"Beta: Kind":                   "EFixtureEnum::Beta",
		"Beta: Nested.Marker":          "-202",
		"Beta: Nested.Label":           `"NestedBeta"`,
		"Beta: Nested.Position.X":      "-10",
		"Beta: Nested.Position.Y":      "20",
		"Beta: Nested.Position.Z":      "-30",
		"Beta: Nested.Samples.len":     "3",
		"Beta: Nested.Samples[0]":      "0.125",
		"Beta: Nested.Samples[1]":      "-2.5",
		"Beta: Nested.Samples[2]":      "99.75",
		"Beta: Nested.bEnabled":        "false",
		"Beta: Values.len":             "4",
		"Beta: Values[0]":              "-7",
		"Beta: Values[1]":              "0",
		"Beta: Values[2]":              "7",
		"Beta: Values[3]":              "2147483647",
		"Defaults: Number":             "0",
		"Defaults: LargeNumber":        "0",
		"Defaults: Message":            `""`,
		"Defaults: Kind":               "EFixtureEnum::None",
		"Defaults: Nested.Marker":      "0",
		"Defaults: Nested.Label":       `""`,
		"Defaults: Nested.Position.X":  "0",
		"Defaults: Nested.Position.Y":  "0",
		"Defaults: Nested.Position.Z":  "0",
		"Defaults: Nested.Samples.len": "0",
		"Defaults: Nested.bEnabled":    "false",
		"Defaults: Values.len":         "0",
	}
	for _, k := range diff(got, want) {
		t.Errorf("%s = %q, want %q", k, got[k], want[k])
	}
	// Types as the tags name them.
	alpha := tb.Row("alpha").Properties
	for path, typ := range map[string]string{
		"Number": "IntProperty", "LargeNumber": "Int64Property", "Message": "StrProperty",
		"Kind": "EnumProperty(EFixtureEnum)", "Nested": "StructProperty(FixtureNestedStruct)", "Values": "ArrayProperty(IntProperty)",
	} {
		if q := alpha.Find(path, 0); q == nil || q.TypeString() != typ {
			t.Errorf("Alpha: %s has type %v, want %s", path, q, typ)
		}
	}
	if q := alpha.Find("Kind", 0); q.Type.Full() != "EnumProperty(EFixtureEnum(/Script/CUE4ParseFixtures),ByteProperty)" {
		t.Errorf("Kind's full type: %s", q.Type.Full())
	}
	nested := alpha.Find("Nested", 0).Value.(*props.Struct).Tagged
	if pos := nested.Find("Position", 0); !pos.Native() || pos.Size != 24 || pos.Type.Full() != "StructProperty(Vector(/Script/CoreUObject))" {
		t.Errorf("Position: native %v, %d bytes, type %s", pos.Native(), pos.Size, pos.Type.Full())
	}
	if out, err := props.EncodeTable(tb, ctx); err != nil || !bytes.Equal(out, data) {
		t.Errorf("EncodeTable: %v", err)
	}
}

// setCase is one change of a value: its target, the new text, and the
// text that sets it back.
type setCase struct {
	row, path, value, back, typ string
	// want is the value's display after the change ("" when it is value).
	want string
}

// TestDTAllPropertiesSet changes a row value of each kind, checks that
// only that value changed, and sets it back to the original bytes.
func TestDTAllPropertiesSet(t *testing.T) {
	p, ctx := dtAllProperties(t)
	data := p.Exports[0].Data
	before := flattenTable(t, data, ctx)
	cases := []setCase{
		{row: "Alpha", path: "Number", value: "-42", back: "0x12345678"},
		{row: "Beta", path: "LargeNumber", value: "9223372036854775807", back: "-9007199254740991"},
		{row: "Alpha", path: "Message", value: "A much longer message than the original one, ünïcödé and 日本語 included", back: "Alpha_CUE4Parse_日本語_äöü"},
		{row: "Alpha", path: "Message", value: "x", back: "Alpha_CUE4Parse_日本語_äöü"},
		{row: "Defaults", path: "Message", value: "now set", back: ""},
		{row: "Beta", path: "Message", value: "plain ASCII", back: "Beta_ß_水_🚀"},
		{row: "Alpha", path: "Kind", value: "Beta", back: "EFixtureEnum::Alpha", want: "EFixtureEnum::Beta"},
		{row: "Defaults", path: "Kind", value: "EFixtureEnum::Alpha", back: "None", want: "EFixtureEnum::Alpha"},
		{row: "Alpha", path: "Nested.Position.X", value: "-1e10", back: "1.25"},
		{row: "Beta", path: "Nested.Position.Z", value: "0.1", back: "-30"},
		{row: "Alpha", path: "Nested.Marker", value: "2147483647", back: "101"},
		{row: "Beta", path: "Nested.Label", value: "a longer nested label", back: "NestedBeta"},
		{row: "Alpha", path: "Nested.bEnabled", value: "false", back: "true"},
		{row: "Beta", path: "Nested.bEnabled", value: "yes", back: "no", want: "true"},
		{row: "Alpha", path: "Nested.Samples[2]", value: "-0.5", back: "99.75"},
		{row: "Beta", path: "Values[3]", value: "-2147483648", back: "2147483647"},
	}
	for _, c := range cases {
		name := c.row + ": " + c.path + " = " + c.value
		target := props.Target{Row: c.row, Path: c.path}
		out, ch, err := props.Set(data, ctx, target, props.Input{Text: c.value, Type: c.typ})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := c.want
		if want == "" {
			want = props.Display(mustParse(t, ctx, data, target, c.value), nil)
		}
		after := flattenTable(t, out, ctx)
		key := c.row + ": " + c.path
		if d := diff(before, after); len(d) != 1 || d[0] != key || after[key] != want {
			t.Errorf("%s: changed %v; %s = %s, want %s", name, d, key, after[key], want)
		}
		if ch.Already || ch.New != want || ch.Old != before[key] {
			t.Errorf("%s: change %+v", name, ch)
		}
		if len(out)-len(data) != ch.NewSize-ch.OldSize {
			t.Errorf("%s: %d → %d bytes, change %+v", name, len(data), len(out), ch)
		}
		// Everything before and after the value is unchanged (Size fields
		// aside, which change with the size).
		if ch.NewSize == ch.OldSize {
			if !bytes.Equal(out[:ch.Offset], data[:ch.Offset]) || !bytes.Equal(out[ch.Offset+ch.NewSize:], data[ch.Offset+ch.OldSize:]) {
				t.Errorf("%s: bytes outside the value changed", name)
			}
		} else if !bytes.Equal(out[ch.Offset+ch.NewSize:], data[ch.Offset+ch.OldSize:]) {
			t.Errorf("%s: bytes after the value changed", name)
		}
		// Set it back: the original bytes.
		back, ch2, err := props.Set(out, ctx, target, props.Input{Text: c.back})
		if err != nil || !bytes.Equal(back, data) {
			t.Errorf("%s: setting back to %q: %+v, %v (%d bytes, want %d; first difference at %d)", name, c.back, ch2, err, len(back), len(data), firstDiff(back, data))
		}
	}
}

// mustParse returns the value text means for the value at target.
func mustParse(t *testing.T, ctx *props.Context, data []byte, target props.Target, text string) props.Value {
	t.Helper()
	out, _, err := props.Set(data, ctx, target, props.Input{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := props.DecodeDataTable(out, ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, _, _, err := tb.Row(target.Row).Properties.Lookup(target.Path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDTAllPropertiesAdd adds absent properties to a row and to a struct in
// a row, in the UE 5.4+ tag layout, and checks the errors Set gives.
func TestDTAllPropertiesAdd(t *testing.T) {
	p, ctx := dtAllProperties(t)
	names := len(p.Names)
	defer func() { p.Names = p.Names[:names] }()
	data := p.Exports[0].Data
	before := flattenTable(t, data, ctx)
	out := data
	for _, c := range []struct{ row, path, value, typ, want string }{
		{"Beta", "Extra", "12", "int", "12"},
		{"Beta", "Nested.Scale", "2.5", "float", "2.5"},
		{"Defaults", "Nested.bVisible", "true", "bool", "true"},
		{"Alpha", "Tag", "Fixture_Tag_7", "name", "Fixture_Tag_7"},
		{"Alpha", "Note", "hello", "str", `"hello"`},
		{"Alpha", "Slots[2]", "3", "byte", "3"},
		{"Defaults", "Other", "EFixtureEnum::Beta", "enum", "EFixtureEnum::Beta"},
	} {
		var ch props.Change
		var err error
		out, ch, err = props.Set(out, ctx, props.Target{Row: c.row, Path: c.path}, props.Input{Text: c.value, Type: c.typ})
		if err != nil {
			t.Fatalf("%s: %s: %v", c.row, c.path, err)
		}
		if !ch.Added || ch.New != c.want {
			t.Errorf("%s: %s: %+v", c.row, c.path, ch)
		}
	}
	after := flattenTable(t, out, ctx)
	want := []string{"Alpha: Note", "Alpha: Slots[2]", "Alpha: Tag", "Beta: Extra", "Beta: Nested.Scale", "Defaults: Nested.bVisible", "Defaults: Other"}
	if d := diff(before, after); strings.Join(d, "|") != strings.Join(want, "|") {
		t.Errorf("changed %v, want %v", d, want)
	}
	if got := p.Names[names:]; strings.Join(got, ",") != "Extra,Scale,bVisible,Tag,NameProperty,Fixture_Tag,Note,Slots,Other" {
		t.Errorf("names added: %v", got)
	}
	if after["Alpha: Tag"] != "Fixture_Tag_7" {
		t.Errorf("the name's number: %s", after["Alpha: Tag"])
	}
	tb, err := props.DecodeDataTable(out, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if q := tb.Row("Alpha").Properties.Find("Slots", 2); q == nil || q.Flags&props.FlagHasArrayIndex == 0 || q.TypeString() != "ByteProperty" {
		t.Errorf("Slots[2]: %+v", q)
	}
	if q := tb.Row("Defaults").Properties.Find("Other", 0); q == nil || q.Type.Full() != "EnumProperty(EFixtureEnum(/Script/CUE4ParseFixtures),ByteProperty)" {
		t.Errorf("Other: %+v", q)
	}
	if enc, err := props.EncodeTable(tb, ctx); err != nil || !bytes.Equal(enc, out) {
		t.Errorf("EncodeTable after adding: %v", err)
	}

	// A refused addition adds no name.
	n := len(p.Names)
	if _, _, err := props.Set(data, ctx, props.Target{Row: "Alpha", Path: "Brand_New"}, props.Input{Text: "abc", Type: "int"}); !errors.Is(err, props.ErrType) || len(p.Names) != n {
		t.Errorf("refused addition: %v; %d names, was %d", err, len(p.Names), n)
	}

	// Refusals.
	for _, c := range []struct {
		row, path, value, typ string
		err                   error
	}{
		{"Alpha", "Missing", "1", "", props.ErrNotFound},
		{"Alpha", "Missing", "x", "text", props.ErrUnsupported},
		{"Alpha", "Missing.Member", "1", "int", props.ErrNotFound},
		{"Alpha", "Number", "2147483648", "", props.ErrRange},
		{"Alpha", "Number", "1.5", "", props.ErrType},
		{"Alpha", "Number", "1", "float", props.ErrType},
		{"Alpha", "Nested.Samples[1]", "1e39", "", props.ErrRange},
		{"Alpha", "Nested.Samples[4]", "1", "", props.ErrNotFound}, // [3] appends
		{"Alpha", "Nested.Position.W", "1", "", props.ErrNotFound},
		{"Alpha", "Nested", "1", "", props.ErrUnsupported},
		{"Alpha", "Values", "1", "", props.ErrUnsupported},
		{"Alpha", "Kind", "Gamma", "", props.ErrUnsupported}, // not in the name map, AddName nil below
		{"Alpha", "Other", "Beta", "enum", props.ErrType},
		{"Gamma", "Number", "1", "", props.ErrNotFound},
	} {
		nctx := *ctx
		nctx.AddName = nil
		if _, _, err := props.Set(data, &nctx, props.Target{Row: c.row, Path: c.path}, props.Input{Text: c.value, Type: c.typ}); !errors.Is(err, c.err) {
			t.Errorf("%s: %s = %q (%s): %v, want %v", c.row, c.path, c.value, c.typ, err, c.err)
		} else {
			t.Logf("%s: %s = %q: %v", c.row, c.path, c.value, err)
		}
	}
}

// TestDAAllPropertiesSet changes values of the other kinds in the UE 5.8
// fixture data asset: every integer width, double, name, byte, bools in the
// tag, static array elements, native struct fields, soft and hard object
// references, a GUID, a member of a struct in an array, a member of a
// tagged struct inside a tagged struct; and sets each back.
func TestDAAllPropertiesSet(t *testing.T) {
	p := findPackage(t, taggedZlib, "/Game/Fixtures/Properties/DA_AllProperties")
	const export = 1
	ctx, err := zenprops.ContextFor(p, export)
	if err != nil {
		t.Fatal(err)
	}
	if !ctx.UTF8SubPaths {
		t.Error("soft object sub paths of a UE 5.8 package are not UTF-8")
	}
	data := p.Exports[export].Data
	l, err := props.Decode(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	flatten(l, "", before)
	cases := []setCase{
		{path: "bBoolean", value: "false", back: "true"},
		{path: "Byte", value: "255", back: "171"},
		{path: "Integer8", value: "127", back: "-101"},
		{path: "Integer16", value: "-32768", back: "-12345"},
		{path: "UnsignedInteger16", value: "65535", back: "54321"},
		{path: "UnsignedInteger32", value: "0", back: "4275878552"},
		{path: "UnsignedInteger64", value: "1", back: "18364758544493064720"},
		{path: "Float", value: "-0.5", back: "1234.25"},
		{path: "Double", value: "3.141592653589793", back: "-987654.125"},
		{path: "Name", value: "RegistryMarker", back: "Fixture_Name_0xC0FFEE", want: "RegistryMarker"},
		{path: "Enum", value: "None", back: "Beta", want: "EFixtureEnum::None"},
		{path: "FixedIntegerArray[2]", value: "5", back: "2147483647"},
		{path: "FixedIntegerArray", value: "6", back: "-2147483648"},
		{path: "Vector2D.Y", value: "1", back: "34.75"},
		{path: "Rotator.Yaw", value: "90", back: "20"},
		{path: "Color.R", value: "255", back: "18"},
		{path: "LinearColor.A", value: "1", back: "0.75"},
		{path: "Box.Max.Z", value: "1000", back: "60.25"},
		{path: "IntVector.Z", value: "333", back: "-333"},
		{path: "DateTime.Ticks", value: "0", back: "638448068967890000"},
		{path: "Guid", value: "00000000-0000-0000-0000-000000000001", back: "DEADBEEF0123456789ABCDEF13579BDF", want: "00000000000000000000000000000001"},
		{path: "Transform.Translation.X", value: "1", back: "100.5"},
		{path: "Nested.Label", value: "short", back: "PrimaryNested_日本語", want: `"short"`},
		{path: "StructArray[1].Label", value: "Second, but longer", back: "Second", want: `"Second, but longer"`},
		{path: "StructArray[2].Samples[0]", value: "8", back: "0.125"},
		{path: "StructArray[0].bEnabled", value: "false", back: "true"},
		{path: "IntegerArray[0]", value: "0x7f", back: "11", want: "127"},
		{path: "SoftObjectReference", value: "/Game/Fixtures/Textures/T_BC6H.T_BC6H", back: "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties", want: `"/Game/Fixtures/Textures/T_BC6H.T_BC6H"`},
		{path: "SoftObjectReference", value: "None", back: "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties", want: `"None"`},
		{path: "HardTextureReference", value: "None", back: "/Game/Fixtures/Textures/T_BC7.T_BC7", want: "None"},
		{path: "InlineObject", value: "0", back: "DA_AllProperties:InlineFixture", want: "None"},
		{path: "InterfaceReference", value: "/Game/Fixtures/Properties/DA_AllProperties.DA_AllProperties:InlineFixture", back: "DA_AllProperties", want: "export 0"},
		{path: "BaseString", value: "", back: "Inherited_Base_Value", want: `""`},
	}
	r := zenprops.NewResolver(p, nil)
	for _, c := range cases {
		name := c.path + " = " + c.value
		target := props.Target{Path: c.path}
		out, ch, err := props.Set(data, ctx, target, props.Input{Text: c.value, Type: c.typ})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		nl, err := props.Decode(out, ctx)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		after := map[string]string{}
		flatten(nl, "", after)
		want := c.want
		if want == "" {
			want = c.value
		}
		if d := diff(before, after); len(d) != 1 || d[0] != c.path || after[c.path] != want {
			t.Errorf("%s: changed %v; %s = %s, want %s", name, d, c.path, after[c.path], want)
		}
		back, ch2, err := props.Set(out, ctx, target, props.Input{Text: c.back})
		if err != nil || !bytes.Equal(back, data) {
			t.Errorf("%s: setting back to %q: %+v, %v (first difference at %d)", name, c.back, ch2, err, firstDiff(back, data))
		}
		if c.path == "HardTextureReference" && (ch.Old != r.Name(-4) && !strings.Contains(ch.Old, "T_BC7")) {
			t.Errorf("%s: old %s", name, ch.Old)
		}
	}
	// Values unrmod keeps as bytes are refused.
	for _, path := range []string{"Text", "NameSet", "IntegerMap", "ScalarInstancedStruct", "PresentOptional", "TextHistories[0]", "AnsiString"} {
		if _, _, err := props.Set(data, ctx, props.Target{Path: path}, props.Input{Text: "1"}); !errors.Is(err, props.ErrUnsupported) && !errors.Is(err, props.ErrNotFound) {
			t.Errorf("%s: %v", path, err)
		} else {
			t.Logf("%s: %v", path, err)
		}
	}
}

// TestUnversionedRefused checks that the unversioned copies of the fixtures
// are refused with ErrUnversioned, whose message says what is missing.
func TestUnversionedRefused(t *testing.T) {
	n := 0
	for _, cp := range corpusPackages(t) {
		if cp.container != unversioned {
			continue
		}
		n++
		_, err := zenprops.ContextFor(cp.pkg, 0)
		if !errors.Is(err, props.ErrUnversioned) {
			t.Errorf("%s: %v", cp.name, err)
		}
	}
	p := findPackage(t, unversioned, "/Game/Fixtures/DataTables/DT_AllProperties")
	_, err := zenprops.ContextFor(p, 0)
	if err == nil || !strings.Contains(err.Error(), "without property tags") || !strings.Contains(err.Error(), "schema") {
		t.Errorf("message: %v", err)
	}
	t.Logf("%d unversioned packages refused: %v", n, err)
	if n == 0 {
		t.Error("no unversioned packages")
	}
}
