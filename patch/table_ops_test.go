package patch_test

import (
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

// tableOps add, copy, rename and remove rows of the UE 5.8 fixture
// DataTable, grow and shrink an array and set a whole struct.
const tableOps = `          - add-row: {object: DT_AllProperties, row: Gamma, copy-of: Alpha}
          - add-row: {object: DT_AllProperties, row: Fresh}
          - rename-row: {object: DT_AllProperties, row: Beta, to: Renamed}
          - remove-row: {object: DT_AllProperties, row: Defaults}
          - set-property: {object: DT_AllProperties, row: Gamma, property: "Values[4]", value: "55"}
          - remove-element: {object: DT_AllProperties, row: Gamma, property: "Values[0]"}
          - set-property: {object: DT_AllProperties, row: Gamma, property: Nested.Position, value: "(X=1,Y=2,Z=3)"}
`

// TestTableOps applies tableOps to the fixture DataTable in the tagged and
// unversioned containers and paks of the UE 5.8 fixture project (mod
// outputs; unversioned with the project's mappings): every output
// verifies with its properties, and the rows read back as asked.
func TestTableOps(t *testing.T) {
	root := corpus.Dir(t)
	global := filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/global.utoc")
	mappings := filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Zstandard.usmap")
	m, err := usmap.Open(mappings, nil)
	if err != nil {
		t.Fatal(err)
	}
	glob := func(p string) string {
		t.Helper()
		f, _ := filepath.Glob(filepath.Join(root, p))
		if len(f) == 0 {
			t.Fatalf("no %s", p)
		}
		return f[0]
	}
	cases := []struct {
		name, file, pkg string
		container       bool
		m               *usmap.Mappings
	}{
		{"tagged container", glob("iostore/cue4parse_ue5_8/Tagged/Zlib/*.utoc"), "/Game/Fixtures/DataTables/DT_AllProperties", true, nil},
		{"unversioned container", glob("iostore/cue4parse_ue5_8/Unversioned/Uncompressed/*.utoc"), "/Game/Fixtures/DataTables/DT_AllProperties", true, m},
		{"tagged pak", glob("pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/*.pak"), "DataTables/DT_AllProperties", false, nil},
		{"unversioned pak", glob("pak/cue4parse_ue5_8/LegacyPak/Unversioned/Uncompressed/*.pak"), "DT_AllProperties", false, m},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := c.file
			if c.container {
				in = copyContainer(t, c.file, dir)
			}
			text := "unrmod: 1\ntargets:\n  - container: " + filepath.ToSlash(in) + "\n    mode: mod\n    output: mods/Rows_P\n"
			if c.m != nil {
				text += "    mappings: " + filepath.ToSlash(mappings) + "\n"
			}
			if c.container {
				text += "    global: " + filepath.ToSlash(global) + "\n"
			}
			text += "    packages:\n      - package: " + c.pkg + "\n        ops:\n" + tableOps
			res, err := applyYAML(t, dir, text, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res == nil {
				t.Fatal("no result")
			}
			var tab *props.Table
			if c.container {
				q, mc := readPackage(t, filepath.Join(dir, "mods", "Rows_P.utoc"), nil, "/Game/Fixtures/DataTables/DT_AllProperties")
				if rep := mc.Verify(nil); !rep.OK() {
					t.Fatalf("mod container: %v", rep.Problems)
				}
				so, err := iostore.LoadScriptObjects(global, nil)
				if err != nil {
					t.Fatal(err)
				}
				v := report.FileVerify{OK: true}
				report.CheckZenProperties(&v, q, mc.Resolver(so), c.m)
				if !v.OK {
					t.Errorf("the patched package's properties: %+v", v.Problems)
				}
				x, err := zenprops.DecodeExportWith(q, mc.Resolver(so), 0, c.m)
				if err != nil {
					t.Fatal(err)
				}
				tab = x.Table
			} else {
				r, err := pak.Open(filepath.Join(dir, "mods", "Rows_P.pak"), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				f, err := ufile.PakAsset(&r.Reader, "DT_AllProperties")
				if err != nil {
					t.Fatal(err)
				}
				p, err := f.Asset(nil)
				if err != nil {
					t.Fatal(err)
				}
				if v := report.VerifyAssetWith(f.Path, p, c.m); !v.OK {
					t.Errorf("the patched asset does not verify: %+v", v.Problems)
				}
				x, err := assetprops.DecodeExportWith(p, 0, c.m)
				if err != nil {
					t.Fatal(err)
				}
				tab = x.Table
			}
			var names []string
			for _, r := range tab.Rows {
				names = append(names, r.Name.Text)
			}
			if got := strings.Join(names, ","); got != "Alpha,Renamed,Gamma,Fresh" {
				t.Errorf("rows %s, want Alpha,Renamed,Gamma,Fresh", got)
			}
			look := func(row, path string) string {
				v, _, _, err := tab.Lookup(row, path)
				if err != nil {
					return err.Error()
				}
				return props.Display(v, nil)
			}
			for _, w := range []struct{ row, path, want string }{
				{"Gamma", "Values", "[22,33,44,55]"},
				{"Gamma", "Nested.Position", "(X=1,Y=2,Z=3)"},
				{"Gamma", "Number", "305419896"},
				{"Renamed", "Number", "-202020"},
				{"Alpha", "Values", "[11,22,33,44]"},
			} {
				if got := look(w.row, w.path); got != w.want {
					t.Errorf("%s %s = %s, want %s", w.row, w.path, got, w.want)
				}
			}
			fresh := tab.Row("Fresh").Properties
			if c.m == nil && len(fresh.Properties) != 0 || c.m != nil && look("Fresh", "Number") != "0" {
				t.Errorf("Fresh: %s", fresh)
			}
		})
	}
}

// TestTableOpsParse checks the refusals of the row operations' parsers.
func TestTableOpsParse(t *testing.T) {
	for _, c := range []struct{ op, want string }{
		{"remove-element: {object: X, property: Values}", "with its index"},
		{"add-row: {object: X, row: None}", "None is reserved"},
		{"rename-row: {object: X, row: A, to: none}", "None is reserved"},
		{"rename-row: {object: X, row: A}", "to"},
		{"add-row: {object: X, row: A, copy: B}", "copy"},
		{"remove-row: {row: A}", "object"},
	} {
		_, err := patch.Parse("p.yaml", []byte(doc("      - "+c.op+"\n")))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.op, err, c.want)
		}
	}
}
