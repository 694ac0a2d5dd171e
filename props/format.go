package props

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// FormatOptions control Format.
type FormatOptions struct {
	// Object names object references (FPackageIndex values), e.g.
	// zenprops.Resolver.Name; nil shows "import 3" and "export 0".
	Object func(index int32) string
	// MaxElements is how many elements of an array are listed (default
	// 32; negative lists all).
	MaxElements int
	// Indent is the indentation of one level (default two spaces).
	Indent string
}

func (o *FormatOptions) maxElements() int {
	switch {
	case o == nil || o.MaxElements == 0:
		return 32
	case o.MaxElements < 0:
		return int(^uint(0) >> 1)
	}
	return o.MaxElements
}

func (o *FormatOptions) indent() string {
	if o == nil || o.Indent == "" {
		return "  "
	}
	return o.Indent
}

// Format returns the list one property a line, "Name[idx] (Type) = value":
// tagged structs with their properties on the lines below (indented),
// arrays with one element a line ("[3] = value"; at most MaxElements),
// native structs inline as (X=1,Y=2,Z=3). A serialization-control byte
// with flags set, the object GUID and the size of the native data after
// the list are noted last.
func (l *List) Format(opts *FormatOptions) string {
	var b strings.Builder
	f := formatter{b: &b, o: opts}
	f.list(l, 0)
	if l.Control != nil && l.Control.Flags != 0 {
		fmt.Fprintf(&b, "(serialization control 0x%02X, operation %d)\n", l.Control.Flags, l.Control.Operation)
	}
	if l.ObjectGUID != nil {
		fmt.Fprintf(&b, "(object GUID %s)\n", l.ObjectGUID)
	}
	if len(l.Rest) > 0 {
		fmt.Fprintf(&b, "(%d bytes of native data after the properties)\n", len(l.Rest))
	}
	return b.String()
}

// String returns Format(nil).
func (l *List) String() string { return l.Format(nil) }

// Format returns the table's properties, then each row as "Row NAME" and
// its properties indented.
func (t *Table) Format(opts *FormatOptions) string {
	var b strings.Builder
	f := formatter{b: &b, o: opts}
	f.list(t.Properties, 0)
	fmt.Fprintf(&b, "Rows: %d\n", len(t.Rows))
	for i := range t.Rows {
		fmt.Fprintf(&b, "Row %s\n", t.Rows[i].Name.Text)
		f.list(t.Rows[i].Properties, 1)
	}
	if len(t.Rest) > 0 {
		fmt.Fprintf(&b, "(%d bytes after the rows)\n", len(t.Rest))
	}
	return b.String()
}

// String returns Format(nil).
func (t *Table) String() string { return t.Format(nil) }

type formatter struct {
	b *strings.Builder
	o *FormatOptions
}

func (f *formatter) pad(depth int) {
	for range depth {
		f.b.WriteString(f.o.indent())
	}
}

func (f *formatter) list(l *List, depth int) {
	for _, p := range l.Properties {
		f.pad(depth)
		fmt.Fprintf(f.b, "%s (%s)", p.Label(), p.TypeString())
		f.value(p.Value, depth)
		if p.Problem != "" {
			f.pad(depth + 1)
			fmt.Fprintf(f.b, "(kept raw: %s)\n", p.Problem)
		}
	}
}

// value writes " = v\n" for an inline value, or a newline and the value's
// parts on the lines below.
func (f *formatter) value(v Value, depth int) {
	switch x := v.(type) {
	case *Struct:
		if x.Tagged != nil {
			f.b.WriteByte('\n')
			f.list(x.Tagged, depth+1)
			return
		}
	case *Array:
		fmt.Fprintf(f.b, " = %d elements\n", len(x.Elements))
		for i, e := range x.Elements {
			if i == f.o.maxElements() {
				f.pad(depth + 1)
				fmt.Fprintf(f.b, "… %d more\n", len(x.Elements)-i)
				break
			}
			f.pad(depth + 1)
			fmt.Fprintf(f.b, "[%d]", i)
			f.value(e.Value, depth+1)
		}
		return
	}
	f.b.WriteString(" = " + f.inline(v) + "\n")
}

// inline formats a value on one line, naming objects through the options.
func (f *formatter) inline(v Value) string {
	switch x := v.(type) {
	case Object:
		if f.o != nil && f.o.Object != nil {
			return f.o.Object(int32(x))
		}
	case *Delegate:
		return x.format(f.object())
	case *MulticastDelegate:
		return x.format(f.object())
	case *FieldPath:
		return x.format(f.object())
	case *Struct:
		if x.Tagged != nil {
			var parts []string
			for _, p := range x.Tagged.Properties {
				parts = append(parts, p.Label()+"="+f.inline(p.Value))
			}
			return "(" + strings.Join(parts, ",") + ")"
		}
		if len(x.Native) == 1 && x.Native[0].Name == "" {
			return f.inline(x.Native[0].Value)
		}
		if x.Native != nil {
			parts := make([]string, len(x.Native))
			for i, fl := range x.Native {
				parts[i] = fl.Name + "=" + f.inline(fl.Value)
			}
			return "(" + strings.Join(parts, ",") + ")"
		}
	case *Array:
		parts := make([]string, 0, len(x.Elements))
		for i, e := range x.Elements {
			if i == f.o.maxElements() {
				parts = append(parts, fmt.Sprintf("… %d more", len(x.Elements)-i))
				break
			}
			parts = append(parts, f.inline(e.Value))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return valueString(v)
}

// object returns the options' object namer, or nil.
func (f *formatter) object() func(int32) string {
	if f.o == nil {
		return nil
	}
	return f.o.Object
}

// Display returns v on one line as Format shows it, naming objects with
// object when it is not nil.
func Display(v Value, object func(int32) string) string {
	f := formatter{b: nil, o: &FormatOptions{Object: object}}
	return f.inline(v)
}

// JSON forms: values marshal as JSON-friendly values (numbers, strings,
// GUIDs and raw bytes as hex), properties with their value.

// MarshalJSON returns the property with "type_string" and "value".
func (p *Property) MarshalJSON() ([]byte, error) {
	type plain Property
	return json.Marshal(struct {
		*plain
		TypeString string `json:"type_string"`
		Value      any    `json:"value"`
	}{(*plain)(p), p.TypeString(), jsonValue(p.Value)})
}

// MarshalJSON returns the field with its value.
func (f Field) MarshalJSON() ([]byte, error) {
	type plain Field
	return json.Marshal(struct {
		plain
		Value any `json:"value"`
	}{plain(f), jsonValue(f.Value)})
}

// MarshalJSON returns the element with its value.
func (e Element) MarshalJSON() ([]byte, error) {
	type plain Element
	return json.Marshal(struct {
		plain
		Value any `json:"value"`
	}{plain(e), jsonValue(e.Value)})
}

// MarshalJSON returns the number, or a string for NaN and the infinities.
func (v Float) MarshalJSON() ([]byte, error) { return json.Marshal(jsonFloat(float64(v))) }

// MarshalJSON returns the number, or a string for NaN and the infinities.
func (v Double) MarshalJSON() ([]byte, error) { return json.Marshal(jsonFloat(float64(v))) }

// MarshalText returns the GUID's hex form.
func (v LazyObject) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// MarshalText returns the GUID's hex form.
func (v GUIDValue) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// MarshalJSON returns {"hex": "0x…", "text": …}.
func (v *Raw) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Hex  string `json:"hex"`
		Text string `json:"text,omitempty"`
	}{"0x" + hex.EncodeToString(v.Bytes), v.Text})
}

// jsonValue returns the JSON form of a value: scalars as themselves, names
// and enumerators as their text, strings as their text, soft paths as
// their path, structs and arrays with their parts.
func jsonValue(v Value) any {
	switch x := v.(type) {
	case NameValue:
		return x.Text
	case EnumValue:
		return x.Text
	case *String:
		return x.Text
	case *SoftObject:
		return x.Path()
	case *Delegate:
		return jsonDelegate(x)
	case *MulticastDelegate:
		out := make([]any, len(x.Delegates))
		for i := range x.Delegates {
			out[i] = jsonDelegate(&x.Delegates[i])
		}
		return out
	case *FieldPath:
		path := make([]string, len(x.Path))
		for i, n := range x.Path {
			path[i] = n.Text
		}
		m := map[string]any{"path": path}
		if x.Owner != nil {
			m["owner"] = int32(*x.Owner)
		}
		return m
	case *Struct:
		if x.Raw != nil && x.Tagged == nil && x.Native == nil {
			return map[string]any{"type": x.Type, "raw": "0x" + hex.EncodeToString(x.Raw)}
		}
	}
	return v
}

// jsonDelegate returns a delegate as {"object": FPackageIndex, "function": name}.
func jsonDelegate(x *Delegate) any {
	return map[string]any{"object": int32(x.Object), "function": x.Function.Text}
}
