package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// commitSet is a multi-file write as a container's is: files replaced, a
// file created, a file removed (a stale partition), and a file in another
// folder (a patch's second target).
type commitSet struct {
	dir, sub string
	old, new map[string]string // path → content; "" in new: removed, in old: absent
}

func newCommitSet(t *testing.T) *commitSet {
	t.Helper()
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	c := &commitSet{dir: dir, sub: sub,
		old: map[string]string{
			filepath.Join(dir, "Game.ucas"):    "old ucas",
			filepath.Join(dir, "Game_s1.ucas"): "old stale partition",
			filepath.Join(dir, "Game.utoc"):    "old utoc",
			filepath.Join(dir, "Game.pak"):     "",
			filepath.Join(sub, "Other.u"):      "old other",
		},
		new: map[string]string{
			filepath.Join(dir, "Game.ucas"):    "new ucas",
			filepath.Join(dir, "Game_s1.ucas"): "",
			filepath.Join(dir, "Game.utoc"):    "new utoc",
			filepath.Join(dir, "Game.pak"):     "new pak",
			filepath.Join(sub, "Other.u"):      "new other",
		},
	}
	for p, data := range c.old {
		if data != "" {
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c
}

// paths returns the set's files in a fixed order.
func (c *commitSet) paths() []string {
	var out []string
	for p := range c.old {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// stage stages the new files in a batch of s, in the order a container
// writer does: partitions, companion, .utoc; then the other folder.
func (c *commitSet) stage(t *testing.T, s *Session) *Batch {
	t.Helper()
	b := &Batch{Session: s}
	for _, name := range []string{"Game.ucas", "Game.pak", "Game.utoc"} {
		p := filepath.Join(c.dir, name)
		if err := b.Add(p, []byte(c.new[p]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := b.Create(filepath.Join(c.sub, "Other.u"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new other")
	b.Remove(filepath.Join(c.dir, "Game_s1.ucas"))
	return b
}

// state returns "old", "new" or "mixed": what the set's files hold.
func (c *commitSet) state(t *testing.T) string {
	t.Helper()
	isOld, isNew := true, true
	for p := range c.old {
		data, err := os.ReadFile(p)
		got := string(data)
		if err != nil {
			got = ""
		}
		isOld = isOld && got == c.old[p]
		isNew = isNew && got == c.new[p]
	}
	switch {
	case isOld:
		return "old"
	case isNew:
		return "new"
	}
	var b strings.Builder
	for _, p := range c.paths() {
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, " %s=%q", filepath.Base(p), data)
	}
	return "mixed:" + b.String()
}

// assertClean checks that the folders hold the files of state and nothing
// else (no temporary file, kept original or record).
func (c *commitSet) assertClean(t *testing.T, state string) {
	t.Helper()
	want := c.old
	if state == "new" {
		want = c.new
	}
	var top []string
	for p, data := range want {
		if data != "" && filepath.Dir(p) == c.dir {
			top = append(top, filepath.Base(p))
		}
	}
	assertOnly(t, c.dir, append(top, "sub")...)
	assertOnly(t, c.sub, "Other.u")
}

// errKilled is what the hook of a test panics with to stop a commit as a
// kill would: nothing after it runs.
type errKilled struct{ step int }

// commitKilledAt runs the set's commit and kills it before step k. It
// reports whether the kill happened (k was a step of the commit).
func commitKilledAt(t *testing.T, c *commitSet, k int) (killed bool) {
	t.Helper()
	s := &Session{LockDir: t.TempDir(), CommitHook: func(step int) error {
		if step == k {
			panic(errKilled{step})
		}
		return nil
	}}
	b := c.stage(t, s)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errKilled); !ok {
				panic(r)
			}
			killed = true
		}
	}()
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	return false
}

// A run killed before any step of a multi-file commit leaves files that
// the next run to lock any one of them completes: afterwards every file is
// the new one, never a mix, and nothing of the commit is left.
func TestCommitKilledAtEveryStep(t *testing.T) {
	for k := 0; ; k++ {
		c := newCommitSet(t)
		if !commitKilledAt(t, c, k) {
			if k < 10 {
				t.Fatalf("the commit ran only %d steps", k)
			}
			if st := c.state(t); st != "new" {
				t.Fatalf("a commit not killed left %s", st)
			}
			c.assertClean(t, "new")
			break
		}
		paths := c.paths()
		lockPath := paths[k%len(paths)]
		t.Run(fmt.Sprintf("step%d/lock_%s", k, filepath.Base(lockPath)), func(t *testing.T) {
			records := recordsIn(c.dir)
			if len(records) != 1 || len(recordsIn(c.sub)) != 1 {
				// The records go last: only their removal may be cut.
				if st := c.state(t); st != "new" {
					t.Fatalf("no record left beside %s", st)
				}
			}
			s, log := newSession(t, t.TempDir(), time.Second)
			l, err := s.Lock(Use{Path: lockPath, Write: true})
			if err != nil {
				t.Fatalf("the next run: %v", err)
			}
			l.Release()
			if st := c.state(t); st != "new" {
				t.Fatalf("after recovery: %s", st)
			}
			if left := append(recordsIn(c.dir), recordsIn(c.sub)...); len(left) > 0 {
				// Killed as it removed the copies of its record, with the
				// one beside the locked file gone already: the commit was
				// done, and the other copy goes when its folder's files
				// are locked.
				if len(records) != 0 && filepath.Dir(lockPath) == c.dir {
					t.Fatalf("records %v left", left)
				}
				var other string
				for _, p := range paths {
					if filepath.Dir(p) == filepath.Dir(left[0]) {
						other = p
					}
				}
				l, err := s.Lock(Use{Path: other, Write: true})
				if err != nil {
					t.Fatal(err)
				}
				l.Release()
			}
			c.assertClean(t, "new")
			if len(records) > 0 {
				m := log()
				if len(m) == 0 || !strings.HasPrefix(m[0], "finished an interrupted unrmod write of 5 files in ") {
					t.Errorf("log %q", m)
				}
			}
		})
	}
}

// A rename that fails (a file another program holds open) puts back every
// file renamed before it: the error names the file, and the set is the old
// one with nothing of the commit left.
func TestCommitRollsBackFailedRename(t *testing.T) {
	for k := 0; ; k++ {
		c := newCommitSet(t)
		failed := errors.New("sharing violation")
		s := &Session{LockDir: t.TempDir(), CommitHook: func(step int) error {
			if step == k {
				return failed
			}
			return nil
		}}
		b := c.stage(t, s)
		err := b.Commit()
		var ce *CommitError
		if !errors.As(err, &ce) {
			// The failure hit a step after the renames: cleaning up, which
			// a failure skips. The commit is done.
			if err != nil {
				t.Fatalf("step %d: %v", k, err)
			}
			if st := c.state(t); st != "new" {
				t.Fatalf("step %d: %s", k, st)
			}
			if k < 8 {
				t.Fatalf("step %d is not a rename", k)
			}
			break
		}
		if !errors.Is(err, failed) || !ce.RolledBack || !strings.Contains(err.Error(), "no file was changed") {
			t.Errorf("step %d: error %v (rolled back %v)", k, err, ce.RolledBack)
		}
		if _, ok := c.old[ce.Target]; !ok {
			t.Errorf("step %d: the error names %s", k, ce.Target)
		}
		if st := c.state(t); st != "old" {
			t.Fatalf("step %d: after the failed rename: %s", k, st)
		}
		c.assertClean(t, "old")
		if len(s.temps) != 0 {
			t.Errorf("step %d: still tracked: %v", k, s.temps)
		}
	}
}

// When putting the files back fails too, the record stays, and the next
// run finishes the commit.
func TestCommitRollbackFailsThenRecovers(t *testing.T) {
	for k := 1; k < 8; k++ {
		c := newCommitSet(t)
		s := &Session{LockDir: t.TempDir(), CommitHook: func(step int) error {
			if step == k || step == k+1 { // the rename, then the first rename back
				return errors.New("denied")
			}
			return nil
		}}
		err := c.stage(t, s).Commit()
		var ce *CommitError
		if !errors.As(err, &ce) || ce.RolledBack || ce.Record == "" || !strings.Contains(err.Error(), ce.Record) {
			t.Fatalf("step %d: %v", k, err)
		}
		next, _ := newSession(t, t.TempDir(), time.Second)
		l, err := next.Lock(Use{Path: filepath.Join(c.sub, "Other.u"), Write: true})
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		if st := c.state(t); st != "new" {
			t.Fatalf("step %d: %s", k, st)
		}
		c.assertClean(t, "new")
	}
}

// A target that is a folder is refused before anything is renamed: the
// other files of the batch are left as they were. (Before commits were
// recorded, the first files were renamed and the batch stopped at the
// folder.)
func TestCommitFolderInTheWay(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.u"), filepath.Join(dir, "b.u")
	os.WriteFile(a, []byte("old a"), 0o644)
	os.MkdirAll(filepath.Join(b, "x"), 0o755)
	var batch Batch
	if err := batch.Add(a, []byte("new a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := batch.Add(filepath.Join(dir, "b.u"), []byte("new b"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := batch.Commit()
	if err == nil || !strings.Contains(err.Error(), b) {
		t.Fatalf("commit: %v", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Errorf("a.u = %q", got)
	}
	assertOnly(t, dir, "a.u", "b.u")
}

// A commit whose new file is gone (removed by another program) cannot be
// finished: Lock fails naming the record, and nothing changes.
func TestRecoveryRefusesLostFile(t *testing.T) {
	c := newCommitSet(t)
	if !commitKilledAt(t, c, 1) { // Game.ucas renamed to its kept original
		t.Fatal("not killed")
	}
	temps, _ := filepath.Glob(filepath.Join(c.dir, ".Game.ucas.unrmod-*.tmp"))
	if len(temps) != 1 {
		t.Fatalf("temporary files %v", temps)
	}
	os.Remove(temps[0])
	before := c.state(t)
	s, _ := newSession(t, t.TempDir(), time.Second)
	_, err := s.Lock(Use{Path: filepath.Join(c.dir, "Game.utoc"), Write: true})
	if err == nil || !strings.Contains(err.Error(), "Game.ucas.unrmod-commit") || !strings.Contains(err.Error(), "is gone; its original is kept as") {
		t.Fatalf("Lock: %v", err)
	}
	if st := c.state(t); st != before {
		t.Errorf("changed: %s", st)
	}
	if recs, err := FindCommits(c.dir); err != nil || len(recs) != 1 {
		t.Errorf("records %v %v", recs, err)
	}
}

// Recover finishes the commits recorded in a folder; FindCommits finds
// them by folder or by file.
func TestRecoverFolder(t *testing.T) {
	c := newCommitSet(t)
	if !commitKilledAt(t, c, 3) {
		t.Fatal("not killed")
	}
	for _, p := range []string{c.dir, c.sub, filepath.Join(c.dir, "Game.pak"), filepath.Join(c.sub, "Other.u")} {
		if recs, err := FindCommits(p); err != nil || len(recs) != 1 || len(recs[0].Targets) != 5 {
			t.Errorf("FindCommits(%s): %v %v", p, recs, err)
		}
	}
	if recs, err := FindCommits(filepath.Join(c.dir, "Unrelated.u")); err != nil || len(recs) != 0 {
		t.Errorf("FindCommits(Unrelated.u): %v %v", recs, err)
	}
	s, log := newSession(t, t.TempDir(), time.Second)
	recs, err := s.Recover(c.sub)
	if err != nil || len(recs) != 1 {
		t.Fatalf("Recover: %v %v", recs, err)
	}
	if st := c.state(t); st != "new" {
		t.Fatal(st)
	}
	c.assertClean(t, "new")
	if m := log(); len(m) != 1 || !strings.Contains(m[0], "(Game.ucas, Game.pak, Game.utoc, Other.u, Game_s1.ucas)") {
		t.Errorf("log %q", m)
	}
}

// A record unrmod did not write is not followed: one naming files other
// than unrmod's temporary files and kept originals beside their targets,
// or removing files outside its folder, is refused; Lock fails for the
// file it is named after and ignores it for others.
func TestHostileRecords(t *testing.T) {
	tests := []struct {
		name, record string
	}{
		{"json", `{"unrmod": "commit 1", "files": [`},
		{"format", `{"unrmod": "commit 9", "files": [{"target": "Game.utoc"}], "records": [".Game.utoc.unrmod-commit"]}`},
		{"temp elsewhere", `{"unrmod": "commit 1", "files": [{"temp": "../x/.Game.utoc.unrmod-1.tmp", "target": "Game.utoc"}], "records": [".Game.utoc.unrmod-commit"]}`},
		{"temp of another", `{"unrmod": "commit 1", "files": [{"temp": "notes.txt", "target": "Game.utoc"}], "records": [".Game.utoc.unrmod-commit"]}`},
		{"removal outside", `{"unrmod": "commit 1", "files": [{"target": "../home/thesis.doc", "old": "../home/.thesis.doc.unrmod-1.old"}], "records": [".Game.utoc.unrmod-commit"]}`},
		{"old of another", `{"unrmod": "commit 1", "files": [{"temp": ".Game.utoc.unrmod-1.tmp", "target": "Game.utoc", "old": "notes.txt"}], "records": [".Game.utoc.unrmod-commit"]}`},
		{"copy not a record", `{"unrmod": "commit 1", "files": [{"temp": ".Game.utoc.unrmod-1.tmp", "target": "Game.utoc"}], "records": [".Game.utoc.unrmod-commit", "notes.txt"]}`},
		{"not itself", `{"unrmod": "commit 1", "files": [{"temp": ".Game.utoc.unrmod-1.tmp", "target": "Game.utoc"}], "records": [".Other.unrmod-commit"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			utoc := filepath.Join(dir, "Game.utoc")
			rec := filepath.Join(dir, RecordName("Game.utoc"))
			os.WriteFile(rec, []byte(tt.record), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
			if _, err := ReadCommit(rec); err == nil || !strings.Contains(err.Error(), rec) {
				t.Errorf("ReadCommit: %v", err)
			}
			s, _ := newSession(t, t.TempDir(), time.Second)
			if _, err := s.Lock(Use{Path: utoc, Write: true}); err == nil || !strings.Contains(err.Error(), "not a commit record unrmod wrote") {
				t.Errorf("Lock of the file the record is named after: %v", err)
			}
			l, err := s.Lock(Use{Path: filepath.Join(dir, "Other.utoc"), Write: true})
			if err != nil {
				t.Errorf("Lock of another file: %v", err)
			}
			l.Release()
			other := Use{Path: filepath.Join(dir, "Other.utoc"), Write: true}
			if _, err := s.Lock(other, Use{Path: utoc, Write: true}); err == nil {
				t.Error("Lock of another file and the one the record is named after succeeded")
			}
			if _, err := s.Recover(dir); err == nil || !strings.Contains(err.Error(), rec) {
				t.Errorf("Recover of the folder: %v", err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != "mine" {
				t.Error("notes.txt changed")
			}
		})
	}
}

// A run killed while it wrote the copies of its record had renamed
// nothing: a copy alone is dropped, and the files stay the old ones.
func TestRecoveryOfUnbegunCommit(t *testing.T) {
	c := newCommitSet(t)
	if !commitKilledAt(t, c, 0) {
		t.Fatal("not killed")
	}
	os.Remove(recordsIn(c.sub)[0]) // as if killed before it was written
	s, _ := newSession(t, t.TempDir(), time.Second)
	l, err := s.Lock(Use{Path: filepath.Join(c.dir, "Game.utoc"), Write: true}, Use{Path: filepath.Join(c.sub, "Other.u"), Write: true})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if st := c.state(t); st != "old" {
		t.Fatal(st)
	}
	// The locked files' temporary files are leftovers now, removed.
	assertOnly(t, c.sub, "Other.u")
	if recs := recordsIn(c.dir); len(recs) != 0 {
		t.Errorf("records %v", recs)
	}
}

// A run that only reads a file of an unfinished commit (a dry run, the
// input of a rewrite) changes nothing and fails naming the record.
func TestReadLockRefusesUnfinishedCommit(t *testing.T) {
	c := newCommitSet(t)
	if !commitKilledAt(t, c, 2) {
		t.Fatal("not killed")
	}
	before := c.state(t)
	s, _ := newSession(t, t.TempDir(), time.Second)
	utoc := filepath.Join(c.dir, "Game.utoc")
	_, err := s.Lock(Use{Path: utoc})
	var ue *UnfinishedError
	if !errors.As(err, &ue) || ue.Path != utoc || !strings.Contains(err.Error(), ".Game.ucas.unrmod-commit") {
		t.Fatalf("Lock for reading: %v", err)
	}
	if st := c.state(t); st != before {
		t.Fatalf("a read lock changed the files: %s", st)
	}
	l, err := s.Lock(Use{Path: utoc, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if st := c.state(t); st != "new" {
		t.Fatal(st)
	}
}
