package props

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/usmap"
)

// Row changes: the rows of a DataTable are an int32 count and, for each
// row, its FName and the row struct's property list (tagged, or
// unversioned over the RowStruct's schema). AddRow, RemoveRow and
// RenameRow change that list through the decoded Table and EncodeTable,
// which writes every other row and the bytes around them as they were.

// AddRow adds a row named row at the end of the DataTable in data and
// returns the new data. The new row is a copy of the row named copyOf, or,
// when copyOf is "", the row struct's defaults: for tagged rows an empty
// property list (every property at its default), for unversioned rows
// every property of the row struct stored as zero. The row's name is an
// FName: a name not in the name map is added through ctx.AddName. A row of
// the same name (FNames compare case-insensitively) is refused with
// ErrUnsupported.
func AddRow(data []byte, ctx *Context, row, copyOf string) ([]byte, Change, error) {
	ch := Change{Target: row, Type: "row"}
	t, err := decodeTable(data, ctx)
	if err != nil {
		return nil, ch, err
	}
	if err := checkRowName(row); err != nil {
		return nil, ch, err
	}
	if t.Row(row) != nil {
		return nil, ch, fmt.Errorf("the DataTable already has a row %q: %w", row, ErrUnsupported)
	}
	var l *List
	if copyOf != "" {
		src := t.Row(copyOf)
		if src == nil {
			return nil, ch, fmt.Errorf("no DataTable row %q to copy (rows: %s): %w", copyOf, rowNames(t), ErrNotFound)
		}
		// The copy is the source's bytes: decode them anew so that the
		// two rows share no values.
		l = src.Properties
		ch.Old = "(copy of " + src.Name.Text + ")"
	} else if ctx.unversioned() {
		d := &decoder{ctx: ctx}
		rs, err := d.rowStruct(t.Properties)
		if err != nil {
			return nil, ch, err
		}
		if l, err = zeroList(ctx, rs, 0); err != nil {
			return nil, ch, fmt.Errorf("row %s: %w", row, err)
		}
		ch.Old = "(all zero)"
	} else {
		l = &List{}
		ch.Old = "(struct defaults)"
	}
	n, added, err := name(ctx, row)
	if err != nil {
		return nil, ch, fmt.Errorf("row %s: %w", row, err)
	}
	if added {
		ch.Warnings = append(ch.Warnings, fmt.Sprintf("the name %q is added to the package's name map", n.Text))
	}
	if n.Text != row {
		// The name map holds the name in another case: the row is named
		// as the map spells it, as the engine would.
		ch.Warnings = append(ch.Warnings, fmt.Sprintf("the row is named %q, as the package's name map spells it", n.Text))
	}
	t.Rows = append(t.Rows, Row{Name: n, Properties: l})
	ch.Target, ch.New = n.Text, "(added)"
	ch.Added = true
	return finishRows(t, ctx, &ch)
}

// RemoveRow removes the row named row from the DataTable in data. The
// row's name stays in the name map (other data may use it).
func RemoveRow(data []byte, ctx *Context, row string) ([]byte, Change, error) {
	ch := Change{Target: row, Type: "row"}
	t, err := decodeTable(data, ctx)
	if err != nil {
		return nil, ch, err
	}
	for i := range t.Rows {
		if strings.EqualFold(t.Rows[i].Name.Text, row) {
			ch.Target, ch.Old, ch.New = t.Rows[i].Name.Text, "(row)", "(removed)"
			ch.Offset, ch.OldSize = t.Rows[i].Offset, rowEnd(t, i)-t.Rows[i].Offset
			t.Rows = append(t.Rows[:i], t.Rows[i+1:]...)
			out, err := EncodeTable(t, ctx)
			if err != nil {
				return nil, ch, err
			}
			if _, err := DecodeDataTable(out, ctx); err != nil {
				return nil, ch, fmt.Errorf("row %s: the changed data does not decode: %w", row, err)
			}
			return out, ch, nil
		}
	}
	return nil, ch, fmt.Errorf("no DataTable row %q (rows: %s): %w", row, rowNames(t), ErrNotFound)
}

// RenameRow renames the row named row to to (an FName: a name not in the
// name map is added through ctx.AddName). A row already named to is
// refused with ErrUnsupported; renaming a row to its own name changes
// nothing (Change.Already).
func RenameRow(data []byte, ctx *Context, row, to string) ([]byte, Change, error) {
	ch := Change{Target: row, Type: "row", Old: row, New: to}
	t, err := decodeTable(data, ctx)
	if err != nil {
		return nil, ch, err
	}
	if err := checkRowName(to); err != nil {
		return nil, ch, err
	}
	r := t.Row(row)
	if r == nil {
		return nil, ch, fmt.Errorf("no DataTable row %q (rows: %s): %w", row, rowNames(t), ErrNotFound)
	}
	ch.Old = r.Name.Text
	if r.Name.Text == to {
		ch.Already = true
		return data, ch, nil
	}
	if o := t.Row(to); o != nil && o != r {
		return nil, ch, fmt.Errorf("the DataTable already has a row %q: %w", o.Name.Text, ErrUnsupported)
	}
	n, added, err := nameExact(ctx, to)
	if err != nil {
		return nil, ch, fmt.Errorf("row %s: %w", row, err)
	}
	if added {
		ch.Warnings = append(ch.Warnings, fmt.Sprintf("the name %q is added to the package's name map", n.Text))
	}
	r.Name = n
	ch.New = n.Text
	ch.Offset, ch.OldSize, ch.NewSize = r.Offset, 8, 8
	out, err := EncodeTable(t, ctx)
	if err != nil {
		return nil, ch, err
	}
	nt, err := DecodeDataTable(out, ctx)
	if err != nil {
		return nil, ch, fmt.Errorf("row %s: the changed data does not decode: %w", row, err)
	}
	if nr := nt.Row(to); nr == nil || nr.Name.Text != n.Text {
		return nil, ch, fmt.Errorf("row %s: the renamed row is not found again as %s", row, to)
	}
	return out, ch, nil
}

// nameExact returns the FName whose text is exactly text (a name in the
// map of another case is not taken: renaming Alpha to ALPHA must change
// the name's case), adding it when needed.
func nameExact(ctx *Context, text string) (Name, bool, error) {
	base, number := splitNumber(text)
	for i, s := range ctx.Names {
		if s == text {
			t, _ := ctx.nameText(int32(i), 0)
			return Name{Index: int32(i), Text: t}, false, nil
		}
		if base != text && s == base {
			t, _ := ctx.nameText(int32(i), number)
			return Name{Index: int32(i), Number: number, Text: t}, false, nil
		}
	}
	if ctx.AddName == nil {
		return Name{}, false, fmt.Errorf("the name %q is not in the package's name map and no name may be added: %w", text, ErrUnsupported)
	}
	i, err := ctx.AddName(base)
	if err != nil {
		return Name{}, false, err
	}
	t, ok := ctx.nameText(i, number)
	if !ok {
		return Name{}, false, fmt.Errorf("AddName(%q) returned index %d outside the %d names", base, i, len(ctx.Names))
	}
	return Name{Index: i, Number: number, Text: t}, true, nil
}

// checkRowName refuses row names the engine cannot hold: empty, None, or
// with control characters.
func checkRowName(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("a row name cannot be empty: %w", ErrType)
	case strings.EqualFold(s, "None"):
		return fmt.Errorf("the row name None is reserved: %w", ErrType)
	case len([]rune(s)) > 1023:
		return fmt.Errorf("a row name has at most 1023 characters: %w", ErrRange)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7F {
			return fmt.Errorf("row name %q contains the control character %U: %w", s, r, ErrType)
		}
	}
	return nil
}

func decodeTable(data []byte, ctx *Context) (*Table, error) {
	if ctx == nil {
		return nil, fmt.Errorf("props: nil Context")
	}
	return DecodeDataTable(data, ctx)
}

// rowEnd returns where row i of t ends.
func rowEnd(t *Table, i int) int {
	if i+1 < len(t.Rows) {
		return t.Rows[i+1].Offset
	}
	return t.End
}

func rowNames(t *Table) string {
	names := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		names[i] = r.Name.Text
	}
	return strings.Join(names, ", ")
}

// finishRows encodes t and checks that the new data decodes with the
// added row last.
func finishRows(t *Table, ctx *Context, ch *Change) ([]byte, Change, error) {
	out, err := EncodeTable(t, ctx)
	if err != nil {
		return nil, *ch, err
	}
	nt, err := DecodeDataTable(out, ctx)
	if err != nil {
		return nil, *ch, fmt.Errorf("row %s: the changed data does not decode: %w", ch.Target, err)
	}
	last := nt.Rows[len(nt.Rows)-1]
	ch.Offset, ch.NewSize = last.Offset, nt.End-last.Offset
	return out, *ch, nil
}

// zeroList returns an unversioned list of the struct named name with
// every property of its schema present as zero: as a zero-mask bit where
// the type has a zero form, else stored empty (strings, arrays, sets,
// maps) or, for structs the mappings describe, as their own zero list.
func zeroList(ctx *Context, name string, depth int) (*List, error) {
	if depth >= MaxDepth {
		return nil, fmt.Errorf("struct %s nests more than %d levels: %w", name, MaxDepth, ErrUnsupported)
	}
	slots, err := ctx.Schema.Schema(name)
	if err != nil {
		return nil, err
	}
	l := &List{Schema: name}
	d := &decoder{ctx: ctx}
	for i, s := range slots {
		if s.Property == nil {
			continue
		}
		p := &Property{Slot: i}
		p.Name = Name{Index: -1, Text: s.Property.Name}
		p.ArrayIndex = int32(s.ArrayIndex)
		p.SizeOffset = -1
		p.Type = d.typeName(s.Property.Type)
		if v, err := d.zeroValue(p.Type, s.Property.Type); err == nil {
			p.Value, p.Zero = v, true
		} else if p.Value, err = storedZero(ctx, s.Property.Type, p.Type, depth); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", name, p.Label(), err)
		}
		l.Properties = append(l.Properties, p)
	}
	return l, nil
}

// storedZero is the zero of a type that has no zero-mask form: stored as
// an empty string, array, set or map, or a struct of zeros.
func storedZero(ctx *Context, t *usmap.Type, tn TypeName, depth int) (Value, error) {
	switch t.Kind {
	case usmap.StrProperty:
		return &String{Zero: true}, nil
	case usmap.ArrayProperty:
		return &Array{Inner: tn.Param(0), Elements: []Element{}}, nil
	case usmap.SetProperty, usmap.MapProperty:
		// A removed count and a count, both zero.
		return &Raw{Bytes: make([]byte, 8)}, nil
	case usmap.StructProperty:
		if nativeLayout(t.Struct) == nil && ctx.Schema.Struct(t.Struct) != nil {
			if _, opaque := nativeOpaque[t.Struct]; !opaque {
				l, err := zeroList(ctx, t.Struct, depth+1)
				if err != nil {
					return nil, err
				}
				return &Struct{Type: t.Struct, Tagged: l}, nil
			}
		}
	}
	return nil, fmt.Errorf("a %s has no zero form unrmod can write: %w", tn, ErrUnsupported)
}
