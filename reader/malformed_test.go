package reader_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// malformedCase is one broken input and what the error must say.
type malformedCase struct {
	name string
	data []byte
	// want are substrings the message must contain (besides the file name).
	want []string
	// anyOf, when set, lists alternatives of which one must appear: used
	// where several checks may legitimately catch the damage first.
	anyOf []string
	// hex requires an offset ("0x") in the message.
	hex bool
	// is lists acceptable sentinels; the error must match one of them. nil
	// means no sentinel applies.
	is []error
}

// readNoPanic calls reader.Read and turns a panic into a test failure that
// shows the input.
func readNoPanic(t *testing.T, name string, data []byte) (p *reader.Package, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			show := data
			if len(show) > 256 {
				show = show[:256]
			}
			t.Fatalf("reader.Read panicked: %v\ninput (%d bytes, first %d): % X", r, len(data), len(show), show)
		}
	}()
	return reader.Read(name, data)
}

func checkMalformed(t *testing.T, file string, tc malformedCase) {
	t.Helper()
	p, err := readNoPanic(t, file, tc.data)
	if err == nil {
		t.Fatalf("%s: no error (package with %d names, %d imports, %d exports)", tc.name, len(p.Names), len(p.Imports), len(p.Exports))
	}
	if p != nil {
		t.Errorf("%s: Read returned a package along with %v", tc.name, err)
	}
	var fe *reader.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: error %v is %T, not *reader.FormatError", tc.name, err, err)
	}
	msg := err.Error()
	if fe.File != file || !strings.Contains(msg, file) {
		t.Errorf("%s: message %q does not name the file %q", tc.name, msg, file)
	}
	for _, w := range tc.want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message %q lacks %q", tc.name, msg, w)
		}
	}
	if len(tc.anyOf) > 0 {
		found := false
		for _, w := range tc.anyOf {
			found = found || strings.Contains(msg, w)
		}
		if !found {
			t.Errorf("%s: message %q has none of %q", tc.name, msg, tc.anyOf)
		}
	}
	if tc.hex && (!strings.Contains(msg, "0x") || fe.Offset < 0) {
		t.Errorf("%s: message %q (offset %d) has no file offset", tc.name, msg, fe.Offset)
	}
	if fe.Offset > int64(len(tc.data)) {
		t.Errorf("%s: offset 0x%X is past the end of the %d-byte input", tc.name, fe.Offset, len(tc.data))
	}
	if tc.is != nil {
		ok := false
		for _, s := range tc.is {
			ok = ok || errors.Is(err, s)
		}
		if !ok {
			t.Errorf("%s: error %q is none of %v", tc.name, msg, tc.is)
		}
	}
}

// ---- building damaged copies ----

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func withU32(b []byte, off int, v uint32) []byte {
	c := clone(b)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

func withBytes(b []byte, off int, patch ...byte) []byte {
	c := clone(b)
	copy(c[off:], patch)
	return c
}

// entryOffsets returns the absolute offset of every entry of a table whose
// entries were read contiguously from start.
func entryOffsets(start int32, raws [][]byte) []int {
	out := make([]int, len(raws))
	at := int(start)
	for i, r := range raws {
		out[i] = at
		at += len(r)
	}
	return out
}

func exportEntries(p *reader.Package) []int {
	raws := make([][]byte, len(p.Exports))
	for i := range p.Exports {
		raws[i] = p.Exports[i].Raw()
	}
	return entryOffsets(p.Header.ExportOffset, raws)
}

// withExports re-encodes the export table, after mutate has changed the
// entries, at the end of a copy of base and points the header at it. The
// data stays where it is, so SerialOffsets remain valid. It also returns the
// offset of each new entry.
func withExports(base []byte, p *reader.Package, mutate func(ex []reader.Export)) ([]byte, []int) {
	ex := append([]reader.Export(nil), p.Exports...)
	mutate(ex)
	out := clone(base)
	at := len(out)
	var entries []int
	for _, e := range ex {
		entries = append(entries, len(out))
		out = binio.AppendIndex(out, int32(e.Class))
		out = binio.AppendIndex(out, int32(e.Super))
		out = binio.AppendI32(out, int32(e.Outer))
		out = binio.AppendIndex(out, int32(e.ObjectName))
		out = binio.AppendU32(out, uint32(e.Flags))
		out = binio.AppendIndex(out, e.SerialSize)
		if e.SerialSize != 0 {
			out = binio.AppendIndex(out, e.SerialOffset)
		}
	}
	binary.LittleEndian.PutUint32(out[24:], uint32(at))
	return out, entries
}

// exportsOnly drops the entry offsets of withExports.
func exportsOnly(b []byte, _ []int) []byte { return b }

// withImports does the same for the import table.
func withImports(base []byte, p *reader.Package, mutate func(im []reader.Import)) []byte {
	im := append([]reader.Import(nil), p.Imports...)
	mutate(im)
	out := clone(base)
	at := len(out)
	for _, x := range im {
		out = binio.AppendIndex(out, int32(x.ClassPackage))
		out = binio.AppendIndex(out, int32(x.ClassName))
		out = binio.AppendI32(out, int32(x.Outer))
		out = binio.AppendIndex(out, int32(x.ObjectName))
	}
	binary.LittleEndian.PutUint32(out[32:], uint32(at))
	return out
}

// dropLater sets the import and export counts and offsets to 0, so that
// only the header, heritage and name table are read.
func dropLater(b []byte) []byte {
	return withU32(withU32(withU32(withU32(b, 20, 0), 24, 0), 28, 0), 32, 0)
}

// samplePoints returns every offset in [from, to) when the range is small,
// otherwise about n evenly spread ones including both ends.
func samplePoints(from, to, n int) []int {
	var out []int
	if to <= from {
		return nil
	}
	step := 1
	if to-from > n {
		step = (to - from) / n
	}
	for k := from; k < to; k += step {
		out = append(out, k)
	}
	if out[len(out)-1] != to-1 {
		out = append(out, to-1)
	}
	return out
}

// malformedCases derives the damaged inputs from a valid package.
func malformedCases(t *testing.T, file string, base []byte) []malformedCase {
	t.Helper()
	p, err := reader.Read(file, base)
	if err != nil {
		t.Fatalf("base package: %v", err)
	}
	if len(p.Exports) < 3 || len(p.Imports) < 2 || len(p.Names) < 2 {
		t.Fatalf("base package too small: %d names, %d imports, %d exports", len(p.Names), len(p.Imports), len(p.Exports))
	}
	h := &p.Header
	old := h.Version.File < reader.VerGUIDGenerations
	hdrSize := h.Size()
	size := len(base)
	corrupt := []error{reader.ErrCorrupt}
	truncated := []error{binio.ErrTruncated, binio.ErrIndexTruncated, reader.ErrCorrupt}
	swapped := withU32(base, 0, 0xC1832A9E)

	cases := []malformedCase{
		{name: "empty file", data: nil, want: []string{"header"}, hex: true, is: []error{reader.ErrNotPackage}},
		{name: "3 bytes", data: clone(base[:3]), want: []string{"header", "3 bytes"}, hex: true, is: []error{reader.ErrNotPackage}},
		{name: "wrong tag", data: withBytes(base, 0, 'P', 'K', 3, 4), want: []string{"header at 0x0", "0x04034B50"}, hex: true,
			is: []error{reader.ErrNotPackage}},
		{name: "zero tag", data: withU32(base, 0, 0), want: []string{"header"}, hex: true, is: []error{reader.ErrNotPackage}},
		{name: "byte-swapped tag", data: swapped, want: []string{"header", "byte-swapped"}, hex: true,
			is: []error{reader.ErrUnsupportedVersion}},
		{name: "version 200", data: withU32(base, 4, 200), want: []string{"header at 0x4", "200"}, hex: true,
			is: []error{reader.ErrUnsupportedVersion}},
		{name: "version 60", data: withU32(base, 4, 60), want: []string{"header at 0x4", "60"}, hex: true,
			is: []error{reader.ErrUnsupportedVersion}},
		{name: "version 0x00C8 with licensee", data: withU32(base, 4, 29<<16|200), want: []string{"header at 0x4"}, hex: true,
			is: []error{reader.ErrUnsupportedVersion}},
		{name: "name count 0x7FFFFFFF", data: withU32(base, 12, 0x7FFFFFFF), want: []string{"header at 0xC", "name table", "2147483647"},
			hex: true, is: corrupt},
		{name: "name count negative", data: withU32(base, 12, 0x80000000), want: []string{"header at 0xC", "name table", "negative"},
			hex: true, is: corrupt},
		{name: "export count 0x7FFFFFFF", data: withU32(base, 20, 0x7FFFFFFF), want: []string{"header at 0x14", "export table"},
			hex: true, is: corrupt},
		{name: "import count 0x7FFFFFFF", data: withU32(base, 28, 0x7FFFFFFF), want: []string{"header at 0x1C", "import table"},
			hex: true, is: corrupt},
		{name: "name offset past EOF", data: withU32(base, 16, uint32(size+100)), want: []string{"header at 0x10", "name table offset"},
			hex: true, is: corrupt},
		{name: "name offset at EOF", data: withU32(base, 16, uint32(size)), want: []string{"header at 0x10", "name table offset"},
			hex: true, is: corrupt},
		{name: "name offset negative", data: withU32(base, 16, 0xFFFFFFFF), want: []string{"header at 0x10", "name table offset"},
			hex: true, is: corrupt},
		{name: "name table near EOF", data: withU32(base, 16, uint32(size-3)), want: []string{"name table"},
			hex: true, is: corrupt},
		{name: "export offset past EOF", data: withU32(base, 24, uint32(size+1)), want: []string{"header at 0x18", "export table offset"},
			hex: true, is: corrupt},
		{name: "import offset past EOF", data: withU32(base, 32, 0x7FFFFFFF), want: []string{"header at 0x20", "import table offset"},
			hex: true, is: corrupt},
	}
	if old {
		cases = append(cases,
			malformedCase{name: "heritage count huge", data: withU32(base, 36, 0x7FFFFFFF), want: []string{"header at 0x24", "heritage table"},
				hex: true, is: corrupt},
			malformedCase{name: "heritage offset past EOF", data: withU32(base, 40, uint32(size+16)), want: []string{"header at 0x28", "heritage table"},
				hex: true, is: corrupt})
	} else {
		cases = append(cases,
			malformedCase{name: "generation count huge", data: withU32(base, 52, 0x7FFFFFFF), want: []string{"header at 0x34", "generation count"},
				hex: true, is: corrupt},
			malformedCase{name: "generation count negative", data: withU32(base, 52, 0xFFFFFFF0), want: []string{"header at 0x34", "generation count"},
				hex: true, is: corrupt},
			malformedCase{name: "generation count just too big", data: withU32(base, 52, uint32((size-56)/8+1)),
				want: []string{"header at 0x34", "generation count"}, hex: true, is: corrupt})
	}

	// Truncation at every offset inside the header.
	for k := 0; k < hdrSize; k++ {
		cases = append(cases, malformedCase{name: fmt.Sprintf("truncated at 0x%X (header)", k), data: clone(base[:k]),
			want: []string{"header"}, hex: true,
			is: []error{reader.ErrNotPackage, binio.ErrTruncated, reader.ErrCorrupt}})
	}
	// Truncation inside the name table, with the later tables dropped so
	// that the name table decoder itself meets the end.
	noLater := dropLater(base)
	nameEnd := int(h.NameOffset)
	for i := range p.Names {
		nameEnd += len(p.Names[i].Raw())
	}
	for _, k := range samplePoints(int(h.NameOffset), nameEnd, 300) {
		cases = append(cases, malformedCase{name: fmt.Sprintf("truncated at 0x%X (name table)", k), data: clone(noLater[:k]),
			want: []string{"name table"}, hex: true, is: truncated})
	}
	// The same cut with the tables left in: a table offset now lies past
	// the end, or a table no longer fits.
	for _, k := range samplePoints(int(h.NameOffset), nameEnd, 40) {
		cases = append(cases, malformedCase{name: fmt.Sprintf("truncated at 0x%X (name table, tables kept)", k), data: clone(base[:k]),
			anyOf: []string{"name table", "import table", "export table"}, hex: true, is: truncated})
	}
	// Truncation inside the import table (exports dropped).
	noExports := withU32(withU32(base, 20, 0), 24, 0)
	impEnd := int(h.ImportOffset)
	for i := range p.Imports {
		impEnd += len(p.Imports[i].Raw())
	}
	for _, k := range samplePoints(int(h.ImportOffset), impEnd, 200) {
		cases = append(cases, malformedCase{name: fmt.Sprintf("truncated at 0x%X (import table)", k), data: clone(noExports[:k]),
			anyOf: []string{"import table", "import "}, hex: true, is: truncated})
	}
	// Truncation inside the export table (the last structure of the file).
	expEnd := exportEntries(p)
	lastEnd := expEnd[len(expEnd)-1] + len(p.Exports[len(p.Exports)-1].Raw())
	for _, k := range samplePoints(int(h.ExportOffset), lastEnd, 300) {
		cases = append(cases, malformedCase{name: fmt.Sprintf("truncated at 0x%X (export table)", k), data: clone(base[:k]),
			anyOf: []string{"export table", "export "}, hex: true, is: truncated})
	}

	// A compact index with a fifth byte 0xFF at the start of an export
	// entry (its class index).
	entries := exportEntries(p)
	for _, i := range []int{0, 1, len(p.Exports) - 1} {
		at := entries[i]
		if at+5 > size {
			continue
		}
		cases = append(cases, malformedCase{name: fmt.Sprintf("index with 5th byte 0xFF in export %d", i),
			data: withBytes(base, at, 0x40, 0x80, 0x80, 0x80, 0xFF),
			want: []string{fmt.Sprintf("export %d at 0x%X", i, at), "class index", "fifth byte"}, hex: true,
			is: []error{binio.ErrIndexOverflow}})
	}
	// Reference checks.
	cases = append(cases,
		malformedCase{name: "import name index out of range",
			data: withImports(base, p, func(im []reader.Import) { im[1].ObjectName = 9999 }),
			want: []string{"import 1", "object name index 9999 out of range"}, is: corrupt},
		malformedCase{name: "import class package negative",
			data: withImports(base, p, func(im []reader.Import) { im[0].ClassPackage = -1 }),
			want: []string{"import 0", "class package name index -1"}, is: corrupt},
		malformedCase{name: "import class name = name count",
			data: withImports(base, p, func(im []reader.Import) { im[1].ClassName = reader.NameRef(len(p.Names)) }),
			want: []string{"import 1", fmt.Sprintf("class name index %d out of range (%d names)", len(p.Names), len(p.Names))}, is: corrupt},
		malformedCase{name: "import outer past the exports",
			data: withImports(base, p, func(im []reader.Import) { im[1].Outer = reader.ObjectRef(len(p.Exports) + 1) }),
			want: []string{"import 1", "package index"}, is: corrupt},
		malformedCase{name: "import outer loops to itself",
			data: withImports(base, p, func(im []reader.Import) { im[0].Outer = -1 }),
			want: []string{"import 0", "loops"}, is: corrupt},
		malformedCase{name: "export name index out of range",
			data: exportsOnly(withExports(base, p, func(ex []reader.Export) { ex[2].ObjectName = -5 })),
			want: []string{"export 2", "object name index -5 out of range"}, is: corrupt},
		malformedCase{name: "export class index out of range",
			data: exportsOnly(withExports(base, p, func(ex []reader.Export) { ex[1].Class = -reader.ObjectRef(len(p.Imports) + 1) })),
			want: []string{"export 1", "class index"}, is: corrupt},
		malformedCase{name: "export super index out of range",
			data: exportsOnly(withExports(base, p, func(ex []reader.Export) { ex[1].Super = reader.ObjectRef(len(p.Exports) + 1) })),
			want: []string{"export 1", "super index"}, is: corrupt},
		malformedCase{name: "export outer loops to itself",
			data: exportsOnly(withExports(base, p, func(ex []reader.Export) { ex[0].Outer = reader.ExportRef(0) })),
			want: []string{"export", "loops"}, is: corrupt},
		malformedCase{name: "export outers form a 2-cycle",
			data: exportsOnly(withExports(base, p, func(ex []reader.Export) {
				ex[0].Outer = reader.ExportRef(1)
				ex[1].Outer = reader.ExportRef(0)
			})),
			want: []string{"export", "loops"}, is: corrupt},
		malformedCase{name: "export outers form a 3-cycle",
			data: exportsOnly(withExports(base, p, func(ex []reader.Export) {
				ex[0].Outer = reader.ExportRef(1)
				ex[1].Outer = reader.ExportRef(2)
				ex[2].Outer = reader.ExportRef(0)
			})),
			want: []string{"export", "loops"}, is: corrupt},
	)
	// Export data past the end of the file (export 3, or the last one).
	j := min(3, len(p.Exports)-1)
	ej := &p.Exports[j]
	for _, c := range []struct {
		name      string
		size, off int32
		want      string
	}{
		{"size past EOF", 0x7FFFFF00, ej.SerialOffset, "past end of file"},
		{"offset past EOF", 16, 0x40000000, "past end of file"},
		{"offset and size past EOF", 0x7FFFFFFF, 0x7FFFFFFF, "past end of file"},
		{"offset negative", 16, -16, "serial offset"},
		{"size negative", -3, ej.SerialOffset, "serial size -3 is negative"},
	} {
		data, entries := withExports(base, p, func(ex []reader.Export) {
			ex[j].SerialSize = c.size
			ex[j].SerialOffset = c.off
		})
		want := []string{fmt.Sprintf("export %d %q at 0x%X", j, p.NameOf(ej.ObjectName), entries[j]), c.want}
		if c.size > 0 && c.off >= 0 {
			want = append(want, fmt.Sprintf("serial offset 0x%X + size %d past end of file (0x%X)", c.off, c.size, len(data)))
		}
		cases = append(cases, malformedCase{name: fmt.Sprintf("export %d %s", j, c.name), data: data, want: want, hex: true, is: corrupt})
	}
	return cases
}

// TestMalformedHexOffsets checks that negative values are not printed as
// "0x-10" in messages that announce a hex offset.
func TestMalformedHexOffsets(t *testing.T) {
	base := synthV69()
	p, err := reader.Read("Synth.u", base)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := withExports(base, p, func(ex []reader.Export) { ex[3].SerialOffset = -16 })
	_, err = reader.Read("Synth.u", data)
	if err == nil {
		t.Fatal("negative serial offset accepted")
	}
	if strings.Contains(err.Error(), "0x-") {
		t.Errorf("message prints a negative number in hex: %q", err)
	}
	for _, off := range []int{16, 24, 32} {
		_, err = reader.Read("Synth.u", withU32(base, off, 0xFFFFFFF0))
		if err == nil || strings.Contains(err.Error(), "0x-") {
			t.Errorf("table offset -16 at header 0x%X: %v", off, err)
		}
	}
}

func runMalformed(t *testing.T, file string, base []byte) {
	for _, tc := range malformedCases(t, file, base) {
		checkMalformed(t, file, tc)
	}
}

// TestMalformedSynthetic runs every malformed case on the synthetic
// packages, which need no corpus.
func TestMalformedSynthetic(t *testing.T) {
	t.Run("v69", func(t *testing.T) { runMalformed(t, "Synth69.u", synthV69()) })
	t.Run("v61", func(t *testing.T) { runMalformed(t, "Synth61.u", synthV61()) })
	t.Run("v128", func(t *testing.T) {
		b, _ := newSynth(29<<16 | 128).build()
		runMalformed(t, "Synth128.u", b)
	})
}

// TestMalformedCorpus runs them on real files.
func TestMalformedCorpus(t *testing.T) {
	for _, rel := range []string{"legacy/ut99_stock/Entry.unr", "legacy/ut99_stock/BluffFX.utx", "legacy/ue2/TestUC2.u"} {
		path := corpus.Path(t, rel)
		t.Run(rel, func(t *testing.T) {
			p, err := reader.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			runMalformed(t, p.FileName, p.Source())
		})
	}
}

// TestMalformedSyntheticDetails covers damage that the generic cases cannot
// place without knowing the layout: bad entries inside the name table.
func TestMalformedSyntheticDetails(t *testing.T) {
	s := newSynth(69)
	base, lay := s.build()
	s61 := newSynth(61)
	base61, lay61 := s61.build()
	cases := []malformedCase{
		{name: "name length 5th byte 0xFF", data: withBytes(base, lay.nameEntry[2], 0x40, 0x80, 0x80, 0x80, 0xFF),
			want: []string{fmt.Sprintf("name table entry 2 at 0x%X", lay.nameEntry[2]), "fifth byte"}, hex: true,
			is: []error{binio.ErrIndexOverflow}},
		{name: "name not zero-terminated", data: withBytes(base, lay.nameEntry[1]+5, 'X'),
			want: []string{fmt.Sprintf("name table entry 1 at 0x%X", lay.nameEntry[1]), "zero-terminated"}, hex: true},
		{name: "name length past the table", data: withBytes(base, lay.nameEntry[sCount-1], 0x7F, 0x7F),
			want: []string{fmt.Sprintf("name table entry %d", sCount-1)}, hex: true, is: []error{binio.ErrTruncated}},
		{name: "UTF-16 name length huge", data: withBytes(base, lay.nameEntry[0], 0xFF, 0xFF, 0xFF, 0xFF, 0x0F),
			want: []string{"name table entry 0", "UTF-16"}, hex: true, is: []error{binio.ErrTruncated}},
		{name: "v61 name without terminator", data: clone(dropLater(base61)[:lay61.nameEntry[sCount-1]+2]),
			want: []string{"name table entry"}, hex: true, is: []error{binio.ErrTruncated}},
		{name: "export serial size index truncated at EOF", data: clone(base[:len(base)-1]),
			want: []string{"export 3"}, hex: true, is: []error{binio.ErrIndexTruncated, binio.ErrTruncated}},
	}
	for _, tc := range cases {
		checkMalformed(t, "Synth.u", tc)
	}
	// The example message from the documentation, in full.
	size := int32(0x1000)
	s.exports[3].sizeOverride = &size
	data, lay := s.build()
	_, err := reader.Read("Synth.u", data)
	want := fmt.Sprintf(`Synth.u: export 3 "Foo" at 0x%X: serial offset 0x%X + size 4096 past end of file (0x%X)`,
		lay.exportEntry[3], lay.dataOff[3], len(data))
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

// TestHugeCountsAreCheap checks that a header claiming 2^31-1 entries is
// refused at once, without allocating anything like the claim.
func TestHugeCountsAreCheap(t *testing.T) {
	bases := map[string][]byte{"Synth69.u": synthV69(), "Synth61.u": synthV61()}
	if dir := corpusDirOrEmpty(); dir != "" {
		p, err := reader.ReadFile(corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr"))
		if err != nil {
			t.Fatal(err)
		}
		bases["CTF-Face.unr"] = p.Source()
	}
	for name, base := range bases {
		for _, field := range []struct {
			what string
			off  int
		}{{"name", 12}, {"export", 20}, {"import", 28}, {"generation", 52}, {"heritage", 36}} {
			p, _ := reader.Read(name, base)
			old := p.Header.Version.File < reader.VerGUIDGenerations
			if (field.what == "generation" && old) || (field.what == "heritage" && !old) {
				continue
			}
			data := withU32(base, field.off, 0x7FFFFFFF)
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			const runs = 10
			for k := 0; k < runs; k++ {
				if _, err := reader.Read(name, data); err == nil {
					t.Fatalf("%s: %s count 2^31-1 accepted", name, field.what)
				}
			}
			runtime.ReadMemStats(&m1)
			perRun := (m1.TotalAlloc - m0.TotalAlloc) / runs
			if perRun >= 1<<20 {
				t.Errorf("%s: %s count 2^31-1: %d bytes allocated per read", name, field.what, perRun)
			}
			allocs := testing.AllocsPerRun(runs, func() { _, _ = reader.Read(name, data) })
			if allocs > 50 {
				t.Errorf("%s: %s count 2^31-1: %.0f allocations per read", name, field.what, allocs)
			}
		}
	}
}

func corpusDirOrEmpty() string { return strings.TrimSpace(os.Getenv(corpus.EnvVar)) }

// overlappingExports builds a package whose first export holds a long
// property list (tags of 3 bytes) and that has extra exports whose data
// all point at that same list. The reader accepts overlapping data
// (Verify reports it); nothing should parse the shared bytes once per
// export.
func overlappingExports(extra, tags int) []byte {
	s := newSynth(69)
	var props []byte
	for k := 0; k < tags; k++ {
		props = append(props, sTint, 0x01, 0x07) // a ByteProperty
	}
	props = append(props, sNone)
	s.exports[0].data = func(int) []byte { return props }
	_, lay := s.build()
	off, size := int32(lay.dataOff[0]), int32(len(props))
	for k := 0; k < extra; k++ {
		s.exports = append(s.exports, synthExport{class: -2, name: sFoo, flags: 0x00070004, sizeOverride: &size, offsetOverride: &off})
	}
	b, _ := s.build()
	return b
}

// TestOverlappingExportDataRejected: exports whose data ranges share bytes
// are corrupt (the engine reads each export from its own range). Accepting
// them would make every pass over export data repeat its work per sharing
// export, so the reader refuses them up front, cheaply.
func TestOverlappingExportDataRejected(t *testing.T) {
	data := overlappingExports(200, 3000)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	checkMalformed(t, "Overlap.u", malformedCase{name: "shared export data", data: data,
		want: []string{"export", "overlaps the data of export"}, is: []error{reader.ErrCorrupt}})
	runtime.ReadMemStats(&m1)
	if d := m1.TotalAlloc - m0.TotalAlloc; d > totalAllocBound(len(data)) {
		t.Errorf("rejecting a %d-byte file allocated %d bytes", len(data), d)
	}
}

// TestDeepOuterChainBounded checks that object paths stay cheap when exports
// form one long outer chain (each export inside the previous one).
func TestDeepOuterChainBounded(t *testing.T) {
	s := newSynth(69)
	for k := 0; k < 2000; k++ {
		s.exports = append(s.exports, synthExport{class: -2, name: sFoo, flags: 0x00070004, outer: int32(len(s.exports))})
	}
	data, _ := s.build()
	p, err := reader.Read("Chain.u", data)
	if err != nil {
		// Refusing absurd nesting is an acceptable answer too.
		checkMalformed(t, "Chain.u", malformedCase{name: "deep outer chain", data: data, want: []string{"export"}, is: []error{reader.ErrCorrupt}})
		return
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range p.Exports {
		_ = p.ExportPath(i)
	}
	_ = p.Lookup("NoSuchObject")
	runtime.ReadMemStats(&m1)
	if d := m1.TotalAlloc - m0.TotalAlloc; d > totalAllocBound(len(data)) {
		t.Errorf("ExportPath of every export and one Lookup in a %d-byte file with a %d-deep outer chain allocated %d bytes (%.0fx the input)",
			len(data), len(p.Exports), d, float64(d)/float64(len(data)))
	}
}

// TestPreserveHeaderOverlapNotClobbered: a (malformed) file whose name table
// starts inside the header's GUID reads, and encodes unchanged to itself.
// Once the GUID changes, the preserve layout must not write the new header
// over the name table it leaves in place: it must move the table, or refuse.
func TestPreserveHeaderOverlapNotClobbered(t *testing.T) {
	b := make([]byte, 64)
	le := binary.LittleEndian
	le.PutUint32(b[0:], reader.Tag)
	le.PutUint32(b[4:], 69)
	le.PutUint32(b[12:], 1)  // one name
	le.PutUint32(b[16:], 36) // at offset 36: inside the GUID
	le.PutUint32(b[24:], 64) // no exports, no imports
	le.PutUint32(b[32:], 64)
	copy(b[36:], []byte{0x05, 'N', 'o', 'n', 'e', 0x00, 0x10, 0x04, 0x07, 0x04})
	le.PutUint32(b[52:], 1) // one generation {0 exports, 1 name}
	le.PutUint32(b[60:], 1)
	p, err := reader.Read("Overlap.u", b)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
	if err != nil || string(out) != string(b) {
		t.Fatalf("unchanged encode: identical %v, err %v", string(out) == string(b), err)
	}
	p.Header.GUID = reader.GUID{1, 2, 3, 4}
	out, _, err = writer.Encode(p, writer.Options{Layout: writer.Preserve})
	if err != nil {
		return // refusing is fine
	}
	q, err := reader.Read("Overlap.u", out)
	if err != nil {
		t.Fatalf("encoded file does not read: %v", err)
	}
	if len(q.Names) != 1 || q.Names[0].Name != "None" || q.Header.GUID != p.Header.GUID {
		t.Errorf("encoded file has names %q and GUID %v; want [None] and %v", q.Names[0].Name, q.Header.GUID, p.Header.GUID)
	}
}
