package pak_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fstree"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// readTree returns the files under dir by '/'-separated relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExtractCorpus extracts the engine's uncompressed and Zlib paks of
// the same assets and checks that they give the same files, byte for
// byte, under the mount point's path; and that the Grounded and companion
// paks extract every file they list.
func TestExtractCorpus(t *testing.T) {
	const tagged = "pak/cue4parse_ue5_8/LegacyPak/Tagged/"
	extract := func(rel string) (map[string][]byte, *pak.ExtractResult) {
		r, err := pak.Open(corpus.Path(t, rel), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		dir := t.TempDir()
		res, err := r.Extract(dir, nil)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if n := len(r.Files); res.Files != n || len(res.Paths) != n {
			t.Fatalf("%s: extracted %d files, the pak lists %d", rel, res.Files, n)
		}
		return readTree(t, dir), res
	}
	plain, res := extract(tagged + "Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak")
	zlib, _ := extract(tagged + "Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak")
	if len(plain) != 11 || len(zlib) != len(plain) || res.Bytes != 200611 {
		t.Fatalf("%d and %d files (%d bytes), want 11 each (200611 bytes)", len(plain), len(zlib), res.Bytes)
	}
	for p, b := range plain {
		if !bytes.Equal(zlib[p], b) {
			t.Errorf("%s differs between the uncompressed and the Zlib pak", p)
		}
	}
	if _, ok := plain["CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset"]; !ok {
		t.Errorf("no file under the mount point's path; got %v", res.Paths)
	}
	for _, rel := range []string{
		"other/grounded/500-CreativeUnlock_P.pak",
		"other/grounded/Packed_P.pak",
		"other/grounded/UnrealReZen_Packed_P.pak",
		"other/grounded/UnrealUnZen_Packed_P.pak",
		"pak/cue4parse_ue5_8/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak",
		"other/cue4parse_ue5_8/CUE4ParseFixtures-PatchBase.pak",
	} {
		extract(rel)
	}
}

// TestExtractFailureLeavesNothing damages the last file of a pak: the
// extract fails with its hash mismatch, and leaves no file and no folder.
func TestExtractFailureLeavesNothing(t *testing.T) {
	orig, err := os.ReadFile(corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := pak.Decode(bytes.NewReader(orig), int64(len(orig)), "x.pak", nil)
	if err != nil {
		t.Fatal(err)
	}
	last := r.Files[len(r.Files)-1]
	b := bytes.Clone(orig)
	b[last.DataOffset()+last.Size-1] ^= 0x55
	r, err = pak.Decode(bytes.NewReader(b), int64(len(b)), "x.pak", nil)
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	_, err = r.Extract(dir, nil)
	var fe *ue.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, pak.ErrHashMismatch) {
		t.Fatalf("extract of a damaged pak: %v, want a hash mismatch", err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("the failed extract left %v", ents)
	}
}

// TestExtractRefusesOutside checks that a path leaving the output folder
// is refused before anything is written.
func TestExtractRefusesOutside(t *testing.T) {
	for _, mount := range []string{"../../../Game/../../", "C:/Game/"} {
		b := writePak(t, &pak.WriterOptions{MountPoint: mount}, []testFile{{"a.txt", []byte("a")}})
		r := decodePak(t, b, nil)
		dir := filepath.Join(t.TempDir(), "out")
		if _, err := r.Extract(dir, nil); !errors.Is(err, pak.ErrCorrupt) {
			t.Errorf("mount %q: %v, want a refusal", mount, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("mount %q: the output folder was created", mount)
		}
	}
}

// TestExtractStagesNewFolder extracts the engine's Tagged pak into a folder
// that does not exist: while the extract runs there is no output folder,
// only a staging folder beside it; success renames it into place whole,
// and a failure (the last file damaged, found after the others were
// written; an interrupt) leaves neither, nor the folders above it that it
// created. Into an existing folder the files are merged, the files there
// kept.
func TestExtractStagesNewFolder(t *testing.T) {
	const rel = "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"
	orig, err := os.ReadFile(corpus.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	good, err := pak.Decode(bytes.NewReader(orig), int64(len(orig)), "x.pak", nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	if _, err := good.Extract(filepath.Join(ref, "out"), nil); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, filepath.Join(ref, "out"))
	tests := []struct {
		name      string
		out       string
		damaged   bool
		interrupt bool
		existing  bool // the folder holds Keep.txt and an old copy of a file
		sync      bool
		fails     bool
	}{
		{name: "new folder", out: "out"},
		{name: "new folder with sync", out: "out", sync: true},
		{name: "new folder under new folders", out: "a/b/out"},
		{name: "the last file damaged", out: "out", damaged: true, fails: true},
		{name: "the last file damaged, under new folders", out: "a/b/out", damaged: true, fails: true},
		{name: "interrupted", out: "out", interrupt: true, fails: true},
		{name: "existing folder", out: "out", existing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := orig
			if tt.damaged {
				last := good.Files[len(good.Files)-1]
				b = bytes.Clone(orig)
				b[last.DataOffset()+last.Size-1] ^= 0x55
			}
			r, err := pak.Decode(bytes.NewReader(b), int64(len(b)), "x.pak", nil)
			if err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			dir := filepath.Join(parent, filepath.FromSlash(tt.out))
			var some string
			for p := range want {
				some = p
				break
			}
			if tt.existing {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(filepath.FromSlash(some))), 0o755)
				os.WriteFile(filepath.Join(dir, "Keep.txt"), []byte("mine"), 0o644)
				os.WriteFile(filepath.Join(dir, filepath.FromSlash(some)), []byte("old"), 0o644)
			}
			s := &safefile.Session{LockDir: t.TempDir()}
			var during []string
			checked := false
			opts := &pak.ExtractOptions{Session: s, Sync: tt.sync, Progress: func(done, total int64) {
				if checked || done == 0 {
					return
				}
				checked = true
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
			}}
			res, err := r.Extract(dir, opts)
			if !tt.existing && (len(during) != 1 || !safefile.IsTempOf(during[0], "out")) {
				t.Errorf("while the extract ran, the parent held %q, want one staging folder", during)
			}
			if tt.fails {
				if err == nil {
					t.Fatal("the extract succeeded")
				}
				if tt.damaged && !errors.Is(err, pak.ErrHashMismatch) {
					t.Errorf("extract of a damaged pak: %v", err)
				}
				if tt.interrupt && !errors.Is(err, safefile.ErrInterrupted) {
					t.Errorf("interrupted extract: %v", err)
				}
				if got := fstree.List(parent); len(got) != 0 {
					t.Errorf("the failed extract left %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Files != len(want) {
				t.Errorf("%d files, want %d", res.Files, len(want))
			}
			got := readTree(t, dir)
			if tt.existing {
				if string(got["Keep.txt"]) != "mine" {
					t.Errorf("Keep.txt holds %q", got["Keep.txt"])
				}
				delete(got, "Keep.txt")
			}
			if len(got) != len(want) {
				t.Errorf("%d files in the output, want %d", len(got), len(want))
			}
			for p, b := range want {
				if !bytes.Equal(got[p], b) {
					t.Errorf("%s differs", p)
				}
			}
			if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
				t.Errorf("beside the output: %v", ents)
			}
		})
	}
}

// TestExtractRemovesLeftoverStagingFolder: a staging folder a killed
// extract left beside the output folder is removed by the next extract,
// and its files never become output.
func TestExtractRemovesLeftoverStagingFolder(t *testing.T) {
	r, err := pak.Open(corpus.Path(t, "pak/cue4parse_ue5_8/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	left := filepath.Join(parent, safefile.TempName("out", "31337"))
	os.MkdirAll(filepath.Join(left, "Game"), 0o755)
	os.WriteFile(filepath.Join(left, "Game", "Stray.uasset"), []byte("stray"), 0o644)
	var log []string
	s := &safefile.Session{LockDir: t.TempDir(), Log: func(m string) { log = append(log, m) }}
	res, err := r.Extract(dir, &pak.ExtractOptions{Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 || ents[0].Name() != "out" {
		t.Errorf("the parent holds %v, want out alone", ents)
	}
	if got := readTree(t, dir); len(got) != res.Files || got["Game/Stray.uasset"] != nil {
		t.Errorf("the output holds %d files, want %d", len(got), res.Files)
	}
	if len(log) != 1 || log[0] != "removed 1 temporary folder a killed unrmod run left in "+parent {
		t.Errorf("log %q", log)
	}
}
