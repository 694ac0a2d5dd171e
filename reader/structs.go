package reader

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// StructField is one member of a struct property's value.
type StructField struct {
	Name  string
	Index int // the static-array index of a member of a tagged struct
	// Value is the member's value. A nested struct has Type PropStruct,
	// its bytes in Raw, its name in Struct and its members in Fields.
	Value  Value
	Struct string
	Fields []StructField
}

// memberKind is how a binary struct member is stored.
type memberKind string

const (
	mFloat  memberKind = "f" // FLOAT
	mInt    memberKind = "i" // INT
	mByte   memberKind = "b" // BYTE
	mObject memberKind = "o" // INDEX object reference
)

type structMember struct {
	name string
	kind memberKind // a memberKind, or the lower-case name of a nested struct
}

// binaryStructs are the structs whose binary layout unrmod knows: the
// engine's math and core structs, member by member. Color, whose byte
// order depends on the version, is decoded by colorFields.
var binaryStructs = map[string][]structMember{
	"vector":      {{"X", mFloat}, {"Y", mFloat}, {"Z", mFloat}},
	"rotator":     {{"Pitch", mInt}, {"Yaw", mInt}, {"Roll", mInt}},
	"plane":       {{"X", mFloat}, {"Y", mFloat}, {"Z", mFloat}, {"W", mFloat}},
	"sphere":      {{"X", mFloat}, {"Y", mFloat}, {"Z", mFloat}, {"W", mFloat}},
	"scale":       {{"Scale", "vector"}, {"SheerRate", mFloat}, {"SheerAxis", mByte}},
	"box":         {{"Min", "vector"}, {"Max", "vector"}, {"IsValid", mByte}},
	"coords":      {{"Origin", "vector"}, {"XAxis", "vector"}, {"YAxis", "vector"}, {"ZAxis", "vector"}},
	"guid":        {{"A", mInt}, {"B", mInt}, {"C", mInt}, {"D", mInt}},
	"range":       {{"Min", mFloat}, {"Max", mFloat}},
	"rangevector": {{"X", "range"}, {"Y", "range"}, {"Z", "range"}},
	"pointregion": {{"Zone", mObject}, {"iLeaf", mInt}, {"ZoneNumber", mByte}},
}

// structNames spells the nested binary structs as the engine does.
var structNames = map[string]string{"vector": "Vector", "range": "Range"}

// StructFields decodes the members of a struct value (v.Type PropStruct,
// as PropertyValue returns it): the binary structs whose layout unrmod
// knows (Vector, Rotator, Color, Plane, Sphere, Scale, Box, Coords, Guid,
// Range, RangeVector, PointRegion) when the value has exactly their size
// (a Color's members come out R, G, B, A whatever order the version
// stores them in, see Version.ColorBGRA),
// and otherwise a tagged member list ending in None (UE2 from version 118)
// when the bytes read as one to their end. ok is false for other values,
// which stay raw bytes.
func (p *Package) StructFields(v Value) (fields []StructField, ok bool) {
	if v.Type != PropStruct || v.StructName < 0 || int(v.StructName) >= len(p.Names) {
		return nil, false
	}
	name := strings.ToLower(p.Names[v.StructName].Name)
	if f, n, ok := p.binaryStruct(name, v.Raw); ok && n == len(v.Raw) {
		return f, true
	}
	if name == "sphere" && len(v.Raw) == 12 { // version 61: no W
		if f, n, ok := p.binaryStructOf(binaryStructs["vector"], v.Raw); ok && n == 12 {
			return f, true
		}
	}
	if p.Header.Version.File >= VerTaggedStructs {
		return p.taggedStruct(v.Raw)
	}
	return nil, false
}

// binaryStruct decodes the known binary struct name from the start of b and
// returns its members and size.
func (p *Package) binaryStruct(name string, b []byte) ([]StructField, int, bool) {
	if name == "color" {
		return p.colorFields(b)
	}
	members, ok := binaryStructs[name]
	if !ok {
		return nil, 0, false
	}
	return p.binaryStructOf(members, b)
}

func (p *Package) binaryStructOf(members []structMember, b []byte) ([]StructField, int, bool) {
	var out []StructField
	pos := 0
	for _, m := range members {
		f := StructField{Name: m.name, Value: Value{StructName: -1}}
		switch m.kind {
		case mFloat, mInt:
			if len(b)-pos < 4 {
				return nil, 0, false
			}
			x := binary.LittleEndian.Uint32(b[pos:])
			if m.kind == mFloat {
				f.Value.Type, f.Value.Float = PropFloat, math.Float32frombits(x)
			} else {
				f.Value.Type, f.Value.Int = PropInt, int32(x)
			}
			pos += 4
		case mByte:
			if len(b)-pos < 1 {
				return nil, 0, false
			}
			f.Value.Type, f.Value.Byte = PropByte, b[pos]
			pos++
		case mObject:
			x, n, err := binio.ReadIndex(b[pos:])
			r := ObjectRef(x)
			if err != nil || int(x) > len(p.Exports) || int(-int64(x)) > len(p.Imports) {
				return nil, 0, false
			}
			f.Value.Type, f.Value.Object = PropObject, r
			pos += n
		default:
			sub, n, ok := p.binaryStruct(string(m.kind), b[pos:])
			if !ok {
				return nil, 0, false
			}
			f.Value.Type, f.Value.StructName = PropStruct, p.FindName(string(m.kind))
			f.Value.Raw = append([]byte(nil), b[pos:pos+n]...)
			f.Struct = structNames[string(m.kind)]
			f.Fields = sub
			pos += n
		}
		out = append(out, f)
	}
	return out, pos, true
}

// taggedStruct decodes a struct stored as a tag list that ends with None
// exactly at the end of b.
func (p *Package) taggedStruct(b []byte) ([]StructField, bool) {
	c := binio.NewCursor(b, 0)
	l := &PropertyList{}
	if err := p.walkTags(c, l); err != nil || c.Err() != nil || c.Pos() != len(b) {
		return nil, false
	}
	out := make([]StructField, 0, len(l.Props))
	for k := range l.Props {
		q := &l.Props[k]
		if q.Type == 0 {
			return nil, false
		}
		var vb []byte
		if q.Type != PropBool {
			vb = b[q.ValueStart : q.ValueStart+q.Size]
		}
		v, err := p.decodeValue("struct member "+p.propLabel(q), int64(q.ValueStart), q, vb)
		if err != nil {
			return nil, false
		}
		f := StructField{Name: p.NameOf(q.Name), Index: q.ArrayIndex, Value: v}
		if v.Type == PropStruct {
			f.Struct = p.NameOf(v.StructName)
			f.Fields, _ = p.StructFields(v)
		}
		out = append(out, f)
	}
	return out, true
}

// colorFields decodes a Color value from the start of b in the package's
// byte order (DecodeColor) and returns its members R, G, B, A, in that
// order whichever order the version stores them in.
func (p *Package) colorFields(b []byte) ([]StructField, int, bool) {
	if len(b) < ColorSize {
		return nil, 0, false
	}
	c, _ := DecodeColor(p.Header.Version, b[:ColorSize])
	out := make([]StructField, 0, 4)
	for _, m := range []struct {
		name string
		v    byte
	}{{"R", c.R}, {"G", c.G}, {"B", c.B}, {"A", c.A}} {
		out = append(out, StructField{Name: m.name, Value: Value{Type: PropByte, StructName: -1, Byte: m.v}})
	}
	return out, ColorSize, true
}
