package safefile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/safefile"
)

// A run that rewrites two files together: it locks them against other
// runs, stages both beside their targets and renames them into place as
// one commit, so that a crash leaves either both old files or both new.
func ExampleBatch() {
	dir, err := os.MkdirTemp("", "safefile-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	utoc := filepath.Join(dir, "Mod_P.utoc")
	ucas := filepath.Join(dir, "Mod_P.ucas")

	s := &safefile.Session{LockDir: filepath.Join(dir, "locks")}
	locks, err := s.Lock(
		safefile.Use{Path: utoc, Write: true, What: "the output .utoc"},
		safefile.Use{Path: ucas, Write: true, What: "the output .ucas"},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer locks.Release()

	b := &safefile.Batch{Session: s}
	if err := b.Add(utoc, []byte("table of contents"), 0o644); err != nil {
		b.Abort()
		fmt.Println(err)
		return
	}
	if err := b.Add(ucas, []byte("chunks"), 0o644); err != nil {
		b.Abort()
		fmt.Println(err)
		return
	}
	if err := b.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	got, _ := os.ReadFile(utoc)
	fmt.Println(string(got))
	// Output: table of contents
}

// WriteFile replaces one file atomically: readers see the old content or
// the new, never a half-written file.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "safefile-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "Engine.ini")
	if err := safefile.WriteFile(path, []byte("[Core]\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	got, _ := os.ReadFile(path)
	fmt.Print(string(got))
	// Output: [Core]
}
