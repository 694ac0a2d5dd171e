package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
)

// writeDiffVariant writes the demo package with a LevelInfo0 export whose
// Title is title, plus an unreferenced name, to dir/name.
func writeDiffVariant(t *testing.T, dir, name, title, spare string) string {
	t.Helper()
	b := fixture.DemoBuilder(reader.Version{File: 69})
	b.Name(spare)
	props := b.Props().Str("Title", title).Int("RecommendedEnemies", 2).Bool("bLonely", true).Bytes()
	b.Export(b.Class("Engine", "LevelInfo"), 0, "LevelInfo0", reader.RFPublic|reader.RFLoadContext, props)
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiffText(t *testing.T) {
	dir := t.TempDir()
	a := writeDiffVariant(t, dir, "Old.u", "Facing Worlds", "runeSgn2")
	b := writeDiffVariant(t, dir, "New.u", "Facing Worlds II", "runeSgn3")
	same := writeDiffVariant(t, dir, "Same.u", "Facing Worlds", "runeSgn2")

	stdout, stderr, code := runCLI(t, "diff", a, b)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	t.Logf("unrmod diff Old.u New.u:\n%s", stdout)
	p, err := reader.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	want := "name " + strconv.Itoa(int(p.FindName("runeSgn2"))) + ": runeSgn2 → runeSgn3\n" +
		`export Old.LevelInfo0: property Title: "Facing Worlds" → "Facing Worlds II"` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}

	// Identical content under another file name: no differences, exit 0.
	stdout, stderr, code = runCLI(t, "diff", a, same)
	if code != 0 || stderr != "" || stdout != "no differences\n" {
		t.Errorf("identical: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Flags may follow the arguments.
	if stdout, _, code := runCLI(t, "diff", a, a, "--json=false"); code != 0 || stdout != "no differences\n" {
		t.Errorf("--json=false: exit %d, stdout %q", code, stdout)
	}
}

func TestDiffJSON(t *testing.T) {
	dir := t.TempDir()
	a := writeDiffVariant(t, dir, "Old.u", "Facing Worlds", "runeSgn2")
	b := writeDiffVariant(t, dir, "New.u", "Facing Worlds II", "runeSgn2")
	for _, pair := range [][2]string{{a, b}, {a, a}} {
		stdout, stderr, code := runCLI(t, "diff", "--json", pair[0], pair[1])
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
		var d patch.PackageDiff
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout)
		}
		if d.A != pair[0] || d.B != pair[1] || d.Header == nil || d.Names == nil || d.Imports == nil || d.Exports == nil {
			t.Errorf("JSON %+v: want the file names and every list (empty, not null)", d)
		}
		if pair[0] == pair[1] {
			if !d.Empty() {
				t.Errorf("self diff not empty: %s", stdout)
			}
			continue
		}
		if len(d.Exports) != 1 || len(d.Exports[0].Properties) != 1 || d.Exports[0].Properties[0].New != `"Facing Worlds II"` ||
			!strings.HasPrefix(d.Exports[0].NewXXH3, "0x") {
			t.Errorf("JSON:\n%s", stdout)
		}
		for _, key := range []string{`"old_index"`, `"new_xxh3"`, `"old_type"`} {
			if !strings.Contains(stdout, key) {
				t.Errorf("JSON lacks %s", key)
			}
		}
	}
}

func TestDiffErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeDiffVariant(t, dir, "Good.u", "x", "y")
	bad := filepath.Join(dir, "Bad.u")
	if err := os.WriteFile(bad, []byte("not a package"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"diff", good, filepath.Join(dir, "missing.u")},
		{"diff", bad, good},
		{"diff", good, bad, "--json"},
	} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "unrmod: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and one error line", args, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{
		{"diff"},
		{"diff", good},
		{"diff", good, good, good},
		{"diff", good, good, "--bogus"},
	} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 2 || stdout != "" || !strings.HasSuffix(stderr, "see 'unrmod diff --help'\n") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error", args, code, stdout, stderr)
		}
	}
	stdout, _, code := runCLI(t, "diff", "--help")
	if code != 0 || !strings.Contains(stdout, "no differences") || !strings.Contains(stdout, "unrmod diff ") {
		t.Errorf("help: exit %d:\n%s", code, stdout)
	}
}

// TestDiffCompactRewrite diffs CTF-Face with its compact rewrite: the data
// moves, nothing else changes.
func TestDiffCompactRewrite(t *testing.T) {
	in := corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr")
	out := filepath.Join(t.TempDir(), "CTF-Face.unr")
	if _, stderr, code := runCLI(t, "rewrite", in, "-o", out, "--layout", "compact"); code != 0 {
		t.Fatalf("rewrite: exit %d:\n%s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "diff", in, out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line != "no differences" && !strings.Contains(line, ": moved only (") {
			t.Errorf("unexpected difference: %s", line)
		}
	}
	if stdout, _, code := runCLI(t, "diff", in, in); code != 0 || stdout != "no differences\n" {
		t.Errorf("self diff: exit %d:\n%s", code, stdout)
	}
}
