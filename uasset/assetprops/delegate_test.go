package assetprops_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/usmap"
)

// TestCookedDelegates reads every delegate, multicast delegate and field
// path of the fixture project's legacy paks (tagged, and unversioned with
// its mappings): each is the model of its type, shown with its names and
// its objects by path, and its export encodes back byte for byte.
func TestCookedDelegates(t *testing.T) {
	m := fixtureMappings(t)["CUE4ParseFixtures-Zstandard.usmap"]
	paks := map[string]*usmap.Mappings{}
	for _, f := range corpusGlob(t, "pak/cue4parse_ue5_8/LegacyPak/Unversioned/*/*.pak") {
		paks[f] = m
	}
	for _, rel := range taggedPaks {
		paks[corpus.Path(t, rel)] = nil
	}
	for file, m := range paks {
		rel, _ := filepath.Rel(corpus.Dir(t), file)
		kinds := map[string]int{}
		for _, a := range readPak(t, filepath.ToSlash(rel)) {
			p := decodeAsset(t, a)
			r := assetprops.NewResolver(p, "")
			for i := range p.Exports {
				x, err := assetprops.DecodeExportWith(p, i, m)
				if err != nil {
					continue
				}
				found := false
				visit(x.Properties, func(q *props.Property, v props.Value) {
					found = true
					kinds[q.Type.Name.Text]++
					what := a.name + " " + r.ExportPath(i) + " " + q.Label()
					text := props.Display(v, r.Name)
					switch x := v.(type) {
					case *props.Delegate:
						if x.Object == 0 || !strings.Contains(text, r.Name(int32(x.Object))+"."+x.Function.Text) {
							t.Errorf("%s: delegate %+v shown as %q", what, x, text)
						}
					case *props.MulticastDelegate:
						if len(x.Delegates) == 0 || !strings.Contains(text, "."+x.Delegates[0].Function.Text) {
							t.Errorf("%s: multicast delegate %+v shown as %q", what, x, text)
						}
					case *props.FieldPath:
						if x.Owner == nil || len(x.Path) == 0 || text != r.Name(int32(*x.Owner))+":"+x.Path[0].Text {
							t.Errorf("%s: field path %+v shown as %q", what, x, text)
						}
					default:
						t.Errorf("%s: %s value is %T, not the names it holds", what, q.Type, v)
					}
				})
				if !found {
					continue
				}
				var out []byte
				if x.Table != nil {
					out, err = props.EncodeTable(x.Table, x.Context)
				} else {
					out, err = props.Encode(x.Properties, x.Context)
				}
				if err != nil || !bytes.Equal(out, p.Exports[i].Data) {
					t.Errorf("%s export %d: encode: %v", a.name, i, err)
				}
			}
		}
		t.Logf("%s: %v", filepath.Base(file), kinds)
		checkDocument(t, filepath.ToSlash(rel), m)
		if len(kinds) < 3 {
			t.Errorf("%s: delegate and field path kinds read: %v; want a delegate, a multicast delegate and a field path", rel, kinds)
		}
	}
}

// visit calls fn for every delegate or field path property of l, in
// structs too.
func visit(l *props.List, fn func(*props.Property, props.Value)) {
	for _, q := range l.Properties {
		if t := q.Type.Name.Text; t == "FieldPathProperty" || strings.HasSuffix(t, "DelegateProperty") {
			fn(q, q.Value)
		}
		if s, ok := q.Value.(*props.Struct); ok && s.Tagged != nil {
			visit(s.Tagged, fn)
		}
	}
}

// checkDocument checks the `props --json` document of every asset of the
// pak: a delegate's fields are Object (a path) and FunctionName, a
// multicast delegate's elements are such delegates, a field path's value
// is its text; none is shown as bytes.
func checkDocument(t *testing.T, rel string, m *usmap.Mappings) {
	t.Helper()
	seen := 0
	var check func(where string, e report.Property)
	checkDelegate := func(where string, fs []report.Property) {
		if len(fs) != 2 || fs[0].Name != "Object" || fs[1].Name != "FunctionName" ||
			!strings.Contains(fs[0].Value, "/") || fs[1].Value == "" || strings.HasPrefix(fs[1].Value, "0x") {
			t.Errorf("%s: delegate fields %+v", where, fs)
		}
	}
	check = func(where string, e report.Property) {
		where += " " + e.Name
		switch {
		case e.Type == "DelegateProperty":
			seen++
			checkDelegate(where, e.Fields)
		case strings.HasPrefix(e.Type, "Multicast"):
			seen++
			if len(e.Elements) == 0 {
				t.Errorf("%s: no delegates", where)
			}
			for _, el := range e.Elements {
				checkDelegate(where+el.Name, el.Fields)
			}
		case e.Type == "FieldPathProperty":
			seen++
			if !strings.Contains(e.Value, ":") || strings.HasPrefix(e.Value, "0x") {
				t.Errorf("%s: field path shown as %q", where, e.Value)
			}
		}
		for _, f := range e.Fields {
			check(where, f)
		}
	}
	for _, a := range readPak(t, rel) {
		p := decodeAsset(t, a)
		d, err := report.NewCookedProperties(p.FileName, p, "", everyExport(len(p.Exports)), true, "", m)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		for _, x := range d.Exports {
			for _, e := range x.Properties {
				check(a.name+" "+x.Path, e)
			}
		}
	}
	if seen < 3 {
		t.Errorf("%s: %d delegates and field paths in the documents", rel, seen)
	}
}
