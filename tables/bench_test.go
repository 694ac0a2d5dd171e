package tables_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/tables"
)

// benchTable is the largest Grounded recipe table of the corpus.
func benchTable(b *testing.B) dataTable {
	var best dataTable
	for _, dt := range corpusTables(b) {
		if strings.Contains(dt.name, "CreativeUnlock") && len(dt.data) > len(best.data) {
			best = dt
		}
	}
	if best.data == nil {
		b.Fatal("no Grounded DataTable")
	}
	return best
}

// BenchmarkDecodeDataTable is the baseline: decoding the table alone.
func BenchmarkDecodeDataTable(b *testing.B) {
	dt := benchTable(b)
	b.SetBytes(int64(len(dt.data)))
	for i := 0; i < b.N; i++ {
		if _, err := props.DecodeDataTable(dt.data, dt.ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExportCSV decodes the table and writes its CSV.
func BenchmarkExportCSV(b *testing.B) {
	dt := benchTable(b)
	b.SetBytes(int64(len(dt.data)))
	for i := 0; i < b.N; i++ {
		tab, err := props.DecodeDataTable(dt.data, dt.ctx)
		if err != nil {
			b.Fatal(err)
		}
		var w bytes.Buffer
		if err := tables.WriteCSV(&w, tables.Export(tab, dt.ctx)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportUnchangedJSON reads the table's JSON and applies it (no
// edit: every cell compared).
func BenchmarkImportUnchangedJSON(b *testing.B) {
	dt := benchTable(b)
	tab, err := props.DecodeDataTable(dt.data, dt.ctx)
	if err != nil {
		b.Fatal(err)
	}
	var w bytes.Buffer
	if err := tables.WriteJSON(&w, tables.Export(tab, dt.ctx)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(dt.data)))
	for i := 0; i < b.N; i++ {
		doc, err := tables.ReadJSON(bytes.NewReader(w.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if _, edits, err := tables.Apply(dt.data, dt.ctx, doc); err != nil || len(edits) != 0 {
			b.Fatal(edits, err)
		}
	}
}
