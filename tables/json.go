package tables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxDepth bounds the nesting of JSON values ReadJSON accepts.
const MaxDepth = 64

// WriteJSON writes doc as a JSON document:
//
//	{"row_struct": "/Script/Game.ItemRow",
//	 "columns": [{"name": "Damage", "type": "IntProperty"}, …],
//	 "rows": {"Sword": {"Damage": 10, "Pos": {"X": 1, "Y": 2, "Z": 3}, "Tags": ["a"]}, …}}
//
// Rows keep their order, and so do members.
func WriteJSON(w io.Writer, doc *Document) error {
	var b bytes.Buffer
	b.WriteString("{\n  \"row_struct\": ")
	writeString(&b, doc.RowStruct)
	b.WriteString(",\n  \"columns\": [")
	for i, c := range doc.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {\"name\": ")
		writeString(&b, c.Name)
		b.WriteString(", \"type\": ")
		writeString(&b, c.Type)
		b.WriteByte('}')
	}
	if len(doc.Columns) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n  \"rows\": {")
	for i, r := range doc.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		writeString(&b, r.Name)
		b.WriteString(": {")
		n := 0
		for _, c := range doc.Columns {
			cell, ok := r.Cells[c.Name]
			if !ok {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			writeString(&b, c.Name)
			b.WriteString(": ")
			v := cell.JSON
			if !cell.json && v == nil {
				v = cell.Text
			}
			writeValue(&b, v)
		}
		b.WriteByte('}')
	}
	if len(doc.Rows) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

func writeValue(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case jsonNumber:
		b.WriteString(string(x))
	case string:
		writeString(b, x)
	case Object:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, m.Key)
			b.WriteString(": ")
			writeValue(b, m.Value)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	default:
		writeString(b, fmt.Sprint(x))
	}
}

// ReadJSON reads a document WriteJSON wrote (and edited): "rows" is
// required, "columns" optional (columns not listed are added in the
// order rows name them), "row_struct" informative. Errors wrap ErrFormat
// and name the byte offset.
func ReadJSON(r io.Reader) (*Document, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("JSON at offset %d: data after the document: %w", dec.InputOffset(), ErrFormat)
	}
	top, ok := v.(Object)
	if !ok {
		return nil, fmt.Errorf("JSON: the document is not an object with \"rows\": %w", ErrFormat)
	}
	doc := &Document{}
	seen := map[string]bool{}
	if rs, ok := top.Get("row_struct"); ok {
		s, ok := rs.(string)
		if !ok {
			return nil, fmt.Errorf("JSON: row_struct is not a string: %w", ErrFormat)
		}
		doc.RowStruct = s
	}
	if cols, ok := top.Get("columns"); ok {
		list, ok := cols.([]any)
		if !ok {
			return nil, fmt.Errorf("JSON: columns is not an array: %w", ErrFormat)
		}
		for i, c := range list {
			o, ok := c.(Object)
			name, _ := o.Get("name")
			typ, _ := o.Get("type")
			ns, ok1 := name.(string)
			ts, ok2 := typ.(string)
			if !ok || !ok1 || ns == "" || typ != nil && !ok2 {
				return nil, fmt.Errorf("JSON: column %d is not {\"name\": …, \"type\": …}: %w", i, ErrFormat)
			}
			if seen[strings.ToLower(ns)] {
				return nil, fmt.Errorf("JSON: column %q is listed twice: %w", ns, ErrFormat)
			}
			seen[strings.ToLower(ns)] = true
			doc.Columns = append(doc.Columns, Column{Name: ns, Type: ts})
		}
	}
	rv, ok := top.Get("rows")
	rows, isObj := rv.(Object)
	if !ok || !isObj {
		return nil, fmt.Errorf("JSON: \"rows\" is missing or not an object of rows by name: %w", ErrFormat)
	}
	names := map[string]bool{}
	for _, m := range rows {
		if err := checkRowName(m.Key); err != nil {
			return nil, fmt.Errorf("JSON: %w", err)
		}
		if names[strings.ToLower(m.Key)] {
			return nil, fmt.Errorf("JSON: row %q appears twice: %w", m.Key, ErrFormat)
		}
		names[strings.ToLower(m.Key)] = true
		cells, ok := m.Value.(Object)
		if !ok {
			return nil, fmt.Errorf("JSON: row %q is not an object of values by property: %w", m.Key, ErrFormat)
		}
		row := Row{Name: m.Key, Cells: map[string]Cell{}}
		for _, c := range cells {
			if strings.TrimSpace(c.Key) == "" {
				return nil, fmt.Errorf("JSON: row %q has a value with no property name: %w", m.Key, ErrFormat)
			}
			col := column(doc, seen, c.Key)
			if _, dup := row.Cells[col]; dup {
				return nil, fmt.Errorf("JSON: row %q names %s twice: %w", m.Key, c.Key, ErrFormat)
			}
			row.Cells[col] = Cell{JSON: c.Value, json: true}
		}
		doc.Rows = append(doc.Rows, row)
	}
	return doc, nil
}

// column returns the label of the column named name, adding it.
func column(doc *Document, seen map[string]bool, name string) string {
	for _, c := range doc.Columns {
		if strings.EqualFold(c.Name, name) {
			return c.Name
		}
	}
	seen[strings.ToLower(name)] = true
	doc.Columns = append(doc.Columns, Column{Name: name})
	return name
}

// readValue reads one JSON value with objects in order.
func readValue(dec *json.Decoder, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("JSON at offset %d: values nest more than %d levels: %w", dec.InputOffset(), MaxDepth, ErrFormat)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("JSON at offset %d: %v: %w", dec.InputOffset(), err, ErrFormat)
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			o := Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("JSON at offset %d: %v: %w", dec.InputOffset(), err, ErrFormat)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("JSON at offset %d: an object key is not a string: %w", dec.InputOffset(), ErrFormat)
				}
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o = append(o, Member{k, v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("JSON at offset %d: %v: %w", dec.InputOffset(), err, ErrFormat)
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := readValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("JSON at offset %d: %v: %w", dec.InputOffset(), err, ErrFormat)
			}
			return a, nil
		}
		return nil, fmt.Errorf("JSON at offset %d: unexpected %v: %w", dec.InputOffset(), x, ErrFormat)
	case json.Number:
		return jsonNumber(x.String()), nil
	case string, bool, nil:
		return x, nil
	}
	return nil, fmt.Errorf("JSON at offset %d: unexpected %v: %w", dec.InputOffset(), tok, ErrFormat)
}

// checkRowName refuses row names no DataTable can hold.
func checkRowName(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("a row name is empty: %w", ErrFormat)
	case strings.EqualFold(s, "None"):
		return fmt.Errorf("the row name None is reserved: %w", ErrFormat)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7F {
			return fmt.Errorf("row name %q holds the control character %U: %w", s, r, ErrFormat)
		}
	}
	return nil
}
