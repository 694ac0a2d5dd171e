package iostore_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
)

// partitionedGame writes the synthetic container with 4 KiB partitions to
// dir as Game.utoc and returns its path and partition count.
func partitionedGame(t *testing.T, dir string) (string, int) {
	t.Helper()
	b := tcSynthetic(t, iostore.VersionReplaceIoChunkHashWithIoHash, "None", nil)
	tcPartition(t, b)
	// A chunk that fills a partition of its own: a third one.
	id, _ := iostore.NewChunkID(0x600, 0, iostore.ChunkBulkData, b.Version)
	b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: "Maps/Full.ubulk", Data: tcData(9, int(b.PartitionSize))})
	utoc, err := b.WriteFiles(dir, "Game")
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Partitions())
	c.Close()
	if n < 3 {
		t.Fatalf("the container has %d partitions, want 3 or more", n)
	}
	return utoc, n
}

// dirState describes every file under dir (links as links) by its
// content's hash, to tell whether anything changed.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(p)
			fmt.Fprintf(&b, "%s -> %s\n", rel, to)
			return nil
		}
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		return nil
	})
	return b.String()
}

// TestContainerUses lists a container's files for each way to name it: the
// parts derive from the name without its extension, whatever its case, and
// names that differ in the extension's case are one container.
func TestContainerUses(t *testing.T) {
	dir := t.TempDir()
	_, n := partitionedGame(t, dir)
	var want []string
	want = append(want, "Game.ucas")
	for i := 1; i < n; i++ {
		want = append(want, fmt.Sprintf("Game_s%d.ucas", i))
	}
	want = append(want, "Game.pak")
	var names []string
	for _, name := range []string{"Game.utoc", "Game.UTOC", "Game.Utoc"} {
		uses := iostore.ContainerUses(filepath.Join(dir, name), false, true, "input container")
		var got []string
		for _, u := range uses {
			got = append(got, filepath.Base(u.Path))
		}
		if w := append([]string{name}, want...); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("%s: uses %v, want %v", name, got, w)
		}
		names = append(names, uses[0].Name)
	}
	if names[0] != names[1] || names[0] != names[2] {
		t.Errorf("case variants of one container have the names %q", names)
	}
	// An output of a new name lists its first partition and companion.
	uses := iostore.ContainerUses(filepath.Join(dir, "New.utoc"), true, true, "output container")
	if len(uses) != 3 || filepath.Base(uses[1].Path) != "New.ucas" || filepath.Base(uses[2].Path) != "New.pak" || !uses[2].Write {
		t.Errorf("new output: %+v", uses)
	}
}

// TestRewriteRefusesOutputOverInput: an output whose .utoc or .ucas parts
// are the input's, under another name, is refused before anything is
// written, with an error naming both files; the input is left as it was.
func TestRewriteRefusesOutputOverInput(t *testing.T) {
	tests := []struct {
		name string
		// prepare makes the output's files in out and returns the
		// output's .utoc.
		prepare func(t *testing.T, in, out string) string
		// what the error says the output file is
		wantWrite, wantOther string
	}{
		{"same name", func(t *testing.T, in, out string) string { return in }, "Game.utoc", "Game.utoc"},
		{"extension in capitals", func(t *testing.T, in, out string) string {
			return strings.TrimSuffix(in, ".utoc") + ".UTOC"
		}, "Game.UTOC", "Game.utoc"},
		{"extension in mixed case", func(t *testing.T, in, out string) string {
			return strings.TrimSuffix(in, ".utoc") + ".Utoc"
		}, "Game.Utoc", "Game.utoc"},
		{".ucas linked to the input's", func(t *testing.T, in, out string) string {
			symlink(t, iostore.PartitionPath(in, 0), filepath.Join(out, "Out.ucas"))
			return filepath.Join(out, "Out.utoc")
		}, "Out.ucas", "Game.ucas"},
		{".utoc linked to the input's", func(t *testing.T, in, out string) string {
			symlink(t, in, filepath.Join(out, "Out.utoc"))
			return filepath.Join(out, "Out.utoc")
		}, "Out.utoc", "Game.utoc"},
		{"partition 2 linked to the input's", func(t *testing.T, in, out string) string {
			symlink(t, iostore.PartitionPath(in, 2), filepath.Join(out, "Out_s2.ucas"))
			os.WriteFile(filepath.Join(out, "Out_s1.ucas"), []byte("stale"), 0o644)
			return filepath.Join(out, "Out.utoc")
		}, "Out_s2.ucas", "Game_s2.ucas"},
		{"partition 1 hard-linked to the input's", func(t *testing.T, in, out string) string {
			if err := os.Link(iostore.PartitionPath(in, 1), filepath.Join(out, "Out_s1.ucas")); err != nil {
				t.Skip("no hard links:", err)
			}
			return filepath.Join(out, "Out.utoc")
		}, "Out_s1.ucas", "Game_s1.ucas"},
		{"output folder linked to the input's", func(t *testing.T, in, out string) string {
			symlink(t, filepath.Dir(in), filepath.Join(out, "link"))
			return filepath.Join(out, "link", "Game.UTOC")
		}, "Game.UTOC", "Game.utoc"},
	}
	for _, tt := range tests {
		for _, lay := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
			t.Run(tt.name+"/"+lay.String(), func(t *testing.T) {
				root := t.TempDir()
				in, _ := partitionedGame(t, filepath.Join(root, "game"))
				out := filepath.Join(root, "out")
				os.MkdirAll(out, 0o755)
				utoc := tt.prepare(t, in, out)
				before := dirState(t, root)
				src, err := iostore.Open(in, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				_, err = iostore.Rewrite(src, utoc, nil, &iostore.RewriteOptions{Layout: lay})
				var ce *safefile.ClashError
				if !errors.As(err, &ce) {
					t.Fatalf("got %v, want a *safefile.ClashError", err)
				}
				if filepath.Base(ce.Write.Path) != tt.wantWrite || filepath.Base(ce.Other.Path) != tt.wantOther || ce.Other.Write {
					t.Errorf("clash of %s with %s (write %v), want %s with the input's %s", ce.Write.Path, ce.Other.Path, ce.Other.Write, tt.wantWrite, tt.wantOther)
				}
				if msg := err.Error(); !strings.Contains(msg, ce.Write.Path) || !strings.Contains(msg, ce.Other.Path) {
					t.Errorf("the error names not both files: %s", msg)
				}
				if after := dirState(t, root); after != before {
					t.Errorf("the refused rewrite changed files:\n%s\nwas\n%s", after, before)
				}
			})
		}
	}
}

// symlink makes a symbolic link at link to target, or skips the test.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
}
