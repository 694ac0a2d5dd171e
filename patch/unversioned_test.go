package patch_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// TestUnversionedContainerRow sets DataTable rows of the fixture
// project's unversioned container through a container patch in mode:
// mod with the project's mappings: a value stored as zero and a value
// stored. The mod container must verify and read back the new values;
// without mappings the patch is refused as before.
func TestUnversionedContainerRow(t *testing.T) {
	root := corpus.Dir(t)
	global := filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/global.utoc")
	mappings := filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Zstandard.usmap")
	m, err := usmap.Open(mappings, nil)
	if err != nil {
		t.Fatal(err)
	}
	containers, _ := filepath.Glob(filepath.Join(root, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc"))
	if len(containers) == 0 {
		t.Fatal("no unversioned containers")
	}
	for _, utoc := range containers {
		t.Run(filepath.Base(utoc), func(t *testing.T) {
			dir := t.TempDir()
			base := copyContainer(t, utoc, dir)
			text := `unrmod: 1
targets:
  - container: ` + filepath.Base(base) + `
    mode: mod
    output: mods/Rows_P
    mappings: ` + filepath.ToSlash(mappings) + `
    global: ` + filepath.ToSlash(global) + `
    packages:
      - package: /Game/Fixtures/DataTables/DT_AllProperties
        ops:
          - set-property: {object: DT_AllProperties, row: Defaults, property: Number, value: "77"}
          - set-property: {object: DT_AllProperties, row: Defaults, property: Kind, value: Maximum}
          - set-property: {object: DT_AllProperties, row: Alpha, property: Nested.Label, value: "patched"}
`
			res, err := applyYAML(t, dir, text, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Targets[0].Container.Packages[0].Changes); n != 3 {
				t.Errorf("%d changes", n)
			}
			q, mc := readPackage(t, filepath.Join(dir, "mods", "Rows_P.utoc"), nil, "/Game/Fixtures/DataTables/DT_AllProperties")
			defer mc.Close()
			if rep := mc.Verify(nil); !rep.OK() {
				t.Fatalf("mod container: %v", rep.Problems)
			}
			so, err := iostore.LoadScriptObjects(global, nil)
			if err != nil {
				t.Fatal(err)
			}
			v := report.FileVerify{OK: true}
			report.CheckZenProperties(&v, q, mc.Resolver(so), m)
			if !v.OK {
				t.Errorf("the patched package's properties: %+v", v.Problems)
			}
			x, err := zenprops.DecodeExportWith(q, mc.Resolver(so), 0, m)
			if err != nil {
				t.Fatal(err)
			}
			for row, want := range map[string][]string{
				"Defaults": {"Number (IntProperty) = 77", "Kind (EnumProperty(EFixtureEnum)) = EFixtureEnum::Maximum"},
				"Alpha":    {`Label (StrProperty) = "patched"`, "Number (IntProperty) = 305419896"},
				"Beta":     {"Number (IntProperty) = -202020"},
			} {
				got := x.Table.Row(row).Properties.String()
				for _, w := range want {
					if !strings.Contains(got, w) {
						t.Errorf("row %s lacks %q:\n%s", row, w, got)
					}
				}
			}
			// diff shows the values that changed, read with the mappings.
			oc, err := iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer oc.Close()
			oi, err := oc.FindPackage("/Game/Fixtures/DataTables/DT_AllProperties")
			if err != nil {
				t.Fatal(err)
			}
			orig, err := oc.ReadPackage(oi, nil)
			if err != nil {
				t.Fatal(err)
			}
			d := patch.DiffZenWith("a", orig, oc.Resolver(so), "b", q, mc.Resolver(so), m)
			var diffs []string
			for _, e := range d.Exports {
				for _, pd := range e.Properties {
					diffs = append(diffs, pd.Row+" "+pd.Name+": "+pd.Old+" → "+pd.New)
				}
			}
			if len(diffs) != 3 || !strings.Contains(strings.Join(diffs, "\n"), "Defaults Number: 0 → 77") {
				t.Errorf("diff:\n%s", strings.Join(diffs, "\n"))
			}
			if d := patch.DiffZen("a", orig, oc.Resolver(so), "b", q, mc.Resolver(so)); len(d.Exports) != 1 || len(d.Exports[0].Properties) != 0 {
				t.Errorf("without mappings the data differs by its bytes: %+v", d.Exports)
			}
			// Without mappings: the refusal.
			text = strings.Replace(text, "    mappings: "+filepath.ToSlash(mappings)+"\n", "", 1)
			text = strings.Replace(text, "mods/Rows_P", "mods/Other_P", 1)
			if _, err := applyYAML(t, dir, text, patch.Options{}); !errors.Is(err, props.ErrUnversioned) {
				t.Errorf("without mappings: %v", err)
			}
		})
	}
}

// TestUnversionedCookedAsset sets DataTable rows of an asset extracted
// from the fixture project's unversioned pak, through a file target with
// mappings: a value stored as zero and one stored; the output (.uasset
// and .uexp) reads them back.
func TestUnversionedCookedAsset(t *testing.T) {
	root := corpus.Dir(t)
	paks, _ := filepath.Glob(filepath.Join(root, "pak/cue4parse_ue5_8/LegacyPak/Unversioned/*/*.pak"))
	if len(paks) == 0 {
		t.Fatal("no unversioned pak")
	}
	r, err := pak.Open(paks[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	for _, name := range []string{"DT_AllProperties.uasset", "DT_AllProperties.uexp"} {
		var data []byte
		for _, f := range r.Files {
			if strings.HasSuffix(f.Path, "/"+name) {
				if data, err = f.ReadAll(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if data == nil {
			t.Fatalf("the pak has no %s", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mappings := filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Brotli.usmap")
	_, err = applyYAML(t, dir, `unrmod: 1
targets:
  - file: DT_AllProperties.uasset
    mappings: `+filepath.ToSlash(mappings)+`
    ops:
      - set-property: {object: DT_AllProperties, row: Defaults, property: LargeNumber, value: "-12"}
      - set-property: {object: DT_AllProperties, row: Beta, property: Nested.bEnabled, value: "true"}
`, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := usmap.Open(mappings, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ufile.Open(filepath.Join(dir, "patched", "DT_AllProperties.uasset"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Asset(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := report.VerifyAssetWith(f.Path, p, m); !v.OK || !v.Asset.PropertiesChecked {
		t.Errorf("the patched asset does not verify with its properties: %+v", v.Problems)
	}
	x, err := assetprops.DecodeExportWith(p, 0, m)
	if err != nil {
		t.Fatal(err)
	}
	got := x.Table.String()
	for _, w := range []string{"LargeNumber (Int64Property) = -12", "bEnabled (BoolProperty) = true"} {
		if !strings.Contains(got, w) {
			t.Errorf("the patched table lacks %q:\n%s", w, got)
		}
	}
}

// TestUnversionedPakTarget sets a zero and a non-zero property of the
// unversioned DataTable inside the engine's unversioned pak, the pak named
// as the target with mappings:: the _P pak's asset verifies with its
// properties and reads back; without mappings the patch is refused.
func TestUnversionedPakTarget(t *testing.T) {
	root := corpus.Dir(t)
	paks, _ := filepath.Glob(filepath.Join(root, "pak/cue4parse_ue5_8/LegacyPak/Unversioned/*/*.pak"))
	if len(paks) == 0 {
		t.Fatal("no unversioned pak")
	}
	mappings := filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Zstandard.usmap")
	m, err := usmap.Open(mappings, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := func(withMappings bool) string {
		s := "unrmod: 1\ntargets:\n  - container: " + filepath.ToSlash(paks[0]) + "\n    output: mods/z_Unversioned_P\n"
		if withMappings {
			s += "    mappings: " + filepath.ToSlash(mappings) + "\n"
		}
		return s + `    packages:
      - package: DT_AllProperties
        ops:
          - set-property: {object: DT_AllProperties, row: Defaults, property: LargeNumber, value: "-12"}
          - set-property: {object: DT_AllProperties, row: Beta, property: Nested.bEnabled, value: "true"}
`
	}
	dir := t.TempDir()
	if _, err := applyYAML(t, dir, text(false), patch.Options{}); err == nil || !strings.Contains(err.Error(), "mappings") {
		t.Fatalf("without mappings: %v, want a refusal naming mappings", err)
	}
	if _, err := applyYAML(t, dir, text(true), patch.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := pak.Open(filepath.Join(dir, "mods", "z_Unversioned_P.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.Files) != 2 {
		t.Errorf("the mod pak holds %d files, want the asset's two", len(r.Files))
	}
	f, err := ufile.PakAsset(&r.Reader, "DT_AllProperties")
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Asset(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := report.VerifyAssetWith(f.Path, p, m); !v.OK || !v.Asset.PropertiesChecked {
		t.Errorf("the patched asset does not verify with its properties: %+v", v.Problems)
	}
	x, err := assetprops.DecodeExportWith(p, 0, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"LargeNumber (Int64Property) = -12", "bEnabled (BoolProperty) = true"} {
		if !strings.Contains(x.Table.String(), w) {
			t.Errorf("the patched table lacks %q", w)
		}
	}
}
