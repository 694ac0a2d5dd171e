package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

const (
	spicyBP   = "other/grounded/zen_ue4_27/BP_SpicyChoppingDamage.uasset"
	spicyCDO  = "Default__BP_SpicyChoppingDamage_C"
	taggedUE5 = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
)

// TestPropsZen shows a Grounded Blueprint's defaults, sets them with a
// patch and shows the new values.
func TestPropsZen(t *testing.T) {
	file := corpus.Path(t, spicyBP)
	stdout, stderr, code := runCLI(t, "props", file, spicyCDO)
	for _, want := range []string{
		"export 1 /Game/Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage." + spicyCDO + " (class BP_SpicyChoppingDamage_C)\n",
		"  Icons (ArrayProperty(ObjectProperty)) = 2 elements\n    [0] = /Game/UI/Images/ItemStats/T_UI_Dmg_Chopping.T_UI_Dmg_Chopping\n",
		"  DamageTypeFlags (UInt32Property) = 4354\n",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("props: exit %d, lacks %q\n%s%s", code, want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "export 0 ") {
		t.Errorf("props shows an export it was not asked for:\n%s", stdout)
	}

	dir := t.TempDir()
	out := filepath.Join(dir, "BP_SpicyChoppingDamage.uasset")
	patchFile := filepath.Join(dir, "spicy.yaml")
	text := "unrmod: 1\ntargets:\n  - file: " + strconv.Quote(file) + "\n    output: " + strconv.Quote(out) + "\n    ops:\n" +
		"      - set-property: {object: " + spicyCDO + ", property: DamageTypeFlags, value: 7}\n" +
		"      - set-property: {object: " + spicyCDO + ", property: 'Icons[0]', value: None}\n" +
		"      - set-property: {object: " + spicyCDO + ", property: DamageMultiplier, type: float, value: 2.25}\n"
	if err := os.WriteFile(patchFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := runCLI(t, "apply", patchFile); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	var doc propsDoc
	stdout, _, code = runCLI(t, "props", out, spicyCDO, "--json")
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Exports) != 1 {
		t.Fatalf("props --json: exit %d, %v\n%s", code, err, stdout)
	}
	got := map[string]string{}
	for _, p := range doc.Exports[0].Properties {
		got[p.Name+" "+p.Type] = p.Value
		for _, e := range p.Elements {
			got[p.Name+e.Name] = e.Value
		}
	}
	want := map[string]string{
		"DamageTypeFlags UInt32Property":      "7",
		"DamageMultiplier FloatProperty":      "2.25",
		"Icons ArrayProperty(ObjectProperty)": "",
		"Icons[0]":                            "None",
		"Icons[1]":                            "/Game/UI/Images/ItemStats/T_UI_Dmg_Spice.T_UI_Dmg_Spice",
	}
	if len(got) != len(want) {
		t.Errorf("properties %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if doc.Package != "/Game/Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage" {
		t.Errorf("package %q", doc.Package)
	}
}

// TestPropsDataTableRow shows one row of the UE 5.8 fixture DataTable in
// its container, as text and as JSON.
func TestPropsDataTableRow(t *testing.T) {
	c := corpus.Path(t, taggedUE5)
	pkg := "/Game/Fixtures/DataTables/DT_AllProperties"
	stdout, stderr, code := runCLI(t, "props", c, "--package", pkg, "--row", "alpha")
	for _, want := range []string{
		"export 0 " + pkg + ".DT_AllProperties (class DataTable)\n  Row Alpha\n    Number (IntProperty) = 305419896\n",
		"      Position (StructProperty(Vector)) = (X=1.25,Y=-2.5,Z=3.75)\n",
		"    Kind (EnumProperty(EFixtureEnum)) = EFixtureEnum::Alpha\n",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("props --row: exit %d, lacks %q\n%s%s", code, want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "Beta") {
		t.Errorf("props --row Alpha shows another row:\n%s", stdout)
	}
	var doc propsDoc
	stdout, _, code = runCLI(t, "props", c, "--package", pkg, "DT_AllProperties", "--json")
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Exports) != 1 || len(doc.Exports[0].Rows) != 3 {
		t.Fatalf("props --json: exit %d, %v\n%s", code, err, stdout)
	}
	beta := doc.Exports[0].Rows[1]
	if beta.Name != "Beta" || len(beta.Properties) != 6 {
		t.Fatalf("row %+v", beta)
	}
	nested := beta.Properties[4]
	if nested.Name != "Nested" || nested.Type != "StructProperty(FixtureNestedStruct)" || len(nested.Fields) != 5 ||
		nested.Fields[2].Name != "Position" || len(nested.Fields[2].Fields) != 3 || nested.Fields[2].Fields[2].Value != "-30" {
		t.Errorf("Nested %+v", nested)
	}
	_, stderr, code = runCLI(t, "props", c, "--package", pkg, "DT_AllProperties", "--row", "Gamma")
	if code != 1 || !strings.Contains(stderr, `no row "Gamma"`) || !strings.Contains(stderr, "Alpha, Beta, Defaults") {
		t.Errorf("unknown row: exit %d\n%s", code, stderr)
	}
}

// TestPropsLegacy shows a map's LevelInfo.
func TestPropsLegacy(t *testing.T) {
	file := corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr")
	stdout, stderr, code := runCLI(t, "props", file, "LevelInfo0")
	for _, want := range []string{
		"export ", "CTF-Face.LevelInfo0 (class LevelInfo)\n",
		`  Title (StrProperty) = "Facing Worlds"` + "\n",
		"  RecommendedEnemies (IntProperty) = 2\n",
		"  Screenshot (ObjectProperty) = Texture'CTF-Face.Screenshot'\n",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("props: exit %d, lacks %q\n%s%s", code, want, stdout, stderr)
		}
	}
	stdout, _, code = runCLI(t, "dump", file, "--exports", "--props")
	if code != 0 || !strings.Contains(stdout, "\nProperties: ") || !strings.Contains(stdout, `Title (StrProperty) = "Facing Worlds"`) {
		t.Errorf("dump --props: exit %d\n%.2000s", code, stdout)
	}
}

// TestPropsErrors: what props cannot show, it says why.
func TestPropsErrors(t *testing.T) {
	unversioned := corpus.Path(t, "iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc")
	bp := corpus.Path(t, spicyBP)
	face := corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr")
	for _, c := range []struct {
		args  []string
		code  int
		words []string
	}{
		{[]string{"props"}, 2, []string{"missing FILE"}},
		{[]string{"props", unversioned}, 2, []string{"--package"}},
		{[]string{"props", unversioned, "--package", "/Game/Fixtures/Curves/Curve_Float"}, 1, []string{"unversioned", "schema"}},
		{[]string{"props", bp, "Default__BP_Spicy"}, 1, []string{`no export "Default__BP_Spicy"`, spicyCDO}},
		{[]string{"props", bp, " "}, 2, []string{"OBJECT is empty"}},
		{[]string{"props", bp, "--row", "X"}, 1, []string{`no DataTable of the package has a row "X"`}},
		{[]string{"props", bp, spicyCDO, "--row", "X"}, 2, []string{"not a DataTable"}},
		{[]string{"props", face, "--row", "X"}, 2, []string{"--row", "zen package"}},
		{[]string{"props", face, "LevelInfo9"}, 1, []string{"no export", "LevelInfo0"}},
		{[]string{"props", bp, "--json", "--yaml"}, 2, []string{"exclude each other"}},
	} {
		stdout, stderr, code := runCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args[1:], code, c.code, stdout, stderr)
		}
		for _, w := range c.words {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args[1:], w, stderr)
			}
		}
	}
	// dump --props on an unversioned package prints the tables and says why
	// there are no properties.
	stdout, stderr, code := runCLI(t, "dump", unversioned, "--package", "/Game/Fixtures/Curves/Curve_Float", "--props")
	if code != 0 || !strings.Contains(stdout, "Exports: ") || !strings.Contains(stdout, "Properties: the package was cooked without property tags") {
		t.Errorf("dump --props (unversioned): exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestExportDataZen writes a zen export's data, which a replace-export
// patch then takes back as already in effect.
func TestExportDataZen(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "defaults.bin")
	pkg := "../../examples/packages/zen/BP_DemoPickup.uasset"
	_, stderr, code := runCLI(t, "export-data", pkg, "Default__BP_DemoPickup_C", "-o", bin)
	if code != 0 || !strings.Contains(stderr, "wrote 190 bytes of /Game/Items/BP_DemoPickup.Default__BP_DemoPickup_C (class BP_DemoPickup_C)") {
		t.Fatalf("export-data: exit %d\n%s", code, stderr)
	}
	patchFile := filepath.Join(dir, "p.yaml")
	abs, _ := filepath.Abs(pkg)
	text := "unrmod: 1\ntargets:\n  - file: " + strconv.Quote(abs) + "\n    output: out.uasset\n    ops:\n" +
		"      - replace-export: {object: Default__BP_DemoPickup_C, data: {file: defaults.bin}}\n"
	if err := os.WriteFile(patchFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "apply", patchFile, "--dry-run")
	if code != 0 || !strings.Contains(stdout, "already 190 bytes, given data (no change)") || !strings.Contains(stdout, "no changes") {
		t.Errorf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	// In a container, by file name; --class picks by class.
	stdout, _, code = runCLI(t, "export-data", "../../examples/containers/UnrmodDemo427_P.utoc", "DT_DemoItems", "--package", "DT_DemoItems", "--class", "DataTable", "-o", "-")
	if code != 0 || len(stdout) != 574 {
		t.Errorf("export-data --package: exit %d, %d bytes", code, len(stdout))
	}
	_, stderr, code = runCLI(t, "export-data", pkg, "Default__BP_DemoPickup_C", "--class", "Texture2D", "-o", "-")
	if code != 1 || !strings.Contains(stderr, "no export") {
		t.Errorf("export-data --class Texture2D: exit %d\n%s", code, stderr)
	}
}
