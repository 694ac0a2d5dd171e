package checkcache_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// fakeContainer writes a .utoc and a .ucas into dir, their modification
// times set an hour back, and returns the .utoc once their change times
// are more than a clock tick old, as those of a game's files are: a check
// that begins then may be remembered.
func fakeContainer(t *testing.T, dir string) string {
	t.Helper()
	utoc := filepath.Join(dir, "Game-Windows.utoc")
	for _, f := range []struct {
		name string
		data []byte
	}{{utoc, bytes.Repeat([]byte("toc"), 100)}, {filepath.Join(dir, "Game-Windows.ucas"), bytes.Repeat([]byte("cas!"), 1000)}} {
		if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(f.name, old, old); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(settle)
	return utoc
}

// settle is longer than the racy window (100 ms).
const settle = 150 * time.Millisecond

// ids returns the identities of the container's files, through handles
// opened now.
func ids(t *testing.T, utoc string) []safefile.FileID {
	t.Helper()
	var out []safefile.FileID
	for _, p := range []string{utoc, filepath.Join(filepath.Dir(utoc), "Game-Windows.ucas")} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		id, err := safefile.FileIDOf(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

const basis = "key=none;methods=Zlib"

// TestRecordLookup records a check and looks it up again, then changes
// what the record depends on, one thing at a time: each must miss with
// its reason.
func TestRecordLookup(t *testing.T) {
	tests := []struct {
		name string
		// change runs between Record and Lookup; it returns the basis
		// Lookup is given.
		change func(t *testing.T, utoc string) string
		want   error
	}{
		{"unchanged", func(*testing.T, string) string { return basis }, nil},
		{"other basis", func(*testing.T, string) string { return "key=00;methods=Zlib" }, checkcache.ErrOtherCheck},
		{"size", func(t *testing.T, utoc string) string {
			if err := os.WriteFile(cas(utoc), bytes.Repeat([]byte("cas!"), 1001), 0o644); err != nil {
				t.Fatal(err)
			}
			return basis
		}, checkcache.ErrChanged},
		{"same size, modification time restored", func(t *testing.T, utoc string) string {
			st, err := os.Stat(cas(utoc))
			if err != nil {
				t.Fatal(err)
			}
			if !ids(t, utoc)[1].HasChange {
				t.Skipf("%s keeps no change time: a write of the same size whose modification time is set back is not seen", runtime.GOOS)
			}
			if err := os.WriteFile(cas(utoc), bytes.Repeat([]byte("CAS!"), 1000), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(cas(utoc), st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			return basis
		}, checkcache.ErrChanged},
		{"replaced by a copy", func(t *testing.T, utoc string) string {
			data, err := os.ReadFile(cas(utoc))
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(cas(utoc))
			if err != nil {
				t.Fatal(err)
			}
			tmp := cas(utoc) + ".copy"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, cas(utoc)); err != nil {
				t.Fatal(err)
			}
			return basis
		}, checkcache.ErrChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			utoc := fakeContainer(t, dir)
			c := checkcache.Open(filepath.Join(dir, "cache"))
			before := ids(t, utoc)
			checked := time.Now()
			if err := c.Record(utoc, before, ids(t, utoc), basis, checked); err != nil {
				t.Fatal(err)
			}
			b := tt.change(t, utoc)
			rec, err := c.Lookup(utoc, ids(t, utoc), b)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (rec != nil) {
				t.Fatalf("Lookup: %v, %v; want %v", rec, err, tt.want)
			}
			if rec != nil && (!rec.Checked.Equal(checked) || rec.CheckVersion != checkcache.CheckVersion || rec.Basis != basis || len(rec.Files) != 2) {
				t.Errorf("record %+v", rec)
			}
		})
	}
}

func cas(utoc string) string { return filepath.Join(filepath.Dir(utoc), "Game-Windows.ucas") }

// TestRecordRefuses: files that changed during the check, or just before
// it, are not remembered, and nothing is recorded for them.
func TestRecordRefuses(t *testing.T) {
	dir := t.TempDir()
	utoc := fakeContainer(t, dir)
	c := checkcache.Open(filepath.Join(dir, "cache"))
	before := ids(t, utoc)
	if err := os.WriteFile(cas(utoc), []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	after := ids(t, utoc)
	if err := c.Record(utoc, before, after, basis, time.Now()); !errors.Is(err, checkcache.ErrChanged) {
		t.Fatalf("changed during the check: %v, want ErrChanged", err)
	}
	// Changed just now, checked now: racy.
	if err := c.Record(utoc, after, after, basis, time.Now()); !errors.Is(err, checkcache.ErrRacy) {
		t.Fatalf("changed just before the check: %v, want ErrRacy", err)
	}
	if _, err := c.Lookup(utoc, after, basis); !errors.Is(err, checkcache.ErrNotRecorded) {
		t.Fatalf("Lookup: %v, want ErrNotRecorded", err)
	}
	if checkcache.Open("") != nil {
		t.Error("Open of no folder: not nil")
	}
	var nilCache *checkcache.Cache
	if err := nilCache.Record(utoc, after, after, basis, time.Now()); !errors.Is(err, checkcache.ErrDisabled) {
		t.Errorf("nil cache Record: %v", err)
	}
	if _, err := nilCache.Lookup(utoc, after, basis); !errors.Is(err, checkcache.ErrDisabled) {
		t.Errorf("nil cache Lookup: %v", err)
	}
}

// recordFile returns the one record in the cache folder.
func recordFile(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.check"))
	if err != nil || len(m) != 1 {
		t.Fatalf("records %v (%v), want 1", m, err)
	}
	return m[0]
}

// TestDamagedRecord: a record cut short, with a byte changed, of another
// check version or empty is a miss, with a *ue.FormatError for damage.
func TestDamagedRecord(t *testing.T) {
	tests := []struct {
		name   string
		damage func([]byte) []byte
		want   error
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)-7] }, nil},
		{"byte flipped", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, nil},
		{"empty", func([]byte) []byte { return nil }, nil},
		{"other check version", func(b []byte) []byte {
			r := &checkcache.Record{}
			if err := r.UnmarshalBinary(b); err != nil {
				panic(err)
			}
			r.CheckVersion++
			out, err := r.MarshalBinary()
			if err != nil {
				panic(err)
			}
			return out
		}, checkcache.ErrOtherCheck},
		{"other file's record", func(b []byte) []byte {
			r := &checkcache.Record{}
			if err := r.UnmarshalBinary(b); err != nil {
				panic(err)
			}
			r.Key += "x"
			out, _ := r.MarshalBinary()
			return out
		}, checkcache.ErrOtherFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			utoc := fakeContainer(t, dir)
			cdir := filepath.Join(dir, "cache")
			c := checkcache.Open(cdir)
			now := ids(t, utoc)
			if err := c.Record(utoc, now, now, basis, time.Now()); err != nil {
				t.Fatal(err)
			}
			rf := recordFile(t, cdir)
			data, err := os.ReadFile(rf)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(rf, tt.damage(data), 0o644); err != nil {
				t.Fatal(err)
			}
			rec, err := c.Lookup(utoc, now, basis)
			if rec != nil || err == nil {
				t.Fatalf("Lookup of a damaged record: %v, %v; want a miss", rec, err)
			}
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("Lookup: %v, want %v", err, tt.want)
				}
				return
			}
			var fe *ue.FormatError
			if !errors.As(err, &fe) || fe.File != rf {
				t.Fatalf("Lookup: %v, want a *ue.FormatError naming %s", err, rf)
			}
			// A new record replaces the damaged one.
			if err := c.Record(utoc, now, now, basis, time.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Lookup(utoc, now, basis); err != nil {
				t.Fatalf("Lookup after recording again: %v", err)
			}
		})
	}
}

// TestConcurrentRecords: records written at once for one key never leave
// a torn record: the one read afterwards is one of them, whole.
func TestConcurrentRecords(t *testing.T) {
	dir := t.TempDir()
	utoc := fakeContainer(t, dir)
	cdir := filepath.Join(dir, "cache")
	now := ids(t, utoc)
	var wg sync.WaitGroup
	bases := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g", "hh"}
	errs := make([]error, len(bases))
	for k, b := range bases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each its own Cache value, as separate runs have.
			c := checkcache.Open(cdir)
			for range 20 {
				if err := c.Record(utoc, now, now, b, time.Now()); err != nil {
					errs[k] = err
					return
				}
				if _, err := c.Lookup(utoc, now, b); err != nil && !errors.Is(err, checkcache.ErrOtherCheck) {
					errs[k] = err // a torn record would be a *FormatError
					return
				}
			}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("recorder %d: %v", k, err)
		}
	}
	r := &checkcache.Record{}
	data, err := os.ReadFile(recordFile(t, cdir))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	hit := false
	for _, b := range bases {
		hit = hit || r.Basis == b
	}
	if !hit {
		t.Fatalf("the last record has basis %q, none of the writers'", r.Basis)
	}
	if left, _ := filepath.Glob(filepath.Join(cdir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestUnwritableCache: a cache folder that cannot be made, or a file in
// its place, makes Record fail and Lookup miss; neither panics.
func TestUnwritableCache(t *testing.T) {
	dir := t.TempDir()
	utoc := fakeContainer(t, dir)
	now := ids(t, utoc)
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cdir := range []string{blocker, filepath.Join(blocker, "cache")} {
		c := checkcache.Open(cdir)
		if err := c.Record(utoc, now, now, basis, time.Now()); err == nil {
			t.Errorf("Record into %s: no error", cdir)
		}
		if rec, err := c.Lookup(utoc, now, basis); rec != nil || err == nil {
			t.Errorf("Lookup in %s: %v, %v; want a miss", cdir, rec, err)
		}
	}
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		c := checkcache.Open(filepath.Join(ro, "cache"))
		if err := c.Record(utoc, now, now, basis, time.Now()); err == nil {
			t.Errorf("Record into a read-only folder: no error")
		}
		if _, err := c.Lookup(utoc, now, basis); !errors.Is(err, checkcache.ErrNotRecorded) {
			t.Errorf("Lookup in a read-only folder: %v", err)
		}
	}
}

// TestRecordEncoding: a record encodes and decodes again to itself.
func TestRecordEncoding(t *testing.T) {
	r := &checkcache.Record{Key: "/games/Paks/X.utoc", CheckVersion: checkcache.CheckVersion, Basis: basis,
		Checked: time.Unix(1700000000, 123).UTC(),
		Files:   []safefile.FileID{{Size: 5, ModTime: 6, ChangeTime: 7, Device: 8, Inode: 9, HasChange: true, HasInode: true}, {Size: 1, ModTime: 2}}}
	data, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got checkcache.Record
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	again, err := got.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("encoded again: %v, differs: %v", err, !bytes.Equal(again, data))
	}
	if got.Key != r.Key || !got.Checked.Equal(r.Checked) || len(got.Files) != 2 || got.Files[0] != r.Files[0] || got.Files[1] != r.Files[1] {
		t.Fatalf("decoded %+v, want %+v", got, r)
	}
}
