package props

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/unrmod/unrmod/usmap"
	"math"
	"strconv"
	"strings"
)

// Target names the value Set changes: a property path (see the path
// syntax) in the object's list, or in a DataTable row when Row is set.
type Target struct {
	// Row is the DataTable row name; "" for the object's own properties.
	Row string
	// Path is the property path, e.g. "Stats.Damage" or "Icons[1]".
	Path string
}

// String returns "Path" or "Row: Path".
func (t Target) String() string {
	if t.Row != "" {
		return t.Row + ": " + t.Path
	}
	return t.Path
}

// Input is a value as a user wrote it: its text, and optionally its type.
// Type may be a property type ("IntProperty") or a short name: bool, int8,
// int16, int (int32), int64, byte (uint8), uint16, uint32, uint64, float,
// double, name, str (string), enum, object, class, soft (softobject),
// softclass, text. When the property exists, a given Type must match it;
// when it is absent, Type says what to add.
type Input struct {
	Text string
	Type string
}

// Change describes what Set did.
type Change struct {
	// Target is the value changed, as resolved (e.g. "Nested.Position.X").
	Target string `json:"target"`
	// Type is the value's type, e.g. "IntProperty" or "DoubleProperty".
	Type string `json:"type"`
	// Old and New are the value before and after, as Display shows them
	// (Old is "" for an added property).
	Old string `json:"old"`
	New string `json:"new"`
	// Added says the property was absent and a tag was added.
	Added bool `json:"added,omitempty"`
	// Already says the value was already New: the data is unchanged.
	Already bool `json:"already,omitempty"`
	// Offset is where the value's bytes start in the new data; OldSize and
	// NewSize are their sizes before and after (0 and the tag's size for
	// an added property).
	Offset  int `json:"offset"`
	OldSize int `json:"old_size"`
	NewSize int `json:"new_size"`
	// Warnings are things the caller should tell the user.
	Warnings []string `json:"warnings,omitempty"`
}

// Set changes the value target names in data (an export's data, or a
// DataTable's when target.Row is set) to in, and returns the new data.
// The value is encoded in the property's own type (range-checked); every
// Size that covers it is updated and everything after it moves unchanged.
// A property absent from its list is added before the list's None, in the
// tag layout of ctx's version, when in.Type names one of the simple types
// (bool, the integer types, float, double, name, str, byte, enum). A value
// that is already in effect leaves data unchanged (Change.Already). The
// element one past an array's end is appended (a copy of the last
// element, or the element type's zero, then set: Change.Added). A whole
// struct is set from a literal as Display prints it, "(X=1,Y=2,Z=3)",
// member by member, and a whole array from "[a,b,c]", element by element,
// growing or shrinking it (strings in literals are quoted). Set refuses
// Text values, maps, sets, native structs of unknown layout, values out
// of range, and names not in the name map when ctx.AddName is nil. data
// is not modified.
func Set(data []byte, ctx *Context, target Target, in Input) ([]byte, Change, error) {
	ch := Change{Target: target.String()}
	if ctx == nil {
		return nil, ch, errors.New("props.Set: nil Context")
	}
	if ctx.unversioned() {
		// A property left at its default or stored as zero gets its
		// bytes first; then the value changes in place as in tags.
		var err error
		if data, err = materialize(data, ctx, target); err != nil {
			return nil, ch, err
		}
	}
	// An element one past an array's end is appended first.
	data, appended, err := appendElement(data, ctx, target)
	if err != nil {
		return nil, ch, err
	}
	l, err := decodeTarget(data, ctx, target.Row)
	if err != nil {
		return nil, ch, err
	}
	steps, err := parsePath(target.Path)
	if err != nil {
		return nil, ch, err
	}
	loc, err := resolve(l, steps)
	if err != nil {
		return nil, ch, fmt.Errorf("%s: %w", rowPrefix(target.Row), err)
	}
	ch.Target = loc.label
	if target.Row != "" {
		ch.Target = target.Row + ": " + loc.label
	}
	if t := strings.TrimSpace(in.Text); loc.kind != leafMissing && t != "" {
		switch v := loc.value.(type) {
		case *Struct:
			if t[0] == '(' && (v.Tagged != nil || v.Native != nil) {
				return setComposite(data, ctx, target, v, in)
			}
		case *Array:
			if t[0] == '[' {
				return setComposite(data, ctx, target, v, in)
			}
		}
	}
	var out []byte
	if loc.kind == leafMissing {
		out, err = add(data, ctx, l, loc, in, &ch)
	} else {
		out, err = edit(data, ctx, loc, in, &ch)
	}
	if appended {
		ch.Old, ch.Added, ch.Already = "(appended)", true, false
		if err == nil && out == nil {
			out = data
		}
	}
	if err != nil || ch.Already {
		return out, ch, err
	}
	// The new data must decode, with the new value where the path says.
	nl, err := decodeTarget(out, ctx, target.Row)
	if err != nil {
		return nil, ch, fmt.Errorf("%s: the changed data does not decode: %w", ch.Target, err)
	}
	nloc, err := resolve(nl, steps)
	if err != nil || nloc.kind == leafMissing {
		return nil, ch, fmt.Errorf("%s: the changed value is not found again: %v", ch.Target, err)
	}
	if got := Display(nloc.value, ctx.ObjectName); got != ch.New {
		return nil, ch, fmt.Errorf("%s: the changed data reads %s, want %s", ch.Target, got, ch.New)
	}
	_, isBool := nloc.value.(Bool)
	switch {
	case isBool && nloc.kind == leafProperty && !ch.Added:
		// The bool's byte (or flag) was reported by edit.
	case ch.Added && nloc.prop != nil:
		ch.Offset, ch.NewSize = nloc.prop.Offset, nloc.prop.ValueOffset+int(nloc.prop.Size)-nloc.prop.Offset
	default:
		ch.Offset, ch.NewSize = nloc.start, nloc.end-nloc.start
	}
	return out, ch, nil
}

func rowPrefix(row string) string {
	if row == "" {
		return "property"
	}
	return "row " + row
}

// decodeTarget decodes the list Set works on: the object's, or a row's.
func decodeTarget(data []byte, ctx *Context, row string) (*List, error) {
	if row == "" {
		return Decode(data, ctx)
	}
	t, err := DecodeDataTable(data, ctx)
	if err != nil {
		return nil, err
	}
	r := t.Row(row)
	if r == nil {
		var names []string
		for _, x := range t.Rows {
			names = append(names, x.Name.Text)
		}
		return nil, fmt.Errorf("no DataTable row %q (rows: %s): %w", row, strings.Join(names, ", "), ErrNotFound)
	}
	return r.Properties, nil
}

// edit changes an existing value.
func edit(data []byte, ctx *Context, loc *location, in Input, ch *Change) ([]byte, error) {
	ch.Type = leafType(loc)
	ch.Old = Display(loc.value, ctx.ObjectName)
	ch.Offset, ch.OldSize, ch.NewSize = loc.start, loc.end-loc.start, loc.end-loc.start
	if err := checkType(in.Type, loc); err != nil {
		return nil, fmt.Errorf("%s: %w", ch.Target, err)
	}
	switch old := loc.value.(type) {
	case Bool:
		if loc.kind == leafProperty {
			// The value is in the tag: a byte before 1012, a flag after.
			b, err := parseBool(in.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ch.Target, err)
			}
			ch.New = Bool(b).String()
			if b == bool(old) {
				ch.Already = true
				return data, nil
			}
			out := append([]byte(nil), data...)
			at := loc.prop.BoolOffset
			if ctx.unversioned() {
				out[at] = 0
				if b {
					out[at] = 1
				}
			} else if ctx.completeTypes() {
				out[at] ^= FlagBoolTrue
			} else if b {
				out[at] = 1
			} else {
				out[at] = 0
			}
			ch.Offset, ch.OldSize, ch.NewSize = at, 1, 1
			return out, nil
		}
	case *Struct:
		if old.Tagged == nil && old.Native == nil {
			return nil, fmt.Errorf("%s is a native struct %s of unknown layout, kept as bytes; unrmod cannot set it or its members: %w",
				ch.Target, old.Type, ErrUnsupported)
		}
		return nil, fmt.Errorf("%s is a whole struct %s; set its members (e.g. %s.%s): %w",
			ch.Target, old.Type, loc.label, firstMember(old), ErrUnsupported)
	case *Array:
		return nil, fmt.Errorf("%s is a whole array; set its elements (e.g. %s[0]): %w", ch.Target, loc.label, ErrUnsupported)
	case *Raw:
		return nil, fmt.Errorf("%s (%s) is kept as bytes; unrmod cannot set it: %w", ch.Target, describe(old, loc.typ), ErrUnsupported)
	case *Delegate, *MulticastDelegate, *FieldPath:
		return nil, delegateRefusal(ch.Target, describe(old, loc.typ))
	}
	nv, warn, err := parseValue(ctx, loc.value, loc.typ, in.Text)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", ch.Target, ch.Type, err)
	}
	ch.Warnings = append(ch.Warnings, warn...)
	ch.New = Display(nv, ctx.ObjectName)
	e := &encoder{ctx: ctx}
	nb := e.value(nil, nv, false)
	if e.err != nil {
		return nil, e.err
	}
	ob := data[loc.start:loc.end]
	if string(nb) == string(ob) || sameValue(loc.value, nv) {
		ch.Already = true
		return data, nil
	}
	ch.NewSize = len(nb)
	return splice(data, loc.start, loc.end, nb, loc.sizes)
}

// firstMember names a struct's first member, for messages.
func firstMember(s *Struct) string {
	switch {
	case s.Tagged != nil && len(s.Tagged.Properties) > 0:
		return s.Tagged.Properties[0].Name.Text
	case len(s.Native) > 0 && s.Native[0].Name != "":
		return s.Native[0].Name
	}
	return "Member"
}

// sameValue reports whether two values are the same for the user (strings
// of the same text, whatever their encoding).
func sameValue(a, b Value) bool {
	if x, ok := a.(*String); ok {
		if y, ok := b.(*String); ok {
			return x.Text == y.Text
		}
	}
	return false
}

// splice replaces data[start:end] with nb and adds the size change to
// every int32 Size field at the offsets in sizes (all before start).
func splice(data []byte, start, end int, nb []byte, sizes []int) ([]byte, error) {
	delta := len(nb) - (end - start)
	out := make([]byte, 0, len(data)+delta)
	out = append(out, data[:start]...)
	out = append(out, nb...)
	out = append(out, data[end:]...)
	if delta == 0 {
		return out, nil
	}
	for _, at := range sizes {
		v := int64(int32(binary.LittleEndian.Uint32(out[at:]))) + int64(delta)
		if v < 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("size field at 0x%X would become %d: %w", at, v, ErrRange)
		}
		binary.LittleEndian.PutUint32(out[at:], uint32(v))
	}
	return out, nil
}

// leafType names the type of a location's value.
func leafType(loc *location) string {
	if loc.typ.Name.Text != "" {
		return loc.typ.String()
	}
	return kindName(loc.value)
}

// kindName returns the property type a value is of, e.g. "IntProperty".
func kindName(v Value) string {
	switch v.(type) {
	case Bool:
		return "BoolProperty"
	case Int8:
		return "Int8Property"
	case Int16:
		return "Int16Property"
	case Int:
		return "IntProperty"
	case Int64:
		return "Int64Property"
	case Byte:
		return "ByteProperty"
	case UInt16:
		return "UInt16Property"
	case UInt32:
		return "UInt32Property"
	case UInt64:
		return "UInt64Property"
	case Float:
		return "FloatProperty"
	case Double:
		return "DoubleProperty"
	case NameValue:
		return "NameProperty"
	case EnumValue:
		return "EnumProperty"
	case *String:
		return "StrProperty"
	case Object:
		return "ObjectProperty"
	case LazyObject:
		return "LazyObjectProperty"
	case GUIDValue:
		return "Guid"
	case *SoftObject:
		return "SoftObjectProperty"
	case *Struct:
		return "StructProperty"
	case *Array:
		return "ArrayProperty"
	case *Delegate:
		return "DelegateProperty"
	case *MulticastDelegate:
		return "MulticastDelegateProperty"
	case *FieldPath:
		return "FieldPathProperty"
	}
	return "raw value"
}

// typeAliases maps the short type names a user may write to property types.
var typeAliases = map[string]string{
	"bool": "BoolProperty", "boolean": "BoolProperty",
	"int8": "Int8Property", "int16": "Int16Property", "int": "IntProperty", "int32": "IntProperty",
	"int64": "Int64Property", "byte": "ByteProperty", "uint8": "ByteProperty", "uint16": "UInt16Property",
	"uint32": "UInt32Property", "uint64": "UInt64Property", "float": "FloatProperty", "double": "DoubleProperty",
	"name": "NameProperty", "str": "StrProperty", "string": "StrProperty", "enum": "EnumProperty",
	"object": "ObjectProperty", "class": "ClassProperty", "soft": "SoftObjectProperty",
	"softobject": "SoftObjectProperty", "softclass": "SoftClassProperty", "text": "TextProperty",
}

// normalizeType returns the property type a user's type name means.
func normalizeType(t string) (string, error) {
	s := strings.TrimSpace(t)
	if a, ok := typeAliases[strings.ToLower(s)]; ok {
		return a, nil
	}
	for _, a := range typeAliases {
		if strings.EqualFold(a, s) {
			return a, nil
		}
	}
	for _, a := range []string{"WeakObjectProperty", "InterfaceProperty", "LazyObjectProperty", "StructProperty",
		"ArrayProperty", "MapProperty", "SetProperty"} {
		if strings.EqualFold(a, s) {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown type %q (want bool, int8, int16, int, int64, byte, uint16, uint32, uint64, float, double, name, str, enum, object, soft, or a property type such as IntProperty): %w", t, ErrType)
}

// checkType checks an explicit type against the value a location holds.
func checkType(typ string, loc *location) error {
	if strings.TrimSpace(typ) == "" {
		return nil
	}
	want, err := normalizeType(typ)
	if err != nil {
		return err
	}
	have := kindName(loc.value)
	if loc.typ.Name.Text != "" {
		have = loc.typ.Name.Text
	}
	switch {
	case want == have:
		return nil
	case want == "EnumProperty" && have == "ByteProperty":
		if _, ok := loc.value.(EnumValue); ok {
			return nil // a byte of an enum
		}
	case want == "ObjectProperty":
		switch have {
		case "ClassProperty", "WeakObjectProperty", "InterfaceProperty":
			return nil
		}
	case want == "SoftObjectProperty" && have == "SoftClassProperty":
		return nil
	}
	return fmt.Errorf("the value is %s, not %s: %w", describe(loc.value, loc.typ), want, ErrType)
}

// parseBool reads true/false, yes/no, on/off or 1/0.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a bool (true or false): %w", s, ErrType)
}

func parseInt(s string, bits int) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 0, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s does not fit in %d bits: %w", s, bits, ErrRange)
		}
		return 0, fmt.Errorf("%q is not an integer: %w", s, ErrType)
	}
	return v, nil
}

func parseUint(s string, bits int) (uint64, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseUint(t, 0, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) || strings.HasPrefix(t, "-") {
			return 0, fmt.Errorf("%s is outside 0…%d: %w", s, uint64(1)<<bits-1, ErrRange)
		}
		return 0, fmt.Errorf("%q is not an unsigned integer: %w", s, ErrType)
	}
	return v, nil
}

func parseFloat(s string, bits int) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s is outside the range of a %d-bit float: %w", s, bits, ErrRange)
		}
		return 0, fmt.Errorf("%q is not a number: %w", s, ErrType)
	}
	return v, nil
}

// parseValue returns the value text means for a value of old's kind.
func parseValue(ctx *Context, old Value, typ TypeName, text string) (Value, []string, error) {
	var warn []string
	switch old := old.(type) {
	case Bool:
		b, err := parseBool(text)
		return Bool(b), nil, err
	case Int8:
		v, err := parseInt(text, 8)
		return Int8(v), nil, err
	case Int16:
		v, err := parseInt(text, 16)
		return Int16(v), nil, err
	case Int:
		v, err := parseInt(text, 32)
		return Int(v), nil, err
	case Int64:
		v, err := parseInt(text, 64)
		return Int64(v), nil, err
	case Byte:
		v, err := parseUint(text, 8)
		return Byte(v), nil, err
	case UInt16:
		v, err := parseUint(text, 16)
		return UInt16(v), nil, err
	case UInt32:
		v, err := parseUint(text, 32)
		return UInt32(v), nil, err
	case UInt64:
		v, err := parseUint(text, 64)
		return UInt64(v), nil, err
	case Float:
		v, err := parseFloat(text, 32)
		return Float(v), nil, err
	case Double:
		v, err := parseFloat(text, 64)
		return Double(v), nil, err
	case NameValue:
		n, added, err := name(ctx, strings.TrimSpace(text))
		if added {
			warn = append(warn, fmt.Sprintf("the name %q is added to the package's name map", n.Text))
		}
		return NameValue(n), warn, err
	case EnumValue:
		full := strings.TrimSpace(text)
		if !strings.Contains(full, "::") {
			prefix := typ.Param(0).Name.Text
			if prefix == "" || strings.EqualFold(prefix, "None") {
				prefix, _, _ = strings.Cut(old.Text, "::")
			}
			if prefix != "" && strings.Contains(old.Text, "::") {
				full = prefix + "::" + full
			}
		}
		n, added, err := name(ctx, full)
		if added {
			warn = append(warn, fmt.Sprintf("the enumerator %q is not in the package's name map; it is added, and unrmod cannot check that the enum declares it", n.Text))
		}
		return EnumValue(n), warn, err
	case *EnumInt:
		// An unversioned enum: the enumerator's value from the schema.
		in := strings.TrimSpace(text)
		e := ctx.Schema.Enum(old.Enum)
		if e == nil {
			return nil, nil, fmt.Errorf("enum %s is not in the mappings: %w", old.Enum, ErrNotFound)
		}
		short := in
		if i := strings.LastIndex(in, "::"); i >= 0 {
			short = in[i+2:]
		}
		v, ok := e.ValueOf(short)
		if !ok {
			names := make([]string, len(e.Entries))
			for i, x := range e.Entries {
				names[i] = x.Name
			}
			return nil, nil, fmt.Errorf("enum %s has no enumerator %q (it has %s): %w", old.Enum, in, strings.Join(names, ", "), ErrType)
		}
		if old.Size < 8 && v >= 1<<(8*old.Size) {
			return nil, nil, fmt.Errorf("enumerator %s is %d, beyond %d bytes: %w", in, v, old.Size, ErrRange)
		}
		d := &decoder{ctx: ctx}
		return d.enumValue(&usmap.Type{Kind: usmap.EnumProperty, Enum: old.Enum}, v, old.Size), nil, nil
	case *String:
		return newString(text), nil, nil
	case Object:
		v, err := parseObject(ctx, text)
		return v, nil, err
	case LazyObject:
		g, err := parseGUID(text)
		return LazyObject(g), nil, err
	case GUIDValue:
		g, err := parseGUID(text)
		return GUIDValue(g), nil, err
	case *SoftObject:
		return parseSoftPath(ctx, old, text)
	}
	return nil, nil, fmt.Errorf("values of type %s cannot be set: %w", kindName(old), ErrUnsupported)
}

// name returns the FName for text, adding it to the name map when it is
// not there and ctx allows.
func name(ctx *Context, text string) (Name, bool, error) {
	before := len(ctx.Names)
	n, err := ctx.findName(text, true)
	return n, err == nil && len(ctx.Names) > before, err
}

// parseObject reads an object reference: a number, None, or a path
// ctx.ResolveObject knows.
func parseObject(ctx *Context, text string) (Object, error) {
	s := strings.TrimSpace(text)
	var v int64
	if n, err := strconv.ParseInt(s, 0, 32); err == nil {
		v = n
	} else if s == "" || strings.EqualFold(s, "None") || strings.EqualFold(s, "null") {
		v = 0
	} else if ctx.ResolveObject != nil {
		i, err := ctx.ResolveObject(s)
		if err != nil {
			return 0, err
		}
		v = int64(i)
	} else {
		return 0, fmt.Errorf("%q is not an FPackageIndex (0 none, -i-1 import i, i+1 export i) and no object resolver is given: %w", text, ErrType)
	}
	o := Object(v)
	if i, ok := o.Import(); ok && ctx.Imports > 0 && i >= ctx.Imports {
		return 0, fmt.Errorf("object reference %d is import %d; the package has %d imports: %w", v, i, ctx.Imports, ErrRange)
	}
	if i, ok := o.Export(); ok && ctx.Exports > 0 && i >= ctx.Exports {
		return 0, fmt.Errorf("object reference %d is export %d; the package has %d exports: %w", v, i, ctx.Exports, ErrRange)
	}
	return o, nil
}

// parseGUID reads 32 hex digits (dashes and braces allowed), the engine's
// text form: four uint32, each most significant digit first.
func parseGUID(text string) (GUID, error) {
	s := strings.NewReplacer("-", "", "{", "", "}", "", " ", "").Replace(strings.TrimSpace(text))
	var g GUID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		return g, fmt.Errorf("%q is not a GUID of 32 hex digits: %w", text, ErrType)
	}
	for i := 0; i < 16; i += 4 {
		g[i], g[i+1], g[i+2], g[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return g, nil
}

// parseSoftPath reads a soft object path: "/Game/Dir/Asset.Asset",
// optionally ":SubPath", or None.
func parseSoftPath(ctx *Context, old *SoftObject, text string) (Value, []string, error) {
	s := strings.TrimSpace(text)
	if i := strings.IndexByte(s, '\''); i > 0 && strings.HasSuffix(s, "'") && len(s) > i+1 {
		s = s[i+1 : len(s)-1]
	}
	none, err := ctx.findName("None", false)
	if err != nil {
		return nil, nil, err
	}
	v := &SoftObject{TopLevel: old.TopLevel, UTF8: old.UTF8, PackageName: none, AssetName: none, AssetPath: none}
	var warn []string
	get := func(t string) Name {
		n, added, e := name(ctx, t)
		if e != nil && err == nil {
			err = e
		}
		if added {
			warn = append(warn, fmt.Sprintf("the name %q is added to the package's name map", n.Text))
		}
		return n
	}
	asset, sub := s, ""
	if strings.EqualFold(s, "None") {
		asset = ""
	} else if i := strings.IndexByte(s, ':'); i >= 0 {
		asset, sub = s[:i], s[i+1:]
	}
	switch {
	case asset == "":
	case v.TopLevel:
		pkg, obj, ok := strings.Cut(asset, ".")
		v.PackageName = get(pkg)
		if ok {
			v.AssetName = get(obj)
		}
	default:
		v.AssetPath = get(asset)
	}
	if err != nil {
		return nil, nil, err
	}
	if v.UTF8 {
		v.SubPath = &String{Text: sub, Zero: sub == ""}
	} else {
		v.SubPath = newString(sub)
	}
	return v, warn, nil
}

// scalarZero returns the zero of the bool and plain number property types
// (a ByteProperty as a byte, not an enum), and whether typ is one.
func scalarZero(typ string) (Value, bool) {
	switch typ {
	case "BoolProperty":
		return Bool(false), true
	case "Int8Property":
		return Int8(0), true
	case "Int16Property":
		return Int16(0), true
	case "IntProperty":
		return Int(0), true
	case "Int64Property":
		return Int64(0), true
	case "ByteProperty":
		return Byte(0), true
	case "UInt16Property":
		return UInt16(0), true
	case "UInt32Property":
		return UInt32(0), true
	case "UInt64Property":
		return UInt64(0), true
	case "FloatProperty":
		return Float(0), true
	case "DoubleProperty":
		return Double(0), true
	}
	return nil, false
}

// add inserts a tag for a property absent from its list.
func add(data []byte, ctx *Context, root *List, loc *location, in Input, ch *Change) ([]byte, error) {
	if strings.TrimSpace(in.Type) == "" {
		return nil, fmt.Errorf("%s is not in the list (it has its class default); give its type to add it: %w", ch.Target, ErrNotFound)
	}
	typ, err := normalizeType(in.Type)
	if err != nil {
		return nil, err
	}
	zero, scalar := scalarZero(typ)
	switch {
	case scalar:
	case typ == "NameProperty":
		zero = NameValue{}
	case typ == "StrProperty":
		zero = &String{}
	case typ == "EnumProperty":
		zero = EnumValue{Text: "::"}
	default:
		return nil, fmt.Errorf("%s is absent; unrmod adds only bool, integer, float, double, name, str, byte and enum properties, not %s: %w",
			ch.Target, typ, ErrUnsupported)
	}
	ch.Added, ch.Type, ch.Old = true, typ, ""
	// Everything that can be refused is checked before a name is added.
	var enumType TypeName
	if typ == "EnumProperty" {
		enum, _, ok := strings.Cut(strings.TrimSpace(in.Text), "::")
		if !ok || enum == "" {
			return nil, fmt.Errorf("%s: to add an enum property give its value as EnumName::Value: %w", ch.Target, ErrType)
		}
		if ctx.completeTypes() {
			// The complete type names the enum's path; take it from a
			// property of the same enum in the data.
			t, found := findEnumType(root, enum)
			if !found {
				return nil, fmt.Errorf("%s: adding an EnumProperty of %s needs the enum's full type, and no property of that enum is in the list: %w",
					ch.Target, enum, ErrUnsupported)
			}
			enumType = t
		}
	}
	dry := *ctx
	dry.AddName = nil
	if _, _, err := parseValue(&dry, zero, TypeName{}, in.Text); err != nil && !errors.Is(err, ErrUnsupported) {
		return nil, fmt.Errorf("%s (%s): %w", ch.Target, typ, err)
	}
	// Then the names: the property's and its type's.
	var warn []string
	need := func(text string) Name {
		n, added, e := name(ctx, text)
		if e != nil && err == nil {
			err = e
		}
		if added {
			warn = append(warn, fmt.Sprintf("the name %q is added to the package's name map", n.Text))
		}
		return n
	}
	p := &Property{}
	p.Name = need(loc.name)
	p.ArrayIndex = loc.index
	switch {
	case enumType.Name.Text != "":
		p.Type = enumType
	case typ == "EnumProperty":
		enum, _, _ := strings.Cut(strings.TrimSpace(in.Text), "::")
		p.Type = TypeName{Name: need(typ), Params: []TypeName{{Name: need(enum)}}}
	case typ == "ByteProperty" && !ctx.completeTypes():
		// Older tags name the enum of a byte; None for a plain byte.
		p.Type = TypeName{Name: need(typ), Params: []TypeName{{Name: need("None")}}}
	default:
		p.Type = TypeName{Name: need(typ)}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ch.Target, err)
	}
	nv, w, err := parseValue(ctx, zero, p.Type, in.Text)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", ch.Target, typ, err)
	}
	warn = append(warn, w...)
	p.Value = nv
	if p.ArrayIndex != 0 {
		p.Flags |= FlagHasArrayIndex
	}
	if ctx.tagExtensions() {
		p.Extensions = &Extensions{}
		p.Flags |= FlagHasPropertyExtensions
	}
	e := &encoder{ctx: ctx}
	nb := e.property(nil, p)
	if e.err != nil {
		return nil, e.err
	}
	ch.New = Display(nv, ctx.ObjectName)
	ch.Offset, ch.OldSize, ch.NewSize = loc.list.NoneOffset, 0, len(nb)
	ch.Warnings = append(ch.Warnings, warn...)
	ch.Warnings = append(ch.Warnings, "the property is added; unrmod cannot check that the object's class declares it with this type")
	return splice(data, loc.list.NoneOffset, loc.list.NoneOffset, nb, loc.sizes)
}

// findEnumType returns the type of an EnumProperty of enum in l or the
// lists nested in it.
func findEnumType(l *List, enum string) (TypeName, bool) {
	for _, p := range l.Properties {
		if p.Type.Name.Text == "EnumProperty" && strings.EqualFold(p.Type.Param(0).Name.Text, enum) {
			return p.Type, true
		}
		var t TypeName
		found := false
		var visit func(v Value)
		visit = func(v Value) {
			switch x := v.(type) {
			case *Struct:
				if x.Tagged != nil && !found {
					t, found = findEnumType(x.Tagged, enum)
				}
			case *Array:
				if x.Inner.Name.Text == "EnumProperty" && strings.EqualFold(x.Inner.Param(0).Name.Text, enum) && !found {
					t, found = x.Inner, true
				}
				for _, el := range x.Elements {
					visit(el.Value)
				}
			}
		}
		visit(p.Value)
		if found {
			return t, true
		}
	}
	return TypeName{}, false
}

// delegateRefusal is Set's error for a delegate, multicast delegate or
// field path of type typ at target.
func delegateRefusal(target, typ string) error {
	return fmt.Errorf("%s (%s) binds functions or fields by name to objects, which must exist with that signature; "+
		"unrmod shows it but cannot set it: %w", target, typ, ErrUnsupported)
}
