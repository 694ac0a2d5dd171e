package iostore

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
)

// NoEntry marks an absent name, child, sibling or file in the directory index.
const NoEntry uint32 = 0xFFFFFFFF

// MaxPathLen bounds the length of a path built from the directory index.
// Engine paths are far shorter; the bound keeps a hostile index from making
// the reader build gigabytes of paths.
const MaxPathLen = 1024

// DirectoryEntry is FIoDirectoryIndexEntry.
type DirectoryEntry struct {
	Name        uint32 // string-table index, NoEntry for the root
	FirstChild  uint32 // directory index or NoEntry
	NextSibling uint32 // directory index or NoEntry
	FirstFile   uint32 // file index or NoEntry
}

// FileEntry is FIoFileIndexEntry.
type FileEntry struct {
	Name     uint32 // string-table index
	NextFile uint32 // file index or NoEntry
	UserData uint32 // the TOC entry (chunk) index
}

// IndexedFile is one file reached by walking the directory index.
type IndexedFile struct {
	Path  string // relative to the mount point, '/'-separated
	Chunk uint32 // the file entry's UserData: a TOC entry index
	Entry int    // index into FileEntries
}

// DirectoryIndex is FIoDirectoryIndexResource, decoded and checked.
type DirectoryIndex struct {
	MountPoint       string
	DirectoryEntries []DirectoryEntry
	FileEntries      []FileEntry
	StringTable      []string
	// Files lists every file reachable from the root directory (entry 0), in
	// walk order, with its path relative to the mount point.
	Files []IndexedFile
	// Size is the number of bytes the serialized index used; an encrypted
	// index is followed by up to 15 padding bytes.
	Size int
}

// dirDecoder reads the little-endian structures of a directory index.
type dirDecoder struct {
	file string
	b    []byte
	pos  int
	base int64
}

func (d *dirDecoder) fail(structure string, at int, format string, args ...any) error {
	return errorf(d.file, "directory index "+structure, d.base+int64(at), ErrCorrupt, format, args...)
}

func (d *dirDecoder) u32(structure string) (uint32, error) {
	if len(d.b)-d.pos < 4 {
		return 0, d.fail(structure, d.pos, "need 4 bytes, %d left (truncated index)", len(d.b)-d.pos)
	}
	v := binary.LittleEndian.Uint32(d.b[d.pos:])
	d.pos += 4
	return v, nil
}

// count reads an int32 element count and checks that count elements of
// size bytes fit in what is left.
func (d *dirDecoder) count(structure string, size int) (int, error) {
	at := d.pos
	v, err := d.u32(structure + " count")
	if err != nil {
		return 0, err
	}
	n := int64(int32(v))
	if n < 0 {
		return 0, d.fail(structure+" count", at, "negative count %d", n)
	}
	if n*int64(size) > int64(len(d.b)-d.pos) {
		return 0, d.fail(structure+" count", at, "%d entries of at least %d bytes do not fit in the %d bytes left", n, size, len(d.b)-d.pos)
	}
	return int(n), nil
}

// fstring reads an FString: int32 length counting the terminating zero,
// positive for 8-bit characters, negative for UTF-16 units.
func (d *dirDecoder) fstring(structure string) (string, error) {
	at := d.pos
	v, err := d.u32(structure + " length")
	if err != nil {
		return "", err
	}
	n := int64(int32(v))
	left := int64(len(d.b) - d.pos)
	switch {
	case n == 0:
		return "", nil
	case n > 0:
		if n > left {
			return "", d.fail(structure, at, "string of %d bytes, %d left", n, left)
		}
		s := d.b[d.pos : d.pos+int(n)]
		d.pos += int(n)
		if s[n-1] != 0 {
			return "", d.fail(structure, at, "string of %d bytes is not zero-terminated", n)
		}
		return binio.Latin1(s[:n-1]), nil
	default:
		units := -n
		if units*2 > left {
			return "", d.fail(structure, at, "UTF-16 string of %d units, %d bytes left", units, left)
		}
		u := make([]uint16, units)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(d.b[d.pos+2*i:])
		}
		d.pos += int(units) * 2
		if u[units-1] != 0 {
			return "", d.fail(structure, at, "UTF-16 string of %d units is not zero-terminated", units)
		}
		return string(utf16.Decode(u[:units-1])), nil
	}
}

// DecodeDirectoryIndex decodes a serialized (decrypted) directory index.
// name is used in errors and base is the index's offset in that file. It
// checks every reference, walks the tree from the root and fails on cycles,
// on entries reached twice, on names that are not plain path components
// ("", ".", "..", or containing '/', '\' or NUL) and on paths longer than
// MaxPathLen. Bytes after the string table are left to the caller (see
// Size). File UserData is not checked here: only the TOC knows the chunk
// count.
func DecodeDirectoryIndex(name string, data []byte, base int64) (*DirectoryIndex, error) {
	d := &dirDecoder{file: name, b: data, base: base}
	x := &DirectoryIndex{}
	var err error
	if x.MountPoint, err = d.fstring("mount point"); err != nil {
		return nil, err
	}
	if !utf8.ValidString(x.MountPoint) || strings.ContainsRune(x.MountPoint, 0) {
		return nil, d.fail("mount point", 0, "mount point %q is not valid text", x.MountPoint)
	}
	dirsAt := d.pos
	n, err := d.count("directory entries", 16)
	if err != nil {
		return nil, err
	}
	x.DirectoryEntries = make([]DirectoryEntry, n)
	for i := range x.DirectoryEntries {
		e := d.b[d.pos:]
		x.DirectoryEntries[i] = DirectoryEntry{
			Name:        binary.LittleEndian.Uint32(e[0:]),
			FirstChild:  binary.LittleEndian.Uint32(e[4:]),
			NextSibling: binary.LittleEndian.Uint32(e[8:]),
			FirstFile:   binary.LittleEndian.Uint32(e[12:]),
		}
		d.pos += 16
	}
	filesAt := d.pos
	if n, err = d.count("file entries", 12); err != nil {
		return nil, err
	}
	x.FileEntries = make([]FileEntry, n)
	for i := range x.FileEntries {
		e := d.b[d.pos:]
		x.FileEntries[i] = FileEntry{
			Name:     binary.LittleEndian.Uint32(e[0:]),
			NextFile: binary.LittleEndian.Uint32(e[4:]),
			UserData: binary.LittleEndian.Uint32(e[8:]),
		}
		d.pos += 12
	}
	if n, err = d.count("string table", 4); err != nil {
		return nil, err
	}
	x.StringTable = make([]string, n)
	for i := range x.StringTable {
		if x.StringTable[i], err = d.fstring(fmt.Sprintf("string %d", i)); err != nil {
			return nil, err
		}
	}
	x.Size = d.pos
	if err := x.check(d, dirsAt, filesAt); err != nil {
		return nil, err
	}
	return x, nil
}

// check validates every reference and walks the tree.
func (x *DirectoryIndex) check(d *dirDecoder, dirsAt, filesAt int) error {
	nd, nf, ns := uint32(len(x.DirectoryEntries)), uint32(len(x.FileEntries)), uint32(len(x.StringTable))
	dirAt := func(i int) int { return dirsAt + 4 + 16*i }
	fileAt := func(i int) int { return filesAt + 4 + 12*i }
	component := func(idx uint32) error {
		if idx >= ns {
			return fmt.Errorf("name %d is outside the %d-entry string table", idx, ns)
		}
		s := x.StringTable[idx]
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") || !utf8.ValidString(s) {
			return fmt.Errorf("name %q (string %d) is not a plain path component", s, idx)
		}
		return nil
	}
	for i, e := range x.DirectoryEntries {
		structure := fmt.Sprintf("directory entry %d", i)
		switch {
		case e.FirstChild != NoEntry && e.FirstChild >= nd:
			return d.fail(structure, dirAt(i), "first child %d is outside the %d directories", e.FirstChild, nd)
		case e.NextSibling != NoEntry && e.NextSibling >= nd:
			return d.fail(structure, dirAt(i), "next sibling %d is outside the %d directories", e.NextSibling, nd)
		case e.FirstFile != NoEntry && e.FirstFile >= nf:
			return d.fail(structure, dirAt(i), "first file %d is outside the %d files", e.FirstFile, nf)
		case i == 0 && e.Name != NoEntry && (e.Name >= ns || x.StringTable[e.Name] != ""):
			return d.fail(structure, dirAt(i), "the root directory has a name (%d)", e.Name)
		case i == 0 && e.NextSibling != NoEntry:
			return d.fail(structure, dirAt(i), "the root directory has a sibling (%d)", e.NextSibling)
		}
		if i > 0 {
			if err := component(e.Name); err != nil {
				return d.fail(structure, dirAt(i), "%v", err)
			}
		}
	}
	for i, e := range x.FileEntries {
		structure := fmt.Sprintf("file entry %d", i)
		if e.NextFile != NoEntry && e.NextFile >= nf {
			return d.fail(structure, fileAt(i), "next file %d is outside the %d files", e.NextFile, nf)
		}
		if err := component(e.Name); err != nil {
			return d.fail(structure, fileAt(i), "%v", err)
		}
	}
	if nd == 0 {
		if nf > 0 {
			return d.fail("directory entries", dirsAt, "no root directory but %d files", nf)
		}
		return nil
	}
	// Walk from the root. Every directory and file may be reached once:
	// a second visit means a cycle or shared subtree, which would make the
	// walk endless or list a file twice.
	seenDir := make([]bool, nd)
	seenFile := make([]bool, nf)
	type item struct {
		dir    uint32
		prefix string
	}
	stack := []item{{0, ""}}
	seenDir[0] = true
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e := x.DirectoryEntries[it.dir]
		for f := e.FirstFile; f != NoEntry; f = x.FileEntries[f].NextFile {
			if seenFile[f] {
				return d.fail(fmt.Sprintf("file entry %d", f), fileAt(int(f)), "reached twice while walking the tree (cyclic or shared file list)")
			}
			seenFile[f] = true
			fe := x.FileEntries[f]
			p := it.prefix + x.StringTable[fe.Name]
			if len(p) > MaxPathLen {
				return d.fail(fmt.Sprintf("file entry %d", f), fileAt(int(f)), "path is longer than %d bytes", MaxPathLen)
			}
			x.Files = append(x.Files, IndexedFile{Path: p, Chunk: fe.UserData, Entry: int(f)})
		}
		var children []item
		for c := e.FirstChild; c != NoEntry; c = x.DirectoryEntries[c].NextSibling {
			if seenDir[c] {
				return d.fail(fmt.Sprintf("directory entry %d", c), dirAt(int(c)), "reached twice while walking the tree (cyclic directory index)")
			}
			seenDir[c] = true
			p := it.prefix + x.StringTable[x.DirectoryEntries[c].Name] + "/"
			if len(p) > MaxPathLen {
				return d.fail(fmt.Sprintf("directory entry %d", c), dirAt(int(c)), "path is longer than %d bytes", MaxPathLen)
			}
			children = append(children, item{c, p})
		}
		// Push in reverse so that the walk visits children in stored order.
		for k := len(children) - 1; k >= 0; k-- {
			stack = append(stack, children[k])
		}
	}
	return nil
}
