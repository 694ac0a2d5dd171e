package checkcache

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/unrmod/unrmod/safefile"
)

// Source is what a check reads: files, known by the identities of the
// handles it reads them through, and what else the check depends on
// (*iostore.Container is one: its FileIDs and CheckBasis).
type Source interface {
	FileIDs() ([]safefile.FileID, error)
	CheckBasis() string
}

// A Check follows one run over a Source that either relies on a
// remembered check of it or checks it and remembers it: Begin before the
// run reads the source, Finish after it.
type Check struct {
	// Remembered is the record the run may rely on instead of checking
	// the source again; nil: the run checks it in full.
	Remembered *Record

	cache  *Cache
	key    string
	src    Source
	basis  string
	before []safefile.FileID // nil: src gave no identities
	start  time.Time
}

// Begin takes the identities of src's files and the time before a run
// reads them, and looks up a remembered check of them under key (any miss
// leaves Remembered nil). A nil Cache remembers nothing.
func (c *Cache) Begin(key string, src Source) *Check {
	k := c.Watch(key, src)
	if k.before != nil {
		k.Remembered, _ = c.Lookup(key, k.before, k.basis)
	}
	return k
}

// Watch is Begin for a run that checks src in full whatever is remembered
// of it (verify): it looks nothing up, and Finish remembers the check anew.
func (c *Cache) Watch(key string, src Source) *Check {
	k := &Check{cache: c, key: key, src: src, basis: src.CheckBasis(), start: time.Now()}
	if ids, err := src.FileIDs(); err == nil {
		k.before = ids
	}
	return k
}

// The states of Outcome.
const (
	// StateChecked: the run checked the source (whole or not) and
	// nothing was remembered.
	StateChecked = "checked"
	// StateRecorded: the run checked the whole source, found it sound
	// and remembered it.
	StateRecorded = "recorded"
	// StateRemembered: the run relied on a remembered check.
	StateRemembered = "remembered"
)

// Outcome says how a run checked its source.
type Outcome struct {
	State string
	// At is when the remembered or recorded check began (nil for
	// StateChecked).
	At *time.Time
	// NotRecorded says why a source the run checked whole and found
	// sound was not remembered (ErrRacy, ErrChanged or the error of the
	// write); nil when it was, or when remembering is off.
	NotRecorded error
}

// Finish ends the run. verified says that the run checked the whole
// source and found it sound (a rewrite's SourceVerified, a verify that
// passed with every chunk checked): the check is then remembered. A run
// that relied on a remembered check fails with ErrChanged when the
// source's files changed meanwhile: what it wrote must not be kept.
func (k *Check) Finish(verified bool) (Outcome, error) {
	after, err := k.src.FileIDs()
	if k.Remembered != nil {
		if err != nil || !slices.Equal(k.before, after) {
			return Outcome{}, ErrChanged
		}
		at := k.Remembered.Checked
		return Outcome{State: StateRemembered, At: &at}, nil
	}
	o := Outcome{State: StateChecked}
	if !verified {
		return o, nil
	}
	switch err := k.cache.Record(k.key, k.before, after, k.basis, k.start); {
	case err == nil:
		o.State = StateRecorded
		at := k.start.UTC()
		o.At = &at
	case !errors.Is(err, ErrDisabled):
		o.NotRecorded = err
	}
	return o, nil
}

// Why says in words why the source's check was not remembered, for a note
// ("" when it was, or when remembering is off).
func (o Outcome) Why() string {
	switch {
	case o.NotRecorded == nil:
		return ""
	case errors.Is(o.NotRecorded, ErrRacy):
		return "its files changed just before it (the next run checks it again and remembers it)"
	case errors.Is(o.NotRecorded, ErrChanged):
		return "its files changed while it was checked"
	}
	return fmt.Sprintf("the record could not be written, so the next run checks it again: %v", o.NotRecorded)
}
