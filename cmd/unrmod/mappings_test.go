package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

const (
	unversionedZlib = "iostore/cue4parse_ue5_8/Unversioned/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	unversionedPak  = "pak/cue4parse_ue5_8/LegacyPak/Unversioned/Uncompressed/CUE4ParseFixtures-Legacy-Unversioned-Uncompressed.pak"
	fixtureGlobal   = "iostore/cue4parse_ue5_8/Tagged/global.utoc"
	fixtureMappings = "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Zstandard.usmap"
)

// TestMappingsFlag runs the commands that take --mappings on the UE 5.8
// fixture's unversioned container and pak: props prints the tagged twin's
// document, dump --props prints properties, verify checks them,
// export-data says where they end, diff compares values; without
// --mappings props keeps its refusal.
func TestMappingsFlag(t *testing.T) {
	utoc, global, m := corpus.Path(t, unversionedZlib), corpus.Path(t, fixtureGlobal), corpus.Path(t, fixtureMappings)
	const dt = "/Game/Fixtures/DataTables/DT_AllProperties"
	got := propsJSON(t, utoc, "--package", dt, "--global", global, "--mappings", m)
	want := propsJSON(t, corpus.Path(t, taggedTwins), "--package", dt)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("props --mappings differs from the tagged twin:\n%v\n%v", got, want)
	}
	if _, stderr, code := runCLI(t, "props", utoc, "--package", dt, "--global", global); code != 1 || !strings.Contains(stderr, "usmap mappings") {
		t.Errorf("props without --mappings: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "props", utoc, "--package", dt, "--mappings", utoc); code != 1 || !strings.Contains(stderr, "magic") {
		t.Errorf("props --mappings on a file that is no .usmap: exit %d, %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "dump", utoc, "--package", dt, "--global", global, "--props", "--mappings", m)
	if code != 0 || !strings.Contains(out, "Number (IntProperty) = 305419896") {
		t.Errorf("dump --props --mappings: exit %d, %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, "verify", utoc, "--package", dt, "--global", global, "--mappings", m)
	if code != 0 || !strings.HasPrefix(out, "ok") {
		t.Errorf("verify --mappings: exit %d, %s\n%s", code, stderr, out)
	}
	dir := t.TempDir()
	_, stderr, code = runCLI(t, "export-data", utoc, "DT_AllProperties", "--package", dt, "--global", global, "--mappings", m,
		"-o", filepath.Join(dir, "dt.bin"))
	if code != 0 || !strings.Contains(stderr, "properties at 0x0..0x14F (1 property, 3 rows)") {
		t.Errorf("export-data --mappings: exit %d, %s", code, stderr)
	}

	// Cooked assets: an unversioned one against itself changed by a patch.
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, unversionedPak), "-o", dir); code != 0 {
		t.Fatal(stderr)
	}
	var asset string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(p) == "DT_AllProperties.uasset" {
			asset = p
		}
		return err
	})
	if asset == "" {
		t.Fatal("no DT_AllProperties.uasset in the pak")
	}
	patchFile := filepath.Join(dir, "patch.yaml")
	text := "unrmod: 1\ntargets:\n  - file: " + filepath.ToSlash(asset) + "\n    output: " + filepath.ToSlash(filepath.Join(dir, "out", "DT_AllProperties.uasset")) +
		"\n    mappings: " + filepath.ToSlash(m) + "\n    ops:\n      - set-property: {object: DT_AllProperties, row: Beta, property: Number, value: \"5\"}\n"
	if err := os.WriteFile(patchFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "apply", patchFile); code != 0 {
		t.Fatal(stderr)
	}
	changed := filepath.Join(dir, "out", "DT_AllProperties.uasset")
	out, stderr, code = runCLI(t, "diff", asset, changed, "--mappings", m)
	if code != 0 || !strings.Contains(out, "property Number of row Beta: -202020 → 5") {
		t.Errorf("diff --mappings: exit %d, %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, "verify", changed, "--mappings", m)
	if code != 0 || !strings.HasPrefix(out, "ok") {
		t.Errorf("verify --mappings of the patched asset: exit %d, %s\n%s", code, stderr, out)
	}
	if got := propsJSON(t, changed, "--mappings", m, "--row", "Beta"); !strings.Contains(strings.ReplaceAll(jsonText(t, got), " ", ""), `"name":"Number","type":"IntProperty","value":"5"`) {
		t.Errorf("props of the patched asset: %v", got)
	}
}

// jsonText returns v as JSON text.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMappingsBlueprintObject changes a property of a Blueprint class's
// default object in the fixture's unversioned container: the mappings
// lack the class, whose schema its package holds. props reads the object
// as its tagged twin, a container patch sets the value, and the output
// container reads it back with every other value unchanged.
func TestMappingsBlueprintObject(t *testing.T) {
	utoc, global, m := corpus.Path(t, unversionedZlib), corpus.Path(t, fixtureGlobal), corpus.Path(t, fixtureMappings)
	const pkg, cdo = "/Game/Fixtures/Blueprints/BP_Fixture", "Default__BP_Fixture_C"
	got := propsJSON(t, utoc, cdo, "--package", pkg, "--global", global, "--mappings", m)
	want := propsJSON(t, corpus.Path(t, taggedTwins), cdo, "--package", pkg)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("props --mappings of the Blueprint object differs from the tagged twin:\n%v\n%v", got, want)
	}
	dir := t.TempDir()
	patchFile := filepath.Join(dir, "patch.yaml")
	text := "unrmod: 1\ntargets:\n  - container: " + filepath.ToSlash(utoc) + "\n    output: " + filepath.ToSlash(filepath.Join(dir, "z_Mod_P")) +
		"\n    mode: mod\n    global: " + filepath.ToSlash(global) + "\n    mappings: " + filepath.ToSlash(m) +
		"\n    packages:\n      - package: " + pkg + "\n        ops:\n          - set-property: {object: " + cdo + ", property: Integer, value: \"4242\"}\n"
	if err := os.WriteFile(patchFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "apply", patchFile); code != 0 {
		t.Fatal(stderr)
	}
	out, stderr, code := runCLI(t, "props", filepath.Join(dir, "z_Mod_P.utoc"), cdo, "--package", pkg, "--global", global, "--mappings", m)
	if code != 0 || !strings.Contains(out, "Integer (IntProperty) = 4242") {
		t.Fatalf("props of the patched object: exit %d, %s\n%s", code, stderr, out)
	}
	before, _, _ := runCLI(t, "props", utoc, cdo, "--package", pkg, "--global", global, "--mappings", m)
	if strings.Replace(before, "Integer (IntProperty) = -24680", "Integer (IntProperty) = 4242", 1) != out {
		t.Errorf("the patched object:\n%s\nwas:\n%s", out, before)
	}
	out, stderr, code = runCLI(t, "verify", filepath.Join(dir, "z_Mod_P.utoc"), "--global", global, "--mappings", m)
	if code != 0 || !strings.HasPrefix(out, "ok") {
		t.Errorf("verify --mappings of the patched container: exit %d, %s\n%s", code, stderr, out)
	}
}
