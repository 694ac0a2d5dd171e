package checkcache_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/safefile"
)

// fakeSource is a Source over the fake container's files.
type fakeSource struct {
	t    *testing.T
	utoc string
}

func (s fakeSource) FileIDs() ([]safefile.FileID, error) { return ids(s.t, s.utoc), nil }
func (s fakeSource) CheckBasis() string                  { return basis }

// TestCheckCycle runs the Begin/Finish cycle as a rewrite and a verify
// use it: a run that checks nothing whole remembers nothing; one that
// checks the whole source records it; the next run relies on the record;
// a run relying on it whose files change meanwhile fails; a watched run
// (verify) records anew whatever was remembered; a nil Cache only checks.
func TestCheckCycle(t *testing.T) {
	dir := t.TempDir()
	src := fakeSource{t, fakeContainer(t, dir)}
	c := checkcache.Open(t.TempDir())

	k := c.Begin(src.utoc, src)
	if k.Remembered != nil {
		t.Fatal("a check is remembered before any was made")
	}
	if o, err := k.Finish(false); err != nil || o.State != checkcache.StateChecked || o.At != nil || o.NotRecorded != nil {
		t.Fatalf("a run that did not check the whole source: %+v, %v", o, err)
	}
	if c.Begin(src.utoc, src).Remembered != nil {
		t.Fatal("a run that did not check the whole source was remembered")
	}

	o, err := c.Begin(src.utoc, src).Finish(true)
	if err != nil || o.State != checkcache.StateRecorded || o.At == nil {
		t.Fatalf("a run that checked the whole source: %+v, %v", o, err)
	}
	recorded := *o.At

	k = c.Begin(src.utoc, src)
	if k.Remembered == nil || !k.Remembered.Checked.Equal(recorded) {
		t.Fatalf("the next run finds %+v, want the check of %v", k.Remembered, recorded)
	}
	if o, err := k.Finish(false); err != nil || o.State != checkcache.StateRemembered || !o.At.Equal(recorded) {
		t.Fatalf("a run relying on the record: %+v, %v", o, err)
	}

	// A watched run records anew although a check is remembered.
	time.Sleep(settle)
	o, err = c.Watch(src.utoc, src).Finish(true)
	if err != nil || o.State != checkcache.StateRecorded || !o.At.After(recorded) {
		t.Fatalf("a watched run: %+v, %v (remembered check of %v)", o, err, recorded)
	}

	// The source's files change while a run relies on the record.
	k = c.Begin(src.utoc, src)
	if k.Remembered == nil {
		t.Fatal("the watched run's check is not remembered")
	}
	if err := os.WriteFile(cas(src.utoc), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Finish(true); !errors.Is(err, checkcache.ErrChanged) {
		t.Fatalf("files changed during a run relying on the record: %v, want ErrChanged", err)
	}

	// Checked whole, but changed just before: not remembered, and says why.
	o, err = c.Begin(src.utoc, src).Finish(true)
	if err != nil || o.State != checkcache.StateChecked || !errors.Is(o.NotRecorded, checkcache.ErrRacy) || o.Why() == "" {
		t.Fatalf("a check of files changed just before it: %+v, %v", o, err)
	}

	var off *checkcache.Cache
	if o, err := off.Begin(src.utoc, src).Finish(true); err != nil || o.State != checkcache.StateChecked || o.NotRecorded != nil {
		t.Fatalf("a nil Cache: %+v, %v", o, err)
	}
}
