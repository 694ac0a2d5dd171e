package report_test

import (
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/usmap"
)

// TestCheckZenProperties reads the unversioned fixture DataTable's
// properties with the project's mappings: the package verifies; with its
// row header damaged it does not, and the problem names the export.
func TestCheckZenProperties(t *testing.T) {
	root := corpus.Dir(t)
	m, err := usmap.Open(filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Uncompressed.usmap"), nil)
	if err != nil {
		t.Fatal(err)
	}
	so, err := iostore.LoadScriptObjects(filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/global.utoc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	utocs, _ := filepath.Glob(filepath.Join(root, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc"))
	if len(utocs) == 0 {
		t.Fatal("no unversioned container")
	}
	c, err := iostore.Open(utocs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	i, err := c.FindPackage("/Game/Fixtures/DataTables/DT_AllProperties")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := report.FileVerify{OK: true}
	report.CheckZenProperties(&r, p, c.Resolver(so), m)
	if !r.OK {
		t.Fatalf("problems: %+v", r.Problems)
	}
	// The object's header: one fragment of 1 value, then RowStruct;
	// make it claim 63 values, more than the DataTable schema has.
	data := append([]byte(nil), p.Exports[0].Data...)
	data[1] = 0x7F
	p.Exports[0].Data = data
	r = report.FileVerify{OK: true}
	report.CheckZenProperties(&r, p, c.Resolver(so), m)
	if r.OK || len(r.Problems) != 1 {
		t.Fatalf("a damaged header: %+v", r)
	}
	t.Log(r.Problems[0].Text)
}
