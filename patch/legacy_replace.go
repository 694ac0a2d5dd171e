package patch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

func (op *ReplaceExport) applyLegacy(c *legacyContext) ([]Change, error) {
	p := c.p
	r, err := c.resolve(op.Pos, op.Object, true, false)
	if err != nil {
		return nil, err
	}
	i, _ := r.Export()
	e := &p.Exports[i]
	target := "export " + p.ExportPath(i)
	oldSize := len(e.Data)
	var data []byte
	offset := e.SerialOffset
	var note string
	var warning string
	var prof *classProfile
	switch {
	case op.data != nil:
		if data, err = op.data.load(c.patchDir, reader.MaxFileSize, "the data of a legacy export"); err != nil {
			return nil, err
		}
		// Given data comes from `unrmod export-data`, perhaps of an
		// earlier version of this package: take it as laid out for the
		// offset its lazy arrays name, and let the writer rebase it. It is
		// measured against what this export and the others of its class
		// store now, before it replaces anything.
		offset = layoutBase(p, i, data)
		prof = newClassProfile(p, i)
		note = "given data"
	case op.from.file == "":
		sr, err := c.resolve(op.from.pos, op.from.object, true, false)
		if err != nil {
			return nil, err
		}
		j, _ := sr.Export()
		if err := sameClass(op.from.pos, p, i, p, j); err != nil {
			return nil, err
		}
		data, offset = append([]byte(nil), p.Exports[j].Data...), p.Exports[j].SerialOffset
		note = "copied from " + p.ExportPath(j)
	default:
		src, err := c.load(c.path(op.from.file))
		if err != nil {
			return nil, errorf(op.from.pos, "from file: %v", err)
		}
		sr, err := resolve(op.from.pos, src, op.from.object, true, false)
		if err != nil {
			return nil, err
		}
		j, _ := sr.Export()
		if err := sameClass(op.from.pos, p, i, src, j); err != nil {
			return nil, err
		}
		if err := sameDataLayout(op.from.pos, p, src, j); err != nil {
			return nil, err
		}
		m := &remapper{c: c, pos: op.from.pos, src: src, srcExport: j, self: r}
		if data, err = m.exportData(); err != nil {
			return nil, err
		}
		offset = src.Exports[j].SerialOffset
		note = fmt.Sprintf("copied from %s in %s", src.ExportPath(j), filepath.Base(op.from.file))
		if len(m.imported) > 0 {
			warning = fmt.Sprintf("the copy refers to %s, now imported from %s: that package must be installed wherever this one loads",
				strings.Join(m.imported, ", "), src.Name)
		}
	}
	old, oldOff, oldOwned := e.Data, e.SerialOffset, c.owned[i]
	restore := func() { e.Data, e.SerialSize, e.SerialOffset, c.owned[i] = old, int32(len(old)), oldOff, oldOwned }
	e.Data, e.SerialSize, e.SerialOffset = data, int32(len(data)), offset
	c.owned[i] = true
	if op.from != nil && op.from.file != "" {
		// The remapped copy has new lazy-array positions: point each one
		// just past its array, for the offset the data is laid out for.
		if err := rebaseLazies(p, i); err != nil {
			restore()
			return nil, errorf(op.Pos, "%v", err)
		}
	}
	if prof != nil {
		if me := checkGivenData(p, i, prof); me != nil {
			restore()
			return nil, &Error{Pos: op.Pos, Msg: me.Error(), Err: me}
		}
	} else if err := checkData(p, i); err != nil {
		restore()
		return nil, errorf(op.Pos, "%s: the new data is not a valid %s: %v", p.ExportPath(i), p.ClassName(i), err)
	}
	newRel := relativeData(p, i)
	e.Data, e.SerialOffset = old, oldOff
	same := bytes.Equal(newRel, relativeData(p, i))
	e.Data, e.SerialOffset = data, offset
	if same {
		// The same content, perhaps placed elsewhere by an earlier run.
		restore()
		return []Change{{Op: op.Kind(), Target: target, Field: "data", New: fmt.Sprintf("%d bytes, %s", len(data), note), Already: true}}, nil
	}
	return []Change{{Op: op.Kind(), Target: target, Field: "data", Old: fmt.Sprintf("%d bytes", oldSize),
		New: fmt.Sprintf("%d bytes, %s", len(data), note), Warning: warning}}, nil
}

// layoutBase returns the file offset that data, as export i's data, was laid
// out for: the offset its lazy arrays' SeekPos values agree on, or the
// export's current offset when they name none (or disagree, which checkData
// then reports).
func layoutBase(p *reader.Package, i int, data []byte) int32 {
	e := &p.Exports[i]
	old, oldOff := e.Data, e.SerialOffset
	defer func() { e.Data, e.SerialOffset = old, oldOff }()
	e.Data = data
	nl, err := p.Native(i)
	if err != nil || len(nl.Lazy) == 0 || nl.Lazy[0].SeekPosAt < 0 {
		return oldOff
	}
	base := nl.Lazy[0].SeekPos - int32(nl.Lazy[0].End)
	if base == oldOff || base < 0 {
		return oldOff
	}
	// Element sizes can depend on the offset (see reader.Native): decode
	// again as laid out at base and keep base only if every array agrees.
	e.SerialOffset = base
	if nl, err = p.Native(i); err != nil {
		return oldOff
	}
	for _, la := range nl.Lazy {
		if la.SeekPosAt >= 0 && la.SeekPos != base+int32(la.End) {
			return oldOff
		}
	}
	return base
}

// relativeData returns export i's data with every lazy-array SeekPos made
// relative to the export's start, so the same content placed at two offsets
// compares equal.
func relativeData(p *reader.Package, i int) []byte {
	e := &p.Exports[i]
	nl, err := p.Native(i)
	if err != nil || len(nl.Lazy) == 0 {
		return e.Data
	}
	d := append([]byte(nil), e.Data...)
	for _, la := range nl.Lazy {
		if la.SeekPosAt >= 0 {
			binary.LittleEndian.PutUint32(d[la.SeekPosAt:], uint32(la.SeekPos-e.SerialOffset))
		}
	}
	return d
}

// sameDataLayout refuses copies between packages whose export data is
// serialised differently: lazy arrays gained a SeekPos in version 62, UE2
// (100) changed native layouts and the byte order of Color values, and
// version 118 tagged struct properties.
// UE2 native layouts also vary between file and licensee versions, so UE2
// copies need the same version on both sides.
func sameDataLayout(pos Pos, p, src *reader.Package, j int) error {
	dv, sv := p.Header.Version, src.Header.Version
	era := func(v int) int {
		switch {
		case v < reader.VerLazySeekPos:
			return 0
		case v < reader.VerUE2:
			return 1
		case v < reader.VerTaggedStructs:
			return 2
		}
		return 3
	}
	ue2 := dv.File >= reader.VerUE2 || sv.File >= reader.VerUE2
	if era(int(dv.File)) == era(int(sv.File)) && (!ue2 || dv == sv) {
		return nil
	}
	return errorf(pos, "cannot copy %s from %s: it is a version %s package and %s is version %s, and their export data is laid out differently; "+
		"copy from a package of the same engine generation", src.ExportPath(j), src.FileName, sv, p.FileName, dv)
}

func sameClass(pos Pos, p *reader.Package, i int, src *reader.Package, j int) error {
	if !strings.EqualFold(p.ClassName(i), src.ClassName(j)) {
		return errorf(pos, "cannot replace %s with %s: it is a %s, not a %s",
			describe(p, reader.ExportRef(i)), describe(src, reader.ExportRef(j)), src.ClassName(j), p.ClassName(i))
	}
	return nil
}

// checkData parses export i's data as its class requires: properties to
// None, and every lazy array's SeekPos just past the array.
func checkData(p *reader.Package, i int) error {
	nl, err := p.Native(i)
	if err != nil {
		return err
	}
	e := &p.Exports[i]
	for _, la := range nl.Lazy {
		if la.SeekPosAt >= 0 && la.SeekPos != e.SerialOffset+int32(la.End) {
			return fmt.Errorf("%s SeekPos 0x%X should be 0x%X", la.Field, la.SeekPos, e.SerialOffset+int32(la.End))
		}
	}
	if nl.End >= 0 && nl.End != len(e.Data) {
		return fmt.Errorf("%s data ends after %d of %d bytes", nl.Kind, nl.End, len(e.Data))
	}
	return nil
}

// rebaseLazies sets every lazy array's SeekPos in export i to the offset just
// past the array, for the export's SerialOffset. Only layouts whose element
// sizes are known (textures, sounds, music) are rebuilt this way.
func rebaseLazies(p *reader.Package, i int) error {
	nl, err := p.Native(i)
	if err != nil {
		return err
	}
	e := &p.Exports[i]
	for _, la := range nl.Lazy {
		if la.SeekPosAt >= 0 {
			binary.LittleEndian.PutUint32(e.Data[la.SeekPosAt:], uint32(e.SerialOffset+int32(la.End)))
		}
	}
	return nil
}

// remapper copies an export's data from another package, rewriting the name
// and object references in the parts unrmod understands.
type remapper struct {
	c         *legacyContext
	pos       Pos
	src       *reader.Package
	srcExport int
	self      reader.ObjectRef // the export being replaced, in the target
	imported  []string
}

// plainStruct is a struct that holds no name or object reference: numbers
// and bytes only, so its binary form is copied between packages as it is.
type plainStruct struct {
	size int // bytes of its binary form
	// binaryUE2 is set for the structs UE2 keeps storing in binary form
	// from file version 118 on; the others are tag lists there.
	binaryUE2 bool
}

// plainStructs are the structs of the Object class known to hold no
// references, by lower-case name (see docs/legacy-layouts.md#struct-values).
var plainStructs = map[string]plainStruct{
	"vector": {12, true}, "rotator": {12, true}, "color": {4, true},
	"plane": {16, false}, "sphere": {16, false}, "coords": {48, false}, "box": {25, false},
	"scale": {17, false}, "range": {8, false}, "rangevector": {24, false}, "guid": {16, false},
	"quat": {16, false}, "matrix": {64, false},
}

// binaryStructSize returns the size of struct sn's value when a version v
// package stores it in binary form.
func binaryStructSize(v reader.Version, sn string) (int, bool) {
	ps, ok := plainStructs[strings.ToLower(sn)]
	if !ok || v.File >= reader.VerTaggedStructs && !ps.binaryUE2 {
		return 0, false
	}
	return ps.size, true
}

// maxStructDepth bounds the nesting of tagged struct values remapped.
const maxStructDepth = 16

func (m *remapper) refuse(format string, args ...any) error {
	return errorf(m.pos, "cannot copy %s from %s: %s", m.src.ExportPath(m.srcExport), m.src.FileName, fmt.Sprintf(format, args...))
}

func (m *remapper) exportData() ([]byte, error) {
	src, j := m.src, m.srcExport
	e := &src.Exports[j]
	if e.Class == 0 {
		return nil, m.refuse("classes hold script code with references unrmod cannot remap")
	}
	if e.Flags&reader.RFHasStack != 0 {
		return nil, m.refuse("it has a state frame (an actor), whose references unrmod cannot remap")
	}
	props, err := src.Properties(j)
	if err != nil {
		return nil, m.refuse("%v", err)
	}
	out := append([]byte(nil), e.Data[:props.Start]...)
	for k := range props.Props {
		q := &props.Props[k]
		if out, err = m.property(out, q, q.Value(e.Data), 0); err != nil {
			return nil, err
		}
	}
	out = binio.AppendIndex(out, int32(m.c.addName("None")))
	native := e.Data[props.End:]
	if len(native) == 0 {
		return out, nil
	}
	switch kind := src.NativeKind(j); {
	case kind == reader.NativeSound || kind == reader.NativeMusic:
		// FName FileType, then raw bytes (and the lazy array).
		v, n, err := binio.ReadIndex(native)
		if err != nil || v < 0 || int(v) >= len(src.Names) {
			return nil, m.refuse("its file type name does not decode")
		}
		out = binio.AppendIndex(out, int32(m.c.addName(src.Names[v].Name)))
		return append(out, native[n:]...), nil
	case kind == reader.NativeTexture && strings.EqualFold(src.ClassChain(j)[0], "Texture"),
		strings.EqualFold(src.ClassChain(j)[0], "Palette"):
		return append(out, native...), nil // pixels and colours only
	}
	return nil, m.refuse("its class %s stores native data that unrmod cannot remap between packages", src.ClassName(j))
}

// property re-encodes one tag for the target package; depth is how deep
// in struct values the tag lies.
func (m *remapper) property(out []byte, q *reader.Property, value []byte, depth int) ([]byte, error) {
	src := m.src
	name := src.NameOf(q.Name)
	tag := writer.PropertyTag{Name: m.c.addName(name), Type: q.Type, ArrayIndex: q.ArrayIndex, Bool: q.Bool}
	switch q.Type {
	case reader.PropByte, reader.PropInt, reader.PropFloat, reader.PropBool, reader.PropStr:
	case reader.PropString:
		if src.Header.Version.File >= reader.VerUE2 {
			return nil, m.refuse("property %s is a delegate, whose references unrmod cannot remap", name)
		}
	case reader.PropName:
		v, n, err := binio.ReadIndex(value)
		if err != nil || n != len(value) || v < 0 || int(v) >= len(src.Names) {
			return nil, m.refuse("name property %s does not decode", name)
		}
		value = binio.AppendIndex(nil, int32(m.c.addName(src.Names[v].Name)))
	case reader.PropObject:
		v, n, err := binio.ReadIndex(value)
		if err != nil || n != len(value) {
			return nil, m.refuse("object property %s does not decode", name)
		}
		r, err := m.object(reader.ObjectRef(v))
		if err != nil {
			return nil, err
		}
		value = binio.AppendIndex(nil, int32(r))
	case reader.PropStruct:
		sn := src.NameOf(q.StructName)
		v, err := m.structValue(name, sn, value, depth)
		if err != nil {
			return nil, err
		}
		value = v
		tag.StructName = m.c.addName(sn)
	default:
		return nil, m.refuse("property %s is of type %s, whose elements unrmod cannot remap", name, q.Type)
	}
	if q.Type == reader.PropBool {
		value = nil
	}
	out, err := writer.AppendPropertyTag(out, tag, value)
	if err != nil {
		return nil, m.refuse("property %s: %v", name, err)
	}
	return out, nil
}

// structValue returns the value of struct property name (struct sn) for
// the target package. A struct holding no references, in binary form, is
// copied as it is. A struct stored as a tag list (UE2 from version 118 on)
// has its tags re-encoded one by one, with their names and references
// remapped. Other binary structs may hold references unrmod cannot find,
// and are refused.
func (m *remapper) structValue(name, sn string, value []byte, depth int) ([]byte, error) {
	src := m.src
	if size, ok := binaryStructSize(src.Header.Version, sn); ok {
		if len(value) != size {
			return nil, m.refuse("struct property %s (%s) has %d bytes; a %s has %d", name, sn, len(value), sn, size)
		}
		return value, nil
	}
	if src.Header.Version.File < reader.VerTaggedStructs {
		return nil, m.refuse("struct property %s (%s) may hold references unrmod cannot remap", name, sn)
	}
	if depth >= maxStructDepth {
		return nil, m.refuse("struct property %s (%s) nests structs more than %d deep", name, sn, maxStructDepth)
	}
	l, err := src.StructTags(value)
	if err != nil {
		var fe *reader.FormatError
		msg := err.Error()
		if errors.As(err, &fe) {
			msg = fe.Msg
		}
		return nil, m.refuse("struct property %s (%s) is no tag list unrmod can remap: %s", name, sn, msg)
	}
	var out []byte
	for k := range l.Props {
		q := &l.Props[k]
		if out, err = m.property(out, q, q.Value(value), depth+1); err != nil {
			return nil, err
		}
	}
	return binio.AppendIndex(out, int32(m.c.addName("None"))), nil
}

// object maps a reference in the source package to the target package.
func (m *remapper) object(r reader.ObjectRef) (reader.ObjectRef, error) {
	src, c := m.src, m.c
	if r == 0 {
		return 0, nil
	}
	if j, ok := r.Export(); ok {
		if j >= len(src.Exports) {
			return 0, m.refuse("object reference %d is out of range", r)
		}
		if j == m.srcExport {
			return m.self, nil
		}
		e := &src.Exports[j]
		if e.Flags&reader.RFPublic == 0 {
			return 0, m.refuse("it refers to %s, which is not public and so cannot be imported", describe(src, r))
		}
		// Import the object from the source package, through its groups.
		var groups []int
		for o := e.Outer; o != 0; {
			g, _ := o.Export()
			groups = append(groups, g)
			o = src.Exports[g].Outer
		}
		parent := c.findOrAddImport("Core", "Package", src.Name, 0)
		for k := len(groups) - 1; k >= 0; k-- {
			parent = c.findOrAddImport("Core", "Package", src.NameOf(src.Exports[groups[k]].ObjectName), parent)
		}
		classPkg, class := src.Name, src.ClassName(j)
		if ci, ok := e.Class.Import(); ok {
			classPkg = topPackage(src, reader.ImportRef(ci))
		}
		m.imported = append(m.imported, describe(src, r))
		return c.findOrAddImport(classPkg, class, src.NameOf(e.ObjectName), parent), nil
	}
	i, _ := r.Import()
	if i >= len(src.Imports) {
		return 0, m.refuse("object reference %d is out of range", r)
	}
	var chain []int
	for q := r; q != 0; {
		k, ok := q.Import()
		if !ok {
			return 0, m.refuse("import %s has an export as its outer", src.Path(r))
		}
		chain = append(chain, k)
		q = src.Imports[k].Outer
	}
	var parent reader.ObjectRef
	for k := len(chain) - 1; k >= 0; k-- {
		im := &src.Imports[chain[k]]
		parent = c.findOrAddImport(src.NameOf(im.ClassPackage), src.NameOf(im.ClassName), src.NameOf(im.ObjectName), parent)
	}
	return parent, nil
}

// topPackage returns the name of the outermost object of r's chain.
func topPackage(p *reader.Package, r reader.ObjectRef) string {
	for k := 0; k < reader.MaxOuterDepth; k++ {
		i, ok := r.Import()
		if !ok {
			break
		}
		if p.Imports[i].Outer == 0 {
			return p.NameOf(p.Imports[i].ObjectName)
		}
		r = p.Imports[i].Outer
	}
	return p.Name
}
