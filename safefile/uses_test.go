package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckUses finds a file written that is a file read or written under
// another name: a symbolic or hard link, a folder reached through a link,
// a Name shared; reads of one file are no clash.
func TestCheckUses(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "In.ucas")
	os.WriteFile(in, []byte("data"), 0o644)
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	if err := os.Symlink(in, filepath.Join(dir, "out", "Sym.ucas")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	os.Symlink("out", filepath.Join(dir, "outlink"))
	hard := filepath.Join(dir, "out", "Hard.ucas")
	if err := os.Link(in, hard); err != nil {
		hard = ""
	}
	read := func(p string) Use { return Use{Path: p, What: "read"} }
	write := func(p string) Use { return Use{Path: p, Write: true, What: "written"} }
	tests := []struct {
		name  string
		uses  []Use
		clash string // the Why of the clash; "-" for none
	}{
		{"distinct files", []Use{read(in), write(filepath.Join(dir, "out", "New.ucas"))}, "-"},
		{"two reads of one file", []Use{read(in), read(filepath.Join(dir, "out", "Sym.ucas"))}, "-"},
		{"same path", []Use{read(in), write(in)}, ""},
		{"symbolic link", []Use{read(in), write(filepath.Join(dir, "out", "Sym.ucas"))}, "the same file through a link or another name"},
		{"hard link", []Use{read(in), write(hard)}, "the same file through a link or another name"},
		{"new file through a linked folder", []Use{write(filepath.Join(dir, "out", "New.ucas")), write(filepath.Join(dir, "outlink", "New.ucas"))}, "the same file through a link"},
		{"one Name", []Use{{Path: in, Name: "c"}, {Path: filepath.Join(dir, "In.UCAS"), Write: true, Name: "c"}}, "names of one container that differ only in case"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "hard link" && hard == "" {
				t.Skip("no hard links")
			}
			err := CheckUses(tt.uses...)
			var ce *ClashError
			if tt.clash == "-" {
				if err != nil {
					t.Fatalf("got %v, want no clash", err)
				}
				return
			}
			if !errors.As(err, &ce) || ce.Why != tt.clash {
				t.Fatalf("got %v, want a clash %q", err, tt.clash)
			}
			for _, u := range tt.uses {
				if !strings.Contains(err.Error(), u.Path) {
					t.Errorf("the error does not name %s: %v", u.Path, err)
				}
			}
		})
	}
}
