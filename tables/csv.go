package tables

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// NameColumn heads the column of row names in the editor's CSV layout.
const NameColumn = "---"

// WriteCSV writes doc in the Unreal editor's DataTable CSV layout: a
// header "---,Column,…" and one record per row, its name first. Lines end
// in "\n"; fields are quoted as encoding/csv quotes them.
func WriteCSV(w io.Writer, doc *Document) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	header := []string{NameColumn}
	for _, c := range doc.Columns {
		header = append(header, c.Name)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range doc.Rows {
		rec := []string{r.Name}
		for _, c := range doc.Columns {
			rec = append(rec, r.Cells[c.Name].Text)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadCSV reads a document in the editor's CSV layout (a UTF-8 byte
// order mark is skipped; the first header field may be "---", "Name" or
// empty). An empty field is a property the row does not store, or an
// empty string. Errors wrap ErrFormat and name the line.
func ReadCSV(r io.Reader) (*Document, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("CSV: no header line: %w", ErrFormat)
	}
	if err != nil {
		return nil, csvError(err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	if h := strings.TrimSpace(header[0]); h != NameColumn && h != "" && !strings.EqualFold(h, "Name") && !strings.EqualFold(h, "RowName") {
		return nil, fmt.Errorf("CSV line 1: the first column is %q, not %s (the row names): %w", header[0], NameColumn, ErrFormat)
	}
	doc := &Document{}
	seen := map[string]bool{}
	for i, h := range header[1:] {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("CSV line 1: column %d has no name: %w", i+2, ErrFormat)
		}
		if seen[strings.ToLower(h)] {
			return nil, fmt.Errorf("CSV line 1: column %q appears twice: %w", h, ErrFormat)
		}
		seen[strings.ToLower(h)] = true
		doc.Columns = append(doc.Columns, Column{Name: h})
	}
	names := map[string]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if err := checkRowName(rec[0]); err != nil {
			return nil, fmt.Errorf("CSV line %d: %w", line, err)
		}
		if names[strings.ToLower(rec[0])] {
			return nil, fmt.Errorf("CSV line %d: row %q appears twice: %w", line, rec[0], ErrFormat)
		}
		names[strings.ToLower(rec[0])] = true
		row := Row{Name: rec[0], Cells: map[string]Cell{}}
		for i, c := range doc.Columns {
			row.Cells[c.Name] = Cell{Text: rec[i+1]}
		}
		doc.Rows = append(doc.Rows, row)
	}
	return doc, nil
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("CSV line %d, column %d: %v: %w", pe.Line, pe.Column, pe.Err, ErrFormat)
	}
	return fmt.Errorf("CSV: %v: %w", err, ErrFormat)
}
