package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
)

// badMethodContainer copies the demo 4.27 container into dir with the
// first block of BP_DemoPickup's package chunk naming method 9 of a TOC
// that has 1. It returns the .utoc path, the block's number and the
// offset of its entry.
func badMethodContainer(t *testing.T, dir string) (string, int, int64) {
	t.Helper()
	c, err := iostore.Open(demoContainer427, nil)
	if err != nil {
		t.Fatal(err)
	}
	block := -1
	for _, ch := range c.Chunks() {
		if strings.HasSuffix(ch.Path, "BP_DemoPickup.uasset") {
			block = ch.FirstBlock
		}
	}
	c.Close()
	toc, err := os.ReadFile(demoContainer427)
	if err != nil {
		t.Fatal(err)
	}
	d, err := iostore.DecodeTOC(demoContainer427, toc)
	if err != nil {
		t.Fatal(err)
	}
	var off int64 = -1
	for _, s := range d.Sections {
		if s.Name == "compression blocks" {
			off = s.Offset + 12*int64(block)
		}
	}
	if block < 0 || off < 0 || len(d.Methods) != 1 {
		t.Fatalf("block %d at %d, %d methods", block, off, len(d.Methods))
	}
	toc[off+11] = 9 // the method byte of the entry
	utoc := filepath.Join(dir, "Bad_P.utoc")
	if err := os.WriteFile(utoc, toc, 0o644); err != nil {
		t.Fatal(err)
	}
	cas, err := os.ReadFile(strings.TrimSuffix(demoContainer427, ".utoc") + ".ucas")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Bad_P.ucas"), cas, 0o644); err != nil {
		t.Fatal(err)
	}
	return utoc, block, off
}

// TestBadMethodIndex runs every command that reads or writes a container
// on one whose block entry names a method beyond the TOC's method table:
// ls lists it (showing the bad index), every other command fails with an
// error naming the container, the block and its entry's offset, nothing
// panics and no output or temporary file is left.
func TestBadMethodIndex(t *testing.T) {
	dir := t.TempDir()
	utoc, block, off := badMethodContainer(t, dir)
	out := filepath.Join(dir, "out")
	patch := func(name, target string) string {
		p := filepath.Join(dir, name+".yaml")
		text := "unrmod: 1\ntargets:\n  - container: Bad_P.utoc\n    output: out/" + name + "\n" + target +
			"    packages:\n      - package: /Game/Items/BP_DemoPickup\n        ops:\n          - rename: {from: Acorn, to: GoldenAcorn}\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A write refuses the container as damaged before it reads the block:
	// "Bad_P.utoc: the input already has 1 problem: compression block …".
	where := "compression block " + strconv.Itoa(block)
	at := fmt.Sprintf("%s at 0x%X", where, off)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"verify", []string{"verify", utoc}},
		{"extract", []string{"extract", utoc, "-o", filepath.Join(out, "extract")}},
		{"rewrite preserve", []string{"rewrite", utoc, "-o", filepath.Join(out, "Preserve_P")}},
		{"rewrite compact", []string{"rewrite", utoc, "-o", filepath.Join(out, "Compact_P"), "--layout", "compact"}},
		{"apply mod", []string{"apply", patch("mod", "    mode: mod\n")}},
		{"apply full preserve", []string{"apply", patch("full", "    mode: full\n")}},
		{"apply full compact", []string{"apply", patch("compact", "    mode: full\n    layout: compact\n")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			all := stdout + stderr
			if code != 1 || !strings.Contains(all, "Bad_P.utoc: ") || !strings.Contains(all, where) || !strings.Contains(all, at) || !strings.Contains(all, "method index 9, but the TOC names 1 methods") {
				t.Errorf("exit %d, want 1 and an error with %q %s\nstdout: %s\nstderr: %s", code, where, at, stdout, stderr)
			}
		})
	}
	stdout, stderr, code := runCLI(t, "ls", utoc)
	if code != 0 || !strings.Contains(stdout, "invalid method index 9") {
		t.Errorf("ls: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, filepath.Join(dir, "Bad_P.")) && !strings.HasSuffix(p, ".yaml") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// TestPanicRemovesTemporaryFiles: a command that panics (a bug) after
// staging a file exits 1 with a message, and the staged file is removed.
func TestPanicRemovesTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	c := &command{name: "boom", setup: func(*flag.FlagSet) runner {
		return func(s streams, _ []string) error {
			b := &safefile.Batch{Session: s.sess}
			if _, err := b.Create(filepath.Join(dir, "out.bin"), 0o644); err != nil {
				return err
			}
			panic("boom")
		}
	}}
	var stdout, stderr bytes.Buffer
	code := c.execute(nil, streams{&stdout, &stderr, newSession(&stderr)})
	if code != 1 || !strings.Contains(stderr.String(), "internal error: boom") || !strings.Contains(stderr.String(), "removed 1 temporary files") {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
