package reader

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// ErrNoMember is wrapped by StructMember's errors when a struct value has
// no member of the name asked for, or its layout is not known.
var ErrNoMember = errors.New("no such struct member")

// MemberSpan is where one member of a struct value lies in the value's
// bytes: Size bytes at Offset, of type Type. A member of a tagged struct
// (UE2, version 118 and later) has its tag in Tag, with offsets in the
// struct's value bytes.
type MemberSpan struct {
	Offset, Size int
	Type         PropertyType
	// Struct names the struct of a PropStruct member.
	Struct string
	Tag    *Property
}

// StructMember finds the member path names inside struct value v (a
// PropStruct value, as PropertyValue returns it): ["Z"] in a Vector, or
// ["Min", "X"] in a Box. It reads the layouts StructFields reads: the
// binary structs unrmod knows, whose value has exactly their size, and
// tagged structs. Member names compare without case. A member path that
// is not there fails with an error wrapping ErrNoMember that lists the
// members there are.
func (p *Package) StructMember(v Value, path []string) (MemberSpan, error) {
	if v.Type != PropStruct || v.StructName < 0 || int(v.StructName) >= len(p.Names) {
		return MemberSpan{}, fmt.Errorf("not a struct value: %w", ErrNoMember)
	}
	if len(path) == 0 {
		return MemberSpan{}, fmt.Errorf("no member named: %w", ErrNoMember)
	}
	name := p.Names[v.StructName].Name
	span, err := p.memberIn(strings.ToLower(name), v.Raw, path)
	if err != nil {
		return MemberSpan{}, err
	}
	return span, nil
}

// memberIn finds path in the value b of struct name (lower case).
func (p *Package) memberIn(name string, b []byte, path []string) (MemberSpan, error) {
	if f, n, ok := p.binaryStruct(name, b); ok && n == len(b) {
		return p.binaryMember(name, b, f, path)
	}
	if name == "sphere" && len(b) == 12 {
		return p.binaryMember("vector", b, nil, path)
	}
	if p.Header.Version.File >= VerTaggedStructs {
		c := binio.NewCursor(b, 0)
		l := &PropertyList{}
		if err := p.walkTags(c, l); err == nil && c.Err() == nil && c.Pos() == len(b) {
			return p.taggedMember(b, l, path)
		}
	}
	return MemberSpan{}, fmt.Errorf("the %d bytes of this %s are in no layout unrmod knows: %w", len(b), name, ErrNoMember)
}

// binaryMember finds path in the binary struct name stored in b.
func (p *Package) binaryMember(name string, b []byte, _ []StructField, path []string) (MemberSpan, error) {
	if name == "color" {
		order := []string{"R", "G", "B", "A"}
		if p.Header.Version.ColorBGRA() {
			order = []string{"B", "G", "R", "A"}
		}
		for k, m := range order {
			if strings.EqualFold(m, path[0]) && len(path) == 1 {
				return MemberSpan{Offset: k, Size: 1, Type: PropByte}, nil
			}
		}
		return MemberSpan{}, noMember(path[0], "Color", []string{"R", "G", "B", "A"})
	}
	members := binaryStructs[name]
	pos := 0
	var names []string
	for _, m := range members {
		names = append(names, m.name)
		size := 0
		var typ PropertyType
		switch m.kind {
		case mFloat, mInt:
			size, typ = 4, PropFloat
			if m.kind == mInt {
				typ = PropInt
			}
		case mByte:
			size, typ = 1, PropByte
		case mObject:
			_, n, err := binio.ReadIndex(b[pos:])
			if err != nil {
				return MemberSpan{}, fmt.Errorf("member %s: %w", m.name, err)
			}
			size, typ = n, PropObject
		default:
			_, n, ok := p.binaryStruct(string(m.kind), b[pos:])
			if !ok {
				return MemberSpan{}, fmt.Errorf("member %s does not read as a %s: %w", m.name, m.kind, ErrNoMember)
			}
			size, typ = n, PropStruct
		}
		if strings.EqualFold(m.name, path[0]) {
			if len(path) == 1 {
				s := MemberSpan{Offset: pos, Size: size, Type: typ}
				if typ == PropStruct {
					s.Struct = structNames[string(m.kind)]
				}
				return s, nil
			}
			if typ != PropStruct {
				return MemberSpan{}, fmt.Errorf("member %s is a %s, not a struct with a member %s: %w", m.name, typ, path[1], ErrNoMember)
			}
			sub, err := p.memberIn(string(m.kind), b[pos:pos+size], path[1:])
			if err != nil {
				return MemberSpan{}, err
			}
			sub.Offset += pos
			return sub, nil
		}
		pos += size
	}
	return MemberSpan{}, noMember(path[0], name, names)
}

// taggedMember finds path in the tagged struct b, whose tags are l.
func (p *Package) taggedMember(b []byte, l *PropertyList, path []string) (MemberSpan, error) {
	var names []string
	for k := range l.Props {
		q := &l.Props[k]
		n := p.NameOf(q.Name)
		names = append(names, n)
		if !strings.EqualFold(n, path[0]) || q.ArrayIndex != 0 {
			continue
		}
		if len(path) == 1 {
			s := MemberSpan{Offset: q.ValueStart, Size: q.Size, Type: q.Type, Tag: q}
			if q.Type == PropStruct {
				s.Struct = p.NameOf(q.StructName)
			}
			return s, nil
		}
		if q.Type != PropStruct {
			return MemberSpan{}, fmt.Errorf("member %s is a %s, not a struct with a member %s: %w", n, q.Type, path[1], ErrNoMember)
		}
		sub, err := p.memberIn(strings.ToLower(p.NameOf(q.StructName)), b[q.ValueStart:q.ValueStart+q.Size], path[1:])
		if err != nil {
			return MemberSpan{}, err
		}
		sub.Offset += q.ValueStart
		return sub, nil
	}
	return MemberSpan{}, noMember(path[0], "tagged struct", names)
}

// noMember is the error for a member that is not there.
func noMember(want, what string, have []string) error {
	return fmt.Errorf("%s has no member %s (its members: %s): %w", what, want, strings.Join(have, ", "), ErrNoMember)
}
