package props

import (
	"encoding/binary"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// Delegate is a DelegateProperty value, an FScriptDelegate: the object
// the delegate is bound to (an object reference, as ObjectProperty values
// store it) and the name of the function it calls. An unbound delegate is
// the null object and None.
type Delegate struct {
	Object   Object `json:"object"`
	Function Name   `json:"function"`
}

func (*Delegate) isValue() {}

// String returns the delegate as the engine exports it as text,
// "Object.Function" (the object as Object.String gives it), or "None" for
// an unbound one.
func (v *Delegate) String() string { return v.format(nil) }

func (v *Delegate) format(object func(int32) string) string {
	if v.Object == 0 && v.Function.IsNone() {
		return "None"
	}
	o := v.Object.String()
	if object != nil && v.Object != 0 {
		o = object(int32(v.Object))
	}
	return o + "." + v.Function.Text
}

// MulticastDelegate is the value of a MulticastInlineDelegateProperty or a
// MulticastSparseDelegateProperty (MulticastDelegateProperty in older
// packages and in mappings): the delegates it invokes, stored as an int32
// count and that many FScriptDelegates. A sparse delegate is stored as an
// inline one.
type MulticastDelegate struct {
	Delegates []Delegate `json:"delegates"`
}

func (*MulticastDelegate) isValue() {}

// String returns the delegates as (A.F,B.G), as the engine exports them.
func (v *MulticastDelegate) String() string { return v.format(nil) }

func (v *MulticastDelegate) format(object func(int32) string) string {
	parts := make([]string, len(v.Delegates))
	for i := range v.Delegates {
		parts[i] = v.Delegates[i].format(object)
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// FieldPath is a FieldPathProperty value, an FFieldPath: the names from
// the field to the struct that owns it (innermost first, as stored), then
// the owning struct as an object reference. Data saved before the owner
// was serialized (FReleaseObjectVersion / FFortniteMainBranchObjectVersion
// FFieldPathOwnerSerialization, UE 4.25) has no owner: its Path runs up to
// the package, and Owner is nil.
type FieldPath struct {
	Path  []Name  `json:"path"`
	Owner *Object `json:"owner,omitempty"`
}

func (*FieldPath) isValue() {}

// String returns the path as the engine prints it: the owner, ':', then
// the names outermost first joined by ':' ("import 1:Health"), or "None"
// for an empty path.
func (v *FieldPath) String() string { return v.format(nil) }

func (v *FieldPath) format(object func(int32) string) string {
	var b strings.Builder
	if v.Owner != nil && *v.Owner != 0 {
		if object != nil {
			b.WriteString(object(int32(*v.Owner)))
		} else {
			b.WriteString(v.Owner.String())
		}
		b.WriteByte(':')
	}
	if len(v.Path) == 0 {
		if b.Len() == 0 {
			return "None"
		}
		return strings.TrimSuffix(b.String(), ":")
	}
	// Without an owner the outermost name is the package, followed by a
	// '.' before the owning struct; the other names are subobjects.
	for i := len(v.Path) - 1; i >= 0; i-- {
		s := v.Path[i].Text
		b.WriteString(s)
		if i > 0 {
			if v.Owner == nil && i == len(v.Path)-1 && strings.HasPrefix(s, "/") {
				b.WriteByte('.')
			} else {
				b.WriteByte(':')
			}
		}
	}
	return b.String()
}

// delegate reads an FScriptDelegate: an object reference and an FName.
func (d *decoder) delegate(c *binio.Cursor) (Delegate, bool) {
	o := Object(c.I32("delegate object"))
	f, ok := d.name(c, "delegate function name")
	return Delegate{Object: o, Function: f}, ok && c.Err() == nil
}

// multicast reads a multicast delegate's invocation list: an int32 count
// (checked against the bytes left, 12 a delegate) and the delegates.
func (d *decoder) multicast(c *binio.Cursor) (Value, error) {
	n := c.Count32("multicast delegate count", 12)
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	v := &MulticastDelegate{Delegates: make([]Delegate, 0, n)}
	for range n {
		x, ok := d.delegate(c)
		if !ok {
			return nil, d.fail(c)
		}
		v.Delegates = append(v.Delegates, x)
	}
	return v, nil
}

// fieldPath reads an FFieldPath: an int32 count (checked against the
// bytes left, 8 a name), the names, then the owner's object reference
// when owner says the data has one.
func (d *decoder) fieldPath(c *binio.Cursor, owner bool) (Value, error) {
	n := c.Count32("field path length", 8)
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	v := &FieldPath{Path: make([]Name, 0, n)}
	for range n {
		x, ok := d.name(c, "field path name")
		if !ok {
			return nil, d.fail(c)
		}
		v.Path = append(v.Path, x)
	}
	if owner {
		o := Object(c.I32("field path owner"))
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		v.Owner = &o
	}
	return v, nil
}

// fieldPathOwner says whether a field path value ends with its owner: a
// top-level tagged value says so by its size (the names are 8 bytes each,
// the owner 4), anything else by the context.
func (d *decoder) fieldPathOwner(c *binio.Cursor, it item) bool {
	if it.top && c.Len() >= 4 {
		if n := int64(int32(binary.LittleEndian.Uint32(d.data[c.Pos():]))); n >= 0 {
			switch int64(c.Len()) {
			case 4 + 8*n:
				return false
			case 8 + 8*n:
				return true
			}
		}
	}
	return !d.ctx.FieldPathsWithoutOwner
}

func appendDelegate(dst []byte, x *Delegate) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(x.Object))
	return appendName(dst, x.Function)
}

// appendDelegateValue appends a delegate, multicast delegate or field
// path; ok is false for other values.
func appendDelegateValue(dst []byte, v Value) ([]byte, bool) {
	le := binary.LittleEndian
	switch x := v.(type) {
	case *Delegate:
		return appendDelegate(dst, x), true
	case *MulticastDelegate:
		dst = le.AppendUint32(dst, uint32(len(x.Delegates)))
		for i := range x.Delegates {
			dst = appendDelegate(dst, &x.Delegates[i])
		}
		return dst, true
	case *FieldPath:
		dst = le.AppendUint32(dst, uint32(len(x.Path)))
		for _, n := range x.Path {
			dst = appendName(dst, n)
		}
		if x.Owner != nil {
			dst = le.AppendUint32(dst, uint32(*x.Owner))
		}
		return dst, true
	}
	return dst, false
}
