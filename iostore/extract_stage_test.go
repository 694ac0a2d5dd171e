package iostore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fstree"
	"github.com/unrmod/unrmod/internal/inflate/inflatetest"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
)

// stageFiles builds a Zlib container of bulk-data chunks under
// Game/Content/, chunk i of 200*(len(paths)-i) bytes (so that one worker
// writes them in order), with the last chunk's stored bytes damaged when
// broken.
func stageFiles(t *testing.T, broken bool, paths ...string) *iostore.Container {
	t.Helper()
	b := &iostorebuild.Container{Version: iostore.VersionReplaceIoChunkHashWithIoHash, MountPoint: "../../../Game/Content/", Method: "Zlib"}
	for i, p := range paths {
		id, err := iostore.NewChunkID(uint64(i+1), 0, iostore.ChunkBulkData, b.Version)
		if err != nil {
			t.Fatal(err)
		}
		ch := iostorebuild.Chunk{ID: id, Path: p, Data: tcData(uint64(i), 200*(len(paths)-i))}
		if broken && i == len(paths)-1 {
			ch.Blocks = [][]byte{inflatetest.Encode(t, inflatetest.Encoders[3], append([]byte{^ch.Data[0]}, ch.Data[1:]...))}
		}
		b.Chunks = append(b.Chunks, ch)
	}
	return tcBuildOpen(t, b, "Stage", nil)
}

var stagePaths = []string{"Maps/A.ubulk", "Maps/Sub/B.ubulk", "C.ubulk", "Other/D.ubulk"}

// An extract into a folder that does not exist writes the tree beside it
// and renames it into place at the end: while it runs there is no output
// folder, and a failure (a damaged chunk found after other files were
// written, an interrupt) leaves neither the folder nor a temporary one, nor
// the folders above it that it created. Into an existing folder the files
// are merged, the files there kept.
func TestExtractStagesNewFolder(t *testing.T) {
	all := []string{"out/", "out/Game/", "out/Game/Content/", "out/Game/Content/C.ubulk", "out/Game/Content/Maps/",
		"out/Game/Content/Maps/A.ubulk", "out/Game/Content/Maps/Sub/", "out/Game/Content/Maps/Sub/B.ubulk",
		"out/Game/Content/Other/", "out/Game/Content/Other/D.ubulk"}
	tests := []struct {
		name      string
		out       string // the output folder, relative to the parent
		broken    bool
		interrupt bool
		existing  bool // the output folder exists and holds Keep.txt and an old A.ubulk
		sync      bool
		want      []string // the parent's tree afterwards; nil: the extract fails
	}{
		{name: "new folder", out: "out", want: all},
		{name: "new folder with sync", out: "out", sync: true, want: all},
		{name: "new folder under new folders", out: "a/b/out", want: append([]string{"a/", "a/b/"}, prefixAll("a/b/", all)...)},
		{name: "a damaged chunk after other files", out: "out", broken: true},
		{name: "a damaged chunk under new folders", out: "a/b/out", broken: true},
		{name: "interrupted", out: "out", interrupt: true},
		{name: "existing folder", out: "out", existing: true, want: append(all, "out/Keep.txt")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := stageFiles(t, tt.broken, stagePaths...)
			parent := t.TempDir()
			dir := filepath.Join(parent, filepath.FromSlash(tt.out))
			if tt.existing {
				os.MkdirAll(filepath.Join(dir, "Game", "Content", "Maps"), 0o755)
				os.WriteFile(filepath.Join(dir, "Keep.txt"), []byte("mine"), 0o644)
				os.WriteFile(filepath.Join(dir, "Game", "Content", "Maps", "A.ubulk"), []byte("old"), 0o644)
			}
			s := &safefile.Session{LockDir: t.TempDir()}
			var once sync.Once
			var during []string
			opts := &iostore.ExtractOptions{Session: s, Workers: 1, Sync: tt.sync, Progress: func(done, total int64) {
				once.Do(func() {
					if !tt.existing {
						if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("the output folder exists while the extract runs: %v", err)
						}
						ents, _ := os.ReadDir(filepath.Dir(dir))
						for _, e := range ents {
							during = append(during, e.Name())
						}
					}
					if tt.interrupt {
						s.Interrupt()
					}
				})
			}}
			res, err := c.Extract(dir, opts)
			if !tt.existing && (len(during) != 1 || !safefile.IsTempOf(during[0], "out")) {
				t.Errorf("while the extract ran, the parent held %q, want one staging folder", during)
			}
			got := fstree.List(parent)
			if tt.want == nil {
				if err == nil {
					t.Fatal("the extract succeeded")
				}
				if tt.interrupt && !errors.Is(err, safefile.ErrInterrupted) {
					t.Errorf("interrupted extract: %v", err)
				}
				if len(got) != 0 {
					t.Errorf("the failed extract left %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("left\n%q, want\n%q", got, tt.want)
			}
			if res.Files != len(stagePaths) || len(res.Paths) != len(stagePaths) || res.Paths[0] != "Game/Content/"+stagePaths[0] {
				t.Errorf("result %d files, paths %q", res.Files, res.Paths)
			}
			for i, p := range stagePaths {
				b, err := os.ReadFile(filepath.Join(dir, "Game", "Content", filepath.FromSlash(p)))
				if err != nil || string(b) != string(tcData(uint64(i), 200*(len(stagePaths)-i))) {
					t.Errorf("%s: wrong contents (%v)", p, err)
				}
			}
			if tt.existing {
				if b, _ := os.ReadFile(filepath.Join(dir, "Keep.txt")); string(b) != "mine" {
					t.Errorf("Keep.txt holds %q", b)
				}
			}
		})
	}
}

// prefixAll returns each of list with prefix before it.
func prefixAll(prefix string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = prefix + s
	}
	return out
}

// A staging folder a killed extract left beside the output folder is
// removed by the next extract into it, and its files are never taken for
// output; a folder of another name stays.
func TestExtractRemovesLeftoverStagingFolder(t *testing.T) {
	for _, existing := range []bool{false, true} {
		name := "new folder"
		if existing {
			name = "existing folder"
		}
		t.Run(name, func(t *testing.T) {
			c := stageFiles(t, false, stagePaths...)
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if existing {
				os.MkdirAll(dir, 0o755)
			}
			left := filepath.Join(parent, safefile.TempName("out", "31337"))
			os.MkdirAll(filepath.Join(left, "Game", "Content", "Maps"), 0o755)
			os.WriteFile(filepath.Join(left, "Game", "Content", "Maps", "A.ubulk"), []byte("half"), 0o644)
			os.WriteFile(filepath.Join(left, "Game", "Content", "Stray.ubulk"), []byte("stray"), 0o644)
			var log []string
			s := &safefile.Session{LockDir: t.TempDir(), Log: func(m string) { log = append(log, m) }}
			if _, err := c.Extract(dir, &iostore.ExtractOptions{Session: s}); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(parent)
			if len(ents) != 1 || ents[0].Name() != "out" {
				t.Errorf("the parent holds %v, want out alone", ents)
			}
			if _, err := os.Stat(filepath.Join(dir, "Game", "Content", "Stray.ubulk")); err == nil {
				t.Error("a file of the leftover staging folder became output")
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "Game", "Content", "Maps", "A.ubulk")); string(b) != string(tcData(0, 800)) {
				t.Error("A.ubulk is not the new file")
			}
			if len(log) != 1 || log[0] != "removed 1 temporary folder a killed unrmod run left in "+parent {
				t.Errorf("log %q", log)
			}
		})
	}
}

// Two extracts into the same new folder at once: the lock on it lets one
// stage and rename the folder; the other waits and then merges the same
// files into it, or, when it may not wait long enough, fails and writes
// nothing. Never a torn tree or a leftover staging folder.
func TestExtractConcurrentIntoNewFolder(t *testing.T) {
	for _, wait := range []time.Duration{time.Minute, time.Nanosecond} {
		t.Run(wait.String(), func(t *testing.T) {
			c := stageFiles(t, false, stagePaths...)
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			lockDir := t.TempDir()
			// The first run holds the lock until the second has tried.
			first := &safefile.Session{LockDir: lockDir}
			started := make(chan struct{})
			release := make(chan struct{})
			var wg sync.WaitGroup
			var errFirst, errSecond error
			wg.Add(2)
			go func() {
				defer wg.Done()
				var once sync.Once
				_, errFirst = c.Extract(dir, &iostore.ExtractOptions{Session: first, Workers: 1, Progress: func(done, total int64) {
					once.Do(func() { close(started); <-release })
				}})
			}()
			go func() {
				defer wg.Done()
				<-started
				second := &safefile.Session{LockDir: lockDir, LockWait: wait, Log: func(string) {
					select {
					case <-release:
					default:
						close(release) // it waits: let the first go on
					}
				}}
				_, errSecond = c.Extract(dir, &iostore.ExtractOptions{Session: second})
			}()
			wg.Wait()
			if errFirst != nil {
				t.Fatalf("first: %v", errFirst)
			}
			if wait == time.Minute && errSecond != nil {
				t.Errorf("second, waiting: %v", errSecond)
			}
			if wait != time.Minute && (errSecond == nil || !strings.Contains(errSecond.Error(), "another unrmod run")) {
				t.Errorf("second, not waiting: %v", errSecond)
			}
			ents, _ := os.ReadDir(parent)
			if len(ents) != 1 || ents[0].Name() != "out" {
				t.Errorf("the parent holds %v, want out alone", ents)
			}
			for i, p := range stagePaths {
				b, err := os.ReadFile(filepath.Join(dir, "Game", "Content", filepath.FromSlash(p)))
				if err != nil || string(b) != string(tcData(uint64(i), 200*(len(stagePaths)-i))) {
					t.Errorf("%s: wrong contents (%v)", p, err)
				}
			}
			if n := len(fstree.List(dir)); n != 9 {
				t.Errorf("the output holds %d entries, want 9: %q", n, fstree.List(dir))
			}
		})
	}
}
