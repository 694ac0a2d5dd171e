// Package patch reads declarative patch files and applies them to legacy
// Unreal packages.
//
// A patch file (YAML) names target packages and, for each, a list of
// operations: rename a name, set or clear package and object flags, replace
// an export's data, set a tagged property, add a name, retarget an import,
// replace a sound's WAV file, remove imports nothing refers to.
// Apply decodes every target, applies every operation to the in-memory model
// (which is also how operations are validated), encodes and verifies every
// output, and only then writes them all, atomically, or none of them.
package patch

import (
	"errors"
	"fmt"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/writer"
)

// FormatVersion is the patch format version this package reads.
const FormatVersion = 1

// File is a parsed patch file.
type File struct {
	Path    string // the patch file's path; relative target paths resolve against its directory
	Version int
	Targets []*Target
}

// Pos is a position in a patch file.
type Pos struct {
	File      string
	Line, Col int
}

// String returns "FILE:LINE:COLUMN" (or less, as known).
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	if p.Col == 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// GUIDMode says what happens to a package's GUID when it is patched.
type GUIDMode int

// GUID modes.
const (
	// GUIDRegenerate (the default) gives a changed package a new GUID and a
	// single generation, as a normal engine save does. The new GUID is
	// derived from the patched content, so the same patch on the same file
	// always gives the same file.
	GUIDRegenerate GUIDMode = iota
	// GUIDKeep keeps the GUID; if the name or export counts grow, a
	// generation is appended, as a conformal engine save does.
	GUIDKeep
	// GUIDExplicit sets the GUID given in the patch and a single generation.
	GUIDExplicit
)

// Target is one package a patch changes.
type Target struct {
	Pos    Pos
	File   string // input path as written (slashes normalised)
	Output string // output path as written; empty for the default
	GUID   GUIDMode
	SetTo  reader.GUID // for GUIDExplicit
	// guidPos is where the target gives guid: (which zen packages
	// refuse), or nil.
	guidPos *Pos
	Layout  writer.Layout
	Ops     []Op
	// Container is set for a container target: the .utoc it patches, and
	// what it changes there (File and Ops are then empty).
	Container *ContainerTarget
	// Mappings is the game's property schema (a .usmap file, relative to
	// the patch file) that set-property needs on packages cooked with
	// unversioned properties; "" for none.
	Mappings    string
	mappingsPos Pos
	// Global is the global container (global.utoc) whose script objects
	// name the classes of zen packages, for Mappings; "" looks for one
	// beside the container (or zen package file) and one folder up.
	Global    string
	globalPos Pos
}

// Op is one operation of a patch, as parsed: what to change, independent
// of the kind of file it applies to. Each kind of file has its own
// implementation of the operations it supports (legacy_ops.go for legacy
// packages), each acting on that kind's model in memory.
type Op interface {
	// Kind returns the operation's name in the patch format, e.g. "rename".
	Kind() string
	// Position returns where the operation is written.
	Position() Pos
}

// atOp places an operation's error at the operation in the patch file,
// unless it already names a place (an *Error).
func atOp(op Op, err error) error {
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	return &Error{Pos: op.Position(), Msg: err.Error(), Err: err}
}

// legacyOp is an operation on a legacy package: it changes the model and
// describes what changed.
type legacyOp interface {
	applyLegacy(c *legacyContext) ([]Change, error)
}

// Change describes one effect of an operation, for plans and summaries.
type Change struct {
	Op      string `json:"op"`
	Target  string `json:"target"`            // what changed: `name 12`, `export CTF-Face.LevelInfo0`, `header`
	Field   string `json:"field,omitempty"`   // e.g. `flags`, `property Title`, `data`
	Old     string `json:"old,omitempty"`     // old value, human form
	New     string `json:"new,omitempty"`     // new value, human form
	Already bool   `json:"already,omitempty"` // the operation was already in effect
	Warning string `json:"warning,omitempty"`
	// Note adds what else the change reaches, e.g. for a rename "reaches 3
	// export names, 12 property tags".
	Note string `json:"note,omitempty"`
}

// String returns the change as the plan prints it: "OP: TARGET FIELD: OLD → NEW (NOTE)".
func (c Change) String() string {
	s := c.Op + ": " + c.Target
	if c.Field != "" {
		s += " " + c.Field
	}
	switch {
	case c.Already:
		s += ": already " + c.New + " (no change)"
	case c.Old == "" && c.New != "":
		s += ": added " + c.New
	case c.Old != "" && c.New == "":
		s += ": removed " + c.Old
	case c.Old != "" || c.New != "":
		s += ": " + c.Old + " → " + c.New
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	if c.Warning != "" {
		s += "\n    warning: " + c.Warning
	}
	return s
}

// Error is a problem with a patch: where it is written and what is wrong.
type Error struct {
	Pos Pos
	Msg string
	Err error
}

// Error returns "POSITION: MESSAGE".
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// adviseErr returns an *Error at pos whose message is a's, advising a
// setting of Options (ue.Reword lets a front end name it its own way).
func adviseErr(pos Pos, a *ue.Advice) *Error {
	return &Error{Pos: pos, Msg: a.Error(), Err: a}
}

func errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
