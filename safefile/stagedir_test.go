package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fstree"
)

// A staged folder is invisible under its name until Commit, which puts all
// of it there at once; Abort, a failed Commit and an interrupt leave nothing.
func TestStagedDir(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, s *Session, d *StagedDir) error
		want []string // the parent's tree afterwards
	}{
		{"commit", func(t *testing.T, s *Session, d *StagedDir) error { return d.Commit(false) }, []string{"out/", "out/sub/", "out/sub/f"}},
		{"commit with sync", func(t *testing.T, s *Session, d *StagedDir) error { return d.Commit(true) }, []string{"out/", "out/sub/", "out/sub/f"}},
		{"abort", func(t *testing.T, s *Session, d *StagedDir) error { d.Abort(); return nil }, nil},
		{"interrupt", func(t *testing.T, s *Session, d *StagedDir) error {
			if got := s.Interrupt(); len(got) != 1 || got[0] != d.Path() {
				t.Errorf("Interrupt removed %q, want the staging folder", got)
			}
			if err := d.Create(func() error { t.Error("Create ran after the interrupt"); return nil }); !errors.Is(err, ErrInterrupted) {
				t.Errorf("Create after the interrupt: %v", err)
			}
			err := d.Commit(false)
			if !errors.Is(err, ErrInterrupted) {
				t.Errorf("Commit after the interrupt: %v", err)
			}
			return nil
		}, nil},
		{"the target appears meanwhile", func(t *testing.T, s *Session, d *StagedDir) error {
			os.MkdirAll(filepath.Join(d.Target(), "theirs"), 0o755)
			if err := d.Commit(false); err == nil {
				t.Error("Commit over a folder that appeared succeeded")
			}
			return nil
		}, []string{"out/", "out/theirs/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			target := filepath.Join(parent, "out")
			s, _ := newSession(t, t.TempDir(), 0)
			d, err := s.StageDir(target)
			if err != nil {
				t.Fatal(err)
			}
			if !IsTempOf(filepath.Base(d.Path()), "out") || filepath.Dir(d.Path()) != parent {
				t.Fatalf("staging folder %s is not a temporary name beside %s", d.Path(), target)
			}
			err = d.Create(func() error {
				if err := os.MkdirAll(filepath.Join(d.Path(), "sub"), 0o755); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(d.Path(), "sub", "f"), []byte("x"), 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the target exists before Commit: %v", err)
			}
			if err := tt.end(t, s, d); err != nil {
				t.Fatal(err)
			}
			if got := fstree.List(parent); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("left %q, want %q", got, tt.want)
			}
			if len(s.tempDirs) != 0 {
				t.Errorf("still tracked: %v", s.tempDirs)
			}
		})
	}
}

// StageDir refuses a target that exists: a folder to merge into is not
// staged.
func TestStageDirRefusesExisting(t *testing.T) {
	target := t.TempDir()
	if _, err := (*Session)(nil).StageDir(target); !errors.Is(err, os.ErrExist) {
		t.Errorf("StageDir of an existing folder: %v", err)
	}
}

// A staging folder a killed run left beside a target (folder or file) is
// removed, with all it holds, by the next Lock that writes the target, and
// said so; a folder of another name, a staging folder of another target
// and the Session's own staging folder stay.
func TestLockRemovesLeftoverStagingFolders(t *testing.T) {
	for _, exists := range []bool{false, true} {
		name := "new target"
		if exists {
			name = "existing target"
		}
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			target := filepath.Join(parent, "out")
			if exists {
				os.MkdirAll(filepath.Join(target, "old"), 0o755)
			}
			s, log := newSession(t, t.TempDir(), 0)
			own, err := s.StageDir(filepath.Join(parent, "mine"))
			if err != nil {
				t.Fatal(err)
			}
			left := filepath.Join(parent, TempName("out", "4242"))
			os.MkdirAll(filepath.Join(left, "Game", "Content"), 0o755)
			os.WriteFile(filepath.Join(left, "Game", "Content", "A.uasset"), []byte("x"), 0o644)
			os.MkdirAll(filepath.Join(parent, ".out.unrmod-x.tmp"), 0o755) // not a temporary name
			os.MkdirAll(filepath.Join(parent, TempName("other", "1")), 0o755)
			l, err := s.Lock(Use{Path: target, Write: true}, Use{Path: filepath.Join(parent, "mine"), Write: true})
			if err != nil {
				t.Fatal(err)
			}
			l.Release()
			want := []string{".other.unrmod-1.tmp/", ".out.unrmod-x.tmp/", filepath.Base(own.Path()) + "/"}
			if exists {
				want = append(want, "out/", "out/old/")
			}
			sort.Strings(want)
			if got := fstree.List(parent); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("left %q, want %q", got, want)
			}
			if msgs := log(); len(msgs) != 1 || msgs[0] != "removed 1 temporary folder a killed unrmod run left in "+parent {
				t.Errorf("log %q", msgs)
			}
			own.Abort()
		})
	}
}

// Two runs that stage the same new folder: the Session lock lets one at a
// time through; the second one, once the first has committed, finds the
// folder there and must not stage it (StageDir refuses an existing target).
func TestStagedDirLockedTarget(t *testing.T) {
	lockDir := t.TempDir()
	target := filepath.Join(t.TempDir(), "out")
	a, _ := newSession(t, lockDir, 0)
	b, _ := newSession(t, lockDir, 50*time.Millisecond)
	la, err := a.Lock(Use{Path: target, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.StageDir(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(Use{Path: target, Write: true}); err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("a second run locked the folder being staged: %v", err)
	}
	if _, err := os.Stat(d.Path()); err != nil {
		t.Fatalf("the second run's Lock touched the first's staging folder: %v", err)
	}
	if err := d.Commit(true); err != nil {
		t.Fatal(err)
	}
	la.Release()
	lb, err := b.Lock(Use{Path: target, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Release()
	if _, err := b.StageDir(target); !errors.Is(err, os.ErrExist) {
		t.Errorf("StageDir after the other run committed: %v", err)
	}
}
