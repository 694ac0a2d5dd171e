package safefile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// ErrInterrupted is returned by writes a Session refuses once it has been
// interrupted.
var ErrInterrupted = errors.New("interrupted")

// DefaultLockWait is how long Lock waits for another run by default.
const DefaultLockWait = 30 * time.Second

// lockRetry is how often a waiting Lock tries again.
const lockRetry = 50 * time.Millisecond

// A Session is one run of unrmod as the files it touches see it. It locks
// the files the run reads and writes, so that two runs never write one file
// or read a file another is writing; it tracks the temporary files the run
// writes, so that Interrupt can remove them; and it reports what the user
// should know (a wait for another run, leftovers removed) through Log.
//
// The zero Session is ready to use; a nil *Session locks and tracks
// nothing. A Session is safe for concurrent use, but concurrent Lock calls
// should not race for the same file.
type Session struct {
	// LockDir holds the lock files; "" means DefaultLockDir().
	LockDir string
	// LockWait bounds how long Lock waits for another run to release a
	// file; 0 means DefaultLockWait.
	LockWait time.Duration
	// Log, when set, receives messages for the user.
	Log func(msg string)
	// CommitHook, when set, is called before each step of a multi-file
	// commit once its record is written (each rename, those that put files
	// back after a failure too, then each removal of a kept original or
	// record), with the step's number from 0. An error fails the step as a
	// failed rename would. It is for tests, which
	// simulate a failure or a killed run with it.
	CommitHook func(step int) error

	mu    sync.Mutex
	idle  *sync.Cond // broadcast when commits drops to 0
	temps map[string]bool
	// tempDirs are the staging folders of StageDir not yet committed.
	tempDirs map[string]bool
	commits  int  // commit sections running
	stopped  bool // Interrupt was called
	held     map[string]*heldLock
	records  map[string]bool // records of this Session's commits under way
}

type heldLock struct {
	fl    *flock.Flock
	write bool
	refs  int
}

// DefaultLockDir returns the per-user folder of lock files:
// os.UserCacheDir()/unrmod/locks.
func DefaultLockDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for lock files: %w", err)
	}
	return filepath.Join(d, "unrmod", "locks"), nil
}

func (s *Session) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, args...))
	}
}

// Use is a file (or folder) a run reads or writes.
type Use struct {
	Path  string
	Write bool
	// What says what the file is to the run, for errors (CheckUses):
	// "the input container's .ucas", "the output .utoc".
	What string
	// Name, when set, makes the file one with every use of the same
	// Name, whatever their paths say: the names of one IoStore container
	// that differ only in the case of the extension (X.utoc, X.UTOC) are
	// one container, whose parts are one set of files.
	Name string
}

// Locks are the locks one Lock call took.
type Locks struct {
	s    *Session
	keys []string
}

// Lock takes an advisory lock on every file of uses for the caller to hold
// while it reads and writes them: shared for reading, exclusive for writing.
// A file is known by its Identity, and its lock is a file named by the
// identity's hash in LockDir, so that no lock file lands beside game files.
// Locks are taken in the order of their names, so that two runs never wait
// for each other. When a file is busy, Log is told which, and Lock waits up
// to LockWait before it fails with an error naming the file. A file this
// Session holds already is not locked again.
//
// A commit record (see Batch.Commit) beside a file of uses written that
// lists it means a killed run left a commit unfinished: Lock also locks,
// for writing, every file the commit writes, finishes it (rolls it
// forward), and says so on Log, before it returns. A record that cannot be
// finished fails Lock, and so does one that lists a file only read, with
// an *UnfinishedError.
//
// Once every lock is held, the temporary files a killed run left beside
// each file of uses written are removed (no other run can be writing them),
// and Log says so.
func (s *Session) Lock(uses ...Use) (*Locks, error) {
	if s == nil {
		return &Locks{}, nil
	}
	var writes, reads []Use
	for _, u := range uses {
		if u.Write {
			writes = append(writes, u)
		} else {
			reads = append(reads, u)
		}
	}
	for attempt := 0; ; attempt++ {
		recs, err := s.commitsOf(writes)
		if err != nil {
			return nil, err
		}
		all := uses
		for _, c := range recs {
			for _, t := range c.Targets {
				all = append(all, Use{Path: t, Write: true})
			}
		}
		l, err := s.lockAll(all)
		if err != nil {
			return nil, err
		}
		// A record may have appeared since it was looked for: if one names
		// a file that is not locked for writing, lock again.
		recs, err = s.commitsOf(writes)
		if err == nil && !s.holdsAll(recs) {
			l.Release()
			if attempt < 3 {
				continue
			}
			err = fmt.Errorf("%s: an interrupted unrmod write of it changed while it was locked; try again", recs[0].Record)
		}
		if err == nil {
			err = s.recoverCommits(recs)
		}
		if err == nil {
			// A file only read is not written to finish its commit: the
			// run may be a dry one.
			if recs, err = s.commitsOf(reads); err == nil && len(recs) > 0 {
				err = &UnfinishedError{Path: recs[0].read, Commit: recs[0]}
			}
		}
		if err != nil {
			l.Release()
			return nil, err
		}
		for _, u := range uses {
			if u.Write {
				s.removeLeftovers(u.Path)
			}
		}
		return l, nil
	}
}

// commitsOf returns the interrupted commits, other than this Session's
// own, that write a file of uses.
func (s *Session) commitsOf(uses []Use) ([]*Commit, error) {
	seen := map[string]bool{}
	var finder CommitFinder
	var out []*Commit
	for _, u := range uses {
		if st, err := os.Stat(u.Path); err == nil && st.IsDir() {
			continue
		}
		recs, err := finder.Find(u.Path)
		if err != nil {
			return nil, err
		}
		for _, c := range recs {
			if !seen[c.Record] && !s.owns(c.Record) {
				c.read = u.Path
				seen[c.Record] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// holdsAll reports whether the Session holds the write lock of every file
// of recs.
func (s *Session) holdsAll(recs []*Commit) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range recs {
		for _, t := range c.Targets {
			if h := s.held[Identity(t)]; h == nil || !h.write {
				return false
			}
		}
	}
	return true
}

// own marks records as this Session's commit under way (or no longer).
func (s *Session) own(records []string, on bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.records == nil {
		s.records = map[string]bool{}
	}
	for _, r := range records {
		if a, err := filepath.Abs(r); err == nil {
			r = a
		}
		if on {
			s.records[r] = true
		} else {
			delete(s.records, r)
		}
	}
}

// owns reports whether record is of this Session's commit under way.
func (s *Session) owns(record string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records[record]
}

// lockAll takes the locks of uses in the order of their identities.
func (s *Session) lockAll(uses []Use) (*Locks, error) {
	l := &Locks{s: s}
	type want struct {
		path  string
		write bool
	}
	wants := map[string]*want{}
	for _, u := range uses {
		k := Identity(u.Path)
		if w := wants[k]; w != nil {
			w.write = w.write || u.Write
			continue
		}
		wants[k] = &want{u.Path, u.Write}
	}
	keys := make([]string, 0, len(wants))
	for k := range wants {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w := wants[k]
		if err := s.lockOne(k, w.path, w.write); err != nil {
			l.Release()
			return nil, err
		}
		l.keys = append(l.keys, k)
	}
	return l, nil
}

// lockOne takes or shares the lock of the file whose identity is key.
func (s *Session) lockOne(key, path string, write bool) error {
	s.mu.Lock()
	if h := s.held[key]; h != nil {
		defer s.mu.Unlock()
		if write && !h.write {
			return fmt.Errorf("%s: this run reads it and may not write it too", path)
		}
		h.refs++
		return nil
	}
	s.mu.Unlock()

	dir := s.LockDir
	if dir == "" {
		var err error
		if dir, err = DefaultLockDir(); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	sum := sha256.Sum256([]byte(key))
	fl := flock.New(filepath.Join(dir, hex.EncodeToString(sum[:])+".lock"))
	tryNow, tryCtx := fl.TryRLock, fl.TryRLockContext
	if write {
		tryNow, tryCtx = fl.TryLock, fl.TryLockContext
	}
	ok, err := tryNow()
	if !ok && err == nil {
		wait := s.LockWait
		if wait <= 0 {
			wait = DefaultLockWait
		}
		what := "writes"
		if write {
			what = "reads or writes"
		}
		s.logf("waiting for another unrmod run that %s %s", what, path)
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		ok, err = tryCtx(ctx, lockRetry)
		cancel()
		if !ok && (err == nil || errors.Is(err, context.DeadlineExceeded)) {
			return fmt.Errorf("%s: another unrmod run still %s it after %v; try again when it has finished", path, what, wait)
		}
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]*heldLock{}
	}
	s.held[key] = &heldLock{fl: fl, write: write, refs: 1}
	return nil
}

// Release gives the locks back (those another Lock call of the Session
// shares stay until it releases them too).
func (l *Locks) Release() {
	if l == nil || l.s == nil {
		return
	}
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range l.keys {
		h := s.held[k]
		if h == nil {
			continue
		}
		if h.refs--; h.refs == 0 {
			h.fl.Unlock()
			delete(s.held, k)
		}
	}
	l.keys = nil
}

// removeLeftovers removes the temporary files of path (see TempPrefix) that
// a killed run left beside it, and the staging folders (StageDir) of path
// with all they hold. A temporary file is removed only beside a path that is
// not a folder. The caller holds path's lock.
func (s *Session) removeLeftovers(path string) {
	isDir := false
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		isDir = true
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	files, folders := 0, 0
	for _, e := range entries {
		if !IsTempOf(e.Name(), name) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if !s.trackedDir(p) && os.RemoveAll(p) == nil {
				folders++
			}
		case e.Type().IsRegular() && !isDir:
			if !s.tracked(p) && os.Remove(p) == nil {
				files++
			}
		}
	}
	s.ReportLeftovers(dir, files)
	if folders > 0 {
		what := "folders"
		if folders == 1 {
			what = "folder"
		}
		s.logf("removed %d temporary %s a killed unrmod run left in %s", folders, what, dir)
	}
}

// ReportLeftovers tells Log that n temporary files a killed run left in dir
// were removed.
func (s *Session) ReportLeftovers(dir string, n int) {
	if s == nil || n == 0 {
		return
	}
	files := "files"
	if n == 1 {
		files = "file"
	}
	s.logf("removed %d temporary %s a killed unrmod run left in %s", n, files, dir)
}

// trackedDir reports whether path is a staging folder of this Session.
func (s *Session) trackedDir(path string) bool {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tempDirs[path]
}

// tracked reports whether path is a temporary file of this Session.
func (s *Session) tracked(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.temps[path]
}

// Create runs create, which makes a temporary file and returns its path,
// and tracks the file until Forget, so that Interrupt removes it. Once the
// Session is interrupted, Create makes nothing and returns ErrInterrupted.
// A nil Session just runs create.
func (s *Session) Create(create func() (string, error)) error {
	if s == nil {
		_, err := create()
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrInterrupted
	}
	path, err := create()
	if err != nil {
		return err
	}
	if s.temps == nil {
		s.temps = map[string]bool{}
	}
	s.temps[path] = true
	return nil
}

// interrupted reports whether Interrupt was called.
func (s *Session) interrupted() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// Forget stops tracking the temporary file path: it was renamed into place
// or removed.
func (s *Session) Forget(path string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	delete(s.temps, path)
	s.mu.Unlock()
}

// BeginCommit starts a commit section, the renames that put a run's output
// into place: Interrupt waits for running sections to end, so that an
// interrupt never leaves half of a batch renamed. It fails with
// ErrInterrupted once the Session is interrupted, unless another section is
// still running (a section may open others). Call end when the renames are
// done.
func (s *Session) BeginCommit() (end func(), err error) {
	if s == nil {
		return func() {}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped && s.commits == 0 {
		return nil, ErrInterrupted
	}
	s.commits++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.commits--; s.commits == 0 && s.idle != nil {
				s.idle.Broadcast()
			}
		})
	}, nil
}

// Interrupt stops the Session: it waits for the running commit sections,
// removes every temporary file and staging folder (StageDir) still tracked
// and returns their names. Later
// Create and BeginCommit calls fail with ErrInterrupted. It is what a signal
// handler calls before the program exits.
func (s *Session) Interrupt() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.idle == nil {
		s.idle = sync.NewCond(&s.mu)
	}
	for s.commits > 0 {
		s.idle.Wait()
	}
	var removed []string
	for p := range s.temps {
		if err := os.Remove(p); err == nil || errors.Is(err, os.ErrNotExist) {
			removed = append(removed, p)
		}
	}
	s.temps = nil
	for p := range s.tempDirs {
		if err := os.RemoveAll(p); err == nil {
			removed = append(removed, p)
		}
	}
	s.tempDirs = nil
	sort.Strings(removed)
	return removed
}
