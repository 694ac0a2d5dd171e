package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// setAssetCopy decodes cooked asset src (with its .uexp), sets one value
// of export i with assetprops.Set and writes the result under dir with
// the same file name; it returns the new header file's path.
func setAssetCopy(t *testing.T, src, dir string, i int, target props.Target, in props.Input) string {
	t.Helper()
	h, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	x, err := os.ReadFile(strings.TrimSuffix(src, filepath.Ext(src)) + ".uexp")
	if err != nil {
		t.Fatal(err)
	}
	p, err := uasset.Decode(src, h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assetprops.Set(p, i, target, in); err != nil {
		t.Fatal(err)
	}
	if h, x, err = p.Encode(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(out, h, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(out, filepath.Ext(out))+".uexp", x, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDiffCookedAsset compares every asset of the UE 5.8 fixture's tagged
// pak with itself (no differences, exit 0 with --exit-code), and
// DT_AllProperties with a copy whose row Alpha's Number was changed with
// assetprops.Set: exactly that property of that row is listed, in text and
// JSON, with the export's sizes and hashes, and --exit-code exits 1.
func TestDiffCookedAsset(t *testing.T) {
	_, assets := extractedAssets(t)
	dt := ""
	for _, a := range assets {
		if filepath.Base(a) == "DT_AllProperties.uasset" {
			dt = a
		}
		t.Run(filepath.Base(a), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "diff", "--exit-code", a, a)
			if code != 0 || strings.TrimSpace(stdout) != "no differences" {
				t.Errorf("diff of %s with itself: exit %d\n%s%s", a, code, stdout, stderr)
			}
		})
	}
	if dt == "" {
		t.Fatal("no DT_AllProperties.uasset in the pak")
	}
	changed := setAssetCopy(t, dt, t.TempDir(), 0, props.Target{Row: "Alpha", Path: "Number"}, props.Input{Text: "42"})

	stdout, stderr, code := runCLI(t, "diff", "--exit-code", dt, changed)
	if code != 1 {
		t.Errorf("diff --exit-code of a changed asset: exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Alpha") || !strings.Contains(stdout, "Number") || !strings.Contains(stdout, "305419896 → 42") {
		t.Errorf("text diff does not name the change:\n%s", stdout)
	}
	if _, _, code := runCLI(t, "diff", dt, changed); code != 0 {
		t.Errorf("diff without --exit-code: exit %d, want 0", code)
	}

	stdout, stderr, code = runCLI(t, "diff", "--json", dt, changed)
	if code != 0 {
		t.Fatalf("diff --json: exit %d: %s", code, stderr)
	}
	var d patch.PackageDiff
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Header) != 0 || len(d.Names) != 0 || len(d.Imports) != 0 || len(d.Exports) != 1 {
		t.Fatalf("want one changed export only, got %s", stdout)
	}
	e := d.Exports[0]
	want := patch.PropertyDiff{Change: patch.DiffChanged, Row: "Alpha", Name: "Number", Old: "305419896", New: "42", OldType: "IntProperty", NewType: "IntProperty"}
	if e.Change != patch.DiffChanged || e.Path != "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties" || e.Class != "DataTable" ||
		len(e.Fields) != 0 || e.Data != "" || len(e.Properties) != 1 || e.Properties[0] != want {
		t.Errorf("export diff %+v, want only the property %+v", e, want)
	}
	if e.OldSize == 0 || e.OldSize != e.NewSize || e.OldXXH3 == "" || e.OldXXH3 == e.NewXXH3 {
		t.Errorf("sizes %d → %d, hashes %s → %s", e.OldSize, e.NewSize, e.OldXXH3, e.NewXXH3)
	}

	// A cooked asset against a legacy package: refused, naming both.
	_, stderr, code = runCLI(t, "diff", dt, "../../examples/packages/UnrmodDemoMap.unr")
	if code == 0 || !strings.Contains(stderr, "is a cooked asset") {
		t.Errorf("cooked asset against a legacy package: exit %d: %s", code, stderr)
	}
}
