package iostore

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
)

// MarshalBinary returns the serialized index; see AppendBinary.
func (x *DirectoryIndex) MarshalBinary() ([]byte, error) { return x.AppendBinary(nil) }

// AppendBinary appends the serialized index (FIoDirectoryIndexResource:
// the mount point, the directory entries, the file entries and the string
// table, each as it is in x) to b and returns the extended slice; on error
// it returns nil. Strings are FStrings: ANSI bytes when every character is
// below 0x80, UTF-16LE with a negative length otherwise. A string that
// DecodeDirectoryIndex read in another form (Latin-1 bytes, ASCII stored as
// UTF-16) is written as it was read while it is unchanged, so that a decoded
// index encodes to the bytes it was decoded from. Files and Size are results
// of decoding and are not used. The result is the plain index: an encrypted
// container stores it padded and encrypted (see EncryptECB).
//
// AppendBinary refuses, with a *ue.FormatError wrapping ErrNotEncodable, what
// DecodeDirectoryIndex would reject: references outside the entries or the
// string table, names that are not plain path components, cycles, paths
// over MaxPathLen, a mount point that is not valid text, and strings that
// are not valid UTF-8.
func (x *DirectoryIndex) AppendBinary(b []byte) ([]byte, error) {
	if _, err := x.checkEncodable(); err != nil {
		return nil, err
	}
	return x.appendChecked(b), nil
}

// appendChecked appends x, which checkEncodable accepted.
func (x *DirectoryIndex) appendChecked(b []byte) []byte {
	size := 4*4 + 16*len(x.DirectoryEntries) + 12*len(x.FileEntries) + x.stringSize(-1, x.MountPoint)
	for i, s := range x.StringTable {
		size += x.stringSize(i, s)
	}
	b = slices.Grow(b, size)
	le := binary.LittleEndian
	b = x.appendString(b, -1, x.MountPoint)
	b = le.AppendUint32(b, uint32(len(x.DirectoryEntries)))
	for _, e := range x.DirectoryEntries {
		b = le.AppendUint32(b, e.Name)
		b = le.AppendUint32(b, e.FirstChild)
		b = le.AppendUint32(b, e.NextSibling)
		b = le.AppendUint32(b, e.FirstFile)
	}
	b = le.AppendUint32(b, uint32(len(x.FileEntries)))
	for _, e := range x.FileEntries {
		b = le.AppendUint32(b, e.Name)
		b = le.AppendUint32(b, e.NextFile)
		b = le.AppendUint32(b, e.UserData)
	}
	b = le.AppendUint32(b, uint32(len(x.StringTable)))
	for i, s := range x.StringTable {
		b = x.appendString(b, i, s)
	}
	return b
}

// appendString appends string key (-1: the mount point) with value s: its
// stored bytes when it was decoded from a non-canonical form and is
// unchanged, else its FString encoding.
func (x *DirectoryIndex) appendString(b []byte, key int, s string) []byte {
	if k, ok := x.kept[key]; ok && k.value == s {
		return append(b, k.raw...)
	}
	return binio.AppendFString32(b, s)
}

// stringSize returns how many bytes appendString writes (an upper bound for
// UTF-16 strings).
func (x *DirectoryIndex) stringSize(key int, s string) int {
	if k, ok := x.kept[key]; ok && k.value == s {
		return len(k.raw)
	}
	return 4 + 2*len(s) + 2
}

// checkEncodable returns the first reason AppendBinary cannot encode x, or
// the files the index lists, in walk order.
func (x *DirectoryIndex) checkEncodable() ([]IndexedFile, error) {
	switch {
	case !utf8.ValidString(x.MountPoint) || strings.ContainsRune(x.MountPoint, 0):
		return nil, encodeError("", "directory index mount point", "mount point %q is not valid text", x.MountPoint)
	case uint64(len(x.DirectoryEntries)) > math.MaxInt32, uint64(len(x.FileEntries)) > math.MaxInt32, uint64(len(x.StringTable)) > math.MaxInt32:
		return nil, encodeError("", "directory index", "%d directories, %d files, %d strings: counts are int32",
			len(x.DirectoryEntries), len(x.FileEntries), len(x.StringTable))
	}
	for i, s := range x.StringTable {
		if !utf8.ValidString(s) {
			return nil, encodeError("", fmt.Sprintf("directory index string %d", i), "%q is not valid UTF-8", s)
		}
	}
	fail := func(structure string, _ int, format string, args ...any) error {
		return encodeError("", "directory index "+structure, format, args...)
	}
	return x.check(fail, 0, 0)
}

// CommonMountPoint returns the mount point the engine's container writer
// derives from the full paths of the files it indexes: the longest
// directory, ending in '/', that contains every path, e.g.
// "../../../Maine/Content/". Like the engine it compares ASCII letters
// without regard to case and keeps the spelling of the path with the most
// '/' (the first such path). It returns "" when no directory contains every
// path, or for no paths. Cut len(mount point) bytes from each path to get
// the relative paths NewDirectoryIndex takes.
func CommonMountPoint(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	// Start from the directory of the deepest path, as the engine does.
	deepest, most := "", -1
	for _, p := range paths {
		if n := strings.Count(p, "/"); n > most {
			deepest, most = p, n
		}
	}
	root := deepest[:strings.LastIndexByte(deepest, '/')+1]
	for _, p := range paths {
		dir := p[:strings.LastIndexByte(p, '/')+1]
		// The longest prefix of dir that ends in '/' and matches root.
		common := 0
		for i := 0; i < len(dir) && i < len(root); i++ {
			if asciiLower(dir[i]) != asciiLower(root[i]) {
				break
			}
			if dir[i] == '/' {
				common = i + 1
			}
		}
		root = root[:common]
	}
	return root
}

// NewDirectoryIndex builds the directory index of files, whose paths are
// relative to mountPoint and '/'-separated and whose Chunk is the TOC entry
// index each names (Entry is not used), the way the engine's writer builds
// it, so that the result encodes to the engine's bytes:
//
//   - files are added in TOC order (by Chunk; input order does not matter);
//   - each path's directories are looked up or created from the root down,
//     a new directory becoming its parent's first child, and each file
//     becomes the first file of its directory (both lists end up in reverse
//     order of addition);
//   - the string table holds each name once, in order of first use, a
//     path's directory names before its file name.
//
// The engine's string table and directory lookup ignore the case of
// letters, which would merge names that differ only in case and so change
// paths; NewDirectoryIndex refuses such input instead, and refuses paths
// that are empty, have empty, "." or ".." components, contain a backslash
// or NUL, are not valid UTF-8 or are longer than MaxPathLen, the same path
// twice, and two paths for one chunk. The mount point must end in '/' (see
// CommonMountPoint). Errors are *ue.FormatError values wrapping
// ErrNotEncodable. The returned index has Files (in walk order) and Size
// set, as if decoded.
func NewDirectoryIndex(mountPoint string, files []IndexedFile) (*DirectoryIndex, error) {
	switch {
	case !strings.HasSuffix(mountPoint, "/"):
		return nil, encodeError("", "directory index mount point", "mount point %q does not end in '/'", mountPoint)
	case !utf8.ValidString(mountPoint) || strings.ContainsAny(mountPoint, "\\\x00"):
		return nil, encodeError("", "directory index mount point", "mount point %q is not a valid path (backslash, NUL or invalid UTF-8)", mountPoint)
	case len(mountPoint) > MaxPathLen:
		return nil, encodeError("", "directory index mount point", "mount point is longer than %d bytes", MaxPathLen)
	case uint64(len(files)) > math.MaxInt32:
		return nil, encodeError("", "directory index", "%d files: the count is an int32", len(files))
	}
	bad := func(i int, format string, args ...any) error {
		return encodeError("", fmt.Sprintf("directory index file %d (%q)", i, files[i].Path), format, args...)
	}
	byPath := make(map[string]int, len(files))
	byChunk := make(map[uint32]int, len(files))
	for i, f := range files {
		if err := checkRelativePath(f.Path); err != nil {
			return nil, bad(i, "%v", err)
		}
		key := asciiLowerString(f.Path)
		if j, dup := byPath[key]; dup {
			return nil, bad(i, "the same path as file %d (%q); the engine's index does not tell case apart", j, files[j].Path)
		}
		byPath[key] = i
		if j, dup := byChunk[f.Chunk]; dup {
			return nil, bad(i, "chunk %d already has a path (file %d, %q)", f.Chunk, j, files[j].Path)
		}
		byChunk[f.Chunk] = i
	}
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch ca, cb := files[a].Chunk, files[b].Chunk; {
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
		return 0
	})

	x := &DirectoryIndex{
		MountPoint:       mountPoint,
		DirectoryEntries: []DirectoryEntry{{Name: NoEntry, FirstChild: NoEntry, NextSibling: NoEntry, FirstFile: NoEntry}},
		FileEntries:      make([]FileEntry, 0, len(files)),
	}
	type firstUse struct {
		index uint32 // in the string table
		file  int    // the file whose path added it
	}
	names := make(map[string]firstUse)
	type child struct{ parent, name uint32 }
	dirs := make(map[child]uint32)
	intern := func(i int, s string) (uint32, error) {
		key := asciiLowerString(s)
		if u, ok := names[key]; ok {
			if have := x.StringTable[u.index]; have != s {
				return 0, bad(i, "name %q differs only in case from %q in file %d (%q); the engine's index keeps one spelling for both",
					s, have, u.file, files[u.file].Path)
			}
			return u.index, nil
		}
		u := firstUse{uint32(len(x.StringTable)), i}
		x.StringTable = append(x.StringTable, s)
		names[key] = u
		return u.index, nil
	}
	for _, i := range order {
		parts := strings.Split(files[i].Path, "/")
		d := uint32(0)
		for _, p := range parts[:len(parts)-1] {
			name, err := intern(i, p)
			if err != nil {
				return nil, err
			}
			if c, ok := dirs[child{d, name}]; ok {
				d = c
				continue
			}
			c := uint32(len(x.DirectoryEntries))
			x.DirectoryEntries = append(x.DirectoryEntries, DirectoryEntry{
				Name: name, FirstChild: NoEntry, NextSibling: x.DirectoryEntries[d].FirstChild, FirstFile: NoEntry,
			})
			x.DirectoryEntries[d].FirstChild = c
			dirs[child{d, name}] = c
			d = c
		}
		name, err := intern(i, parts[len(parts)-1])
		if err != nil {
			return nil, err
		}
		f := uint32(len(x.FileEntries))
		x.FileEntries = append(x.FileEntries, FileEntry{Name: name, NextFile: x.DirectoryEntries[d].FirstFile, UserData: files[i].Chunk})
		x.DirectoryEntries[d].FirstFile = f
	}
	listed, err := x.checkEncodable()
	if err != nil {
		return nil, err
	}
	x.Files = listed
	x.Size = len(x.appendChecked(nil))
	return x, nil
}

// checkRelativePath returns why p cannot be a path under a mount point, or
// nil.
func checkRelativePath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path")
	case len(p) > MaxPathLen:
		return fmt.Errorf("path is longer than %d bytes", MaxPathLen)
	case !utf8.ValidString(p):
		return fmt.Errorf("path is not valid UTF-8")
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("path contains a backslash or NUL")
	}
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "":
			return fmt.Errorf("empty path component (leading, trailing or doubled '/')")
		case ".", "..":
			return fmt.Errorf("path component %q", c)
		}
	}
	return nil
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLowerString lowers the ASCII letters of s, the case folding of the
// engine's name comparisons.
func asciiLowerString(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = asciiLower(b[j])
			}
			return string(b)
		}
	}
	return s
}
