package tables

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/props"
)

// ErrFormat is wrapped by errors for JSON or CSV input that is not a
// table document.
var ErrFormat = errors.New("not a DataTable document")

// Document is a DataTable as rows of cells.
type Document struct {
	// RowStruct is the row struct's object path, as the table names it
	// ("" when unknown); informative only.
	RowStruct string
	// Columns are the property labels (a name, with [i] for a static
	// array element), in the order the rows store them.
	Columns []Column
	// Rows are the rows in order.
	Rows []Row
}

// Column is one property column: its label and its type as props names
// it (e.g. "IntProperty", "StructProperty(Vector)"); Type is "" when the
// document did not say.
type Column struct {
	Name string
	Type string
}

// Row is one row: its name and its cells by column label. A column
// absent from Cells is a property the row does not store.
type Row struct {
	Name  string
	Cells map[string]Cell
}

// Cell is one value: its text (as props.Set takes it) and, for a
// document read from JSON, its JSON value (json.Number, string, bool,
// nil, []any or Object).
type Cell struct {
	Text string
	JSON any
	// json says the cell came from JSON: JSON is compared, not Text.
	json bool
}

// Object is a JSON object whose members keep their order.
type Object []Member

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the member named key (case-insensitively), or nil, false.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if strings.EqualFold(m.Key, key) {
			return m.Value, true
		}
	}
	return nil, false
}

// Export returns the document of t, a DataTable decoded with ctx (whose
// ObjectName names object references). Every value is read; none is
// changed.
func Export(t *props.Table, ctx *props.Context) *Document {
	ctx = cachedNames(ctx)
	d := &Document{}
	if p := t.Properties.Find("RowStruct", 0); p != nil {
		if o, ok := p.Value.(props.Object); ok && ctx.ObjectName != nil {
			d.RowStruct = ctx.ObjectName(int32(o))
		}
	}
	seen := map[string]bool{}
	for _, r := range t.Rows {
		row := Row{Name: r.Name.Text, Cells: map[string]Cell{}}
		for _, p := range r.Properties.Properties {
			label := p.Label()
			if !seen[strings.ToLower(label)] {
				seen[strings.ToLower(label)] = true
				d.Columns = append(d.Columns, Column{Name: label, Type: p.TypeString()})
			}
			row.Cells[label] = Cell{Text: cellText(p.Value, ctx), JSON: jsonOf(p.Value, ctx)}
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// cachedNames returns a copy of ctx whose ObjectName remembers the names
// it gave: a table names the same few objects in every row.
func cachedNames(ctx *props.Context) *props.Context {
	if ctx.ObjectName == nil {
		return ctx
	}
	c := *ctx
	seen := map[int32]string{}
	name := ctx.ObjectName
	c.ObjectName = func(i int32) string {
		if s, ok := seen[i]; ok {
			return s
		}
		s := name(i)
		seen[i] = s
		return s
	}
	return &c
}

// cellText is a top-level value's text: Display's, a string bare, an
// array in the editor's form, in parentheses ((1,2) where props shows
// [1,2]; arrays inside structs keep the brackets).
func cellText(v props.Value, ctx *props.Context) string {
	switch x := v.(type) {
	case *props.String:
		return x.Text
	case *props.SoftObject:
		return x.Path()
	case *props.Array:
		if t := props.Display(v, ctx.ObjectName); strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			return "(" + t[1:len(t)-1] + ")"
		}
	}
	return props.Display(v, ctx.ObjectName)
}

// arrayLiteral turns a cell holding an array in the editor's form, in
// parentheses, into the form props.Set reads, in brackets; other text,
// and an array already in brackets, is returned as it is.
func arrayLiteral(text string, isArray bool) string {
	t := strings.TrimSpace(text)
	if isArray && strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		return "[" + t[1:len(t)-1] + "]"
	}
	return text
}

// jsonOf returns a value's JSON form: numbers as json-ready text
// (jsonNumber), bools, strings, structs as Objects, arrays as []any.
func jsonOf(v props.Value, ctx *props.Context) any {
	switch x := v.(type) {
	case props.Bool:
		return bool(x)
	case props.Int8, props.Int16, props.Int, props.Int64, props.Byte, props.UInt16, props.UInt32, props.UInt64:
		return jsonNumber(props.Display(v, nil))
	case props.Float, props.Double:
		s := props.Display(v, nil)
		if _, err := strconv.ParseFloat(s, 64); err != nil || strings.ContainsAny(s, "IN") {
			return s // NaN, ±Inf: JSON has no number for them
		}
		return jsonNumber(s)
	case *props.String:
		return x.Text
	case *props.SoftObject:
		return x.Path()
	case *props.Struct:
		switch {
		case x.Tagged != nil:
			o := Object{}
			for _, p := range x.Tagged.Properties {
				o = append(o, Member{p.Label(), jsonOf(p.Value, ctx)})
			}
			return o
		case len(x.Native) == 1 && x.Native[0].Name == "":
			return jsonOf(x.Native[0].Value, ctx)
		case x.Native != nil:
			o := Object{}
			for _, f := range x.Native {
				o = append(o, Member{f.Name, jsonOf(f.Value, ctx)})
			}
			return o
		}
	case *props.Array:
		a := make([]any, len(x.Elements))
		for i, e := range x.Elements {
			a[i] = jsonOf(e.Value, ctx)
		}
		return a
	}
	return props.Display(v, ctx.ObjectName)
}

// jsonNumber is a number's text, written to JSON as it is and read back
// as it was written.
type jsonNumber string

// Edit is one change Apply makes.
type Edit struct {
	// Kind is "add-row", "remove-row" or "set".
	Kind string
	// Row is the row; Path the property path and Text the value, for set.
	Row, Path, Text string
	// Type is the property's type for a property the row does not store
	// (props.Set adds it), "" otherwise.
	Type string
	// CopyOf is the row an added row starts as a copy of ("": the row
	// struct's defaults).
	CopyOf string
}

// String returns the edit as a plan line.
func (e Edit) String() string {
	if e.Kind == "set" {
		return fmt.Sprintf("set %s: %s = %s", e.Row, e.Path, e.Text)
	}
	return e.Kind + " " + e.Row
}

// Plan returns the edits that make the DataTable t (decoded with ctx)
// hold doc: added rows first (a tagged row as a copy of the table's first
// row, whose cells are then set; an unversioned row all zero), then
// removed rows, then the cells that differ, row by row in the document's
// order. It refuses (ErrFormat) a
// cell of a column no row of the table or the document types, and an
// emptied cell of a value that is not a string.
func Plan(t *props.Table, ctx *props.Context, doc *Document) ([]Edit, error) {
	var edits []Edit
	want := map[string]bool{}
	for _, r := range doc.Rows {
		want[strings.ToLower(r.Name)] = true
	}
	// New rows first, while every old row is there to copy: a tagged row
	// starts as a copy of the table's first row (so that every property
	// it stores can be set, arrays and structs too), an unversioned one
	// with every property zero.
	template := ""
	if ctx.Schema == nil && len(t.Rows) > 0 {
		template = t.Rows[0].Name.Text
	}
	for _, r := range doc.Rows {
		if t.Row(r.Name) == nil {
			edits = append(edits, Edit{Kind: "add-row", Row: r.Name, CopyOf: template})
		}
	}
	for _, r := range t.Rows {
		if !want[strings.ToLower(r.Name.Text)] {
			edits = append(edits, Edit{Kind: "remove-row", Row: r.Name.Text})
		}
	}
	types := columnTypes(t, doc)
	for _, r := range doc.Rows {
		var l *props.List
		tr := t.Row(r.Name)
		added := tr == nil
		switch {
		case !added:
			l = tr.Properties
		case template != "":
			l = t.Row(template).Properties
		case ctx.Schema != nil:
			l = &props.List{} // every property zero: set every cell given
		}
		for _, c := range doc.Columns {
			cell, ok := r.Cells[c.Name]
			if !ok {
				continue
			}
			var cur *props.Property
			if l != nil {
				cur = find(l, c.Name)
			}
			if cur == nil {
				if !cell.json && cell.Text == "" || cell.json && cell.JSON == nil {
					continue // not stored, and left so
				}
				typ := types[strings.ToLower(c.Name)]
				text := arrayLiteral(cell.Text, strings.HasPrefix(typ, "ArrayProperty"))
				if cell.json {
					text = textFor(ctx, nil, cell.JSON, true)
				}
				edits = append(edits, Edit{Kind: "set", Row: r.Name, Path: c.Name, Text: text, Type: typ})
				continue
			}
			if !cell.json && cell.Text == "" {
				// An empty cell: an empty string, or a value not given
				// (a new row keeps its template's).
				if _, isString := cur.Value.(*props.String); !isString || added {
					continue
				}
			}
			var text string
			if cell.json {
				if equalJSON(jsonOf(cur.Value, ctx), cell.JSON) {
					continue
				}
				text = textFor(ctx, cur.Value, cell.JSON, true)
			} else {
				if cell.Text == cellText(cur.Value, ctx) {
					continue
				}
				_, isArray := cur.Value.(*props.Array)
				text = arrayLiteral(cell.Text, isArray)
				if isArray && text == props.Display(cur.Value, ctx.ObjectName) {
					continue // the same array in brackets
				}
			}
			edits = append(edits, Edit{Kind: "set", Row: r.Name, Path: c.Name, Text: text})
		}
	}
	return edits, nil
}

// find returns the property labelled label in l.
func find(l *props.List, label string) *props.Property {
	for _, p := range l.Properties {
		if strings.EqualFold(p.Label(), label) {
			return p
		}
	}
	return nil
}

// columnTypes returns the property type of each column (lower-case
// label) as a row of t stores it, or as doc names it.
func columnTypes(t *props.Table, doc *Document) map[string]string {
	out := map[string]string{}
	for _, c := range doc.Columns {
		if c.Type != "" {
			out[strings.ToLower(c.Name)] = baseType(c.Type)
		}
	}
	for _, r := range t.Rows {
		for _, p := range r.Properties.Properties {
			out[strings.ToLower(p.Label())] = p.Type.Name.Text
		}
	}
	return out
}

// baseType returns "IntProperty" of "IntProperty" or "EnumProperty(E)".
func baseType(s string) string {
	if i := strings.IndexByte(s, '('); i > 0 {
		return s[:i]
	}
	return s
}

// Apply makes the DataTable in data (decoded with ctx) hold doc and
// returns the new data and the edits made. A document equal to the
// table returns data itself and no edits.
func Apply(data []byte, ctx *props.Context, doc *Document) ([]byte, []Edit, error) {
	t, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		return nil, nil, err
	}
	edits, err := Plan(t, cachedNames(ctx), doc)
	if err != nil {
		return nil, nil, err
	}
	out := data
	for _, e := range edits {
		switch e.Kind {
		case "remove-row":
			out, _, err = props.RemoveRow(out, ctx, e.Row)
		case "add-row":
			out, _, err = props.AddRow(out, ctx, e.Row, e.CopyOf)
		default:
			out, _, err = props.Set(out, ctx, props.Target{Row: e.Row, Path: e.Path}, props.Input{Text: e.Text, Type: e.Type})
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	return out, edits, nil
}

// equalJSON compares two JSON values: numbers by their value.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case jsonNumber:
		return numberEqual(string(x), b)
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !strings.EqualFold(x[i].Key, y[i].Key) || !equalJSON(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// numberEqual compares a number's text with a JSON value read back.
func numberEqual(s string, b any) bool {
	var t string
	switch y := b.(type) {
	case jsonNumber:
		t = string(y)
	default:
		return false
	}
	if s == t {
		return true
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		j, err := strconv.ParseInt(t, 10, 64)
		return err == nil && i == j
	}
	if i, err := strconv.ParseUint(s, 10, 64); err == nil {
		j, err := strconv.ParseUint(t, 10, 64)
		return err == nil && i == j
	}
	f, err1 := strconv.ParseFloat(s, 64)
	g, err2 := strconv.ParseFloat(t, 64)
	return err1 == nil && err2 == nil && f == g
}

// textFor returns the Set text of JSON value j for a value like cur (nil
// when unknown): top says the value is a cell (strings bare), else an
// item of a literal (strings quoted; an item equal to cur's as Display
// prints it, so that Set leaves it alone).
func textFor(ctx *props.Context, cur props.Value, j any, top bool) string {
	if cur != nil && !top && equalJSON(jsonOf(cur, ctx), j) {
		return props.Display(cur, ctx.ObjectName)
	}
	switch x := j.(type) {
	case nil:
		return "None"
	case bool:
		return strconv.FormatBool(x)
	case jsonNumber:
		return string(x)
	case string:
		if top {
			return x
		}
		switch cur.(type) {
		case *props.String, *props.SoftObject, nil:
			return strconv.Quote(x)
		}
		if strings.ContainsAny(x, `,()[]"=`) {
			return strconv.Quote(x)
		}
		return x
	case Object:
		parts := make([]string, len(x))
		for i, m := range x {
			parts[i] = m.Key + "=" + textFor(ctx, member(cur, m.Key), m.Value, false)
		}
		return "(" + strings.Join(parts, ",") + ")"
	case []any:
		var elems []props.Element
		if a, ok := cur.(*props.Array); ok {
			elems = a.Elements
		}
		parts := make([]string, len(x))
		for i, e := range x {
			var c props.Value
			if i < len(elems) {
				c = elems[i].Value
			} else if len(elems) > 0 {
				c = elems[len(elems)-1].Value
			}
			parts[i] = textFor(ctx, c, e, false)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprint(j)
}

// member returns the member key of a struct value, or nil.
func member(v props.Value, key string) props.Value {
	s, ok := v.(*props.Struct)
	if !ok {
		return nil
	}
	if s.Tagged != nil {
		if p := find(s.Tagged, key); p != nil {
			return p.Value
		}
	}
	for _, f := range s.Native {
		if strings.EqualFold(f.Name, key) {
			return f.Value
		}
	}
	return nil
}
