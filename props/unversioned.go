package props

// This file reads and writes unversioned property lists (packages cooked
// with PKG_UnversionedProperties): no tags, only a header of fragments
// over the class's schema (from a .usmap, package usmap), a zero mask, and
// the values of the slots present and not zero, in schema order.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// Header fragment fields (FUnversionedHeader::FFragment, a uint16).
const (
	fragSkipMask  = 0x007F // slots skipped before the values
	fragHasZero   = 0x0080 // the fragment's values have zero-mask bits
	fragIsLast    = 0x0100 // the header's last fragment
	fragValueShft = 9      // values in the fragment: bits 9–15
	fragMax       = 127    // the most a fragment skips or holds
)

// Header is an unversioned list's header as it was read: its bytes, and
// the slots and zero flags they name. Encode writes the same bytes while
// the list's properties still have these slots and flags, and builds a new
// header (as the engine's builder does) once they change.
type Header struct {
	Bytes []byte `json:"-"`
	slots []int
	zeros []bool
}

// ErrNoSchema means an unversioned value's struct is neither in the
// mappings nor a native struct whose layout the package knows (or a Text
// is of a history whose layout it does not read), so its end cannot be
// told.
var ErrNoSchema = errors.New("no schema")

// unversioned reports whether lists are unversioned.
func (c *Context) unversioned() bool { return c.Schema != nil }

// schema returns the slots of a struct or class (the mappings cache them).
func (d *decoder) schema(name string) ([]usmap.Slot, error) { return d.ctx.Schema.Schema(name) }

// ulist reads an unversioned list of struct or class name at c's
// position: the header, the zero mask and the values. Unversioned objects
// have no serialization-control byte: that belongs to tagged lists.
func (d *decoder) ulist(c *binio.Cursor, name string) (*List, error) {
	if d.depth >= MaxDepth {
		return nil, d.depthError(c.Pos())
	}
	d.depth++
	defer func() { d.depth-- }()
	l := &List{Start: c.Pos(), Schema: name}
	slots, err := d.schema(name)
	if err != nil {
		return nil, &ue.FormatError{Struct: d.where(), Offset: int64(c.Pos()), Msg: err.Error(), Err: err}
	}
	// The fragments.
	hdrAt := c.Pos()
	type frag struct {
		skip, values int
		zero         bool
	}
	var frags []frag
	maskBits, pos := 0, 0
	for {
		at := c.Pos()
		v := c.U16("unversioned header fragment")
		if c.Err() != nil {
			return nil, d.cursorError(c, "")
		}
		f := frag{skip: int(v & fragSkipMask), values: int(v >> fragValueShft), zero: v&fragHasZero != 0}
		pos += f.skip + f.values
		if pos > len(slots) {
			return nil, d.errorAt(at, "unversioned header names slot %d of the %d of %s's schema (the mappings do not match the package?)",
				pos-1, len(slots), name)
		}
		if f.zero {
			maskBits += f.values
		}
		frags = append(frags, f)
		if v&fragIsLast != 0 {
			break
		}
	}
	// The zero mask: a byte for up to 8 bits, a uint16 for up to 16,
	// else uint32 words.
	var mask []byte
	if maskBits > 0 {
		n := 4 * ((maskBits + 31) / 32)
		switch {
		case maskBits <= 8:
			n = 1
		case maskBits <= 16:
			n = 2
		}
		mask = c.Bytes(n, "unversioned zero mask")
		if c.Err() != nil {
			return nil, d.cursorError(c, "")
		}
	}
	h := &Header{Bytes: d.data[hdrAt:c.Pos():c.Pos()]}
	l.Header = h
	depth := len(d.path)
	defer func() { d.path = d.path[:depth] }()
	pos, bit := 0, 0
	for _, f := range frags {
		pos += f.skip
		for i := 0; i < f.values; i++ {
			s := slots[pos]
			zero := false
			if f.zero {
				zero = mask[bit/8]&(1<<(bit%8)) != 0
				bit++
			}
			if s.Property == nil {
				return nil, d.errorAt(c.Pos(), "slot %d of %s's schema has no property in the mappings", pos, name)
			}
			d.path = append(d.path[:depth], seg{name: s.Property.Name, index: -1})
			p := &Property{Offset: c.Pos(), Slot: pos, Zero: zero}
			p.Name = Name{Index: -1, Text: s.Property.Name}
			p.ArrayIndex = int32(s.ArrayIndex)
			if p.ArrayIndex != 0 {
				p.Flags |= FlagHasArrayIndex
			}
			p.Type = d.typeName(s.Property.Type)
			p.SizeOffset, p.ValueOffset = -1, c.Pos()
			var v Value
			var err error
			if zero {
				v, err = d.zeroValue(p.Type, s.Property.Type)
			} else {
				v, err = d.uitem(c, s.Property.Type, p.Type)
			}
			if err != nil {
				return nil, err
			}
			p.Value = v
			p.Size = int32(c.Pos() - p.ValueOffset)
			if _, ok := v.(Bool); ok && !zero {
				p.BoolOffset = p.ValueOffset
			}
			h.slots = append(h.slots, pos)
			h.zeros = append(h.zeros, zero)
			l.Properties = append(l.Properties, p)
			pos++
		}
	}
	l.NoneOffset, l.End = c.Pos(), c.Pos()
	return l, nil
}

// typeName builds the TypeName a tag of the type would hold, as its short
// form shows it: an enum stored as a byte of a plain (not namespaced) enum
// is a ByteProperty of that enum, as TEnumAsByte properties are.
func (d *decoder) typeName(t *usmap.Type) TypeName {
	n := func(s string) Name { return Name{Index: -1, Text: s} }
	if t == nil {
		return TypeName{Name: n("None")}
	}
	out := TypeName{Name: n(t.Kind.String())}
	switch t.Kind {
	case usmap.StructProperty:
		out.Params = []TypeName{{Name: n(t.Struct)}}
	case usmap.EnumProperty:
		if t.Inner != nil && t.Inner.Kind == usmap.ByteProperty && d.plainEnum(t.Enum) {
			return TypeName{Name: n("ByteProperty"), Params: []TypeName{{Name: n(t.Enum)}}}
		}
		out.Params = []TypeName{{Name: n(t.Enum)}, d.typeName(t.Inner)}
	case usmap.ByteProperty:
		if t.Enum != "" {
			out.Params = []TypeName{{Name: n(t.Enum)}}
		}
	case usmap.ArrayProperty, usmap.SetProperty, usmap.OptionalProperty:
		out.Params = []TypeName{d.typeName(t.Inner)}
	case usmap.MapProperty:
		out.Params = []TypeName{d.typeName(t.Inner), d.typeName(t.Value)}
	}
	return out
}

// plainEnum reports whether an enum is of the regular C++ form (not an
// enum class, not namespaced), which properties can only hold as
// TEnumAsByte (a ByteProperty) and whose entries' names have no "Enum::"
// prefix. Mappings dumpers strip that prefix, so it is told from the MAX
// entry the engine adds to every enum: named after the entries' common
// prefix ("TC_MAX") for a regular enum, after the enum ("EFoo_MAX") for
// the others. A regular enum whose entries share no prefix looks like the
// others and is shown as one.
func (d *decoder) plainEnum(name string) bool {
	e := d.ctx.Schema.Enum(name)
	if e == nil || len(e.Entries) == 0 {
		return false
	}
	for _, x := range e.Entries {
		if strings.Contains(x.Name, "::") {
			return false
		}
	}
	last := e.Entries[len(e.Entries)-1].Name
	return strings.HasSuffix(last, "_MAX") && !strings.EqualFold(last, e.Name+"_MAX")
}

// intSize returns the bytes an unversioned integer of kind k takes, or 0.
func intSize(k usmap.Kind) int {
	switch k {
	case usmap.ByteProperty, usmap.Int8Property, usmap.BoolProperty:
		return 1
	case usmap.Int16Property, usmap.UInt16Property:
		return 2
	case usmap.IntProperty, usmap.UInt32Property, usmap.FloatProperty:
		return 4
	case usmap.Int64Property, usmap.UInt64Property, usmap.DoubleProperty:
		return 8
	}
	return 0
}

// enumValue makes the value of an enum property from its integer.
func (d *decoder) enumValue(t *usmap.Type, v uint64, size int) *EnumInt {
	e := &EnumInt{Enum: t.Enum, Value: v, Size: size}
	if en := d.ctx.Schema.Enum(t.Enum); en != nil {
		e.Name, _ = en.Lookup(v)
		if e.Name != "" && !strings.Contains(e.Name, "::") && !d.plainEnum(t.Enum) {
			e.Name = en.Name + "::" + e.Name
		}
		if e.Name == "" {
			e.Name = flagNames(en, v)
		}
	}
	return e
}

// flagNames returns the value of a bit-flag enum as the engine names it
// ("A | B", the entries' short names in order) when every entry but zero
// and _MAX is a distinct bit and the value is made of them; "" otherwise.
func flagNames(en *usmap.Enum, v uint64) string {
	var names []string
	var seen, rest uint64 = 0, v
	for _, x := range en.Entries {
		if x.Value == 0 || strings.HasSuffix(x.Name, "_MAX") {
			continue
		}
		if x.Value&(x.Value-1) != 0 || seen&x.Value != 0 {
			return ""
		}
		seen |= x.Value
		if v&x.Value != 0 {
			_, short, ok := strings.Cut(x.Name, "::")
			if !ok {
				short = x.Name
			}
			names = append(names, short)
			rest &^= x.Value
		}
	}
	if rest != 0 || len(names) < 2 {
		return ""
	}
	return strings.Join(names, " | ")
}

// zeroValue returns the value a zero-mask bit stands for.
func (d *decoder) zeroValue(tn TypeName, t *usmap.Type) (Value, error) {
	switch t.Kind {
	case usmap.BoolProperty:
		return Bool(false), nil
	case usmap.Int8Property:
		return Int8(0), nil
	case usmap.Int16Property:
		return Int16(0), nil
	case usmap.IntProperty:
		return Int(0), nil
	case usmap.Int64Property:
		return Int64(0), nil
	case usmap.ByteProperty:
		return Byte(0), nil
	case usmap.UInt16Property:
		return UInt16(0), nil
	case usmap.UInt32Property:
		return UInt32(0), nil
	case usmap.UInt64Property:
		return UInt64(0), nil
	case usmap.FloatProperty:
		return Float(0), nil
	case usmap.DoubleProperty:
		return Double(0), nil
	case usmap.EnumProperty:
		size := 1
		if t.Inner != nil {
			size = intSize(t.Inner.Kind)
		}
		return d.enumValue(t, 0, size), nil
	case usmap.NameProperty:
		// The zero FName in memory is None, whatever the package's
		// name 0 is.
		return NameValue(Name{Index: -1, Text: "None"}), nil
	case usmap.ObjectProperty, usmap.InterfaceProperty, usmap.WeakObjectProperty:
		return Object(0), nil
	case usmap.OptionalProperty:
		return &Raw{Bytes: []byte{}, Text: "unset"}, nil
	case usmap.DelegateProperty:
		// An unbound delegate: no object, the function None.
		return &Delegate{Function: Name{Index: -1, Text: "None"}}, nil
	case usmap.MulticastDelegateProperty:
		return &MulticastDelegate{Delegates: []Delegate{}}, nil
	case usmap.FieldPathProperty:
		// No path and no owner, as the engine saves an unresolved one.
		v := &FieldPath{Path: []Name{}}
		if !d.ctx.FieldPathsWithoutOwner {
			v.Owner = new(Object)
		}
		return v, nil
	case usmap.StructProperty:
		// Atomic structs of plain data: every field zero.
		if layout := nativeLayout(t.Struct); layout != nil && layoutSize(layout, d.ctx.lwc()) > 0 {
			zero := make([]byte, layoutSize(layout, d.ctx.lwc()))
			sub := &decoder{ctx: d.ctx, data: zero}
			s, err := sub.native(sub.cursor(0, len(zero)), t.Struct, layout)
			if err != nil {
				return nil, err
			}
			for i := range s.Native {
				s.Native[i].Offset, s.Native[i].Size = 0, 0
			}
			s.Offset, s.Size = 0, 0
			return s, nil
		}
	}
	return nil, d.errorAt(0, "a zero-mask bit for a %s, which has no zero form", tn)
}

// uitem reads one unversioned value of type t.
func (d *decoder) uitem(c *binio.Cursor, t *usmap.Type, tn TypeName) (Value, error) {
	at := c.Pos()
	var v Value
	switch t.Kind {
	case usmap.BoolProperty:
		v = Bool(bool8(c, "bool"))
	case usmap.ByteProperty:
		v = Byte(c.U8("Byte value"))
	case usmap.EnumProperty:
		size := 0
		if t.Inner != nil {
			size = intSize(t.Inner.Kind)
		}
		var n uint64
		switch size {
		case 1:
			n = uint64(c.U8("enum value"))
		case 2:
			n = uint64(c.U16("enum value"))
		case 4:
			n = uint64(c.U32("enum value"))
		case 8:
			n = c.U64("enum value")
		default:
			return nil, d.errorAt(at, "enum %s has the underlying type %s", t.Enum, t.Inner)
		}
		v = d.enumValue(t, n, size)
	case usmap.StructProperty:
		return d.ustruct(c, t.Struct)
	case usmap.ArrayProperty:
		if d.depth >= MaxDepth {
			return nil, d.depthError(at)
		}
		d.depth++
		defer func() { d.depth-- }()
		n := c.I32("array count")
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		if n < 0 || int(n) > c.Len() {
			return nil, d.errorAt(at, "array of %d elements; %d bytes left", n, c.Len())
		}
		inner := tn.Param(0)
		a := &Array{Inner: inner, Elements: make([]Element, 0, min(int(n), 64))}
		depth := len(d.path)
		defer func() { d.path = d.path[:depth] }()
		for i := 0; i < int(n); i++ {
			d.path = append(d.path[:depth], seg{index: i})
			eat := c.Pos()
			e, err := d.uitem(c, t.Inner, inner)
			if err != nil {
				return nil, err
			}
			a.Elements = append(a.Elements, Element{Offset: eat, Size: c.Pos() - eat, Value: e})
		}
		return a, nil
	case usmap.SetProperty, usmap.MapProperty:
		// Removed keys, then the elements (or key-value pairs): kept as
		// their bytes, shown with their count as tagged ones are.
		removed := c.I32("removed count")
		if c.Err() == nil && (removed < 0 || int(removed) > c.Len()) {
			return nil, d.errorAt(at, "%d removed elements; %d bytes left", removed, c.Len())
		}
		for i := 0; i < int(removed) && c.Err() == nil; i++ {
			if _, err := d.uitem(c, t.Inner, tn.Param(0)); err != nil {
				return nil, err
			}
		}
		cat := c.Pos()
		n := c.I32("element count")
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		if n < 0 || int(n) > c.Len() {
			return nil, d.errorAt(cat, "%d elements; %d bytes left", n, c.Len())
		}
		for i := 0; i < int(n); i++ {
			if _, err := d.uitem(c, t.Inner, tn.Param(0)); err != nil {
				return nil, err
			}
			if t.Kind == usmap.MapProperty {
				if _, err := d.uitem(c, t.Value, tn.Param(1)); err != nil {
					return nil, err
				}
			}
		}
		b := d.data[at:c.Pos():c.Pos()]
		return &Raw{Bytes: b, Text: rawText(d, tn, b)}, nil
	case usmap.OptionalProperty:
		set := bool32(c, "optional is-set bool")
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		text := "unset"
		if set {
			x, err := d.uitem(c, t.Inner, tn.Param(0))
			if err != nil {
				return nil, err
			}
			text = "set: " + valueString(x)
		}
		return &Raw{Bytes: d.data[at:c.Pos():c.Pos()], Text: text}, nil
	case usmap.TextProperty:
		if err := d.skipText(c); err != nil {
			return nil, err
		}
		b := d.data[at:c.Pos():c.Pos()]
		return &Raw{Bytes: b, Text: textString(d, b)}, nil
	case usmap.DelegateProperty:
		x, ok := d.delegate(c)
		if !ok {
			return nil, d.fail(c)
		}
		return &x, nil
	case usmap.MulticastDelegateProperty:
		return d.multicast(c)
	case usmap.FieldPathProperty:
		return d.fieldPath(c, !d.ctx.FieldPathsWithoutOwner)
	case usmap.Utf8StrProperty, usmap.AnsiStrProperty:
		n := c.Count32("string length", 1)
		c.Bytes(n, "string")
	case usmap.AssetObjectProperty:
		if _, err := d.fstring(c, "asset path"); err != nil {
			return nil, err
		}
	default:
		return d.item(c, tn, item{size: intSize(t.Kind), native: -1})
	}
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if v == nil {
		b := d.data[at:c.Pos():c.Pos()]
		return &Raw{Bytes: b, Text: rawText(d, tn, b)}, nil
	}
	return v, nil
}

// ustruct reads a struct in unversioned data: a native struct of known
// layout, or the struct's own unversioned list.
func (d *decoder) ustruct(c *binio.Cursor, name string) (Value, error) {
	start := c.Pos()
	if layout := nativeLayout(name); layout != nil {
		s, err := d.native(c, name, layout)
		if err != nil {
			return nil, nativeError(err, name)
		}
		return s, nil
	}
	if read := nativeReaders[name]; read != nil {
		s, err := d.readNative(c, name, read)
		if err != nil {
			return nil, nativeError(err, name)
		}
		return s, nil
	}
	if _, ok := nativeOpaque[name]; ok || d.ctx.Schema.Struct(name) == nil {
		return nil, &ue.FormatError{Struct: d.where(), Offset: int64(start), Err: fmt.Errorf("%w: %w", ErrNoSchema, ue.ErrCorrupt),
			Msg: fmt.Sprintf("struct %s is serialized by the engine's own code and its layout is not known, "+
				"or it is not in the mappings: where it ends cannot be told", name)}
	}
	l, err := d.ulist(c, name)
	if err != nil {
		return nil, err
	}
	l.TailEnd = l.End
	return &Struct{Type: name, Tagged: l, Offset: start, Size: c.Pos() - start}, nil
}

// nativeOpaque are engine structs that serialize with their own code
// (UE 5.4+ tags say so: FlagHasBinaryOrNativeSerialize) and whose layout
// this package does not know: unversioned data holding one cannot be read
// past it. The mappings list some of them with properties, which their
// serializers do not follow.
var nativeOpaque = map[string]struct{}{
	"UniqueNetIdRepl": {}, "Key": {}, "ExpressionInput": {}, "ColorMaterialInput": {},
	"ScalarMaterialInput": {}, "VectorMaterialInput": {}, "Vector2MaterialInput": {},
	"ShadingModelMaterialInput": {}, "SubstrateMaterialInput": {}, "MaterialAttributesInput": {},
}

// EnumInt is an enum property's value as unversioned data stores it: the
// enumerator's integer (Size bytes, the enum's underlying type) and its
// name from the schema ("" when the enum has no entry of that value).
type EnumInt struct {
	Enum  string `json:"enum"`
	Value uint64 `json:"value"`
	Size  int    `json:"size"`
	Name  string `json:"name,omitempty"`
}

func (*EnumInt) isValue() {}

// String returns the enumerator's name, or the number when the schema has
// no name for it.
func (v *EnumInt) String() string {
	if v.Name != "" {
		return v.Name
	}
	return fmt.Sprint(v.Value)
}

// MarshalJSON returns the enumerator's name, or the number.
func (v *EnumInt) MarshalJSON() ([]byte, error) {
	if v.Name != "" {
		return []byte(fmt.Sprintf("%q", v.Name)), nil
	}
	return []byte(fmt.Sprint(v.Value)), nil
}

// ulist appends an unversioned list: the header (as read while the slots and zero flags are unchanged, else
// built as the engine builds it) and the values of the properties present
// and not zero.
func (e *encoder) ulist(dst []byte, l *List) []byte {
	slots, err := e.ctx.Schema.Schema(l.Schema)
	if err != nil {
		e.fail("%v", err)
		return dst
	}
	dst = e.header(dst, l, len(slots))
	for _, p := range l.Properties {
		if p.Zero {
			continue
		}
		if p.Slot < 0 || p.Slot >= len(slots) || slots[p.Slot].Property == nil {
			e.fail("property %s: slot %d outside %s's schema", p.Name.Text, p.Slot, l.Schema)
			return dst
		}
		dst = e.uvalue(dst, p.Value)
	}
	return dst
}

// header appends the list's header.
func (e *encoder) header(dst []byte, l *List, n int) []byte {
	if h := l.Header; h != nil && len(h.slots) == len(l.Properties) {
		same := true
		for i, p := range l.Properties {
			if p.Slot != h.slots[i] || p.Zero != h.zeros[i] {
				same = false
				break
			}
		}
		if same {
			return append(dst, h.Bytes...)
		}
	}
	// The engine's FUnversionedHeaderBuilder: every slot in order is
	// included (with its zero bit) or excluded.
	type frag struct {
		skip, values int
		zero         bool
	}
	frags := []frag{{}}
	var mask []bool
	trim := func(f frag) {
		if !f.zero {
			mask = mask[:len(mask)-f.values]
		}
	}
	next := 0
	for _, p := range l.Properties {
		if p.Slot < next || p.Slot >= n {
			e.fail("property %s: slot %d out of order or outside %s's %d slots", p.Name.Text, p.Slot, l.Schema, n)
			return dst
		}
		for ; next < p.Slot; next++ {
			if last := &frags[len(frags)-1]; last.values > 0 || last.skip == fragMax {
				trim(*last)
				frags = append(frags, frag{})
			}
			frags[len(frags)-1].skip++
		}
		if last := &frags[len(frags)-1]; last.values == fragMax {
			trim(*last)
			frags = append(frags, frag{})
		}
		last := &frags[len(frags)-1]
		last.values++
		last.zero = last.zero || p.Zero
		mask = append(mask, p.Zero)
		next++
	}
	for ; next < n; next++ {
		if last := &frags[len(frags)-1]; last.values > 0 || last.skip == fragMax {
			trim(*last)
			frags = append(frags, frag{})
		}
		frags[len(frags)-1].skip++
	}
	trim(frags[len(frags)-1])
	for len(frags) > 1 && frags[len(frags)-1].values == 0 {
		frags = frags[:len(frags)-1]
	}
	for i, f := range frags {
		v := uint16(f.skip) | uint16(f.values)<<fragValueShft
		if f.zero {
			v |= fragHasZero
		}
		if i == len(frags)-1 {
			v |= fragIsLast
		}
		dst = binary.LittleEndian.AppendUint16(dst, v)
	}
	if len(mask) == 0 {
		return dst
	}
	words := make([]uint32, (len(mask)+31)/32)
	for i, z := range mask {
		if z {
			words[i/32] |= 1 << (i % 32)
		}
	}
	switch {
	case len(mask) <= 8:
		return append(dst, byte(words[0]))
	case len(mask) <= 16:
		return binary.LittleEndian.AppendUint16(dst, uint16(words[0]))
	}
	for _, w := range words {
		dst = binary.LittleEndian.AppendUint32(dst, w)
	}
	return dst
}

// uvalue appends a value in unversioned form.
func (e *encoder) uvalue(dst []byte, v Value) []byte {
	le := binary.LittleEndian
	switch x := v.(type) {
	case Bool:
		return appendBool8(dst, bool(x))
	case *EnumInt:
		switch x.Size {
		case 1:
			return append(dst, byte(x.Value))
		case 2:
			return le.AppendUint16(dst, uint16(x.Value))
		case 4:
			return le.AppendUint32(dst, uint32(x.Value))
		case 8:
			return le.AppendUint64(dst, x.Value)
		}
		e.fail("enum value of %d bytes", x.Size)
		return dst
	case *Struct:
		if x.Tagged != nil {
			return e.ulist(dst, x.Tagged)
		}
	case *Array:
		dst = le.AppendUint32(dst, uint32(len(x.Elements)))
		for _, el := range x.Elements {
			dst = e.uvalue(dst, el.Value)
		}
		return dst
	}
	return e.value(dst, v, false)
}

// zeroFor returns the value a property of type t has when it is zero, for
// a property Set adds to an unversioned list.
func zeroFor(ctx *Context, t *usmap.Type) (Value, error) {
	d := &decoder{ctx: ctx}
	return d.zeroValue(d.typeName(t), t)
}

// rowStruct returns the name of a DataTable's row struct, from its
// RowStruct property.
func (d *decoder) rowStruct(l *List) (string, error) {
	p := l.Find("RowStruct", 0)
	if p == nil {
		return "", d.errorAt(l.Start, "the DataTable has no RowStruct: its rows' schema is not known")
	}
	o, ok := p.Value.(Object)
	if !ok || o == 0 || d.ctx.ObjectName == nil {
		return "", d.errorAt(p.Offset, "the DataTable's RowStruct (%s) names no struct", valueString(p.Value))
	}
	return usmap.ShortName(d.ctx.ObjectName(int32(o))), nil
}

// materialize prepares unversioned data for Set: every property the path
// goes through that is absent from its list (left at its default) or
// marked zero (no bytes stored) is given its value's bytes, so that the
// leaf can be changed in place; the header is rebuilt. It returns data
// unchanged when every property on the path is stored already.
func materialize(data []byte, ctx *Context, target Target) ([]byte, error) {
	steps, err := parsePath(target.Path)
	if err != nil {
		return nil, err
	}
	var top *List
	var table *Table
	l := (*List)(nil)
	if target.Row == "" {
		if top, err = Decode(data, ctx); err != nil {
			return nil, err
		}
		l = top
	} else {
		if table, err = DecodeDataTable(data, ctx); err != nil {
			return nil, err
		}
		r := table.Row(target.Row)
		if r == nil {
			return data, nil // Set reports the missing row
		}
		l = r.Properties
	}
	changed := false
	for _, st := range steps {
		slots, err := ctx.Schema.Schema(l.Schema)
		if err != nil {
			return nil, err
		}
		var want int32
		indices := st.indices
		var p *Property
		for _, q := range l.Properties {
			if strings.EqualFold(q.Name.Text, st.name) {
				p = q
				break
			}
		}
		isArray := p != nil && p.Type.Name.Text == "ArrayProperty"
		if len(indices) > 0 && !isArray {
			want, indices = int32(indices[0]), indices[1:]
		}
		p = nil
		for _, q := range l.Properties {
			if strings.EqualFold(q.Name.Text, st.name) && q.ArrayIndex == want {
				p = q
			}
		}
		if p == nil {
			at := -1
			for i, s := range slots {
				if s.Property != nil && strings.EqualFold(s.Property.Name, st.name) && int32(s.ArrayIndex) == want {
					at = i
				}
			}
			if at < 0 {
				return data, nil // Set reports what the path does not name
			}
			s := slots[at]
			p = &Property{Slot: at, Zero: true}
			p.Name = Name{Index: -1, Text: s.Property.Name}
			p.ArrayIndex = want
			d := &decoder{ctx: ctx}
			p.Type = d.typeName(s.Property.Type)
			if p.Value, err = absentValue(ctx, s.Property.Type, p.Type); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Label(), err)
			}
			i := 0
			for i < len(l.Properties) && l.Properties[i].Slot < at {
				i++
			}
			l.Properties = append(l.Properties[:i], append([]*Property{p}, l.Properties[i:]...)...)
		}
		switch p.Value.(type) {
		case *Delegate, *MulticastDelegate, *FieldPath:
			return nil, delegateRefusal(target.String(), p.Type.String())
		}
		if p.Zero {
			p.Zero, changed = false, true
			if n, ok := p.Value.(NameValue); ok && n.Index < 0 {
				nn, err := ctx.findName(n.Text, true)
				if err != nil {
					return nil, err
				}
				p.Value = NameValue(nn)
			}
		}
		if len(indices) > 0 {
			break // elements of arrays are stored as they are
		}
		s, ok := p.Value.(*Struct)
		if !ok || s.Tagged == nil {
			break
		}
		l = s.Tagged
	}
	if !changed {
		return data, nil
	}
	if table != nil {
		return EncodeTable(table, ctx)
	}
	return Encode(top, ctx)
}

// absentValue is the value Set starts from for a property absent from an
// unversioned list: the type's zero, an empty string or array, or a
// struct with no properties stored.
func absentValue(ctx *Context, t *usmap.Type, tn TypeName) (Value, error) {
	switch t.Kind {
	case usmap.StrProperty:
		return &String{Zero: true}, nil
	case usmap.ArrayProperty:
		return &Array{Inner: tn.Param(0), Elements: []Element{}}, nil
	case usmap.StructProperty:
		if nativeLayout(t.Struct) == nil && nativeReaders[t.Struct] == nil && ctx.Schema.Struct(t.Struct) != nil {
			if _, opaque := nativeOpaque[t.Struct]; !opaque {
				return &Struct{Type: t.Struct, Tagged: &List{Schema: t.Struct}}, nil
			}
		}
	}
	d := &decoder{ctx: ctx}
	v, err := d.zeroValue(tn, t)
	if err != nil {
		return nil, fmt.Errorf("a %s absent from an unversioned list cannot be added: %w", tn, ErrUnsupported)
	}
	return v, nil
}
