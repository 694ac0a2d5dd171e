package pak

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// Sentinel errors, wrapped by the errors this package returns, for callers
// that branch with errors.Is. Each also matches the sentinel of package ue
// of the same name, which every format shares.
var (
	// ErrNotPak means no pak footer (magic 0x5A6F12E1 at one of the
	// footer positions the versions use) ends the file.
	ErrNotPak = errors.New("not a pak file (no pak footer magic at the end)")
	// ErrUnsupportedVersion means the footer's version is not 1 to 15, or
	// the pak uses a layout unrmod does not decode (a frozen index).
	ErrUnsupportedVersion = ue.NewSentinel("unsupported pak version", ue.ErrUnsupportedVersion)
	// ErrCorrupt means a structure is inconsistent: a count, size, offset
	// or hash that cannot be right.
	ErrCorrupt = ue.NewSentinel("corrupt pak", ue.ErrCorrupt)
	// ErrKeyRequired means the index or a file is AES-encrypted and no key
	// was given.
	ErrKeyRequired = ue.NewSentinel("pak is encrypted: an AES key is required", ue.ErrKeyRequired)
	// ErrWrongKey means the index does not match its SHA-1 after
	// decryption: the key is not the pak's.
	ErrWrongKey = ue.NewSentinel("wrong AES key", ue.ErrWrongKey)
	// ErrHashMismatch means a file's stored bytes do not match the SHA-1
	// its entry records.
	ErrHashMismatch = ue.NewSentinel("file hash mismatch", ue.ErrHashMismatch)
	// ErrUnsupportedMethod means a file is compressed with a method the
	// Codecs used have no decoder for (the built-in ones decode Zlib, Gzip
	// and LZ4). The error is a *MethodError.
	ErrUnsupportedMethod = ue.ErrUnsupportedMethod
)

// MethodError is returned when a file needs a compression method unrmod
// cannot decode. It matches ErrUnsupportedMethod.
type MethodError struct {
	File   string // the pak file
	Path   string // the file in the pak
	Method string // the method's name, e.g. "Oodle"
}

// Error names the file and the method; for Oodle, how to give the
// library.
func (e *MethodError) Error() string {
	if isOodle(e.Method) {
		return fmt.Sprintf("%s: %s is compressed with Oodle; %v", e.File, e.Path, oodleAdvice())
	}
	return fmt.Sprintf("%s: %s is compressed with %s, which unrmod cannot decompress (known: Zlib, Gzip, LZ4; add others to Options.Codecs)", e.File, e.Path, e.Method)
}

// Is reports whether target is ErrUnsupportedMethod.
func (e *MethodError) Is(target error) bool { return target == ErrUnsupportedMethod }

// Unwrap returns, for an Oodle file, the advice to give the library, so
// that a front end can name its own setting for it.
func (e *MethodError) Unwrap() error {
	if isOodle(e.Method) {
		return oodleAdvice()
	}
	return nil
}

func isOodle(method string) bool { return strings.EqualFold(method, "Oodle") }

// oodleAdvice advises the Oodle library through Options.Codecs.
func oodleAdvice() *ue.Advice { return ue.OodleLibrary("Options.Codecs (package ue/oodle)", nil) }

// errorf builds a *ue.FormatError.
func errorf(file, structure string, off int64, cause error, format string, args ...any) error {
	return ue.Errorf(file, structure, off, cause, format, args...)
}

// cursorError turns a cursor's error into a *ue.FormatError whose structure
// is prefix followed by the field the cursor was reading; it matches
// ErrCorrupt (the cursors are given it as their kind).
func cursorError(file, prefix string, err error) error { return ue.CursorError(file, prefix, err) }

// newCursor returns a cursor over b (whose first byte is at absolute
// offset base) whose failures match ErrCorrupt.
func newCursor(b []byte, base int64) *binio.Cursor {
	c := binio.NewCursor(b, base)
	c.SetKind(ErrCorrupt)
	return c
}
