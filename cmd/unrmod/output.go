package main

import (
	"bufio"
	"encoding/json"
	"io"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// hex32 formats a 32-bit value as fixed-width hex: 0x0007001f.
func hex32(v uint32) string { return hexPadded(uint64(v), 8) }

// hex64 formats a 64-bit value (a hash) as fixed-width hex.
func hex64(v uint64) string { return hexPadded(v, 16) }

// hexPadded formats v as 0x followed by digits lower-case hex digits; dumps
// call it for every row, so it avoids fmt.
func hexPadded(v uint64, digits int) string {
	var b [18]byte
	b[0], b[1] = '0', 'x'
	for i := digits + 1; i >= 2; i-- {
		b[i] = "0123456789abcdef"[v&0xf]
		v >>= 4
	}
	return string(b[:digits+2])
}

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

// maxColumnWidth is the widest a cell may make its column. A longer cell
// (a path hundreds of levels deep, a name of a thousand characters) is
// printed whole but overflows its row instead of padding every other row
// to its width, so the text stays linear in what the table holds.
const maxColumnWidth = 128

// add appends a row with one cell per column.
func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the header and the rows, without trailing spaces. Column
// widths count runes; the last column is never padded.
func (t *table) write(w io.Writer) error {
	last := len(t.header) - 1
	width := make([]int, len(t.header))
	size := 0
	measure := func(row []string) {
		for i, c := range row {
			size += len(c) + 2
			// A cell no longer in bytes than the column cannot widen it
			// (bytes bound runes from above).
			if (i == last && !t.right[i]) || len(c) <= width[i] {
				continue
			}
			if n := runeCount(c, maxColumnWidth); n <= maxColumnWidth {
				width[i] = max(width[i], n)
			}
		}
	}
	measure(t.header)
	for _, row := range t.rows {
		measure(row)
	}
	for _, n := range width {
		size += n * (len(t.rows) + 1)
	}
	bw := bufio.NewWriterSize(w, min(max(size, 512), 64<<10))
	// Padding is held back until something follows it on the line, so no
	// line ends in spaces; cells go straight to the buffered writer.
	const spaces = "                                                                "
	pending := 0
	put := func(c string) {
		if c == "" {
			return
		}
		for ; pending > 0; pending -= len(spaces) {
			bw.WriteString(spaces[:min(pending, len(spaces))])
		}
		pending = 0
		bw.WriteString(c) // an error stays in bw until Flush
	}
	line := func(row []string) {
		pending = 0
		for i, c := range row {
			if i > 0 {
				pending += 2
			}
			pad := 0
			if i != last || t.right[i] {
				pad = max(width[i]-runeCount(c, width[i]), 0)
			}
			if t.right[i] {
				pending += pad
				put(c)
			} else {
				put(c)
				pending += pad
			}
		}
		bw.WriteByte('\n')
	}
	line(t.header)
	for _, row := range t.rows {
		line(row)
	}
	return bw.Flush()
}

// runeCount counts the runes of s, stopping once it knows there are more
// than limit (it then says limit+1): padding and widths need no more, and
// a path a thousand characters long costs no more than a short one.
func runeCount(s string, limit int) int {
	// Paths and names are nearly always ASCII: n ASCII bytes are n runes.
	if n := min(len(s), limit+1); ascii(s[:n]) {
		return n
	}
	if len(s) <= limit {
		return utf8.RuneCountInString(s)
	}
	n := 0
	for i := 0; i < len(s) && n <= limit; n++ {
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
	}
	return n
}

// ascii reports whether s is all ASCII, eight bytes at a time.
func ascii(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
