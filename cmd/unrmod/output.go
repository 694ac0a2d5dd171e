package main

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// flagsDoc is a flag word in JSON and YAML output: the value as fixed-width
// hex and the names of the set bits.
type flagsDoc struct {
	Value string   `json:"value" yaml:"value"`
	Names []string `json:"names" yaml:"names"`
}

// newFlagsDoc describes a flag word whose set bits have the given names.
func newFlagsDoc(v uint32, names []string) flagsDoc {
	if names == nil {
		names = []string{}
	}
	return flagsDoc{Value: hex32(v), Names: names}
}

// hex32 formats a 32-bit value as fixed-width hex: 0x0007001f.
func hex32(v uint32) string { return fmt.Sprintf("0x%08x", v) }

// hex64 formats a 64-bit value (a hash) as fixed-width hex.
func hex64(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeYAML prints v as one YAML document.
func writeYAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// table is a text table with aligned columns, two spaces apart.
type table struct {
	header []string
	right  []bool // right-align the column (numbers)
	rows   [][]string
}

// add appends a row with one cell per column.
func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the header and the rows, without trailing spaces.
func (t *table) write(w io.Writer) error {
	rows := append([][]string{t.header}, t.rows...)
	width := make([]int, len(t.header))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	const spaces = "                                                                "
	var b []byte
	for _, row := range rows {
		lineStart := len(b)
		for i, c := range row {
			if i > 0 {
				b = append(b, "  "...)
			}
			pad := width[i] - utf8.RuneCountInString(c)
			if !t.right[i] {
				b = append(b, c...)
			}
			for ; pad > 0; pad -= len(spaces) {
				b = append(b, spaces[:min(pad, len(spaces))]...)
			}
			if t.right[i] {
				b = append(b, c...)
			}
		}
		for len(b) > lineStart && b[len(b)-1] == ' ' {
			b = b[:len(b)-1]
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}
