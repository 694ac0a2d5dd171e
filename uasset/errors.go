package uasset

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// Sentinel errors, wrapped by the errors this package returns, for callers
// that branch on the kind of failure with errors.Is.
var (
	// ErrCorrupt means a structure is inconsistent: a count, size, offset or
	// reference that cannot be right, including data that ends early.
	ErrCorrupt = errors.New("corrupt data")
	// ErrUnsupportedVersion means the file is in a version this package does
	// not read: a LegacyFileVersion other than −7, −8 or −9, an engine
	// release outside 4.14–5.8/6.0, or an unversioned file whose layout
	// matches no known release.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrNotEncodable means the encoder refused a model that it cannot lay
	// out without losing or misplacing bytes.
	ErrNotEncodable = errors.New("cannot be encoded")
)

// FormatError describes a problem in a cooked asset: the file, the
// structure being decoded or encoded, the byte offset in that file and
// what is wrong. It has the shape of iostore/zen.FormatError.
type FormatError struct {
	File   string // file name as given to Decode; "" when encoding a model without one
	Struct string // e.g. "package file summary", "export 12 \"Light5\""
	Offset int64  // byte offset in File; -1 when not tied to one
	Msg    string // what is wrong
	Err    error  // underlying cause or sentinel, if any
}

// Error returns "FILE: STRUCT at 0xOFFSET: MESSAGE".
func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	b.WriteString(e.Struct)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " at 0x%X", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil && e.Msg == "" {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *FormatError) Unwrap() error { return e.Err }

func errorf(file, structure string, off int64, cause error, format string, args ...any) error {
	return &FormatError{File: file, Struct: structure, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// cursorError turns a cursor's error into a *FormatError naming the
// structure and the field the cursor was reading; other errors pass.
func cursorError(file, structure string, err error) error {
	if what, off, msg, ok := binio.Describe(err); ok {
		return &FormatError{File: file, Struct: structure + " " + what, Offset: off, Msg: msg, Err: err}
	}
	return err
}
