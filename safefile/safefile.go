// Package safefile writes files atomically: each file is written to a
// temporary file in the target's directory (see TempPrefix), synced, and
// renamed over the target only when every file of a batch has been written.
// A batch of several files is committed as one: a commit record beside the
// outputs lets the next run finish a commit a killed run left half done,
// and a rename that fails puts the other files back (see Batch.Commit).
//
// A Session stands for one run: it locks the files the run reads and
// writes against other runs, and tracks the temporary files so that an
// interrupted run removes them (Session.Interrupt).
//
// The writers of unrmod's formats take a *Session in their options
// (iostore.WriterOptions, iostore.RewriteOptions, pak.ExtractOptions,
// patch.Options, …): a program that writes through several of them in one
// run passes one Session to all, so that their locks and temporary files
// are one run's. A nil Session locks and tracks nothing; the files are
// still written atomically.
package safefile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// WriteFile atomically replaces path with data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return (*Session)(nil).WriteFile(path, data, perm)
}

// WriteFile atomically replaces path with data, tracking the temporary
// file (see Batch.Session).
func (s *Session) WriteFile(path string, data []byte, perm os.FileMode) error {
	b := Batch{Session: s}
	if err := b.Add(path, data, perm); err != nil {
		return err
	}
	return b.Commit()
}

// Batch stages several files and renames them into place together: either
// every target is replaced or none is (see Commit).
//
// A target that exists keeps its permissions, and a target that is a
// symbolic link is written through: the file it leads to is replaced and the
// link stays.
//
// Create, Add, Remove and Take may be called from several goroutines at
// once (a container's partitions are created as its chunks are placed,
// while its caller adds a companion file); Commit, Abort and Unchanged run
// after them.
type Batch struct {
	// Session, when set, tracks the temporary files (an interrupt removes
	// them) and runs Commit's renames as one commit section.
	Session *Session

	mu       sync.Mutex
	staged   []staged
	removals []string // files Commit removes
}

// stage adds s to the staged files.
func (b *Batch) stage(s staged) {
	b.mu.Lock()
	b.staged = append(b.staged, s)
	b.mu.Unlock()
}

type staged struct {
	tmp, target string
	f           *os.File // open for streaming (Create), synced and closed by Commit
	perm        os.FileMode
}

// destination returns where a write to path goes: the file a symbolic link
// leads to, else path; and the permissions to give it: the existing file's,
// else perm.
func destination(path string, perm os.FileMode) (string, os.FileMode) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		perm = st.Mode().Perm()
	}
	return path, perm
}

// createTemp creates the temporary file of target beside it.
func (b *Batch) createTemp(target string) (*os.File, error) {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var f *os.File
	err := b.Session.Create(func() (string, error) {
		var err error
		f, err = os.CreateTemp(dir, TempPrefix(filepath.Base(target))+"*.tmp")
		if err != nil {
			return "", err
		}
		return f.Name(), nil
	})
	return f, err
}

// Create opens a temporary file beside path for the caller to stream into.
// Commit syncs, closes and renames it; Abort closes and removes it. The
// caller must not close the file.
func (b *Batch) Create(path string, perm os.FileMode) (*os.File, error) {
	target, perm := destination(path, perm)
	f, err := b.createTemp(target)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	b.stage(staged{tmp: f.Name(), target: target, f: f, perm: perm})
	return f, nil
}

// Add writes data to a temporary file beside path.
func (b *Batch) Add(path string, data []byte, perm os.FileMode) error {
	target, perm := destination(path, perm)
	f, err := b.createTemp(target)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err != nil {
		b.remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	b.stage(staged{tmp: tmp, target: target, perm: perm})
	return nil
}

// Remove stages the removal of the file at path, if there is one, as part
// of the commit: the file is removed together with the renames, and kept
// until they are done (a failed commit leaves it).
func (b *Batch) Remove(path string) {
	b.mu.Lock()
	b.removals = append(b.removals, path)
	b.mu.Unlock()
}

// Take moves the files staged in other, and its removals, into b, to be
// committed with b's own as one commit.
func (b *Batch) Take(other *Batch) {
	other.mu.Lock()
	staged, removals := other.staged, other.removals
	other.staged, other.removals = nil, nil
	other.mu.Unlock()
	b.mu.Lock()
	b.staged = append(b.staged, staged...)
	b.removals = append(b.removals, removals...)
	b.mu.Unlock()
}

// remove removes the temporary file tmp.
func (b *Batch) remove(tmp string) {
	os.Remove(tmp)
	b.Session.Forget(tmp)
}

// finish syncs and closes the streamed files.
func (b *Batch) finish() error {
	var err error
	for i := range b.staged {
		s := &b.staged[i]
		if s.f == nil {
			continue
		}
		e := s.f.Sync()
		if cerr := s.f.Close(); e == nil {
			e = cerr
		}
		if e == nil {
			e = os.Chmod(s.tmp, s.perm)
		}
		s.f = nil
		if e != nil && err == nil {
			err = fmt.Errorf("write %s: %w", s.target, e)
		}
	}
	return err
}

// Unchanged reports whether every staged file holds what its target holds
// already, so that the commit would change nothing on disk.
func (b *Batch) Unchanged() bool {
	for _, s := range b.staged {
		if !sameContent(s.tmp, s.target) {
			return false
		}
	}
	return true
}

// sameContent reports whether files a and b hold the same bytes.
func sameContent(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	sa, errA := fa.Stat()
	sb, errB := fb.Stat()
	if errA != nil || errB != nil || !sb.Mode().IsRegular() || sa.Size() != sb.Size() {
		return false
	}
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		n, errA := io.ReadFull(fa, bufA)
		m, errB := io.ReadFull(fb, bufB)
		if n != m || !bytes.Equal(bufA[:n], bufB[:m]) {
			return false
		}
		if errA == io.EOF || errA == io.ErrUnexpectedEOF {
			return errB == errA
		}
		if errA != nil || errB != nil {
			return false
		}
	}
}

// Commit renames every staged file over its target, removes the files
// given to Remove and syncs the folders that hold them. With a Session, the
// renames are one commit section (see Session.BeginCommit).
//
// A single file is renamed into place. Several files are committed as one:
// a commit record listing every step is written beside the outputs (one
// copy in each folder, see RecordName) before the first rename, and each
// existing target is renamed to a kept-original name (see OldName) before
// its new file takes its place. If a rename fails, the files renamed so far
// are put back and the temporary files removed, and the *CommitError names
// the target. If the run is killed during the renames, the next run that
// locks one of the files finishes the commit (Session.Lock). Once every
// file is in place, the kept originals and the records are removed.
func (b *Batch) Commit() error {
	if err := b.finish(); err != nil {
		b.Abort()
		if b.Session.interrupted() {
			return ErrInterrupted
		}
		return err
	}
	end, err := b.Session.BeginCommit()
	if err != nil {
		b.Abort()
		return err
	}
	defer end()
	if len(b.staged)+len(b.removals) > 1 {
		return b.commitRecorded()
	}
	for _, r := range b.removals {
		if isRegular(r) {
			if err := os.Remove(r); err != nil {
				return fmt.Errorf("remove %s: %w", r, err)
			}
			SyncDir(filepath.Dir(r))
		}
	}
	b.removals = nil
	if len(b.staged) == 0 {
		return nil
	}
	s := b.staged[0]
	b.staged = nil
	if err := os.Rename(s.tmp, s.target); err != nil {
		b.remove(s.tmp)
		return fmt.Errorf("replace %s: %w (is the file open in another program?)", s.target, err)
	}
	b.Session.Forget(s.tmp)
	SyncDir(filepath.Dir(s.target))
	return nil
}

// SyncDir flushes a folder's entries (the names renames put there) to stable
// storage. It is best effort: some systems (Windows) cannot sync folders,
// and by the time it runs the renames are done.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Abort removes every staged temporary file.
func (b *Batch) Abort() {
	for _, s := range b.staged {
		if s.f != nil {
			s.f.Close()
		}
		b.remove(s.tmp)
	}
	b.staged = nil
	b.removals = nil
}
