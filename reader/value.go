package reader

import (
	"encoding/binary"
	hexenc "encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// Value is the decoded value of one tagged property. Type says which field
// holds it:
//
//   - PropByte: Byte; PropInt: Int; PropBool: Bool; PropFloat: Float;
//   - PropName: Name (an index into the package's name table);
//   - PropObject: Object (a reference into the package's tables);
//   - PropStr: Str;
//   - every other type (String, Class, Array, Struct, Vector, Rotator, Map,
//     FixedArray, Pointer): Raw, the value bytes undecoded. For structs,
//     StructName names the struct.
//
// Name and Object values are only meaningful in the package they were read
// from; format or compare them through that package.
type Value struct {
	Type       PropertyType
	StructName NameRef // the struct of a PropStruct value; -1 otherwise
	Int        int32
	Float      float32
	Bool       bool
	Byte       byte
	Name       NameRef
	Object     ObjectRef
	Str        string
	Raw        []byte // a copy of the value bytes, for the types decoded as raw
}

// PropertyValue decodes the value of property q of export i (q comes from
// Properties(i)). Byte, Int, Float, Name, Object and Str values must use
// exactly the tag's Size bytes; Name and Object references must be in range.
// Other types are returned as Raw bytes. Errors are *FormatError values
// naming the export, the property and the absolute offset of the value.
func (p *Package) PropertyValue(i int, q *Property) (Value, error) {
	v := Value{Type: q.Type, StructName: -1}
	if q.Type == PropStruct {
		v.StructName = q.StructName
	}
	if i < 0 || i >= len(p.Exports) {
		return v, &FormatError{File: p.FileName, Struct: fmt.Sprintf("export %d", i), Offset: -1,
			Msg: fmt.Sprintf("no such export (%d exports)", len(p.Exports))}
	}
	e := &p.Exports[i]
	label := p.exportLabel(i) + " property " + p.propLabel(q)
	abs := int64(e.SerialOffset) + int64(q.ValueStart)
	if q.Type != PropBool && (q.ValueStart < 0 || q.Size < 0 || q.ValueStart > len(e.Data) || q.Size > len(e.Data)-q.ValueStart) {
		return v, &FormatError{File: p.FileName, Struct: label, Offset: abs,
			Msg: fmt.Sprintf("value of %d bytes runs past the export data (%d bytes)", q.Size, len(e.Data))}
	}
	var b []byte
	if q.Type != PropBool {
		b = e.Data[q.ValueStart : q.ValueStart+q.Size]
	}
	return p.decodeValue(label, abs, q, b)
}

// decodeValue decodes b, the value bytes of tag q; label and abs name it
// and its absolute offset in errors.
func (p *Package) decodeValue(label string, abs int64, q *Property, b []byte) (Value, error) {
	v := Value{Type: q.Type, StructName: -1}
	if q.Type == PropStruct {
		v.StructName = q.StructName
	}
	fail := func(off int64, format string, args ...any) (Value, error) {
		return v, &FormatError{File: p.FileName, Struct: label, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	if q.Type == PropBool {
		v.Bool = q.Bool
		return v, nil
	}
	fixed := func(n int) error {
		if len(b) != n {
			_, err := fail(abs, "%s value has %d bytes, want %d", q.Type, len(b), n)
			return err
		}
		return nil
	}
	// index decodes a compact index that must fill the value exactly.
	index := func() (int32, error) {
		c := binio.NewCursor(b, abs)
		x := c.Index(q.Type.String() + " value")
		if err := c.Err(); err != nil {
			return 0, cursorFormatError(p.FileName, label, abs, err)
		}
		if c.Len() != 0 {
			_, err := fail(abs, "%s value uses %d of its %d bytes", q.Type, c.Pos(), len(b))
			return 0, err
		}
		return x, nil
	}
	switch q.Type {
	case PropByte:
		if err := fixed(1); err != nil {
			return v, err
		}
		v.Byte = b[0]
	case PropInt:
		if err := fixed(4); err != nil {
			return v, err
		}
		v.Int = int32(binary.LittleEndian.Uint32(b))
	case PropFloat:
		if err := fixed(4); err != nil {
			return v, err
		}
		v.Float = math.Float32frombits(binary.LittleEndian.Uint32(b))
	case PropName:
		x, err := index()
		if err != nil {
			return v, err
		}
		if x < 0 || int(x) >= len(p.Names) {
			return fail(abs, "name index %d out of range (%d names)", x, len(p.Names))
		}
		v.Name = NameRef(x)
	case PropObject:
		x, err := index()
		if err != nil {
			return v, err
		}
		r := ObjectRef(x)
		if ei, ok := r.Export(); ok && ei >= len(p.Exports) {
			return fail(abs, "object reference %d: export %d out of range (%d exports)", x, ei, len(p.Exports))
		}
		if ii, ok := r.Import(); ok && ii >= len(p.Imports) {
			return fail(abs, "object reference %d: import %d out of range (%d imports)", x, ii, len(p.Imports))
		}
		v.Object = r
	case PropStr:
		c := binio.NewCursor(b, abs)
		s := c.FString("Str value")
		if err := c.Err(); err != nil {
			return v, cursorFormatError(p.FileName, label, abs, err)
		}
		if c.Len() != 0 {
			return fail(abs, "Str value uses %d of its %d bytes", c.Pos(), len(b))
		}
		v.Str = s
	default:
		v.Raw = append([]byte{}, b...)
	}
	return v, nil
}

// cursorFormatError turns a cursor failure into a FormatError for structure
// label, at the cursor's offset (or at when it has none).
func cursorFormatError(file, label string, at int64, err error) *FormatError {
	var ce *binio.CursorError
	if errors.As(err, &ce) {
		return &FormatError{File: file, Struct: label, Offset: ce.Offset, Msg: fmt.Sprintf("%s: %v", ce.What, ce.Err), Err: err}
	}
	return &FormatError{File: file, Struct: label, Offset: at, Msg: err.Error(), Err: err}
}

// propLabel names property q for messages: Name, or Name[3] for an element
// of a static array.
func (p *Package) propLabel(q *Property) string {
	if q.ArrayIndex != 0 {
		return fmt.Sprintf("%s[%d]", p.NameOf(q.Name), q.ArrayIndex)
	}
	return p.NameOf(q.Name)
}

// maxHexBytes is how many raw bytes FormatValue shows before truncating.
const maxHexBytes = 32

// FormatValue returns v as UnrealScript default-properties text: integers and
// bytes in decimal, floats in their shortest form, True/False, names as
// their text, objects as Class'Package.Group.Object' (None when null),
// strings quoted Go-style, and structs whose members StructFields decodes
// member by member: (X=1,Y=2,Z=3), (Pitch=0,Yaw=16384,Roll=0),
// (R=255,G=0,B=0,A=0), (Zone=ZoneInfo'Map.ZoneInfo0',iLeaf=-1,ZoneNumber=0).
// Other raw values are hex (0x...), truncated after 32 bytes with the total
// size appended.
func (p *Package) FormatValue(v Value) string {
	switch v.Type {
	case PropByte:
		return strconv.Itoa(int(v.Byte))
	case PropInt:
		return strconv.FormatInt(int64(v.Int), 10)
	case PropBool:
		if v.Bool {
			return "True"
		}
		return "False"
	case PropFloat:
		return formatFloat(v.Float)
	case PropName:
		return p.NameOf(v.Name)
	case PropObject:
		return p.formatObject(v.Object)
	case PropStr:
		return strconv.Quote(v.Str)
	case PropStruct:
		if s, ok := p.formatStruct(v); ok {
			return s
		}
	}
	return formatRaw(v.Raw)
}

func formatFloat(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// formatObject returns Class'Path' for an object reference.
func (p *Package) formatObject(r ObjectRef) string {
	if r == 0 {
		return "None"
	}
	var class string
	if i, ok := r.Export(); ok && i < len(p.Exports) {
		class = p.ClassName(i)
	} else if i, ok := r.Import(); ok && i < len(p.Imports) {
		class = p.ImportClassName(i)
	} else {
		return fmt.Sprintf("<bad object %d>", r)
	}
	return class + "'" + p.Path(r) + "'"
}

// formatStruct shows a struct whose members StructFields decodes as
// (Name=value,...), with Name[i] for static-array members.
func (p *Package) formatStruct(v Value) (string, bool) {
	fields, ok := p.StructFields(v)
	if !ok {
		return "", false
	}
	return p.FormatFields(fields), true
}

// FormatFields shows struct members (from StructFields) as
// (Name=value,...), nested structs in parentheses too.
func (p *Package) FormatFields(fields []StructField) string {
	parts := make([]string, len(fields))
	for k, f := range fields {
		name := f.Name
		if f.Index != 0 {
			name = fmt.Sprintf("%s[%d]", f.Name, f.Index)
		}
		if f.Fields != nil {
			parts[k] = name + "=" + p.FormatFields(f.Fields)
		} else {
			parts[k] = name + "=" + p.FormatValue(f.Value)
		}
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// formatRaw shows bytes as 0x-prefixed hex, truncated after maxHexBytes.
func formatRaw(b []byte) string {
	if len(b) <= maxHexBytes {
		return "0x" + hexenc.EncodeToString(b)
	}
	return fmt.Sprintf("0x%s… (%d bytes)", hexenc.EncodeToString(b[:maxHexBytes]), len(b))
}
