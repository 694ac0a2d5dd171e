package safefile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/safefile"
)

// TestFileID: ReadRegularID gives the identity of the file it read, which
// a handle opened later sees too while nothing writes to the file; a write
// of the same size with the modification time set back, and another file
// renamed over it, each change it where the system has a change time and a
// file number.
func TestFileID(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.utoc")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, id, err := safefile.ReadRegularID(p, 100, "a test file")
	if err != nil || string(data) != "0123456789" {
		t.Fatalf("ReadRegularID: %q, %v", data, err)
	}
	idNow := func() safefile.FileID {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		id, err := safefile.FileIDOf(f)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	if got := idNow(); got != id {
		t.Fatalf("FileIDOf %v, ReadRegularID %v", got, id)
	}
	if id.Size != 10 || id.ModTime == 0 {
		t.Fatalf("FileID %v", id)
	}
	if !id.HasInode || !id.HasChange {
		t.Skipf("no file number or change time on this system: %v", id)
	}
	other := filepath.Join(dir, "b")
	if err := os.WriteFile(other, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if err := os.Chtimes(other, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, p); err != nil {
		t.Fatal(err)
	}
	if got := idNow(); got.Inode == id.Inode || got == id {
		t.Fatalf("a file renamed over it keeps the identity %v", got)
	}
}
