package patch_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
)

// TestTargetFileGlob: a target whose file is a pattern applies its
// operations to every file the pattern matches (expanded by unrmod, with /
// or \ separators), writing each into output as a directory; a pattern
// that matches nothing is an error naming it.
func TestTargetFileGlob(t *testing.T) {
	src, err := os.ReadFile(demoCode)
	if err != nil {
		t.Fatal(err)
	}
	// dir/Maps holds A.u, B.u, C[1].u, notes.txt and a folder Sub.u.
	setup := func(t *testing.T) string {
		dir := t.TempDir()
		maps := filepath.Join(dir, "Maps")
		if err := os.MkdirAll(filepath.Join(maps, "Sub.u"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"A.u", "B.u", "C[1].u"} {
			if err := os.WriteFile(filepath.Join(maps, name), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(maps, "notes.txt"), []byte("notes"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	abs := func(dir, p string) string { return filepath.ToSlash(filepath.Join(dir, p)) }
	for _, tc := range []struct {
		name    string
		file    func(dir string) string
		output  string
		written []string // outputs, relative to the patch's directory
		err     []string
	}{
		{name: "pattern", file: func(string) string { return "Maps/*.u" }, output: "out",
			written: []string{"out/A.u", "out/B.u", "out/C[1].u"}},
		{name: "windows separators", file: func(string) string { return `Maps\?.u` }, output: "out",
			written: []string{"out/A.u", "out/B.u"}},
		{name: "character class", file: func(string) string { return "Maps/[AC]*.u" },
			written: []string{"patched/A.u", "patched/C[1].u"}},
		{name: "absolute pattern", file: func(dir string) string { return abs(dir, "Maps/B*") }, output: "out",
			written: []string{"out/B.u"}},
		{name: "existing file with a bracket", file: func(string) string { return "Maps/C[1].u" }, output: "one/C.u",
			written: []string{"one/C.u"}},
		{name: "no match", file: func(string) string { return "Maps/*.unr" }, output: "out",
			err: []string{"p.yaml:3:5: file: Maps/*.unr matches no file", filepath.Join("Maps", "*.unr")}},
		{name: "bad pattern", file: func(string) string { return "Maps/[A.u" },
			err: []string{"file: Maps/[A.u is not a valid pattern"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setup(t)
			text := "unrmod: 1\ntargets:\n  - file: '" + tc.file(dir) + "'\n"
			if tc.output != "" {
				text += "    output: " + tc.output + "\n"
			}
			text += "    ops:\n      - add-name: {name: GlobAdded}\n"
			pf := filepath.Join(dir, "p.yaml")
			if err := os.WriteFile(pf, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := patch.ParseFile(pf)
			if err != nil {
				t.Fatal(err)
			}
			res, err := patch.Apply(f, patch.Options{})
			if tc.err != nil {
				if err == nil {
					t.Fatalf("no error; outputs %v", res.Targets)
				}
				for _, w := range tc.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not say %q: %v", w, err)
					}
				}
				var pe *patch.Error
				if !errors.As(err, &pe) || pe.Pos.Line != 3 {
					t.Errorf("not a *patch.Error at the target's line: %#v", err)
				}
				if tc.name == "no match" && !errors.Is(err, patch.ErrNoMatch) {
					t.Errorf("not ErrNoMatch: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range res.Targets {
				rel, err := filepath.Rel(dir, tr.Output)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, filepath.ToSlash(rel))
				p, err := reader.ReadFile(tr.Output)
				if err != nil {
					t.Fatal(err)
				}
				if p.FindName("GlobAdded") < 0 {
					t.Errorf("%s: the operation was not applied", tr.Output)
				}
			}
			if !slices.Equal(got, tc.written) {
				t.Errorf("outputs %v, want %v", got, tc.written)
			}
			if data, err := os.ReadFile(filepath.Join(dir, "Maps", "A.u")); err != nil || string(data) != string(src) {
				t.Errorf("an input changed: %v", err)
			}
		})
	}
}
