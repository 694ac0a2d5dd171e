package assetprops_test

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// fixtureAsset returns the asset of the tagged Zlib pak whose path in the
// pak is path.
func fixtureAsset(tb testing.TB, path string) pakAsset {
	tb.Helper()
	for _, a := range readPak(tb, taggedPaks[1]) {
		if a.path == path {
			return a
		}
	}
	tb.Fatalf("no %s in %s", path, taggedPaks[1])
	return pakAsset{}
}

// setAndReread sets one value in export i of the asset, encodes it,
// decodes the new files and returns the old and new packages and their
// properties (report.NewCookedProperties). It checks that the unchanged
// package encodes byte for byte.
func setAndReread(t *testing.T, a pakAsset, i int, target props.Target, in props.Input) (old, nw *uasset.Package, before, after *report.Properties, ch props.Change) {
	t.Helper()
	old = decodeAsset(t, a)
	h, x, err := old.Encode()
	if err != nil || !bytes.Equal(h, a.uasset) || !bytes.Equal(x, a.uexp) {
		t.Fatalf("the unchanged package does not encode byte for byte: %v", err)
	}
	if before, err = describe(old, ""); err != nil {
		t.Fatal(err)
	}
	p := decodeAsset(t, a)
	ch, err = assetprops.Set(p, i, target, in)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Already {
		t.Fatalf("%s: already %s", target, ch.New)
	}
	h, x, err = p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if nw, err = uasset.Decode(a.name, h, x, nil); err != nil {
		t.Fatalf("the changed asset does not decode: %v", err)
	}
	if len(nw.Exports) != len(old.Exports) {
		t.Fatalf("%d exports, was %d", len(nw.Exports), len(old.Exports))
	}
	for k := range nw.Exports {
		if k != i && !bytes.Equal(nw.Exports[k].Data, old.Exports[k].Data) {
			t.Errorf("export %d's data changed", k)
		}
		if got := nw.Exports[k].SerialSize; got != int64(len(nw.Exports[k].Data)) {
			t.Errorf("export %d: SerialSize %d for %d bytes", k, got, len(nw.Exports[k].Data))
		}
	}
	if after, err = describe(nw, ""); err != nil {
		t.Fatal(err)
	}
	// The changed asset encodes byte for byte in turn.
	h2, x2, err := nw.Encode()
	if err != nil || !bytes.Equal(h2, h) || !bytes.Equal(x2, x) {
		t.Errorf("the changed asset does not encode byte for byte: %v", err)
	}
	return old, nw, before, after, ch
}

// flatten lists every leaf value of a package's properties by export,
// row and path.
func flatten(d *report.Properties) map[string]string {
	out := map[string]string{}
	var walk func(at string, es []report.Property)
	walk = func(at string, es []report.Property) {
		for _, e := range es {
			k := at + e.Name
			if e.Index != 0 {
				k += "#" + strconv.Itoa(e.Index)
			}
			if e.Fields == nil && e.Elements == nil {
				out[k] = e.Type + " " + e.Value
			}
			walk(k+".", e.Fields)
			walk(k, e.Elements)
			if e.Elements != nil {
				out[k+".len"] = strconv.Itoa(len(e.Elements))
			}
		}
	}
	for _, x := range d.Exports {
		walk(x.Path+" ", x.Properties)
		for _, r := range x.Rows {
			walk(x.Path+" "+r.Name+": ", r.Properties)
		}
	}
	return out
}

// changed returns the keys whose values differ between a and b.
func changed(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// TestSetDataTableRow changes a row's string in DT_AllProperties (a UE 5.8
// cooked DataTable): the value reads back after encoding and decoding,
// nothing else changes, and the export's size follows.
func TestSetDataTableRow(t *testing.T) {
	a := fixtureAsset(t, "DataTables/DT_AllProperties.uasset")
	const msg = "A much longer message than the original, ünïcödé and 日本語 too"
	old, nw, before, after, ch := setAndReread(t, a, 0, props.Target{Row: "Alpha", Path: "Message"}, props.Input{Text: msg})
	key := "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties Alpha: Message"
	b, f := flatten(before), flatten(after)
	if d := changed(b, f); len(d) != 1 || d[0] != key {
		t.Errorf("changed %v, want only %s", d, key)
	}
	if want := `StrProperty "` + msg + `"`; f[key] != want {
		t.Errorf("%s = %s, want %s", key, f[key], want)
	}
	if ch.Old != `"Alpha_CUE4Parse_日本語_äöü"` {
		t.Errorf("old value %s", ch.Old)
	}
	grow := int64(len(nw.Exports[0].Data) - len(old.Exports[0].Data))
	if grow <= 0 || nw.Summary.BulkDataStartOffset != old.Summary.BulkDataStartOffset+grow {
		t.Errorf("data grew by %d; BulkDataStartOffset %d, was %d", grow, nw.Summary.BulkDataStartOffset, old.Summary.BulkDataStartOffset)
	}
	// The rows follow the tagged properties: the script range is unchanged.
	if nw.Exports[0].ScriptSerializationEndOffset != old.Exports[0].ScriptSerializationEndOffset {
		t.Errorf("ScriptSerializationEndOffset %d, was %d", nw.Exports[0].ScriptSerializationEndOffset, old.Exports[0].ScriptSerializationEndOffset)
	}
}

// TestSetObjectProperty changes properties of the data asset
// DA_AllProperties (two exports): a string of the first export, whose
// growth moves the second export's data; a name of the second that is not
// in the name map, which adds it among the names the export data uses;
// the script serialization range follows the tagged properties.
func TestSetObjectProperty(t *testing.T) {
	a := fixtureAsset(t, "Properties/DA_AllProperties.uasset")
	for _, c := range []struct {
		export      int
		path, value string
		want        string
		newName     bool
	}{
		{1, "Nested.Label", "a label much longer than the one the fixture has", `StrProperty "a label much longer than the one the fixture has"`, false},
		{1, "Name", "Unrmod_Brand_New_Name", "NameProperty Unrmod_Brand_New_Name", true},
		{1, "IntegerArray[0]", "0x7f", " 127", false},
	} {
		t.Run(c.path, func(t *testing.T) {
			old, nw, before, after, _ := setAndReread(t, a, c.export, props.Target{Path: c.path}, props.Input{Text: c.value})
			b, f := flatten(before), flatten(after)
			d := changed(b, f)
			if len(d) != 1 || f[d[0]] != c.want {
				t.Errorf("changed %v (%s), want one value %s", d, f[d[0]], c.want)
			}
			e, oe := nw.Exports[c.export], old.Exports[c.export]
			x, err := assetprops.DecodeExport(nw, c.export)
			if err != nil {
				t.Fatal(err)
			}
			if int64(x.Properties.End) != e.ScriptSerializationEndOffset || oe.ScriptSerializationEndOffset+int64(len(e.Data)-len(oe.Data)) != e.ScriptSerializationEndOffset {
				t.Errorf("ScriptSerializationEndOffset %d (was %d), the list ends at %d", e.ScriptSerializationEndOffset, oe.ScriptSerializationEndOffset, x.Properties.End)
			}
			n, on := nw.Summary.NamesReferencedFromExportDataCount, old.Summary.NamesReferencedFromExportDataCount
			if !c.newName {
				if len(nw.Names) != len(old.Names) || n != on {
					t.Errorf("%d names (%d for export data), was %d (%d)", len(nw.Names), n, len(old.Names), on)
				}
				return
			}
			if len(nw.Names) != len(old.Names)+1 || n != on+1 {
				t.Fatalf("%d names (%d for export data), was %d (%d)", len(nw.Names), n, len(old.Names), on)
			}
			want := uasset.NewName(c.value)
			if got := nw.Names[on]; got.Value != want.Value || got.NonCaseHash != want.NonCaseHash || got.CaseHash != want.CaseHash || !reflect.DeepEqual(nw.Names[:on], old.Names[:on]) {
				t.Errorf("name %d is %+v", on, got)
			}
			// The header-only name that gave up its slot is last, and the
			// header still names every import and export the same.
			if nw.Names[len(nw.Names)-1].Value != old.Names[on].Value {
				t.Errorf("last name %q, want %q", nw.Names[len(nw.Names)-1].Value, old.Names[on].Value)
			}
			ro, rn := assetprops.NewResolver(old, ""), assetprops.NewResolver(nw, "")
			for k := range old.Imports {
				x := uasset.PackageIndex(-k - 1)
				if ro.Object(x) != rn.Object(x) {
					t.Errorf("import %d: %s, was %s", k, rn.Object(x), ro.Object(x))
				}
			}
			for k := range old.Exports {
				if ro.ExportPath(k) != rn.ExportPath(k) || ro.ClassName(k) != rn.ClassName(k) {
					t.Errorf("export %d: %s, was %s", k, rn.ExportPath(k), ro.ExportPath(k))
				}
			}
		})
	}
}

// TestDTAllPropertiesValues reads DT_AllProperties from both tagged paks
// and checks the values CUE4Parse's own fixture test
// (DataTableFixtureDeserializesCustomRows) asserts for it.
func TestDTAllPropertiesValues(t *testing.T) {
	const x = "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties "
	want := map[string]string{
		x + "RowStruct": "ObjectProperty /Script/CUE4ParseFixtures.FixtureTableRow",

		x + "Alpha: Number":                "IntProperty 305419896",
		x + "Alpha: LargeNumber":           "Int64Property 1234605616436508552",
		x + "Alpha: Message":               `StrProperty "Alpha_CUE4Parse_日本語_äöü"`,
		x + "Alpha: Kind":                  "EnumProperty(EFixtureEnum) EFixtureEnum::Alpha",
		x + "Alpha: Nested.Marker":         "IntProperty 101",
		x + "Alpha: Nested.Label":          `StrProperty "NestedAlpha"`,
		x + "Alpha: Nested.Position.X":     " 1.25",
		x + "Alpha: Nested.Position.Y":     " -2.5",
		x + "Alpha: Nested.Position.Z":     " 3.75",
		x + "Alpha: Nested.Samples[0]":     " 0.125",
		x + "Alpha: Nested.Samples[1]":     " -2.5",
		x + "Alpha: Nested.Samples[2]":     " 99.75",
		x + "Alpha: Nested.bEnabled":       "BoolProperty true",
		x + "Alpha: Values[0]":             " 11",
		x + "Alpha: Values[1]":             " 22",
		x + "Alpha: Values[2]":             " 33",
		x + "Alpha: Values[3]":             " 44",
		x + "Beta: Number":                 "IntProperty -202020",
		x + "Beta: LargeNumber":            "Int64Property -9007199254740991",
		x + "Beta: Message":                `StrProperty "Beta_ß_水_🚀"`,
		x + "Beta: Kind":                   "EnumProperty(EFixtureEnum) EFixtureEnum::Beta",
		x + "Beta: Nested.Marker":          "IntProperty -202",
		x + "Beta: Nested.Label":           `StrProperty "NestedBeta"`,
		x + "Beta: Nested.Position.X":      " -10",
		x + "Beta: Nested.Position.Y":      " 20",
		x + "Beta: Nested.Position.Z":      " -30",
		x + "Beta: Nested.bEnabled":        "BoolProperty false",
		x + "Beta: Values[3]":              " 2147483647",
		x + "Defaults: Number":             "IntProperty 0",
		x + "Defaults: LargeNumber":        "Int64Property 0",
		x + "Defaults: Message":            `StrProperty ""`,
		x + "Defaults: Kind":               "EnumProperty(EFixtureEnum) EFixtureEnum::None",
		x + "Defaults: Values.len":         "0",
		x + "Alpha: Values.len":            "4",
		x + "Beta: Nested.Samples.len":     "3",
		x + "Defaults: Nested.Samples.len": "0",
	}
	for _, rel := range taggedPaks {
		for _, a := range readPak(t, rel) {
			if a.path != "DataTables/DT_AllProperties.uasset" {
				continue
			}
			d, err := describe(decodeAsset(t, a), "")
			if err != nil {
				t.Fatal(err)
			}
			got := flatten(d)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s = %q, want %q", rel, k, got[k], v)
				}
			}
			if rows := d.Exports[0].Rows; len(rows) != 3 || rows[0].Name != "Alpha" || rows[1].Name != "Beta" || rows[2].Name != "Defaults" {
				t.Errorf("%s: rows %v", rel, rows)
			}
		}
	}
}

func mustProperties(tb testing.TB, a pakAsset) *report.Properties {
	tb.Helper()
	d, err := describe(decodeAsset(tb, a), "")
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestSetTextureInlineBulk: T_BC6H keeps its mip inline in the export
// data, recorded in a data resource. A same-size change is made; one that
// resizes the data (an added property) is refused and leaves the asset
// as it was.
func TestSetTextureInlineBulk(t *testing.T) {
	a := fixtureAsset(t, "Textures/T_BC6H.uasset")
	_, _, before, after, _ := setAndReread(t, a, 0, props.Target{Path: "SRGB"}, props.Input{Text: "true"})
	if d := changed(flatten(before), flatten(after)); len(d) != 1 || flatten(after)[d[0]] != "BoolProperty true" {
		t.Errorf("changed %v", d)
	}
	p := decodeAsset(t, a)
	if len(p.DataResources) != 1 {
		t.Fatalf("%d data resources", len(p.DataResources))
	}
	if _, err := assetprops.Set(p, 0, props.Target{Path: "LODBias"}, props.Input{Text: "1", Type: "int"}); !errors.Is(err, props.ErrUnsupported) {
		t.Errorf("added LODBias: %v, want ErrUnsupported", err)
	}
	h, x, err := p.Encode()
	if err != nil || !bytes.Equal(h, a.uasset) || !bytes.Equal(x, a.uexp) {
		t.Errorf("the refused change left the asset changed (%v)", err)
	}
}

// TestUnversionedFileVersion: DT_AllProperties with its object versions
// zeroed, as unversioned cooks store them, reads the same: the UE5 file
// version comes from the release that fits its header. When the
// releases that fit write properties differently, reading is refused.
func TestUnversionedFileVersion(t *testing.T) {
	a := fixtureAsset(t, "DataTables/DT_AllProperties.uasset")
	want := mustProperties(t, a)
	a.uasset = bytes.Clone(a.uasset)
	clear(a.uasset[12:24]) // FileVersionUE4, FileVersionUE5, FileVersionLicenseeUE
	p := decodeAsset(t, a)
	if !p.Summary.Unversioned() || !p.ReleaseDetected || p.Version.UE5 != 1018 {
		t.Fatalf("unversioned %v, detected %v (%v), version %v", p.Summary.Unversioned(), p.ReleaseDetected, p.Fitting, p.Version)
	}
	ctx, err := assetprops.ContextFor(p, 0)
	if err != nil || ctx.FileVersionUE5 != 1018 {
		t.Fatalf("context: %v", err)
	}
	got, err := describe(p, "")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the unversioned copy reads differently (%v)", err)
	}

	for _, c := range []struct {
		fitting []uasset.Release
		ok      bool
	}{
		{[]uasset.Release{{Major: 5, Minor: 6}, {Major: 5, Minor: 7}, {Major: 5, Minor: 8}}, true},
		{[]uasset.Release{{Major: 5, Minor: 4}, {Major: 5, Minor: 5}, {Major: 5, Minor: 8}}, true},
		{[]uasset.Release{{Major: 5, Minor: 2}, {Major: 5, Minor: 3}, {Major: 5, Minor: 8}}, false},
		{[]uasset.Release{{Major: 5, Minor: 0}, {Major: 5, Minor: 8}}, false},
	} {
		p.Fitting = c.fitting
		_, err := assetprops.DecodeExport(p, 0)
		if c.ok != (err == nil) || !c.ok && !errors.Is(err, uasset.ErrUnsupportedVersion) {
			t.Errorf("fitting %v: %v", c.fitting, err)
		}
	}
	p.ReleaseDetected = false // the release was given
	if _, err := assetprops.DecodeExport(p, 0); err != nil {
		t.Errorf("release given: %v", err)
	}
}

// TestSetHeaderOnlyName sets DA_AllProperties' Name to a name the map has
// but only the header uses (past NamesReferencedFromExportDataCount): the
// name moves among the export data names (a zen conversion keeps only
// those), swapping places with the first header-only name; the map keeps
// its size, and the header still names every import and export the same.
func TestSetHeaderOnlyName(t *testing.T) {
	a := fixtureAsset(t, "Properties/DA_AllProperties.uasset")
	old := decodeAsset(t, a)
	on := int(old.Summary.NamesReferencedFromExportDataCount)
	have := len(old.Names) - 1 // a header-only name, not the first one
	text := old.Names[have].Value
	if have <= on {
		t.Fatalf("no header-only names: %d of %d", on, len(old.Names))
	}
	_, nw, _, after, ch := setAndReread(t, a, 1, props.Target{Path: "Name"}, props.Input{Text: text})
	if ch.New != text || flatten(after)["/Game/Fixtures/Properties/DA_AllProperties.DA_AllProperties Name"] != "NameProperty "+text {
		t.Errorf("Name = %s", ch.New)
	}
	if len(nw.Names) != len(old.Names) || int(nw.Summary.NamesReferencedFromExportDataCount) != on+1 {
		t.Fatalf("%d names (%d for export data), was %d (%d)", len(nw.Names), nw.Summary.NamesReferencedFromExportDataCount, len(old.Names), on)
	}
	if nw.Names[on].Value != text || nw.Names[have].Value != old.Names[on].Value {
		t.Errorf("names %d and %d: %q, %q", on, have, nw.Names[on].Value, nw.Names[have].Value)
	}
	ro, rn := assetprops.NewResolver(old, ""), assetprops.NewResolver(nw, "")
	for k := range old.Imports {
		x := uasset.PackageIndex(-k - 1)
		if ro.Object(x) != rn.Object(x) {
			t.Errorf("import %d: %s, was %s", k, rn.Object(x), ro.Object(x))
		}
	}
	for k := range old.Exports {
		if ro.ExportPath(k) != rn.ExportPath(k) {
			t.Errorf("export %d: %s, was %s", k, rn.ExportPath(k), ro.ExportPath(k))
		}
	}
	x, err := assetprops.DecodeExport(nw, 1)
	if err != nil {
		t.Fatal(err)
	}
	if q := x.Properties.Find("Name", 0); q == nil || int(q.Value.(props.NameValue).Index) >= on+1 {
		t.Errorf("the value's name %+v is not among the export data names", q)
	}
}
