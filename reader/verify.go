package reader

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one broken structural rule found by Verify.
type Problem struct {
	Struct string // e.g. `export 12 "Light5"`, `name table entry 4`
	Offset int64  // absolute file offset, or -1
	Msg    string
	// Part and Index say which structure the problem is in, for callers
	// that compare the problems of two versions of a package (Struct
	// names entries by their text, which a rename changes):
	//
	//   - PartHeader, PartHeritage, PartNames, PartImports, PartExports:
	//     the header or a table as a whole; Index is -1;
	//   - PartName, PartImport, PartExport: the table entry Index;
	//   - PartExportData: the serialised data of export Index.
	Part  string
	Index int
	// Warning marks something the engine accepts as it is, which Verify
	// does not count as a problem; Warnings lists these.
	Warning bool
}

// Problem parts (see Problem).
const (
	PartHeader     = "header"
	PartHeritage   = "heritage"
	PartNames      = "names"
	PartImports    = "imports"
	PartExports    = "exports"
	PartName       = "name"
	PartImport     = "import"
	PartExport     = "export"
	PartExportData = "export data"
)

func (q Problem) String() string {
	s := q.Struct
	if q.Warning {
		s = "warning: " + s
	}
	if q.Offset >= 0 {
		return fmt.Sprintf("%s at 0x%X: %s", s, q.Offset, q.Msg)
	}
	return s + ": " + q.Msg
}

// MaxNameLen is the longest name the engine accepts (NAME_SIZE - 1).
const MaxNameLen = 63

// Verify checks every structural rule a package must meet for the engine to
// load it: regions inside the file and not overlapping, references in range,
// names well formed, generations consistent with the tables, every property
// list ending inside its export, and every lazy array's SeekPos pointing just
// past the array. It returns nil when the package is sound.
//
// Verify checks the package as read (its Regions and Source); to check a
// modified model, write it and read the result.
func (p *Package) Verify() []Problem {
	var out []Problem
	var part string
	index := -1
	// in sets the part the problems added next are in.
	in := func(pt string, i int) { part, index = pt, i }
	add := func(s string, off int64, format string, args ...any) {
		out = append(out, Problem{Struct: s, Offset: off, Msg: fmt.Sprintf(format, args...), Part: part, Index: index})
	}
	h := &p.Header

	// Regions: header first, nothing overlaps.
	regs := append([]Region(nil), p.regions...)
	sort.SliceStable(regs, func(i, j int) bool { return regs[i].Offset < regs[j].Offset })
	label := func(r Region) string {
		if r.Kind == "export" {
			return p.exportLabel(r.Index) + " data"
		}
		return r.Kind
	}
	var prev *Region
	for k := range regs {
		r := &regs[k]
		if r.Size == 0 {
			continue
		}
		if prev != nil && r.Offset < prev.End() {
			if r.Kind == "export" {
				in(PartExportData, r.Index)
			} else {
				in(r.Kind, -1)
			}
			add(label(*r), r.Offset, "overlaps %s (0x%X..0x%X)", label(*prev), prev.Offset, prev.End())
		}
		if prev == nil || r.End() > prev.End() {
			prev = r
		}
	}

	// Header tail.
	in(PartHeader, -1)
	if h.Version.File < VerGUIDGenerations {
		if len(h.Heritage) == 0 {
			add("header", 36, "heritage table is empty: the package has no GUID")
		}
	} else {
		gens := h.Generations
		if len(gens) == 0 {
			add("header", 52, "generation count is 0: the engine needs at least one for network play")
		} else {
			last := gens[len(gens)-1]
			if last.ExportCount != int32(len(p.Exports)) || last.NameCount != int32(len(p.Names)) {
				add("header", 56+8*int64(len(gens)-1), "last generation {exports %d, names %d} does not match the tables {exports %d, names %d}",
					last.ExportCount, last.NameCount, len(p.Exports), len(p.Names))
			}
			for k := 1; k < len(gens); k++ {
				if gens[k].ExportCount < gens[k-1].ExportCount || gens[k].NameCount < gens[k-1].NameCount {
					add("header", 56+8*int64(k), "generation %d {exports %d, names %d} is smaller than generation %d",
						k, gens[k].ExportCount, gens[k].NameCount, k-1)
				}
			}
		}
	}

	// Names.
	none := false
	for i := range p.Names {
		n := &p.Names[i]
		s := fmt.Sprintf("name %d %q", i, n.Name)
		in(PartName, i)
		switch {
		case n.Name == "":
			add(s, -1, "name is empty")
		case len([]rune(n.Name)) > MaxNameLen:
			add(s, -1, "name has %d characters; the engine allows %d", len([]rune(n.Name)), MaxNameLen)
		case strings.ContainsRune(n.Name, 0):
			// Only a changed model gets here: the reader ends names at
			// their first zero, as the engine does.
			add(s, -1, "name contains a zero byte")
		}
		if n.Flags&RFLoadContext == 0 {
			add(s, -1, "flags 0x%08X have no LoadForClient/Server/Edit bit: the engine reads the name as None", uint32(n.Flags))
		}
		if strings.EqualFold(n.Name, "None") {
			none = true
		}
	}
	in(PartNames, -1)
	if !none && len(p.Names) > 0 {
		add("name table", int64(h.NameOffset), "has no \"None\" entry")
	}

	// Imports.
	for i := range p.Imports {
		im := &p.Imports[i]
		s := fmt.Sprintf("import %d %q", i, p.NameOf(im.ObjectName))
		in(PartImport, i)
		if im.Outer > 0 {
			add(s, -1, "package index %d points at an export; imports live in other packages", im.Outer)
		}
		if im.Outer == 0 && !(strings.EqualFold(p.NameOf(im.ClassPackage), "Core") && strings.EqualFold(p.NameOf(im.ClassName), "Package")) {
			add(s, -1, "top-level import of class %s.%s; the engine requires Core.Package", p.NameOf(im.ClassPackage), p.NameOf(im.ClassName))
		}
	}

	// Exports.
	for i := range p.Exports {
		e := &p.Exports[i]
		if e.IsPlaceholder(p) {
			// A conformal save keeps deleted exports as empty "None" slots so
			// that later generations keep their indices.
			continue
		}
		s := func() string { return p.exportLabel(i) }
		in(PartExport, i)
		if e.Outer < 0 {
			add(s(), -1, "package index %d points at an import; an export's outer must be an export or 0", e.Outer)
		}
		if ci, ok := e.Class.Export(); ok && p.Exports[ci].Class != 0 {
			add(s(), -1, "class index points at %s, which is not a class", p.exportLabel(ci))
		}
		if e.Flags&RFLoadContext == 0 {
			add(s(), -1, "flags 0x%08X have no LoadForClient/Server/Edit bit: the engine never creates it", uint32(e.Flags))
		}
		if int(e.SerialSize) != len(e.Data) {
			add(s(), -1, "serial size %d but %d data bytes", e.SerialSize, len(e.Data))
		}
		out = append(out, p.verifyNative(i)...)
	}
	return out
}

// Warnings lists what the package holds that the engine accepts as it is
// but that unrmod never writes itself, so a reader of the package knows it
// is there: name entries that store characters after the zero that ends
// the name (Deus Ex packages hold such names; see docs/legacy-layouts.md#names).
// The engine reads such a name up to the zero; unrmod keeps the entry's
// bytes as written while the name is unchanged. Warnings are not problems:
// Verify does not return them, and packages holding them are written and
// verified as any other.
func (p *Package) Warnings() []Problem {
	var out []Problem
	for i := range p.Names {
		n := &p.Names[i]
		if k := n.StoredAfter(); k > 0 {
			out = append(out, Problem{Struct: fmt.Sprintf("name %d %q", i, n.Name), Offset: -1,
				Msg: fmt.Sprintf("the entry stores %d more character(s) after the zero that ends the name; "+
					"the engine reads the name up to that zero, and unrmod keeps the entry as written", k),
				Part: PartName, Index: i, Warning: true})
		}
	}
	return out
}

// verifyNative checks one export's property list and native layout.
func (p *Package) verifyNative(i int) []Problem {
	e := &p.Exports[i]
	nl, err := p.native(i, false)
	if err != nil {
		s, off, msg := p.exportLabel(i), int64(-1), err.Error()
		if fe, ok := err.(*FormatError); ok {
			s, off, msg = fe.Struct, fe.Offset, fe.Msg
		}
		return []Problem{{Struct: s, Offset: off, Msg: msg, Part: PartExportData, Index: i}}
	}
	var out []Problem
	for _, la := range nl.Lazy {
		if la.SeekPosAt < 0 {
			continue
		}
		want := int64(e.SerialOffset) + int64(la.End)
		if int64(la.SeekPos) != want {
			out = append(out, Problem{Struct: p.exportLabel(i) + " " + la.Field, Offset: int64(e.SerialOffset) + int64(la.SeekPosAt),
				Msg:  fmt.Sprintf("lazy array SeekPos 0x%X should be 0x%X (the offset just past the array)", la.SeekPos, want),
				Part: PartExportData, Index: i})
		}
	}
	if nl.End >= 0 && nl.End != len(e.Data) {
		out = append(out, Problem{Struct: p.exportLabel(i), Offset: int64(e.SerialOffset) + int64(nl.End),
			Msg: fmt.Sprintf("%s data ends after %d bytes but the serial size is %d: the engine requires an exact size",
				nl.Kind, nl.End, len(e.Data)),
			Part: PartExportData, Index: i})
	}
	return out
}

// IsPlaceholder reports whether e is an empty slot left by a conformal save:
// class, outer, flags and size all zero and the name "None". The engine keeps
// such slots so that later generations keep their export indices.
func (e *Export) IsPlaceholder(p *Package) bool {
	return e.Class == 0 && e.Super == 0 && e.Outer == 0 && e.Flags == 0 && e.SerialSize == 0 &&
		strings.EqualFold(p.NameOf(e.ObjectName), "None")
}
