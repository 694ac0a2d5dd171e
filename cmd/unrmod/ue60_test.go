package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// TestUE60CommandLine packs the files of a 5.8 corpus container with
// --engine 6.0, plain and with --aes-key (AES-CTR): ls of the AES-CTR
// container lists what its plain twin lists, extract gives the same files,
// verify and dump --package read it, and a preserve rewrite is
// byte-identical. The corpus has no UE 6.0 container.
func TestUE60CommandLine(t *testing.T) {
	src := filepath.Join(corpus.Dir(t), "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc")
	dir := t.TempDir()
	must := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("unrmod %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
	const key = "UnrmodUE60KeyForTheRoundTrip0123"
	files := filepath.Join(dir, "files")
	must("extract", src, "-o", files)
	plain, ctr := filepath.Join(dir, "plain", "Mod_P.utoc"), filepath.Join(dir, "ctr", "Mod_P.utoc")
	if out := must("pack", files, "-o", filepath.Join(dir, "plain", "Mod_P"), "--engine", "6.0"); !strings.Contains(out, "TOC version 10") {
		t.Errorf("pack: %s", out)
	}
	must("pack", files, "-o", filepath.Join(dir, "ctr", "Mod_P"), "--engine", "6.0", "--aes-key", key)
	if info := must("info", ctr); !strings.Contains(info, "AES-256-CTR") || !strings.Contains(info, "10 ContainerEncryptionMethod (UE 6.0)") {
		t.Errorf("info:\n%s", info)
	}
	if a, b := must("ls", ctr, "--aes-key", key), must("ls", plain); a != b || strings.Count(a, "\n") < 100 {
		t.Errorf("ls of the AES-CTR container:\n%s\nwant\n%s", a, b)
	}
	if _, stderr, code := runCLI(t, "ls", ctr); code == 0 || !strings.Contains(stderr, "--aes-key") {
		t.Errorf("ls without the key: exit %d, %s", code, stderr)
	}
	must("verify", ctr, "--aes-key", key)
	if out := must("dump", ctr, "--aes-key", key, "--package", "CUE4ParseFixtures/Content/Fixtures/Blueprints/S_Fixture.uasset"); !strings.Contains(out, "/Game/Fixtures/Blueprints/S_Fixture") {
		t.Errorf("dump --package:\n%s", out)
	}
	xc, xp := filepath.Join(dir, "xc"), filepath.Join(dir, "xp")
	must("extract", ctr, "-o", xc, "--aes-key", key)
	must("extract", plain, "-o", xp)
	n := 0
	filepath.WalkDir(xp, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(xp, p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(xc, rel))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s differs between the plain and the AES-CTR extract (%v)", rel, err)
		}
		n++
		return nil
	})
	if n < 100 {
		t.Errorf("%d files extracted", n)
	}
	out := filepath.Join(dir, "rw", "Mod_P.utoc")
	if msg := must("rewrite", ctr, "-o", out, "--aes-key", key); !strings.Contains(msg, "byte-identical") {
		t.Errorf("rewrite: %s", msg)
	}
	for _, ext := range []string{".utoc", ".ucas"} {
		a, _ := os.ReadFile(strings.TrimSuffix(ctr, ".utoc") + ext)
		b, _ := os.ReadFile(strings.TrimSuffix(out, ".utoc") + ext)
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("rewrite: %s differs", ext)
		}
	}
}
