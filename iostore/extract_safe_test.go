package iostore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fstree"
	"github.com/unrmod/unrmod/internal/inflate/inflatetest"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
)

// tcFiles builds a container of files with the given paths under
// Game/Content/ (each a bulk-data chunk of a few bytes).
func tcFiles(t *testing.T, paths ...string) *iostore.Container {
	t.Helper()
	b := &iostorebuild.Container{Version: iostore.VersionReplaceIoChunkHashWithIoHash, MountPoint: "../../../Game/Content/", Method: "Zlib"}
	for i, p := range paths {
		id, err := iostore.NewChunkID(uint64(i+1), 0, iostore.ChunkBulkData, b.Version)
		if err != nil {
			t.Fatal(err)
		}
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: p, Data: tcData(uint64(i), 200)})
	}
	return tcBuildOpen(t, b, "Names", nil)
}

// Extract checks every destination before the first rename: a failure
// leaves no new file under a real name, and no folder it created.
func TestExtractChecksDestinations(t *testing.T) {
	long := strings.Repeat("n", 240) + ".ubulk" // a legal name whose temporary name is longer than 255 bytes
	tests := []struct {
		name  string
		paths []string
		setup func(dir string) // the output folder exists when setup is set
		want  string           // the error; "" for success
	}{
		{"a folder where a file goes", []string{"Maps/A.ubulk", "Maps/B.ubulk"}, func(dir string) {
			os.MkdirAll(filepath.Join(dir, "Game/Content/Maps/B.ubulk"), 0o755)
		}, "the folder B.ubulk is in the way"},
		{"a folder whose name differs in case", []string{"Maps/A.ubulk", "Maps/B.ubulk"}, func(dir string) {
			os.MkdirAll(filepath.Join(dir, "Game/Content/Maps/b.UBULK"), 0o755)
		}, "the folder b.UBULK is in the way"},
		// (The Writer refuses names that differ only in case; one in NFC
		// and one in NFD it takes.)
		{"two names that differ in Unicode normalisation and case", []string{"Caf\u00e9.ubulk", "CAFE\u0301.ubulk"}, nil, "is also the path of chunk"},
		{"a name too long for any file system", []string{"A.ubulk", strings.Repeat("x", 300) + ".ubulk"}, nil, "file systems take at most 255"},
		{"a long name whose temporary name is shortened", []string{"A.ubulk", long}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tcFiles(t, tt.paths...)
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if tt.setup != nil {
				os.MkdirAll(dir, 0o755)
				tt.setup(dir)
			}
			before := fstree.List(parent)
			res, err := c.Extract(dir, &iostore.ExtractOptions{Sync: true})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if res.Files != len(tt.paths) {
					t.Errorf("%d files", res.Files)
				}
				for _, p := range tt.paths {
					if _, err := os.Stat(filepath.Join(dir, "Game", "Content", p)); err != nil {
						t.Error(err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
			if after := fstree.List(parent); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("the failed extract left\n%s\nin a folder that held\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
			}
		})
	}
}

// A failed extract (a chunk that fails its hash, found while writing)
// removes the folders it created, and leaves the ones that were there.
func TestExtractFailureRemovesNewFolders(t *testing.T) {
	b := tcSynthetic(t, iostore.VersionReplaceIoChunkHashWithIoHash, "Zlib", nil)
	b.Chunks[0].Data = append([]byte(nil), b.Chunks[0].Data...)
	b.Chunks[0].Blocks = [][]byte{inflatetest.Encode(t, inflatetest.Encoders[3], append([]byte{0xFF}, b.Chunks[0].Data[1:]...))}
	c := tcBuildOpen(t, b, "Broken", nil)
	parent := t.TempDir()
	os.MkdirAll(filepath.Join(parent, "out", "Maine"), 0o755)
	_, err := c.Extract(filepath.Join(parent, "out", "new"), nil)
	if !errors.Is(err, iostore.ErrHashMismatch) {
		t.Fatalf("extract: %v", err)
	}
	if got := fstree.List(parent); strings.Join(got, " ") != "out/ out/Maine/" {
		t.Errorf("left %q", got)
	}
	_, err = c.Extract(filepath.Join(parent, "out"), nil)
	if !errors.Is(err, iostore.ErrHashMismatch) {
		t.Fatalf("extract: %v", err)
	}
	if got := fstree.List(parent); strings.Join(got, " ") != "out/ out/Maine/" {
		t.Errorf("left %q", got)
	}
}

// Extracting with a Session removes the temporary files a killed run left
// beside the files it writes, says so, and locks the output folder.
func TestExtractRemovesLeftovers(t *testing.T) {
	c := tcFiles(t, "Maps/A.ubulk", "Maps/B.ubulk")
	dir := t.TempDir()
	maps := filepath.Join(dir, "Game", "Content", "Maps")
	os.MkdirAll(maps, 0o755)
	left := []string{safefile.TempName("A.ubulk", "4242"), safefile.TempName("B.ubulk", "17")}
	for _, n := range append(left, ".Notes.txt.unrmod-1.tmp", "Notes.txt") {
		os.WriteFile(filepath.Join(maps, n), []byte("x"), 0o644)
	}
	var log []string
	s := &safefile.Session{LockDir: t.TempDir(), Log: func(m string) { log = append(log, m) }}
	if _, err := c.Extract(dir, &iostore.ExtractOptions{Session: s}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Game/", "Game/Content/", "Game/Content/Maps/", "Game/Content/Maps/.Notes.txt.unrmod-1.tmp",
		"Game/Content/Maps/A.ubulk", "Game/Content/Maps/B.ubulk", "Game/Content/Maps/Notes.txt"}
	if got := fstree.List(dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %q, want %q", got, want)
	}
	if len(log) != 1 || log[0] != "removed 2 temporary files a killed unrmod run left in "+maps {
		t.Errorf("log %q", log)
	}
	// Another run holds the folder: this one waits, then fails.
	other := &safefile.Session{LockDir: s.LockDir}
	l, err := other.Lock(safefile.Use{Path: dir, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	s.LockWait = 100 * time.Millisecond
	if _, err := c.Extract(dir, &iostore.ExtractOptions{Session: s}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("extract into a folder another run writes: %v", err)
	}
}
