package pak

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// The pak as an io/fs file system: paths relative to the mount point,
// directories implied by them. Files whose path is not a valid io/fs path
// (or is empty), delete records and repeated paths after the first are
// left out.

var _ fs.FS = (*Reader)(nil)

// fsEntry is a file or an implied directory of the file system view.
type fsEntry struct {
	dir, elem string // the parent directory ("." at the top; "" for the root) and the last element
	name      string // full path; "." for the root
	file      *File  // nil for a directory
}

func newFSEntry(name string, f *File) fsEntry {
	if name == "." {
		return fsEntry{dir: "", elem: ".", name: name, file: f}
	}
	return fsEntry{dir: path.Dir(name), elem: path.Base(name), name: name, file: f}
}

// compareFS orders entries by parent directory, then name, so that the
// children of a directory are next to each other.
func compareFS(a, b fsEntry) int {
	if c := strings.Compare(a.dir, b.dir); c != 0 {
		return c
	}
	return strings.Compare(a.elem, b.elem)
}

// fsList returns the entries of the file system view sorted by
// compareFS; built once per Reader.
func (p *Reader) fsList() []fsEntry {
	p.fsOnce.Do(func() {
		files, dirs := map[string]bool{}, map[string]bool{".": true}
		list := []fsEntry{newFSEntry(".", nil)}
		for _, f := range p.Files {
			if f.Deleted || !fs.ValidPath(f.Path) || f.Path == "." || files[f.Path] {
				continue
			}
			files[f.Path] = true
			list = append(list, newFSEntry(f.Path, f))
			for dir := path.Dir(f.Path); !dirs[dir]; dir = path.Dir(dir) {
				dirs[dir] = true
				list = append(list, newFSEntry(dir, nil))
			}
		}
		// A file and a directory may share a name ("a" and "a/b"): the
		// directory wins, as it does in archive/zip.
		slices.SortStableFunc(list, func(a, b fsEntry) int {
			if c := compareFS(a, b); c != 0 {
				return c
			}
			return boolInt(a.file != nil) - boolInt(b.file != nil)
		})
		p.fsEntries = slices.CompactFunc(list, func(a, b fsEntry) bool { return a.name == b.name })
	})
	return p.fsEntries
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Open opens the file or directory name (a path relative to the mount
// point, compared exactly), so that the pak can be used as an fs.FS, e.g.
// with fs.WalkDir. Files are read as File.Open reads them; the Sys method
// of their fs.FileInfo returns the *File (nil for directories).
func (p *Reader) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	list := p.fsList()
	i, ok := slices.BinarySearchFunc(list, newFSEntry(name, nil), compareFS)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	e := list[i]
	if e.file == nil {
		// Its children follow the entries whose parent sorts before it.
		first, _ := slices.BinarySearchFunc(list, fsEntry{dir: name}, compareFS)
		return &fsDir{p: p, entry: e, next: first}, nil
	}
	rc, err := e.file.Open()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &fsFile{ReadCloser: rc, entry: e}, nil
}

// fsInfo describes an entry; it is both its fs.FileInfo and fs.DirEntry.
type fsInfo struct{ e fsEntry }

func (i fsInfo) Name() string { return path.Base(i.e.name) }
func (i fsInfo) Size() int64 {
	if i.e.file == nil {
		return 0
	}
	return i.e.file.UncompressedSize
}
func (i fsInfo) Mode() fs.FileMode {
	if i.e.file == nil {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i fsInfo) ModTime() time.Time         { return time.Time{} }
func (i fsInfo) IsDir() bool                { return i.e.file == nil }
func (i fsInfo) Sys() any                   { return i.e.file }
func (i fsInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i fsInfo) Info() (fs.FileInfo, error) { return i, nil }
func (i fsInfo) String() string             { return fs.FormatFileInfo(i) }

// fsFile is an open file of the file system view.
type fsFile struct {
	io.ReadCloser
	entry fsEntry
}

func (f *fsFile) Stat() (fs.FileInfo, error) { return fsInfo{f.entry}, nil }

// fsDir is an open directory of the file system view.
type fsDir struct {
	p     *Reader
	entry fsEntry
	next  int // index in the list of the next entry to look at
}

func (d *fsDir) Stat() (fs.FileInfo, error) { return fsInfo{d.entry}, nil }
func (d *fsDir) Close() error               { return nil }
func (d *fsDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.entry.name, Err: errors.New("is a directory")}
}

// ReadDir returns the directory's next n entries (all of them when n <= 0),
// sorted by name.
func (d *fsDir) ReadDir(n int) ([]fs.DirEntry, error) {
	list := d.p.fsList()
	var out []fs.DirEntry
	for ; d.next < len(list) && list[d.next].dir == d.entry.name && (n <= 0 || len(out) < n); d.next++ {
		out = append(out, fsInfo{list[d.next]})
	}
	if n > 0 && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}
