package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// TestExtractPakCommand extracts the engine's Zlib pak, with and without
// a filter, and checks that an Oodle pak fails before writing anything.
func TestExtractPakCommand(t *testing.T) {
	file := corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak")
	out := t.TempDir()
	stdout, stderr, code := runCLI(t, "extract", file, "-o", out)
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "extracted 11 files (200611 bytes)") {
		t.Fatalf("extract: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "CUE4ParseFixtures", "Content", "Fixtures", "Maps", "Empty.umap")); err != nil {
		t.Error(err)
	}

	stdout, _, code = runCLI(t, "extract", file, "-o", t.TempDir(), "--filter", "*.umap", "--json")
	var doc extractDoc
	if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || doc.Files != 1 ||
		doc.Paths[0] != "CUE4ParseFixtures/Content/Fixtures/Maps/Empty.umap" {
		t.Errorf("extract --filter --json: code %d, %s", code, stdout)
	}

	parent := t.TempDir()
	_, stderr, code = runCLI(t, "extract", corpus.Path(t, "pak/cue4parse_ue5_8/Pak/Oodle/CUE4ParseFixtures-Minimal-Oodle.pak"), "-o", filepath.Join(parent, "out"))
	if code == 0 || !strings.Contains(stderr, "Oodle library") {
		t.Errorf("extract of an Oodle pak: code %d, stderr %q", code, stderr)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("the failed extract left %v", ents)
	}
}
