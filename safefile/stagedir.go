package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A StagedDir is a new folder written whole under a temporary name beside
// the folder it becomes, then renamed into place in one step (Commit) or
// removed (Abort): a reader, or a run killed at any moment, sees either no
// folder or all of it. The temporary name is one of TempPrefix's
// (".NAME.unrmod-DIGITS.tmp"), so that the next run that locks the target
// removes the folder a killed run left (Session.Lock).
//
// Files are written into the staging folder under their final names; the
// caller writes them through an os.Root of Path, so that nothing lands
// outside it.
type StagedDir struct {
	target string
	tmp    string
	sess   *Session
	done   bool
	// above are target and the folders above it that did not exist when
	// it was staged, deepest first (NewDirs): Commit with sync flushes
	// each one's parent.
	above []string
}

// StageDir creates the staging folder of the folder target, which must not
// exist, beside it (creating target's parent folders if need be), and
// tracks it until Commit or Abort, so that Interrupt removes it. Once the
// Session is interrupted it creates nothing and returns ErrInterrupted. A
// nil Session only creates the folder.
func (s *Session) StageDir(target string) (*StagedDir, error) {
	if abs, err := filepath.Abs(target); err == nil {
		target = abs
	}
	parent, name := filepath.Dir(target), filepath.Base(target)
	if _, err := os.Lstat(target); err == nil {
		return nil, fmt.Errorf("stage %s: %w", target, os.ErrExist)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	d := &StagedDir{target: target, sess: s, above: NewDirs(target, nil)}
	create := func() (string, error) {
		tmp, err := os.MkdirTemp(parent, TempPrefix(name)+"*.tmp")
		d.tmp = tmp
		return tmp, err
	}
	if s == nil {
		if _, err := create(); err != nil {
			return nil, err
		}
		return d, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, ErrInterrupted
	}
	if _, err := create(); err != nil {
		return nil, err
	}
	if s.tempDirs == nil {
		s.tempDirs = map[string]bool{}
	}
	s.tempDirs[d.tmp] = true
	return d, nil
}

// Path returns the staging folder, where the files go.
func (d *StagedDir) Path() string { return d.tmp }

// Target returns the folder that Commit puts in place.
func (d *StagedDir) Target() string { return d.target }

// Create runs create, which makes a file or folder in the staging folder,
// unless the Session is interrupted (then it returns ErrInterrupted): an
// interrupt, which removes the staging folder, never races a new file into
// it.
func (d *StagedDir) Create(create func() error) error {
	s := d.sess
	if s == nil {
		return create()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrInterrupted
	}
	return create()
}

// Commit renames the staging folder to its target, as one commit section
// of the Session (an interrupt waits for it). With sync, it first flushes
// every folder in the staging folder and the staging folder itself (the
// caller syncs the files it wrote), and after the rename the parent folder,
// (and, for folders StageDir created above the target, each one's parent),
// so that the new folder survives a power loss. Every handle of a file or
// folder in the staging folder must be closed: Windows does not rename a
// folder in which a handle is open. A failed rename removes the staging
// folder; so does a Commit refused because the Session was interrupted. A
// target that appeared meanwhile (another program; an unrmod run locks it)
// fails the rename, unless it is an empty folder, which is replaced.
func (d *StagedDir) Commit(sync bool) error {
	if d.done {
		return errors.New("safefile: StagedDir committed or aborted already")
	}
	end, err := d.sess.BeginCommit()
	if err != nil {
		d.Abort()
		return err
	}
	defer end()
	if sync {
		if err := syncTree(d.tmp); err != nil {
			d.Abort()
			return fmt.Errorf("sync %s: %w", d.tmp, err)
		}
	}
	if err := os.Rename(d.tmp, d.target); err != nil {
		d.Abort()
		return fmt.Errorf("rename %s into place: %w", d.target, err)
	}
	d.done = true
	d.forget()
	if sync {
		SyncDir(filepath.Dir(d.target))
		if len(d.above) > 1 {
			for _, a := range d.above[1:] {
				SyncDir(filepath.Dir(a))
			}
		}
	}
	return nil
}

// OutputDir prepares the folder dir for a run that writes files into it
// (an extract): when dir does not exist, it is staged (StageDir), and the
// files go into the staging folder, for the caller to Commit or Abort;
// otherwise the files are merged into dir itself and stage is nil. It
// returns the folder to write into.
func (s *Session) OutputDir(dir string) (stage *StagedDir, write string, err error) {
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		return nil, dir, os.MkdirAll(dir, 0o755)
	}
	if stage, err = s.StageDir(dir); err != nil {
		return nil, "", err
	}
	return stage, stage.Path(), nil
}

// Abort removes the staging folder and all it holds. It does nothing after
// Commit.
func (d *StagedDir) Abort() {
	if d.done {
		return
	}
	d.done = true
	os.RemoveAll(d.tmp)
	d.forget()
}

// forget stops tracking the staging folder.
func (d *StagedDir) forget() {
	if s := d.sess; s != nil {
		s.mu.Lock()
		delete(s.tempDirs, d.tmp)
		s.mu.Unlock()
	}
}

// syncTree flushes every folder under (and including) dir. Syncing a
// folder is best effort where the system cannot (Windows): only errors of
// walking the tree are returned.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			SyncDir(p)
		}
		return nil
	})
}
