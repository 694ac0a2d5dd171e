package reader

import (
	"errors"
	"fmt"

	"github.com/unrmod/unrmod/internal/binio"
)

// ErrNoDefaults is wrapped by ClassDefaults' errors when a class export's
// data does not lead to a default property list unrmod can find.
var ErrNoDefaults = errors.New("class default properties not found")

// ClassDefaults decodes the default properties of class export i: the
// tagged list a class stores at the end of its data, after its script and
// class fields. The list's offsets are in the export's data, as for
// Properties, so PropertyValue reads its values.
//
// The script before it is bytecode whose size on disk differs from the
// ScriptSize it records, so ClassDefaults does not decode it: it reads the
// fields before the script, then looks for the one place after it where the
// state and class fields (probe masks, class flags and GUID, dependencies,
// package imports, within class, config name and, from version 99, hidden
// categories) decode with every reference in range and the tag list that
// follows ends exactly at the end of the data. It fails (with
// ErrNoDefaults) when no place, or more than one, fits.
func (p *Package) ClassDefaults(i int) (*PropertyList, error) {
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("%s: no export %d (%d exports)", p.FileName, i, len(p.Exports))
	}
	e := &p.Exports[i]
	label := p.exportLabel(i) + " class defaults"
	fail := func(format string, args ...any) error {
		return &FormatError{File: p.FileName, Struct: label, Offset: int64(e.SerialOffset), Msg: fmt.Sprintf(format, args...), Err: ErrNoDefaults}
	}
	if e.Class != 0 {
		return nil, fail("export is a %s, not a class", p.ClassName(i))
	}
	if len(e.Data) == 0 {
		return nil, fail("the class export has no data")
	}
	var found []*PropertyList
	seen, starts := map[int]bool{}, map[int]bool{}
	ends := map[int]bool{} // tag starts known to lead, or not, to a None at the end of the data
	// The class fields hold lists; a budget on the entries read over all
	// places keeps hostile data from making the search quadratic.
	budget := 64*len(e.Data) + 1<<16
	for _, h := range p.structHeaders(e.Data) {
		// The script is rarely larger on disk than in memory: look from
		// where it starts to the end.
		for at := h.scriptStart; at < len(e.Data); at++ {
			if seen[at] {
				continue
			}
			seen[at] = true
			// Two readings of the class fields may end at the same place:
			// the defaults are the same.
			if budget <= 0 {
				return nil, fail("the class data is too irregular to search for its defaults")
			}
			if l := p.classTail(e.Data, at, int64(e.SerialOffset), ends, &budget); l != nil && !starts[l.Start] {
				starts[l.Start] = true
				found = append(found, l)
			}
			if h.scriptSize == 0 {
				break
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fail("no place after the class's script reads as class fields followed by a property list that ends with the data")
	}
	return nil, fail("%d places after the class's script read as class fields and a property list (data offsets %d and %d ...); refusing to guess",
		len(found), found[0].Start, found[1].Start)
}

// structHeader is one way to read the fields a UStruct stores before its
// script: where the script starts and the size it records.
type structHeader struct {
	scriptStart int
	scriptSize  int
}

// structHeaders reads the UField and UStruct fields before a class's
// script, in each layout the version may use (UE2 licensees add or drop
// CppText and StructFlags).
func (p *Package) structHeaders(data []byte) []structHeader {
	v := p.Header.Version
	type variant struct{ cppText, structFlags bool }
	variants := []variant{{}}
	if v.File >= VerUE2 {
		variants = []variant{{}, {cppText: true}, {structFlags: true}, {cppText: true, structFlags: true}}
	}
	var out []structHeader
	for _, va := range variants {
		c := binio.NewCursor(data, 0)
		c.Index("SuperField")
		c.Index("Next")
		c.Index("ScriptText")
		c.Index("Children")
		name := c.Index("FriendlyName")
		if va.cppText {
			c.Index("CppText")
		}
		if va.structFlags {
			c.U32("StructFlags")
		}
		c.I32("Line")
		c.I32("TextPos")
		size := c.I32("ScriptSize")
		if c.Err() != nil || name < 0 || int(name) >= len(p.Names) || size < 0 {
			continue
		}
		out = append(out, structHeader{scriptStart: c.Pos(), scriptSize: int(size)})
	}
	return out
}

// classTail reads the UState and UClass fields from at and the tag list
// after them; it returns the list when everything decodes, every reference
// is in range and the list ends exactly at the end of data. ends memoizes,
// per tag start, whether the tags from there end so, which keeps the
// search over every start linear.
func (p *Package) classTail(data []byte, at int, base int64, ends map[int]bool, budget *int) *PropertyList {
	v := p.Header.Version.File
	c := binio.NewCursor(data, base)
	c.Seek(at, "class fields")
	nameOK := func(x int32) bool { return x >= 0 && int(x) < len(p.Names) }
	// isClass: a reference to a class (a class export, or an import of
	// class Class), as dependencies and ClassWithin must be.
	isClass := func(x int32) bool {
		r := ObjectRef(x)
		if i, ok := r.Export(); ok && i < len(p.Exports) {
			return p.Exports[i].Class == 0
		}
		if i, ok := r.Import(); ok && i < len(p.Imports) {
			return p.NameOf(p.Imports[i].ClassName) == "Class"
		}
		return false
	}
	c.U64("ProbeMask")
	c.U64("IgnoreMask")
	c.U16("LabelTableOffset")
	c.U32("StateFlags")
	if v < VerLazySeekPos {
		c.I32("class record size")
	}
	c.U32("ClassFlags")
	c.Bytes(16, "ClassGuid")
	n := c.Count("dependencies", 9)
	for k := 0; k < n && c.Err() == nil; k++ {
		*budget--
		if !isClass(c.Index("dependency class")) {
			return nil
		}
		if deep := c.U32("dependency deep"); deep > 1 {
			return nil
		}
		c.U32("dependency script text CRC")
	}
	n = c.Count("package imports", 1)
	for k := 0; k < n && c.Err() == nil; k++ {
		*budget--
		if !nameOK(c.Index("package import")) {
			return nil
		}
	}
	if v >= VerLazySeekPos {
		if !isClass(c.Index("ClassWithin")) || !nameOK(c.Index("ClassConfigName")) {
			return nil
		}
	}
	if v >= 99 {
		n = c.Count("hidden categories", 1)
		for k := 0; k < n && c.Err() == nil; k++ {
			*budget--
			if !nameOK(c.Index("hidden category")) {
				return nil
			}
		}
	}
	*budget -= 8
	if c.Err() != nil {
		return nil
	}
	if !p.tagsEndAt(data, c.Pos(), ends) {
		return nil
	}
	l := &PropertyList{Start: c.Pos()}
	if err := p.walkTags(c, l); err != nil || c.Err() != nil || c.Pos() != len(data) {
		return nil
	}
	for _, q := range l.Props {
		if q.Type == 0 {
			return nil
		}
	}
	l.End = c.Pos()
	return l
}

// tagsEndAt reports whether the tags from start run to a None that ends
// exactly at the end of data, remembering the answer for every tag start
// on the way.
func (p *Package) tagsEndAt(data []byte, start int, ends map[int]bool) bool {
	var path []int
	ok := false
	c := binio.NewCursor(data, 0)
	c.Seek(start, "tags")
	for c.Err() == nil {
		pos := c.Pos()
		if r, known := ends[pos]; known {
			ok = r
			break
		}
		path = append(path, pos)
		q, end := p.readTag(c)
		if end {
			ok = c.Err() == nil && c.Pos() == len(data)
			break
		}
		if q.Type == 0 {
			break
		}
	}
	for _, q := range path {
		ends[q] = ok
	}
	return ok
}
