package assetprops_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// Names of the built Blueprint asset.
var bpNames = []string{
	"/Script/CoreUObject", "Package", "/Script/Engine", "Class", "BlueprintGeneratedClass", // 0–4
	"/Game/BP_Test", "BP_Test_C", "Default__BP_Test_C", "None", "Health", "IntProperty", // 5–10
	"Label", "StrProperty", "Actor", "Target", "ObjectProperty", // 11–15
}

// tagUE4 appends a UE4 property tag (name, type, size, array index, no
// property GUID) and its value.
func tagUE4(b []byte, name, typ int32, value []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(uint32(name)))
	b = binary.LittleEndian.AppendUint64(b, uint64(uint32(typ)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(value)))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, 0)
	return append(b, value...)
}

// fstring encodes an ANSI FString.
func fstring(s string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(s)+1))
	return append(append(b, s...), 0)
}

// buildBlueprint makes a cooked UE 4.27 Blueprint asset: export 0 is the
// class default object Default__BP_Test_C (Health = 100, Label = "Bug"),
// export 1 the class BP_Test_C, whose data follows the CDO's.
func buildBlueprint(tb testing.TB) (h, x []byte) {
	tb.Helper()
	none := binary.LittleEndian.AppendUint64(nil, 8)
	cdo := tagUE4(nil, 9, 10, binary.LittleEndian.AppendUint32(nil, 100))
	cdo = tagUE4(cdo, 11, 12, fstring("Bug"))
	cdo = tagUE4(cdo, 14, 15, binary.LittleEndian.AppendUint32(nil, 0)) // Target = None
	cdo = append(cdo, none...)                                          // a CDO has no object GUID after its list
	class := append(append([]byte{}, none...), 0, 0, 0, 0)
	class = append(class, 0xAA, 0xBB, 0xCC, 0xDD) // the class's own serialization
	n := func(i int32) uasset.NameRef { return uasset.NameRef{Index: i} }
	imports := []uasset.Import{
		{ClassPackage: n(0), ClassName: n(1), ObjectName: n(2)},                  // -1 /Script/Engine
		{ClassPackage: n(0), ClassName: n(3), OuterIndex: -1, ObjectName: n(4)},  // -2 BlueprintGeneratedClass
		{ClassPackage: n(0), ClassName: n(3), OuterIndex: -1, ObjectName: n(13)}, // -3 Actor
	}
	exports := []uasset.Export{
		{ClassIndex: 2, ObjectName: n(7), ObjectFlags: 0x1 | 0x10 | 0x20, TemplateIndex: 0, Data: cdo},
		{ClassIndex: -2, SuperIndex: -3, ObjectName: n(6), ObjectFlags: 0x1 | 0x8, Data: class},
	}
	h, x, err := uasset.NewCooked427("BP_Test.uasset", bpNames, imports, exports).Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return h, x
}

// TestBlueprintCDO reads the built Blueprint's class default object and
// sets its properties: an existing int, a longer string, and a property
// absent from the CDO (left at its class default), whose type name is
// not in the name map yet. Each value reads back, the class export after
// it keeps its bytes (and moves), and names are appended with their
// hashes.
func TestBlueprintCDO(t *testing.T) {
	h, x := buildBlueprint(t)
	a := pakAsset{name: "BP_Test.uasset", uasset: h, uexp: x}
	old := decodeAsset(t, a)
	d, err := describe(old, "/Game/BP_Test")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Exports) != 2 || d.Exports[0].Path != "/Game/BP_Test.Default__BP_Test_C" || d.Exports[0].Class != "BP_Test_C" ||
		d.Exports[1].Class != "BlueprintGeneratedClass" || d.Exports[1].NativeBytes != 4 {
		t.Fatalf("document: %+v", d)
	}
	if got := flatten(d); got["/Game/BP_Test.Default__BP_Test_C Health"] != "IntProperty 100" || got["/Game/BP_Test.Default__BP_Test_C Label"] != `StrProperty "Bug"` {
		t.Fatalf("CDO values: %v", got)
	}
	ctx, err := assetprops.ContextFor(old, 0)
	if err != nil || !ctx.CDO || ctx.FileVersionUE5 != 0 || ctx.UTF8SubPaths || ctx.Imports != 3 || ctx.Exports != 2 {
		t.Fatalf("context %+v, %v", ctx, err)
	}
	for _, c := range []struct {
		path, value, typ, key, want string
		added                       []string
	}{
		{"Health", "250", "", "Health", "IntProperty 250", nil},
		{"Label", "A longer label than before", "", "Label", `StrProperty "A longer label than before"`, nil},
		{"Speed", "1.5", "float", "Speed", "FloatProperty 1.5", []string{"Speed", "FloatProperty"}},
		{"Target", "/Script/Engine.Actor", "", "Target", "ObjectProperty /Script/Engine.Actor", nil},
		{"Target", "BP_Test_C", "", "Target", "ObjectProperty BlueprintGeneratedClass'/Game/BP_Test.BP_Test_C'", nil},
	} {
		t.Run(c.path, func(t *testing.T) {
			p := decodeAsset(t, a)
			ch, err := assetprops.Set(p, 0, props.Target{Path: c.path}, props.Input{Text: c.value, Type: c.typ})
			if err != nil {
				t.Fatal(err)
			}
			if ch.Added != (c.added != nil) {
				t.Errorf("added %v", ch.Added)
			}
			h2, x2, err := p.Encode()
			if err != nil {
				t.Fatal(err)
			}
			nw, err := uasset.Decode("BP_Test.uasset", h2, x2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(nw.Exports[1].Data, old.Exports[1].Data) {
				t.Error("the class export's data changed")
			}
			grow := int64(len(nw.Exports[0].Data) - len(old.Exports[0].Data))
			if nw.Exports[1].SerialOffset != old.Exports[1].SerialOffset+grow+int64(len(h2)-len(h)) {
				t.Errorf("class export at %d, was %d (CDO grew %d, header %d)", nw.Exports[1].SerialOffset, old.Exports[1].SerialOffset, grow, len(h2)-len(h))
			}
			if len(nw.Names) != len(bpNames)+len(c.added) {
				t.Fatalf("%d names, want %d", len(nw.Names), len(bpNames)+len(c.added))
			}
			for k, s := range c.added {
				got, want := nw.Names[len(bpNames)+k], uasset.NewName(s)
				if got.Value != s || got.NonCaseHash != want.NonCaseHash || got.CaseHash != want.CaseHash {
					t.Errorf("name %d: %+v, want %+v", len(bpNames)+k, got, want)
				}
			}
			d2, err := describe(nw, "/Game/BP_Test")
			if err != nil {
				t.Fatal(err)
			}
			diff := changed(flatten(d), flatten(d2))
			key := "/Game/BP_Test.Default__BP_Test_C " + c.key
			if len(diff) != 1 || diff[0] != key || flatten(d2)[key] != c.want {
				t.Errorf("changed %v: %s = %q, want %q", diff, key, flatten(d2)[key], c.want)
			}
		})
	}
}

// TestSetRefusals: a failed change leaves the package as it was (names
// included), and a name that would move a header-only name the header's
// opaque parts may use is refused.
func TestSetRefusals(t *testing.T) {
	h, x := buildBlueprint(t)
	a := pakAsset{name: "BP_Test.uasset", uasset: h, uexp: x}
	for _, c := range []struct {
		path, value, typ string
		err              error
	}{
		{"Health", "not a number", "", props.ErrType},
		{"Health", "99999999999", "", props.ErrRange},
		{"Missing", "1", "", props.ErrNotFound},
		{"Target", "/Script/Engine.NoSuchClass", "", props.ErrNotFound},
		{"Speed", "fast", "float", props.ErrType}, // after Speed and FloatProperty were added
	} {
		p := decodeAsset(t, a)
		if _, err := assetprops.Set(p, 0, props.Target{Path: c.path}, props.Input{Text: c.value, Type: c.typ}); !errors.Is(err, c.err) {
			t.Errorf("%s = %s: %v, want %v", c.path, c.value, err, c.err)
		}
		h2, x2, err := p.Encode()
		if err != nil || !bytes.Equal(h2, h) || !bytes.Equal(x2, x) {
			t.Errorf("%s = %s: the package changed (%v)", c.path, c.value, err)
		}
	}
	if _, err := assetprops.Set(decodeAsset(t, a), 2, props.Target{Path: "Health"}, props.Input{Text: "1"}); !errors.Is(err, props.ErrNotFound) {
		t.Errorf("export 2 of 2: %v", err)
	}

	// DA_AllProperties keeps header-only names after the names its export
	// data uses; were the header to hold a soft object path list, moving
	// one of them is not safe.
	da := decodeAsset(t, fixtureAsset(t, "Properties/DA_AllProperties.uasset"))
	da.Summary.SoftObjectPathsCount = 1
	names := len(da.Names)
	if _, err := assetprops.Set(da, 1, props.Target{Path: "Name"}, props.Input{Text: "Unrmod_Brand_New_Name"}); !errors.Is(err, props.ErrUnsupported) {
		t.Errorf("new name with a soft object path list: %v", err)
	}
	if len(da.Names) != names {
		t.Errorf("%d names, was %d", len(da.Names), names)
	}
}
