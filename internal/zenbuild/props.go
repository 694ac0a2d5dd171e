package zenbuild

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/unrmod/unrmod/internal/binio"
)

// This file writes tagged properties as the engine serializes an object's
// properties (docs/zen.md, "Tagged properties"): each property an
// FPropertyTag and its value, the list ending with the name None. UE 4.26 to
// 5.3 write the type as one name with its parameters after the size; UE 5.4
// and later (package version 1012) write the type as a tree of names and
// start every object's list with a serialization-control byte. It is written
// from the format notes, independently of the reader in props,
// so that tests of one check the other.

// Prop is one tagged property.
type Prop struct {
	Name string
	// Type is the property type: IntProperty, Int64Property, FloatProperty,
	// DoubleProperty, BoolProperty, StrProperty, NameProperty,
	// ObjectProperty, ByteProperty, EnumProperty, StructProperty or
	// ArrayProperty.
	Type string
	// Param is the struct name (StructProperty), the enum name
	// (EnumProperty; ByteProperty when it holds an enum value) or the inner
	// type (ArrayProperty, with values of IntProperty).
	Param string
	// Module is the script package of a struct or enum, e.g.
	// "/Script/CoreUObject" (UE 5.4+ type trees name it).
	Module string
	// ArrayIndex is the element of a static array.
	ArrayIndex int32
	// Value: int32 (Int, Object), int64, float32, float64, bool, string
	// (Str, Name, Enum and enum Byte values), uint8 (Byte), []Prop (a tagged
	// struct), []byte (a native struct's bytes), []int32 (an array of Int).
	Value any
}

// Row is one DataTable row: its name and its properties.
type Row struct {
	Name  string
	Props []Prop
}

// propWriter writes properties for one package.
type propWriter struct {
	name        func(string) int32 // the name's index, added to the name map
	completeTag bool               // UE 5.4+ tags (package version 1012)
	err         error
}

func (w *propWriter) fname(dst []byte, s string) []byte {
	dst = binio.AppendI32(dst, w.name(s))
	return binio.AppendI32(dst, 0)
}

// object appends an object's property list: the serialization-control byte
// of UE 5.4+ objects, the properties and None.
func (w *propWriter) object(dst []byte, props []Prop) []byte {
	if w.completeTag {
		dst = append(dst, 0)
	}
	return w.list(dst, props)
}

// list appends properties and the None that ends them.
func (w *propWriter) list(dst []byte, props []Prop) []byte {
	for _, p := range props {
		dst = w.prop(dst, p)
	}
	return w.fname(dst, "None")
}

// value returns a property's value bytes.
func (w *propWriter) value(p Prop) []byte {
	le := binary.LittleEndian
	bad := func() []byte {
		if w.err == nil {
			w.err = fmt.Errorf("zenbuild: property %s: value %T does not fit type %s", p.Name, p.Value, p.Type)
		}
		return nil
	}
	switch v := p.Value.(type) {
	case int32:
		return le.AppendUint32(nil, uint32(v))
	case int64:
		return le.AppendUint64(nil, uint64(v))
	case float32:
		return le.AppendUint32(nil, math.Float32bits(v))
	case float64:
		return le.AppendUint64(nil, math.Float64bits(v))
	case bool:
		return nil
	case uint8:
		return []byte{v}
	case string:
		if p.Type == "StrProperty" {
			return binio.AppendFString32(nil, v)
		}
		return w.fname(nil, v)
	case []Prop:
		return w.list(nil, v)
	case []byte:
		return v
	case []int32:
		b := le.AppendUint32(nil, uint32(len(v)))
		for _, x := range v {
			b = le.AppendUint32(b, uint32(x))
		}
		return b
	}
	return bad()
}

// prop appends one property: its tag and value.
func (w *propWriter) prop(dst []byte, p Prop) []byte {
	le := binary.LittleEndian
	value := w.value(p)
	dst = w.fname(dst, p.Name)
	b, isBool := p.Value.(bool)
	if w.completeTag {
		dst = w.typeTree(dst, p)
		dst = le.AppendUint32(dst, uint32(len(value)))
		var flags byte
		if isBool && b {
			flags |= 0x10 // BoolTrue
		}
		if _, native := p.Value.([]byte); native && p.Type == "StructProperty" {
			flags |= 0x08 // HasBinaryOrNativeSerialize
		}
		if p.ArrayIndex != 0 {
			flags |= 0x01 // HasArrayIndex
		}
		dst = append(dst, flags)
		if p.ArrayIndex != 0 {
			dst = le.AppendUint32(dst, uint32(p.ArrayIndex))
		}
		return append(dst, value...)
	}
	dst = w.fname(dst, p.Type)
	dst = le.AppendUint32(dst, uint32(len(value)))
	dst = le.AppendUint32(dst, uint32(p.ArrayIndex))
	switch p.Type {
	case "StructProperty":
		dst = w.fname(dst, p.Param)
		dst = append(dst, make([]byte, 16)...) // struct GUID
	case "BoolProperty":
		if b {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case "ByteProperty", "EnumProperty":
		param := p.Param
		if param == "" {
			param = "None"
		}
		dst = w.fname(dst, param)
	case "ArrayProperty":
		dst = w.fname(dst, p.Param)
	}
	dst = append(dst, 0) // no property GUID
	return append(dst, value...)
}

// typeTree appends a UE 5.4+ type name tree, pre-order: each node a name
// and its number of parameters.
func (w *propWriter) typeTree(dst []byte, p Prop) []byte {
	le := binary.LittleEndian
	node := func(name string, params int) {
		dst = w.fname(dst, name)
		dst = le.AppendUint32(dst, uint32(params))
	}
	switch {
	case p.Type == "StructProperty":
		node(p.Type, 1)
		node(p.Param, 1)
		node(p.Module, 0)
	case p.Type == "EnumProperty":
		node(p.Type, 2)
		node(p.Param, 1)
		node(p.Module, 0)
		node("ByteProperty", 0)
	case p.Type == "ByteProperty" && p.Param != "":
		node(p.Type, 1)
		node(p.Param, 1)
		node(p.Module, 0)
	case p.Type == "ArrayProperty":
		node(p.Type, 1)
		node(p.Param, 0)
	default:
		node(p.Type, 0)
	}
	return dst
}

// propNames returns the names a property list uses, for the name map.
func propNames(props []Prop, complete bool) []string {
	var out []string
	for _, p := range props {
		out = append(out, p.Name, p.Type)
		if p.Param != "" {
			out = append(out, p.Param)
		}
		if complete && p.Module != "" {
			out = append(out, p.Module)
		}
		if complete && p.Type == "EnumProperty" {
			out = append(out, "ByteProperty")
		}
		switch v := p.Value.(type) {
		case string:
			if p.Type != "StrProperty" {
				out = append(out, v)
			}
		case []Prop:
			out = append(out, propNames(v, complete)...)
		}
	}
	return out
}
