package assetprops_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ue"
)

// nativeStructs are the engine structs with their own serializers that the
// fixture project's unversioned packages hold (each must be found), and
// others read the same way that they may hold.
var nativeStructs = map[string]bool{
	"MovieSceneFrameRange": true, "MovieSceneTimeWarpVariant": true, "MovieSceneFloatChannel": true,
	"NiagaraVariableBase": true, "InstancedStruct": true, "FontCharacter": true,
	"MovieSceneEvaluationFieldEntityTree": true, "MovieSceneSequenceID": true, "NiagaraVariableWithOffset": true,
	"MidiEvent": true, "PerPlatformFloat": true, "RigVMPropertyBag": true,
	"MovieSceneSubSequenceTree": false, "FontData": false, "SkeletalMeshSamplingLODBuiltData": false,
	"MovieSceneDoubleChannel": false, "NiagaraVariable": false, "PerPlatformInt": false,
}

func isNative(name string) bool {
	_, ok := nativeStructs[name]
	return ok
}

// decoded is an export's decoded list and the data it was read from.
type decoded struct {
	l    *props.List
	data []byte
}

// taggedExports decodes every export of the tagged zen container, by
// package name and export path.
func taggedExports(tb testing.TB) map[string]decoded {
	script, err := iostore.LoadScriptObjects(corpus.Path(tb, taggedGlobal), nil)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := iostore.Open(corpus.Path(tb, taggedContainer), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	r := c.Resolver(script)
	out := map[string]decoded{}
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			tb.Fatal(err)
		}
		for j := range p.Exports {
			if x, err := zenprops.DecodeExport(p, r, j); err == nil {
				out[p.ExportPath(j)] = decoded{x.Properties, p.Exports[j].Data}
			}
		}
	}
	return out
}

// nativeCheck compares the native structs of an unversioned list with
// those at the same place in the tagged twin.
type nativeCheck struct {
	t     *testing.T
	where string
	u, g  []byte // unversioned and tagged data
	found map[string]int
}

func (nc *nativeCheck) list(path string, u, g *props.List) {
	for _, p := range u.Properties {
		if p.Zero {
			continue // no bytes stored
		}
		q := g.Find(p.Name.Text, p.ArrayIndex)
		if q == nil {
			nc.t.Errorf("%s: %s%s is not in the tagged twin", nc.where, path, p.Label())
			continue
		}
		nc.value(path+p.Label(), p.Value, q.Value)
		if s, ok := p.Value.(*props.Struct); ok && isNative(s.Type) && !nested(s) && int(q.Size) != s.Size {
			nc.t.Errorf("%s: %s%s: %d bytes read; the tag says %d", nc.where, path, p.Label(), s.Size, q.Size)
		}
	}
}

func (nc *nativeCheck) value(path string, u, g props.Value) {
	switch x := u.(type) {
	case *props.Struct:
		y, ok := g.(*props.Struct)
		if !ok {
			nc.t.Errorf("%s: %s is a %T in the tagged twin", nc.where, path, g)
			return
		}
		if isNative(x.Type) {
			nc.native(path, x, y)
		}
		switch {
		case x.Tagged != nil && y.Tagged != nil:
			nc.list(path+".", x.Tagged, y.Tagged)
		case x.Native != nil:
			for i, f := range x.Native {
				if i < len(y.Native) {
					nc.value(path+"."+f.Name, f.Value, y.Native[i].Value)
				}
			}
		}
	case *props.Array:
		y, ok := g.(*props.Array)
		if !ok || len(y.Elements) != len(x.Elements) {
			nc.t.Errorf("%s: %s is %v in the tagged twin", nc.where, path, props.Display(g, nil))
			return
		}
		for i, e := range x.Elements {
			nc.value(fmt.Sprintf("%s[%d]", path, i), e.Value, y.Elements[i].Value)
		}
	}
}

// nested reports whether a native struct holds a property list, whose
// bytes are tagged in one package and unversioned in the other.
func nested(s *props.Struct) bool {
	for _, f := range s.Native {
		if f.Sized {
			return true // sized data: a property list, or kept as its bytes
		}
		if v, ok := f.Value.(*props.Struct); ok && (v.Tagged != nil || nested(v)) {
			return true
		}
		if a, ok := f.Value.(*props.Array); ok {
			for _, e := range a.Elements {
				if v, ok := e.Value.(*props.Struct); ok && nested(v) {
					return true
				}
			}
		}
	}
	return false
}

// native checks one native struct: the same size as the tagged twin's
// (unless it nests a property list, tagged in one package and unversioned
// in the other) and the same fields with the same bytes, names compared by
// their text (each package has its own name map) and object references
// left to the documents' comparison.
func (nc *nativeCheck) native(path string, u, g *props.Struct) {
	nc.found[u.Type]++
	if !nested(u) && u.Size != g.Size {
		nc.t.Errorf("%s: %s (%s): %d bytes; the tagged twin has %d", nc.where, path, u.Type, u.Size, g.Size)
	}
	if u.Native == nil {
		nc.t.Errorf("%s: %s (%s) is not read field by field", nc.where, path, u.Type)
		return
	}
	nc.fields(path, u, g)
}

func (nc *nativeCheck) fields(path string, u, g *props.Struct) {
	if len(u.Native) != len(g.Native) {
		nc.t.Errorf("%s: %s (%s): %d fields; the tagged twin has %d", nc.where, path, u.Type, len(u.Native), len(g.Native))
		return
	}
	for i, f := range u.Native {
		h := g.Native[i]
		if f.Name != h.Name {
			nc.t.Errorf("%s: %s (%s): field %s; the tagged twin has %s", nc.where, path, u.Type, f.Name, h.Name)
			continue
		}
		nc.field(path+"."+f.Name, u.Type, f.Value, h.Value, f.Offset, f.Size, h.Offset, h.Size, f.Sized)
	}
}

func (nc *nativeCheck) field(path, typ string, a, b props.Value, ao, as, bo, bs int, sized bool) {
	switch x := a.(type) {
	case *props.Struct:
		if y, ok := b.(*props.Struct); ok && x.Tagged == nil && y.Tagged == nil {
			nc.fields(path, x, y)
		}
		return // a nested list: its document is compared
	case *props.Array:
		y, ok := b.(*props.Array)
		if !ok || len(x.Elements) != len(y.Elements) {
			nc.t.Errorf("%s: %s (%s): %s; the tagged twin has %s", nc.where, path, typ, props.Display(a, nil), props.Display(b, nil))
			return
		}
		for i, e := range x.Elements {
			f := y.Elements[i]
			nc.field(fmt.Sprintf("%s[%d]", path, i), typ, e.Value, f.Value, e.Offset, e.Size, f.Offset, f.Size, false)
		}
		return
	case props.NameValue:
		if y, ok := b.(props.NameValue); !ok || !strings.EqualFold(x.Text, y.Text) {
			nc.t.Errorf("%s: %s (%s): name %s; the tagged twin has %s", nc.where, path, typ, x.Text, props.Display(b, nil))
		}
		return
	case props.Object:
		return
	}
	if sized {
		return // the size of a nested list
	}
	if x, y := nc.u[ao:ao+as], nc.g[bo:bo+bs]; string(x) != string(y) {
		nc.t.Errorf("%s: %s (%s): %x; the tagged twin has %x", nc.where, path, typ, x, y)
	}
}

// TestUnversionedNativeStructsMatchTags reads every native struct of the
// fixture project's unversioned containers and legacy pak, and checks it
// against its tagged twin, whose tag gives the struct's size and whose
// value is the native bytes: the same size and bytes (or, where the
// struct nests a property list, the same fields and the same bytes around
// it). Every struct of nativeStructs marked true must be found.
func TestUnversionedNativeStructsMatchTags(t *testing.T) {
	tagged := taggedExports(t)
	m := fixtureMappings(t)["CUE4ParseFixtures-Zstandard.usmap"]
	check := func(nc *nativeCheck, path string, l *props.List) {
		g, ok := tagged[path]
		if !ok {
			t.Errorf("%s: no tagged twin", nc.where)
			return
		}
		nc.g = g.data
		nc.list("", l, g.l)
	}
	for _, file := range corpusGlob(t, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc") {
		nc := &nativeCheck{t: t, found: map[string]int{}}
		eachExport(t, file, m, func(p *zen.Package, j int, x *props.Export) {
			nc.where, nc.u = filepath.Base(file)+": "+p.ExportPath(j), p.Exports[j].Data
			check(nc, p.ExportPath(j), x.Properties)
		})
		for name, required := range nativeStructs {
			if required && nc.found[name] == 0 {
				t.Errorf("%s: no %s read", filepath.Base(file), name)
			}
		}
		t.Logf("%s: native structs read as their tagged twins: %v", filepath.Base(file), nc.found)
	}
	for _, file := range corpusGlob(t, "pak/cue4parse_ue5_8/LegacyPak/Unversioned/*/*.pak") {
		rel, _ := filepath.Rel(corpus.Dir(t), file)
		nc := &nativeCheck{t: t, found: map[string]int{}}
		for _, a := range readPak(t, filepath.ToSlash(rel)) {
			p := decodeAsset(t, a)
			d, err := report.NewCookedProperties(p.FileName, p, "", nil, true, "", m)
			if err != nil {
				t.Fatal(err)
			}
			r := assetprops.NewResolver(p, d.Package)
			for i := range p.Exports {
				x, err := assetprops.DecodeExportWith(p, i, m)
				if err != nil {
					continue
				}
				nc.where, nc.u = filepath.Base(file)+": "+r.ExportPath(i), p.Exports[i].Data
				check(nc, r.ExportPath(i), x.Properties)
			}
		}
		if len(nc.found) == 0 {
			t.Errorf("%s: no native struct read", filepath.Base(file))
		}
		t.Logf("%s: native structs read as their tagged twins: %v", filepath.Base(file), nc.found)
	}
}

// TestNativeStructDamaged damages one field of a native struct in an
// unversioned export: the decoder must refuse it with a *ue.FormatError
// that names the struct and the field's offset, without allocating for a
// count it cannot hold.
func TestNativeStructDamaged(t *testing.T) {
	m := fixtureMappings(t)["CUE4ParseFixtures-Zstandard.usmap"]
	xs := unversionedExports(t, m)
	for _, tc := range []struct {
		typ, field string
		value      uint32
		size       int // of the value written at the field; 0: the data ends there
	}{
		{"MovieSceneFrameRange", "UpperBound.Value", 0, 0},
		{"MovieSceneFloatChannel", "DefaultValue", 0, 0},
		{"NiagaraVariableBase", "TypeDef", 0, 0},
		{"MovieSceneFloatChannel", "Times", 0x7FFFFFFF, 4},
		{"MovieSceneFloatChannel", "Values.ElementSize", 29, 4},
		{"MovieSceneEvaluationFieldEntityTree", "ChildNodes.Items", 0xFFFFFFFF, 4},
		{"MovieSceneEvaluationFieldEntityTree", "Data.Entries", 0x10000000, 4},
		{"InstancedStruct", "Data", 0x7FFFFFF0, 4},
		{"MidiEvent", "Message.Type", 3, 1},
		{"RigVMPropertyBag", "Value", 0xFFFFFF00, 4},
		{"SkeletalMeshSamplingLODBuiltData", "AreaWeightedTriangleSampler.Prob", 0x40000000, 4},
	} {
		t.Run(tc.typ+"/"+tc.field, func(t *testing.T) {
			x, f := findNativeField(xs, tc.typ, tc.field)
			if x == nil {
				t.Fatalf("no %s with a field %s in the fixtures", tc.typ, tc.field)
			}
			data := append([]byte(nil), x.Rest...)
			want := int64(f.Offset)
			switch tc.size {
			case 0:
				data = data[:f.Offset+1] // one byte of the field
				if v, ok := f.Value.(*props.Struct); ok && v.Tagged != nil {
					want = -1 // somewhere in the nested list
				}
			case 1:
				data[f.Offset] = byte(tc.value)
			default:
				binary.LittleEndian.PutUint32(data[f.Offset:], tc.value)
			}
			var err error
			if x.Table != nil {
				_, err = props.DecodeDataTable(data, x.Context)
			} else {
				_, err = props.Decode(data, x.Context)
			}
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("decoding with %s.%s = %#x: %v, want a *ue.FormatError", tc.typ, tc.field, tc.value, err)
			}
			if want >= 0 && fe.Offset != want || fe.Offset < int64(f.Offset) || !strings.Contains(fe.Msg, tc.typ) {
				t.Errorf("error %q at %#x; want one naming %s at %#x", err, fe.Offset, tc.typ, f.Offset)
			}
		})
	}
}

// findNativeField returns the first export holding a native struct typ
// with a field named field, and the field.
func findNativeField(xs []*props.Export, typ, field string) (*props.Export, *props.Field) {
	var found *props.Field
	var walk func(v props.Value)
	walk = func(v props.Value) {
		if found != nil {
			return
		}
		switch x := v.(type) {
		case *props.Struct:
			if x.Type == typ {
				if f := x.Field(field); f != nil {
					found = f
					return
				}
			}
			if x.Tagged != nil {
				for _, p := range x.Tagged.Properties {
					walk(p.Value)
				}
			}
			for _, f := range x.Native {
				walk(f.Value)
			}
		case *props.Array:
			for _, e := range x.Elements {
				walk(e.Value)
			}
		}
	}
	for _, x := range xs {
		lists := []*props.List{x.Properties}
		if x.Table != nil {
			lists = nil
			for _, r := range x.Table.Rows {
				lists = append(lists, r.Properties)
			}
		}
		for _, l := range lists {
			for _, p := range l.Properties {
				walk(p.Value)
				if found != nil {
					return x, found
				}
			}
		}
	}
	return nil, nil
}

// TestUnversionedTextDamaged gives a Text of the unversioned fixture data
// asset a history the engine does not have: the decoder must refuse it
// with a *ue.FormatError matching props.ErrNoSchema at the Text.
func TestUnversionedTextDamaged(t *testing.T) {
	m := fixtureMappings(t)["CUE4ParseFixtures-Zstandard.usmap"]
	var text *props.Element
	var x *props.Export
	for _, e := range unversionedExports(t, m) {
		if e.Properties == nil {
			continue
		}
		if p := e.Properties.Find("TextHistories", 0); p != nil {
			if a, ok := p.Value.(*props.Array); ok && len(a.Elements) > 1 {
				x, text = e, &a.Elements[1]
				break
			}
		}
	}
	if text == nil {
		t.Fatal("no unversioned TextHistories array of Texts in the fixtures")
	}
	data := append([]byte(nil), x.Rest...)
	data[text.Offset+4] = 13 // the history type, after the flags
	_, err := props.Decode(data, x.Context)
	var fe *ue.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, props.ErrNoSchema) || fe.Offset != int64(text.Offset) {
		t.Fatalf("a Text of history 13 at %#x: %v", text.Offset, err)
	}
}
