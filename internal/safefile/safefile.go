// Package safefile writes files atomically: each file is written to a
// temporary file in the target's directory, synced, and renamed over the
// target only when every file of a batch has been written.
package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces path with data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	var b Batch
	if err := b.Add(path, data, perm); err != nil {
		return err
	}
	return b.Commit()
}

// Batch stages several files and renames them into place together: either
// every target is replaced or, on failure before the renames, none is.
type Batch struct {
	staged []staged
}

type staged struct {
	tmp, target string
	f           *os.File // open for streaming (Create), synced and closed by Commit
	perm        os.FileMode
}

// TempPattern is the pattern of the temporary names beside a target: a dot,
// the target's name, a random part and ".tmp".
const TempPattern = ".%s.*.tmp"

// Create opens a temporary file beside path for the caller to stream into.
// Commit syncs, closes and renames it; Abort closes and removes it. The
// caller must not close the file.
func (b *Batch) Create(path string, perm os.FileMode) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf(TempPattern, filepath.Base(path)))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	b.staged = append(b.staged, staged{tmp: f.Name(), target: path, f: f, perm: perm})
	return f, nil
}

// Add writes data to a temporary file beside path.
func (b *Batch) Add(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf(TempPattern, filepath.Base(path)))
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
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	b.staged = append(b.staged, staged{tmp: tmp, target: path})
	return nil
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

// Commit renames every staged file over its target. If a rename fails, the
// files not yet renamed are removed and the error names the target.
func (b *Batch) Commit() error {
	if err := b.finish(); err != nil {
		b.Abort()
		return err
	}
	var errs []error
	for k, s := range b.staged {
		if err := os.Rename(s.tmp, s.target); err != nil {
			errs = append(errs, fmt.Errorf("replace %s: %w (is the file open in another program?)", s.target, err))
			for _, r := range b.staged[k:] {
				os.Remove(r.tmp)
			}
			break
		}
	}
	b.staged = nil
	return errors.Join(errs...)
}

// Abort removes every staged temporary file.
func (b *Batch) Abort() {
	for _, s := range b.staged {
		if s.f != nil {
			s.f.Close()
		}
		os.Remove(s.tmp)
	}
	b.staged = nil
}
