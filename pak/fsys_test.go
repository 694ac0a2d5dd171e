package pak_test

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
)

// TestFS checks the io/fs view of written paks of both index layouts with
// testing/fstest.
func TestFS(t *testing.T) {
	files := testFiles()
	var names []string
	for _, f := range files {
		names = append(names, f.path)
	}
	for _, v := range []pak.Version{3, 8, 11, 12} {
		r := decodePak(t, writePak(t, &pak.WriterOptions{Version: v, Compress: true}, files), nil)
		if err := fstest.TestFS(r, names...); err != nil {
			t.Errorf("version %d: %v", v, err)
		}
		got, err := fs.ReadFile(r, "Game/Config/DefaultGame.ini")
		if err != nil || !bytes.Equal(got, files[0].data) {
			t.Errorf("version %d: fs.ReadFile: %d bytes, %v", v, len(got), err)
		}
		entries, err := fs.ReadDir(r, "Game/Content")
		var dir []string
		for _, e := range entries {
			dir = append(dir, e.Name())
		}
		if want := []string{"Empty.txt", "Localization", "Noise.bin"}; err != nil || !slices.Equal(dir, want) {
			t.Errorf("version %d: ReadDir(Game/Content) = %q, %v; want %q", v, dir, err, want)
		}
		if _, err := r.Open("game/config/defaultgame.ini"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("version %d: Open compares paths exactly, got %v", v, err)
		}
	}
}

// TestFSCorpus walks the corpus paks as file systems (those whose files
// unrmod can read: not the Oodle ones).
func TestFSCorpus(t *testing.T) {
	for _, tc := range corpusPaks {
		if tc.digest == "" {
			continue
		}
		r, err := pak.Open(corpus.Path(t, tc.rel), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range r.Files {
			names = append(names, f.Path)
		}
		if err := fstest.TestFS(r, names...); err != nil {
			t.Errorf("%s: %v", tc.rel, err)
		}
		r.Close()
	}
}

// TestFSFileAndDirectory: a pak may hold a file "a" and a file "a/b"; the
// file system view keeps the directory.
func TestFSFileAndDirectory(t *testing.T) {
	r := decodePak(t, writePak(t, nil, []testFile{{"a", []byte("file")}, {"a/b", []byte("b")}}), nil)
	if st, err := fs.Stat(r, "a"); err != nil || !st.IsDir() {
		t.Errorf("Stat(a) = %v, %v; want a directory", st, err)
	}
	if got, err := fs.ReadFile(r, "a/b"); err != nil || string(got) != "b" {
		t.Errorf("ReadFile(a/b) = %q, %v", got, err)
	}
	if got, err := r.ReadFile("a"); err != nil || string(got) != "file" {
		t.Errorf("Reader.ReadFile(a) = %q, %v; the file is still there", got, err)
	}
}
