package zen

import "github.com/unrmod/unrmod/ue"

// Sentinel errors, wrapped by the errors this package returns, for callers
// that branch on the kind of failure with errors.Is. They are the ones of
// package ue, which every format shares.
var (
	// ErrCorrupt means a structure is inconsistent: a count, size, offset or
	// reference that cannot be right, including data that ends early.
	ErrCorrupt = ue.ErrCorrupt
	// ErrUnsupportedVersion means the data is in a version this package does
	// not know (a container header signature with an unknown version).
	ErrUnsupportedVersion = ue.ErrUnsupportedVersion
	// ErrNotEncodable means an encoder refused a model that its format or
	// version cannot represent.
	ErrNotEncodable = ue.ErrNotEncodable
)

// errorf builds a *ue.FormatError; the message is formatted now, so callers
// build one only when there is an error to report.
func errorf(file, structure string, off int64, cause error, format string, args ...any) error {
	return ue.Errorf(file, structure, off, cause, format, args...)
}

// cursorError turns a cursor's error into a *ue.FormatError whose structure
// is prefix and the field the cursor was reading; other errors pass.
func cursorError(file, prefix string, err error) error { return ue.CursorError(file, prefix, err) }
