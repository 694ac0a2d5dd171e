package pak_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
)

// TestPackDirRoundTrip extracts the engine's uncompressed UE 5.8 pak and
// packs the folder again with the version, and path-hash seed, the engine
// used: the result is the engine's pak byte for byte. Packed for other
// engines it lists and extracts the same files.
func TestPackDirRoundTrip(t *testing.T) {
	file := corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := pak.Decode(bytes.NewReader(orig), int64(len(orig)), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := r.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, dir)

	v, err := pak.VersionForEngine(5, 8)
	if err != nil || v != r.Footer.Version {
		t.Fatalf("VersionForEngine(5, 8) = %v, %v; the engine wrote %v", v, err, r.Footer.Version)
	}
	out := filepath.Join(t.TempDir(), "out.pak")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pak.PackDir(dir, f, &pak.WriterOptions{Version: v, PathHashSeed: r.PathHashSeed})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.MountPoint != r.MountPoint || len(res.Paths) != len(r.Files) {
		t.Fatalf("mount %q, %d files; the engine's pak: %q, %d", res.MountPoint, len(res.Paths), r.MountPoint, len(r.Files))
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, orig) {
		n := 0
		for n < len(got) && n < len(orig) && got[n] == orig[n] {
			n++
		}
		t.Errorf("packed pak (%d bytes) differs from the engine's (%d bytes) from offset 0x%X", len(got), len(orig), n)
	}

	for _, engine := range [][2]int{{4, 20}, {4, 22}, {4, 25}, {4, 27}, {5, 4}, {6, 0}} {
		v, err := pak.VersionForEngine(engine[0], engine[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, compress := range []bool{false, true} {
			var buf bytes.Buffer
			if _, err := pak.PackDir(dir, &buf, &pak.WriterOptions{Version: v, Compress: compress}); err != nil {
				t.Fatalf("%d.%d: %v", engine[0], engine[1], err)
			}
			p := decodePak(t, buf.Bytes(), nil)
			if p.Footer.Version != v || p.MountPoint != r.MountPoint {
				t.Fatalf("%d.%d: version %v, mount %q", engine[0], engine[1], p.Footer.Version, p.MountPoint)
			}
			again := t.TempDir()
			if _, err := p.Extract(again, nil); err != nil {
				t.Fatal(err)
			}
			tree := readTree(t, again)
			for name, b := range want {
				if !bytes.Equal(tree[name], b) {
					t.Errorf("%d.%d compress %v: %s differs after the round trip", engine[0], engine[1], compress, name)
				}
			}
			if len(tree) != len(want) {
				t.Errorf("%d.%d: %d files, want %d", engine[0], engine[1], len(tree), len(want))
			}
		}
	}
	if _, err := pak.VersionForEngine(4, 19); err == nil {
		t.Error("VersionForEngine(4, 19): no error")
	}
}

// TestEngineVersions pins the pak version each release gets, as the table
// of ue.Releases gives it, and the texts made from it.
func TestEngineVersions(t *testing.T) {
	want := map[[2]int]pak.Version{{4, 20}: 5, {4, 21}: 7, {4, 22}: 7, {4, 23}: 8, {4, 24}: 8, {4, 25}: 9, {4, 26}: 11,
		{4, 27}: 11, {5, 0}: 11, {5, 3}: 11, {5, 6}: 11, {5, 7}: 12, {5, 8}: 12, {6, 0}: 15}
	for e, v := range want {
		if got, err := pak.VersionForEngine(e[0], e[1]); err != nil || got != v {
			t.Errorf("VersionForEngine(%d, %d) = %v, %v; want %v", e[0], e[1], got, err, v)
		}
	}
	if got, want := pak.EngineVersions(), "4.20 writes 5, 4.21 and 4.22 write 7, 4.23 and 4.24 write 8, 4.25 writes 9, "+
		"4.26 to 5.6 write 11, 5.7 and 5.8 write 12, 6.0 writes 15"; got != want {
		t.Errorf("EngineVersions() = %q\nwant %q", got, want)
	}
	if got, want := pak.EngineNames(), "4.20 … 4.27, 5.0 … 5.8, 6.0"; got != want {
		t.Errorf("EngineNames() = %q, want %q", got, want)
	}
}

// TestPackDirRefusesStagingFolder: the staging folder a killed extract
// left (named as unrmod's temporary files) is refused, as its temporary
// files are, rather than packed as part of the mod.
func TestPackDirRefusesStagingFolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "Game", ".Maps.unrmod-77.tmp", "Game", "Maps"), 0o755)
	os.WriteFile(filepath.Join(dir, "Game", "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, "Game", ".Maps.unrmod-77.tmp", "Game", "Maps", "b.txt"), []byte("b"), 0o644)
	_, err := pak.PackDir(dir, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "temporary folder of an unfinished unrmod run") {
		t.Errorf("PackDir: %v", err)
	}
}
