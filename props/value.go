package props

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Value is a decoded property value. Its dynamic type says what it is:
//
//   - Bool, Int8, Int16, Int, Int64, Byte, UInt16, UInt32, UInt64, Float,
//     Double: the numeric property types of the same names;
//   - NameValue (NameProperty), EnumValue (EnumProperty, and ByteProperty
//     of an enum, stored as the name "EFoo::Bar");
//   - *String (StrProperty), Object (ObjectProperty, ClassProperty,
//     WeakObjectProperty, InterfaceProperty: an FPackageIndex),
//     LazyObject (LazyObjectProperty: a GUID), *SoftObject
//     (SoftObjectProperty, SoftClassProperty);
//   - *Delegate (DelegateProperty), *MulticastDelegate
//     (MulticastInlineDelegateProperty, MulticastSparseDelegateProperty),
//     *FieldPath (FieldPathProperty): FNames and object references;
//   - *Struct (StructProperty), *Array (ArrayProperty);
//   - *Raw: every other type (Text, maps, sets, optionals) and values kept
//     undecoded, as their bytes.
type Value interface {
	// String formats the value for display.
	String() string
	isValue()
}

// Numeric values, named after their property types.
type (
	// Bool is a BoolProperty value (or an element of a bool array).
	Bool bool
	// Int8 is an Int8Property value.
	Int8 int8
	// Int16 is an Int16Property value.
	Int16 int16
	// Int is an IntProperty value.
	Int int32
	// Int64 is an Int64Property value.
	Int64 int64
	// Byte is a ByteProperty value that is not of an enum (and a uint8
	// field of a native struct).
	Byte uint8
	// UInt16 is a UInt16Property value.
	UInt16 uint16
	// UInt32 is a UInt32Property value.
	UInt32 uint32
	// UInt64 is a UInt64Property value.
	UInt64 uint64
	// Float is a FloatProperty value (and a float field of a native struct).
	Float float32
	// Double is a DoubleProperty value (and a double field of a native
	// struct, e.g. a UE5 Vector's X).
	Double float64
)

func (Bool) isValue()   {}
func (Int8) isValue()   {}
func (Int16) isValue()  {}
func (Int) isValue()    {}
func (Int64) isValue()  {}
func (Byte) isValue()   {}
func (UInt16) isValue() {}
func (UInt32) isValue() {}
func (UInt64) isValue() {}
func (Float) isValue()  {}
func (Double) isValue() {}

// String returns "true" or "false".
func (v Bool) String() string { return strconv.FormatBool(bool(v)) }

// String returns the number in decimal.
func (v Int8) String() string { return strconv.FormatInt(int64(v), 10) }

// String returns the number in decimal.
func (v Int16) String() string { return strconv.FormatInt(int64(v), 10) }

// String returns the number in decimal.
func (v Int) String() string { return strconv.FormatInt(int64(v), 10) }

// String returns the number in decimal.
func (v Int64) String() string { return strconv.FormatInt(int64(v), 10) }

// String returns the number in decimal.
func (v Byte) String() string { return strconv.FormatUint(uint64(v), 10) }

// String returns the number in decimal.
func (v UInt16) String() string { return strconv.FormatUint(uint64(v), 10) }

// String returns the number in decimal.
func (v UInt32) String() string { return strconv.FormatUint(uint64(v), 10) }

// String returns the number in decimal.
func (v UInt64) String() string { return strconv.FormatUint(uint64(v), 10) }

// String returns the shortest text that reads back as the same float32.
func (v Float) String() string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }

// String returns the shortest text that reads back as the same float64.
func (v Double) String() string { return strconv.FormatFloat(float64(v), 'g', -1, 64) }

// NameValue is the value of a NameProperty.
type NameValue Name

func (NameValue) isValue() {}

// String returns the name's text.
func (v NameValue) String() string { return v.Text }

// EnumValue is the value of an EnumProperty or of a ByteProperty of an
// enum: the enumerator's name, e.g. "EFoo::Bar".
type EnumValue Name

func (EnumValue) isValue() {}

// String returns the enumerator's name.
func (v EnumValue) String() string { return v.Text }

// String is an FString value: its text, and how it was stored, so that it
// encodes back to the same bytes.
type String struct {
	Text string `json:"text"`
	// Wide is true for a string stored as UTF-16 (a negative length),
	// false for one stored as Latin-1 bytes.
	Wide bool `json:"wide,omitempty"`
	// Zero is true for the empty string stored as length 0 (how the engine
	// writes it); false for one stored as a lone terminator.
	Zero bool `json:"zero,omitempty"`
}

func (*String) isValue() {}

// String returns the text quoted Go-style.
func (v *String) String() string { return strconv.Quote(v.Text) }

// Object is an object reference as export data stores it, an
// FPackageIndex: 0 is null, -i-1 the package's import i, i+1 its export i.
type Object int32

func (Object) isValue() {}

// Import returns the import map index of an import reference.
func (v Object) Import() (int, bool) { return int(-v - 1), v < 0 }

// Export returns the export index of an export reference.
func (v Object) Export() (int, bool) { return int(v - 1), v > 0 }

// String returns "None", "import 3" or "export 0".
func (v Object) String() string {
	if i, ok := v.Import(); ok {
		return fmt.Sprintf("import %d", i)
	}
	if i, ok := v.Export(); ok {
		return fmt.Sprintf("export %d", i)
	}
	return "None"
}

// LazyObject is a LazyObjectProperty value: the referenced object's GUID.
type LazyObject GUID

func (LazyObject) isValue() {}

// String returns the GUID.
func (v LazyObject) String() string { return GUID(v).String() }

// SoftObject is an FSoftObjectPath. UE5 (package version 1007 and later)
// stores the top-level asset as a package name and an asset name; UE4
// stores one name, AssetPath ("/Game/Dir/Asset.Asset"). SubPath is the path
// inside the asset; UTF8 says it is stored as UTF-8 (FUtf8String) rather
// than as an FString.
type SoftObject struct {
	PackageName Name    `json:"package_name"`
	AssetName   Name    `json:"asset_name"`
	AssetPath   Name    `json:"asset_path"`
	SubPath     *String `json:"sub_path"`
	TopLevel    bool    `json:"top_level,omitempty"`
	UTF8        bool    `json:"utf8,omitempty"`
}

func (*SoftObject) isValue() {}

// Path returns the path as text: "/Game/Dir/Asset.Asset:Sub", or "None".
func (v *SoftObject) Path() string {
	var s string
	if v.TopLevel {
		switch {
		case v.PackageName.IsNone() && v.AssetName.IsNone():
			s = ""
		case v.AssetName.IsNone():
			s = v.PackageName.Text
		default:
			s = v.PackageName.Text + "." + v.AssetName.Text
		}
	} else if !v.AssetPath.IsNone() {
		s = v.AssetPath.Text
	}
	if v.SubPath != nil && v.SubPath.Text != "" {
		s += ":" + v.SubPath.Text
	}
	if s == "" {
		return "None"
	}
	return s
}

// String returns the path quoted.
func (v *SoftObject) String() string { return strconv.Quote(v.Path()) }

// Struct is a StructProperty value (or an array element of a struct type):
// a tagged struct's property list, a native struct's fields, or, for a
// native struct whose layout the package does not know, its bytes.
type Struct struct {
	// Type is the struct's name, e.g. "Vector".
	Type string `json:"type"`
	// Tagged is the property list of a struct serialized as tags.
	Tagged *List `json:"tagged,omitempty"`
	// Native are the fields of a native struct of known layout, in
	// order; a struct that is one value (a Guid, a DateTime, a
	// SoftObjectPath) has one field named "".
	Native []Field `json:"native,omitempty"`
	// Raw are the bytes of a native struct of unknown layout.
	Raw []byte `json:"raw,omitempty"`
	// Offset and Size locate the struct's bytes in the data.
	Offset int `json:"offset"`
	Size   int `json:"size"`
}

func (*Struct) isValue() {}

// Field is one field of a native struct: its name ("X", "Min.X", "Tags[0]"),
// where it is and its value.
type Field struct {
	Name   string `json:"name"`
	Offset int    `json:"offset"`
	Size   int    `json:"size"`
	Value  Value  `json:"-"`
	// Sized says the value is stored after its size in bytes (an int32,
	// within the field's Size), as native serializers store nested data
	// a reader must be able to skip; Encode writes the size of the value
	// it encodes.
	Sized bool `json:"sized,omitempty"`
}

// Field returns the native field with the given name (case-insensitive),
// or nil.
func (v *Struct) Field(name string) *Field {
	for i := range v.Native {
		if strings.EqualFold(v.Native[i].Name, name) {
			return &v.Native[i]
		}
	}
	return nil
}

// String returns a native struct as (X=1,Y=2,Z=3), a one-value struct as
// its value, a tagged struct as (A=1,B=(…)) and raw bytes as hex.
func (v *Struct) String() string {
	switch {
	case v.Tagged != nil:
		var b strings.Builder
		b.WriteByte('(')
		for i, p := range v.Tagged.Properties {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(p.Label() + "=" + valueString(p.Value))
		}
		b.WriteByte(')')
		return b.String()
	case len(v.Native) == 1 && v.Native[0].Name == "":
		return valueString(v.Native[0].Value)
	case v.Native != nil:
		var b strings.Builder
		b.WriteByte('(')
		for i, f := range v.Native {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f.Name + "=" + valueString(f.Value))
		}
		b.WriteByte(')')
		return b.String()
	}
	return hexString(v.Raw)
}

// Array is an ArrayProperty value.
type Array struct {
	// Inner is the element type.
	Inner TypeName `json:"inner"`
	// InnerTag is the tag older versions write before the elements of an
	// array of structs (its Size is the elements' total size); nil
	// otherwise. InnerTagOffset is where it starts, InnerSizeOffset where
	// its Size field is.
	InnerTag        *Tag `json:"inner_tag,omitempty"`
	InnerTagOffset  int  `json:"inner_tag_offset,omitempty"`
	InnerSizeOffset int  `json:"inner_size_offset,omitempty"`
	// Elements are the elements in order.
	Elements []Element `json:"elements"`
}

func (*Array) isValue() {}

// Element is one array element: where it is and its value.
type Element struct {
	Offset int   `json:"offset"`
	Size   int   `json:"size"`
	Value  Value `json:"-"`
}

// String returns the elements as [a,b,c], at most 16 of them.
func (v *Array) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range v.Elements {
		if i == maxInline {
			fmt.Fprintf(&b, ",… (%d elements)", len(v.Elements))
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(valueString(e.Value))
	}
	b.WriteByte(']')
	return b.String()
}

// Raw is a value kept as its bytes. Text is a best-effort display (the
// string of a simple FText, the element count of a set or map), "" when
// there is none.
type Raw struct {
	Bytes []byte `json:"bytes"`
	Text  string `json:"text,omitempty"`
}

func (*Raw) isValue() {}

// String returns Text when there is one, else the bytes as hex.
func (v *Raw) String() string {
	if v.Text != "" {
		return v.Text
	}
	return hexString(v.Bytes)
}

// maxInline is how many elements String shows; maxHex how many raw bytes.
const (
	maxInline = 16
	maxHex    = 32
)

func hexString(b []byte) string {
	if len(b) <= maxHex {
		return "0x" + hex.EncodeToString(b)
	}
	return fmt.Sprintf("0x%s… (%d bytes)", hex.EncodeToString(b[:maxHex]), len(b))
}

func valueString(v Value) string {
	if v == nil {
		return "<nil>"
	}
	return v.String()
}

// jsonFloat returns f as a JSON number, or as a string for NaN and the
// infinities, which JSON has no number for.
func jsonFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return f
}

// GUIDValue is a Guid struct's value.
type GUIDValue GUID

func (GUIDValue) isValue() {}

// String returns the GUID.
func (v GUIDValue) String() string { return GUID(v).String() }
