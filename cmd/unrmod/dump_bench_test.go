package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
)

// largestMap returns the largest map of the legacy corpus.
func largestMap(b *testing.B) string {
	var best string
	var size int64
	for _, f := range corpus.Legacy(b) {
		ext := filepath.Ext(f)
		if ext != ".unr" && ext != ".ut2" && ext != ".dx" {
			continue
		}
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			best, size = f, st.Size()
		}
	}
	if best == "" {
		b.Skip("no map in the corpus")
	}
	return best
}

// BenchmarkDump compares dump's text and JSON output of the largest corpus
// map (both decode the package the same way; the difference is the
// output). JSON is written as it is produced, row by row, so that it costs
// about what the text costs.
func BenchmarkDump(b *testing.B) {
	file := largestMap(b)
	st, _ := os.Stat(file)
	for _, mode := range []struct{ name, flag string }{{"text", ""}, {"json", "--json"}, {"yaml", "--yaml"}} {
		b.Run(mode.name, func(b *testing.B) {
			args := []string{"dump", file}
			if mode.flag != "" {
				args = append(args, mode.flag)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				if code := run(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// TestDumpStreamJSON checks that the streamed JSON of every corpus package
// (and the demo packages) is byte for byte what encoding/json writes for
// the same document.
func TestDumpStreamJSON(t *testing.T) {
	files := []string{"../../examples/packages/UnrmodDemo.u", "../../examples/packages/UnrmodDemoMap.unr"}
	if os.Getenv("UNRMOD_CORPUS") != "" {
		files = append(files, corpus.Legacy(t)...)
	}
	for _, f := range files {
		p, err := reader.ReadFile(f)
		if err != nil {
			continue // the corpus has unreadable files on purpose; other tests cover them
		}
		doc := &dumpDoc{PackageDump: *report.NewPackageDump(f, p, report.Tables{Names: true, Imports: true, Exports: true})}
		if doc.Properties, err = legacyProps(f, p, nil); err != nil {
			doc.Properties = nil
		}
		doc.Class = "Texture" // the field --class sets, to cover it too
		var want, got bytes.Buffer
		if err := writeJSON(&want, doc); err != nil {
			t.Fatal(err)
		}
		if err := doc.streamJSON(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			n := 0
			for n < min(want.Len(), got.Len()) && want.Bytes()[n] == got.Bytes()[n] {
				n++
			}
			t.Errorf("%s: streamed JSON differs at byte %d: %q vs %q", f, n, got.Bytes()[n:min(got.Len(), n+40)], want.Bytes()[n:min(want.Len(), n+40)])
		}
	}
	// Strings that need escaping.
	for _, s := range []string{"a\"b\\c", "\x00\x01\x1f\t\n\r\b\f", "<&>", "\u2028\u2029", "\xff\xfeok", "Ünïcödé", ""} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}
