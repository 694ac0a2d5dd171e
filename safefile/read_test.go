//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		if _, err := ReadRegular(p, 1<<20, "a test file"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadRegular(%s): %v, want ErrNotRegular", p, err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(file, 5, "a test file"); err != nil || string(b) != "12345" {
		t.Errorf("ReadRegular of 5 bytes, at most 5: %q, %v", b, err)
	}
	if _, err := ReadRegular(file, 4, "a test file"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadRegular of 5 bytes, at most 4: %v, want ErrTooLarge", err)
	}
}
