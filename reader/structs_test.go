package reader_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

func TestStructFields(t *testing.T) {
	names := []string{"Vector", "Plane", "Sphere", "Scale", "Box", "Coords", "Guid", "Range", "RangeVector", "PointRegion", "Color", "Rotator",
		"Mystery", "Inner", "Size", "Tint"}
	i32 := func(vs ...int32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		return b
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for _, c := range []struct {
		version reader.Version
		name    string
		raw     func(p *reader.Package) []byte
		want    string // "" when not decoded
	}{
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2.5, -3) }, "(X=1,Y=2.5,Z=-3)"},
		{reader.Version{File: 69}, "Plane", func(*reader.Package) []byte { return f32s(0, 0, 1, 64) }, "(X=0,Y=0,Z=1,W=64)"},
		{reader.Version{File: 69}, "Sphere", func(*reader.Package) []byte { return f32s(1, 2, 3, 4) }, "(X=1,Y=2,Z=3,W=4)"},
		{reader.Version{File: 61}, "Sphere", func(*reader.Package) []byte { return f32s(1, 2, 3) }, "(X=1,Y=2,Z=3)"},
		{reader.Version{File: 69}, "Scale", func(*reader.Package) []byte { return cat(f32s(1, 1, 2, 0), []byte{5}) },
			"(Scale=(X=1,Y=1,Z=2),SheerRate=0,SheerAxis=5)"},
		{reader.Version{File: 69}, "Box", func(*reader.Package) []byte { return cat(f32s(-1, -1, -1, 1, 1, 1), []byte{1}) },
			"(Min=(X=-1,Y=-1,Z=-1),Max=(X=1,Y=1,Z=1),IsValid=1)"},
		{reader.Version{File: 69}, "Coords", func(*reader.Package) []byte { return f32s(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1) },
			"(Origin=(X=0,Y=0,Z=0),XAxis=(X=1,Y=0,Z=0),YAxis=(X=0,Y=1,Z=0),ZAxis=(X=0,Y=0,Z=1))"},
		// A Color is R, G, B, A in UE1 and B, G, R, A in UE2; shown R first.
		{reader.Version{File: 69}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3, 4} }, "(R=1,G=2,B=3,A=4)"},
		{reader.Version{File: 99}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3, 4} }, "(R=1,G=2,B=3,A=4)"},
		{reader.Version{File: 100}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3, 4} }, "(R=3,G=2,B=1,A=4)"},
		{reader.Version{File: 128, Licensee: 29}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3, 4} }, "(R=3,G=2,B=1,A=4)"},
		{reader.Version{File: 128}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3} }, ""},
		{reader.Version{File: 69}, "Guid", func(*reader.Package) []byte { return i32(1, 2, 3, -4) }, "(A=1,B=2,C=3,D=-4)"},
		{reader.Version{File: 69}, "RangeVector", func(*reader.Package) []byte { return f32s(0, 1, 2, 3, 4, 5) },
			"(X=(Min=0,Max=1),Y=(Min=2,Max=3),Z=(Min=4,Max=5))"},
		{reader.Version{File: 69}, "PointRegion", func(*reader.Package) []byte { return cat([]byte{0x01}, i32(7), []byte{2}) },
			"(Zone=Obj'Hand.Obj',iLeaf=7,ZoneNumber=2)"},
		{reader.Version{File: 69}, "PointRegion", func(*reader.Package) []byte { return cat([]byte{0x85}, i32(7), []byte{2}) }, ""}, // import out of range
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2) }, ""},                                // short
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2, 3, 4) }, ""},                          // long
		{reader.Version{File: 69}, "Mystery", func(*reader.Package) []byte { return []byte{1, 2, 3} }, ""},                          // unknown layout
		// From version 118 structs that are no atomic struct are tag lists.
		{reader.Version{File: 128, Licensee: 29}, "Mystery", func(p *reader.Package) []byte {
			d := tagged(t, nil, writer.PropertyTag{Name: name(p, "Size"), Type: reader.PropInt}, i32(3))
			d = tagged(t, d, writer.PropertyTag{Name: name(p, "Tint"), Type: reader.PropStruct, StructName: name(p, "Color")}, []byte{1, 2, 3, 4})
			d = tagged(t, d, writer.PropertyTag{Name: name(p, "Size"), Type: reader.PropInt, ArrayIndex: 2}, i32(9))
			return binio.AppendIndex(d, 0)
		}, "(Size=3,Tint=(R=3,G=2,B=1,A=4),Size[2]=9)"}, // UE2 stores a Color B, G, R, A
		{reader.Version{File: 128, Licensee: 29}, "Mystery", func(*reader.Package) []byte { return []byte{5, 2} }, ""}, // runs past its end
		{reader.Version{File: 69}, "Inner", func(p *reader.Package) []byte { return binio.AppendIndex(nil, 0) }, ""},   // no tags before 118
	} {
		t.Run(c.version.String()+"/"+c.name, func(t *testing.T) {
			p := handmade(nil, names...)
			p.Header.Version = c.version
			v := reader.Value{Type: reader.PropStruct, StructName: name(p, c.name), Raw: c.raw(p)}
			fields, ok := p.StructFields(v)
			if ok != (c.want != "") {
				t.Fatalf("decoded %v: %+v", ok, fields)
			}
			got := p.FormatValue(v)
			if c.want == "" {
				if !strings.HasPrefix(got, "0x") {
					t.Errorf("FormatValue = %q, want hex", got)
				}
				return
			}
			if got != c.want || p.FormatFields(fields) != c.want {
				t.Errorf("FormatValue = %q, want %q", got, c.want)
			}
		})
	}
}
