package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
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

// TestPackPakCommand packs what extract wrote from the engine's UE 5.8
// pak back into a pak for 5.8 and for 4.27 (Zlib, encrypted): both list
// and extract the same files, byte for byte.
func TestPackPakCommand(t *testing.T) {
	file := corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak")
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "extract", file, "-o", dir); code != 0 {
		t.Fatal(stderr)
	}
	want := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			want[rel] = b
		}
		return err
	})
	const key = "0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"
	for _, tc := range []struct {
		engine string
		args   []string
		ver    string
	}{
		{"5.8", []string{"--compression", "none"}, "version 12"},
		{"4.27", []string{"--aes-key", key}, "version 11"},
		{"6.0", nil, "version 15"},
		{"6.0", []string{"--aes-key", key}, "version 15"},
	} {
		out := filepath.Join(t.TempDir(), "z_Mod_P.pak")
		stdout, stderr, code := runCLI(t, append([]string{"pack", dir, "-o", out, "--engine", tc.engine}, tc.args...)...)
		if code != 0 || !strings.HasPrefix(stdout, "packed 11 files (200611 bytes") || !strings.Contains(stdout, tc.ver) {
			t.Fatalf("pack --engine %s: code %d, %q, %q", tc.engine, code, stdout, stderr)
		}
		if tc.engine == "6.0" && tc.args != nil {
			// UE 6.0 encrypts with AES-CTR: the footer says so.
			r, err := pak.Open(out, &pak.Options{Key: testKey(t, key)})
			if err != nil || !r.Footer.CTR() || !r.Footer.IndexEncrypted {
				t.Errorf("--engine 6.0 --aes-key: %v, footer %+v; want an AES-CTR pak", err, r != nil && r.Footer.CTR())
			}
			if r != nil {
				r.Close()
			}
		}
		again := t.TempDir()
		args := []string{"extract", out, "-o", again}
		if tc.args != nil && tc.args[0] == "--aes-key" {
			args = append(args, "--aes-key", key)
		}
		if _, stderr, code := runCLI(t, args...); code != 0 {
			t.Fatalf("extract of the packed pak: %s", stderr)
		}
		for rel, b := range want {
			got, err := os.ReadFile(filepath.Join(again, rel))
			if err != nil || string(got) != string(b) {
				t.Errorf("--engine %s: %s differs after extract, pack, extract (%v)", tc.engine, rel, err)
			}
		}
	}
	for _, args := range [][]string{
		{"pack", dir, "-o", filepath.Join(t.TempDir(), "a.pak")},                                            // no engine
		{"pack", dir, "-o", filepath.Join(t.TempDir(), "a.pak"), "--engine", "4.19"},                        // unknown
		{"pack", dir, "-o", filepath.Join(t.TempDir(), "a.pak"), "--engine", "5.4", "--compression", "lz4"}, // not for paks
		{"pack", dir, "-o", filepath.Join(dir, "a.pak"), "--engine", "5.4"},                                 // inside DIR
		{"pack", dir, "-o", filepath.Join(t.TempDir(), "a.pak"), "--engine", "5.4", "--perfect-hash"},       // container flag
	} {
		if _, stderr, code := runCLI(t, args...); code == 0 || !strings.Contains(stderr, "pack") {
			t.Errorf("%v: code %d, %q; want a usage error", args, code, stderr)
		}
	}
}

// testKey parses an AES key as --aes-key takes it.
func testKey(t *testing.T, s string) *ue.Key {
	t.Helper()
	k, err := ue.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return &k
}
