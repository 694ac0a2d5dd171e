//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runWithin runs the CLI and fails the test, naming the command, when it
// has not returned before the test binary's -timeout runs out (a read of a
// pipe without a writer never returns).
func runWithin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	type result struct {
		out, err string
		code     int
	}
	done := make(chan result, 1)
	go func() {
		o, e, c := runCLI(t, args...)
		done <- result{o, e, c}
	}()
	select {
	case r := <-done:
		return r.out, r.err, r.code
	case <-beforeTimeout(t):
		t.Fatalf("unrmod %s did not return (it hangs)", strings.Join(args, " "))
		return "", "", 0
	}
}

// TestSpecialFilesRefused gives every kind of input unrmod reads as a named
// pipe (with no writer) and as /dev/zero: each is refused at once as not a
// regular file, instead of waiting for a writer or reading forever.
func TestSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	demo, err := os.ReadFile(filepath.Join("..", "..", "examples", "packages", "UnrmodDemo.u"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "UnrmodDemo.u")
	if err := os.WriteFile(pkg, demo, 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	patch := func(name, op string) string {
		p := filepath.Join(dir, name)
		text := "unrmod: 1\ntargets:\n  - file: UnrmodDemo.u\n    output: out/UnrmodDemo.u\n    ops:\n" + op
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo("pipe.bin")
	fifo("pipe.png")
	fifo("pipe.wav")
	fifo("Pipe.u")
	cases := [][]string{
		{"verify", fifo("Pkg.u")},
		{"verify", "/dev/zero"},
		{"dump", fifo("Dump.u")},
		{"info", fifo("Container.utoc")},
		{"info", "/dev/zero"},
		{"apply", "--dry-run", fifo("patch.yaml")},
		{"apply", "--dry-run", "/dev/zero"},
		{"apply", "--dry-run", patch("data.yaml", "      - replace-export:\n          object: Skins.Checker\n          data:\n            file: pipe.bin\n")},
		{"apply", "--dry-run", patch("zero.yaml", "      - replace-export:\n          object: Skins.Checker\n          data:\n            file: /dev/zero\n")},
		{"apply", "--dry-run", patch("from.yaml", "      - replace-export:\n          object: Skins.Checker\n          from:\n            file: Pipe.u\n            object: Skins.Stripes\n")},
		{"apply", "--dry-run", patch("image.yaml", "      - replace-texture:\n          object: Skins.Stripes\n          image: pipe.png\n")},
		{"apply", "--dry-run", patch("sound.yaml", "      - replace-sound:\n          object: Sounds.Beep\n          file: pipe.wav\n")},
	}
	for _, args := range cases {
		stdout, stderr, code := runWithin(t, args...)
		if code == 0 || !strings.Contains(stdout+stderr, "not a regular file") {
			t.Errorf("unrmod %s: exit %d, want a refusal naming %q; output:\n%s%s", strings.Join(args, " "), code, "not a regular file", stdout, stderr)
		}
	}
}
