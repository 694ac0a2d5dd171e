// Package pkgschema reads the property definitions a cooked package holds
// for the types it defines itself: its Blueprint classes
// (BlueprintGeneratedClass exports and their kin), user-defined structs
// (UserDefinedStruct) and user-defined enums (UserDefinedEnum). A game's
// .usmap mappings (package usmap) often lack these types, since the dumper
// saw only what the game had loaded; without them an object of a
// Blueprint class cooked with unversioned properties cannot be read. The
// package that defines the type holds it, and this package turns it into
// the usmap schema package props reads unversioned data with.
//
// A UStruct export serializes, after its own property list and object
// tail, its super struct (an FPackageIndex), its children (the UFunctions,
// an array of FPackageIndex) and, from UE 4.25 (FCoreObjectVersion
// FProperties), its ChildProperties: a count, then for each property its
// type's FName and the FField serialization — the name, the object flags
// (not stored by a cook from UE 5.8 on), the static array size, the element
// size, the property flags, the replication index, the rep-notify function
// and the Blueprint replication condition, then what the type adds: the
// struct of a StructProperty, the enum (and for an EnumProperty its
// underlying property) of an enum, the class of an object or interface
// reference (and the meta class of a class reference), the signature of a
// delegate, the field class of a field path, the bitfield layout of a bool,
// the inner property of an array, set or optional and the key and value
// properties of a map. DecodeStruct reads that part; DecodeEnum reads the
// entries of a UEnum. Source gives the schemas of a package's types, and
// of the types they derive from in other packages, to usmap.Mappings.With.
//
// Bad input gives a *ue.FormatError with the offset in the export data;
// every count is checked against the bytes left before anything is
// allocated.
package pkgschema

import (
	"errors"
	"fmt"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// FieldFlags says whether the FFields of a package store their object
// flags: every cook before UE 5.8 does, a UE 5.8 cook (which filters
// editor-only data) does not.
type FieldFlags uint8

// The FieldFlags modes.
const (
	// FlagsUnknown tries both layouts and takes the one that reads
	// through; when both do and disagree, the definition is refused.
	FlagsUnknown FieldFlags = iota
	// FlagsStored: each FField stores a uint32 of object flags.
	FlagsStored
	// FlagsNotStored: the FFields store no object flags (UE 5.8 cooks).
	FlagsNotStored
)

// Options describe the package a definition is read from.
type Options struct {
	// Names is the package's name map, which FNames index.
	Names []string
	// Imports and Exports are the package's import and export counts:
	// an object reference outside them is damage. 0 and 0 skip the check.
	Imports, Exports int
	// Flags says whether FFields store their object flags.
	Flags FieldFlags
	// File and Struct name the export in errors.
	File, Struct string
}

// Limits that keep damaged definitions from allocating much.
const (
	// MaxArrayDim is the largest static array size accepted.
	MaxArrayDim = 1 << 12
	// MaxSlots is the most schema slots (properties times their static
	// array sizes) a struct's own properties may take, as in .usmap files.
	MaxSlots = 1<<16 - 1
	// maxDepth is how deep inner properties may nest.
	maxDepth = 16
	// minField is the fewest bytes a property definition takes: its
	// type and name, array size, element size, property flags,
	// replication index, rep-notify name and condition.
	minField = 8 + 8 + 4 + 4 + 8 + 2 + 8 + 1
)

// Struct is what a UStruct export serializes after its object part, up
// to its ChildProperties: the super struct, the children (functions) and
// the property definitions.
type Struct struct {
	// Super is the super struct as an FPackageIndex (0 for none).
	Super int32 `json:"super"`
	// Children are the struct's UField children (functions).
	Children []int32 `json:"children"`
	// Properties are the ChildProperties, in the order the engine links
	// them: the order of the struct's own schema slots.
	Properties []*Field `json:"properties"`
	// Flags says whether the FFields stored object flags.
	Flags FieldFlags `json:"-"`
	// Start and End are the offsets of the part read in the data.
	Start, End int `json:"-"`
}

// Field is one serialized property definition (an FProperty).
type Field struct {
	// Type is the field class's name, e.g. "IntProperty",
	// "ObjectPtrProperty", "MulticastInlineDelegateProperty".
	Type string `json:"type"`
	Name string `json:"name"`
	// ObjectFlags are the FField's flags, when stored.
	ObjectFlags uint32 `json:"object_flags,omitempty"`
	ArrayDim    int32  `json:"array_dim"`
	ElementSize int32  `json:"element_size"`
	// PropertyFlags are the EPropertyFlags (CPF_*).
	PropertyFlags uint64 `json:"property_flags"`
	RepIndex      uint16 `json:"rep_index,omitempty"`
	RepNotify     string `json:"rep_notify,omitempty"`
	RepCondition  uint8  `json:"rep_condition,omitempty"`
	// Ref is the object the type names: the struct of a StructProperty,
	// the enum of a ByteProperty or EnumProperty, the class of an object,
	// class, soft, weak, lazy or interface reference, the signature
	// function of a delegate (FPackageIndex values, 0 for none).
	Ref int32 `json:"ref,omitempty"`
	// MetaClass is the meta class of a ClassProperty or SoftClassProperty.
	MetaClass int32 `json:"meta_class,omitempty"`
	// FieldClass is the field class name of a FieldPathProperty.
	FieldClass string `json:"field_class,omitempty"`
	// Bool is the bitfield layout of a BoolProperty.
	Bool *BoolLayout `json:"bool,omitempty"`
	// Inner is the element of an array, set or optional, the key of a
	// map and the underlying property of an enum; Value is a map's value.
	Inner *Field `json:"inner,omitempty"`
	Value *Field `json:"value,omitempty"`
	// Offset is where the definition starts in the data.
	Offset int `json:"-"`
}

// BoolLayout is how a BoolProperty sits in memory: its field size, byte
// offset, byte mask and field mask, its size and whether it is a native
// bool (not a bitfield).
type BoolLayout struct {
	FieldSize, ByteOffset, ByteMask, FieldMask, BoolSize uint8
	Native                                               bool
}

// Enum is what a UEnum export serializes after its object part.
type Enum struct {
	// Entries are the enumerators' names as stored (e.g.
	// "E_Fixture::NewEnumerator0") and values.
	Entries []EnumEntry `json:"entries"`
	// CppForm is how the enum was declared: 0 regular, 1 namespaced,
	// 2 enum class.
	CppForm uint8 `json:"cpp_form"`
	// End is the offset after the part read.
	End int `json:"-"`
}

// EnumEntry is one enumerator.
type EnumEntry struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// kinds are the field classes the decoder knows, with what each adds to
// the FProperty part.
type extra uint8

const (
	exNone      extra = iota
	exRef             // one FPackageIndex
	exClass           // class and meta class
	exEnum            // enum, then the underlying property
	exBool            // the bitfield layout
	exInner           // one inner property
	exMap             // key and value properties
	exFieldPath       // a field class FName
)

var fieldTypes = map[string]extra{
	"BoolProperty": exBool, "ByteProperty": exRef, "Int8Property": exNone, "Int16Property": exNone,
	"IntProperty": exNone, "Int64Property": exNone, "UInt16Property": exNone, "UInt32Property": exNone,
	"UInt64Property": exNone, "FloatProperty": exNone, "DoubleProperty": exNone, "NameProperty": exNone,
	"StrProperty": exNone, "TextProperty": exNone, "Utf8StrProperty": exNone, "AnsiStrProperty": exNone,
	"ObjectProperty": exRef, "ObjectPtrProperty": exRef, "WeakObjectProperty": exRef, "LazyObjectProperty": exRef,
	"SoftObjectProperty": exRef, "InterfaceProperty": exRef, "ClassProperty": exClass, "ClassPtrProperty": exClass,
	"SoftClassProperty": exClass, "StructProperty": exRef, "EnumProperty": exEnum, "DelegateProperty": exRef,
	"MulticastDelegateProperty": exRef, "MulticastInlineDelegateProperty": exRef, "MulticastSparseDelegateProperty": exRef,
	"ArrayProperty": exInner, "SetProperty": exInner, "OptionalProperty": exInner, "MapProperty": exMap,
	"FieldPathProperty": exFieldPath,
}

// ErrUnknownField means a property definition's type is not one this
// package knows (a game's own property class, a Verse property …): where
// it ends cannot be told.
var ErrUnknownField = errors.New("unknown property type")

// decoder reads one definition.
type decoder struct {
	o     *Options
	data  []byte
	flags bool
}

func (d *decoder) errorAt(off int, kind error, format string, args ...any) error {
	return &ue.FormatError{File: d.o.File, Struct: d.o.Struct, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Err: kind}
}

func (d *decoder) fail(c *binio.Cursor) error {
	err := c.Err()
	if what, off, msg, ok := binio.Describe(err); ok {
		return &ue.FormatError{File: d.o.File, Struct: d.o.Struct, Offset: off, Msg: what + ": " + msg, Err: err}
	}
	return d.errorAt(c.Pos(), ue.ErrCorrupt, "%v", err)
}

// name reads an FName (index and number).
func (d *decoder) name(c *binio.Cursor, what string) string {
	at := c.Pos()
	i, n := c.U32(what), c.U32(what+" number")
	if c.Err() != nil {
		return ""
	}
	if int64(i) >= int64(len(d.o.Names)) {
		c.FailAt(at, what, fmt.Errorf("name index %d outside the %d names", i, len(d.o.Names)))
		return ""
	}
	if n != 0 {
		return fmt.Sprintf("%s_%d", d.o.Names[i], n-1)
	}
	return d.o.Names[i]
}

// ref reads an FPackageIndex and checks it against the maps.
func (d *decoder) ref(c *binio.Cursor, what string) int32 {
	at := c.Pos()
	v := c.I32(what)
	if c.Err() == nil && (d.o.Imports > 0 || d.o.Exports > 0) {
		if v > 0 && int64(v) > int64(d.o.Exports) || v < 0 && -int64(v) > int64(d.o.Imports) {
			c.FailAt(at, what, fmt.Errorf("object %d outside the %d imports and %d exports", v, d.o.Imports, d.o.Exports))
		}
	}
	return v
}

// DecodeStruct reads the UStruct part of a class or struct export's data
// from offset at (where its object part ends: props.List's TailEnd): the
// super struct, the children and the ChildProperties. With
// Options.Flags FlagsUnknown it reads both layouts, and takes the one
// whose definitions read through and are followed by a plausible script
// size.
func DecodeStruct(data []byte, at int, o *Options) (*Struct, error) {
	if o == nil {
		o = &Options{}
	}
	if at < 0 || at > len(data) {
		return nil, &ue.FormatError{File: o.File, Struct: o.Struct, Offset: int64(at), Msg: fmt.Sprintf("start %d outside the %d bytes", at, len(data)), Err: ue.ErrCorrupt}
	}
	switch o.Flags {
	case FlagsStored, FlagsNotStored:
		d := &decoder{o: o, data: data, flags: o.Flags == FlagsStored}
		return d.structure(at)
	}
	without, errWithout := (&decoder{o: o, data: data}).structure(at)
	with, errWith := (&decoder{o: o, data: data, flags: true}).structure(at)
	switch {
	case errWithout == nil && errWith == nil:
		if len(without.Properties) == 0 && len(with.Properties) == 0 {
			return without, nil
		}
		return nil, &ue.FormatError{File: o.File, Struct: o.Struct, Offset: int64(at), Err: ue.ErrCorrupt,
			Msg: "the property definitions read both with and without FField object flags; give the engine release"}
	case errWithout == nil:
		return without, nil
	case errWith == nil:
		return with, nil
	}
	// Neither reads: report the layout that got further, and say what
	// the other found.
	var a, b *ue.FormatError
	if !errors.As(errWithout, &a) || !errors.As(errWith, &b) {
		return nil, errWithout
	}
	first, other, how := a, b, "with FField object flags (as before UE 5.8)"
	if b.Offset > a.Offset {
		first, other, how = b, a, "without FField object flags (as UE 5.8 cooks)"
	}
	e := *first
	e.Msg = fmt.Sprintf("%s (read %s: at 0x%X: %s)", first.Msg, how, other.Offset, other.Msg)
	return nil, &e
}

// structure reads the UStruct part.
func (d *decoder) structure(at int) (*Struct, error) {
	c := binio.NewCursor(d.data, 0)
	c.SetKind(ue.ErrCorrupt)
	c.Seek(at, "struct")
	s := &Struct{Start: at, Flags: FlagsNotStored}
	if d.flags {
		s.Flags = FlagsStored
	}
	s.Super = d.ref(c, "super struct")
	n := c.Count32("children count", 4)
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	s.Children = make([]int32, n)
	for i := range s.Children {
		s.Children[i] = d.ref(c, "child")
	}
	min := minField
	if d.flags {
		min += 4
	}
	n = c.Count32("property count", min)
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	s.Properties = make([]*Field, 0, n)
	slots := 0
	for i := 0; i < n; i++ {
		fat := c.Pos()
		f, err := d.field(c, 0)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, d.errorAt(fat, ue.ErrCorrupt, "property %d of %d has no type (None)", i, n)
		}
		if slots += int(f.ArrayDim); slots > MaxSlots {
			return nil, d.errorAt(fat, ue.ErrCorrupt, "the properties take more than %d schema slots", MaxSlots)
		}
		s.Properties = append(s.Properties, f)
	}
	// The script follows: its in-memory and stored sizes.
	sat := c.Pos()
	mem, stored := c.I32("bytecode buffer size"), c.I32("serialized script size")
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if mem < 0 || stored < 0 || int(stored) > c.Len() {
		return nil, d.errorAt(sat, ue.ErrCorrupt, "script sizes %d and %d after the property definitions; %d bytes left", mem, stored, c.Len())
	}
	s.End = sat
	return s, nil
}

// field reads one property definition: its type name, then the FField and
// FProperty parts and what its type adds. A type of None is no property
// (nil, as an array's missing inner).
func (d *decoder) field(c *binio.Cursor, depth int) (*Field, error) {
	at := c.Pos()
	typ := d.name(c, "property type")
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if typ == "None" {
		return nil, nil
	}
	ex, ok := fieldTypes[typ]
	if !ok {
		return nil, d.errorAt(at, fmt.Errorf("%w: %w", ErrUnknownField, ue.ErrUnsupportedVersion), "property type %q is not one unrmod knows", typ)
	}
	if depth >= maxDepth {
		return nil, d.errorAt(at, ue.ErrCorrupt, "inner properties nest more than %d levels", maxDepth)
	}
	f := &Field{Type: typ, Offset: at}
	f.Name = d.name(c, "property name")
	if d.flags {
		f.ObjectFlags = c.U32("object flags")
	}
	dimAt := c.Pos()
	f.ArrayDim = c.I32("array dim")
	f.ElementSize = c.I32("element size")
	f.PropertyFlags = c.U64("property flags")
	f.RepIndex = c.U16("rep index")
	f.RepNotify = d.name(c, "rep notify function")
	f.RepCondition = c.U8("blueprint replication condition")
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if f.ArrayDim < 1 || f.ArrayDim > MaxArrayDim || f.ElementSize < 0 {
		return nil, d.errorAt(dimAt, ue.ErrCorrupt, "property %s: static array size %d, element size %d", f.Name, f.ArrayDim, f.ElementSize)
	}
	var err error
	switch ex {
	case exRef:
		f.Ref = d.ref(c, typ+" object")
	case exClass:
		f.Ref = d.ref(c, "property class")
		f.MetaClass = d.ref(c, "meta class")
	case exEnum:
		f.Ref = d.ref(c, "enum")
		if c.Err() == nil {
			f.Inner, err = d.field(c, depth+1)
		}
	case exBool:
		b := c.Bytes(6, "bool layout")
		if c.Err() == nil {
			f.Bool = &BoolLayout{FieldSize: b[0], ByteOffset: b[1], ByteMask: b[2], FieldMask: b[3], BoolSize: b[4], Native: b[5] != 0}
		}
	case exInner:
		f.Inner, err = d.field(c, depth+1)
	case exMap:
		if f.Inner, err = d.field(c, depth+1); err == nil {
			f.Value, err = d.field(c, depth+1)
		}
	case exFieldPath:
		f.FieldClass = d.name(c, "field class")
	}
	if err != nil {
		return nil, err
	}
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	return f, nil
}

// DecodeEnum reads the UEnum part of an enum export's data from offset at
// (where its object part ends): the entries (FName and int64 value),
// the C++ form and, when present, the underlying type byte.
func DecodeEnum(data []byte, at int, o *Options) (*Enum, error) {
	if o == nil {
		o = &Options{}
	}
	d := &decoder{o: o, data: data}
	c := binio.NewCursor(data, 0)
	c.SetKind(ue.ErrCorrupt)
	if at < 0 || at > len(data) {
		return nil, d.errorAt(at, ue.ErrCorrupt, "start %d outside the %d bytes", at, len(data))
	}
	c.Seek(at, "enum")
	n := c.Count32("enum entry count", 16)
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	e := &Enum{Entries: make([]EnumEntry, n)}
	for i := range e.Entries {
		e.Entries[i].Name = d.name(c, "enum entry name")
		e.Entries[i].Value = c.I64("enum entry value")
	}
	formAt := c.Pos()
	e.CppForm = c.U8("enum C++ form")
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if e.CppForm > 2 {
		return nil, d.errorAt(formAt, ue.ErrCorrupt, "enum C++ form %d", e.CppForm)
	}
	e.End = c.Pos()
	return e, nil
}
