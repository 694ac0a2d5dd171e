// Package checkcache remembers which files passed unrmod's full check, as
// git's index remembers unchanged files: a record in a cache folder says
// that the files named by a key (a container's .utoc, whose .ucas files
// come with it) were read, every byte of their data checked, and found
// sound, and what the files were then (safefile.FileID: size, modification
// and change times, device and inode). A later run that finds the same
// files, by the identities of the handles it reads them through, can skip
// checking them again (iostore.RewriteOptions.SourceChecked).
//
// The cache is a value the caller makes with Open; nothing is global. Every
// failure to find a usable record is a miss, never a reason to stop: a
// missing, unreadable, corrupt or foreign record, files that changed, a
// check of another version (CheckVersion) or basis (what the check
// depended on, such as the key and decoders). A record is written
// atomically, one small file per key, the last writer winning; a folder
// that cannot be made only means that nothing is remembered.
//
// The format and what makes a lookup miss are described in docs/writes.md,
// "Remembered checks".
package checkcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// CheckVersion is the version of unrmod's checks that a record vouches
// for. It is bumped whenever what the full check of a container checks
// changes, so that records of an older check miss.
const CheckVersion = 1

// maxRecordSize bounds the records Lookup reads: a key, a basis and a few
// hundred file identities fit in a few tens of KiB.
const maxRecordSize = 1 << 20

// Errors of Lookup, each a miss, and of Record.
var (
	// ErrDisabled: the Cache is nil (remembering is turned off).
	ErrDisabled = errors.New("the check cache is off")
	// ErrNotRecorded: no record for the key.
	ErrNotRecorded = errors.New("no check is remembered for these files")
	// ErrOtherFile: the record is of another file whose key hashes to the
	// same record name.
	ErrOtherFile = errors.New("the remembered check is of another file")
	// ErrChanged: the files differ from those the record was made of
	// (Lookup), or changed while they were checked (Record).
	ErrChanged = errors.New("the files changed since they were checked")
	// ErrOtherCheck: the record is of another check version or basis.
	ErrOtherCheck = errors.New("the remembered check is of another version or basis")
	// ErrRacy: Record was asked to remember files changed so shortly
	// before the check began that a change after it could leave them
	// looking the same (see racyWindow).
	ErrRacy = errors.New("the files changed too shortly before the check to remember it")
)

// racyWindow is how long before a check a file must have last changed
// for the check to be remembered. A file's times advance in ticks (a
// jiffy of up to 10 ms on Linux, 15.6 ms on Windows): a change in the
// same tick as the file's last change before the check would leave its
// change time as it was. A file whose change time is older than the
// check by more than a tick gets a later one from any change. Without a
// change time the modification time counts, whose tick is up to 2 s (FAT).
const (
	racyWindow      = 100 * time.Millisecond
	racyWindowMTime = 2 * time.Second
)

// racy reports whether a file of files last changed within the racy
// window before checked, or after it.
func racy(files []safefile.FileID, checked time.Time) bool {
	for _, f := range files {
		t, window := f.ModTime, racyWindowMTime
		if f.HasChange {
			t, window = f.ChangeTime, racyWindow
		}
		if checked.UnixNano()-t < int64(window) {
			return true
		}
	}
	return false
}

// Cache is a folder of records. A nil *Cache remembers nothing: Lookup
// misses with ErrDisabled and Record records nothing.
type Cache struct {
	dir string
}

// Open returns the cache kept in dir, which is made (with its parents)
// when the first record is written. It never fails: a folder that cannot
// be read or made only makes every lookup miss and every Record fail. An
// empty dir names no folder: Open returns nil, which remembers nothing.
func Open(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: dir}
}

// Dir returns the cache's folder.
func (c *Cache) Dir() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// DefaultDir returns the cache folder of unrmod under the user's cache
// folder (os.UserCacheDir): .../unrmod/checks.
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "unrmod", "checks"), nil
}

// keyOf returns the normal form of key (see safefile.Identity: absolute,
// links resolved, case-folded where the file system folds case).
func keyOf(key string) string { return safefile.Identity(key) }

// recordPath returns the file of key's record: a hash of its normal form.
func (c *Cache) recordPath(key string) string {
	sum := sha256.Sum256([]byte(keyOf(key)))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:16])+".check")
}

// Lookup returns the record of key when it vouches for files, the
// identities of the files read now (the same files, in the same order, as
// given to Record), under the current CheckVersion and basis. Any other
// outcome is a miss, whose error says why: ErrDisabled, ErrNotRecorded,
// ErrOtherFile, ErrChanged, ErrOtherCheck, a *ue.FormatError for a damaged
// record, or the error that kept it from being read.
func (c *Cache) Lookup(key string, files []safefile.FileID, basis string) (*Record, error) {
	if c == nil {
		return nil, ErrDisabled
	}
	path := c.recordPath(key)
	data, err := safefile.ReadRegular(path, maxRecordSize, "a check record")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotRecorded
	}
	if err != nil {
		return nil, err
	}
	r := &Record{}
	if err := r.UnmarshalBinary(data); err != nil {
		var fe *ue.FormatError
		if errors.As(err, &fe) {
			fe.File = path
		}
		return nil, err
	}
	switch {
	case r.Key != keyOf(key):
		return nil, ErrOtherFile
	case r.CheckVersion != CheckVersion || r.Basis != basis:
		return nil, ErrOtherCheck
	case !slices.Equal(r.Files, files):
		return nil, ErrChanged
	}
	return r, nil
}

// Record remembers that the files of key passed the full check with
// basis, which began at the time checked: before and after are their
// identities taken before the check read them and after it was done, from
// the handles it read them through. Files that changed meanwhile (before
// and after differ) are not recorded: the error is ErrChanged; nor are
// files that changed less than a clock tick or so before the check began
// (ErrRacy: a change after the check could then leave them looking the
// same; the next check is remembered). The record replaces
// the key's earlier one atomically; a failure to write it is returned
// for the caller to mention, never a reason to fail its own work.
func (c *Cache) Record(key string, before, after []safefile.FileID, basis string, checked time.Time) error {
	if c == nil {
		return ErrDisabled
	}
	if len(before) == 0 || !slices.Equal(before, after) {
		return ErrChanged
	}
	if racy(before, checked) {
		return ErrRacy
	}
	r := &Record{Key: keyOf(key), CheckVersion: CheckVersion, Basis: basis, Checked: checked, Files: before}
	data, err := r.MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("check cache: %w", err)
	}
	if err := safefile.WriteFile(c.recordPath(key), data, 0o644); err != nil {
		return fmt.Errorf("check cache: %w", err)
	}
	return nil
}

// Forget removes the record of key, when there is one.
func (c *Cache) Forget(key string) error {
	if c == nil {
		return ErrDisabled
	}
	if err := os.Remove(c.recordPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Describe says in words why err made a lookup miss, for a note.
func Describe(err error) string {
	switch {
	case errors.Is(err, ErrDisabled):
		return "remembering checks is off"
	case errors.Is(err, ErrNotRecorded):
		return "no full check of it is remembered"
	case errors.Is(err, ErrChanged):
		return "its files changed since their last full check"
	case errors.Is(err, ErrOtherCheck):
		return "its last full check was made by another version of the check, or with another key or decoders"
	case errors.Is(err, ErrOtherFile):
		return "no full check of it is remembered"
	case errors.Is(err, ErrRacy):
		return "its files changed just before the check"
	}
	return fmt.Sprintf("the remembered check could not be read (%v)", err)
}

// checkedText prints t for a note.
func checkedText(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

// When says when the record's check was made, for a note.
func (r *Record) When() string { return checkedText(r.Checked) }
