package report_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
)

// TestZenPropertiesRow checks the row filter: a DataTable shows only the
// row asked for, an export that is no DataTable is a *NotDataTableError
// when listed and skipped when every export is read.
func TestZenPropertiesRow(t *testing.T) {
	open := func(name string) *zen.Package {
		data, err := os.ReadFile("../examples/packages/zen/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := zen.DecodePackage(name, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	table, pickup := open("DT_DemoItems.uasset"), open("BP_DemoPickup.uasset")
	d, err := report.NewZenProperties("DT_DemoItems.uasset", table, nil, []int{0}, false, "Pebble", nil)
	if err != nil || len(d.Exports) != 1 || len(d.Exports[0].Rows) != 1 || d.Exports[0].Rows[0].Name != "Pebble" || len(d.Exports[0].Properties) != 0 {
		t.Fatalf("the row of a DataTable: %+v, %v", d, err)
	}
	plain := -1
	for i := range pickup.Exports {
		if _, err := report.NewZenProperties("BP_DemoPickup.uasset", pickup, nil, []int{i}, false, "", nil); err == nil {
			plain = i
			break
		}
	}
	if plain < 0 {
		t.Fatal("no export of BP_DemoPickup has properties")
	}
	_, err = report.NewZenProperties("BP_DemoPickup.uasset", pickup, nil, []int{plain}, false, "Pebble", nil)
	var nt *report.NotDataTableError
	if !errors.As(err, &nt) || nt.Path != pickup.ExportPath(plain) {
		t.Errorf("a row of export %d: %v, want a *NotDataTableError", plain, err)
	}
}

// cookedAsset reads the cooked asset at path of the UE 5.8 fixture
// project's tagged, uncompressed legacy pak.
func cookedAsset(t *testing.T, path string) *uasset.Package {
	t.Helper()
	r, err := pak.Open(corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x, err := r.ReadFile(uasset.CompanionNames(path).Uexp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := uasset.Decode(path, h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCookedProperties reads cooked assets as NewZenProperties reads zen
// packages: the package name, export paths and classes, a DataTable's
// rows, the row filter (a *NotDataTableError for a listed export that is
// no DataTable, an error naming the rows for a missing row, skipped
// exports with all set) and props.ErrUnversioned for an unversioned cook.
func TestCookedProperties(t *testing.T) {
	table := cookedAsset(t, "DataTables/DT_AllProperties.uasset")
	asset := cookedAsset(t, "Properties/DA_AllProperties.uasset")
	every := func(p *uasset.Package) []int {
		var l []int
		for i := range p.Exports {
			l = append(l, i)
		}
		return l
	}
	find := func(p *uasset.Package, name string) []int {
		for i := range p.Exports {
			if p.NameOf(p.Exports[i].ObjectName) == name {
				return []int{i}
			}
		}
		t.Fatalf("%s: no export %s", p.FileName, name)
		return nil
	}
	const dt, da = "/Game/Fixtures/DataTables/DT_AllProperties", "/Game/Fixtures/Properties/DA_AllProperties"
	for _, c := range []struct {
		name string
		p    *uasset.Package
		pkg  string
		list []int
		all  bool
		row  string
		// want: the package, the exports' paths and classes, the rows of
		// the first export; or the error.
		wantPkg, wantPath, wantClass string
		wantRows                     []string
		wantErr                      string
	}{
		{name: "table", p: table, list: find(table, "DT_AllProperties"),
			wantPkg: dt, wantPath: dt + ".DT_AllProperties", wantClass: "DataTable", wantRows: []string{"Alpha", "Beta", "Defaults"}},
		{name: "package named", p: table, pkg: "/Game/Other", list: find(table, "DT_AllProperties"),
			wantPkg: "/Game/Other", wantPath: "/Game/Other.DT_AllProperties", wantClass: "DataTable", wantRows: []string{"Alpha", "Beta", "Defaults"}},
		{name: "row", p: table, list: find(table, "DT_AllProperties"), row: "Beta",
			wantPkg: dt, wantPath: dt + ".DT_AllProperties", wantClass: "DataTable", wantRows: []string{"Beta"}},
		{name: "row of every export", p: table, list: every(table), all: true, row: "Beta",
			wantPkg: dt, wantPath: dt + ".DT_AllProperties", wantClass: "DataTable", wantRows: []string{"Beta"}},
		{name: "missing row", p: table, list: find(table, "DT_AllProperties"), row: "Gamma",
			wantErr: `has no row "Gamma"; its rows: Alpha, Beta, Defaults`},
		{name: "missing row, all", p: table, list: every(table), all: true, row: "Gamma",
			wantErr: `no DataTable of the package has a row "Gamma"`},
		{name: "asset", p: asset, list: find(asset, "DA_AllProperties"),
			wantPkg: da, wantPath: da + ".DA_AllProperties", wantClass: "ParserFixtureData"},
		{name: "row of no DataTable", p: asset, list: find(asset, "DA_AllProperties"), row: "Beta",
			wantErr: "is not a DataTable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := report.NewCookedProperties("x.uasset", c.p, c.pkg, c.list, c.all, c.row, nil)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("%v, want an error with %q", err, c.wantErr)
				}
				var nt *report.NotDataTableError
				if errors.As(err, &nt) != (c.wantErr == "is not a DataTable") {
					t.Errorf("%v: a *NotDataTableError: %v", err, errors.As(err, &nt))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Package != c.wantPkg || len(d.Exports) != 1 || d.Exports[0].Path != c.wantPath || d.Exports[0].Class != c.wantClass {
				t.Fatalf("package %q, exports %+v", d.Package, d.Exports)
			}
			e := d.Exports[0]
			var rows []string
			for _, r := range e.Rows {
				rows = append(rows, r.Name)
				if len(r.Properties) == 0 {
					t.Errorf("row %s has no properties", r.Name)
				}
			}
			if !reflect.DeepEqual(rows, c.wantRows) || e.Text == "" || (c.row != "") != (len(e.Properties) == 0) {
				t.Errorf("rows %v (want %v), %d properties, text %q", rows, c.wantRows, len(e.Properties), e.Text)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(corpus.Path(t, "other/ue5_cooked_pairs"), "*.uasset"))
	for _, f := range files {
		h, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		x, err := os.ReadFile(uasset.CompanionNames(f).Uexp)
		if err != nil {
			t.Fatal(err)
		}
		p, err := uasset.Decode(f, h, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := report.NewCookedProperties(f, p, "", []int{0}, true, "", nil); !errors.Is(err, props.ErrUnversioned) {
			t.Errorf("%s: %v, want props.ErrUnversioned", f, err)
		}
	}
	if len(files) == 0 {
		t.Error("no cooked pairs")
	}
}
