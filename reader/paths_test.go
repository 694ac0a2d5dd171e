package reader_test

import (
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// checkExportPaths requires ExportPaths to give ExportPath's answer for
// every export.
func checkExportPaths(t *testing.T, p *reader.Package) {
	t.Helper()
	got := p.ExportPaths()
	if len(got) != len(p.Exports) {
		t.Fatalf("%d paths for %d exports", len(got), len(p.Exports))
	}
	for i, path := range got {
		if want := p.ExportPath(i); path != want {
			t.Fatalf("export %d: ExportPaths gives %q, ExportPath %q", i, path, want)
		}
	}
}

func TestExportPathsCorpus(t *testing.T) {
	for _, f := range corpus.Legacy(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := reader.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkExportPaths(t, p)
		})
	}
}

// TestExportPathsModel covers the outers a decoded file never has but a
// model being edited may: import outers, cycles and indexes past the table.
func TestExportPathsModel(t *testing.T) {
	names := []reader.Name{{Name: "None"}, {Name: "A"}, {Name: "B"}, {Name: "C"}, {Name: "D"}, {Name: "Pkg"}}
	exp := func(outer reader.ObjectRef, name reader.NameRef) reader.Export {
		return reader.Export{Outer: outer, ObjectName: name}
	}
	for _, tc := range []struct {
		name    string
		exports []reader.Export
	}{
		{"chain in order", []reader.Export{exp(0, 1), exp(1, 2), exp(2, 3)}},
		{"chain reversed", []reader.Export{exp(2, 1), exp(3, 2), exp(0, 3)}},
		{"siblings", []reader.Export{exp(0, 1), exp(1, 2), exp(1, 3), exp(2, 4)}},
		{"import outer", []reader.Export{exp(-1, 1), exp(1, 2)}},
		{"two-cycle", []reader.Export{exp(2, 1), exp(1, 2), exp(2, 3)}},
		{"self outer", []reader.Export{exp(1, 1), exp(1, 2)}},
		{"outer past the table", []reader.Export{exp(9, 1), exp(1, 2), exp(-9, 3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &reader.Package{
				Name:    "Pkg",
				Names:   names,
				Imports: []reader.Import{{ObjectName: 4, Outer: 0}},
				Exports: tc.exports,
			}
			checkExportPaths(t, p)
		})
	}
}

func TestExportPathsDeep(t *testing.T) {
	data, err := fixture.DeepOuters(200, 4)
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("deep.u", data)
	if err != nil {
		t.Fatal(err)
	}
	checkExportPaths(t, p)
}
