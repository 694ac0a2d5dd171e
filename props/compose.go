package props

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/usmap"
)

// Arrays grow and shrink, and structs and arrays are set whole:
//
//   - Set on the element one past an array's end ("Values[4]" of a
//     four-element array) appends it, then sets it;
//   - RemoveElement removes one element;
//   - Set on a whole struct with a struct literal as Display prints it,
//     "(X=1,Y=2,Z=3)", sets each member it names; on a whole array with
//     "[a,b,c]" it sets each element, appends the ones past the end and
//     removes the ones past the literal's. Strings inside a literal are
//     quoted as Display quotes them.

// splitPath splits "A.B[3]" into "A.B" and 3; ok is false when the path
// does not end with an index.
func splitPath(path string) (string, int, bool) {
	p := strings.TrimSpace(path)
	if !strings.HasSuffix(p, "]") {
		return "", 0, false
	}
	i := strings.LastIndexByte(p, '[')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(p[i+1 : len(p)-1])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return p[:i], n, true
}

// decodeWhole decodes data as Set's target says: the table (with the row's
// list) or the object's list.
func decodeWhole(data []byte, ctx *Context, row string) (*Table, *List, error) {
	if row == "" {
		l, err := Decode(data, ctx)
		return nil, l, err
	}
	t, err := DecodeDataTable(data, ctx)
	if err != nil {
		return nil, nil, err
	}
	r := t.Row(row)
	if r == nil {
		return nil, nil, fmt.Errorf("no DataTable row %q (rows: %s): %w", row, rowNames(t), ErrNotFound)
	}
	return t, r.Properties, nil
}

func encodeWhole(t *Table, l *List, ctx *Context) ([]byte, error) {
	if t != nil {
		return EncodeTable(t, ctx)
	}
	return Encode(l, ctx)
}

// findArray resolves path in the decoded data to an array.
func findArray(data []byte, ctx *Context, row, path string) (*Table, *List, *location, *Array, error) {
	t, l, err := decodeWhole(data, ctx, row)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	steps, err := parsePath(path)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	loc, err := resolve(l, steps)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	a, ok := loc.value.(*Array)
	if !ok || loc.kind == leafMissing {
		return nil, nil, nil, nil, fmt.Errorf("%s is %s, not an array: %w", path, describe(loc.value, loc.typ), ErrNotFound)
	}
	return t, l, loc, a, nil
}

// appendElement appends an element to the array at path when index is
// one past its end: a copy of the last element, or the element type's
// zero. It returns data unchanged (false) otherwise.
func appendElement(data []byte, ctx *Context, target Target) ([]byte, bool, error) {
	prefix, index, ok := splitPath(target.Path)
	if !ok {
		return data, false, nil
	}
	t, l, loc, a, err := findArray(data, ctx, target.Row, prefix)
	if err != nil || index != len(a.Elements) {
		return data, false, nil // Set reports what the path names
	}
	var v Value
	if n := len(a.Elements); n > 0 {
		v = a.Elements[n-1].Value
	} else if v, err = zeroElement(ctx, loc, a); err != nil {
		return nil, false, fmt.Errorf("%s: %w", target, err)
	}
	if index >= maxElements {
		return nil, false, fmt.Errorf("%s: an array of more than %d elements: %w", target, maxElements, ErrRange)
	}
	a.Elements = append(a.Elements, Element{Value: v})
	out, err := encodeWhole(t, l, ctx)
	return out, err == nil, err
}

// zeroElement returns the zero of an empty array's element type.
func zeroElement(ctx *Context, loc *location, a *Array) (Value, error) {
	if ctx.unversioned() && loc.prop != nil && loc.list != nil && loc.list.Schema != "" {
		slots, err := ctx.Schema.Schema(loc.list.Schema)
		if err != nil {
			return nil, err
		}
		for _, s := range slots {
			if s.Property != nil && strings.EqualFold(s.Property.Name, loc.prop.Name.Text) && s.Property.Type.Inner != nil {
				it := s.Property.Type.Inner
				d := &decoder{ctx: ctx}
				tn := d.typeName(it)
				if it.Kind == usmap.NameProperty {
					n, err := ctx.findName("None", true)
					return NameValue(n), err
				}
				if v, err := d.zeroValue(tn, it); err == nil {
					return v, nil
				}
				return storedZero(ctx, it, tn, 0)
			}
		}
		return nil, fmt.Errorf("the array's element type is not in the mappings: %w", ErrUnsupported)
	}
	inner := a.Inner
	if a.InnerTag != nil {
		inner = a.InnerTag.Type
	}
	// An enum byte's zero is an enumerator, not a number.
	p := inner.Param(0).Name
	enumByte := inner.Name.Text == "ByteProperty" && p.Text != "" && !p.IsNone()
	if z, ok := scalarZero(inner.Name.Text); ok && !enumByte {
		return z, nil
	}
	switch inner.Name.Text {
	case "StrProperty":
		return &String{Zero: true}, nil
	case "NameProperty":
		n, err := ctx.findName("None", true)
		return NameValue(n), err
	case "ObjectProperty", "ClassProperty", "WeakObjectProperty", "InterfaceProperty":
		return Object(0), nil
	case "StructProperty":
		if inner.Param(0).Name.Text != "" && nativeLayout(inner.Param(0).Name.Text) == nil {
			if _, opaque := nativeOpaque[inner.Param(0).Name.Text]; !opaque {
				return &Struct{Type: inner.Param(0).Name.Text, Tagged: &List{}}, nil
			}
		}
	}
	return nil, fmt.Errorf("the array is empty and unrmod has no zero for its elements (%s); add the first element another way: %w", inner, ErrUnsupported)
}

// RemoveElement removes the array element target names ("Values[2]",
// "Nested.Samples[0]") from data (an export's data, or a DataTable's when
// target.Row is set) and returns the new data. Every later element moves
// down by one.
func RemoveElement(data []byte, ctx *Context, target Target) ([]byte, Change, error) {
	ch := Change{Target: target.String(), New: "(removed)"}
	if ctx == nil {
		return nil, ch, fmt.Errorf("props.RemoveElement: nil Context")
	}
	prefix, index, ok := splitPath(target.Path)
	if !ok {
		return nil, ch, fmt.Errorf("%s: name an array element, e.g. Values[2]: %w", target, ErrNotFound)
	}
	t, l, loc, a, err := findArray(data, ctx, target.Row, prefix)
	if err != nil {
		return nil, ch, fmt.Errorf("%s: %w", target, err)
	}
	if index >= len(a.Elements) {
		return nil, ch, fmt.Errorf("%s: the array has %d elements: %w", target, len(a.Elements), ErrNotFound)
	}
	ch.Type = leafType(loc)
	ch.Old = Display(a.Elements[index].Value, ctx.ObjectName)
	ch.Offset, ch.OldSize = a.Elements[index].Offset, a.Elements[index].Size
	a.Elements = append(a.Elements[:index], a.Elements[index+1:]...)
	out, err := encodeWhole(t, l, ctx)
	if err != nil {
		return nil, ch, err
	}
	if _, _, _, na, err := findArray(out, ctx, target.Row, prefix); err != nil || len(na.Elements) != len(a.Elements) {
		return nil, ch, fmt.Errorf("%s: the changed data does not read back: %v", target, err)
	}
	return out, ch, nil
}

// setComposite sets a whole struct or array from a literal.
func setComposite(data []byte, ctx *Context, target Target, old Value, in Input) ([]byte, Change, error) {
	ch := Change{Target: target.String(), Type: kindName(old), Old: Display(old, ctx.ObjectName)}
	text := strings.TrimSpace(in.Text)
	out := data
	switch x := old.(type) {
	case *Struct:
		items, err := splitLiteral(text, '(', ')')
		if err != nil {
			return nil, ch, fmt.Errorf("%s: %w", target, err)
		}
		for _, it := range items {
			k, v, ok := strings.Cut(it, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, ch, fmt.Errorf("%s: %q is not Member=Value: %w", target, it, ErrType)
			}
			if cur, ok := memberDisplay(ctx, x, k); ok && cur == strings.TrimSpace(v) {
				continue // unchanged: its bytes (and zero bit) stay
			}
			sub := Target{Row: target.Row, Path: target.Path + "." + k}
			if out, err = setItem(out, ctx, sub, v); err != nil {
				return nil, ch, err
			}
		}
	case *Array:
		items, err := splitLiteral(text, '[', ']')
		if err != nil {
			return nil, ch, fmt.Errorf("%s: %w", target, err)
		}
		for i, it := range items {
			if i < len(x.Elements) && Display(x.Elements[i].Value, ctx.ObjectName) == strings.TrimSpace(it) {
				continue
			}
			sub := Target{Row: target.Row, Path: fmt.Sprintf("%s[%d]", target.Path, i)}
			if out, err = setItem(out, ctx, sub, it); err != nil {
				return nil, ch, err
			}
		}
		for n := len(x.Elements) - 1; n >= len(items); n-- {
			if out, _, err = RemoveElement(out, ctx, Target{Row: target.Row, Path: fmt.Sprintf("%s[%d]", target.Path, n)}); err != nil {
				return nil, ch, err
			}
		}
	}
	_, l, err := decodeWhole(out, ctx, target.Row)
	if err != nil {
		return nil, ch, err
	}
	steps, _ := parsePath(target.Path)
	loc, err := resolve(l, steps)
	if err != nil {
		return nil, ch, fmt.Errorf("%s: the changed value is not found again: %w", target, err)
	}
	ch.New = Display(loc.value, ctx.ObjectName)
	ch.Already = string(out) == string(data)
	ch.Offset, ch.NewSize = loc.start, loc.end-loc.start
	return out, ch, nil
}

// memberDisplay returns how Display shows the member key of s.
func memberDisplay(ctx *Context, s *Struct, key string) (string, bool) {
	if s.Tagged != nil {
		for _, p := range s.Tagged.Properties {
			if strings.EqualFold(p.Label(), key) {
				return Display(p.Value, ctx.ObjectName), true
			}
		}
	}
	for _, f := range s.Native {
		if strings.EqualFold(f.Name, key) {
			return Display(f.Value, ctx.ObjectName), true
		}
	}
	return "", false
}

// setItem sets one member or element from its literal text: quoted text
// is unquoted.
func setItem(data []byte, ctx *Context, t Target, text string) ([]byte, error) {
	s := strings.TrimSpace(text)
	if len(s) >= 2 && s[0] == '"' {
		u, err := strconv.Unquote(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s is not a quoted string: %w", t, s, ErrType)
		}
		s = u
	}
	out, _, err := Set(data, ctx, t, Input{Text: s})
	return out, err
}

// splitLiteral splits "(a,b,(c,d))" or "[a,b]" into its top-level items,
// minding quotes and nesting.
func splitLiteral(s string, open, close byte) ([]string, error) {
	if len(s) < 2 || s[0] != open || s[len(s)-1] != close {
		return nil, fmt.Errorf("%q is not a literal in %c…%c: %w", s, open, close, ErrType)
	}
	body := s[1 : len(s)-1]
	var items []string
	depth, start, quoted := 0, 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case quoted:
			if c == '\\' {
				i++
			} else if c == '"' {
				quoted = false
			}
		case c == '"':
			quoted = true
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("%q: unbalanced %c: %w", s, c, ErrType)
			}
		case c == ',' && depth == 0:
			items = append(items, body[start:i])
			start = i + 1
		}
	}
	if quoted || depth != 0 {
		return nil, fmt.Errorf("%q: unbalanced quotes or brackets: %w", s, ErrType)
	}
	if strings.TrimSpace(body) != "" {
		items = append(items, body[start:])
	}
	return items, nil
}
