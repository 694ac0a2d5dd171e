package iostore_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// tcPad16 pads b as the engine pads an encrypted directory index: to a
// multiple of 16, repeating the index from its start.
func tcPad16(b []byte) []byte {
	out := bytes.Clone(b)
	for i := len(b); len(out)%16 != 0; i++ {
		out = append(out, b[(i-len(b))%len(b)])
	}
	return out
}

// tcFileSet returns the (path, chunk) pairs of files, sorted.
func tcFileSet(files []iostore.IndexedFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path + "\x00" + string(rune(f.Chunk))
	}
	slices.Sort(out)
	return out
}

// TestDirectoryIndexCorpus: every directory index of the corpus encodes to
// its bytes (the encrypted one padded and encrypted as stored), the engine's
// writer order is reproduced by NewDirectoryIndex from the decoded files,
// and CommonMountPoint finds the stored mount point.
func TestDirectoryIndexCorpus(t *testing.T) {
	indexes, rebuilt := 0, 0
	for _, f := range tcCorpusTOCs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := iostore.DecodeTOC(filepath.Base(f), data)
		if err != nil {
			t.Fatal(err)
		}
		if d.DirectoryIndex == nil {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			raw := bytes.Clone(d.DirectoryIndex)
			encrypted := d.Header.Encryption() != iostore.EncryptionNone
			if encrypted {
				if err := tcECB(tcKey(), raw, false); err != nil {
					t.Fatal(err)
				}
			}
			x, err := iostore.DecodeDirectoryIndex(filepath.Base(f), raw, 0)
			if err != nil {
				t.Fatal(err)
			}
			plain := raw[:x.Size]
			out, err := x.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			tcSameBytes(t, out, plain)
			if encrypted {
				stored := tcPad16(out)
				if err := ue.EncryptECB(*tcKey(), stored); err != nil {
					t.Fatal(err)
				}
				tcSameBytes(t, stored, d.DirectoryIndex)
			}
			indexes++

			y, err := iostore.NewDirectoryIndex(x.MountPoint, x.Files)
			if err != nil {
				t.Fatal(err)
			}
			again, err := y.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			tcSameBytes(t, again, plain)
			if y.Size != len(plain) || !slices.Equal(y.Files, x.Files) {
				t.Errorf("rebuilt index: size %d, %d files", y.Size, len(y.Files))
			}
			rebuilt++

			full := make([]string, len(x.Files))
			for i, file := range x.Files {
				full[i] = x.MountPoint + file.Path
			}
			if mp := iostore.CommonMountPoint(full); mp != x.MountPoint {
				t.Errorf("CommonMountPoint %q, stored %q", mp, x.MountPoint)
			}
		})
	}
	if indexes == 0 {
		t.Fatal("no directory index in the corpus")
	}
	t.Logf("%d corpus directory indexes encode to their bytes; NewDirectoryIndex rebuilds %d byte for byte", indexes, rebuilt)
}

// tcFStr appends an FString in a given stored form: ANSI bytes (positive
// length) or UTF-16 units (negative length), both with the terminating zero.
func tcFStr(b []byte, ansi []byte, units []uint16) []byte {
	le := binary.LittleEndian
	if units == nil {
		b = le.AppendUint32(b, uint32(len(ansi)+1))
		return append(append(b, ansi...), 0)
	}
	b = le.AppendUint32(b, uint32(-int32(len(units)+1)))
	for _, u := range units {
		b = le.AppendUint16(b, u)
	}
	return le.AppendUint16(b, 0)
}

// TestDirectoryIndexKeptStrings: strings stored in a form the engine does
// not write (Latin-1 bytes, ASCII as UTF-16, an empty string with its
// zero) come back as stored while unchanged; a changed one is written the
// engine's way.
func TestDirectoryIndexKeptStrings(t *testing.T) {
	le := binary.LittleEndian
	b := tcFStr(nil, nil, utf16.Encode([]rune("../../../Jeu/"))) // ASCII as UTF-16
	b = le.AppendUint32(b, 2)
	b = append(b, tcU32s(iostore.NoEntry, 1, iostore.NoEntry, iostore.NoEntry)...)
	b = append(b, tcU32s(0, iostore.NoEntry, iostore.NoEntry, 0)...)
	b = le.AppendUint32(b, 1)
	b = append(b, tcU32s(1, iostore.NoEntry, 7)...)
	b = le.AppendUint32(b, 3)
	b = tcFStr(b, []byte("Cartes"), nil)
	b = tcFStr(b, []byte("Gr\xf6\xdfe.uasset"), nil) // Latin-1
	b = tcFStr(b, nil, nil)                          // "" with its zero
	x, err := iostore.DecodeDirectoryIndex("Kept.utoc", b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if x.MountPoint != "../../../Jeu/" || len(x.Files) != 1 || x.Files[0].Path != "Cartes/Größe.uasset" {
		t.Fatalf("decoded %q %+v", x.MountPoint, x.Files)
	}
	out, err := x.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	tcSameBytes(t, out, b)

	x.StringTable[1] = "Größer.uasset"
	x.MountPoint = "../../../Jeu2/"
	out, err = x.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := tcFStr(nil, []byte("../../../Jeu2/"), nil)
	if !bytes.HasPrefix(out, want) {
		t.Errorf("changed mount point written as % x", out[:len(want)])
	}
	y, err := iostore.DecodeDirectoryIndex("Changed.utoc", out, 0)
	if err != nil || y.Files[0].Path != "Cartes/Größer.uasset" || y.StringTable[2] != "" {
		t.Fatalf("%v %+v", err, y)
	}
	if !bytes.Contains(out, tcFStr(nil, nil, utf16.Encode([]rune("Größer.uasset")))) {
		t.Errorf("changed name not written as UTF-16")
	}
}

// TestNewDirectoryIndexEngineOrder checks the engine's writer order on a
// small tree: files taken by chunk, new directories and files put first in
// their lists, names in order of first use.
func TestNewDirectoryIndexEngineOrder(t *testing.T) {
	files := []iostore.IndexedFile{
		{Path: "Maps/Level.umap", Chunk: 2},
		{Path: "Data/Items.uasset", Chunk: 0},
		{Path: "Data/Sub/Deep.uasset", Chunk: 3},
		{Path: "Root.txt", Chunk: 5},
		{Path: "Data/Other.uasset", Chunk: 1},
	}
	x, err := iostore.NewDirectoryIndex("../../../Game/Content/", files)
	if err != nil {
		t.Fatal(err)
	}
	const no = iostore.NoEntry
	wantStrings := []string{"Data", "Items.uasset", "Other.uasset", "Maps", "Level.umap", "Sub", "Deep.uasset", "Root.txt"}
	wantDirs := []iostore.DirectoryEntry{
		{Name: no, FirstChild: 2, NextSibling: no, FirstFile: 4},
		{Name: 0, FirstChild: 3, NextSibling: no, FirstFile: 1},
		{Name: 3, FirstChild: no, NextSibling: 1, FirstFile: 2},
		{Name: 5, FirstChild: no, NextSibling: no, FirstFile: 3},
	}
	wantFiles := []iostore.FileEntry{
		{Name: 1, NextFile: no, UserData: 0},
		{Name: 2, NextFile: 0, UserData: 1},
		{Name: 4, NextFile: no, UserData: 2},
		{Name: 6, NextFile: no, UserData: 3},
		{Name: 7, NextFile: no, UserData: 5},
	}
	if !slices.Equal(x.StringTable, wantStrings) || !slices.Equal(x.DirectoryEntries, wantDirs) || !slices.Equal(x.FileEntries, wantFiles) {
		t.Fatalf("strings %q\ndirs %+v\nfiles %+v", x.StringTable, x.DirectoryEntries, x.FileEntries)
	}
	var walk []string
	for _, f := range x.Files {
		walk = append(walk, f.Path)
	}
	if want := []string{"Root.txt", "Maps/Level.umap", "Data/Other.uasset", "Data/Items.uasset", "Data/Sub/Deep.uasset"}; !slices.Equal(walk, want) {
		t.Errorf("walk order %q", walk)
	}
	out, err := x.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := iostore.DecodeDirectoryIndex("New.utoc", out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if x.Size != len(out) || d.MountPoint != x.MountPoint || !slices.Equal(tcFileSet(d.Files), tcFileSet(files)) {
		t.Errorf("decodes to %q %+v", d.MountPoint, d.Files)
	}
	// The input order does not matter, only the chunks.
	slices.Reverse(files)
	y, err := iostore.NewDirectoryIndex("../../../Game/Content/", files)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := y.AppendBinary(nil); !bytes.Equal(again, out) {
		t.Errorf("input order changed the index")
	}
	// No files: the root alone, as the engine writes it.
	e, err := iostore.NewDirectoryIndex("../../../", nil)
	if err != nil || len(e.DirectoryEntries) != 1 || len(e.FileEntries) != 0 || len(e.StringTable) != 0 {
		t.Fatalf("%v %+v", err, e)
	}
}

// TestNewDirectoryIndexRefuses: paths the index cannot hold, or that the
// engine's writer would merge or lose, are refused naming the file.
func TestNewDirectoryIndexRefuses(t *testing.T) {
	long := strings.Repeat("a/", iostore.MaxPathLen/2) + "b"
	tests := []struct {
		name      string
		mount     string
		paths     []string
		chunks    []uint32 // default 0, 1, 2, ...
		structure string
		words     []string
	}{
		{"empty path", "m/", []string{""}, nil, `directory index file 0 ("")`, []string{"empty path"}},
		{"leading slash", "m/", []string{"/a"}, nil, `directory index file 0 ("/a")`, []string{"empty path component"}},
		{"trailing slash", "m/", []string{"a/"}, nil, `directory index file 0 ("a/")`, []string{"empty path component"}},
		{"double slash", "m/", []string{"ok", "a//b"}, nil, `directory index file 1 ("a//b")`, []string{"empty path component"}},
		{"dot", "m/", []string{"./a"}, nil, `directory index file 0 ("./a")`, []string{`component "."`}},
		{"dot dot", "m/", []string{"a/../b"}, nil, `directory index file 0 ("a/../b")`, []string{`component ".."`}},
		{"backslash", "m/", []string{`a\b`}, nil, `directory index file 0 ("a\\b")`, []string{"backslash"}},
		{"NUL", "m/", []string{"a\x00b"}, nil, `directory index file 0 ("a\x00b")`, []string{"NUL"}},
		{"invalid UTF-8", "m/", []string{"a\xffb"}, nil, `directory index file 0 ("a\xffb")`, []string{"UTF-8"}},
		{"too long", "m/", []string{long}, nil, "directory index file 0 (" + `"` + long + `"` + ")", []string{"longer than 1024"}},
		{"same path", "m/", []string{"A/b", "A/c", "A/b"}, nil, `directory index file 2 ("A/b")`, []string{"same path as file 0"}},
		{"same path but case", "m/", []string{"A/b", "a/B"}, nil, `directory index file 1 ("a/B")`, []string{"same path as file 0"}},
		{"directory case", "m/", []string{"Maps/a", "maps/b"}, nil, `directory index file 1 ("maps/b")`, []string{`"maps" differs only in case from "Maps" in file 0`}},
		{"file and directory case", "m/", []string{"Data/x", "y/data"}, nil, `directory index file 1 ("y/data")`, []string{`"data" differs only in case from "Data"`}},
		{"chunk twice", "m/", []string{"a", "b"}, []uint32{4, 4}, `directory index file 1 ("b")`, []string{"chunk 4 already has a path (file 0"}},
		{"mount point without slash", "../../../Game", []string{"a"}, nil, "directory index mount point", []string{"does not end in '/'"}},
		{"mount point with backslash", `..\Game/`, []string{"a"}, nil, "directory index mount point", []string{"backslash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := make([]iostore.IndexedFile, len(tt.paths))
			for i, p := range tt.paths {
				files[i] = iostore.IndexedFile{Path: p, Chunk: uint32(i)}
				if tt.chunks != nil {
					files[i].Chunk = tt.chunks[i]
				}
			}
			x, err := iostore.NewDirectoryIndex(tt.mount, files)
			if x != nil {
				t.Errorf("returned an index with the error")
			}
			tcCheckEncodeErr(t, err, "", tt.structure, tt.words...)
		})
	}
}

// TestDirectoryIndexAppendBinaryRefuses: what DecodeDirectoryIndex would
// reject is not written.
func TestDirectoryIndexAppendBinaryRefuses(t *testing.T) {
	good := func() *iostore.DirectoryIndex {
		x, err := iostore.NewDirectoryIndex("../../../G/", []iostore.IndexedFile{{Path: "A/b", Chunk: 0}, {Path: "c", Chunk: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	tests := []struct {
		name      string
		edit      func(x *iostore.DirectoryIndex)
		structure string
		words     []string
	}{
		{"mount point NUL", func(x *iostore.DirectoryIndex) { x.MountPoint = "a\x00" }, "directory index mount point", []string{"not valid text"}},
		{"string not UTF-8", func(x *iostore.DirectoryIndex) { x.StringTable = append(x.StringTable, "\xff") }, "directory index string 3", []string{"UTF-8"}},
		{"child out of range", func(x *iostore.DirectoryIndex) { x.DirectoryEntries[1].FirstChild = 9 }, "directory index directory entry 1", []string{"first child 9"}},
		{"file out of range", func(x *iostore.DirectoryIndex) { x.DirectoryEntries[0].FirstFile = 9 }, "directory index directory entry 0", []string{"first file 9"}},
		{"name out of range", func(x *iostore.DirectoryIndex) { x.FileEntries[0].Name = 9 }, "directory index file entry 0", []string{"outside the 3-entry string table"}},
		{"bad name", func(x *iostore.DirectoryIndex) { x.StringTable[0] = ".." }, "directory index directory entry 1", []string{"not a plain path component"}},
		{"cycle", func(x *iostore.DirectoryIndex) { x.DirectoryEntries[1].FirstChild = 1 }, "directory index directory entry 1", []string{"reached twice"}},
		{"shared file list", func(x *iostore.DirectoryIndex) { x.FileEntries[1].NextFile = 0 }, "directory index file entry 0", []string{"reached twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := good()
			if _, err := x.AppendBinary(nil); err != nil {
				t.Fatal(err)
			}
			tt.edit(x)
			out, err := x.MarshalBinary()
			if out != nil {
				t.Errorf("returned %d bytes with the error", len(out))
			}
			tcCheckEncodeErr(t, err, "", tt.structure, tt.words...)
		})
	}
}

// TestCommonMountPoint follows the engine's rule: the longest common
// directory, case ignored, spelled as the deepest path spells it.
func TestCommonMountPoint(t *testing.T) {
	tests := []struct {
		paths []string
		want  string
	}{
		{[]string{"../../../Maine/Content/A/x.uasset", "../../../Maine/Content/B/y.uasset"}, "../../../Maine/Content/"},
		{[]string{"../../../G/Content/Maps/a.umap"}, "../../../G/Content/Maps/"},
		{[]string{"../../../Engine/Content/a", "../../../Game/Content/b"}, "../../../"},
		{[]string{"../../../game/Content/A/x", "../../../Game/Content/B/C/y"}, "../../../Game/Content/"},
		{[]string{"../../../Gam/x", "../../../Game/y"}, "../../../"},
		{[]string{"../../../G/a", "../../../G/B/c"}, "../../../G/"},
		{[]string{"a/x", "b/y"}, ""},
		{[]string{"x"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := iostore.CommonMountPoint(tt.paths); got != tt.want {
			t.Errorf("CommonMountPoint(%q) = %q, want %q", tt.paths, got, tt.want)
		}
	}
}
