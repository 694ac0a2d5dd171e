// Package reader decodes legacy Unreal packages (Unreal Engine 1 and 2: file
// versions 61 to 129, tag 0x9E2A83C1) into a Package model: header, name,
// import and export tables, export data, and the native layouts that embed
// absolute file offsets.
//
// The model remembers the bytes it came from, so an unchanged model written
// with the writer package's preserve layout reproduces the file byte for byte.
// Bytes the model does not interpret (gaps between structures, trailing bytes,
// non-canonical encodings) are kept.
package reader

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Tag is the magic number at the start of every legacy package.
const Tag uint32 = 0x9E2A83C1

// Version is a package's file version: the engine version in the low 16 bits
// of the header DWORD and the licensee version in the high 16 bits.
type Version struct {
	File     uint16
	Licensee uint16
}

// Version thresholds where the layout changes.
const (
	// VerMin and VerMax bound the file versions unrmod reads.
	VerMin = 61
	VerMax = 129
	// VerLazySeekPos is the first version whose lazy arrays start with an
	// absolute SeekPos (the engine tests Ver > 61).
	VerLazySeekPos = 62
	// VerCompactNames is the first version whose names are length-prefixed.
	VerCompactNames = 64
	// VerGUIDGenerations is the first version with GUID and generations in the
	// header instead of the heritage table.
	VerGUIDGenerations = 68
	// VerUE2 is the first Unreal Engine 2 version.
	VerUE2 = 100
	// VerTaggedStructs is the first version whose non-atomic struct
	// properties are tagged lists.
	VerTaggedStructs = 118
	// VerColorBGRA is the first version whose Color struct declares its
	// members B, G, R, A (UE1 declares R, G, B, A): a Color property value
	// stores its bytes in declaration order. See Version.ColorBGRA.
	VerColorBGRA = VerUE2
)

// DWORD returns the version as stored in the header.
func (v Version) DWORD() uint32 { return uint32(v.Licensee)<<16 | uint32(v.File) }

func (v Version) String() string { return fmt.Sprintf("%d/%d", v.File, v.Licensee) }

// ColorBGRA reports whether the Color struct of version v declares its
// members B, G, R, A, as Unreal Engine 2 does (matching the little-endian
// DWORD 0xAARRGGBB), rather than UE1's R, G, B, A. A Color property value
// (MipZero, MaxColor, DistanceFogColor, ...) stores its four bytes in
// declaration order, so the order of its bytes depends on the version.
// Palette colours are not Color property values: UPalette writes each
// colour R, G, B, A in both engines. docs/legacy-layouts.md gives the
// evidence.
func (v Version) ColorBGRA() bool { return v.File >= VerColorBGRA }

// Engine names the engine generation the version belongs to.
func (v Version) Engine() string {
	switch {
	case v.File >= VerUE2:
		return "Unreal Engine 2"
	default:
		return "Unreal Engine 1"
	}
}

// GUID is a 128-bit package GUID: four DWORDs, as the engine stores them.
type GUID [4]uint32

// String formats the GUID as the engine does: 32 upper-case hex digits.
func (g GUID) String() string { return fmt.Sprintf("%08X%08X%08X%08X", g[0], g[1], g[2], g[3]) }

// ParseGUID parses 32 hex digits (dashes and braces allowed) in the engine's order.
func ParseGUID(s string) (GUID, error) {
	t := strings.NewReplacer("-", "", "{", "", "}", "").Replace(strings.TrimSpace(s))
	var g GUID
	if len(t) != 32 {
		return g, fmt.Errorf("GUID %q: want 32 hex digits", s)
	}
	for i := range g {
		var v uint32
		if _, err := fmt.Sscanf(t[8*i:8*i+8], "%08X", &v); err != nil {
			return g, fmt.Errorf("GUID %q: %v", s, err)
		}
		g[i] = v
	}
	return g, nil
}

// Generation is one entry of the header's generation history.
type Generation struct {
	ExportCount int32
	NameCount   int32
}

// Header is the package summary.
type Header struct {
	Version Version
	Flags   PackageFlags
	// GUID is the package GUID (file version >= 68). For older files the
	// package GUID is the last Heritage entry; use Package.GUID.
	GUID        GUID
	Generations []Generation // file version >= 68
	Heritage    []GUID       // file version < 68

	// The table positions as read. The writer recomputes them.
	NameOffset, ExportOffset, ImportOffset, HeritageOffset int32
}

// Size returns the encoded size of the header.
func (h *Header) Size() int {
	if h.Version.File < VerGUIDGenerations {
		return 44
	}
	return 56 + 8*len(h.Generations)
}

// NameRef is an index into the name table.
type NameRef int32

// ObjectRef is an object reference: 0 is null, i > 0 is export i-1 and i < 0
// is import -i-1.
type ObjectRef int32

// IsNull reports whether r refers to no object.
func (r ObjectRef) IsNull() bool { return r == 0 }

// Export returns the export index and true when r refers to an export.
func (r ObjectRef) Export() (int, bool) { return int(r) - 1, r > 0 }

// Import returns the import index and true when r refers to an import.
func (r ObjectRef) Import() (int, bool) { return int(-r) - 1, r < 0 }

// ExportRef returns the reference to export i.
func ExportRef(i int) ObjectRef { return ObjectRef(i + 1) }

// ImportRef returns the reference to import i.
func ImportRef(i int) ObjectRef { return ObjectRef(-i - 1) }

// Name is a name table entry. Name is the text the engine makes of the
// entry: the stored characters up to the first zero. Some engine-written
// packages (Deus Ex, see docs/legacy-layouts.md#names) store characters after that
// zero; the engine ignores them, and the entry keeps them in its raw bytes.
type Name struct {
	Name  string
	Flags ObjectFlags
	raw   []byte
	orig  nameFields
	// after is how many stored characters follow the name: the zero that
	// ends it and what comes after, before the terminating zero.
	after int
}

type nameFields struct {
	Name  string
	Flags ObjectFlags
}

// Raw returns the entry's bytes as read when its fields still hold the values
// read, and nil otherwise. Writers reuse them to keep unusual encodings.
func (n *Name) Raw() []byte {
	if n.raw != nil && (nameFields{n.Name, n.Flags}) == n.orig {
		return n.raw
	}
	return nil
}

// StoredAfter returns how many characters the entry stores after its name
// (from the zero that ends it to the terminating zero), when the raw bytes
// are still the ones written; 0 for an entry written canonically.
func (n *Name) StoredAfter() int {
	if n.Raw() == nil {
		return 0
	}
	return n.after
}

// Import is an import table entry: an object another package provides.
type Import struct {
	ClassPackage NameRef
	ClassName    NameRef
	Outer        ObjectRef // the engine's PackageIndex: 0 for a top-level package
	ObjectName   NameRef
	raw          []byte
	orig         importFields
}

type importFields struct {
	ClassPackage, ClassName NameRef
	Outer                   ObjectRef
	ObjectName              NameRef
}

func (im *Import) fields() importFields {
	return importFields{im.ClassPackage, im.ClassName, im.Outer, im.ObjectName}
}

// Raw returns the entry's bytes as read when its fields still hold the values
// read, and nil otherwise.
func (im *Import) Raw() []byte {
	if im.raw != nil && im.fields() == im.orig {
		return im.raw
	}
	return nil
}

// Export is an export table entry and the object's serialised data.
type Export struct {
	Class      ObjectRef // 0: the export is itself a class
	Super      ObjectRef
	Outer      ObjectRef // the engine's PackageIndex: 0 at the package root
	ObjectName NameRef
	Flags      ObjectFlags
	// SerialSize and SerialOffset are the table fields. When the data is
	// replaced, SerialOffset must be the file offset that the absolute
	// offsets inside Data were computed for; the writer moves the data and
	// rebases them. The writer sets SerialSize to len(Data).
	SerialSize   int32
	SerialOffset int32
	Data         []byte
	raw          []byte
	orig         exportFields
}

type exportFields struct {
	Class, Super, Outer      ObjectRef
	ObjectName               NameRef
	Flags                    ObjectFlags
	SerialSize, SerialOffset int32
}

func (e *Export) fields() exportFields {
	return exportFields{e.Class, e.Super, e.Outer, e.ObjectName, e.Flags, e.SerialSize, e.SerialOffset}
}

// Raw returns the entry's bytes as read when its fields still hold the values
// read, and nil otherwise.
func (e *Export) Raw() []byte {
	if e.raw != nil && e.fields() == e.orig {
		return e.raw
	}
	return nil
}

// Region is a byte range of the file that a structure occupies.
type Region struct {
	Kind   string // "header", "heritage", "names", "imports", "exports", "export"
	Index  int    // export index for Kind "export", else -1
	Offset int64
	Size   int64
}

// End returns the offset just past the region.
func (r Region) End() int64 { return r.Offset + r.Size }

// Package is a decoded legacy package.
type Package struct {
	// FileName is the name used in error messages.
	FileName string
	// Name is the package name (the file name without directory and
	// extension); it is the root of every export's path.
	Name    string
	Header  Header
	Names   []Name
	Imports []Import
	Exports []Export

	src     []byte
	regions []Region
}

// Source returns the bytes the package was decoded from.
func (p *Package) Source() []byte { return p.src }

// Regions returns the ranges each structure occupied in the source file, in
// file order.
func (p *Package) Regions() []Region { return p.regions }

// DeadBytes returns how many bytes of the source file no structure uses:
// space the preserve layout leaves behind when data moves, which the compact
// layout drops.
func (p *Package) DeadBytes() int64 {
	var used, end int64
	for _, r := range p.regions { // in file order
		start := max(r.Offset, end)
		if r.End() > start {
			used += r.End() - start
			end = r.End()
		}
	}
	return int64(len(p.src)) - used
}

// GUID returns the package GUID: the header GUID, or for file versions below
// 68 the last heritage entry.
func (p *Package) GUID() GUID {
	if p.Header.Version.File < VerGUIDGenerations {
		if n := len(p.Header.Heritage); n > 0 {
			return p.Header.Heritage[n-1]
		}
		return GUID{}
	}
	return p.Header.GUID
}

// NameOf returns the text of name reference r, or a placeholder when r is out
// of range.
func (p *Package) NameOf(r NameRef) string {
	if r < 0 || int(r) >= len(p.Names) {
		return fmt.Sprintf("<bad name %d>", r)
	}
	return p.Names[r].Name
}

// FindName returns the index of the name equal to s (case-insensitive, as the
// engine compares names), or -1.
func (p *Package) FindName(s string) NameRef {
	for i := range p.Names {
		if strings.EqualFold(p.Names[i].Name, s) {
			return NameRef(i)
		}
	}
	return -1
}

// ObjectName returns the name of the object r refers to ("None" for null).
func (p *Package) ObjectName(r ObjectRef) string {
	if i, ok := r.Export(); ok && i < len(p.Exports) {
		return p.NameOf(p.Exports[i].ObjectName)
	}
	if i, ok := r.Import(); ok && i < len(p.Imports) {
		return p.NameOf(p.Imports[i].ObjectName)
	}
	if r == 0 {
		return "None"
	}
	return fmt.Sprintf("<bad object %d>", r)
}

// ClassName returns the class name of export i ("Class" when the export is
// itself a class).
func (p *Package) ClassName(i int) string {
	if p.Exports[i].Class == 0 {
		return "Class"
	}
	return p.ObjectName(p.Exports[i].Class)
}

// ImportClassName returns the class name of import i.
func (p *Package) ImportClassName(i int) string { return p.NameOf(p.Imports[i].ClassName) }

// Path returns the full path of the object r refers to: for exports
// "Package.Group.Object" (rooted at the package name), for imports the
// import's own outer chain ("Engine.Texture"). The reader guarantees that
// outer chains are acyclic.
func (p *Package) Path(r ObjectRef) string {
	// Two walks of the chain: one sizes the path, the other fills it in
	// from its end, so that deep paths cost one buffer and no list of parts.
	n, parts := 0, 0
	p.walkPath(r, func(s string) { n, parts = n+len(s), parts+1 })
	if parts == 0 {
		return ""
	}
	b := make([]byte, n+parts-1)
	at := len(b)
	p.walkPath(r, func(s string) {
		if at < len(b) {
			at--
			b[at] = '.'
		}
		at -= len(s)
		copy(b[at:], s)
	})
	return string(b)
}

// walkPath calls fn with each part of r's path, innermost first: the
// object's name, its outers' names and, for exports, the package name.
func (p *Package) walkPath(r ObjectRef, fn func(string)) {
	for depth := 0; r != 0 && depth <= len(p.Exports)+len(p.Imports); depth++ {
		fn(p.ObjectName(r))
		if i, ok := r.Export(); ok && i < len(p.Exports) {
			r = p.Exports[i].Outer
			if r == 0 {
				fn(p.Name)
			}
		} else if i, ok := r.Import(); ok && i < len(p.Imports) {
			r = p.Imports[i].Outer
		} else {
			break
		}
	}
}

// ExportPath returns the full path of export i.
func (p *Package) ExportPath(i int) string { return p.Path(ExportRef(i)) }

// ExportPaths returns the full path of every export, as ExportPath gives
// it. Each path is built once, from its outer's, into one shared buffer, so
// the cost is that of the text itself rather than of walking every chain
// from its end: a hierarchy hundreds of levels deep costs its paths' bytes.
func (p *Package) ExportPaths() []string {
	out := make([]string, len(p.Exports))
	// An export is rooted when its outer chain reaches the package through
	// exports alone; its path is then its outer's path, a dot and its name.
	// Anything else (an import outer, a cycle, a bad index) is left to
	// ExportPath, whose walk bounds it.
	const (
		todo = iota
		pending
		other
		rooted
	)
	state := make([]uint8, len(p.Exports))
	size := make([]int, len(p.Exports)) // path length of rooted exports
	var chain, order []int              // order: rooted exports, outers first
	total := 0
	for i := range p.Exports {
		for j := i; state[j] == todo; {
			state[j] = pending
			chain = append(chain, j)
			o, ok := p.Exports[j].Outer.Export()
			if !ok || o >= len(p.Exports) {
				break
			}
			j = o
		}
		for k := len(chain) - 1; k >= 0; k-- {
			j := chain[k]
			outer := p.Exports[j].Outer
			o, ok := outer.Export()
			name := len(p.ObjectName(ExportRef(j)))
			switch {
			case outer == 0:
				size[j], state[j] = len(p.Name)+1+name, rooted
			case ok && o < len(p.Exports) && state[o] == rooted:
				size[j], state[j] = size[o]+1+name, rooted
			default:
				out[j], state[j] = p.ExportPath(j), other
				continue
			}
			total += size[j]
			order = append(order, j)
		}
		chain = chain[:0]
	}
	// Paths are slices of one string. A strings.Builder never changes the
	// bytes it has handed out, and growing it up front keeps them in place
	// while the later paths copy their outers' from it.
	var b strings.Builder
	b.Grow(total)
	for _, j := range order {
		start := b.Len()
		if o, ok := p.Exports[j].Outer.Export(); ok {
			b.WriteString(out[o])
		} else {
			b.WriteString(p.Name)
		}
		b.WriteByte('.')
		b.WriteString(p.ObjectName(ExportRef(j)))
		out[j] = b.String()[start:]
	}
	return out
}

// Lookup finds objects by path: a full path ("CTF-Face.LevelInfo0") or any
// dotted suffix of one ("LevelInfo0"), compared case-insensitively, searched in
// exports then imports. It returns every match.
func (p *Package) Lookup(path string) []ObjectRef {
	var out []ObjectRef
	want := strings.ToLower(path)
	match := func(full string) bool {
		f := strings.ToLower(full)
		return f == want || strings.HasSuffix(f, "."+want)
	}
	for i, full := range p.ExportPaths() {
		if match(full) {
			out = append(out, ExportRef(i))
		}
	}
	for i := range p.Imports {
		if match(p.Path(ImportRef(i))) {
			out = append(out, ImportRef(i))
		}
	}
	return out
}

func le32(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }
