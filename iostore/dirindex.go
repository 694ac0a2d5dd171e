package iostore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
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

	// kept holds the stored bytes of strings (the mount point under key -1,
	// string-table entries under their index) that were not stored the way
	// AppendBinary writes them, e.g. Latin-1 bytes or ASCII as UTF-16.
	kept map[int]keptString
}

// keptString is a decoded string and the bytes it was decoded from.
type keptString struct {
	value string
	raw   []byte
}

// keep records the bytes data[start:end] of string key when they are not
// the canonical encoding of its decoded value s.
func (x *DirectoryIndex) keep(key int, s string, data []byte, start, end int) {
	raw := data[start:end]
	if string(binio.AppendFString32(nil, s)) == string(raw) {
		return
	}
	if x.kept == nil {
		x.kept = make(map[int]keptString)
	}
	x.kept[key] = keptString{value: s, raw: bytes.Clone(raw)}
}

// dirFail builds the error of a directory-index problem at position at of
// the index, which starts at offset base of file.
func dirFail(file string, base int64, structure string, at int, format string, args ...any) error {
	return errorf(file, "directory index "+structure, base+int64(at), ErrCorrupt, format, args...)
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
	c := binio.NewCursor(data, base)
	c.SetKind(ErrCorrupt)
	x := &DirectoryIndex{}
	x.MountPoint = c.FString32("mount point")
	if c.Err() == nil {
		x.keep(-1, x.MountPoint, data, 0, c.Pos())
	}
	if c.Err() == nil && (!utf8.ValidString(x.MountPoint) || strings.ContainsRune(x.MountPoint, 0)) {
		return nil, dirFail(name, base, "mount point", 0, "mount point %q is not valid text", x.MountPoint)
	}
	dirsAt := c.Pos()
	x.DirectoryEntries = make([]DirectoryEntry, c.Count32("directory entries count", 16))
	for i := range x.DirectoryEntries {
		x.DirectoryEntries[i] = DirectoryEntry{
			Name:        c.U32("directory entry"),
			FirstChild:  c.U32("directory entry"),
			NextSibling: c.U32("directory entry"),
			FirstFile:   c.U32("directory entry"),
		}
	}
	filesAt := c.Pos()
	x.FileEntries = make([]FileEntry, c.Count32("file entries count", 12))
	for i := range x.FileEntries {
		x.FileEntries[i] = FileEntry{Name: c.U32("file entry"), NextFile: c.U32("file entry"), UserData: c.U32("file entry")}
	}
	x.StringTable = make([]string, c.Count32("string table count", 4))
	for i := range x.StringTable {
		if c.Err() != nil {
			break
		}
		at := c.Pos()
		if s, ok := asciiFString32(data[at:]); ok {
			// As AppendBinary writes it: nothing to keep, no error to name.
			c.Bytes(4+len(s)+1, "string")
			x.StringTable[i] = s
			continue
		}
		x.StringTable[i] = c.FString32(fmt.Sprintf("string %d", i))
		if c.Err() == nil {
			x.keep(i, x.StringTable[i], data, at, c.Pos())
		}
	}
	if err := c.Err(); err != nil {
		what, off, msg, _ := binio.Describe(err)
		return nil, &ue.FormatError{File: name, Struct: "directory index " + what, Offset: off, Msg: msg, Err: err}
	}
	x.Size = c.Pos()
	fail := func(structure string, at int, format string, args ...any) error {
		return dirFail(name, base, structure, at, format, args...)
	}
	files, err := x.check(fail, dirsAt, filesAt)
	if err != nil {
		return nil, err
	}
	x.Files = files
	return x, nil
}

// asciiFString32 reads the FString32 at the start of b when it is stored
// as AppendFString32 stores a non-empty ASCII string (a positive length
// counting the terminating zero, the bytes, the zero), the common case
// decoded without a label for errors it cannot have.
func asciiFString32(b []byte) (string, bool) {
	if len(b) < 4 {
		return "", false
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	if n < 2 || n > int64(len(b)-4) {
		return "", false
	}
	body := b[4 : 4+n]
	if body[n-1] != 0 {
		return "", false
	}
	for _, x := range body[:n-1] {
		if x >= utf8.RuneSelf {
			return "", false
		}
	}
	return string(body[:n-1]), true
}

// check validates every reference and walks the tree, returning the files
// in walk order. dirsAt and filesAt are the positions of the directory and
// file entry counts, for the positions fail reports.
func (x *DirectoryIndex) check(fail func(structure string, at int, format string, args ...any) error, dirsAt, filesAt int) ([]IndexedFile, error) {
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
	// The names of entries, made only for an error.
	dirEntry := func(i int) string { return fmt.Sprintf("directory entry %d", i) }
	fileEntry := func(i int) string { return fmt.Sprintf("file entry %d", i) }
	for i, e := range x.DirectoryEntries {
		switch {
		case e.FirstChild != NoEntry && e.FirstChild >= nd:
			return nil, fail(dirEntry(i), dirAt(i), "first child %d is outside the %d directories", e.FirstChild, nd)
		case e.NextSibling != NoEntry && e.NextSibling >= nd:
			return nil, fail(dirEntry(i), dirAt(i), "next sibling %d is outside the %d directories", e.NextSibling, nd)
		case e.FirstFile != NoEntry && e.FirstFile >= nf:
			return nil, fail(dirEntry(i), dirAt(i), "first file %d is outside the %d files", e.FirstFile, nf)
		case i == 0 && e.Name != NoEntry && (e.Name >= ns || x.StringTable[e.Name] != ""):
			return nil, fail(dirEntry(i), dirAt(i), "the root directory has a name (%d)", e.Name)
		case i == 0 && e.NextSibling != NoEntry:
			return nil, fail(dirEntry(i), dirAt(i), "the root directory has a sibling (%d)", e.NextSibling)
		}
		if i > 0 {
			if err := component(e.Name); err != nil {
				return nil, fail(dirEntry(i), dirAt(i), "%v", err)
			}
		}
	}
	for i, e := range x.FileEntries {
		if e.NextFile != NoEntry && e.NextFile >= nf {
			return nil, fail(fileEntry(i), fileAt(i), "next file %d is outside the %d files", e.NextFile, nf)
		}
		if err := component(e.Name); err != nil {
			return nil, fail(fileEntry(i), fileAt(i), "%v", err)
		}
	}
	if nd == 0 {
		if nf > 0 {
			return nil, fail("directory entries", dirsAt, "no root directory but %d files", nf)
		}
		return nil, nil
	}
	// Walk from the root. Every directory and file may be reached once:
	// a second visit means a cycle or shared subtree, which would make the
	// walk endless or list a file twice.
	seenDir := make([]bool, nd)
	seenFile := make([]bool, nf)
	var files []IndexedFile
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
				return nil, fail(fmt.Sprintf("file entry %d", f), fileAt(int(f)), "reached twice while walking the tree (cyclic or shared file list)")
			}
			seenFile[f] = true
			fe := x.FileEntries[f]
			p := it.prefix + x.StringTable[fe.Name]
			if len(p) > MaxPathLen {
				return nil, fail(fmt.Sprintf("file entry %d", f), fileAt(int(f)), "path is longer than %d bytes", MaxPathLen)
			}
			files = append(files, IndexedFile{Path: p, Chunk: fe.UserData, Entry: int(f)})
		}
		var children []item
		for c := e.FirstChild; c != NoEntry; c = x.DirectoryEntries[c].NextSibling {
			if seenDir[c] {
				return nil, fail(fmt.Sprintf("directory entry %d", c), dirAt(int(c)), "reached twice while walking the tree (cyclic directory index)")
			}
			seenDir[c] = true
			p := it.prefix + x.StringTable[x.DirectoryEntries[c].Name] + "/"
			if len(p) > MaxPathLen {
				return nil, fail(fmt.Sprintf("directory entry %d", c), dirAt(int(c)), "path is longer than %d bytes", MaxPathLen)
			}
			children = append(children, item{c, p})
		}
		// Push in reverse so that the walk visits children in stored order.
		for k := len(children) - 1; k >= 0; k-- {
			stack = append(stack, children[k])
		}
	}
	return files, nil
}
