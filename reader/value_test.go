package reader_test

import (
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// valuePackage builds a package whose export "Props" holds one property of
// every simple type.
func valuePackage(t *testing.T) *reader.Package {
	t.Helper()
	b := fixture.New("ValTest", reader.Version{File: 69}, fixture.DemoGUID)
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	group := b.Group("Skins", 0)
	tex := b.Export(b.Class("Engine", "Palette"), group, "Pal", flags, b.Palette(4))
	actor := b.Class("Engine", "Actor")
	props := b.Props().
		Int("Count", -42).
		IntAt("Slots", 3, 7).
		Float("Gravity", -950.5).
		Float("Tiny", 1e-10).
		Bool("bOn", true).
		Bool("bOff", false).
		Byte("Mode", 200).
		NameValue("Tag", "Hello").
		Object("Skin", tex).
		Object("Class", actor).
		Object("Owner", 0).
		Str("Title", "Facing Worlds").
		Str("Latin", "Größe").
		Str("Wide", "日本語").
		Str("Empty", "").
		Bytes()
	b.Export(actor, 0, "Props", flags, props)
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("ValTest.u", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPropertyValueFixture(t *testing.T) {
	p := valuePackage(t)
	refs := p.Lookup("ValTest.Props")
	if len(refs) != 1 {
		t.Fatalf("Lookup: %v", refs)
	}
	i, _ := refs[0].Export()
	l, err := p.Properties(i)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		index int
		typ   reader.PropertyType
		text  string
		check func(v reader.Value) bool
	}{
		{"Count", 0, reader.PropInt, "-42", func(v reader.Value) bool { return v.Int == -42 }},
		{"Slots", 3, reader.PropInt, "7", func(v reader.Value) bool { return v.Int == 7 }},
		{"Gravity", 0, reader.PropFloat, "-950.5", func(v reader.Value) bool { return v.Float == -950.5 }},
		{"Tiny", 0, reader.PropFloat, "1e-10", func(v reader.Value) bool { return v.Float == 1e-10 }},
		{"bOn", 0, reader.PropBool, "True", func(v reader.Value) bool { return v.Bool }},
		{"bOff", 0, reader.PropBool, "False", func(v reader.Value) bool { return !v.Bool }},
		{"Mode", 0, reader.PropByte, "200", func(v reader.Value) bool { return v.Byte == 200 }},
		{"Tag", 0, reader.PropName, "Hello", func(v reader.Value) bool { return p.NameOf(v.Name) == "Hello" }},
		{"Skin", 0, reader.PropObject, "Palette'ValTest.Skins.Pal'", func(v reader.Value) bool { return v.Object > 0 }},
		{"Class", 0, reader.PropObject, "Class'Engine.Actor'", func(v reader.Value) bool { return v.Object < 0 }},
		{"Owner", 0, reader.PropObject, "None", func(v reader.Value) bool { return v.Object == 0 }},
		{"Title", 0, reader.PropStr, `"Facing Worlds"`, func(v reader.Value) bool { return v.Str == "Facing Worlds" }},
		{"Latin", 0, reader.PropStr, `"Größe"`, func(v reader.Value) bool { return v.Str == "Größe" }},
		{"Wide", 0, reader.PropStr, `"日本語"`, func(v reader.Value) bool { return v.Str == "日本語" }},
		{"Empty", 0, reader.PropStr, `""`, func(v reader.Value) bool { return v.Str == "" }},
	}
	if len(l.Props) != len(tests) {
		t.Errorf("%d properties, want %d", len(l.Props), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := l.Find(p, tt.name, tt.index)
			if q == nil {
				t.Fatalf("property %s[%d] not found", tt.name, tt.index)
			}
			v, err := p.PropertyValue(i, q)
			if err != nil {
				t.Fatal(err)
			}
			if v.Type != tt.typ || v.StructName != -1 || v.Raw != nil {
				t.Errorf("value %+v: want type %s, no struct name, no raw bytes", v, tt.typ)
			}
			if !tt.check(v) {
				t.Errorf("decoded %+v", v)
			}
			if got := p.FormatValue(v); got != tt.text {
				t.Errorf("FormatValue = %q, want %q", got, tt.text)
			}
		})
	}
}

// handmade returns a package model with one export whose data is data; the
// names are the given ones after None.
func handmade(data []byte, names ...string) *reader.Package {
	p := &reader.Package{FileName: "Hand.u", Name: "Hand"}
	for _, n := range append([]string{"None", "Obj"}, names...) {
		p.Names = append(p.Names, reader.Name{Name: n, Flags: reader.NewNameFlags})
	}
	p.Imports = []reader.Import{{ClassPackage: 0, ClassName: 0, ObjectName: 1}}
	p.Exports = []reader.Export{{Class: -1, ObjectName: 1, SerialOffset: 0x100, SerialSize: int32(len(data)), Data: data}}
	return p
}

func name(p *reader.Package, s string) reader.NameRef {
	r := p.FindName(s)
	if r < 0 {
		panic("no name " + s)
	}
	return r
}

// tagged appends one property tag with a raw value.
func tagged(t *testing.T, dst []byte, tag writer.PropertyTag, value []byte) []byte {
	t.Helper()
	out, err := writer.AppendPropertyTag(dst, tag, value)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func f32s(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func TestPropertyValueStructsAndRaw(t *testing.T) {
	names := []string{"Loc", "Vector", "Rot", "Rotator", "Col", "Color", "Reg", "PointRegion", "Short", "Arr", "Fixed", "Big"}
	p := handmade(nil, names...)
	n := func(s string) reader.NameRef { return name(p, s) }
	big := make([]byte, 40)
	for k := range big {
		big[k] = byte(k)
	}
	var d []byte
	d = tagged(t, d, writer.PropertyTag{Name: n("Loc"), Type: reader.PropStruct, StructName: n("Vector")}, f32s(1, -2.5, 3))
	d = tagged(t, d, writer.PropertyTag{Name: n("Rot"), Type: reader.PropStruct, StructName: n("Rotator")},
		binio.AppendI32(binio.AppendI32(binio.AppendI32(nil, 0), 16384), -1))
	d = tagged(t, d, writer.PropertyTag{Name: n("Col"), Type: reader.PropStruct, StructName: n("Color")}, []byte{255, 128, 0, 7})
	d = tagged(t, d, writer.PropertyTag{Name: n("Reg"), Type: reader.PropStruct, StructName: n("PointRegion")}, []byte{1, 0xff, 0xff, 0xff, 0xff, 0})
	d = tagged(t, d, writer.PropertyTag{Name: n("Short"), Type: reader.PropStruct, StructName: n("Vector")}, []byte{1, 2, 3, 4})
	d = tagged(t, d, writer.PropertyTag{Name: n("Arr"), Type: reader.PropArray}, []byte{2, 9, 8})
	d = tagged(t, d, writer.PropertyTag{Name: n("Big"), Type: reader.PropFixedArray}, big)
	d = binio.AppendIndex(d, 0)
	p.Exports[0].Data = d
	l, err := p.Properties(0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Loc":   "(X=1,Y=-2.5,Z=3)",
		"Rot":   "(Pitch=0,Yaw=16384,Roll=-1)",
		"Col":   "(R=255,G=128,B=0,A=7)",
		"Reg":   "(Zone=Obj'Hand.Obj',iLeaf=-1,ZoneNumber=0)",
		"Short": "0x01020304",
		"Arr":   "0x020908",
		"Big":   "0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f… (40 bytes)",
	}
	if len(l.Props) != len(want) {
		t.Fatalf("%d properties, want %d", len(l.Props), len(want))
	}
	for k := range l.Props {
		q := &l.Props[k]
		v, err := p.PropertyValue(0, q)
		if err != nil {
			t.Fatal(err)
		}
		if string(v.Raw) != string(q.Value(p.Exports[0].Data)) {
			t.Errorf("%s: raw %x, want the value bytes", p.NameOf(q.Name), v.Raw)
		}
		if (q.Type == reader.PropStruct) != (v.StructName >= 0) {
			t.Errorf("%s: struct name %d", p.NameOf(q.Name), v.StructName)
		}
		if got := p.FormatValue(v); got != want[p.NameOf(q.Name)] {
			t.Errorf("%s: %q, want %q", p.NameOf(q.Name), got, want[p.NameOf(q.Name)])
		}
	}
}

func TestPropertyValueErrors(t *testing.T) {
	p := handmade(nil, "P")
	pn := name(p, "P")
	tests := []struct {
		name  string
		typ   reader.PropertyType
		value []byte
		want  string
	}{
		{"byte of 2 bytes", reader.PropByte, []byte{1, 2}, "Byte value has 2 bytes, want 1"},
		{"int of 2 bytes", reader.PropInt, []byte{1, 2}, "Int value has 2 bytes, want 4"},
		{"float of 5 bytes", reader.PropFloat, []byte{1, 2, 3, 4, 5}, "Float value has 5 bytes, want 4"},
		{"name out of range", reader.PropName, []byte{0x3F}, "name index 63 out of range"},
		{"negative name", reader.PropName, []byte{0x81}, "name index -1 out of range"},
		{"name with slack", reader.PropName, []byte{0x01, 0x00}, "uses 1 of its 2 bytes"},
		{"truncated name index", reader.PropName, []byte{0x41}, "compact index"},
		{"export out of range", reader.PropObject, []byte{0x05}, "export 4 out of range"},
		{"object with slack", reader.PropObject, []byte{0x85, 0x00}, "uses 1 of its 2 bytes"},
		{"import index out of range", reader.PropObject, []byte{0x82}, "import 1 out of range"},
		{"str with slack", reader.PropStr, []byte{0x02, 'a', 0, 0}, "uses 3 of its 4 bytes"},
		{"str unterminated", reader.PropStr, []byte{0x02, 'a', 'b'}, "not zero-terminated"},
		{"str too long", reader.PropStr, []byte{0x05, 'a', 0}, "need 5 bytes"},
		{"utf16 odd", reader.PropStr, []byte{0x82, 'a', 0, 'b'}, "UTF-16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tagged(t, nil, writer.PropertyTag{Name: pn, Type: tt.typ}, tt.value)
			p.Exports[0].Data = binio.AppendIndex(d, 0)
			l, err := p.Properties(0)
			if err != nil || len(l.Props) != 1 {
				t.Fatalf("Properties: %v, %v", l, err)
			}
			_, err = p.PropertyValue(0, &l.Props[0])
			var fe *reader.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want a *reader.FormatError", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(fe.Struct, `export 0 "Obj" property P`) {
				t.Errorf("error %q: want %q and the export and property", err, tt.want)
			}
			valueAt := int64(0x100 + l.Props[0].ValueStart)
			if fe.Offset < valueAt || fe.Offset > valueAt+int64(len(tt.value)) {
				t.Errorf("offset 0x%X outside the value at 0x%X", fe.Offset, valueAt)
			}
		})
	}
	// A property whose bounds lie outside the data, and a bad export index.
	q := &reader.Property{Name: pn, Type: reader.PropInt, ValueStart: 1, Size: 4}
	p.Exports[0].Data = []byte{0, 0}
	if _, err := p.PropertyValue(0, q); err == nil || !strings.Contains(err.Error(), "runs past") {
		t.Errorf("value past the data: %v", err)
	}
	if _, err := p.PropertyValue(3, q); err == nil {
		t.Errorf("export 3 of 1: no error")
	}
}

func TestFormatValueEdges(t *testing.T) {
	p := handmade(nil, "Vector")
	tests := []struct {
		v    reader.Value
		want string
	}{
		{reader.Value{Type: reader.PropInt, Int: math.MinInt32}, "-2147483648"},
		{reader.Value{Type: reader.PropFloat, Float: float32(math.Inf(-1))}, "-Inf"},
		{reader.Value{Type: reader.PropFloat, Float: 0.1}, "0.1"},
		{reader.Value{Type: reader.PropStr, Str: "a\"b\n"}, `"a\"b\n"`},
		{reader.Value{Type: reader.PropName, Name: 99}, "<bad name 99>"},
		{reader.Value{Type: reader.PropObject, Object: 9}, "<bad object 9>"},
		{reader.Value{Type: reader.PropObject, Object: -1}, "None'Obj'"},
		{reader.Value{Type: reader.PropObject, Object: 1}, "Obj'Hand.Obj'"},
		{reader.Value{Type: reader.PropStruct, StructName: 99, Raw: []byte{1}}, "0x01"},
		{reader.Value{Type: reader.PropStruct, StructName: name(p, "Vector"), Raw: f32s(0.5, 0, -0)}, "(X=0.5,Y=0,Z=0)"},
		{reader.Value{Type: reader.PropMap}, "0x"},
		{reader.Value{Type: reader.PropString, Raw: make([]byte, 32)}, "0x" + strings.Repeat("00", 32)},
	}
	for _, tt := range tests {
		if got := p.FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%+v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestPropertyValueCTFFace(t *testing.T) {
	p, err := reader.ReadFile(corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr"))
	if err != nil {
		t.Fatal(err)
	}
	refs := p.Lookup("CTF-Face.LevelInfo0")
	if len(refs) != 1 {
		t.Fatalf("LevelInfo0: %v", refs)
	}
	i, _ := refs[0].Export()
	l, err := p.Properties(i)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		typ  reader.PropertyType
		want string
	}{
		{"Title", reader.PropStr, `"Facing Worlds"`},
		{"Author", reader.PropStr, `"Cedric 'Inoxx' Fiorentino"`},
		{"RecommendedEnemies", reader.PropInt, "2"},
		{"Brightness", reader.PropFloat, "1.5"},
		{"bHighDetailMode", reader.PropBool, "False"},
		{"AmbientBrightness", reader.PropByte, "4"},
		{"Tag", reader.PropName, "LevelInfo"},
		{"Song", reader.PropObject, "Music'Foregone.Foregone'"},
		{"Screenshot", reader.PropObject, "Texture'CTF-Face.Screenshot'"},
		{"DefaultGameType", reader.PropObject, "Class'Botpack.CTFGame'"},
		{"Location", reader.PropStruct, "(X=-19899,Y=-2642,Z=-32767)"},
		{"Rotation", reader.PropStruct, "(Pitch=0,Yaw=16384,Roll=0)"},
	}
	for _, tt := range tests {
		q := l.Find(p, tt.name, 0)
		if q == nil {
			t.Errorf("LevelInfo0 has no %s", tt.name)
			continue
		}
		v, err := p.PropertyValue(i, q)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if v.Type != tt.typ || p.FormatValue(v) != tt.want {
			t.Errorf("%s = %s %s, want %s %s", tt.name, v.Type, p.FormatValue(v), tt.typ, tt.want)
		}
	}
	if q := l.Find(p, "Title", 0); q != nil {
		if v, _ := p.PropertyValue(i, q); !strings.HasPrefix(v.Str, "Facing Worlds") {
			t.Errorf("Title %q", v.Str)
		}
	}
}

// TestPropertyValueCorpus decodes every property of every non-class export
// in the corpus: the simple types must decode without error.
func TestPropertyValueCorpus(t *testing.T) {
	for _, file := range corpus.Legacy(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, err := reader.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[reader.PropertyType]int{}
			for i := range p.Exports {
				if p.Exports[i].Class == 0 {
					continue
				}
				l, err := p.Properties(i)
				if err != nil {
					t.Errorf("%s: %v", p.ExportPath(i), err)
					continue
				}
				for k := range l.Props {
					q := &l.Props[k]
					v, err := p.PropertyValue(i, q)
					if err != nil {
						t.Errorf("%v", err)
						continue
					}
					counts[q.Type]++
					if s := p.FormatValue(v); s == "" || strings.Contains(s, "<bad") {
						t.Errorf("%s %s: formatted %q", p.ExportPath(i), p.NameOf(q.Name), s)
					}
				}
			}
			base := filepath.Base(file)
			if base == "CTF-Face.unr" || base == "Entry.unr" {
				for _, typ := range []reader.PropertyType{reader.PropInt, reader.PropFloat, reader.PropBool, reader.PropByte,
					reader.PropName, reader.PropObject, reader.PropStruct} {
					if counts[typ] == 0 {
						t.Errorf("no %s properties decoded", typ)
					}
				}
			}
		})
	}
}
