package reader

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// PropertyType is the type id in a property tag's info byte.
type PropertyType byte

// Property type ids (the engine's hard-coded EName indices).
const (
	PropByte       PropertyType = 1
	PropInt        PropertyType = 2
	PropBool       PropertyType = 3
	PropFloat      PropertyType = 4
	PropObject     PropertyType = 5 // also ClassProperty
	PropName       PropertyType = 6
	PropString     PropertyType = 7 // UE1 fixed string; UE2 delegate
	PropClass      PropertyType = 8
	PropArray      PropertyType = 9
	PropStruct     PropertyType = 10
	PropVector     PropertyType = 11
	PropRotator    PropertyType = 12
	PropStr        PropertyType = 13
	PropMap        PropertyType = 14
	PropFixedArray PropertyType = 15
	PropPointer    PropertyType = 16
)

var propTypeNames = [...]string{"", "Byte", "Int", "Bool", "Float", "Object", "Name", "String", "Class",
	"Array", "Struct", "Vector", "Rotator", "Str", "Map", "FixedArray", "Pointer"}

func (t PropertyType) String() string {
	if int(t) < len(propTypeNames) && t != 0 {
		return propTypeNames[t]
	}
	return fmt.Sprintf("Type%d", byte(t))
}

// ErrNoPropertyList is returned by Properties for class exports, whose data
// starts with the class's own serialisation instead of a tag list.
var ErrNoPropertyList = errors.New("class exports have no leading property list")

// Property is one tag of a tagged property list, with its position in the
// export's data.
type Property struct {
	Name       NameRef
	Type       PropertyType
	SizeCode   byte    // bits 4..6 of the info byte
	StructName NameRef // -1 unless Type is PropStruct
	ArrayIndex int
	Bool       bool // the value of a Bool property
	Start      int  // offset of the tag in the export data
	ValueStart int  // offset of the value
	Size       int  // number of value bytes (0 for Bool)
}

// PropertyList is the decoded tag list of one export.
type PropertyList struct {
	Start int // offset in the export data where the list starts (after any state frame)
	End   int // offset just past the terminating "None" name
	Props []Property
}

// Value returns the raw value bytes of property q in data.
func (q *Property) Value(data []byte) []byte { return data[q.ValueStart : q.ValueStart+q.Size] }

// Find returns the property with the given name (case-insensitive) and array
// index, or nil.
func (l *PropertyList) Find(p *Package, name string, index int) *Property {
	for i := range l.Props {
		q := &l.Props[i]
		if q.ArrayIndex == index && strings.EqualFold(p.NameOf(q.Name), name) {
			return q
		}
	}
	return nil
}

// exportLabel names export i for messages.
func (p *Package) exportLabel(i int) string {
	return fmt.Sprintf("export %d %q", i, p.NameOf(p.Exports[i].ObjectName))
}

func (p *Package) exportErr(i int, c *binio.Cursor, what string) error {
	err := c.Err()
	var ce *binio.CursorError
	if errors.As(err, &ce) {
		return &FormatError{File: p.FileName, Struct: p.exportLabel(i) + " " + what, Offset: ce.Offset,
			Msg: fmt.Sprintf("%s: %v", ce.What, ce.Err), Err: err}
	}
	return &FormatError{File: p.FileName, Struct: p.exportLabel(i) + " " + what, Offset: -1, Msg: fmt.Sprint(err), Err: err}
}

// Properties decodes the state frame (when the export has RF_HasStack) and
// the tagged property list at the start of export i's data.
func (p *Package) Properties(i int) (*PropertyList, error) {
	return p.properties(i, true)
}

// properties reads export i's tag list; without keep it only finds where
// the list starts and ends (and whether it reads), leaving Props nil, so
// that checking a list of 40,000 tags costs one pass over its bytes and no
// Property values.
func (p *Package) properties(i int, keep bool) (*PropertyList, error) {
	e := &p.Exports[i]
	if e.Class == 0 {
		return nil, ErrNoPropertyList
	}
	c := binio.NewCursor(e.Data, int64(e.SerialOffset))
	if e.Flags&RFHasStack != 0 {
		node := c.Index("state frame node")
		c.Index("state frame state node")
		c.U64("state frame probe mask")
		c.U32("state frame latent action")
		if node != 0 {
			c.Index("state frame code offset")
		}
	}
	l := &PropertyList{Start: c.Pos()}
	if keep {
		if err := p.walkTags(c, l); err != nil {
			return nil, err
		}
	} else {
		for c.Err() == nil {
			if _, end := p.readTag(c); end {
				break
			}
		}
	}
	if c.Err() != nil {
		return nil, p.exportErr(i, c, "property list")
	}
	l.End = c.Pos()
	return l, nil
}

// StructTags decodes a struct value stored as a tag list, as UE2 stores
// most structs from file version 118 on: tags up to "None", which must end
// exactly where the value does. Start and ValueStart of the tags are offsets
// in value. Errors are *FormatError values.
func (p *Package) StructTags(value []byte) (*PropertyList, error) {
	c := binio.NewCursor(value, 0)
	l := &PropertyList{}
	if err := p.walkTags(c, l); err != nil {
		return nil, err
	}
	if err := c.Err(); err != nil {
		msg := err.Error()
		if what, at, m, ok := binio.Describe(err); ok {
			msg = fmt.Sprintf("%s at value offset %d: %s", what, at, m)
		}
		return nil, &FormatError{File: p.FileName, Struct: "struct value", Offset: -1, Msg: msg, Err: err}
	}
	if l.End = c.Pos(); l.End != len(value) {
		return nil, &FormatError{File: p.FileName, Struct: "struct value", Offset: -1,
			Msg: fmt.Sprintf("its tag list ends after %d of its %d bytes", l.End, len(value))}
	}
	return l, nil
}

// walkTags reads tags until "None". Values are skipped by their size, so any
// property type (including tagged UE2 structs) is stepped over.
func (p *Package) walkTags(c *binio.Cursor, l *PropertyList) error {
	// Count the tags first, on a copy of the cursor, so that the list is
	// allocated once at its size: a list of 2-byte tags would otherwise
	// cost several times its Property values in growth.
	n, cc := 0, *c
	for cc.Err() == nil {
		if _, end := p.readTag(&cc); end || cc.Err() != nil {
			break
		}
		n++
	}
	if n > 0 {
		l.Props = make([]Property, 0, n)
	}
	for c.Err() == nil {
		q, end := p.readTag(c)
		if end || c.Err() != nil {
			return nil
		}
		l.Props = append(l.Props, q)
	}
	return nil
}

// readTag reads one tag and steps over its value; end is true when the
// tag is "None", which ends a list. Problems are left in the cursor.
func (p *Package) readTag(c *binio.Cursor) (q Property, end bool) {
	start := c.Pos()
	name := NameRef(c.Index("property name"))
	if c.Err() != nil {
		return q, false
	}
	if name < 0 || int(name) >= len(p.Names) {
		c.Seek(start, "")
		c.Fail("property name", fmt.Errorf("name index %d out of range (%d names)", name, len(p.Names)))
		return q, false
	}
	if n := p.Names[name].Name; len(n) == 4 && strings.EqualFold(n, "None") {
		return q, true
	}
	info := c.U8("property info")
	q = Property{Name: name, Type: PropertyType(info & 0x0F), SizeCode: (info >> 4) & 7, StructName: -1, Start: start}
	if q.Type == PropStruct {
		q.StructName = NameRef(c.Index("struct name"))
	}
	switch q.SizeCode {
	case 0:
		q.Size = 1
	case 1:
		q.Size = 2
	case 2:
		q.Size = 4
	case 3:
		q.Size = 12
	case 4:
		q.Size = 16
	case 5:
		q.Size = int(c.U8("property size"))
	case 6:
		q.Size = int(c.U16("property size"))
	case 7:
		q.Size = int(c.I32("property size"))
	}
	if q.Type == PropBool {
		q.Bool = info&0x80 != 0
		q.Size = 0
	} else if info&0x80 != 0 {
		b := c.U8("array index")
		switch {
		case b < 0x80:
			q.ArrayIndex = int(b)
		case b&0xC0 == 0x80:
			q.ArrayIndex = int(b&0x7F)<<8 | int(c.U8("array index"))
		default:
			b1, b2, b3 := c.U8("array index"), c.U8("array index"), c.U8("array index")
			q.ArrayIndex = int(b&0x3F)<<24 | int(b1)<<16 | int(b2)<<8 | int(b3)
		}
	}
	if q.Size < 0 {
		c.Fail("property size", fmt.Errorf("negative size %d", q.Size))
		return q, false
	}
	q.ValueStart = c.Pos()
	if c.Err() == nil && q.Size > c.Len() {
		// The label names the property; build it only when it is needed.
		c.Bytes(q.Size, fmt.Sprintf("value of property %q", p.Names[name].Name))
		return q, false
	}
	c.Bytes(q.Size, "property value")
	return q, false
}
