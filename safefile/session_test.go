package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// newSession returns a Session with its own lock folder and a log the test
// can read.
func newSession(t *testing.T, lockDir string, wait time.Duration) (*Session, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var msgs []string
	s := &Session{LockDir: lockDir, LockWait: wait, Log: func(m string) {
		mu.Lock()
		msgs = append(msgs, m)
		mu.Unlock()
	}}
	return s, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), msgs...)
	}
}

// Two runs (Sessions) that use one file: readers share it, a writer waits
// for the others and fails after LockWait with an error naming the file.
func TestLockExcludesOtherRuns(t *testing.T) {
	tests := []struct {
		name          string
		first, second bool // write?
		waits         bool
	}{
		{"read/read", false, false, false},
		{"read/write", false, true, true},
		{"write/read", true, false, true},
		{"write/write", true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			locks := filepath.Join(dir, "locks")
			file := filepath.Join(dir, "Map.unr")
			a, _ := newSession(t, locks, time.Second)
			b, log := newSession(t, locks, 200*time.Millisecond)
			la, err := a.Lock(Use{Path: file, Write: tt.first})
			if err != nil {
				t.Fatal(err)
			}
			lb, err := b.Lock(Use{Path: file, Write: tt.second})
			if !tt.waits {
				if err != nil {
					t.Fatalf("second run: %v", err)
				}
				lb.Release()
				la.Release()
				return
			}
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "another unrmod run") {
				t.Fatalf("second run got %v, want an error naming %s", err, file)
			}
			if m := log(); len(m) != 1 || !strings.HasPrefix(m[0], "waiting for another unrmod run that") || !strings.HasSuffix(m[0], file) {
				t.Errorf("log %q", m)
			}
			la.Release()
			lb, err = b.Lock(Use{Path: file, Write: tt.second})
			if err != nil {
				t.Fatalf("after the first run released the file: %v", err)
			}
			lb.Release()
		})
	}
}

// The lock names a file's identity: a path through a symbolic link to its
// folder locks the same file, and no lock file lands beside it.
func TestLockFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "game")
	os.Mkdir(real, 0o755)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	locks := filepath.Join(dir, "locks")
	a, _ := newSession(t, locks, time.Second)
	b, _ := newSession(t, locks, 100*time.Millisecond)
	la, err := a.Lock(Use{Path: filepath.Join(real, "X.u"), Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Release()
	if _, err := b.Lock(Use{Path: filepath.Join(link, "X.u"), Write: true}); err == nil {
		t.Fatal("a path through a link to the folder is not the same lock")
	}
	if ents, _ := os.ReadDir(real); len(ents) != 0 {
		t.Errorf("lock files beside the file: %v", ents)
	}
}

// One Session locks a file it holds again without waiting for itself.
func TestLockReentrant(t *testing.T) {
	dir := t.TempDir()
	s, _ := newSession(t, filepath.Join(dir, "locks"), 100*time.Millisecond)
	file := filepath.Join(dir, "a.u")
	l1, err := s.Lock(Use{Path: file, Write: true}, Use{Path: file, Write: false})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := s.Lock(Use{Path: file, Write: true})
	if err != nil {
		t.Fatalf("locking a held file again: %v", err)
	}
	l2.Release()
	other, _ := newSession(t, filepath.Join(dir, "locks"), 50*time.Millisecond)
	if _, err := other.Lock(Use{Path: file, Write: false}); err == nil {
		t.Fatal("the file was released while the first Lock still holds it")
	}
	l1.Release()
	if l, err := other.Lock(Use{Path: file, Write: false}); err != nil {
		t.Fatal(err)
	} else {
		l.Release()
	}
}

// Locks are taken in a fixed order whatever the order of the uses, so that
// two runs never wait for each other: a run waiting for b.u already holds
// a.u.
func TestLockOrder(t *testing.T) {
	dir := t.TempDir()
	locks := filepath.Join(dir, "locks")
	a, b := filepath.Join(dir, "a.u"), filepath.Join(dir, "b.u")
	for _, order := range [][]string{{a, b}, {b, a}, {a, b}, {b, a}, {b, a}} {
		holder := &Session{LockDir: locks}
		hb, err := holder.Lock(Use{Path: b, Write: true})
		if err != nil {
			t.Fatal(err)
		}
		waiting := make(chan struct{})
		run := &Session{LockDir: locks, LockWait: 10 * time.Second, Log: func(string) { close(waiting) }}
		done := make(chan error)
		go func() {
			l, err := run.Lock(Use{Path: order[0], Write: true}, Use{Path: order[1], Write: true})
			l.Release()
			done <- err
		}()
		<-waiting
		probe := &Session{LockDir: locks, LockWait: time.Millisecond}
		if l, err := probe.Lock(Use{Path: a, Write: false}); err == nil {
			l.Release()
			t.Errorf("uses %s, %s: the run waits for b.u without holding a.u", filepath.Base(order[0]), filepath.Base(order[1]))
		}
		hb.Release()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// Locking a file for writing removes the temporary files a killed run left
// beside it, and only those.
func TestLockRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "Map.unr")
	names := map[string]bool{ // name: removed?
		".Map.unr.unrmod-123.tmp":        true,
		".Map.unr.unrmod-4294967295.tmp": true,
		".Map.unr.unrmod-x.tmp":          false,
		".Map.unr.123.tmp":               false,
		".Other.unr.unrmod-1.tmp":        false,
		"Map.unr":                        false,
	}
	for n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644)
	}
	s, log := newSession(t, t.TempDir(), time.Second)
	l, err := s.Lock(Use{Path: target, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	for n, removed := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", n, gone, removed)
		}
	}
	want := "removed 2 temporary files a killed unrmod run left in " + dir
	if m := log(); len(m) != 1 || m[0] != want {
		t.Errorf("log %q, want %q", m, want)
	}
	// Reading a file removes nothing.
	os.WriteFile(filepath.Join(dir, ".Map.unr.unrmod-7.tmp"), nil, 0o644)
	l, _ = s.Lock(Use{Path: target, Write: false})
	l.Release()
	if _, err := os.Stat(filepath.Join(dir, ".Map.unr.unrmod-7.tmp")); err != nil {
		t.Error("a read lock removed a temporary file")
	}
}

// Interrupt removes every temporary file of the Session's batches and
// refuses to commit them afterwards.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.utoc"), filepath.Join(dir, "b.ucas")
	os.WriteFile(a, []byte("old"), 0o644)
	s := &Session{}
	batch := Batch{Session: s}
	if err := batch.Add(a, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := batch.Create(b, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("streaming"))
	removed := s.Interrupt()
	if len(removed) != 2 {
		t.Errorf("Interrupt removed %v, want 2 files", removed)
	}
	assertOnly(t, dir, "a.utoc")
	if err := batch.Commit(); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Commit after Interrupt: %v", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Errorf("a.utoc = %q", got)
	}
	var later Batch
	later.Session = s
	if err := later.Add(b, nil, 0o644); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Add after Interrupt: %v", err)
	}
	assertOnly(t, dir, "a.utoc")
}

// Interrupt waits for a commit section, so that a batch is renamed whole.
func TestInterruptWaitsForCommit(t *testing.T) {
	s := &Session{}
	end, err := s.BeginCommit()
	if err != nil {
		t.Fatal(err)
	}
	nested, err := s.BeginCommit()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		s.Interrupt()
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("Interrupt returned during a commit section")
	case <-time.After(50 * time.Millisecond):
	}
	nested()
	end()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Interrupt did not return after the commit")
	}
	if _, err := s.BeginCommit(); !errors.Is(err, ErrInterrupted) {
		t.Errorf("BeginCommit after Interrupt: %v", err)
	}
}

// Replacing a file keeps its permissions, and a symbolic link is written
// through: the file it leads to changes, the link stays.
func TestBatchKeepsModeAndLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permissions and links differ on Windows")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.u")
	os.WriteFile(real, []byte("old"), 0o640)
	os.Chmod(real, 0o640)
	link := filepath.Join(dir, "link.u")
	if err := os.Symlink("real.u", link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced (%v)", err)
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Errorf("real.u = %q", got)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	fresh := filepath.Join(dir, "fresh.u")
	WriteFile(fresh, nil, 0o600)
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", st.Mode().Perm())
	}
	assertOnly(t, dir, "real.u", "link.u", "fresh.u")
}

func TestBatchUnchanged(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.WriteFile(a, []byte("same"), 0o644)
	tests := []struct {
		data string
		path string
		want bool
	}{
		{"same", a, true},
		{"diff", a, false},
		{"same!", a, false},
		{"same", filepath.Join(dir, "missing"), false},
	}
	for _, tt := range tests {
		var b Batch
		b.Add(tt.path, []byte(tt.data), 0o644)
		if got := b.Unchanged(); got != tt.want {
			t.Errorf("%q over %s: Unchanged %v, want %v", tt.data, filepath.Base(tt.path), got, tt.want)
		}
		b.Abort()
	}
}

func TestTempNames(t *testing.T) {
	long := strings.Repeat("é", 127) // 254 bytes, a legal name
	tests := []struct {
		name, entry string
		want        bool
	}{
		{"Map.unr", TempName("Map.unr", "42"), true},
		{"Map.unr", ".Map.unr.unrmod-42.tmp", true},
		{"Map.unr", ".Map.unr.unrmod-.tmp", false},
		{"Map.unr", ".Map.unr.unrmod-12345678901.tmp", false},
		{"Map.unr", ".map.unr.unrmod-42.tmp", false},
		{long, TempName(long, "4294967295"), true},
		{long, TempName(long[:250], "1"), false},
	}
	for _, tt := range tests {
		if got := IsTempOf(tt.entry, tt.name); got != tt.want {
			t.Errorf("IsTempOf(%q, %q) = %v", tt.entry, tt.name, got)
		}
		if n := len(tt.entry); n > 255 {
			t.Errorf("%q is %d bytes", tt.entry, n)
		}
	}
	dir := t.TempDir()
	var b Batch
	if err := b.Add(filepath.Join(dir, long), []byte("x"), 0o644); err != nil {
		t.Fatalf("a 254-byte name: %v", err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, long)
}

func TestFoldName(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"Game/Maps/Level.umap", "game/maps/LEVEL.UMAP", true},
		{"Caf\u00e9.uasset", "Cafe\u0301.uasset", true}, // NFC and NFD
		{"CAF\u00c9.uasset", "cafe\u0301.uasset", true},
		{"\u212a", "k", true}, // Kelvin sign
		{"a.uasset", "b.uasset", false},
		{"\u00df", "ss", false}, // simple folding only, as NTFS
	}
	for _, tt := range tests {
		if got := FoldName(tt.a) == FoldName(tt.b); got != tt.same {
			t.Errorf("FoldName(%q) == FoldName(%q): %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}
