// Package writer encodes a legacy package model (reader.Package) back into
// file bytes, in one of two layouts:
//
//   - Preserve keeps every export's data at its offset and rewrites the
//     tables in place when they fit, or at the end of the file otherwise. An
//     unchanged model encodes to the exact bytes it was read from.
//   - Compact lays the file out as the engine saves it (header, heritage,
//     names, export data in export order, imports, exports), recomputing every
//     offset and rebasing every known lazy-array SeekPos.
//
// The writer never guesses: data it cannot relocate safely is refused with an
// error that names the export and its class.
package writer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// Layout selects how the writer places structures in the file.
type Layout int

// Layouts.
const (
	Preserve Layout = iota
	Compact
)

func (l Layout) String() string {
	if l == Compact {
		return "compact"
	}
	return "preserve"
}

// ParseLayout parses "preserve" or "compact".
func ParseLayout(s string) (Layout, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "preserve":
		return Preserve, nil
	case "compact":
		return Compact, nil
	}
	return 0, fmt.Errorf("unknown layout %q: want preserve or compact", s)
}

// Options control encoding.
type Options struct {
	Layout Layout
}

// Report says what the writer did.
type Report struct {
	Layout       Layout   `json:"layout"`
	Size         int64    `json:"size"`          // bytes written
	Identical    bool     `json:"identical"`     // the output equals the bytes the model was read from
	MovedExports int      `json:"moved_exports"` // exports whose data changed position
	Rebased      int      `json:"rebased"`       // lazy-array offsets rewritten
	MovedTables  []string `json:"moved_tables"`  // preserve: tables written at the end of the file
	DroppedBytes int64    `json:"dropped_bytes"` // compact: bytes of dead space in the input left out
}

// MarshalText makes layouts print by name in JSON and YAML.
func (l Layout) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// ErrRelocation is wrapped by errors about data that cannot be moved safely.
var ErrRelocation = errors.New("cannot relocate export data")

// Writable reports whether unrmod writes packages of version v: UE1 61..69
// without a licensee, Deus Ex packages saved as 68 with licensee 32, and UE2
// 100..129 from the engine and the UT2003/UT2004 licensees, whose generic
// layout is verified. Other licensee forks change the layout and stay
// read-only.
func Writable(v reader.Version) error {
	switch {
	case v.File >= reader.VerMin && v.File < reader.VerUE2 && v.Licensee == 0:
		return nil
	case v == reader.Version{File: 68, Licensee: 32}:
		// Deus Ex: every table, property list and lazy array of such a
		// package decodes as version 68's (docs/legacy-layouts.md#names).
		return nil
	case v.File >= reader.VerUE2 && v.File <= reader.VerMax && (v.Licensee == 0 || v.Licensee == 25 || v.Licensee == 28 || v.Licensee == 29):
		return nil
	}
	return fmt.Errorf("%w: version %s is read-only in unrmod (licensee forks change the layout and are not verified)",
		reader.ErrUnsupportedVersion, v)
}

// Encode returns the bytes of p in the requested layout. It does not modify p.
func Encode(p *reader.Package, opt Options) ([]byte, *Report, error) {
	w := &encoder{p: p, rep: &Report{Layout: opt.Layout}}
	var out []byte
	var err error
	if opt.Layout == Compact {
		out, err = w.compact()
	} else {
		out, err = w.preserve()
	}
	if err != nil {
		return nil, nil, err
	}
	w.rep.Identical = bytes.Equal(out, p.Source())
	if !w.rep.Identical {
		if err := Writable(p.Header.Version); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p.FileName, err)
		}
	}
	w.rep.Size = int64(len(out))
	return out, w.rep, nil
}

// VerifyError lists the problems found in an encoded package.
type VerifyError struct {
	File     string
	Problems []reader.Problem
	// InputToo is set when the package the model was read from already
	// fails verification: the problem is in the input, not the writer.
	InputToo bool
}

func (e *VerifyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: output fails verification (%d problems)", e.File, len(e.Problems))
	if e.InputToo {
		b.WriteString("; the input already fails verification, and unrmod does not write packages the engine may reject")
	}
	for _, q := range e.Problems {
		b.WriteString("\n  " + q.String())
	}
	return b.String()
}

// Check decodes data as a package and verifies it; it returns the decoded
// package, or an error (a *reader.FormatError or *VerifyError).
func Check(name string, data []byte) (*reader.Package, error) {
	q, err := reader.Read(name, data)
	if err != nil {
		return nil, err
	}
	if probs := q.Verify(); len(probs) > 0 {
		return nil, &VerifyError{File: name, Problems: probs}
	}
	return q, nil
}

// WriteFile encodes p, re-reads and verifies the result, and only then
// atomically replaces path with it.
func WriteFile(path string, p *reader.Package, opt Options) (*Report, error) {
	out, rep, err := EncodeChecked(path, p, opt)
	if err != nil {
		return nil, err
	}
	if err := safefile.WriteFile(path, out, 0o644); err != nil {
		return nil, err
	}
	return rep, nil
}

// EncodeChecked encodes p and re-reads and verifies the result, named path
// in errors: what WriteFile writes.
func EncodeChecked(path string, p *reader.Package, opt Options) ([]byte, *Report, error) {
	out, rep, err := Encode(p, opt)
	if err != nil {
		return nil, nil, err
	}
	if _, err := Check(path, out); err != nil {
		var ve *VerifyError
		if errors.As(err, &ve) {
			if src, rerr := reader.Read(p.FileName, p.Source()); rerr == nil && len(src.Verify()) > 0 {
				ve.InputToo = true
			}
		}
		return nil, nil, err
	}
	return out, rep, nil
}

type encoder struct {
	p   *reader.Package
	rep *Report
}

// ---- table encoders ----

func (w *encoder) names() []byte {
	p := w.p
	var b []byte
	for i := range p.Names {
		n := &p.Names[i]
		if raw := n.Raw(); raw != nil {
			b = append(b, raw...)
			continue
		}
		if p.Header.Version.File < reader.VerCompactNames {
			b = binio.AppendCString(b, n.Name)
		} else {
			b = binio.AppendFString(b, n.Name)
		}
		b = binio.AppendU32(b, uint32(n.Flags))
	}
	return b
}

func (w *encoder) imports() []byte {
	var b []byte
	for i := range w.p.Imports {
		im := &w.p.Imports[i]
		if raw := im.Raw(); raw != nil {
			b = append(b, raw...)
			continue
		}
		b = binio.AppendIndex(b, int32(im.ClassPackage))
		b = binio.AppendIndex(b, int32(im.ClassName))
		b = binio.AppendI32(b, int32(im.Outer))
		b = binio.AppendIndex(b, int32(im.ObjectName))
	}
	return b
}

// exports encodes the export table with the given data placement.
func (w *encoder) exports(offsets []int32) []byte {
	var b []byte
	for i := range w.p.Exports {
		e := w.p.Exports[i] // a copy: the model is not modified
		e.SerialSize = int32(len(e.Data))
		if e.SerialSize != 0 {
			e.SerialOffset = offsets[i]
		}
		if raw := e.Raw(); raw != nil {
			b = append(b, raw...)
			continue
		}
		b = binio.AppendIndex(b, int32(e.Class))
		b = binio.AppendIndex(b, int32(e.Super))
		b = binio.AppendI32(b, int32(e.Outer))
		b = binio.AppendIndex(b, int32(e.ObjectName))
		b = binio.AppendU32(b, uint32(e.Flags))
		b = binio.AppendIndex(b, e.SerialSize)
		if e.SerialSize != 0 {
			b = binio.AppendIndex(b, e.SerialOffset)
		}
	}
	return b
}

func (w *encoder) heritage() []byte {
	var b []byte
	for _, g := range w.p.Header.Heritage {
		for _, x := range g {
			b = binio.AppendU32(b, x)
		}
	}
	return b
}

type tablePos struct{ names, imports, exports, heritage int32 }

func (w *encoder) header(pos tablePos) []byte {
	p := w.p
	h := &p.Header
	b := make([]byte, 0, h.Size())
	b = binio.AppendU32(b, reader.Tag)
	b = binio.AppendU32(b, h.Version.DWORD())
	b = binio.AppendU32(b, uint32(h.Flags))
	b = binio.AppendI32(b, int32(len(p.Names)))
	b = binio.AppendI32(b, pos.names)
	b = binio.AppendI32(b, int32(len(p.Exports)))
	b = binio.AppendI32(b, pos.exports)
	b = binio.AppendI32(b, int32(len(p.Imports)))
	b = binio.AppendI32(b, pos.imports)
	if h.Version.File < reader.VerGUIDGenerations {
		b = binio.AppendI32(b, int32(len(h.Heritage)))
		b = binio.AppendI32(b, pos.heritage)
		return b
	}
	for _, x := range h.GUID {
		b = binio.AppendU32(b, x)
	}
	b = binio.AppendI32(b, int32(len(h.Generations)))
	for _, g := range h.Generations {
		b = binio.AppendI32(b, g.ExportCount)
		b = binio.AppendI32(b, g.NameCount)
	}
	return b
}

// ---- relocation ----

// relocate returns export i's data as it must be stored at newOff: every
// known lazy-array SeekPos is rebased by the distance moved. It refuses data
// whose offsets it cannot find or that are already inconsistent.
func (w *encoder) relocate(i int, newOff int64) ([]byte, error) {
	p := w.p
	e := &p.Exports[i]
	delta := newOff - int64(e.SerialOffset)
	if delta == 0 || len(e.Data) == 0 {
		return e.Data, nil
	}
	if p.NativeKind(i) == reader.NativeNone {
		return e.Data, nil
	}
	label := fmt.Sprintf("%s: export %d %q (class %s)", p.FileName, i, p.NameOf(e.ObjectName), p.ClassName(i))
	nl, err := p.Native(i)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: its data does not parse, so its embedded offsets cannot be found: %v", ErrRelocation, label, err)
	}
	if nl.Kind == reader.NativeUnknown {
		if len(nl.Suspects) > 0 {
			return nil, &ue.Advice{Setting: ue.SettingPreserveLayout, Name: "Options.Layout = Preserve", Err: ErrRelocation,
				Before: fmt.Sprintf("%v: %s: unrmod does not know this class's native layout and found %d value(s) that look like "+
					"absolute file offsets (first at data offset 0x%X); moving it could break the package. Use ",
					ErrRelocation, label, len(nl.Suspects), nl.Suspects[0])}
		}
		return e.Data, nil
	}
	if p.Header.Version.File < reader.VerLazySeekPos {
		return e.Data, nil
	}
	data := append([]byte(nil), e.Data...)
	for _, la := range nl.Lazy {
		if la.SeekPosAt < 0 {
			continue
		}
		want := int64(e.SerialOffset) + int64(la.End)
		if int64(la.SeekPos) != want {
			return nil, fmt.Errorf("%w: %s: %s SeekPos is 0x%X but the array ends at 0x%X; refusing to rebase an inconsistent offset",
				ErrRelocation, label, la.Field, la.SeekPos, want)
		}
		nv := int64(la.SeekPos) + delta
		if nv > 0x7FFFFFFF {
			return nil, fmt.Errorf("%w: %s: rebased offset 0x%X does not fit in 32 bits", ErrRelocation, label, nv)
		}
		binary.LittleEndian.PutUint32(data[la.SeekPosAt:], uint32(int32(nv)))
		w.rep.Rebased++
	}
	return data, nil
}

// ---- compact ----

func (w *encoder) compact() ([]byte, error) {
	p := w.p
	h := &p.Header
	out := make([]byte, h.Size(), len(p.Source())+64)
	var pos tablePos
	if h.Version.File < reader.VerGUIDGenerations {
		pos.heritage = int32(len(out))
		out = append(out, w.heritage()...)
	}
	pos.names = int32(len(out))
	out = append(out, w.names()...)
	offsets := make([]int32, len(p.Exports))
	var live int64
	for i := range p.Exports {
		e := &p.Exports[i]
		if len(e.Data) == 0 {
			continue
		}
		off := int64(len(out))
		if off+int64(len(e.Data)) > 0x7FFFFFFF {
			return nil, fmt.Errorf("%s: package would exceed 2 GiB", p.FileName)
		}
		data, err := w.relocate(i, off)
		if err != nil {
			return nil, err
		}
		if off != int64(e.SerialOffset) {
			w.rep.MovedExports++
		}
		offsets[i] = int32(off)
		out = append(out, data...)
		live += int64(len(data))
	}
	pos.imports = int32(len(out))
	out = append(out, w.imports()...)
	pos.exports = int32(len(out))
	out = append(out, w.exports(offsets)...)
	copy(out, w.header(pos))

	var srcLive int64
	for _, r := range p.Regions() {
		srcLive += r.Size
	}
	if d := int64(len(p.Source())) - srcLive; d > 0 {
		w.rep.DroppedBytes = d
	}
	return out, nil
}

// ---- preserve ----

func (w *encoder) preserve() ([]byte, error) {
	p := w.p
	src := p.Source()
	out := append(make([]byte, 0, len(src)+4096), src...)

	orig := map[string]reader.Region{}
	origExport := map[int]reader.Region{}
	for _, r := range p.Regions() {
		if r.Kind == "export" {
			origExport[r.Index] = r
		} else {
			orig[r.Kind] = r
		}
	}

	// Export data: unchanged data stays; anything else goes to the end.
	offsets := make([]int32, len(p.Exports))
	var live []reader.Region
	for i := range p.Exports {
		e := &p.Exports[i]
		if len(e.Data) == 0 {
			continue
		}
		if r, ok := origExport[i]; ok && r.Size == int64(len(e.Data)) && int64(e.SerialOffset) == r.Offset &&
			bytes.Equal(e.Data, src[r.Offset:r.End()]) {
			offsets[i] = e.SerialOffset
			live = append(live, r)
			continue
		}
		off := int64(len(out))
		data, err := w.relocate(i, off)
		if err != nil {
			return nil, err
		}
		if off != int64(e.SerialOffset) {
			w.rep.MovedExports++
		}
		offsets[i] = int32(off)
		out = append(out, data...)
	}

	var pos tablePos
	var tables []table
	if p.Header.Version.File < reader.VerGUIDGenerations {
		tables = append(tables, table{"heritage", w.heritage(), &pos.heritage, reader.Region{}})
	}
	tables = append(tables,
		table{"names", w.names(), &pos.names, reader.Region{}},
		table{"imports", w.imports(), &pos.imports, reader.Region{}},
		table{"exports", w.exports(offsets), &pos.exports, reader.Region{}})
	for k := range tables {
		t := &tables[k]
		r, ok := orig[t.kind]
		if !ok { // an empty table as read: keep its offset if it is in the file
			switch t.kind {
			case "names":
				r.Offset = int64(p.Header.NameOffset)
			case "imports":
				r.Offset = int64(p.Header.ImportOffset)
			case "exports":
				r.Offset = int64(p.Header.ExportOffset)
			case "heritage":
				r.Offset = int64(p.Header.HeritageOffset)
			}
		}
		t.r = r
	}

	// Place the tables, then the header. A header whose bytes differ from
	// the source covers whatever lies under it, so a table placed there is
	// moved to the end and the layout redone; export data there is refused.
	// Each round moves at least one more table, so this ends.
	hdrSize := int64(p.Header.Size())
	base := len(out)
	moved := map[string]bool{}
	for {
		out = out[:base]
		w.rep.MovedTables = w.rep.MovedTables[:0]
		var inPlace []table
		for _, t := range tables {
			r := t.r
			if !moved[t.kind] && (int64(len(t.data)) <= r.Size || len(t.data) == 0 && r.Offset <= int64(len(src))) {
				*t.at = int32(r.Offset)
				inPlace = append(inPlace, t)
				continue
			}
			if int64(len(out))+int64(len(t.data)) > 0x7FFFFFFF {
				return nil, fmt.Errorf("%s: package would exceed 2 GiB", p.FileName)
			}
			*t.at = int32(len(out))
			out = append(out, t.data...)
			w.rep.MovedTables = append(w.rep.MovedTables, t.kind)
		}
		hdr := w.header(pos)
		if int64(len(hdr)) <= int64(len(src)) && bytes.Equal(hdr, src[:len(hdr)]) {
			// The header is unchanged: nothing under it is disturbed.
			writeTables(out, inPlace)
			break
		}
		again := false
		for _, t := range inPlace {
			if len(t.data) > 0 && t.r.Offset < hdrSize {
				moved[t.kind] = true
				again = true
			}
		}
		if again {
			continue
		}
		for _, r := range live {
			if r.Offset < hdrSize {
				return nil, fmt.Errorf("%s: the new %d-byte header would overwrite export %d data at 0x%X; use the compact layout",
					p.FileName, hdrSize, r.Index, r.Offset)
			}
		}
		writeTables(out, inPlace)
		copy(out, hdr)
		break
	}
	return out, nil
}

// writeTables copies tables kept in place over their old bytes.
func writeTables(out []byte, tables []table) {
	for _, t := range tables {
		copy(out[t.r.Offset:], t.data)
	}
}

// table is an encoded table and where the preserve layout may put it.
type table struct {
	kind string
	data []byte
	at   *int32        // the header field to set
	r    reader.Region // where it was read from
}
