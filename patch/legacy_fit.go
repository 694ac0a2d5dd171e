package patch

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
)

// DataMisfitError is the reason bytes given to replace-export as data: are
// refused: they do not fit the export they would replace. Export data refers
// to names and objects by their index in the package's own tables, and
// textures, sounds, music and meshes hold absolute file offsets; bytes
// written for another export or another package parse, but mean something
// else here. A *DataMisfitError is wrapped in the *Error that Apply returns.
type DataMisfitError struct {
	File   string // the target package's file name
	Export string // the full path of the export the data was given to
	Class  string // its class
	// Misfits lists what does not fit, in data order.
	Misfits []Misfit
	// CopyOf is the full path of the other export of the package whose data
	// the given bytes are, when they are; "" otherwise.
	CopyOf string
}

// Misfit is one part of given data that does not fit its export.
type Misfit struct {
	At  int    // offset in the given data; -1 when not tied to one
	Msg string // what does not fit
}

// String returns "at data offset 0xAT: MSG", or MSG.
func (m Misfit) String() string {
	if m.At < 0 {
		return m.Msg
	}
	return fmt.Sprintf("at data offset 0x%X: %s", m.At, m.Msg)
}

// maxMisfitsShown bounds the misfits an error message lists.
const maxMisfitsShown = 3

// Error names the package and export, lists the first misfits and says how
// to give the data instead.
func (e *DataMisfitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: export %s (%s): the given data does not fit it: ", e.File, e.Export, e.Class)
	for k, m := range e.Misfits[:min(len(e.Misfits), maxMisfitsShown)] {
		if k > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.String())
	}
	if n := len(e.Misfits) - maxMisfitsShown; n > 0 {
		fmt.Fprintf(&b, "; and %d more", n)
	}
	if e.CopyOf != "" {
		fmt.Fprintf(&b, ". To copy %s here, use from: {object: %s}; data: takes this export's own bytes, as `unrmod export-data` writes them",
			e.CopyOf, e.CopyOf)
		return b.String()
	}
	b.WriteString(". data: takes this export's own bytes, as `unrmod export-data` writes them, edited without moving anything; " +
		"to copy an export of another package, use from: {file: PACKAGE, object: EXPORT}, which remaps its names and object references")
	return b.String()
}

// propKind is a property's stored type: the tag's type and, for structs,
// the struct's name (lower case).
type propKind struct {
	Type   reader.PropertyType
	Struct string
}

// describeKind returns "an Int", "a Color struct", ... for property q.
func describeKind(p *reader.Package, q *reader.Property) string {
	s := q.Type.String()
	if q.Type == reader.PropStruct {
		s = p.NameOf(q.StructName) + " struct"
	}
	if strings.ContainsRune("AEIOUaeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// propUse is what the exports of a class in a package store under one
// property name.
type propUse struct {
	name    string
	kinds   map[propKind]string // each stored type, and its description
	classes map[string]string   // classes of the objects it refers to (Object properties), by lower-case name
}

// classProfile is what export i and the other exports of its class store,
// before given data replaces export i's: the yardstick given data is
// measured with.
type classProfile struct {
	props     map[string]*propUse // by lower-case property name
	fileTypes map[string]bool     // lower-case FileType names of sounds and music
	// prefixes holds each export's bytes up to the end of its property
	// list, to recognise another export's data.
	prefixes map[int][]byte
	offset   int32 // the export's SerialOffset
	// unchecked holds the export's bytes that unrmod does not decode (see
	// uncheckedNative); nil when there are none to compare.
	unchecked *unchecked
}

// knownFileTypes are the FileType names of sound and music data.
var knownFileTypes = map[string]bool{
	"wav": true, "mp3": true, "ogg": true, "it": true, "s3m": true, "xm": true, "mod": true,
	"umx": true, "stm": true, "669": true, "mtm": true, "far": true, "ult": true, "med": true,
}

// newClassProfile gathers the properties export i and every other export of
// its class (the same class object) store in p, and the bytes of export i
// that unrmod does not decode.
func newClassProfile(p *reader.Package, i int) *classProfile {
	prof := &classProfile{props: map[string]*propUse{}, fileTypes: map[string]bool{}, prefixes: map[int][]byte{},
		offset: p.Exports[i].SerialOffset}
	if nl, err := p.Native(i); err == nil {
		if u, ok := uncheckedNative(p, i, nl); ok {
			prof.unchecked = u
		}
	}
	class := p.Exports[i].Class
	if class == 0 {
		return prof
	}
	for k := range p.Exports {
		e := &p.Exports[k]
		if e.Class != class || len(e.Data) == 0 {
			continue
		}
		l, err := p.Properties(k)
		if err != nil {
			continue
		}
		prof.prefixes[k] = e.Data[:l.End]
		for n := range l.Props {
			q := &l.Props[n]
			key := strings.ToLower(p.NameOf(q.Name))
			u := prof.props[key]
			if u == nil {
				u = &propUse{name: p.NameOf(q.Name), kinds: map[propKind]string{}, classes: map[string]string{}}
				prof.props[key] = u
			}
			u.kinds[kindOf(p, q)] = describeKind(p, q)
			if q.Type != reader.PropObject {
				continue
			}
			if v, err := p.PropertyValue(k, q); err == nil && v.Object != 0 {
				c := className(p, v.Object)
				u.classes[strings.ToLower(c)] = c
			}
		}
		if kind := p.NativeKind(k); kind == reader.NativeSound || kind == reader.NativeMusic {
			if v, _, err := binio.ReadIndex(e.Data[l.End:]); err == nil && v >= 0 && int(v) < len(p.Names) {
				prof.fileTypes[strings.ToLower(p.Names[v].Name)] = true
			}
		}
	}
	return prof
}

func kindOf(p *reader.Package, q *reader.Property) propKind {
	k := propKind{Type: q.Type}
	if q.Type == reader.PropStruct {
		k.Struct = strings.ToLower(p.NameOf(q.StructName))
	}
	return k
}

// checkGivenData checks bytes given as export i's data, already in place
// (Data and the SerialOffset they are laid out for), against what export i
// and the other exports of its class stored before (prof). It returns nil
// when they fit: they parse as the class requires, every tag names a
// property the class's exports store with that type, every reference is to
// an object of the kind the property refers to, the lazy-array offsets
// agree on one file offset, the bytes unrmod does not decode are the
// export's own, and the property list is not another export's.
func checkGivenData(p *reader.Package, i int, prof *classProfile) *DataMisfitError {
	e := &p.Exports[i]
	me := &DataMisfitError{File: p.FileName, Export: p.ExportPath(i), Class: p.ClassName(i)}
	add := func(at int, format string, args ...any) {
		me.Misfits = append(me.Misfits, Misfit{At: at, Msg: fmt.Sprintf(format, args...)})
	}
	// rel turns an error from the reader into a misfit at its data offset.
	rel := func(err error) {
		var fe *reader.FormatError
		if errors.As(err, &fe) {
			at := -1
			if fe.Offset >= 0 {
				at = int(fe.Offset - int64(e.SerialOffset))
			}
			msg := fe.Msg
			if msg == "" && fe.Err != nil {
				msg = fe.Err.Error()
			}
			what := strings.TrimPrefix(fe.Struct, fmt.Sprintf("export %d %q ", i, p.NameOf(e.ObjectName)))
			add(at, "it is not a valid %s: %s: %s", p.ClassName(i), what, msg)
			return
		}
		add(-1, "it is not a valid %s: %v", p.ClassName(i), err)
	}
	if e.Class != 0 {
		checkStateFrame(p, i, add)
		l, err := p.Properties(i)
		if err != nil {
			rel(err)
			return me
		}
		checkTags(p, i, l, prof, add)
		if len(me.Misfits) == 0 {
			if k, ok := prof.copyOf(i, e.Data[:l.End]); ok {
				me.CopyOf = p.ExportPath(k)
				msg := fmt.Sprintf("its properties are those of %s, another %s of this package", me.CopyOf, p.ClassName(k))
				if e.SerialOffset == p.Exports[k].SerialOffset && e.SerialOffset != prof.offset {
					msg += fmt.Sprintf(", and its lazy-array offsets are laid out for 0x%X, where that export lies", e.SerialOffset)
				}
				add(0, "%s", msg)
			}
		}
	}
	nl, err := p.Native(i)
	if err != nil {
		rel(err)
		return me.orNil()
	}
	for _, la := range nl.Lazy {
		if want := e.SerialOffset + int32(la.End); la.SeekPosAt >= 0 && la.SeekPos != want {
			add(la.SeekPosAt, "%s SeekPos 0x%X does not point just past its array: for the data at 0x%X (where its first lazy array puts it) it should be 0x%X",
				la.Field, la.SeekPos, e.SerialOffset, want)
		}
	}
	if nl.End >= 0 && nl.End != len(e.Data) {
		add(nl.End, "%s data ends after %d of %d bytes", nl.Kind, nl.End, len(e.Data))
	}
	if nl.Props != nil {
		switch nl.Kind {
		case reader.NativeTexture:
			checkMipSizes(p, i, nl, add)
		case reader.NativeSound, reader.NativeMusic:
			at := nl.Props.End
			v, _, err := binio.ReadIndex(e.Data[at:])
			switch {
			case err != nil || v < 0 || int(v) >= len(p.Names):
				add(at, "FileType name index %d is out of range (%d names)", v, len(p.Names))
			case !prof.fileTypes[strings.ToLower(p.Names[v].Name)] && !knownFileTypes[strings.ToLower(p.Names[v].Name)]:
				add(at, "FileType name index %d is %q in %s, which is no sound or music format", v, p.Names[v].Name, filepath.Base(p.FileName))
			}
		}
	}
	if u, ok := uncheckedNative(p, i, nl); ok && prof.unchecked != nil {
		own := prof.unchecked
		switch {
		case len(u.bytes) != len(own.bytes):
			add(u.at(0), "%d bytes of its %s data are of a layout unrmod does not decode, where this export has %d: they were written for another object, "+
				"and unrmod cannot check the names and object references in them", len(u.bytes), p.ClassName(i), len(own.bytes))
		case !bytes.Equal(u.bytes, own.bytes):
			k := 0
			for u.bytes[k] == own.bytes[k] {
				k++
			}
			add(u.at(k), "the %s data there is not this export's: unrmod does not decode it, so it cannot check the names and object references in it, "+
				"and takes edits only of the property list and of what it decodes (pixels, palette colours, sound and music bytes)", p.ClassName(i))
		}
	}
	return me.orNil()
}

// noReferenceNative are classes whose native data, which unrmod does not
// decode, holds no names, object references or offsets.
var noReferenceNative = map[string]bool{"palette": true, "textbuffer": true, "package": true}

// unchecked is the part of an export's data that unrmod neither decodes nor
// checks, gathered from the spans where it lies.
type unchecked struct {
	bytes []byte
	spans []span // where each run of bytes lies in the export data
}

type span struct{ from, to int }

// at returns the data offset of byte k of u.bytes.
func (u *unchecked) at(k int) int {
	for _, s := range u.spans {
		if k < s.to-s.from {
			return s.from + k
		}
		k -= s.to - s.from
	}
	return -1
}

// uncheckedNative returns the bytes of export i's data (laid out as nl) that
// unrmod neither decodes nor checks: the native data after the property list
// outside the lazy arrays and mip sizes it parses. ok is false when the
// class's data is parsed to its end and holds no references (textures,
// sounds, music), or holds no references at all. The UE2 layouts decoded to
// their end (models, static meshes) do hold names and object references,
// which unrmod does not check: their bytes outside the lazy arrays count as
// unchecked.
func uncheckedNative(p *reader.Package, i int, nl *reader.NativeLayout) (u *unchecked, ok bool) {
	if noReferenceNative[strings.ToLower(nl.Classes[0])] {
		return nil, false
	}
	switch nl.Kind {
	case reader.NativeTexture, reader.NativeSound, reader.NativeMusic:
		if nl.End >= 0 {
			return nil, false
		}
	}
	data := p.Exports[i].Data
	var parsed []span
	for _, la := range nl.Lazy {
		from := la.Start
		if la.SeekPosAt >= 0 {
			from = la.SeekPosAt
		}
		parsed = append(parsed, span{from, la.End})
	}
	for _, m := range nl.Mips {
		parsed = append(parsed, span{m.Lazy.End, m.Lazy.End + 10}) // USize, VSize, UBits, VBits
	}
	slices.SortFunc(parsed, func(x, y span) int { return x.from - y.from })
	u = &unchecked{bytes: []byte{}}
	pos := 0
	if nl.Props != nil {
		pos = nl.Props.End
	}
	take := func(to int) {
		if to > pos {
			u.bytes = append(u.bytes, data[pos:to]...)
			u.spans = append(u.spans, span{pos, to})
		}
	}
	for _, s := range parsed {
		take(min(s.from, len(data)))
		pos = max(pos, s.to)
	}
	take(len(data))
	return u, true
}

func (me *DataMisfitError) orNil() *DataMisfitError {
	if len(me.Misfits) == 0 {
		return nil
	}
	return me
}

// checkStateFrame checks the object references of an actor's state frame.
func checkStateFrame(p *reader.Package, i int, add func(int, string, ...any)) {
	e := &p.Exports[i]
	if e.Flags&reader.RFHasStack == 0 {
		return
	}
	at := 0
	for _, what := range []string{"state frame node", "state frame state node"} {
		v, n, err := binio.ReadIndex(e.Data[at:])
		if err != nil {
			return // Properties reports it
		}
		if !inRange(p, reader.ObjectRef(v)) {
			add(at, "%s %d is no object of %s (%d exports, %d imports)", what, v, filepath.Base(p.FileName), len(p.Exports), len(p.Imports))
		}
		at += n
	}
}

func inRange(p *reader.Package, r reader.ObjectRef) bool {
	if k, ok := r.Export(); ok {
		return k < len(p.Exports)
	}
	if k, ok := r.Import(); ok {
		return k < len(p.Imports)
	}
	return true
}

// checkTags checks each tag of the given data's property list.
func checkTags(p *reader.Package, i int, l *reader.PropertyList, prof *classProfile, add func(int, string, ...any)) {
	class, file := p.ClassName(i), filepath.Base(p.FileName)
	for n := range l.Props {
		q := &l.Props[n]
		name := p.NameOf(q.Name)
		if q.Type == 0 || q.Type > reader.PropPointer {
			add(q.Start, "the tag named %q (name index %d) has type id %d, which is no property type", name, q.Name, byte(q.Type))
			continue
		}
		if q.Type == reader.PropStruct && (q.StructName < 0 || int(q.StructName) >= len(p.Names)) {
			add(q.Start, "struct property %q names struct name index %d, out of range (%d names)", name, q.StructName, len(p.Names))
			continue
		}
		kind := kindOf(p, q)
		u := prof.props[strings.ToLower(name)]
		if u == nil {
			add(q.Start, "name index %d is %q in %s, which no %s export of it has as a property (set-property adds a property)",
				q.Name, name, file, class)
			continue
		}
		if _, ok := u.kinds[kind]; !ok {
			var had []string
			for _, d := range u.kinds {
				had = append(had, d)
			}
			add(q.Start, "name index %d is %q in %s, whose %s exports store %s as %s, not %s",
				q.Name, name, file, class, u.name, strings.Join(slices.Sorted(slices.Values(had)), " or "), describeKind(p, q))
			continue
		}
		v, err := p.PropertyValue(i, q)
		if err != nil {
			var fe *reader.FormatError
			msg := err.Error()
			if errors.As(err, &fe) {
				msg = fe.Msg
			}
			add(q.ValueStart, "the value of %s does not decode here: %s", name, msg)
			continue
		}
		if size, ok := binaryStructSize(p.Header.Version, kind.Struct); ok && q.Type == reader.PropStruct && q.Size != size {
			add(q.ValueStart, "%s is a %s struct of %d bytes; a %s has %d", name, kind.Struct, q.Size, kind.Struct, size)
		}
		if q.Type != reader.PropObject || v.Object == 0 || len(u.classes) == 0 {
			continue
		}
		if _, ok := u.classes[strings.ToLower(className(p, v.Object))]; !ok {
			var had []string
			for _, c := range u.classes {
				had = append(had, c)
			}
			add(q.ValueStart, "%s refers to %s, but in %s the %s exports' %s refers to %s objects (set-property points it at another object)",
				name, describe(p, v.Object), file, class, u.name, strings.Join(slices.Sorted(slices.Values(had)), " or "))
		}
	}
}

// checkMipSizes checks a texture's size properties against its first mip.
func checkMipSizes(p *reader.Package, i int, nl *reader.NativeLayout, add func(int, string, ...any)) {
	if len(nl.Mips) == 0 || nl.CompMips == len(nl.Mips) {
		return
	}
	m := nl.Mips[0]
	for _, c := range []struct {
		name string
		mip  int64
	}{{"USize", int64(m.USize)}, {"VSize", int64(m.VSize)}, {"UBits", int64(m.UBits)}, {"VBits", int64(m.VBits)}} {
		q := nl.Props.Find(p, c.name, 0)
		if q == nil {
			continue
		}
		v, err := p.PropertyValue(i, q)
		if err != nil {
			continue // checkTags reports it
		}
		var got int64
		switch v.Type {
		case reader.PropInt:
			got = int64(v.Int)
		case reader.PropByte:
			got = int64(v.Byte)
		default:
			continue
		}
		if got != c.mip {
			add(q.Start, "%s is %d but the first mip's is %d", c.name, got, c.mip)
		}
	}
}

// copyOf returns the other export whose property list bytes prefix are,
// when they are not export i's own.
func (prof *classProfile) copyOf(i int, prefix []byte) (int, bool) {
	if own, ok := prof.prefixes[i]; ok && bytes.Equal(own, prefix) {
		return 0, false
	}
	best := -1
	for k, b := range prof.prefixes {
		if k != i && bytes.Equal(b, prefix) && (best < 0 || k < best) {
			best = k
		}
	}
	return best, best >= 0
}
