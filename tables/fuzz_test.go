package tables_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/tables"
)

// fuzzSeeds returns the JSON and CSV documents of the corpus DataTables.
func fuzzSeeds(t testing.TB) (json, csv [][]byte, dts []dataTable) {
	dts = corpusTables(t)
	for _, dt := range dts {
		tab, err := props.DecodeDataTable(dt.data, dt.ctx)
		if err != nil {
			t.Fatal(err)
		}
		doc := tables.Export(tab, dt.ctx)
		var j, c bytes.Buffer
		if err := tables.WriteJSON(&j, doc); err != nil {
			t.Fatal(err)
		}
		if err := tables.WriteCSV(&c, doc); err != nil {
			t.Fatal(err)
		}
		json, csv = append(json, j.Bytes()), append(csv, c.Bytes())
	}
	return json, csv, dts
}

// sameDoc compares two documents as their JSON and CSV texts.
func sameDoc(t *testing.T, a, b *tables.Document) {
	t.Helper()
	for _, w := range []func(*bytes.Buffer, *tables.Document) error{
		func(x *bytes.Buffer, d *tables.Document) error { return tables.WriteJSON(x, d) },
		func(x *bytes.Buffer, d *tables.Document) error { return tables.WriteCSV(x, d) },
	} {
		var x, y bytes.Buffer
		if err := w(&x, a); err != nil {
			t.Fatal(err)
		}
		if err := w(&y, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			t.Fatalf("the document written and read back differs:\n%s\n%s", x.Bytes(), y.Bytes())
		}
	}
}

// FuzzReadJSON reads table documents: bad input is refused with
// ErrFormat, never a panic; a document read writes back to a document
// that reads the same; applying it to the fixture DataTable never panics.
func FuzzReadJSON(f *testing.F) {
	json, _, dts := fuzzSeeds(f)
	for _, s := range json {
		f.Add(s)
	}
	f.Add([]byte(`{"rows": {"A": {"X": [1, {"a": null}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		doc, err := tables.ReadJSON(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, tables.ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := tables.WriteJSON(&b, doc); err != nil {
			t.Fatal(err)
		}
		back, err := tables.ReadJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("the written document does not read: %v\n%s", err, b.Bytes())
		}
		sameDoc(t, doc, back)
		applyAll(t, dts, doc)
	})
}

// FuzzReadCSV is FuzzReadJSON for the CSV layout.
func FuzzReadCSV(f *testing.F) {
	_, csv, dts := fuzzSeeds(f)
	for _, s := range csv {
		f.Add(s)
	}
	f.Add([]byte("---,A\nR,\"(X=[1,\"\"a\"\"],Y=2)\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		doc, err := tables.ReadCSV(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, tables.ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := tables.WriteCSV(&b, doc); err != nil {
			t.Fatal(err)
		}
		back, err := tables.ReadCSV(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("the written document does not read: %v\n%s", err, b.Bytes())
		}
		sameDoc(t, doc, back)
		applyAll(t, dts, doc)
	})
}

// applyAll applies doc to the first corpus DataTables (no name may be
// added): it may be refused, never panic, and what it returns decodes.
func applyAll(t *testing.T, dts []dataTable, doc *tables.Document) {
	for _, dt := range dts[:min(len(dts), 3)] {
		ctx := *dt.ctx
		ctx.AddName = nil
		out, _, err := tables.Apply(dt.data, &ctx, doc)
		if err != nil {
			continue
		}
		if _, err := props.DecodeDataTable(out, &ctx); err != nil {
			t.Fatalf("%s: the applied document gives data that does not decode: %v", dt.name, err)
		}
	}
}
