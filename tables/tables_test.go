package tables_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/tables"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// dataTable is one DataTable export of the corpus: its data and context.
type dataTable struct {
	name string
	data []byte
	ctx  *props.Context
}

// corpusTables returns every DataTable export of the corpus (exports of
// class DataTable): of every zen package (tagged), of every cooked asset in
// every pak that opens without a key (tagged), and of the UE 5.8 fixture
// project's unversioned container and pak read with its mappings.
func corpusTables(t testing.TB) []dataTable {
	t.Helper()
	root := corpus.Dir(t)
	m, err := usmap.Open(filepath.Join(root, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Uncompressed.usmap"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []dataTable
	for _, zp := range zencorpus.Packages(t) {
		p, err := zen.DecodePackage(zp.Name, zp.Data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Exports {
			if !zenprops.IsDataTable(p, nil, i) {
				continue
			}
			ctx, err := zenprops.ContextFor(p, i)
			if errors.Is(err, props.ErrUnversioned) {
				continue // read with the mappings below
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, dataTable{zp.Name + ":" + p.ExportPath(i), p.Exports[i].Data, ctx})
		}
	}
	// The unversioned fixture containers, with mappings.
	so, err := iostore.LoadScriptObjects(filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/global.utoc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	utocs, _ := filepath.Glob(filepath.Join(root, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc"))
	for _, u := range utocs {
		c, err := iostore.Open(u, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Resolver(so)
		for i, ch := range c.Chunks() {
			if ch.Type != iostore.ChunkExportBundleData {
				continue
			}
			p, err := c.ReadPackage(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			for j := range p.Exports {
				if !zenprops.IsDataTable(p, r, j) {
					continue
				}
				ctx, err := zenprops.ContextWith(p, r, j, m)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, dataTable{filepath.Base(u) + ":" + p.ExportPath(j), p.Exports[j].Data, ctx})
			}
		}
		c.Close()
	}
	// Cooked assets in paks.
	var paks []string
	for _, pat := range []string{"pak/*/*/*.pak", "pak/*/*/*/*.pak", "pak/*/*/*/*/*.pak", "other/*/*.pak"} {
		f, _ := filepath.Glob(filepath.Join(root, pat))
		paks = append(paks, f...)
	}
	sort.Strings(paks)
	for _, pk := range paks {
		r, err := pak.Open(pk, nil)
		if err != nil {
			if errors.Is(err, ue.ErrKeyRequired) {
				continue
			}
			t.Fatal(err)
		}
		var mp *usmap.Mappings
		if strings.Contains(pk, "Unversioned") {
			mp = m
		}
		for _, f := range r.Files {
			if !strings.HasSuffix(f.Path, ".uasset") {
				continue
			}
			uf, err := ufile.PakAsset(&r.Reader, f.Path)
			if errors.Is(err, ue.ErrUnsupportedMethod) {
				continue // Oodle blocks: they need the game's own library
			}
			if err != nil {
				t.Fatalf("%s: %v", pk, err)
			}
			a, err := uf.Asset(nil)
			if err != nil {
				t.Fatalf("%s: %s: %v", pk, f.Path, err)
			}
			for i := range a.Exports {
				if !assetprops.IsDataTable(a, i) {
					continue
				}
				ctx, err := assetprops.ContextWith(a, i, mp)
				if err != nil {
					t.Fatalf("%s: %s: %v", pk, f.Path, err)
				}
				out = append(out, dataTable{filepath.Base(pk) + ":" + f.Path, a.Exports[i].Data, ctx})
			}
		}
		r.Close()
	}
	return out
}

// TestRoundTripCorpus exports every DataTable of the corpus to JSON and
// to CSV, reads each back and applies it: the data must come back byte
// for byte, with no edit.
func TestRoundTripCorpus(t *testing.T) {
	all := corpusTables(t)
	kinds := map[string]int{}
	for _, dt := range all {
		tab, err := props.DecodeDataTable(dt.data, dt.ctx)
		if err != nil {
			t.Errorf("%s: %v", dt.name, err)
			continue
		}
		kind := "tagged"
		if dt.ctx.Schema != nil {
			kind = "unversioned"
		}
		kinds[kind]++
		doc := tables.Export(tab, dt.ctx)
		for _, format := range []string{"json", "csv"} {
			var b bytes.Buffer
			var back *tables.Document
			if format == "json" {
				err = tables.WriteJSON(&b, doc)
				if err == nil {
					back, err = tables.ReadJSON(bytes.NewReader(b.Bytes()))
				}
			} else {
				err = tables.WriteCSV(&b, doc)
				if err == nil {
					back, err = tables.ReadCSV(bytes.NewReader(b.Bytes()))
				}
			}
			if err != nil {
				t.Errorf("%s %s: %v", dt.name, format, err)
				continue
			}
			out, edits, err := tables.Apply(dt.data, dt.ctx, back)
			if err != nil || len(edits) != 0 || !bytes.Equal(out, dt.data) {
				t.Errorf("%s %s: unchanged document: %d edits %v, %v", dt.name, format, len(edits), edits, err)
			}
		}
	}
	for _, dt := range all {
		t.Log(dt.name)
	}
	t.Logf("%d DataTables: %v", len(all), kinds)
	if kinds["tagged"] < 3 || kinds["unversioned"] < 1 {
		t.Errorf("DataTables found: %v; want the Grounded, fixture and unversioned ones", kinds)
	}
}

// flatten returns every value of a table as "row: path" → display.
func flatten(t *testing.T, data []byte, ctx *props.Context) map[string]string {
	t.Helper()
	tab, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var value func(path string, v props.Value)
	value = func(path string, v props.Value) {
		switch x := v.(type) {
		case *props.Struct:
			if x.Tagged != nil {
				for _, p := range x.Tagged.Properties {
					value(path+"."+p.Label(), p.Value)
				}
				return
			}
			if len(x.Native) > 1 {
				for _, f := range x.Native {
					value(path+"."+f.Name, f.Value)
				}
				return
			}
		case *props.Array:
			out[path+".len"] = fmt.Sprint(len(x.Elements))
			for i, e := range x.Elements {
				value(fmt.Sprintf("%s[%d]", path, i), e.Value)
			}
			return
		}
		out[path] = props.Display(v, ctx.ObjectName)
	}
	for _, r := range tab.Rows {
		for _, p := range r.Properties.Properties {
			value(r.Name.Text+": "+p.Label(), p.Value)
		}
	}
	return out
}

// changed returns the keys whose values differ.
func changed(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			d = append(d, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k)
		}
	}
	sort.Strings(d)
	return d
}

// editLines applies edits to a document's text: each old text replaced
// once, lines starting with a prefix in drop removed, add inserted after
// the line starting with after.
func editLines(t *testing.T, text string, repl [][2]string, drop, after, add string) string {
	t.Helper()
	for _, r := range repl {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the document lacks %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if drop != "" && strings.HasPrefix(l, drop) {
			continue
		}
		out = append(out, l)
		if after != "" && strings.HasPrefix(l, after) {
			out = append(out, add)
		}
	}
	return strings.Join(out, "\n")
}

// TestEditDocument edits the fixture DataTable's document, tagged and
// unversioned, in JSON and CSV: two values changed, a row removed and a
// row added; exactly those values change, and the rows not touched keep
// their values. A Grounded recipe's count edited inside its array of
// structs changes only that count.
func TestEditDocument(t *testing.T) {
	all := corpusTables(t)
	pick := func(sub string) dataTable {
		for _, dt := range all {
			if strings.Contains(dt.name, sub) {
				return dt
			}
		}
		t.Fatalf("no DataTable %s", sub)
		return dataTable{}
	}
	type edit struct {
		repl             [][2]string
		drop, after, add string
		want             map[string]string // "row: path" → value after; "" gone
	}
	fixture := map[string]edit{
		"json": {repl: [][2]string{{`"Number": 305419896`, `"Number": 7`}, {`"X": 1.25`, `"X": 9.5`}},
			drop: `    "Beta":`, after: `    "Alpha":`, add: `    "Gamma": {"Number": 5, "Message": "new, row", "Values": [1, 2]},`},
		"csv": {repl: [][2]string{{"Alpha,305419896,", "Alpha,7,"}, {"Position=(X=1.25,", "Position=(X=9.5,"}},
			drop: "Beta,", after: "Alpha,", add: `Gamma,5,,"new, row",,,"(1,2)"`},
	}
	for _, name := range []string{"Zlib-Windows.utoc:DataTables/DT_AllProperties", "Uncompressed-Windows.utoc:/Game/Fixtures/DataTables/DT_AllProperties"} {
		dt := pick(name)
		for format, e := range fixture {
			t.Run(format+" "+name, func(t *testing.T) {
				text := docText(t, dt, format)
				text = editLines(t, text, e.repl, e.drop, e.after, e.add)
				doc := readDoc(t, format, text)
				out, edits, err := tables.Apply(dt.data, dt.ctx, doc)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("edits: %v", edits)
				before, after := flatten(t, dt.data, dt.ctx), flatten(t, out, dt.ctx)
				for _, k := range changed(before, after) {
					switch {
					case k == "Alpha: Number" && after[k] == "7",
						k == "Alpha: Nested.Position.X" && after[k] == "9.5",
						strings.HasPrefix(k, "Beta: ") && after[k] == "",
						strings.HasPrefix(k, "Gamma: "):
					default:
						t.Errorf("%s: %q → %q", k, before[k], after[k])
					}
				}
				for k, v := range map[string]string{"Gamma: Number": "5", "Gamma: Message": `"new, row"`, "Gamma: Values[1]": "2", "Gamma: Values.len": "2"} {
					if after[k] != v {
						t.Errorf("%s = %q, want %q", k, after[k], v)
					}
				}
				tab, err := props.DecodeDataTable(out, dt.ctx)
				if err != nil {
					t.Fatal(err)
				}
				var rows []string
				for _, r := range tab.Rows {
					rows = append(rows, r.Name.Text)
				}
				if strings.Join(rows, ",") != "Alpha,Defaults,Gamma" {
					t.Errorf("rows %v", rows)
				}
				// The document applied again changes nothing.
				if again, edits, err := tables.Apply(out, dt.ctx, readDoc(t, format, text)); err != nil || len(edits) != 0 || !bytes.Equal(again, out) {
					t.Errorf("applied again: %v %v", edits, err)
				}
			})
		}
	}
	// Grounded: a count inside an array of structs.
	dt := pick("Table_Crafting_Tools")
	for format, repl := range map[string][2]string{
		"json": {`"RowName": "Twig"}, "ItemCount": 3}`, `"RowName": "Twig"}, "ItemCount": 1}`},
		"csv":  {`RowName=Twig),ItemCount=3)`, `RowName=Twig),ItemCount=1)`},
	} {
		t.Run(format+" grounded", func(t *testing.T) {
			text := editLines(t, docText(t, dt, format), [][2]string{repl}, "", "", "")
			out, _, err := tables.Apply(dt.data, dt.ctx, readDoc(t, format, text))
			if err != nil {
				t.Fatal(err)
			}
			d := changed(flatten(t, dt.data, dt.ctx), flatten(t, out, dt.ctx))
			if len(d) != 1 || d[0] != "Axe: Requirements[0].ItemCount" {
				t.Errorf("changed %v, want Axe: Requirements[0].ItemCount", d)
			}
		})
	}
}

func docText(t *testing.T, dt dataTable, format string) string {
	t.Helper()
	tab, err := props.DecodeDataTable(dt.data, dt.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if format == "json" {
		err = tables.WriteJSON(&b, tables.Export(tab, dt.ctx))
	} else {
		err = tables.WriteCSV(&b, tables.Export(tab, dt.ctx))
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func readDoc(t *testing.T, format, text string) *tables.Document {
	t.Helper()
	var doc *tables.Document
	var err error
	if format == "json" {
		doc, err = tables.ReadJSON(strings.NewReader(text))
	} else {
		doc, err = tables.ReadCSV(strings.NewReader(text))
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return doc
}

// TestCSVArrayForms checks that a CSV array cell is read in the editor's
// form, (1,2), and in the bracket form of props, [1,2]: the same array in
// either form is no edit, and another array in either form sets it.
func TestCSVArrayForms(t *testing.T) {
	var dt dataTable
	for _, d := range corpusTables(t) {
		if strings.Contains(d.name, "Zlib-Windows.utoc:DataTables/DT_AllProperties") {
			dt = d
		}
	}
	if dt.data == nil {
		t.Fatal("no DT_AllProperties")
	}
	text := docText(t, dt, "csv")
	if !strings.Contains(text, `"(11,22,33,44)"`) {
		t.Fatalf("the CSV does not write the array in the editor's form:\n%s", text)
	}
	for _, tc := range []struct {
		cell  string
		edits int
	}{
		{`"[11,22,33,44]"`, 0},
		{`"(11,22,33,45)"`, 1},
		{`"[11,22,33,46]"`, 1},
	} {
		doc := readDoc(t, "csv", strings.Replace(text, `"(11,22,33,44)"`, tc.cell, 1))
		_, edits, err := tables.Apply(dt.data, dt.ctx, doc)
		if err != nil {
			t.Fatalf("%s: %v", tc.cell, err)
		}
		if len(edits) != tc.edits {
			t.Errorf("%s: %d edits %v, want %d", tc.cell, len(edits), edits, tc.edits)
		}
	}
}
