package uasset

import (
	"github.com/unrmod/unrmod/ue"
)

// Sentinel errors, wrapped by the errors this package returns, for callers
// that branch on the kind of failure with errors.Is. Each also matches the
// shared sentinel of package ue of the same name.
var (
	// ErrCorrupt means a structure is inconsistent: a count, size, offset or
	// reference that cannot be right, including data that ends early.
	ErrCorrupt = ue.NewSentinel("corrupt data", ue.ErrCorrupt)
	// ErrUnsupportedVersion means the file is in a version this package does
	// not read: a LegacyFileVersion other than −7, −8 or −9, an engine
	// release outside 4.14–5.8/6.0, or an unversioned file whose layout
	// matches no known release.
	ErrUnsupportedVersion = ue.NewSentinel("unsupported version", ue.ErrUnsupportedVersion)
	// ErrNotEncodable means the encoder refused a model that it cannot lay
	// out without losing or misplacing bytes.
	ErrNotEncodable = ue.NewSentinel("cannot be encoded", ue.ErrNotEncodable)
)

func errorf(file, structure string, off int64, cause error, format string, args ...any) error {
	return ue.Errorf(file, structure, off, cause, format, args...)
}

// cursorError turns a cursor's error into a *FormatError naming the
// structure and the field the cursor was reading; other errors pass.
func cursorError(file, structure string, err error) error {
	return ue.CursorError(file, structure+" ", err)
}
