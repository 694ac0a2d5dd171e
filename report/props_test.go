package report_test

import (
	"errors"
	"os"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/report"
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
	d, err := report.NewZenProperties("DT_DemoItems.uasset", table, nil, []int{0}, false, "Pebble")
	if err != nil || len(d.Exports) != 1 || len(d.Exports[0].Rows) != 1 || d.Exports[0].Rows[0].Name != "Pebble" || len(d.Exports[0].Properties) != 0 {
		t.Fatalf("the row of a DataTable: %+v, %v", d, err)
	}
	plain := -1
	for i := range pickup.Exports {
		if _, err := report.NewZenProperties("BP_DemoPickup.uasset", pickup, nil, []int{i}, false, ""); err == nil {
			plain = i
			break
		}
	}
	if plain < 0 {
		t.Fatal("no export of BP_DemoPickup has properties")
	}
	_, err = report.NewZenProperties("BP_DemoPickup.uasset", pickup, nil, []int{plain}, false, "Pebble")
	var nt *report.NotDataTableError
	if !errors.As(err, &nt) || nt.Path != pickup.ExportPath(plain) {
		t.Errorf("a row of export %d: %v, want a *NotDataTableError", plain, err)
	}
}
