package ue

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// Sentinel errors that every format's errors wrap, for callers that branch
// on the kind of failure with errors.Is whatever the format. A format may
// give a kind its own words with NewSentinel; its sentinel then matches
// the one here too.
var (
	// ErrCorrupt means a structure is inconsistent: a count, size, offset or
	// reference that cannot be right, including data that ends early.
	ErrCorrupt = errors.New("corrupt data")
	// ErrUnsupportedVersion means the data is in a version unrmod does not
	// know or does not decode.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrNotEncodable means an encoder refused a model that its format or
	// version cannot represent.
	ErrNotEncodable = errors.New("cannot be encoded")
	// ErrUnsupportedMethod means data is compressed with a method that has
	// no decoder in the Codecs used.
	ErrUnsupportedMethod = errors.New("unsupported compression method")
	// ErrKeyRequired means data is AES-encrypted and no key was given.
	ErrKeyRequired = errors.New("data is encrypted: an AES key is required")
	// ErrWrongKey means data decrypted with the given key does not decode:
	// the key is not the one it was encrypted with.
	ErrWrongKey = errors.New("wrong AES key")
	// ErrHashMismatch means data does not match the hash recorded for it.
	ErrHashMismatch = errors.New("hash mismatch")
)

// NewSentinel returns a sentinel error with its own text that also matches
// kind (one of the sentinels above) with errors.Is, so that a format can
// say "pak is encrypted" while callers branch on ErrKeyRequired.
func NewSentinel(text string, kind error) error { return &sentinel{text, kind} }

type sentinel struct {
	text string
	kind error
}

func (e *sentinel) Error() string { return e.text }
func (e *sentinel) Unwrap() error { return e.kind }

// FormatError describes a problem in a file: the file, the structure being
// decoded or encoded, the byte offset in that file (or in the chunk, for a
// chunk decoded on its own) and what is wrong. Containers, container
// headers, zen packages, paks and properties return it, so a caller
// branches on one type whatever the format.
type FormatError struct {
	File   string // file name as given to the decoder; "" when encoding
	Struct string // e.g. "TOC header", "container header store entry 12 (package 0x14f2082da820101a)"
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

// Errorf builds a *FormatError; the message is formatted now, so callers
// build one only when there is an error to report.
func Errorf(file, structure string, off int64, cause error, format string, args ...any) error {
	return &FormatError{File: file, Struct: structure, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// CursorError turns the error of an internal/binio cursor into a
// *FormatError whose structure is prefix followed by the field the cursor
// was reading; other errors are returned as they are.
func CursorError(file, prefix string, err error) error {
	if what, off, msg, ok := binio.Describe(err); ok {
		return &FormatError{File: file, Struct: prefix + what, Offset: off, Msg: msg, Err: err}
	}
	return err
}

// Problem is one inconsistency found by a verifier: the structure, where it
// is, and what is wrong with it.
type Problem struct {
	Struct string // e.g. "export 3 \"Default__BP_C\"", "store entry 12 (package 0x…)"
	Offset int64  // byte offset in the file or chunk; -1 when not tied to one
	Msg    string
	// Err is the error the problem was found through, if any: for
	// errors.Is, and for a front end that names the settings it advises
	// its own way (Reword).
	Err error
}

// String returns "STRUCT at 0xOFFSET: MESSAGE" (without an offset when there is none).
func (q Problem) String() string {
	if q.Offset >= 0 {
		return fmt.Sprintf("%s at 0x%X: %s", q.Struct, q.Offset, q.Msg)
	}
	return q.Struct + ": " + q.Msg
}

// MatchProblems pairs a write's output problems with its input's, each
// problem known by key (its structure and message with offsets left out,
// say, since a write may move what it names): kept[k] says whether the
// output still has input problem k, and fresh lists the output's problems
// the input did not have. A key that stands n times on one side pairs
// with at most n on the other.
func MatchProblems[P any](input, output []P, key func(P) string) (kept []bool, fresh []P) {
	left := map[string]int{}
	for _, q := range output {
		left[key(q)]++
	}
	kept = make([]bool, len(input))
	had := map[string]int{}
	for k, q := range input {
		key := key(q)
		had[key]++
		if left[key] > 0 {
			left[key]--
			kept[k] = true
		}
	}
	for _, q := range output {
		key := key(q)
		if had[key] > 0 {
			had[key]--
			continue
		}
		fresh = append(fresh, q)
	}
	return kept, fresh
}
