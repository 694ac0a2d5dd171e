package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// TestPackageInPak reads a cooked asset inside real paks with --package:
// props of it equals props of the same asset extracted, and info, dump,
// verify and export-data take it; an unknown name is refused with close
// matches.
func TestPackageInPak(t *testing.T) {
	for _, c := range []struct {
		pak, pkg, asset string // asset: its path under the extract folder
	}{
		{"other/grounded/500-CreativeUnlock_P.pak", "/Game/Blueprints/Items/CraftingTables/Table_Crafting_Tools",
			"Maine/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uasset"},
		{"pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak", "DT_AllProperties",
			"CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset"},
	} {
		t.Run(filepath.Base(c.pak), func(t *testing.T) {
			file := corpus.Path(t, c.pak)
			dir := t.TempDir()
			if _, stderr, code := runCLI(t, "extract", file, "-o", dir); code != 0 {
				t.Fatal(stderr)
			}
			loose := filepath.Join(dir, filepath.FromSlash(c.asset))
			want, stderr, code := runCLI(t, "props", "--json", loose)
			if code != 0 {
				t.Fatal(stderr)
			}
			got, stderr, code := runCLI(t, "props", "--json", file, "--package", c.pkg)
			if code != 0 {
				t.Fatal(stderr)
			}
			var a, b map[string]any
			if json.Unmarshal([]byte(want), &a) != nil || json.Unmarshal([]byte(got), &b) != nil {
				t.Fatalf("props --json is not JSON:\n%s\n%s", want, got)
			}
			ea, _ := json.Marshal(a["exports"])
			eb, _ := json.Marshal(b["exports"])
			if a["package"] != b["package"] || string(ea) != string(eb) {
				t.Errorf("props of the asset in the pak (package %v) differ from the extracted one's (package %v)", b["package"], a["package"])
			}
			for _, args := range [][]string{{"info"}, {"dump"}, {"verify"}} {
				out, stderr, code := runCLI(t, append(args, file, "--package", c.pkg)...)
				if code != 0 || out == "" {
					t.Errorf("%s --package: code %d, %s", args[0], code, stderr)
				}
				if args[0] == "verify" && !strings.HasPrefix(out, "ok  "+file+":") {
					t.Errorf("verify --package: %q", out)
				}
			}
			// --package applies to the argument that is a pak; the loose
			// asset is read as it is.
			diff, stderr, code := runCLI(t, "diff", "--exit-code", file, loose, "--package", c.pkg)
			if code != 0 || diff != "no differences\n" {
				t.Errorf("diff of the asset in the pak against the extracted one: code %d, %q %q", code, diff, stderr)
			}
			_, stderr, code = runCLI(t, "props", file, "--package", "NoSuchAssetAnywhere")
			if code != 1 || !strings.Contains(stderr, "no such cooked asset") {
				t.Errorf("unknown package: code %d, %q", code, stderr)
			}
			if _, err := os.Stat(loose); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestApplyPakTarget applies a patch whose target is a pak, as a modder
// runs it: the _P pak is written, the plan names the asset and the change,
// and props of the output shows the new value.
func TestApplyPakTarget(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(corpus.Path(t, "other/grounded/500-CreativeUnlock_P.pak"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "Paks"), 0o755)
	os.WriteFile(filepath.Join(dir, "Paks", "pakchunk0-WindowsNoEditor.pak"), data, 0o644)
	patchFile := filepath.Join(dir, "mod.yaml")
	os.WriteFile(patchFile, []byte(`unrmod: 1
targets:
  - container: Paks/pakchunk0-WindowsNoEditor.pak
    output: Paks/~mods/z_MyMod_P
    packages:
      - package: /Game/Blueprints/Items/CraftingTables/Table_Crafting_Tools
        ops:
          - set-property: {object: Table_Crafting_Tools, row: Axe, property: "Requirements[0].ItemCount", value: 1}
`), 0o644)
	out, stderr, code := runCLI(t, "apply", patchFile)
	if code != 0 || !strings.Contains(out, "z_MyMod_P.pak (mode mod): 2 files") || !strings.Contains(out, "ItemCount: 3 → 1") {
		t.Fatalf("apply: code %d\n%s\n%s", code, out, stderr)
	}
	mod := filepath.Join(dir, "Paks", "~mods", "z_MyMod_P.pak")
	props, stderr, code := runCLI(t, "props", mod, "--package", "Table_Crafting_Tools", "--row", "Axe")
	if code != 0 || !strings.Contains(props, "ItemCount (IntProperty) = 1") {
		t.Errorf("props of the mod: code %d, %s\n%s", code, props, stderr)
	}
	js, _, code := runCLI(t, "apply", "--json", patchFile)
	var doc struct {
		Targets []struct {
			Kind           string `json:"kind"`
			AlreadyWritten bool   `json:"already_written"`
		} `json:"targets"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &doc) != nil || len(doc.Targets) != 1 || doc.Targets[0].Kind != "pak" || !doc.Targets[0].AlreadyWritten {
		t.Errorf("apply --json again: code %d, %s", code, js)
	}
}
