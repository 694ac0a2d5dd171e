package props

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// Limits that keep bad input from costing more than its size.
const (
	// maxTypeNodes is how many nodes a UE 5.4+ type tree may have.
	maxTypeNodes = 256
	// maxElements is how many elements an array is decoded into; larger
	// arrays are kept raw (their bytes), so that a megabyte of bytes does
	// not become a million values.
	maxElements = 1 << 16
)

// errRaw marks a value that is valid but kept as its bytes (a struct of
// unknown layout, an element type whose size cannot be told, a string
// that would not encode back to the same bytes). Decoding goes on.
var errRaw = errors.New("kept raw")

// errDepth marks input nested deeper than MaxDepth; it is never turned
// into a raw value.
var errDepth = errors.New("nested too deep")

// decoder decodes the property lists of one export's data.
type decoder struct {
	ctx   *Context
	data  []byte
	depth int
	// path names the property being decoded, for messages.
	path []seg
}

// seg is one step of a path: a property name, an element index, or a
// DataTable row.
type seg struct {
	name  string
	index int // ≥ 0 for an element; -1 for a name; rowSeg for a row
}

const rowSeg = -2

// Decode decodes the property list at the start of data, an export's
// serialized data (ctx.Object) or a struct's: for an object of UE5 package
// version 1011 or later the serialization-control byte, then the tags and
// their values up to None, then for an object that is not a class default
// object the 4-byte has-GUID bool and GUID; the bytes after that are the
// List's Rest. Values whose type the package does not decode are kept raw
// (see Value). The List refers to data (raw values and Rest are slices of
// it), so data must not change while the List is used. Errors are
// *ue.FormatError values wrapping ue.ErrCorrupt, with the byte offset in
// data.
func Decode(data []byte, ctx *Context) (*List, error) {
	if ctx == nil {
		return nil, errors.New("props.Decode: nil Context")
	}
	d := &decoder{ctx: ctx, data: data}
	l, _, err := d.objectList()
	if err != nil {
		return nil, err
	}
	l.Rest = data[l.TailEnd:]
	return l, nil
}

// objectList decodes the property list data starts with, and the object
// tail when ctx says the data is an object's; it returns the cursor after
// them.
func (d *decoder) objectList() (*List, *binio.Cursor, error) {
	c := d.cursor(0, len(d.data))
	var l *List
	var err error
	if d.ctx.unversioned() {
		l, err = d.ulist(c, d.ctx.Class)
	} else {
		l, err = d.list(c, d.ctx.Object)
	}
	if err != nil {
		return nil, nil, err
	}
	if d.ctx.Object {
		if err := d.tail(c, l); err != nil {
			return nil, nil, err
		}
	} else {
		l.TailEnd = l.End
	}
	return l, c, nil
}

// Export is the data of one export of a zen package read as properties:
// its property list (with the object tail), for a DataTable also its rows,
// and the bytes after them.
type Export struct {
	Properties *List
	// Table is the DataTable (Properties, rows and Rest), or nil when the
	// export is not one.
	Table *Table
	// Rest are the bytes after the properties, or after the rows.
	Rest []byte
	// Context is the export's Context, for Set and Encode.
	Context *Context
}

// DecodeDataTable decodes the data of a UDataTable export: its property
// list and object tail as Decode does, then an int32 row count and each row
// (an FName and the row struct's tag list). The bytes after the rows are
// the Table's Rest.
func DecodeDataTable(data []byte, ctx *Context) (*Table, error) {
	if ctx == nil {
		return nil, errors.New("props.DecodeDataTable: nil Context")
	}
	d := &decoder{ctx: ctx, data: data}
	l, c, err := d.objectList()
	if err != nil {
		return nil, err
	}
	t := &Table{Properties: l, RowsOffset: c.Pos()}
	rowStruct := ""
	minRow := 16 // a row is at least a name and None
	if ctx.unversioned() {
		if rowStruct, err = d.rowStruct(l); err != nil {
			return nil, err
		}
		minRow = 10 // a name and a one-fragment header
	}
	n := c.Count32("DataTable row count", minRow)
	if c.Err() != nil {
		return nil, d.cursorError(c, "DataTable rows")
	}
	for i := 0; i < n; i++ {
		r := Row{Offset: c.Pos()}
		name, ok := d.name(c, "row name")
		if !ok {
			return nil, d.cursorError(c, fmt.Sprintf("DataTable row %d", i))
		}
		r.Name = name
		d.path = append(d.path[:0], seg{name: name.Text, index: rowSeg})
		if ctx.unversioned() {
			r.Properties, err = d.ulist(c, rowStruct)
		} else {
			r.Properties, err = d.list(c, false)
		}
		if err != nil {
			return nil, err
		}
		r.Properties.TailEnd = r.Properties.End
		t.Rows = append(t.Rows, r)
	}
	t.End = c.Pos()
	l.Rest = data[l.TailEnd:l.TailEnd]
	t.Rest = data[t.End:]
	return t, nil
}

// cursor returns a cursor over data[:end] at position start, whose errors
// match ue.ErrCorrupt.
func (d *decoder) cursor(start, end int) *binio.Cursor {
	c := binio.NewCursor(d.data[:end], 0)
	c.SetKind(ue.ErrCorrupt)
	c.Seek(start, "")
	return c
}

// where names what is being decoded, for messages.
func (d *decoder) where() string {
	if len(d.path) == 0 {
		return "property list"
	}
	var b strings.Builder
	path := d.path
	if path[0].index == rowSeg {
		b.WriteString("DataTable row " + path[0].name)
		if path = path[1:]; len(path) == 0 {
			return b.String()
		}
		b.WriteString(" ")
	}
	for i, s := range path {
		if len(path) > 16 && i >= 6 && i < len(path)-6 {
			if i == 6 {
				fmt.Fprintf(&b, "…(%d levels)…", len(path)-12)
			}
			continue
		}
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case i == 0:
			b.WriteString("property " + s.name)
		default:
			b.WriteString("." + s.name)
		}
	}
	return b.String()
}

// errorAt returns a *ue.FormatError at offset off.
func (d *decoder) errorAt(off int, format string, args ...any) error {
	return &ue.FormatError{Struct: d.where(), Offset: int64(off), Msg: fmt.Sprintf(format, args...), Err: ue.ErrCorrupt}
}

// depthError reports nesting deeper than MaxDepth at offset off.
func (d *decoder) depthError(off int) error {
	return &ue.FormatError{Struct: d.where(), Offset: int64(off),
		Msg: fmt.Sprintf("more than %d nested structs and arrays", MaxDepth), Err: fmt.Errorf("%w: %w", errDepth, ue.ErrCorrupt)}
}

// cursorError turns a cursor's error into a *ue.FormatError.
func (d *decoder) cursorError(c *binio.Cursor, structure string) error {
	err := c.Err()
	if structure == "" {
		structure = d.where()
	}
	if what, off, msg, ok := binio.Describe(err); ok {
		return &ue.FormatError{Struct: structure, Offset: off, Msg: what + ": " + msg, Err: err}
	}
	return &ue.FormatError{Struct: structure, Offset: int64(c.Pos()), Msg: fmt.Sprint(err), Err: ue.ErrCorrupt}
}

// name reads an FName; ok is false (and c failed) when it is not in the
// name map.
func (d *decoder) name(c *binio.Cursor, what string) (Name, bool) {
	at := c.Pos()
	i := c.I32(what)
	n := c.U32(what)
	if c.Err() != nil {
		return Name{}, false
	}
	t, ok := d.ctx.nameText(i, n)
	if !ok {
		c.FailAt(at, what, fmt.Errorf("name index %d outside the %d names", i, len(d.ctx.Names)))
		return Name{}, false
	}
	return Name{Index: i, Number: n, Text: t}, true
}

// guid reads 16 bytes.
func guid(c *binio.Cursor, what string) GUID {
	var g GUID
	copy(g[:], c.Bytes(16, what))
	return g
}

// bool8 reads a byte that must be 0 or 1.
func bool8(c *binio.Cursor, what string) bool {
	at := c.Pos()
	b := c.U8(what)
	if b > 1 {
		c.FailAt(at, what, fmt.Errorf("bool byte %d is neither 0 nor 1", b))
	}
	return b == 1
}

// bool32 reads a 4-byte bool that must be 0 or 1.
func bool32(c *binio.Cursor, what string) bool {
	at := c.Pos()
	v := c.U32(what)
	if v > 1 {
		c.FailAt(at, what, fmt.Errorf("bool %d is neither 0 nor 1", v))
	}
	return v == 1
}

// list reads a property list from c's position up to and including None.
func (d *decoder) list(c *binio.Cursor, object bool) (*List, error) {
	if d.depth >= MaxDepth {
		return nil, d.depthError(c.Pos())
	}
	d.depth++
	defer func() { d.depth-- }()
	l := &List{Start: c.Pos()}
	if object && d.ctx.control() {
		at := c.Pos()
		ctl := &Control{Flags: c.U8("serialization control")}
		if c.Err() == nil && ctl.Flags&^knownControlFlags != 0 {
			return nil, d.errorAt(at, "serialization control flags 0x%02X: unknown bits", ctl.Flags)
		}
		if ctl.Flags&ControlOverridableSerializationInformation != 0 {
			ctl.Operation = c.U8("serialization control operation")
		}
		l.Control = ctl
	}
	depth := len(d.path)
	defer func() { d.path = d.path[:depth] }()
	for {
		at := c.Pos()
		name, ok := d.name(c, "property name")
		if !ok {
			return nil, d.cursorError(c, "")
		}
		if name.IsNone() {
			l.NoneOffset, l.None, l.End = at, name, c.Pos()
			return l, nil
		}
		d.path = append(d.path[:depth], seg{name: name.Text, index: -1})
		p := &Property{Offset: at}
		p.Name = name
		if err := d.tag(c, p); err != nil {
			return nil, err
		}
		if err := d.value(c, p); err != nil {
			return nil, err
		}
		l.Properties = append(l.Properties, p)
	}
}

// tail reads an object's tail after its list.
func (d *decoder) tail(c *binio.Cursor, l *List) error {
	l.TailEnd = c.Pos()
	if d.ctx.CDO {
		return nil
	}
	has := bool32(c, "object has-GUID bool")
	if has {
		g := guid(c, "object GUID")
		l.ObjectGUID = &g
	}
	if c.Err() != nil {
		return d.cursorError(c, "object tail")
	}
	l.HasGUIDField = true
	l.TailEnd = c.Pos()
	return nil
}

// tag reads the rest of a tag after its name.
func (d *decoder) tag(c *binio.Cursor, p *Property) error {
	if d.ctx.completeTypes() {
		return d.tagComplete(c, p)
	}
	return d.tagOld(c, &p.Tag, &p.SizeOffset, &p.BoolOffset)
}

// tagOld reads the rest of a tag in the layout before version 1012: type,
// size, array index, the type's extra fields, the property GUID and, in
// version 1011, the extension byte.
func (d *decoder) tagOld(c *binio.Cursor, t *Tag, sizeAt, boolAt *int) error {
	typ, ok := d.name(c, "property type")
	t.Type = TypeName{Name: typ}
	*sizeAt = c.Pos()
	t.Size = c.I32("property size")
	t.ArrayIndex = c.I32("array index")
	param := func(what string) {
		if n, ok := d.name(c, what); ok {
			t.Type.Params = append(t.Type.Params, TypeName{Name: n})
		}
	}
	if ok {
		switch typ.Text {
		case "StructProperty":
			param("struct name")
			t.StructGUID = guid(c, "struct GUID")
		case "BoolProperty":
			*boolAt = c.Pos()
			if bool8(c, "bool value") {
				t.Flags |= FlagBoolTrue
			}
		case "ByteProperty", "EnumProperty":
			param("enum name")
		case "ArrayProperty", "SetProperty", "OptionalProperty":
			param("inner type")
		case "MapProperty":
			param("key type")
			param("value type")
		}
	}
	if bool8(c, "has property GUID") {
		g := guid(c, "property GUID")
		t.PropertyGUID = &g
		t.Flags |= FlagHasPropertyGUID
	}
	if t.ArrayIndex != 0 {
		t.Flags |= FlagHasArrayIndex
	}
	if d.ctx.tagExtensions() {
		t.Extensions = d.extensions(c)
		t.Flags |= FlagHasPropertyExtensions
	}
	if c.Err() != nil {
		return d.cursorError(c, "")
	}
	return nil
}

// extensions reads a tag's property extensions.
func (d *decoder) extensions(c *binio.Cursor) *Extensions {
	at := c.Pos()
	e := &Extensions{Flags: c.U8("property extensions")}
	if c.Err() != nil {
		return e
	}
	if e.Flags&^knownExtensions != 0 {
		c.FailAt(at, "property extensions", fmt.Errorf("flags 0x%02X have unknown bits", e.Flags))
		return e
	}
	if e.Flags&ExtensionOverridableInformation != 0 {
		e.OverrideOperation = c.U8("overridden property operation")
		e.ExperimentalOverridableLogic = bool32(c, "experimental overridable logic")
	}
	if e.Flags&ExtensionExternalObjects != 0 {
		e.ExternalObjects = bool32(c, "experimental external objects")
	}
	return e
}

// tagComplete reads the rest of a UE 5.4+ tag: the type tree, size, flags
// and what the flags announce.
func (d *decoder) tagComplete(c *binio.Cursor, p *Property) error {
	t, err := d.typeTree(c)
	if err != nil {
		return err
	}
	p.Type = t
	p.SizeOffset = c.Pos()
	p.Size = c.I32("property size")
	flagsAt := c.Pos()
	p.Flags = c.U8("tag flags")
	if c.Err() != nil {
		return d.cursorError(c, "")
	}
	if p.Flags&^knownTagFlags != 0 {
		return d.errorAt(flagsAt, "tag flags 0x%02X have unknown bits", p.Flags)
	}
	if p.Type.Name.Text == "BoolProperty" {
		p.BoolOffset = flagsAt
	}
	if p.Flags&FlagHasArrayIndex != 0 {
		p.ArrayIndex = c.I32("array index")
	}
	if p.Flags&FlagHasPropertyGUID != 0 {
		g := guid(c, "property GUID")
		p.PropertyGUID = &g
	}
	if p.Flags&FlagHasPropertyExtensions != 0 {
		p.Extensions = d.extensions(c)
	}
	if c.Err() != nil {
		return d.cursorError(c, "")
	}
	return nil
}

type typeNode struct {
	name  Name
	inner int
}

// typeTree reads a UE 5.4+ type name: (FName, int32 inner count) nodes in
// pre-order, until no node is pending.
func (d *decoder) typeTree(c *binio.Cursor) (TypeName, error) {
	var buf [8]typeNode
	nodes := buf[:0]
	for pending := 1; pending > 0; {
		at := c.Pos()
		if len(nodes) == maxTypeNodes {
			return TypeName{}, d.errorAt(at, "type name has more than %d nodes", maxTypeNodes)
		}
		n, _ := d.name(c, "type name")
		inner := c.I32("type parameter count")
		if c.Err() != nil {
			return TypeName{}, d.cursorError(c, "")
		}
		if inner < 0 || int64(inner) > int64(c.Len()/12) {
			return TypeName{}, d.errorAt(at+8, "type %s has %d parameters; %d bytes left", n.Text, inner, c.Len())
		}
		nodes = append(nodes, typeNode{n, int(inner)})
		pending += int(inner) - 1
	}
	i := 0
	return buildType(nodes, &i), nil
}

func buildType(nodes []typeNode, i *int) TypeName {
	n := nodes[*i]
	*i++
	t := TypeName{Name: n.name}
	if n.inner > 0 {
		t.Params = make([]TypeName, n.inner)
		for j := range t.Params {
			t.Params[j] = buildType(nodes, i)
		}
	}
	return t
}

// item says how to read one value.
type item struct {
	// top is true for a property's value (Size bytes), false for an
	// element of an array or a field.
	top bool
	// size is the bytes the value has (top) or the elements' average
	// size (elements; -1 when unknown).
	size int
	// native is 1 when the tag says the value is native or binary, 0 when
	// it says it is tagged, -1 when the tag cannot tell (before 1012).
	native int
	// tag is the property (for a top-level bool's value).
	tag *Property
}

// value reads p's value: Size bytes from c's position.
func (d *decoder) value(c *binio.Cursor, p *Property) error {
	at := c.Pos()
	if p.Size < 0 || int(p.Size) > c.Len() {
		return d.errorAt(p.SizeOffset, "value of %d bytes; %d bytes left", p.Size, c.Len())
	}
	end := at + int(p.Size)
	p.ValueOffset = at
	c.Seek(end, "")
	if p.Flags&FlagSkippedSerialize != 0 {
		p.Value = &Raw{Bytes: d.data[at:end]}
		return nil
	}
	native := -1
	if d.ctx.completeTypes() {
		native = 0
		if p.Native() {
			native = 1
		}
	}
	vc := d.cursor(at, end)
	v, err := d.item(vc, p.Type, item{top: true, size: int(p.Size), native: native, tag: p})
	if err == nil && vc.Pos() != end {
		err = d.errorAt(vc.Pos(), "%s value ends after %d of its %d bytes", p.Type, vc.Pos()-at, p.Size)
	}
	switch {
	case err == nil:
		p.Value = v
	case errors.Is(err, errRaw):
		p.Value = &Raw{Bytes: d.data[at:end], Text: rawText(d, p.Type, d.data[at:end])}
		p.Problem = err.Error()
	default:
		return err
	}
	return nil
}

// fail returns the cursor's error as a *ue.FormatError.
func (d *decoder) fail(c *binio.Cursor) error { return d.cursorError(c, "") }

// item reads one value of type t.
func (d *decoder) item(c *binio.Cursor, t TypeName, it item) (Value, error) {
	var v Value
	switch t.Name.Text {
	case "BoolProperty":
		if it.top {
			if it.size != 0 {
				return nil, d.errorAt(c.Pos(), "BoolProperty with a %d-byte value", it.size)
			}
			return Bool(it.tag.Bool()), nil
		}
		v = Bool(bool8(c, "bool"))
	case "Int8Property":
		v = Int8(c.U8("Int8 value"))
	case "Int16Property":
		v = Int16(c.U16("Int16 value"))
	case "IntProperty":
		v = Int(c.I32("Int value"))
	case "Int64Property":
		v = Int64(c.I64("Int64 value"))
	case "UInt16Property":
		v = UInt16(c.U16("UInt16 value"))
	case "UInt32Property":
		v = UInt32(c.U32("UInt32 value"))
	case "UInt64Property":
		v = UInt64(c.U64("UInt64 value"))
	case "FloatProperty":
		v = Float(math.Float32frombits(c.U32("Float value")))
	case "DoubleProperty":
		v = Double(math.Float64frombits(c.U64("Double value")))
	case "ByteProperty":
		// A byte, or the enumerator's name for a byte of an enum: the
		// size tells (1 or 8 bytes).
		switch it.size {
		case 1:
			v = Byte(c.U8("Byte value"))
		case 8:
			n, _ := d.name(c, "enum value")
			v = EnumValue(n)
		default:
			if it.top {
				return nil, d.errorAt(c.Pos(), "ByteProperty with a %d-byte value (want 1, or 8 for an enum)", it.size)
			}
			return nil, fmt.Errorf("byte elements of %d bytes: %w", it.size, errRaw)
		}
	case "EnumProperty":
		n, _ := d.name(c, "enum value")
		v = EnumValue(n)
	case "NameProperty":
		n, _ := d.name(c, "Name value")
		v = NameValue(n)
	case "StrProperty":
		s, err := d.fstring(c, "Str value")
		if err != nil {
			return nil, err
		}
		v = s
	case "ObjectProperty", "ClassProperty", "WeakObjectProperty", "InterfaceProperty":
		v = Object(c.I32("object reference"))
	case "LazyObjectProperty":
		v = LazyObject(guid(c, "lazy object GUID"))
	case "SoftObjectProperty", "SoftClassProperty":
		s, err := d.softPath(c)
		if err != nil {
			return nil, err
		}
		v = s
	case "DelegateProperty":
		x, ok := d.delegate(c)
		if !ok {
			return nil, d.fail(c)
		}
		v = &x
	case "MulticastDelegateProperty", "MulticastInlineDelegateProperty", "MulticastSparseDelegateProperty":
		return d.multicast(c)
	case "FieldPathProperty":
		return d.fieldPath(c, d.fieldPathOwner(c, it))
	case "StructProperty":
		return d.structValue(c, t.Param(0).Name.Text, it)
	case "ArrayProperty":
		if !it.top {
			return nil, fmt.Errorf("array of arrays: %w", errRaw)
		}
		return d.array(c, t, it)
	case "TextProperty":
		if !it.top {
			// An element: its end is where the Text ends.
			at := c.Pos()
			if err := d.skipText(c); err != nil {
				if errors.Is(err, errDepth) {
					return nil, err
				}
				return nil, fmt.Errorf("elements of type TextProperty: %w", errRaw)
			}
			b := d.data[at:c.Pos():c.Pos()]
			return &Raw{Bytes: b, Text: textString(d, b)}, nil
		}
		b := c.Bytes(c.Len(), "value")
		return &Raw{Bytes: b, Text: rawText(d, t, b)}, nil
	default:
		// Text, maps, sets, optionals and types the package does not
		// know: the bytes.
		if !it.top {
			return nil, fmt.Errorf("elements of type %s: %w", t.Name.Text, errRaw)
		}
		b := c.Bytes(c.Len(), "value")
		return &Raw{Bytes: b, Text: rawText(d, t, b)}, nil
	}
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	return v, nil
}

// fstring reads an FString. A string that would not encode back to the
// same bytes (UTF-16 with unpaired surrogates) is errRaw.
func (d *decoder) fstring(c *binio.Cursor, what string) (*String, error) {
	at := c.Pos()
	n := c.I32(what + " length")
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	switch {
	case n == 0:
		return &String{Zero: true}, nil
	case n > 0:
		b := c.Bytes(int(n), what)
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		if b[len(b)-1] != 0 {
			return nil, d.errorAt(at, "%s is not zero-terminated", what)
		}
		return &String{Text: binio.Latin1(b[:len(b)-1])}, nil
	default:
		if n == math.MinInt32 || int64(-n)*2 > int64(c.Len()) {
			return nil, d.errorAt(at, "%s of %d UTF-16 units; %d bytes left", what, -int64(n), c.Len())
		}
		b := c.Bytes(int(-n)*2, what)
		u := make([]uint16, -n)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		if u[len(u)-1] != 0 {
			return nil, d.errorAt(at, "%s is not zero-terminated", what)
		}
		u = u[:len(u)-1]
		r := utf16.Decode(u)
		back := utf16.Encode(r)
		if len(back) != len(u) {
			return nil, fmt.Errorf("%s at 0x%X has unpaired UTF-16 surrogates: %w", what, at, errRaw)
		}
		for i := range u {
			if back[i] != u[i] {
				return nil, fmt.Errorf("%s at 0x%X has unpaired UTF-16 surrogates: %w", what, at, errRaw)
			}
		}
		return &String{Text: string(r), Wide: true}, nil
	}
}

// softPath reads an FSoftObjectPath.
func (d *decoder) softPath(c *binio.Cursor) (*SoftObject, error) {
	s := &SoftObject{UTF8: d.ctx.UTF8SubPaths}
	if d.ctx.FileVersionUE5 >= VersionSoftObjectPathTopLevel {
		s.TopLevel = true
		s.PackageName, _ = d.name(c, "soft object package name")
		s.AssetName, _ = d.name(c, "soft object asset name")
	} else {
		s.AssetPath, _ = d.name(c, "soft object asset path")
	}
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if s.UTF8 {
		at := c.Pos()
		n := c.I32("soft object sub path length")
		if c.Err() == nil && (n < 0 || int(n) > c.Len()) {
			return nil, d.errorAt(at, "UTF-8 sub path of %d bytes; %d bytes left", n, c.Len())
		}
		s.SubPath = &String{Text: string(c.Bytes(int(n), "soft object sub path")), Zero: n == 0}
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		return s, nil
	}
	sub, err := d.fstring(c, "soft object sub path")
	if err != nil {
		return nil, err
	}
	s.SubPath = sub
	return s, nil
}

// structValue reads a struct: native fields, a tag list or raw bytes.
func (d *decoder) structValue(c *binio.Cursor, name string, it item) (Value, error) {
	start := c.Pos()
	layout := nativeLayout(name)
	switch {
	case it.native == 1:
		if read := nativeReaders[name]; layout == nil && read != nil {
			sub := d.cursor(start, start+c.Len())
			s, err := d.readNative(sub, name, read)
			if errors.Is(err, errDepth) {
				return nil, err
			}
			if err != nil || it.top && sub.Len() != 0 {
				return nil, fmt.Errorf("native struct %s does not have the layout of the engine's %s: %w", name, name, errRaw)
			}
			c.Seek(sub.Pos(), "")
			return s, nil
		}
		if layout == nil {
			if !it.top {
				// Where one element ends cannot be told.
				return nil, fmt.Errorf("elements are native structs %s of unknown layout: %w", name, errRaw)
			}
			// A struct with a native serializer that falls back to the
			// tagged one (the engine flags the tag by the struct's type, not
			// by what its serializer wrote) is a tag list filling the value:
			// read below as when the tag cannot tell, else kept raw.
			break
		}
		s, err := d.native(c, name, layout)
		if err != nil || it.top && c.Len() != 0 {
			return nil, fmt.Errorf("native struct %s does not have the layout of the engine's %s: %w", name, name, errRaw)
		}
		return s, nil
	case it.native == 0:
		return d.taggedStruct(c, name)
	}
	// Before 1012 the tag cannot tell: the engine's native structs by
	// name (when the elements of an array have the layout's size), then a
	// tag list if one parses, else raw bytes.
	if n := layoutSize(layout, d.ctx.lwc()); layout != nil && (it.top || it.size < 0 || n < 0 || n == it.size) {
		sub := d.cursor(start, start+c.Len())
		s, err := d.native(sub, name, layout)
		if err == nil && (!it.top || sub.Len() == 0) {
			c.Seek(sub.Pos(), "")
			return s, nil
		}
	}
	sub := d.cursor(start, start+c.Len())
	s, err := d.taggedStruct(sub, name)
	if err == nil && (!it.top || sub.Len() == 0) {
		c.Seek(sub.Pos(), "")
		return s, nil
	}
	if errors.Is(err, errDepth) {
		return nil, err
	}
	if it.top {
		b := c.Bytes(c.Len(), "struct")
		return &Struct{Type: name, Raw: b, Offset: start, Size: len(b)}, nil
	}
	return nil, fmt.Errorf("elements are structs %s, neither a known native struct nor a tag list: %w", name, errRaw)
}

// taggedStruct reads a struct serialized as a tag list.
func (d *decoder) taggedStruct(c *binio.Cursor, name string) (*Struct, error) {
	start := c.Pos()
	l, err := d.list(c, false)
	if err != nil {
		return nil, err
	}
	l.TailEnd = l.End
	return &Struct{Type: name, Tagged: l, Offset: start, Size: c.Pos() - start}, nil
}

// native reads the fields of a native struct of known layout.
func (d *decoder) native(c *binio.Cursor, name string, layout []nativeField) (*Struct, error) {
	start := c.Pos()
	s := &Struct{Type: name, Offset: start}
	lwc := d.ctx.lwc()
	switch layout[0].name {
	case nativeSoftPath:
		v, err := d.softPath(c)
		if err != nil {
			return nil, err
		}
		s.Native = []Field{{Offset: start, Size: c.Pos() - start, Value: v}}
	case nativeTags:
		at := c.Pos()
		n := c.I32("gameplay tag count")
		if c.Err() != nil {
			return nil, d.fail(c)
		}
		if n < 0 || int64(n)*8 > int64(c.Len()) {
			return nil, d.errorAt(at, "%d gameplay tags; %d bytes left", n, c.Len())
		}
		a, err := d.elements(c, TypeName{Name: Name{Text: "NameProperty"}}, item{size: 8, native: -1}, int(n), false)
		if err != nil {
			return nil, err
		}
		s.Native = []Field{{Name: "Tags", Offset: start, Size: c.Pos() - start, Value: a}}
	default:
		s.Native = make([]Field, 0, len(layout))
		for _, f := range layout {
			at := c.Pos()
			var v Value
			switch f.kind {
			case fkReal:
				if lwc {
					v = Double(math.Float64frombits(c.U64(f.name)))
				} else {
					v = Float(math.Float32frombits(c.U32(f.name)))
				}
			case fkFloat:
				v = Float(math.Float32frombits(c.U32(f.name)))
			case fkDouble:
				v = Double(math.Float64frombits(c.U64(f.name)))
			case fkInt32:
				v = Int(c.I32(f.name))
			case fkUInt32:
				v = UInt32(c.U32(f.name))
			case fkInt64:
				v = Int64(c.I64(f.name))
			case fkUInt64:
				v = UInt64(c.U64(f.name))
			case fkUInt8:
				v = Byte(c.U8(f.name))
			case fkUInt16:
				v = UInt16(c.U16(f.name))
			case fkGUID:
				v = GUIDValue(guid(c, f.name))
			}
			s.Native = append(s.Native, Field{Name: f.name, Offset: at, Size: c.Pos() - at, Value: v})
		}
	}
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	s.Size = c.Pos() - start
	return s, nil
}

// array reads an ArrayProperty value: the count, the inner tag of older
// struct arrays, the elements.
func (d *decoder) array(c *binio.Cursor, t TypeName, it item) (Value, error) {
	if d.depth >= MaxDepth {
		return nil, d.depthError(c.Pos())
	}
	if e := it.tag.Extensions; e != nil && e.ExperimentalOverridableLogic {
		return nil, fmt.Errorf("array with experimental overridable serialization: %w", errRaw)
	}
	d.depth++
	defer func() { d.depth-- }()
	inner := t.Param(0)
	at := c.Pos()
	count := c.I32("array count")
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	if count < 0 || int(count) > c.Len() {
		return nil, d.errorAt(at, "array of %d elements; %d bytes left", count, c.Len())
	}
	a := &Array{Inner: inner}
	elemNative := it.native
	if inner.Name.Text == "StructProperty" && !d.ctx.completeTypes() {
		// Older versions write a tag for the inner struct type; its Size
		// is the elements' total size.
		a.InnerTagOffset = c.Pos()
		n, ok := d.name(c, "inner tag name")
		if !ok {
			return nil, d.fail(c)
		}
		if n.IsNone() {
			return nil, d.errorAt(a.InnerTagOffset, "array of structs without an inner tag")
		}
		tag := &Tag{Name: n}
		var boolAt int
		if err := d.tagOld(c, tag, &a.InnerSizeOffset, &boolAt); err != nil {
			return nil, err
		}
		if tag.Type.Name.Text != "StructProperty" {
			return nil, d.errorAt(a.InnerTagOffset, "inner tag of an array of structs has type %s", tag.Type)
		}
		if int(tag.Size) != c.Len() {
			return nil, d.errorAt(a.InnerSizeOffset, "inner tag size %d; the elements have %d bytes", tag.Size, c.Len())
		}
		a.InnerTag = tag
		inner = tag.Type
	}
	if count == 0 {
		if c.Len() != 0 {
			return nil, d.errorAt(c.Pos(), "empty array followed by %d bytes", c.Len())
		}
		a.Elements = []Element{}
		return a, nil
	}
	if count > maxElements {
		return nil, fmt.Errorf("array of %d elements (more than %d): %w", count, maxElements, errRaw)
	}
	size := -1
	if c.Len()%int(count) == 0 {
		size = c.Len() / int(count)
	}
	if name := inner.Param(0).Name.Text; inner.Name.Text == "StructProperty" && elemNative == 1 {
		if n := layoutSize(nativeLayout(name), d.ctx.lwc()); n >= 0 && n != size {
			return nil, fmt.Errorf("%d elements in %d bytes do not have the layout of the engine's %s: %w", count, c.Len(), name, errRaw)
		}
		if nativeLayout(name) == nil && nativeReaders[name] == nil {
			// Native structs of unknown layout whose serializer fell back to
			// the tagged one: tag lists that fill the array exactly.
			sub := d.cursor(c.Pos(), c.Pos()+c.Len())
			e, err := d.elements(sub, inner, item{size: size, native: 0}, int(count), true)
			if errors.Is(err, errDepth) {
				return nil, err
			}
			if err == nil && sub.Len() == 0 {
				c.Seek(sub.Pos(), "")
				a.Elements = e.Elements
				return a, nil
			}
		}
	}
	if inner.Name.Text == "ByteProperty" && size != 1 && size != 8 {
		return nil, d.errorAt(at, "array of %d bytes in %d bytes", count, c.Len())
	}
	e, err := d.elements(c, inner, item{size: size, native: elemNative}, int(count), true)
	if err != nil {
		return nil, err
	}
	a.Elements = e.Elements
	return a, nil
}

// elements reads count elements of type inner; whole says they must fill
// the rest of c.
func (d *decoder) elements(c *binio.Cursor, inner TypeName, it item, count int, whole bool) (*Array, error) {
	a := &Array{Inner: inner}
	a.Elements = make([]Element, 0, min(count, 64))
	depth := len(d.path)
	defer func() { d.path = d.path[:depth] }()
	for i := 0; i < count; i++ {
		d.path = append(d.path[:depth], seg{index: i})
		if c.Len() == 0 {
			return nil, d.errorAt(c.Pos(), "array ends after %d of its %d elements", i, count)
		}
		at := c.Pos()
		v, err := d.item(c, inner, it)
		if err != nil {
			return nil, err
		}
		a.Elements = append(a.Elements, Element{Offset: at, Size: c.Pos() - at, Value: v})
	}
	if whole && c.Len() != 0 {
		return nil, d.errorAt(c.Pos(), "array elements end %d bytes before the value", c.Len())
	}
	return a, nil
}

// rawText returns a best-effort display of a value kept raw: a simple
// Text's string, an ANSI or UTF-8 string, an optional's value, a set's or
// map's element count.
func rawText(d *decoder, t TypeName, b []byte) string {
	switch t.Name.Text {
	case "TextProperty":
		return textString(d, b)
	case "AnsiStrProperty", "Utf8StrProperty":
		// An int32 byte count, then the characters without terminator.
		if len(b) >= 4 && int(binary.LittleEndian.Uint32(b)) == len(b)-4 {
			if t.Name.Text == "AnsiStrProperty" {
				return strconv.Quote(binio.Latin1(b[4:]))
			}
			return strconv.Quote(string(b[4:]))
		}
	case "OptionalProperty":
		// A 4-byte bool, then the value when it is set.
		if len(b) == 4 && binary.LittleEndian.Uint32(b) == 0 {
			return "unset"
		}
		if len(b) > 4 && binary.LittleEndian.Uint32(b) == 1 {
			sub := &decoder{ctx: d.ctx, data: b, depth: d.depth}
			c := sub.cursor(4, len(b))
			if v, err := sub.item(c, t.Param(0), item{size: len(b) - 4, native: -1}); err == nil && c.Len() == 0 {
				return "set: " + valueString(v)
			}
		}
	case "SetProperty", "MapProperty":
		if len(b) >= 8 {
			removed := int32(binary.LittleEndian.Uint32(b))
			n := int32(binary.LittleEndian.Uint32(b[4:]))
			if removed == 0 && n >= 0 {
				what := "elements"
				if t.Name.Text == "MapProperty" {
					what = "entries"
				}
				return fmt.Sprintf("%d %s", n, what)
			}
		}
	}
	return ""
}

// textString decodes the simple FText forms for display: flags, history
// type, then for None (-1) an optional culture-invariant string, for Base
// (0) namespace, key and source string, for StringTableEntry (11) the
// table's name and the key. "" when b is none of them.
func textString(d *decoder, b []byte) string {
	sub := &decoder{ctx: d.ctx, data: b}
	c := sub.cursor(0, len(b))
	c.U32("text flags")
	history := int8(c.U8("text history"))
	var out string
	switch history {
	case -1:
		if bool32(c, "has culture-invariant string") {
			s, err := sub.fstring(c, "text")
			if err != nil {
				return ""
			}
			out = s.String()
		} else {
			out = `""`
		}
	case 0:
		ns, err1 := sub.fstring(c, "namespace")
		key, err2 := sub.fstring(c, "key")
		src, err3 := sub.fstring(c, "source string")
		if err1 != nil || err2 != nil || err3 != nil {
			return ""
		}
		out = fmt.Sprintf("NSLOCTEXT(%s, %s, %s)", ns, key, src)
	case 11:
		table, ok := sub.name(c, "string table")
		key, err := sub.fstring(c, "key")
		if !ok || err != nil {
			return ""
		}
		out = fmt.Sprintf("LOCTABLE(%q, %s)", table.Text, key)
	default:
		return ""
	}
	if c.Err() != nil || c.Len() != 0 {
		return ""
	}
	return out
}
