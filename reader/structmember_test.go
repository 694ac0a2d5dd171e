package reader_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// TestStructMember finds members of binary and tagged struct values: the
// span's bytes are the member's, nested members count from the outer
// value's start, a Color's members follow the version's byte order, and a
// member that is not there is refused naming the ones there are.
func TestStructMember(t *testing.T) {
	names := []string{"Vector", "Box", "Color", "PointRegion", "Mystery", "Size", "Tint"}
	for _, c := range []struct {
		version reader.Version
		name    string
		raw     func(p *reader.Package) []byte
		path    string
		offset  int
		size    int
		typ     reader.PropertyType
		err     string
	}{
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2, 3) }, "Z", 8, 4, reader.PropFloat, ""},
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2, 3) }, "y", 4, 4, reader.PropFloat, ""},
		{reader.Version{File: 69}, "Box", func(*reader.Package) []byte { return append(f32s(-1, -1, -1, 1, 1, 1), 1) }, "Max.Y", 16, 4, reader.PropFloat, ""},
		{reader.Version{File: 69}, "Box", func(*reader.Package) []byte { return append(f32s(-1, -1, -1, 1, 1, 1), 1) }, "IsValid", 24, 1, reader.PropByte, ""},
		{reader.Version{File: 69}, "Box", func(*reader.Package) []byte { return append(f32s(-1, -1, -1, 1, 1, 1), 1) }, "Max", 12, 12, reader.PropStruct, ""},
		{reader.Version{File: 69}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3, 4} }, "B", 2, 1, reader.PropByte, ""},
		{reader.Version{File: 128, Licensee: 29}, "Color", func(*reader.Package) []byte { return []byte{1, 2, 3, 4} }, "B", 0, 1, reader.PropByte, ""},
		{reader.Version{File: 69}, "PointRegion", func(*reader.Package) []byte {
			return binary.LittleEndian.AppendUint32([]byte{0x01}, 7)
		}, "ZoneNumber", 0, 0, 0, "no layout"}, // too short: ZoneNumber is missing
		{reader.Version{File: 69}, "PointRegion", func(*reader.Package) []byte {
			return append(binary.LittleEndian.AppendUint32([]byte{0x01}, 7), 2)
		}, "iLeaf", 1, 4, reader.PropInt, ""},
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2, 3) }, "W", 0, 0, 0, "its members: X, Y, Z"},
		{reader.Version{File: 69}, "Vector", func(*reader.Package) []byte { return f32s(1, 2, 3) }, "X.A", 0, 0, 0, "not a struct"},
		{reader.Version{File: 128, Licensee: 29}, "Mystery", func(p *reader.Package) []byte {
			d := tagged(t, nil, writer.PropertyTag{Name: name(p, "Size"), Type: reader.PropInt}, binary.LittleEndian.AppendUint32(nil, 3))
			d = tagged(t, d, writer.PropertyTag{Name: name(p, "Tint"), Type: reader.PropStruct, StructName: name(p, "Color")}, []byte{1, 2, 3, 4})
			return binio.AppendIndex(d, 0)
		}, "Tint.R", -1, 1, reader.PropByte, ""}, // offset checked below: inside Tint's value
	} {
		t.Run(c.version.String()+"/"+c.name+"/"+c.path, func(t *testing.T) {
			p := handmade(nil, names...)
			p.Header.Version = c.version
			raw := c.raw(p)
			v := reader.Value{Type: reader.PropStruct, StructName: name(p, c.name), Raw: raw}
			s, err := p.StructMember(v, strings.Split(c.path, "."))
			if c.err != "" {
				if !errors.Is(err, reader.ErrNoMember) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %+v, %v; want ErrNoMember saying %q", s, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.offset >= 0 && s.Offset != c.offset || s.Size != c.size || s.Type != c.typ {
				t.Errorf("span %+v, want offset %d size %d type %v", s, c.offset, c.size, c.typ)
			}
			if c.offset < 0 {
				// Tint's R in UE2 order (B, G, R, A) is its value's third byte.
				if raw[s.Offset] != 3 {
					t.Errorf("Tint.R at %d holds %d, want 3", s.Offset, raw[s.Offset])
				}
			}
		})
	}
}
