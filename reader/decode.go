package reader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/safefile"
)

// MaxFileSize is the size of the largest legacy package: every offset in
// the format is a signed 32-bit integer.
const MaxFileSize = math.MaxInt32

// ReadFile reads and decodes the package at path. Anything but a regular
// file, and a file larger than MaxFileSize, is refused before reading.
func ReadFile(path string) (*Package, error) {
	data, err := safefile.ReadRegular(path, MaxFileSize, "a legacy package")
	if err != nil {
		return nil, err
	}
	return Read(path, data)
}

// Read decodes a package from data. name is the file name used in error
// messages and, without its extension, as the package name. The package keeps
// data (it does not copy it): the caller must not modify it afterwards.
//
// Read checks every count and offset against the size of data before
// allocating, and returns a *FormatError naming the structure and offset of
// the first problem.
func Read(name string, data []byte) (*Package, error) {
	d := &decoder{file: name, data: data}
	p, err := d.decode()
	if err != nil {
		return nil, err
	}
	return p, nil
}

type decoder struct {
	file string
	data []byte
	p    *Package
}

// Minimal encoded sizes of table entries, used to bound counts before allocating.
const (
	minNameEntry   = 5  // 1-byte string + DWORD flags
	minImportEntry = 7  // 3 compact indices + INT
	minExportEntry = 12 // 4 compact indices + INT + DWORD
)

func (d *decoder) decode() (*Package, error) {
	data := d.data
	size := int64(len(data))
	if size < 4 {
		return nil, d.errorf("header", 0, ErrNotPackage, "file is %d bytes, too short for a package", size)
	}
	c := binio.NewCursor(data, 0)
	if tag := c.U32("tag"); tag != Tag {
		if tag == 0xC1832A9E {
			return nil, d.errorf("header", 0, ErrUnsupportedVersion, "byte-swapped tag: big-endian console packages are not supported")
		}
		return nil, d.errorf("header", 0, ErrNotPackage, "tag is 0x%08X, want 0x%08X: %s", tag, Tag, otherKind(d.file, data))
	}
	if size < 44 {
		return nil, d.errorf("header", 0, binio.ErrTruncated, "file is %d bytes, shorter than the 44-byte header", size)
	}
	p := &Package{FileName: d.file, Name: packageName(d.file), src: data}
	d.p = p
	h := &p.Header
	vd := c.U32("version")
	h.Version = Version{File: uint16(vd), Licensee: uint16(vd >> 16)}
	if int32(vd) < 0 && int32(vd) >= -9 {
		return nil, d.errorf("header", 4, ErrUnsupportedVersion, "%s", ue4Package(d.file, data))
	}
	if h.Version.File < VerMin || h.Version.File > VerMax {
		return nil, d.errorf("header", 4, ErrUnsupportedVersion,
			"file version %d (licensee %d) is outside %d..%d: only Unreal Engine 1 and 2 packages are supported",
			h.Version.File, h.Version.Licensee, VerMin, VerMax)
	}
	h.Flags = PackageFlags(c.U32("package flags"))
	nameCount := c.I32("name count")
	h.NameOffset = c.I32("name offset")
	exportCount := c.I32("export count")
	h.ExportOffset = c.I32("export offset")
	importCount := c.I32("import count")
	h.ImportOffset = c.I32("import offset")

	hdrEnd := int64(44)
	if h.Version.File < VerGUIDGenerations {
		herCount := c.I32("heritage count")
		h.HeritageOffset = c.I32("heritage offset")
		if err := d.checkTable("heritage table", 36, herCount, h.HeritageOffset, 16); err != nil {
			return nil, err
		}
		hc := binio.NewCursor(data[h.HeritageOffset:], int64(h.HeritageOffset))
		h.Heritage = make([]GUID, herCount)
		for i := range h.Heritage {
			for j := range h.Heritage[i] {
				h.Heritage[i][j] = hc.U32("heritage GUID")
			}
		}
	} else {
		if size < 56 {
			return nil, d.errorf("header", 0, binio.ErrTruncated, "file is %d bytes, shorter than the 56-byte header", size)
		}
		for j := range h.GUID {
			h.GUID[j] = c.U32("GUID")
		}
		genCount := c.I32("generation count")
		if genCount < 0 || int64(genCount) > (size-56)/8 {
			return nil, d.errorf("header", 52, ErrCorrupt, "generation count %d does not fit in the file (%d bytes)", genCount, size)
		}
		h.Generations = make([]Generation, genCount)
		for i := range h.Generations {
			h.Generations[i] = Generation{c.I32("generation export count"), c.I32("generation name count")}
		}
		hdrEnd = c.Abs()
	}
	if err := c.Err(); err != nil {
		return nil, d.errorf("header", -1, err, "%v", err)
	}
	if err := d.checkTable("name table", 12, nameCount, h.NameOffset, minNameEntry); err != nil {
		return nil, err
	}
	if err := d.checkTable("import table", 28, importCount, h.ImportOffset, minImportEntry); err != nil {
		return nil, err
	}
	if err := d.checkTable("export table", 20, exportCount, h.ExportOffset, minExportEntry); err != nil {
		return nil, err
	}

	p.regions = append(p.regions, Region{Kind: "header", Index: -1, Offset: 0, Size: hdrEnd})
	if h.Version.File < VerGUIDGenerations && len(h.Heritage) > 0 {
		p.regions = append(p.regions, Region{Kind: "heritage", Index: -1, Offset: int64(h.HeritageOffset), Size: 16 * int64(len(h.Heritage))})
	}
	var err error
	if err = d.readNames(int(nameCount)); err != nil {
		return nil, err
	}
	if err = d.readImports(int(importCount)); err != nil {
		return nil, err
	}
	if err = d.readExports(int(exportCount)); err != nil {
		return nil, err
	}
	if err = d.checkRefs(); err != nil {
		return nil, err
	}
	if err = d.checkDataOverlap(); err != nil {
		return nil, err
	}
	sort.SliceStable(p.regions, func(i, j int) bool { return p.regions[i].Offset < p.regions[j].Offset })
	return p, nil
}

// hex formats a possibly negative offset as 0x1F or -0x10.
func hex(v int64) string {
	if v < 0 {
		return fmt.Sprintf("-0x%X", -v)
	}
	return fmt.Sprintf("0x%X", v)
}

// packageName derives the package name from a file name: base name without
// extension, with either kind of path separator.
func packageName(file string) string {
	base := file
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

func (d *decoder) checkTable(what string, hdrOff int64, count, offset int32, minEntry int64) error {
	size := int64(len(d.data))
	if count < 0 {
		return d.errorf("header", hdrOff, ErrCorrupt, "%s count %d is negative", what, count)
	}
	if count == 0 {
		if offset < 0 || int64(offset) > size {
			return d.errorf("header", hdrOff+4, ErrCorrupt, "%s offset %s is outside the file (0x%X bytes)", what, hex(int64(offset)), size)
		}
		return nil
	}
	if offset < 0 || int64(offset) >= size {
		return d.errorf("header", hdrOff+4, ErrCorrupt, "%s offset %s is outside the file (0x%X bytes)", what, hex(int64(offset)), size)
	}
	if need := int64(count) * minEntry; need > size-int64(offset) {
		return d.errorf("header", hdrOff, ErrCorrupt, "%s: %d entries need at least %d bytes but only %d remain after offset 0x%X",
			what, count, need, size-int64(offset), offset)
	}
	return nil
}

func (d *decoder) cursorErr(structure string, c *binio.Cursor) error {
	err := c.Err()
	var ce *binio.CursorError
	if errors.As(err, &ce) {
		return &FormatError{File: d.file, Struct: structure, Offset: ce.Offset, Msg: fmt.Sprintf("%s: %v", ce.What, ce.Err), Err: err}
	}
	return d.errorf(structure, -1, err, "%v", err)
}

func (d *decoder) readNames(n int) error {
	p := d.p
	off := p.Header.NameOffset
	c := binio.NewCursor(d.data[off:], int64(off))
	p.Names = make([]Name, n)
	for i := range p.Names {
		start := c.Pos()
		var s string
		if p.Header.Version.File < VerCompactNames {
			s = c.CString("name")
		} else {
			s = c.FString("name")
		}
		f := ObjectFlags(c.U32("name flags"))
		if c.Err() != nil {
			return d.cursorErr(fmt.Sprintf("name table entry %d", i), c)
		}
		// The engine copies the stored text into a C string: a zero inside
		// ends the name (docs/legacy-layouts.md#names).
		after := 0
		if k := strings.IndexByte(s, 0); k >= 0 {
			after, s = len([]rune(s[k:])), s[:k]
		}
		if n := utf8.RuneCountInString(s); n > MaxPathLen {
			// Verify reports names longer than the engine's 63 characters;
			// one longer than any path is refused here, where it is read.
			return d.errorf(fmt.Sprintf("name table entry %d", i), int64(off)+int64(start), ErrCorrupt,
				"name has %d characters; the engine allows %d, and no object path may be longer than %d", n, MaxNameLen, MaxPathLen)
		}
		p.Names[i] = Name{Name: s, Flags: f, raw: c.Slice(start), orig: nameFields{s, f}, after: after}
	}
	p.regions = append(p.regions, Region{Kind: "names", Index: -1, Offset: int64(off), Size: int64(c.Pos())})
	return nil
}

func (d *decoder) readImports(n int) error {
	p := d.p
	off := p.Header.ImportOffset
	c := binio.NewCursor(d.data[off:], int64(off))
	p.Imports = make([]Import, n)
	for i := range p.Imports {
		start := c.Pos()
		im := &p.Imports[i]
		im.ClassPackage = NameRef(c.Index("class package"))
		im.ClassName = NameRef(c.Index("class name"))
		im.Outer = ObjectRef(c.I32("package index"))
		im.ObjectName = NameRef(c.Index("object name"))
		if c.Err() != nil {
			return d.cursorErr(fmt.Sprintf("import %d", i), c)
		}
		im.raw = c.Slice(start)
		im.orig = im.fields()
	}
	p.regions = append(p.regions, Region{Kind: "imports", Index: -1, Offset: int64(off), Size: int64(c.Pos())})
	return nil
}

func (d *decoder) readExports(n int) error {
	p := d.p
	off := p.Header.ExportOffset
	size := int64(len(d.data))
	c := binio.NewCursor(d.data[off:], int64(off))
	p.Exports = make([]Export, n)
	for i := range p.Exports {
		start := c.Pos()
		at := c.Abs()
		e := &p.Exports[i]
		e.Class = ObjectRef(c.Index("class index"))
		e.Super = ObjectRef(c.Index("super index"))
		e.Outer = ObjectRef(c.I32("package index"))
		e.ObjectName = NameRef(c.Index("object name"))
		e.Flags = ObjectFlags(c.U32("object flags"))
		e.SerialSize = c.Index("serial size")
		if e.SerialSize != 0 {
			e.SerialOffset = c.Index("serial offset")
		}
		if c.Err() != nil {
			return d.cursorErr(fmt.Sprintf("export %d", i), c)
		}
		e.raw = c.Slice(start)
		e.orig = e.fields()
		if e.SerialSize < 0 {
			return d.errorf(d.exportLabel(i), at, ErrCorrupt, "serial size %d is negative", e.SerialSize)
		}
		if e.SerialSize > 0 {
			if e.SerialOffset < 0 || int64(e.SerialOffset)+int64(e.SerialSize) > size {
				return d.errorf(d.exportLabel(i), at, ErrCorrupt, "serial offset %s + size %d past end of file (0x%X)",
					hex(int64(e.SerialOffset)), e.SerialSize, size)
			}
			e.Data = d.data[e.SerialOffset : e.SerialOffset+e.SerialSize : e.SerialOffset+e.SerialSize]
			p.regions = append(p.regions, Region{Kind: "export", Index: i, Offset: int64(e.SerialOffset), Size: int64(e.SerialSize)})
		}
	}
	p.regions = append(p.regions, Region{Kind: "exports", Index: -1, Offset: int64(off), Size: int64(c.Pos())})
	return nil
}

// exportLabel names export i for messages: `export 12 "Light5"`.
func (d *decoder) exportLabel(i int) string {
	p := d.p
	e := &p.Exports[i]
	if e.ObjectName >= 0 && int(e.ObjectName) < len(p.Names) {
		return fmt.Sprintf("export %d %q", i, p.Names[e.ObjectName].Name)
	}
	return fmt.Sprintf("export %d", i)
}

// checkDataOverlap rejects export data ranges that share bytes: the engine
// reads each export from its own range, and shared ranges would make every
// later pass over the data repeat work per sharing export.
func (d *decoder) checkDataOverlap() error {
	var data []Region
	for _, r := range d.p.regions {
		if r.Kind == "export" {
			data = append(data, r)
		}
	}
	sort.Slice(data, func(i, j int) bool { return data[i].Offset < data[j].Offset })
	for k := 1; k < len(data); k++ {
		a, b := data[k-1], data[k]
		if b.Offset < a.End() {
			return d.errorf(d.exportLabel(b.Index), b.Offset, ErrCorrupt, "data 0x%X..0x%X overlaps the data of %s (0x%X..0x%X)",
				b.Offset, b.End(), d.exportLabel(a.Index), a.Offset, a.End())
		}
	}
	return nil
}

// MaxOuterDepth bounds outer (package index) chains. Real packages nest
// groups a few levels deep; a longer chain is corrupt and would make path
// resolution quadratic.
const MaxOuterDepth = 256

// MaxPathLen is the longest object path, in characters, the reader accepts:
// the engine builds an object's path ("Package.Group.Object") in a buffer
// of 1024 characters (UObject::GetPathName). Without the bound a small file
// of deep outer chains and long names holds paths quadratic in its size,
// which every listing of the package would write out.
const MaxPathLen = 1024

// checkRefs checks every name and object reference in the tables and that no
// outer chain loops.
func (d *decoder) checkRefs() error {
	p := d.p
	nn, ni, ne := int32(len(p.Names)), int32(len(p.Imports)), int32(len(p.Exports))
	nameOK := func(r NameRef) bool { return r >= 0 && int32(r) < nn }
	objOK := func(r ObjectRef) bool { return int32(r) >= -ni && int32(r) <= ne }
	for i := range p.Imports {
		im := &p.Imports[i]
		s := fmt.Sprintf("import %d", i)
		switch {
		case !nameOK(im.ClassPackage):
			return d.errorf(s, -1, ErrCorrupt, "class package name index %d out of range (%d names)", im.ClassPackage, nn)
		case !nameOK(im.ClassName):
			return d.errorf(s, -1, ErrCorrupt, "class name index %d out of range (%d names)", im.ClassName, nn)
		case !nameOK(im.ObjectName):
			return d.errorf(s, -1, ErrCorrupt, "object name index %d out of range (%d names)", im.ObjectName, nn)
		case !objOK(im.Outer):
			return d.errorf(s, -1, ErrCorrupt, "package index %d out of range (%d imports, %d exports)", im.Outer, ni, ne)
		}
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		if !nameOK(e.ObjectName) {
			return d.errorf(fmt.Sprintf("export %d", i), -1, ErrCorrupt, "object name index %d out of range (%d names)", e.ObjectName, nn)
		}
		for _, f := range []struct {
			what string
			r    ObjectRef
		}{{"class", e.Class}, {"super", e.Super}, {"package", e.Outer}} {
			if !objOK(f.r) {
				return d.errorf(d.exportLabel(i), -1, ErrCorrupt, "%s index %d out of range (%d imports, %d exports)", f.what, f.r, ni, ne)
			}
		}
	}
	// Outer chains must end: colour each object as we walk.
	state := make([]byte, ni+ne+1) // 0 unvisited, 1 on path, 2 done
	slot := func(r ObjectRef) int { return int(r + ObjectRef(ni)) }
	outer := func(r ObjectRef) ObjectRef {
		if i, ok := r.Export(); ok {
			return p.Exports[i].Outer
		}
		i, _ := r.Import()
		return p.Imports[i].Outer
	}
	depth := make([]int32, ni+ne+1) // chain length of finished objects
	// Path lengths in characters, as Path builds them; every name's length
	// is counted once.
	nameLen := make([]int32, nn)
	for i := range p.Names {
		nameLen[i] = int32(min(utf8.RuneCountInString(p.Names[i].Name), MaxPathLen+1))
	}
	pathLen := make([]int32, ni+ne+1)
	var path []ObjectRef
	for start := -ni; start <= ne; start++ {
		r := ObjectRef(start)
		path = path[:0]
		for r != 0 && state[slot(r)] == 0 {
			state[slot(r)] = 1
			path = append(path, r)
			r = outer(r)
		}
		if r != 0 && state[slot(r)] == 1 {
			what := "import"
			idx, isExp := r.Export()
			if isExp {
				what = d.exportLabel(idx)
			} else {
				idx, _ = r.Import()
				what = fmt.Sprintf("import %d %q", idx, p.NameOf(p.Imports[idx].ObjectName))
			}
			return d.errorf(what, -1, ErrCorrupt, "outer (package index) chain loops")
		}
		var base, plen int32
		if r != 0 {
			base, plen = depth[slot(r)], pathLen[slot(r)]
		}
		for k := len(path) - 1; k >= 0; k-- {
			q := path[k]
			state[slot(q)] = 2
			base++
			depth[slot(q)] = base
			if k == len(path)-1 && r == 0 {
				// The top of the chain: exports are rooted at the package.
				if _, ok := q.Export(); ok {
					plen = int32(min(utf8.RuneCountInString(p.Name), MaxPathLen)) + 1
				}
			} else {
				plen++ // the dot
			}
			if i, ok := q.Export(); ok {
				plen += nameLen[p.Exports[i].ObjectName]
			} else {
				i, _ := q.Import()
				plen += nameLen[p.Imports[i].ObjectName]
			}
			pathLen[slot(q)] = plen
			if plen > MaxPathLen {
				what := fmt.Sprintf("import %d", -int(q)-1)
				if i, ok := q.Export(); ok {
					what = fmt.Sprintf("export %d", i)
				}
				return d.errorf(what, -1, ErrCorrupt, "its path (package and outers) is more than %d characters long, "+
					"longer than the engine builds; the package is corrupt", MaxPathLen)
			}
			if base > MaxOuterDepth {
				what := fmt.Sprintf("import %d", -int(q)-1)
				if i, ok := q.Export(); ok {
					what = d.exportLabel(i)
				}
				return d.errorf(what, -1, ErrCorrupt, "outer (package index) chain is more than %d levels deep", MaxOuterDepth)
			}
		}
	}
	return nil
}

// ue4Package describes a UE4 or UE5 package summary (its legacy file version
// is negative, -9 to -1), which is not a legacy package. The layout of the
// fields is in docs/zen.md.
func ue4Package(file string, data []byte) string {
	legacy := int32(binary.LittleEndian.Uint32(data[4:]))
	at := 8
	if legacy != -4 {
		at += 4 // LegacyUE3Version
	}
	var ue4, ue5 int32
	if len(data) >= at+4 {
		ue4 = int32(binary.LittleEndian.Uint32(data[at:]))
	}
	if legacy <= -8 && len(data) >= at+8 {
		ue5 = int32(binary.LittleEndian.Uint32(data[at+4:]))
	}
	kind := "a UE4 "
	if legacy <= -8 { // the UE5 summary starts at legacy version -8
		kind = "a UE5 "
	}
	if ext := strings.ToLower(filepath.Ext(file)); ext == ".uasset" || ext == ".umap" {
		kind += ext
	} else {
		kind += "package"
	}
	ver := fmt.Sprintf("file version %d", ue4)
	switch {
	case ue4 == 0:
		ver = "unversioned, as cooked"
	case ue5 > 0:
		ver += fmt.Sprintf(", UE5 version %d", ue5)
	}
	return fmt.Sprintf("%s (%s): not a legacy package; unrmod reads the zen packages of UE 4.26+ and UE5 games from their IoStore containers (see unrmod extract)", kind, ver)
}

// otherKind names what a file that is not a package is, when it is a file
// of another Unreal format.
func otherKind(file string, data []byte) string {
	ext := strings.ToLower(filepath.Ext(file))
	switch {
	case len(data) >= 16 && string(data[:16]) == "-==--==--==--==-":
		return "an IoStore table of contents (.utoc), not a legacy package: use info, ls, extract or verify on it"
	case ext == ".ucas":
		return "an IoStore block store (.ucas), not a package: give its .utoc"
	case ext == ".uexp" || ext == ".ubulk" || ext == ".uptnl":
		return "the export or bulk data of a UE4/UE5 package (" + ext + "), not a legacy package"
	case ext == ".pak":
		return "a .pak file, not a package: unrmod info, ls and verify read it"
	case ext == ".uasset" || ext == ".umap":
		return "not a legacy package (a zen package that unrmod does not recognise, or not an Unreal file)"
	}
	return "not an Unreal package"
}
