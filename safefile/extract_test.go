package safefile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCheckRelPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"Game/Content/Maps/Map.umap", true},
		{"a", true},
		{"", false},
		{"/etc/passwd", false},
		{"../up", false},
		{"a/../b", false},
		{"a/./b", false},
		{"a//b", false},
		{"a\\b", false},
		{"a\x00b", false},
		{"C:/Windows", false},
		{"file.txt:stream", false},
	} {
		if err := CheckRelPath(tc.path); (err == nil) != tc.ok {
			t.Errorf("CheckRelPath(%q) = %v, want ok %v", tc.path, err, tc.ok)
		}
	}
	long := strings.Repeat("n", MaxNameLen+1)
	if CheckNameLengths("a/"+long[:MaxNameLen]) != nil || CheckNameLengths("a/"+long+"/b") == nil {
		t.Errorf("CheckNameLengths does not draw the line at %d bytes", MaxNameLen)
	}
}

func TestNewDirs(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "out", "have"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "out")
	got := NewDirs(out, []string{"have/x.bin", "a/b/c.bin", "a/d.bin", "top.bin"})
	want := []string{filepath.Join(out, "a", "b"), filepath.Join(out, "a")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NewDirs = %q, want %q", got, want)
	}
	fresh := filepath.Join(base, "fresh", "deep")
	got = NewDirs(fresh, []string{"x/y.bin"})
	want = []string{filepath.Join(fresh, "x"), fresh, filepath.Join(base, "fresh")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NewDirs of a missing folder = %q, want %q", got, want)
	}
	for _, d := range got {
		defer os.Remove(d)
	}
	if err := os.MkdirAll(filepath.Join(fresh, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	RemoveDirs(got)
	if _, err := os.Stat(filepath.Join(base, "fresh")); !os.IsNotExist(err) {
		t.Errorf("RemoveDirs left %s", filepath.Join(base, "fresh"))
	}
}
