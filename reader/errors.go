package reader

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by FormatError, for callers that branch on the kind
// of failure.
var (
	// ErrNotPackage means the file does not start with the package tag 0x9E2A83C1.
	ErrNotPackage = errors.New("not an Unreal package (tag is not 0x9E2A83C1)")
	// ErrUnsupportedVersion means the file version is outside 61..129 or is a
	// licensee fork whose layout differs from the engine's.
	ErrUnsupportedVersion = errors.New("unsupported package version")
	// ErrCorrupt means a structure is inconsistent: a count, offset or
	// reference that cannot be right.
	ErrCorrupt = errors.New("corrupt package")
)

// FormatError describes a problem in a legacy package: the file, the structure
// being decoded, the absolute byte offset and what is wrong.
type FormatError struct {
	File   string // file name as given to the reader
	Struct string // e.g. `header`, `name table entry 12`, `export 12 "Light5"`
	Offset int64  // absolute offset in the file; -1 when not tied to one
	Msg    string // what is wrong
	Err    error  // underlying cause, if any
}

func (e *FormatError) Error() string {
	s := e.File + ": " + e.Struct
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at 0x%X", e.Offset)
	}
	s += ": " + e.Msg
	if e.Err != nil && e.Msg == "" {
		s += e.Err.Error()
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

func (d *decoder) errorf(structure string, off int64, cause error, format string, args ...any) error {
	return &FormatError{File: d.file, Struct: structure, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}
