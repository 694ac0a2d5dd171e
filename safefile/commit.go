package safefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A multi-file commit is made recoverable by a commit record: before the
// first rename, a small JSON file (see RecordName) is written beside the
// outputs, in every folder that holds one, listing each step of the commit.
// The temporary files are complete and synced before the record exists, so
// that an interrupted commit can always be finished (rolled forward) by the
// next run that locks one of the files; a rename that fails while the
// committing run is alive is undone instead (rolled back). Each output that
// exists is first renamed to a kept-original name (see OldName), so that
// its bytes stay until the commit is done.

// recordFormat is the "unrmod" field of a commit record.
const recordFormat = "commit 1"

// maxRecordSize bounds a commit record unrmod reads.
const maxRecordSize = 1 << 20

// maxRecordFiles bounds the files of a commit record unrmod reads.
const maxRecordFiles = 1 << 14

// RecordName returns the name of the commit record of a multi-file commit
// whose first output in a folder is called name: ".NAME.unrmod-commit"
// (NAME shortened as TempPrefix does).
func RecordName(name string) string { return TempPrefix(name) + "commit" }

// IsRecord reports whether entry is the name of a commit record.
func IsRecord(entry string) bool {
	return strings.HasPrefix(entry, ".") && strings.HasSuffix(entry, ".unrmod-commit") && len(entry) > len("..unrmod-commit")
}

// OldName returns the name under which a commit keeps the original of the
// file called name, for a writer tagged tag (digits): ".NAME.unrmod-TAG.old".
func OldName(name, tag string) string { return TempPrefix(name) + tag + ".old" }

// IsOldOf reports whether entry is a kept-original name of the file called
// name (see OldName).
func IsOldOf(entry, name string) bool {
	rest, ok := strings.CutSuffix(entry, ".old")
	return ok && IsTempOf(rest+".tmp", name)
}

// IsWorkFile reports whether entry names one of the files unrmod keeps
// beside its outputs while it writes them: a temporary file, a kept
// original or a commit record. Such names begin with a dot and hold
// ".unrmod-".
func IsWorkFile(entry string) bool {
	return strings.HasPrefix(entry, ".") && strings.Contains(entry, ".unrmod-")
}

// commitRecord is the content of a commit record file.
type commitRecord struct {
	Unrmod string `json:"unrmod"`
	// Files are the steps, in order. Paths are relative to the record's
	// folder, with forward slashes.
	Files []recordFile `json:"files"`
	// Records are the copies of the record, one per folder that holds an
	// output, this one among them.
	Records []string `json:"records"`
}

// recordFile is one file of a commit: Temp is renamed over Target after
// Target, when it exists, has been renamed to Old. Without Temp, the file
// is removed: renamed to Old.
type recordFile struct {
	Temp   string `json:"temp,omitempty"`
	Target string `json:"target"`
	Old    string `json:"old,omitempty"`
}

// commitFile is a recordFile with absolute paths.
type commitFile struct {
	temp, target, old string
}

// A Commit is an interrupted multi-file commit, read from its record.
type Commit struct {
	// Record is the path of the record file found.
	Record string
	// Targets are the files the commit writes or removes.
	Targets []string
	files   []commitFile
	records []string // every copy, absolute
	read    string   // the file of a Lock's uses it was found for
}

// UnfinishedError is the error of Session.Lock for a file the run reads
// that an interrupted commit writes: the file may be a mix of old and new.
type UnfinishedError struct {
	Path   string
	Commit *Commit
}

func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("%s: an unrmod write of it was interrupted while it renamed its files into place (recorded in %s); a run that writes it finishes that write first (unrmod recover does only that)", e.Path, e.Commit.Record)
}

// CommitError is the error of a multi-file commit whose rename failed.
type CommitError struct {
	// Target is the file whose rename failed.
	Target string
	// Err is the rename's error.
	Err error
	// RolledBack is true when every file was put back as it was before the
	// commit; otherwise Record names the commit record that lets the next
	// run that locks one of the files finish the commit.
	RolledBack bool
	Record     string
	// RollbackErr is why putting the files back failed.
	RollbackErr error
}

func (e *CommitError) Error() string {
	msg := fmt.Sprintf("replace %s: %v (is the file open in another program?)", e.Target, e.Err)
	if e.RolledBack {
		return msg + "; no file was changed"
	}
	return fmt.Sprintf("%s; putting the other files back failed too (%v): the record %s lets the next unrmod run that writes these files finish the write", msg, e.RollbackErr, e.Record)
}

func (e *CommitError) Unwrap() error { return e.Err }

// rel returns path relative to dir, with forward slashes.
func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// abs returns the path p of a record in dir.
func abs(dir, p string) string {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// encode returns the record of files as written in dir.
func encodeRecord(dir string, files []commitFile, records []string) ([]byte, error) {
	r := commitRecord{Unrmod: recordFormat}
	for _, f := range files {
		rf := recordFile{Target: rel(dir, f.target)}
		if f.temp != "" {
			rf.Temp = rel(dir, f.temp)
		}
		if f.old != "" {
			rf.Old = rel(dir, f.old)
		}
		r.Files = append(r.Files, rf)
	}
	for _, p := range records {
		r.Records = append(r.Records, rel(dir, p))
	}
	data, err := json.MarshalIndent(r, "", "  ")
	return append(data, '\n'), err
}

// ReadCommit reads the commit record at path and checks that it only names
// what a commit of unrmod's own writes: temporary files and kept originals
// beside their targets, removals in the record's own folder, copies named
// as records.
func ReadCommit(path string) (*Commit, error) {
	data, err := ReadRegular(path, maxRecordSize, "a commit record")
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: not a commit record unrmod wrote: %s", path, fmt.Sprintf(format, args...))
	}
	var r commitRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, bad("%v", err)
	}
	if r.Unrmod != recordFormat {
		return nil, bad("format %q, want %q", r.Unrmod, recordFormat)
	}
	if len(r.Files) == 0 || len(r.Files) > maxRecordFiles || len(r.Records) == 0 || len(r.Records) > maxRecordFiles {
		return nil, bad("%d files and %d copies", len(r.Files), len(r.Records))
	}
	dir := filepath.Dir(path)
	c := &Commit{Record: path}
	self, copyIn := false, map[string]bool{}
	for _, p := range r.Records {
		a := abs(dir, p)
		if !IsRecord(filepath.Base(a)) {
			return nil, bad("copy %s is not named as a record", p)
		}
		self = self || a == filepath.Clean(path)
		c.records = append(c.records, a)
		copyIn[filepath.Dir(a)] = true
	}
	if !self {
		return nil, bad("it does not list itself")
	}
	for i, rf := range r.Files {
		f := commitFile{target: abs(dir, rf.Target)}
		tdir, tname := filepath.Dir(f.target), filepath.Base(f.target)
		if rf.Temp != "" {
			f.temp = abs(dir, rf.Temp)
			if filepath.Dir(f.temp) != tdir || !IsTempOf(filepath.Base(f.temp), tname) {
				return nil, bad("file %d: %s is not a temporary file of %s", i, rf.Temp, rf.Target)
			}
		} else if !copyIn[tdir] || rf.Old == "" {
			return nil, bad("file %d: a removal of %s outside the folders of the record's copies", i, rf.Target)
		}
		if rf.Old != "" {
			f.old = abs(dir, rf.Old)
			if filepath.Dir(f.old) != tdir || !IsOldOf(filepath.Base(f.old), tname) {
				return nil, bad("file %d: %s is not a kept original of %s", i, rf.Old, rf.Target)
			}
		}
		c.files = append(c.files, f)
		c.Targets = append(c.Targets, f.target)
	}
	return c, nil
}

// recordsIn returns the paths of the commit records in dir.
func recordsIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && IsRecord(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// FindCommits returns the interrupted commits whose records lie in the
// folder of path (or in path, a folder) and that write path (any, for a
// folder). A record unrmod cannot read is an error when it lies in the
// folder asked about or is named after path, and is skipped otherwise.
func FindCommits(path string) ([]*Commit, error) {
	var f CommitFinder
	return f.Find(path)
}

// A CommitFinder is FindCommits for many files: it reads each folder's
// records once. The zero CommitFinder is ready to use.
type CommitFinder struct {
	read map[string]*folderRecords
}

// Find is FindCommits, with the records of the folders read before.
func (cf *CommitFinder) Find(path string) ([]*Commit, error) {
	if cf.read == nil {
		cf.read = map[string]*folderRecords{}
	}
	return findCommits(path, cf.read)
}

// folderRecords are the records of a folder: those read, and the errors
// of the others by name.
type folderRecords struct {
	commits []*Commit
	bad     map[string]error
}

// findCommits is FindCommits with the records read so far, by folder.
func findCommits(path string, read map[string]*folderRecords) ([]*Commit, error) {
	if p, err := filepath.Abs(path); err == nil {
		path = p
	}
	dir, id := filepath.Dir(path), ""
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		dir = path
	} else {
		id = Identity(path)
	}
	f := read[dir]
	if f == nil {
		f = &folderRecords{bad: map[string]error{}}
		for _, rp := range recordsIn(dir) {
			if c, err := ReadCommit(rp); err != nil {
				f.bad[filepath.Base(rp)] = err
			} else {
				f.commits = append(f.commits, c)
			}
		}
		read[dir] = f
	}
	for name, err := range f.bad {
		if id == "" || name == RecordName(filepath.Base(path)) {
			return nil, fmt.Errorf("%w; it keeps unrmod from writing %s: remove it if unrmod did not write it", err, path)
		}
	}
	var out []*Commit
	for _, c := range f.commits {
		if id == "" || c.writes(id) {
			out = append(out, c)
		}
	}
	return out, nil
}

// writes reports whether the commit writes the file of identity id.
func (c *Commit) writes(id string) bool {
	for _, t := range c.Targets {
		if Identity(t) == id {
			return true
		}
	}
	return false
}

// exists reports whether path names something (a link is not followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// isRegular reports whether path is a regular file (a link is not
// followed).
func isRegular(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular()
}

// rollForward finishes the commit: every temporary file still there is
// renamed over its target, every removal done, then the kept originals and
// the records removed. It changes nothing when it cannot finish: a
// temporary file whose target is missing too is gone.
//
// The copies of a record are written one after the other before the first
// rename, and removed after the last: when one is missing, the commit had
// not begun its renames (or had finished them), so that the files are all
// old (or all new), and only the other copies are removed. (The temporary
// files of a commit that had not begun are then leftovers.)
func (c *Commit) rollForward() error {
	for _, r := range c.records {
		if exists(r) {
			continue
		}
		for _, f := range c.files {
			if f.old != "" && exists(f.old) {
				return fmt.Errorf("%s: cannot finish the interrupted unrmod write it records: its copy %s is gone, yet the original of %s is kept as %s", c.Record, r, f.target, f.old)
			}
		}
		c.removeRecords()
		return nil
	}
	for _, f := range c.files {
		if f.temp == "" {
			continue
		}
		if !isRegular(f.temp) && !exists(f.target) {
			kept := ""
			if f.old != "" && exists(f.old) {
				kept = "; its original is kept as " + f.old
			}
			return fmt.Errorf("%s: cannot finish the interrupted unrmod write it records: the new %s (%s) is gone%s", c.Record, f.target, filepath.Base(f.temp), kept)
		}
	}
	dirs := map[string]bool{}
	for _, f := range c.files {
		dirs[filepath.Dir(f.target)] = true
		if f.temp == "" {
			if err := os.Remove(f.target); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("%s: finishing the interrupted unrmod write it records: %w", c.Record, err)
			}
			continue
		}
		if !isRegular(f.temp) {
			continue // renamed already
		}
		if err := os.Rename(f.temp, f.target); err != nil {
			return fmt.Errorf("%s: finishing the interrupted unrmod write it records: replace %s: %w (is the file open in another program?)", c.Record, f.target, err)
		}
	}
	for d := range dirs {
		SyncDir(d)
	}
	for _, f := range c.files {
		if f.old != "" {
			os.Remove(f.old)
		}
	}
	c.removeRecords()
	return nil
}

// removeRecords removes every copy of the record and syncs their folders.
func (c *Commit) removeRecords() {
	for _, r := range c.records {
		if os.Remove(r) == nil {
			SyncDir(filepath.Dir(r))
		}
	}
}

// names returns the base names of the commit's targets, for messages.
func (c *Commit) names() string {
	var n []string
	for _, t := range c.Targets {
		n = append(n, filepath.Base(t))
	}
	return strings.Join(n, ", ")
}

// commit is a Batch's commit under way.
type commit struct {
	b       *Batch
	files   []commitFile
	records []string
	step    int // steps run, for Session.CommitHook
}

// hook runs the Session's CommitHook before a step.
func (c *commit) hook() error {
	s := c.b.Session
	k := c.step
	c.step++
	if s == nil || s.CommitHook == nil {
		return nil
	}
	return s.CommitHook(k)
}

// newOldName returns a free kept-original name beside target, tagged with
// the digits of tmp when there is one.
func newOldName(target, tmp string) string {
	dir, name := filepath.Dir(target), filepath.Base(target)
	if tmp != "" {
		tag := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(tmp), TempPrefix(name)), ".tmp")
		if p := filepath.Join(dir, OldName(name, tag)); !exists(p) {
			return p
		}
	}
	for {
		p := filepath.Join(dir, OldName(name, strconv.FormatUint(uint64(rand.Uint32()), 10)))
		if !exists(p) {
			return p
		}
	}
}

// commitRecorded renames the batch's files into place as one recoverable
// commit (see the comment at the top of this file).
func (b *Batch) commitRecorded() error {
	c := &commit{b: b}
	dirs := map[string]bool{}
	var order []string // folders in the order of their first output
	for _, s := range b.staged {
		f := commitFile{temp: s.tmp, target: s.target}
		if st, err := os.Lstat(s.target); err == nil && st.IsDir() {
			b.Abort()
			return fmt.Errorf("replace %s: a folder is in the way; nothing was changed", s.target)
		} else if err == nil {
			f.old = newOldName(s.target, s.tmp)
		}
		c.files = append(c.files, f)
		if d := filepath.Dir(s.target); !dirs[d] {
			dirs[d] = true
			order = append(order, d)
			c.records = append(c.records, filepath.Join(d, RecordName(filepath.Base(s.target))))
		}
	}
	for _, r := range b.removals {
		if !isRegular(r) {
			continue
		}
		c.files = append(c.files, commitFile{target: r, old: newOldName(r, "")})
		if d := filepath.Dir(r); !dirs[d] {
			dirs[d] = true
			order = append(order, d)
			c.records = append(c.records, filepath.Join(d, RecordName(filepath.Base(r))))
		}
	}
	b.removals = nil
	// The temporary files' names are on disk before a record names them:
	// each folder is synced after its copy of the record is renamed into
	// it.
	if err := c.writeRecords(); err != nil {
		c.removeRecords()
		b.Abort()
		return err
	}
	b.Session.own(c.records, true)
	defer b.Session.own(c.records, false)

	type done struct{ from, to string }
	var steps []done
	for _, f := range c.files {
		var err error
		if f.old != "" {
			if err = c.hook(); err == nil {
				err = os.Rename(f.target, f.old)
			}
			if err == nil {
				steps = append(steps, done{f.target, f.old})
			}
		}
		if err == nil && f.temp != "" {
			if err = c.hook(); err == nil {
				err = os.Rename(f.temp, f.target)
			}
			if err == nil {
				steps = append(steps, done{f.temp, f.target})
			}
		}
		if err == nil {
			continue
		}
		// Put back what was done, newest first: each file returns to its
		// state before the commit, so that the record stays true (a run
		// that finds it rolls forward) until it is removed.
		ce := &CommitError{Target: f.target, Err: err, Record: c.records[0]}
		for i := len(steps) - 1; i >= 0 && ce.RollbackErr == nil; i-- {
			if ce.RollbackErr = c.hook(); ce.RollbackErr == nil {
				ce.RollbackErr = os.Rename(steps[i].to, steps[i].from)
			}
		}
		if ce.RollbackErr != nil {
			for _, s := range b.staged {
				b.Session.Forget(s.tmp)
			}
			b.staged = nil
			return ce
		}
		ce.RolledBack = true
		for _, d := range order {
			SyncDir(d)
		}
		c.removeRecords()
		b.Abort()
		return ce
	}
	for _, s := range b.staged {
		b.Session.Forget(s.tmp)
	}
	b.staged = nil
	for _, d := range order {
		SyncDir(d)
	}
	// Every file is in place; what is left is cleaning up, which a failure
	// (or a hook's error) skips.
	for _, f := range c.files {
		if f.old != "" && c.hook() == nil {
			os.Remove(f.old)
		}
	}
	// A record a crash brings back is harmless: finishing a finished
	// commit only removes it. So its removal is not synced.
	for _, r := range c.records {
		if c.hook() == nil {
			os.Remove(r)
		}
	}
	return nil
}

// removeRecords removes the records written so far.
func (c *commit) removeRecords() {
	for _, r := range c.records {
		os.Remove(r)
	}
}

// writeRecords writes a copy of the record in each folder, each through a
// synced temporary file renamed into place, and syncs the folders.
func (c *commit) writeRecords() error {
	for _, r := range c.records {
		if exists(r) {
			return fmt.Errorf("%s: an earlier unrmod write of these files was interrupted and is not finished; nothing was changed", r)
		}
		dir := filepath.Dir(r)
		data, err := encodeRecord(dir, c.files, c.records)
		if err != nil {
			return err
		}
		first := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(r), "."), ".unrmod-commit")
		f, err := os.CreateTemp(dir, TempPrefix(first)+"*.tmp")
		if err != nil {
			return fmt.Errorf("write %s: %w", r, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), r)
		}
		if err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("write %s: %w", r, err)
		}
		SyncDir(dir)
	}
	return nil
}

// recoverCommits finishes the interrupted commits among recs, each in a
// commit section, and says so on Log. The caller holds every target's lock.
func (s *Session) recoverCommits(recs []*Commit) error {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Record < recs[j].Record })
	for _, c := range recs {
		if !exists(c.Record) {
			continue // another copy of a commit finished already
		}
		end, err := s.BeginCommit()
		if err != nil {
			return err
		}
		err = c.rollForward()
		end()
		if err != nil {
			return err
		}
		s.logf("finished an interrupted unrmod write of %s in %s (%s)", plural(len(c.Targets), "file"), filepath.Dir(c.Record), c.names())
	}
	return nil
}

// plural returns "1 file", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Recover finishes the interrupted commits that write path (a file) or
// whose records lie in path (a folder): it locks their files, which
// finishes them (see Lock), and returns them. It needs a Session: a nil
// one locks nothing.
func (s *Session) Recover(path string) ([]*Commit, error) {
	if s == nil {
		return nil, errors.New("safefile: Recover needs a Session")
	}
	recs, err := FindCommits(path)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	var uses []Use
	for _, c := range recs {
		for _, t := range c.Targets {
			uses = append(uses, Use{Path: t, Write: true})
		}
	}
	l, err := s.Lock(uses...)
	if err != nil {
		return nil, err
	}
	l.Release()
	return recs, nil
}
