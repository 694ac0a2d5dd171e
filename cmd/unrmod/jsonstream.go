package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/unrmod/unrmod/report"
)

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it (HTML-safe, invalid UTF-8 as U+FFFD), for documents written
// row by row.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendFlagsJSON appends a report.Flags as encoding/json indents it at the
// given depth (the indentation of its opening brace's line).
func appendFlagsJSON(b []byte, f report.Flags, ind string) []byte {
	b = append(b, "{\n"+ind+"  \"value\": "...)
	b = appendJSONString(b, f.Value)
	b = append(b, ",\n"+ind+"  \"names\": "...)
	if len(f.Names) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, "[\n"...)
		for i, n := range f.Names {
			b = append(b, ind+"    "...)
			b = appendJSONString(b, n)
			if i < len(f.Names)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, ind+"  ]"...)
	}
	return append(b, "\n"+ind+"}"...)
}

// streamJSON writes the dump as JSON row by row, with the bytes
// writeJSON would produce for it, without building the whole document in
// memory first.
func (d *dumpDoc) streamJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	b := make([]byte, 0, 1024)
	b = append(b, "{\n  \"file\": "...)
	b = appendJSONString(b, d.File)
	b = append(b, ",\n  \"package\": "...)
	b = appendJSONString(b, d.Package)
	bw.Write(b)
	section := func(name string, n int, row func(b []byte, i int) []byte) {
		b = append(b[:0], ",\n  \""+name+"\": "...)
		if n == 0 {
			b = append(b, "[]"...)
			bw.Write(b)
			return
		}
		b = append(b, "[\n"...)
		for i := 0; i < n; i++ {
			b = append(b, "    {\n"...)
			b = row(b, i)
			b = append(b, "\n    }"...)
			if i < n-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			bw.Write(b)
			b = b[:0]
		}
		b = append(b, "  ]"...)
		bw.Write(b)
	}
	if d.Names != nil {
		rows := *d.Names
		section("names", len(rows), func(b []byte, i int) []byte {
			r := &rows[i]
			b = appendIntField(b, "index", int64(r.Index), true)
			b = appendStrField(b, "name", r.Name)
			return appendFlagsJSON(append(b, ",\n      \"flags\": "...), r.Flags, "      ")
		})
	}
	if d.Imports != nil {
		rows := *d.Imports
		section("imports", len(rows), func(b []byte, i int) []byte {
			r := &rows[i]
			b = appendIntField(b, "index", int64(r.Index), true)
			b = appendStrField(b, "class", r.Class)
			return appendStrField(b, "path", r.Path)
		})
	}
	if d.Exports != nil {
		rows := *d.Exports
		section("exports", len(rows), func(b []byte, i int) []byte {
			r := &rows[i]
			b = appendIntField(b, "index", int64(r.Index), true)
			b = appendStrField(b, "class", r.Class)
			b = appendStrField(b, "path", r.Path)
			b = appendIntField(b, "serial_size", int64(r.SerialSize), false)
			if r.SerialOffset == nil {
				b = append(b, ",\n      \"serial_offset\": null"...)
			} else {
				b = appendIntField(b, "serial_offset", int64(*r.SerialOffset), false)
			}
			b = appendStrField(b, "xxh3", r.XXH3)
			return appendFlagsJSON(append(b, ",\n      \"flags\": "...), r.Flags, "      ")
		})
	}
	if d.Class != "" {
		b = append(b[:0], ",\n  \"class\": "...)
		b = appendJSONString(b, d.Class)
		bw.Write(b)
	}
	if d.Properties != nil {
		props, err := json.MarshalIndent(d.Properties, "  ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString(",\n  \"properties\": ")
		bw.Write(props)
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// appendIntField appends a row's integer member (first: the row's first
// member, without the comma before it).
func appendIntField(b []byte, key string, v int64, first bool) []byte {
	if !first {
		b = append(b, ",\n"...)
	}
	b = append(b, "      \""+key+"\": "...)
	return strconv.AppendInt(b, v, 10)
}

// appendStrField appends a row's string member after another one.
func appendStrField(b []byte, key, v string) []byte {
	b = append(b, ",\n      \""+key+"\": "...)
	return appendJSONString(b, v)
}
