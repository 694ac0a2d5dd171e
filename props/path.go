package props

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A property path names a value in a property list: property names joined
// with '.', each optionally followed by indices in brackets.
//
//   - "Damage": the property Damage (static array index 0);
//   - "Stats.Damage": the member Damage of the tagged struct Stats, or the
//     field of a native struct ("Position.X", "Bounds.Min.X", "Tint.R");
//   - "Icons[1]": element 1 of the array Icons;
//   - "Weights[2]": element 2 of the static array Weights (the tag with
//     ArrayIndex 2), when Weights is not an ArrayProperty or has several
//     tags; "Weights[2][1]" is element 1 of the array in that tag;
//   - "Items[0].Count": a member of a struct in an array.
//
// Names compare case-insensitively, as FNames do.

// step is one dotted part of a path: a name and its bracketed indices.
type step struct {
	name    string
	indices []int
}

// parsePath splits a path into steps.
func parsePath(path string) ([]step, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("empty property path: %w", ErrNotFound)
	}
	var steps []step
	for _, part := range strings.Split(path, ".") {
		part = strings.TrimSpace(part)
		name, rest, _ := strings.Cut(part, "[")
		st := step{name: strings.TrimSpace(name)}
		if st.name == "" {
			return nil, fmt.Errorf("property path %q: empty name: %w", path, ErrNotFound)
		}
		if rest != "" {
			rest = "[" + rest
		}
		for rest != "" {
			if rest[0] != '[' {
				return nil, fmt.Errorf("property path %q: %q after an index: %w", path, rest, ErrNotFound)
			}
			close := strings.IndexByte(rest, ']')
			if close < 0 {
				return nil, fmt.Errorf("property path %q: unclosed [: %w", path, ErrNotFound)
			}
			n, err := strconv.Atoi(strings.TrimSpace(rest[1:close]))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("property path %q: index %q is not a number ≥ 0: %w", path, rest[1:close], ErrNotFound)
			}
			st.indices = append(st.indices, n)
			rest = rest[close+1:]
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// leafKind says what a location's leaf is.
type leafKind uint8

const (
	leafProperty leafKind = iota // a property's value
	leafElement                  // an array element
	leafField                    // a native struct's field
	leafMissing                  // a property absent from its list
)

// location is what a path resolves to.
type location struct {
	kind leafKind
	// list is the list the leaf's property is (or would be) in.
	list *List
	// prop is the property the leaf is in (nil when missing).
	prop *Property
	// sizes are the offsets of every Size field that covers the leaf:
	// the tags (and older inner array tags) from the outermost down.
	sizes []int
	// start and end locate the leaf's bytes; value is its value and typ
	// its type (a property's or an array's inner type; for a field, the
	// field's value says it).
	start, end int
	value      Value
	typ        TypeName
	// name and index are the missing property's name and static index.
	name  string
	index int32
	// label is the path as resolved, for messages.
	label string
}

// resolve finds what steps name in l.
func resolve(l *List, steps []step) (*location, error) {
	loc := &location{list: l}
	var label strings.Builder
	for si := 0; si < len(steps); si++ {
		st := steps[si]
		last := si == len(steps)-1
		if label.Len() > 0 {
			label.WriteByte('.')
		}
		label.WriteString(st.name)
		var tags []*Property
		for _, p := range loc.list.Properties {
			if strings.EqualFold(p.Name.Text, st.name) {
				tags = append(tags, p)
			}
		}
		indices := st.indices
		var want int32
		if len(indices) > 0 && (len(tags) != 1 || tags[0].ArrayIndex != 0 || tags[0].Type.Name.Text != "ArrayProperty") {
			// A static array index.
			want, indices = int32(indices[0]), indices[1:]
			fmt.Fprintf(&label, "[%d]", want)
		}
		var p *Property
		for _, t := range tags {
			if t.ArrayIndex == want {
				p = t
			}
		}
		if p == nil {
			if last && len(indices) == 0 {
				loc.kind, loc.name, loc.index = leafMissing, st.name, want
				loc.label = label.String()
				return loc, nil
			}
			return nil, notFound(loc.list, label.String(), tags)
		}
		loc.kind, loc.prop = leafProperty, p
		if p.SizeOffset >= 0 { // unversioned values have no Size
			loc.sizes = append(loc.sizes, p.SizeOffset)
		}
		loc.start, loc.end = p.ValueOffset, p.ValueOffset+int(p.Size)
		loc.value, loc.typ = p.Value, p.Type
		for _, i := range indices {
			fmt.Fprintf(&label, "[%d]", i)
			if err := loc.element(i, label.String()); err != nil {
				return nil, err
			}
		}
		if last {
			break
		}
		s, ok := loc.value.(*Struct)
		if !ok {
			return nil, fmt.Errorf("%s is %s, not a struct with members: %w", label.String(), describe(loc.value, loc.typ), ErrNotFound)
		}
		if s.Tagged != nil {
			loc.list = s.Tagged
			continue
		}
		// The rest of the path names a native struct's field.
		if s.Native == nil {
			return nil, fmt.Errorf("%s is a native struct %s of unknown layout; its members cannot be named: %w",
				label.String(), s.Type, ErrUnsupported)
		}
		names := make([]string, 0, len(steps)-si-1)
		for _, r := range steps[si+1 : len(steps)-1] {
			if len(r.indices) > 0 {
				return nil, fmt.Errorf("%s.%s: native struct fields have no elements: %w", label.String(), r.name, ErrNotFound)
			}
			names = append(names, r.name)
		}
		final := steps[len(steps)-1]
		names = append(names, final.name)
		field := strings.Join(names, ".")
		f := s.Field(field)
		if f == nil {
			var have []string
			for _, x := range s.Native {
				have = append(have, x.Name)
			}
			return nil, fmt.Errorf("%s: struct %s has no field %q (fields: %s): %w",
				label.String(), s.Type, field, strings.Join(have, ", "), ErrNotFound)
		}
		label.WriteString("." + field)
		loc.kind, loc.start, loc.end, loc.value = leafField, f.Offset, f.Offset+f.Size, f.Value
		loc.typ = TypeName{}
		for _, i := range final.indices {
			fmt.Fprintf(&label, "[%d]", i)
			if err := loc.element(i, label.String()); err != nil {
				return nil, err
			}
		}
		break
	}
	loc.label = label.String()
	// A one-value native struct (Guid, SoftObjectPath) is set as its value.
	if s, ok := loc.value.(*Struct); ok && len(s.Native) == 1 && s.Native[0].Name == "" {
		f := s.Native[0]
		loc.kind, loc.start, loc.end, loc.value, loc.typ = leafField, f.Offset, f.Offset+f.Size, f.Value, TypeName{}
	}
	return loc, nil
}

// element moves the location to element i of the array it is at.
func (loc *location) element(i int, label string) error {
	a, ok := loc.value.(*Array)
	if _, raw := loc.value.(*Raw); raw {
		return fmt.Errorf("%s: %s is kept as bytes; its elements cannot be named: %w", label, describe(loc.value, loc.typ), ErrUnsupported)
	}
	if !ok {
		return fmt.Errorf("%s: %s is not an array: %w", label, describe(loc.value, loc.typ), ErrNotFound)
	}
	if i >= len(a.Elements) {
		return fmt.Errorf("%s: the array has %d elements: %w", label, len(a.Elements), ErrNotFound)
	}
	if a.InnerTag != nil {
		loc.sizes = append(loc.sizes, a.InnerSizeOffset)
	}
	e := a.Elements[i]
	loc.kind, loc.start, loc.end, loc.value = leafElement, e.Offset, e.Offset+e.Size, e.Value
	loc.typ = a.Inner
	if a.InnerTag != nil {
		loc.typ = a.InnerTag.Type
	}
	return nil
}

// notFound explains that a path names no property of l.
func notFound(l *List, label string, tags []*Property) error {
	if len(tags) > 0 {
		var idx []string
		for _, t := range tags {
			idx = append(idx, strconv.Itoa(int(t.ArrayIndex)))
		}
		return fmt.Errorf("%s: the list has %s only at static array indices %s: %w",
			label, tags[0].Name.Text, strings.Join(idx, ", "), ErrNotFound)
	}
	var names []string
	for _, p := range l.Properties {
		names = append(names, p.Label())
	}
	sort.Strings(names)
	return fmt.Errorf("%s: no such property (the list has: %s): %w", label, strings.Join(names, ", "), ErrNotFound)
}

// describe names a value's kind for messages.
func describe(v Value, t TypeName) string {
	if t.Name.Text != "" {
		return t.String()
	}
	return kindName(v)
}

// Lookup returns the value a path names in l (see the path syntax above),
// with where its bytes are in the data.
func (l *List) Lookup(path string) (Value, int, int, error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, 0, 0, err
	}
	loc, err := resolve(l, steps)
	if err != nil {
		return nil, 0, 0, err
	}
	if loc.kind == leafMissing {
		return nil, 0, 0, fmt.Errorf("%s: no such property: %w", loc.label, ErrNotFound)
	}
	return loc.value, loc.start, loc.end - loc.start, nil
}

// Lookup returns the value a path names in a DataTable row, or in the
// table's own properties when row is "".
func (t *Table) Lookup(row, path string) (Value, int, int, error) {
	if row == "" {
		return t.Properties.Lookup(path)
	}
	r := t.Row(row)
	if r == nil {
		return nil, 0, 0, fmt.Errorf("no DataTable row %q: %w", row, ErrNotFound)
	}
	return r.Properties.Lookup(path)
}
