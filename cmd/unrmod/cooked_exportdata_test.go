package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// TestExportDataCookedAsset writes every export of every asset of the UE
// 5.8 fixture's tagged pak, extracted, with export-data, naming it by its
// full path: the bytes are the SerialSize bytes at the export's
// SerialOffset in the .uexp, read straight from the file. An export named
// by a wrong class, a number beyond the export map or an unknown name is
// refused and nothing is written.
func TestExportDataCookedAsset(t *testing.T) {
	_, assets := extractedAssets(t)
	out := filepath.Join(t.TempDir(), "x.bin")
	n := 0
	for _, a := range assets {
		h, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		x, err := os.ReadFile(strings.TrimSuffix(a, filepath.Ext(a)) + ".uexp")
		if err != nil {
			t.Fatal(err)
		}
		p, err := uasset.Decode(a, h, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := assetprops.NewResolver(p, assetprops.PackageNameFromPath(a))
		base := int64(p.Summary.TotalHeaderSize)
		for i, e := range p.Exports {
			path := r.ExportPath(i)
			_, stderr, code := runCLI(t, "export-data", a, path, "-o", out)
			if code != 0 {
				t.Errorf("%s %s: exit %d: %s", a, path, code, stderr)
				continue
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			start := e.SerialOffset - base
			if want := x[start : start+e.SerialSize]; !bytes.Equal(got, want) {
				t.Errorf("%s %s: %d bytes, want the %d at .uexp offset %d", a, path, len(got), len(want), start)
			}
			n++
		}
	}
	if n < len(assets) {
		t.Fatalf("only %d exports in %d assets", n, len(assets))
	}

	dt := ""
	for _, a := range assets {
		if filepath.Base(a) == "DT_AllProperties.uasset" {
			dt = a
		}
	}
	os.Remove(out)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"DT_AllProperties", "--class", "Texture2D"}, "is of class DataTable, not Texture2D"},
		{[]string{"Texture2D'DT_AllProperties'"}, "is of class DataTable, not Texture2D"},
		{[]string{"7"}, `"7" is no export: the package has 1`},
		{[]string{"Nope"}, `object "Nope" is neither an export nor an import`},
	} {
		args := append([]string{"export-data", dt, c.args[0], "-o", out}, c.args[1:]...)
		if _, stderr, code := runCLI(t, args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d: %s, want %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was written", c.args, out)
		}
	}
	// -o - writes the bytes to standard output.
	stdout, _, code := runCLI(t, "export-data", dt, "DT_AllProperties", "-o", "-")
	if code != 0 || len(stdout) == 0 {
		t.Errorf("-o -: exit %d, %d bytes", code, len(stdout))
	}
}
