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

type staged struct{ tmp, target string }

// Add writes data to a temporary file beside path.
func (b *Batch) Add(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
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
	b.staged = append(b.staged, staged{tmp, path})
	return nil
}

// Commit renames every staged file over its target. If a rename fails, the
// files not yet renamed are removed and the error names the target.
func (b *Batch) Commit() error {
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
		os.Remove(s.tmp)
	}
	b.staged = nil
}
