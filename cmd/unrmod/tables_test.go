package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// findFile returns the file named name under dir.
func findFile(t *testing.T, dir, name string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == name {
			found = p
		}
		return err
	})
	if found == "" {
		t.Fatalf("no %s under %s", name, dir)
	}
	return found
}

// TestTableRoundTripFiles exports the fixture DataTable of a cooked asset
// (extracted from the tagged pak) and of a zen package file (extracted
// from the tagged container) to JSON and CSV and imports each unchanged:
// the output files are the input's bytes.
func TestTableRoundTripFiles(t *testing.T) {
	dir, _ := extractedAssets(t)
	zdir := t.TempDir()
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), "-o", zdir); code != 0 {
		t.Fatal(stderr)
	}
	out := t.TempDir()
	for kind, in := range map[string]string{"cooked": findFile(t, dir, "DT_AllProperties.uasset"), "zen": findFile(t, zdir, "DT_AllProperties.uasset")} {
		for _, format := range []string{"json", "csv"} {
			doc := filepath.Join(out, kind+"."+format)
			if _, stderr, code := runCLI(t, "export-table", in, "DT_AllProperties", "-o", doc); code != 0 {
				t.Fatalf("%s %s: export-table: %s", kind, format, stderr)
			}
			res := filepath.Join(out, kind+"-"+format+".uasset")
			if _, stderr, code := runCLI(t, "import-table", in, "DT_AllProperties", doc, "-o", res); code != 0 {
				t.Fatalf("%s %s: import-table: %s", kind, format, stderr)
			}
			for _, ext := range []string{".uasset", ".uexp"} {
				a, errA := os.ReadFile(strings.TrimSuffix(in, ".uasset") + ext)
				b, errB := os.ReadFile(strings.TrimSuffix(res, ".uasset") + ext)
				if errA != nil && kind == "zen" && ext == ".uexp" {
					continue // a zen package is one file
				}
				if errA != nil || errB != nil || !bytes.Equal(a, b) {
					t.Errorf("%s %s: %s differs from the input (%v, %v)", kind, format, ext, errA, errB)
				}
			}
		}
	}
}

// TestImportTableEdits edits the exported CSV of the fixture DataTable in
// the tagged pak and the JSON of the unversioned container's (with the
// mappings): a value changed, a row removed, a row added; the mod
// outputs verify and read back as edited.
func TestImportTableEdits(t *testing.T) {
	root := corpus.Dir(t)
	mappings := filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Uncompressed.usmap")
	utocs, _ := filepath.Glob(filepath.Join(root, "iostore/cue4parse_ue5_8/Unversioned/Uncompressed/*.utoc"))
	if len(utocs) == 0 {
		t.Fatal("no unversioned container")
	}
	cases := []struct {
		name, file, pkg, format string
		extra                   []string
		edit                    func(string) string
		output                  string
	}{
		{"tagged pak csv", corpus.Path(t, taggedPak), "DataTables/DT_AllProperties", "csv", nil,
			func(s string) string {
				s = strings.Replace(s, "Alpha,305419896,", "Alpha,7,", 1)
				var out []string
				for _, l := range strings.Split(s, "\n") {
					if !strings.HasPrefix(l, "Beta,") {
						out = append(out, l)
					}
				}
				return strings.Join(out, "\n") + "Gamma,5,,\"new, row\",,,\"[1,2]\"\n"
			}, "Mod_P.pak"},
		{"unversioned container json", utocs[0], "/Game/Fixtures/DataTables/DT_AllProperties", "json", []string{"--mappings", mappings, "--global", filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/global.utoc")},
			func(s string) string {
				s = strings.Replace(s, `"Number": 305419896`, `"Number": 7`, 1)
				var out []string
				for _, l := range strings.Split(s, "\n") {
					if strings.HasPrefix(l, `    "Beta":`) {
						continue
					}
					out = append(out, l)
					if strings.HasPrefix(l, `    "Alpha":`) {
						out = append(out, `    "Gamma": {"Number": 5, "Message": "new, row", "Values": [1, 2]},`)
					}
				}
				return strings.Join(out, "\n")
			}, "Mod_P.utoc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			doc := filepath.Join(dir, "t."+c.format)
			args := append([]string{"export-table", c.file, "DT_AllProperties", "--package", c.pkg, "-o", doc}, c.extra...)
			if _, stderr, code := runCLI(t, args...); code != 0 {
				t.Fatal(stderr)
			}
			text, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(doc, []byte(c.edit(string(text))), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "mods", c.output)
			args = append([]string{"import-table", c.file, "DT_AllProperties", doc, "--package", c.pkg, "-o", out}, c.extra...)
			stdout, stderr, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("import-table: exit %d: %s", code, stderr)
			}
			for _, w := range []string{"add-row", "remove-row", "row Alpha: Number: 305419896 → 7"} {
				if !strings.Contains(stdout, w) {
					t.Errorf("the plan lacks %q:\n%s", w, stdout)
				}
			}
			if _, stderr, code := runCLI(t, append([]string{"verify", out}, c.extra...)...); code != 0 {
				t.Errorf("verify %s: %s", out, stderr)
			}
			props, stderr, code := runCLI(t, append([]string{"props", out, "--package", c.pkg}, c.extra...)...)
			if code != 0 {
				t.Fatalf("props: %s", stderr)
			}
			for _, w := range []string{"Row Alpha\n    Number (IntProperty) = 7", "Row Gamma\n    Number (IntProperty) = 5", `Message (StrProperty) = "new, row"`} {
				if !strings.Contains(props, w) {
					t.Errorf("the output lacks %q:\n%s", w, props)
				}
			}
			if strings.Contains(props, "Row Beta") {
				t.Error("Beta is still there")
			}
		})
	}
}

// TestTableRefusals checks the commands' refusals: usage errors exit 2,
// bad documents and non-DataTables exit 1 naming what is wrong.
func TestTableRefusals(t *testing.T) {
	dir, _ := extractedAssets(t)
	in := findFile(t, dir, "DT_AllProperties.uasset")
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.csv")
	os.WriteFile(bad, []byte("---,Number\nAlpha,1\nalpha,2\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export-table", in, "DT_AllProperties", "-o", filepath.Join(tmp, "x.txt")}, 2, "extension"},
		{[]string{"export-table", in}, 2, "want FILE and TABLE"},
		{[]string{"import-table", in, "DT_AllProperties", bad, "-o", filepath.Join(tmp, "o.uasset")}, 1, "appears twice"},
		{[]string{"import-table", in, "DT_AllProperties", bad}, 2, "missing -o"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s; want exit %d naming %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "o.uasset")); err == nil {
		t.Error("a refused import wrote its output")
	}
}
