package props

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
)

// Encode writes a property list as Decode read it, in the layout of
// ctx's version: for an object list (ctx.Object) the control byte, the
// tags with their values, None, the object tail and Rest; for a struct's
// list the tags and None. Each tag's Size (and an older struct array's
// inner-tag Size) is computed from the encoded value, so a list changed in
// memory encodes with consistent sizes. Names are written as the Name
// values hold them (Index and Number); Text is not looked up.
func Encode(l *List, ctx *Context) ([]byte, error) {
	if l == nil || ctx == nil {
		return nil, errors.New("props.Encode: nil List or Context")
	}
	e := &encoder{ctx: ctx}
	out := e.anyList(nil, l, ctx.Object)
	if ctx.Object {
		out = e.tail(out, l)
	}
	out = append(out, l.Rest...)
	return out, e.err
}

// EncodeTable writes a DataTable as DecodeDataTable read it.
func EncodeTable(t *Table, ctx *Context) ([]byte, error) {
	if t == nil || t.Properties == nil || ctx == nil {
		return nil, errors.New("props.EncodeTable: nil Table or Context")
	}
	e := &encoder{ctx: ctx}
	out := e.anyList(nil, t.Properties, ctx.Object)
	if ctx.Object {
		out = e.tail(out, t.Properties)
	}
	out = append(out, t.Properties.Rest...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(t.Rows)))
	for i := range t.Rows {
		out = appendName(out, t.Rows[i].Name)
		out = e.anyList(out, t.Rows[i].Properties, false)
	}
	out = append(out, t.Rest...)
	return out, e.err
}

// anyList appends a tagged or an unversioned list, as ctx says.
func (e *encoder) anyList(dst []byte, l *List, object bool) []byte {
	if e.ctx.unversioned() {
		return e.ulist(dst, l)
	}
	return e.list(dst, l, object)
}

type encoder struct {
	ctx *Context
	err error
}

func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
	}
}

func appendName(dst []byte, n Name) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n.Index))
	return binary.LittleEndian.AppendUint32(dst, n.Number)
}

func appendGUID(dst []byte, g GUID) []byte { return append(dst, g[:]...) }

func appendBool32(dst []byte, b bool) []byte {
	var v uint32
	if b {
		v = 1
	}
	return binary.LittleEndian.AppendUint32(dst, v)
}

func appendBool8(dst []byte, b bool) []byte {
	if b {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// list appends a property list.
func (e *encoder) list(dst []byte, l *List, object bool) []byte {
	if object && e.ctx.control() {
		ctl := l.Control
		if ctl == nil {
			ctl = &Control{}
		}
		dst = append(dst, ctl.Flags)
		if ctl.Flags&ControlOverridableSerializationInformation != 0 {
			dst = append(dst, ctl.Operation)
		}
	}
	for _, p := range l.Properties {
		dst = e.property(dst, p)
	}
	none := l.None
	if none.Text == "" && none.Index == 0 && none.Number == 0 {
		// A list built in memory: find None in the name map.
		n, err := e.ctx.findName("None", false)
		if err != nil {
			e.fail("the name map has no None to end a property list")
		}
		none = n
	}
	return appendName(dst, none)
}

// tail appends an object's tail.
func (e *encoder) tail(dst []byte, l *List) []byte {
	if e.ctx.CDO || !l.HasGUIDField {
		return dst
	}
	dst = appendBool32(dst, l.ObjectGUID != nil)
	if l.ObjectGUID != nil {
		dst = appendGUID(dst, *l.ObjectGUID)
	}
	return dst
}

// property appends a tag and its value.
func (e *encoder) property(dst []byte, p *Property) []byte {
	value := e.value(nil, p.Value, true)
	t := p.Tag
	if b, ok := p.Value.(Bool); ok && t.Type.Name.Text == "BoolProperty" {
		// A bool's value is in its tag.
		if b {
			t.Flags |= FlagBoolTrue
		} else {
			t.Flags &^= FlagBoolTrue
		}
	}
	if len(value) > math.MaxInt32 {
		e.fail("property %s: value of %d bytes", p.Name.Text, len(value))
	}
	dst = appendName(dst, p.Name)
	if e.ctx.completeTypes() {
		dst = appendType(dst, t.Type)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(value)))
		dst = append(dst, t.Flags)
		if t.Flags&FlagHasArrayIndex != 0 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(t.ArrayIndex))
		}
		if t.Flags&FlagHasPropertyGUID != 0 {
			var g GUID
			if t.PropertyGUID != nil {
				g = *t.PropertyGUID
			}
			dst = appendGUID(dst, g)
		}
		if t.Flags&FlagHasPropertyExtensions != 0 {
			dst = appendExtensions(dst, t.Extensions)
		}
	} else {
		dst = e.tagOld(dst, &t, len(value))
	}
	return append(dst, value...)
}

// tagOld appends a tag in the layout before version 1012, after its name.
func (e *encoder) tagOld(dst []byte, t *Tag, size int) []byte {
	dst = appendName(dst, t.Type.Name)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(size))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(t.ArrayIndex))
	param := func(i int) {
		if i >= len(t.Type.Params) {
			e.fail("property %s: type %s lacks parameter %d", t.Name.Text, t.Type, i)
			return
		}
		dst = appendName(dst, t.Type.Params[i].Name)
	}
	switch t.Type.Name.Text {
	case "StructProperty":
		param(0)
		dst = appendGUID(dst, t.StructGUID)
	case "BoolProperty":
		dst = appendBool8(dst, t.Flags&FlagBoolTrue != 0)
	case "ByteProperty", "EnumProperty", "ArrayProperty", "SetProperty", "OptionalProperty":
		param(0)
	case "MapProperty":
		param(0)
		param(1)
	}
	dst = appendBool8(dst, t.PropertyGUID != nil)
	if t.PropertyGUID != nil {
		dst = appendGUID(dst, *t.PropertyGUID)
	}
	if e.ctx.tagExtensions() {
		dst = appendExtensions(dst, t.Extensions)
	}
	return dst
}

func appendExtensions(dst []byte, x *Extensions) []byte {
	if x == nil {
		return append(dst, 0)
	}
	dst = append(dst, x.Flags)
	if x.Flags&ExtensionOverridableInformation != 0 {
		dst = append(dst, x.OverrideOperation)
		dst = appendBool32(dst, x.ExperimentalOverridableLogic)
	}
	if x.Flags&ExtensionExternalObjects != 0 {
		dst = appendBool32(dst, x.ExternalObjects)
	}
	return dst
}

// appendType appends a type tree as (name, parameter count) nodes in
// pre-order.
func appendType(dst []byte, t TypeName) []byte {
	dst = appendName(dst, t.Name)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(t.Params)))
	for _, p := range t.Params {
		dst = appendType(dst, p)
	}
	return dst
}

// appendString appends an FString in the form s records.
func appendString(dst []byte, s *String) []byte {
	le := binary.LittleEndian
	switch {
	case s.Zero && s.Text == "":
		return le.AppendUint32(dst, 0)
	case s.Wide:
		u := utf16.Encode([]rune(s.Text))
		dst = le.AppendUint32(dst, uint32(-int32(len(u)+1)))
		for _, x := range u {
			dst = le.AppendUint16(dst, x)
		}
		return append(dst, 0, 0)
	}
	rs := []rune(s.Text)
	dst = le.AppendUint32(dst, uint32(len(rs)+1))
	for _, r := range rs {
		dst = append(dst, byte(r))
	}
	return append(dst, 0)
}

// newString returns the String the engine would write for text: empty as
// a zero length, ASCII as bytes, anything else as UTF-16 (as
// binio.AppendFString32 writes it).
func newString(text string) *String {
	if text == "" {
		return &String{Zero: true}
	}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return &String{Text: text, Wide: true}
		}
	}
	return &String{Text: text}
}

// value appends a value; top says it is a property's value (a bool's
// value is then in the tag, not here).
func (e *encoder) value(dst []byte, v Value, top bool) []byte {
	le := binary.LittleEndian
	switch x := v.(type) {
	case Bool:
		if top {
			return dst
		}
		return appendBool8(dst, bool(x))
	case Int8:
		return append(dst, byte(x))
	case Int16:
		return le.AppendUint16(dst, uint16(x))
	case Int:
		return le.AppendUint32(dst, uint32(x))
	case Int64:
		return le.AppendUint64(dst, uint64(x))
	case Byte:
		return append(dst, byte(x))
	case UInt16:
		return le.AppendUint16(dst, uint16(x))
	case UInt32:
		return le.AppendUint32(dst, uint32(x))
	case UInt64:
		return le.AppendUint64(dst, uint64(x))
	case Float:
		return le.AppendUint32(dst, math.Float32bits(float32(x)))
	case Double:
		return le.AppendUint64(dst, math.Float64bits(float64(x)))
	case NameValue:
		return appendName(dst, Name(x))
	case EnumValue:
		return appendName(dst, Name(x))
	case *String:
		return appendString(dst, x)
	case Object:
		return le.AppendUint32(dst, uint32(x))
	case LazyObject:
		return append(dst, x[:]...)
	case GUIDValue:
		return append(dst, x[:]...)
	case *SoftObject:
		if x.TopLevel {
			dst = appendName(dst, x.PackageName)
			dst = appendName(dst, x.AssetName)
		} else {
			dst = appendName(dst, x.AssetPath)
		}
		sub := x.SubPath
		if sub == nil {
			sub = &String{Zero: true}
		}
		if x.UTF8 {
			dst = le.AppendUint32(dst, uint32(len(sub.Text)))
			return append(dst, sub.Text...)
		}
		return appendString(dst, sub)
	case *Struct:
		switch {
		case x.Tagged != nil && x.Tagged.Schema != "":
			// An unversioned list nested in a native struct's fields.
			return e.ulist(dst, x.Tagged)
		case x.Tagged != nil:
			return e.list(dst, x.Tagged, false)
		case x.Native != nil:
			for _, f := range x.Native {
				if f.Sized {
					at := len(dst)
					dst = e.value(le.AppendUint32(dst, 0), f.Value, false)
					le.PutUint32(dst[at:], uint32(len(dst)-at-4))
					continue
				}
				dst = e.value(dst, f.Value, false)
			}
			return dst
		}
		return append(dst, x.Raw...)
	case *Array:
		dst = le.AppendUint32(dst, uint32(len(x.Elements)))
		var elems []byte
		for _, el := range x.Elements {
			elems = e.value(elems, el.Value, false)
		}
		if x.InnerTag != nil {
			dst = appendName(dst, x.InnerTag.Name)
			dst = e.tagOld(dst, x.InnerTag, len(elems))
		}
		return append(dst, elems...)
	case *EnumInt:
		return e.uvalue(dst, x)
	case *Delegate, *MulticastDelegate, *FieldPath:
		dst, _ = appendDelegateValue(dst, v)
		return dst
	case *Raw:
		return append(dst, x.Bytes...)
	case nil:
		e.fail("a property has no value")
		return dst
	}
	e.fail("value of unknown type %T", v)
	return dst
}
