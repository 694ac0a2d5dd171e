package props

import (
	"fmt"
	"strings"
)

// Name is an FName as export data stores it: an index into the package's
// name map and a number (0: none; n: the text gets the suffix _<n-1>).
// Text is the name with its suffix, filled by the decoder.
type Name struct {
	Index  int32  `json:"index"`
	Number uint32 `json:"number,omitempty"`
	Text   string `json:"text"`
}

// String returns the name's text.
func (n Name) String() string { return n.Text }

// IsNone reports whether n is the name None (number 0), which ends a
// property list.
func (n Name) IsNone() bool { return n.Number == 0 && strings.EqualFold(n.Text, "None") }

// GUID is an FGuid as its 16 bytes are stored (four little-endian uint32).
type GUID [16]byte

// String returns the GUID as the engine prints it: 32 upper-case hex
// digits, each of the four uint32 most significant digit first.
func (g GUID) String() string {
	var b strings.Builder
	for i := 0; i < 16; i += 4 {
		fmt.Fprintf(&b, "%08X", uint32(g[i])|uint32(g[i+1])<<8|uint32(g[i+2])<<16|uint32(g[i+3])<<24)
	}
	return b.String()
}

// MarshalText returns the String form.
func (g GUID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// IsZero reports whether every byte is zero.
func (g GUID) IsZero() bool { return g == GUID{} }

// TypeName is a property type as a tree: the type's name and its
// parameters, e.g. ArrayProperty(StructProperty(Vector(/Script/CoreUObject))).
// UE 5.4+ tags (package version 1012, PROPERTY_TAG_COMPLETE_TYPE_NAME)
// store the whole tree; for older tags the decoder builds it from what the
// tag holds: StructProperty(StructName), ByteProperty(EnumName),
// EnumProperty(EnumName), ArrayProperty(Inner), SetProperty(Inner),
// MapProperty(Key, Value), OptionalProperty(Inner); other types have no
// parameters.
type TypeName struct {
	Name   Name       `json:"name"`
	Params []TypeName `json:"params,omitempty"`
}

// Param returns parameter i, or the zero TypeName.
func (t TypeName) Param(i int) TypeName {
	if i < len(t.Params) {
		return t.Params[i]
	}
	return TypeName{}
}

// Full returns the whole tree as text, e.g.
// "StructProperty(Vector(/Script/CoreUObject))".
func (t TypeName) Full() string {
	var b strings.Builder
	t.write(&b, false)
	return b.String()
}

// String returns the short form: struct and enum names without their
// module paths, and no parameter that is None, e.g. "StructProperty(Vector)",
// "ArrayProperty(IntProperty)", "ByteProperty(EFoo)", "ByteProperty".
func (t TypeName) String() string {
	var b strings.Builder
	t.write(&b, true)
	return b.String()
}

func (t TypeName) write(b *strings.Builder, short bool) {
	b.WriteString(t.Name.Text)
	params := t.Params
	if short {
		switch t.Name.Text {
		case "StructProperty", "ByteProperty", "EnumProperty":
			// The struct or enum name; its own parameters are its path,
			// and an enum's second parameter is its underlying type.
			if len(params) == 0 || params[0].Name.IsNone() {
				return
			}
			b.WriteString("(" + params[0].Name.Text + ")")
			return
		}
	}
	if len(params) == 0 {
		return
	}
	b.WriteByte('(')
	for i, p := range params {
		if i > 0 {
			b.WriteString(",")
		}
		p.write(b, short)
	}
	b.WriteByte(')')
}

// nodes returns the number of nodes of the tree.
func (t TypeName) nodes() int {
	n := 1
	for _, p := range t.Params {
		n += p.nodes()
	}
	return n
}

// Tag flags of UE 5.4+ property tags (EPropertyTagFlags).
const (
	FlagHasArrayIndex              uint8 = 0x01
	FlagHasPropertyGUID            uint8 = 0x02
	FlagHasPropertyExtensions      uint8 = 0x04
	FlagHasBinaryOrNativeSerialize uint8 = 0x08
	FlagBoolTrue                   uint8 = 0x10
	FlagSkippedSerialize           uint8 = 0x20
	knownTagFlags                        = 0x3F
)

// Property tag extension flags (EPropertyTagExtension).
const (
	ExtensionOverridableInformation uint8 = 0x02
	ExtensionExternalObjects        uint8 = 0x04
	knownExtensions                       = 0x06
)

// Extensions are a tag's property extensions (UE5 package version 1011 and
// later): the flags, and for OverridableInformation the overridden-property
// operation and the experimental-overridable-logic bool.
type Extensions struct {
	Flags                        uint8 `json:"flags"`
	OverrideOperation            uint8 `json:"override_operation,omitempty"`
	ExperimentalOverridableLogic bool  `json:"experimental_overridable_logic,omitempty"`
	ExternalObjects              bool  `json:"external_objects,omitempty"`
}

// Tag is an FPropertyTag: what precedes a value in a property list.
type Tag struct {
	// Name is the property's name.
	Name Name `json:"name"`
	// Type is the property's type tree.
	Type TypeName `json:"type"`
	// Size is the value's size in bytes as stored (0 for a bool, whose
	// value is in the tag).
	Size int32 `json:"size"`
	// ArrayIndex is the element of a static (C-style) array property.
	ArrayIndex int32 `json:"array_index,omitempty"`
	// Flags are the UE 5.4+ tag flags as stored (FlagHasArrayIndex …);
	// the decoder sets FlagHasPropertyGUID, FlagHasPropertyExtensions and
	// FlagBoolTrue for older tags too, so that they read the same.
	Flags uint8 `json:"flags,omitempty"`
	// PropertyGUID is the property's GUID when the tag has one.
	PropertyGUID *GUID `json:"property_guid,omitempty"`
	// StructGUID is the struct GUID of an older StructProperty tag.
	StructGUID GUID `json:"struct_guid,omitzero"`
	// Extensions are the tag's property extensions, when stored.
	Extensions *Extensions `json:"extensions,omitempty"`
}

// Bool returns the value of a BoolProperty tag.
func (t *Tag) Bool() bool { return t.Flags&FlagBoolTrue != 0 }

// Native reports whether a UE 5.4+ tag says its value was written by a
// native or binary serializer rather than as a tag list.
func (t *Tag) Native() bool { return t.Flags&FlagHasBinaryOrNativeSerialize != 0 }

// Property is one property of a list: its tag, where it is in the data and
// its decoded value.
type Property struct {
	Tag
	// Offset is where the tag starts in the data; SizeOffset where its
	// Size field is; ValueOffset where the value starts (Size bytes).
	Offset      int `json:"offset"`
	SizeOffset  int `json:"size_offset"`
	ValueOffset int `json:"value_offset"`
	// BoolOffset is where a bool's value is: the value byte of an older
	// tag, or the flags byte of a UE 5.4+ tag (bit FlagBoolTrue).
	BoolOffset int `json:"bool_offset,omitempty"`
	// Value is the decoded value; Raw when the type is not decoded.
	Value Value `json:"-"`
	// Problem says why a value of a type the package decodes was kept
	// raw (e.g. a struct whose bytes are no tag list); "" otherwise.
	Problem string `json:"problem,omitempty"`
	// Slot is the property's position in its struct's schema, and Zero
	// says its zero-mask bit is set (no bytes are stored; Value is the
	// type's zero): unversioned lists only.
	Slot int  `json:"slot,omitempty"`
	Zero bool `json:"zero,omitempty"`
}

// Label returns the property's name with its static array index, e.g.
// "Weights[2]", or just the name for index 0.
func (p *Property) Label() string {
	if p.ArrayIndex != 0 {
		return fmt.Sprintf("%s[%d]", p.Name.Text, p.ArrayIndex)
	}
	return p.Name.Text
}

// TypeString returns the property's type in short form, completed for
// older struct arrays with the struct name their inner tag holds, e.g.
// "ArrayProperty(StructProperty(Vector))".
func (p *Property) TypeString() string {
	if a, ok := p.Value.(*Array); ok && a.InnerTag != nil {
		return p.Type.Name.Text + "(" + a.InnerTag.Type.String() + ")"
	}
	return p.Type.String()
}

// Control is the serialization-control byte that UE5 objects (package
// version 1011 and later) write before their property list
// (EClassSerializationControlExtension), with the operation byte that
// follows when bit 0x02 is set.
type Control struct {
	Flags     uint8 `json:"flags"`
	Operation uint8 `json:"operation,omitempty"`
}

// Control flags.
const (
	ControlOverridableSerializationInformation uint8 = 0x02
	knownControlFlags                                = 0x02
)

// List is a property list: an object's, a tagged struct's or a DataTable
// row's.
type List struct {
	// Control is the object's serialization-control byte (UE5 objects of
	// package version 1011 and later); nil otherwise.
	Control *Control `json:"control,omitempty"`
	// Start is where the first tag (or the control byte) starts.
	Start int `json:"start"`
	// Properties are the tags in order (in schema order for an
	// unversioned list).
	Properties []*Property `json:"properties"`
	// Schema names the struct or class an unversioned list follows, and
	// Header is its header as read; "" and nil for a tagged list, whose
	// NoneOffset, End and None then locate its terminating None (an
	// unversioned list has none: NoneOffset and End are its end).
	Schema string  `json:"schema,omitempty"`
	Header *Header `json:"-"`
	// NoneOffset is where the terminating None name starts; End is just
	// past it.
	NoneOffset int `json:"none_offset"`
	End        int `json:"end"`
	// None is the terminating name as stored.
	None Name `json:"-"`

	// The object tail: for an object that is not a class default object,
	// a 4-byte bool says whether a 16-byte object GUID follows.
	HasGUIDField bool  `json:"has_guid_field,omitempty"`
	ObjectGUID   *GUID `json:"object_guid,omitempty"`
	// TailEnd is where the tail ends (End when there is none); Rest are
	// the bytes after it (the object's native data), for an object list.
	TailEnd int    `json:"tail_end"`
	Rest    []byte `json:"-"`
}

// Find returns the property with the given name (case-insensitive) and
// static array index, or nil.
func (l *List) Find(name string, arrayIndex int32) *Property {
	for _, p := range l.Properties {
		if p.ArrayIndex == arrayIndex && strings.EqualFold(p.Name.Text, name) {
			return p
		}
	}
	return nil
}

// Count returns the number of properties in the list and in every struct
// and array element nested in it.
func (l *List) Count() int {
	n := 0
	for _, p := range l.Properties {
		n += 1 + countNested(p.Value)
	}
	return n
}

func countNested(v Value) int {
	switch x := v.(type) {
	case *Struct:
		if x.Tagged != nil {
			return x.Tagged.Count()
		}
	case *Array:
		n := 0
		for _, e := range x.Elements {
			n += countNested(e.Value)
		}
		return n
	}
	return 0
}

// Table is a decoded UDataTable export: its own properties, then the rows.
type Table struct {
	// Properties are the object's properties (RowStruct …), with the
	// object tail.
	Properties *List `json:"properties"`
	// RowsOffset is where the int32 row count starts.
	RowsOffset int   `json:"rows_offset"`
	Rows       []Row `json:"rows"`
	// End is where the rows end; Rest are the bytes after them.
	End  int    `json:"end"`
	Rest []byte `json:"-"`
}

// Row is one DataTable row: its name and its property list.
type Row struct {
	Name       Name  `json:"name"`
	Offset     int   `json:"offset"`
	Properties *List `json:"properties"`
}

// Row returns the row with the given name (case-insensitive), or nil.
func (t *Table) Row(name string) *Row {
	for i := range t.Rows {
		if strings.EqualFold(t.Rows[i].Name.Text, name) {
			return &t.Rows[i]
		}
	}
	return nil
}
