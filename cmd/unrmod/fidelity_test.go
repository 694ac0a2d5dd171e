package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
)

// tcSameContainer reports whether two containers' .utoc and .ucas files
// are byte for byte the same.
func tcSameContainer(t *testing.T, a, b string) bool {
	t.Helper()
	for i := -1; ; i++ {
		pa, pb := a, b
		if i >= 0 {
			pa, pb = iostore.PartitionPath(a, i), iostore.PartitionPath(b, i)
		}
		da, errA := os.ReadFile(pa)
		db, errB := os.ReadFile(pb)
		if errA != nil || errB != nil {
			return i > 0 && os.IsNotExist(errA) && os.IsNotExist(errB)
		}
		if !bytes.Equal(da, db) {
			return false
		}
	}
}

// TestRewriteIdenticalTellsTheTruth rewrites containers in both layouts and
// checks the "identical" figure against the files: a compact rewrite of the
// demo, which has no gaps, is identical too, and one of the corpus's
// engine-written container, laid out with gaps, is not.
func TestRewriteIdenticalTellsTheTruth(t *testing.T) {
	dir := t.TempDir()
	sources := []string{demoContainer427}
	d := os.Getenv("UNRMOD_CORPUS")
	if d != "" {
		sources = append(sources, filepath.Join(d, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"))
	}
	identical, differs := 0, 0
	for _, src := range sources {
		for _, layout := range []string{"preserve", "compact"} {
			out := filepath.Join(dir, layout, strings.TrimSuffix(filepath.Base(src), ".utoc"))
			stdout, stderr, code := runCLI(t, "rewrite", src, "-o", out, "--layout", layout, "--json")
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", src, layout, code, stderr)
			}
			var doc containerRewriteDoc
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			same := tcSameContainer(t, src, out+".utoc")
			if doc.Identical != same {
				t.Errorf("%s, %s: the report says identical=%v, the files are the same: %v", filepath.Base(src), layout, doc.Identical, same)
			}
			if same {
				identical++
			} else {
				differs++
			}
		}
	}
	if identical == 0 || differs == 0 && d != "" {
		t.Errorf("%d identical and %d different outputs: the test does not show both", identical, differs)
	}
}

// TestPackStoredTellsTheTruth packs the demo into several partitions and
// checks the "stored" figure against the .ucas files written.
func TestPackStoredTellsTheTruth(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "ex")
	if _, stderr, code := runCLI(t, "extract", demoContainer427, "-o", ex); code != 0 {
		t.Fatalf("extract: %s", stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"one partition", nil},
		{"partitions", []string{"--partition-size", "32K", "--block-size", "4K"}},
		{"uncompressed", []string{"--compression", "none"}},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"), "z_Demo_P")
		args := append([]string{"pack", ex, "-o", out, "--engine", "4.27", "--json"}, tc.args...)
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		var doc packDoc
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		var total int64
		n := 0
		for i := 0; ; i++ {
			st, err := os.Stat(iostore.PartitionPath(out+".utoc", i))
			if err != nil {
				break
			}
			total += st.Size()
			n++
		}
		if doc.Stored != total {
			t.Errorf("%s: stored_bytes %d, the %d .ucas files hold %d", tc.name, doc.Stored, n, total)
		}
		if tc.name == "partitions" && n < 2 {
			t.Errorf("%s: %d partitions", tc.name, n)
		}
	}
}

// TestPackBlockSizeCLI refuses a block size the engine cannot read as a
// usage error, and writes nothing.
func TestPackBlockSizeCLI(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "ex")
	if _, stderr, code := runCLI(t, "extract", demoContainer427, "-o", ex); code != 0 {
		t.Fatalf("extract: %s", stderr)
	}
	for _, tc := range []struct {
		size string
		code int
	}{
		{"3K", 2}, {"48", 2}, {"96K", 2}, {"4K", 0}, {"128K", 0},
	} {
		out := filepath.Join(dir, tc.size, "z_Demo_P")
		_, stderr, code := runCLI(t, "pack", ex, "-o", out, "--engine", "4.27", "--block-size", tc.size)
		if code != tc.code || tc.code == 2 && !strings.Contains(stderr, "power of two") {
			t.Errorf("--block-size %s: exit %d (%s), want %d", tc.size, code, stderr, tc.code)
		}
		if _, err := os.Stat(out + ".utoc"); (err == nil) != (tc.code == 0) {
			t.Errorf("--block-size %s: output written: %v", tc.size, err == nil)
		}
	}
}
