package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "out.bin")
	for _, data := range []string{"first", "second"} {
		if err := WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Fatalf("content %q, want %q", got, data)
		}
	}
	assertOnly(t, filepath.Join(dir, "a"), "out.bin")
}

func TestBatchAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.u"), filepath.Join(dir, "b.u")
	os.WriteFile(a, []byte("old a"), 0o644)

	var batch Batch
	if err := batch.Add(a, []byte("new a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := batch.Add(b, []byte("new b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Fatalf("target replaced before Commit: %q", got)
	}
	batch.Abort()
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Fatalf("Abort changed the target: %q", got)
	}
	assertOnly(t, dir, "a.u")

	if err := batch.Add(a, []byte("new a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := batch.Add(b, []byte("new b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := batch.Commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "new a", b: "new b"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	assertOnly(t, dir, "a.u", "b.u")
}

func TestAddFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	var batch Batch
	// A directory cannot be created under a regular file.
	if err := batch.Add(filepath.Join(blocker, "x.u"), []byte("x"), 0o644); err == nil {
		t.Fatal("Add under a regular file succeeded")
	}
	if err := batch.Commit(); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, "file")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("unexpected file %s left in %s", e.Name(), dir)
		}
	}
	if len(entries) != len(names) {
		t.Errorf("%d entries in %s, want %d", len(entries), dir, len(names))
	}
}
