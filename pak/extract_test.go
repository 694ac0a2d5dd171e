package pak_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
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
