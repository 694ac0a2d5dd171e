package pak

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
)

// The flat directory index of version 13 and later (FPakFlatDirectoryIndex,
// UE 6.0): the full directory index as one table instead of nested maps.
//
//	int32 magic 0x50464451 ("QDFP"), NumDirs, NumFiles, RestartInterval,
//	      DirBlobBytes, FileBlobBytes, NumPathHashes, 0 (pads the header to 32)
//	uint64 × NumPathHashes   path hashes (PathHash of each file), ascending
//	int32  × NumPathHashes   the location of each hash's file
//	int32  × (NumAnchors+1)  where every RestartInterval-th directory starts
//	                         in the directory blob, then DirBlobBytes
//	int32  × (NumDirs+1)     each directory's first file, then NumFiles
//	int32  × (NumFiles+1)    each file name's start in the file blob, then FileBlobBytes
//	int32  × NumFiles        each file's location
//	directory blob           per directory: int32 bytes shared with the
//	                         previous name (0 at an anchor), int32 suffix
//	                         length, the suffix (UTF-8)
//	file blob                the file names (UTF-8), back to back
//
// Directories are sorted and named as in the nested index ("/" for the
// mount point, else "Sub/Dir/"); files are sorted within their directory.
// NumAnchors is NumDirs / RestartInterval rounded up. UE 6.0 writes a
// restart interval of 16.

// flatIndexMagic starts a flat directory index.
const flatIndexMagic = 0x50464451

// flatRestartInterval is the restart interval unrmod writes, as UE 6.0.
const flatRestartInterval = 16

// isFlatDirectoryIndex reports whether b, a version v full directory
// index, is a flat one.
func isFlatDirectoryIndex(b []byte, v Version) bool {
	return v.HasFlatDirectoryIndex() && len(b) >= 4 && binary.LittleEndian.Uint32(b) == flatIndexMagic
}

// flatHash is one pair of a flat index's hash table.
type flatHash struct {
	hash     uint64
	location int32
}

// decodeFlatDirectoryIndex decodes a flat directory index from c into the
// files it lists and its hash table. Every count is checked against the
// bytes left before anything is allocated for it.
func decodeFlatDirectoryIndex(c *binio.Cursor) ([]directoryFile, []flatHash) {
	files, table, _ := decodeFlatDirectories(c)
	return files, table
}

// decodeFlatDirectories decodes a flat directory index as
// decodeFlatDirectoryIndex does, and also returns its directories in the
// form appendFlatDirectoryIndex takes (empty ones included).
func decodeFlatDirectories(c *binio.Cursor) ([]directoryFile, []flatHash, []flatDirectory) {
	c.U32("flat index magic")
	dirs := c.Count32("directory count", 8+4)
	files := c.Count32("file count", 4+4)
	at := c.Pos()
	restart := c.I32("restart interval")
	if restart <= 0 && c.Err() == nil {
		c.FailAt(at, "restart interval", fmt.Errorf("restart interval %d is not positive", restart))
	}
	dirBlob := c.Count32("directory blob size", 1)
	fileBlob := c.Count32("file blob size", 1)
	hashes := c.Count32("path hash count", 8+4)
	c.U32("header padding")
	if c.Err() != nil {
		return nil, nil, nil
	}
	anchors := (dirs + int(restart) - 1) / int(restart)
	need := int64(hashes)*12 + int64(anchors+1)*4 + int64(dirs+1)*4 + int64(files+1)*4 + int64(files)*4 + int64(dirBlob) + int64(fileBlob)
	if need > int64(c.Len()) {
		c.Fail("flat index tables", fmt.Errorf("the counts need %d bytes, %d left: %w", need, c.Len(), binio.ErrTruncated))
		return nil, nil, nil
	}
	table := make([]flatHash, hashes)
	for i := range table {
		table[i].hash = c.U64("path hash")
	}
	for i := range table {
		table[i].location = c.I32("path hash location")
	}
	i32s := func(n int, what string) ([]int32, int64) {
		at := c.Abs()
		out := make([]int32, n)
		for i := range out {
			out[i] = c.I32(what)
		}
		return out, at
	}
	anchorOffsets, anchorsAt := i32s(anchors+1, "directory anchor offset")
	firstFile, firstFileAt := i32s(dirs+1, "directory first file")
	nameOffsets, nameOffsetsAt := i32s(files+1, "file name offset")
	locations, locationsAt := i32s(files, "file location")
	dirBlobAt := c.Abs()
	db := c.Bytes(dirBlob, "directory blob")
	fb := c.Bytes(fileBlob, "file blob")
	if c.Err() != nil {
		return nil, nil, nil
	}
	base := c.Abs() - int64(c.Pos())
	bad := func(at int64, what string, format string, args ...any) ([]directoryFile, []flatHash, []flatDirectory) {
		c.FailAt(int(at-base), what, fmt.Errorf(format, args...))
		return nil, nil, nil
	}
	hashesAt := base + int64(at) + 20
	for i := 1; i < len(table); i++ {
		if table[i].hash <= table[i-1].hash {
			return bad(hashesAt+8*int64(i), "path hashes", "hash %d (0x%016X) is not above the one before it", i, table[i].hash)
		}
	}
	if firstFile[0] != 0 || firstFile[dirs] != int32(files) {
		return bad(firstFileAt, "directory first file", "the first files run from %d to %d, not 0 to the file count %d", firstFile[0], firstFile[dirs], files)
	}
	if nameOffsets[0] != 0 || nameOffsets[files] != int32(fileBlob) {
		return bad(nameOffsetsAt, "file name offset", "the name offsets run from %d to %d, not 0 to the file blob size %d", nameOffsets[0], nameOffsets[files], fileBlob)
	}
	if anchorOffsets[anchors] != int32(dirBlob) {
		return bad(anchorsAt, "directory anchor offset", "the last anchor is %d, not the directory blob size %d", anchorOffsets[anchors], dirBlob)
	}
	out := make([]directoryFile, 0, files)
	dirList := make([]flatDirectory, 0, dirs)
	var name []byte
	pos := 0
	for d := 0; d < dirs; d++ {
		if d%int(restart) == 0 && anchorOffsets[d/int(restart)] != int32(pos) {
			return bad(anchorsAt+4*int64(d/int(restart)), "directory anchor offset", "anchor %d is %d, directory %d starts at %d", d/int(restart), anchorOffsets[d/int(restart)], d, pos)
		}
		if pos+8 > len(db) {
			return bad(dirBlobAt+int64(pos), "directory blob", "directory %d starts past the blob's end", d)
		}
		shared := int(int32(binary.LittleEndian.Uint32(db[pos:])))
		suffix := int(int32(binary.LittleEndian.Uint32(db[pos+4:])))
		if shared < 0 || shared > len(name) || suffix < 0 || suffix > len(db)-pos-8 || d%int(restart) == 0 && shared != 0 {
			return bad(dirBlobAt+int64(pos), "directory blob",
				"directory %d shares %d bytes with a %d-byte name and adds %d (%d left)", d, shared, len(name), suffix, len(db)-pos-8)
		}
		name = append(name[:shared], db[pos+8:pos+8+suffix]...)
		if !utf8.Valid(name) {
			return bad(dirBlobAt+int64(pos), "directory blob", "directory %d's name is not UTF-8", d)
		}
		pos += 8 + suffix
		dir := string(name)
		if dir == "/" {
			dir = ""
		} else if dir != "" && !strings.HasSuffix(dir, "/") {
			dir += "/"
		}
		fd := flatDirectory{name: string(name)}
		lo, hi := firstFile[d], firstFile[d+1]
		if lo > hi || hi > int32(files) {
			return bad(firstFileAt+4*int64(d), "directory first file", "directory %d's files %d..%d are not in order within 0..%d", d, lo, hi, files)
		}
		for f := lo; f < hi; f++ {
			s, e := nameOffsets[f], nameOffsets[f+1]
			if s < 0 || s > e || e > int32(fileBlob) || !utf8.Valid(fb[s:e]) {
				return bad(nameOffsetsAt+4*int64(f), "file name offset", "file %d's name %d..%d is not UTF-8 within the %d-byte blob", f, s, e, fileBlob)
			}
			out = append(out, directoryFile{path: dir + string(fb[s:e]), location: locations[f], at: locationsAt + 4*int64(f)})
			fd.files = append(fd.files, string(fb[s:e]))
			fd.locations = append(fd.locations, locations[f])
		}
		dirList = append(dirList, fd)
	}
	if pos != len(db) {
		return bad(dirBlobAt+int64(pos), "directory blob", "%d bytes left after the last directory", len(db)-pos)
	}
	return out, table, dirList
}

// flatDirectory is one directory for appendFlatDirectoryIndex: its name
// ("/" or "Sub/Dir/") and its files' names and locations, sorted.
type flatDirectory struct {
	name      string
	files     []string
	locations []int32
}

// appendFlatDirectoryIndex appends a flat directory index of dirs (sorted
// by name) whose files have the given path hashes and locations.
func appendFlatDirectoryIndex(b []byte, dirs []flatDirectory, table []flatHash) []byte {
	le := binary.LittleEndian
	table = slices.Clone(table)
	slices.SortFunc(table, func(x, y flatHash) int {
		switch {
		case x.hash < y.hash:
			return -1
		case x.hash > y.hash:
			return 1
		}
		return 0
	})
	var dirBlob, fileBlob []byte
	var anchors, firstFile, nameOffsets, locations []int32
	prev := ""
	files := 0
	for d, dir := range dirs {
		shared := 0
		if d%flatRestartInterval == 0 {
			anchors = append(anchors, int32(len(dirBlob)))
		} else {
			for shared < len(prev) && shared < len(dir.name) && prev[shared] == dir.name[shared] {
				shared++
			}
		}
		dirBlob = le.AppendUint32(dirBlob, uint32(shared))
		dirBlob = le.AppendUint32(dirBlob, uint32(len(dir.name)-shared))
		dirBlob = append(dirBlob, dir.name[shared:]...)
		prev = dir.name
		firstFile = append(firstFile, int32(files))
		for i, f := range dir.files {
			nameOffsets = append(nameOffsets, int32(len(fileBlob)))
			fileBlob = append(fileBlob, f...)
			locations = append(locations, dir.locations[i])
			files++
		}
	}
	anchors = append(anchors, int32(len(dirBlob)))
	firstFile = append(firstFile, int32(files))
	nameOffsets = append(nameOffsets, int32(len(fileBlob)))
	for _, x := range []int{flatIndexMagic, len(dirs), files, flatRestartInterval, len(dirBlob), len(fileBlob), len(table), 0} {
		b = le.AppendUint32(b, uint32(x))
	}
	for _, h := range table {
		b = le.AppendUint64(b, h.hash)
	}
	for _, h := range table {
		b = le.AppendUint32(b, uint32(h.location))
	}
	for _, list := range [][]int32{anchors, firstFile, nameOffsets, locations} {
		for _, x := range list {
			b = le.AppendUint32(b, uint32(x))
		}
	}
	b = append(b, dirBlob...)
	return append(b, fileBlob...)
}
