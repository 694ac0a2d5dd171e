package binio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrTruncated is wrapped by every cursor error caused by data ending early.
var ErrTruncated = errors.New("unexpected end of data")

// CursorError is the first failure a Cursor met: what it was reading, at which
// absolute offset, and why. It matches Err and, when the cursor was given
// one with SetKind, the kind of failure its format reports (e.g. a "corrupt
// data" sentinel).
type CursorError struct {
	What   string // the field being read, e.g. "name length"
	Offset int64  // absolute offset of the field
	Err    error
	Kind   error // nil, or what every failure of this cursor also matches
}

func (e *CursorError) Error() string {
	return fmt.Sprintf("%s at 0x%X: %v", e.What, e.Offset, e.Err)
}

// Unwrap returns Err and Kind, for errors.Is and errors.As.
func (e *CursorError) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Kind}
}

// Describe splits a cursor's error into the field it was reading, the
// absolute offset and what went wrong, for a format's own error type. ok is
// false when err is not a *CursorError.
func Describe(err error) (what string, offset int64, msg string, ok bool) {
	var ce *CursorError
	if !errors.As(err, &ce) {
		return "", 0, "", false
	}
	return ce.What, ce.Offset, ce.Err.Error(), true
}

// Cursor reads little-endian values from a byte slice that starts at absolute
// offset Base of some file. Errors are sticky: after the first failure every
// read returns a zero value and Err reports that first failure, so decoders
// can read a whole structure and check once.
type Cursor struct {
	b    []byte
	pos  int
	base int64
	err  error
	kind error
}

// NewCursor returns a cursor over b, whose first byte sits at absolute offset base.
func NewCursor(b []byte, base int64) *Cursor { return &Cursor{b: b, base: base} }

// SetKind makes every later failure of the cursor also match kind with
// errors.Is, e.g. the "corrupt data" sentinel of the format being decoded.
func (c *Cursor) SetKind(kind error) { c.kind = kind }

// Err returns the first error met, or nil.
func (c *Cursor) Err() error { return c.err }

// Pos returns the position relative to the start of the slice.
func (c *Cursor) Pos() int { return c.pos }

// Abs returns the absolute file offset of the next byte.
func (c *Cursor) Abs() int64 { return c.base + int64(c.pos) }

// Len returns the number of unread bytes.
func (c *Cursor) Len() int { return len(c.b) - c.pos }

// Seek moves to position pos relative to the start of the slice.
func (c *Cursor) Seek(pos int, what string) {
	if c.err != nil {
		return
	}
	if pos < 0 || pos > len(c.b) {
		c.Fail(what, fmt.Errorf("position 0x%X outside the data (0x%X..0x%X): %w",
			c.base+int64(pos), c.base, c.base+int64(len(c.b)), ErrTruncated))
		return
	}
	c.pos = pos
}

// Fail records err for the field what at the current offset, unless an error
// is already recorded.
func (c *Cursor) Fail(what string, err error) { c.FailAt(c.pos, what, err) }

// Propagate records the error of another cursor (one over a part of the
// same data) as this cursor's error, unless one is already recorded.
func (c *Cursor) Propagate(err error) {
	if c.err == nil {
		c.err = err
	}
}

// FailAt records err for the field what at position pos (relative to the
// start of the slice), unless an error is already recorded.
func (c *Cursor) FailAt(pos int, what string, err error) {
	if c.err == nil {
		c.err = &CursorError{What: what, Offset: c.base + int64(pos), Err: err, Kind: c.kind}
	}
}

func (c *Cursor) need(n int, what string) bool {
	if c.err != nil {
		return false
	}
	if n < 0 || n > len(c.b)-c.pos {
		c.Fail(what, fmt.Errorf("need %d bytes, %d left: %w", n, len(c.b)-c.pos, ErrTruncated))
		return false
	}
	return true
}

// Bytes returns the next n bytes (a sub-slice, not a copy).
func (c *Cursor) Bytes(n int, what string) []byte {
	if !c.need(n, what) {
		return nil
	}
	b := c.b[c.pos : c.pos+n : c.pos+n]
	c.pos += n
	return b
}

// U8 reads a byte.
func (c *Cursor) U8(what string) byte {
	if !c.need(1, what) {
		return 0
	}
	v := c.b[c.pos]
	c.pos++
	return v
}

// U16 reads a little-endian WORD.
func (c *Cursor) U16(what string) uint16 {
	if !c.need(2, what) {
		return 0
	}
	v := binary.LittleEndian.Uint16(c.b[c.pos:])
	c.pos += 2
	return v
}

// U32 reads a little-endian DWORD.
func (c *Cursor) U32(what string) uint32 {
	if !c.need(4, what) {
		return 0
	}
	v := binary.LittleEndian.Uint32(c.b[c.pos:])
	c.pos += 4
	return v
}

// I32 reads a little-endian INT.
func (c *Cursor) I32(what string) int32 { return int32(c.U32(what)) }

// U64 reads a little-endian QWORD.
func (c *Cursor) U64(what string) uint64 {
	if !c.need(8, what) {
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b[c.pos:])
	c.pos += 8
	return v
}

// I64 reads a little-endian int64.
func (c *Cursor) I64(what string) int64 { return int64(c.U64(what)) }

// F32 reads a little-endian IEEE-754 FLOAT.
func (c *Cursor) F32(what string) float32 { return math.Float32frombits(c.U32(what)) }

// Index reads an FCompactIndex.
func (c *Cursor) Index(what string) int32 {
	if c.err != nil {
		return 0
	}
	v, n, err := ReadIndex(c.b[c.pos:])
	if err != nil {
		c.Fail(what, err)
		return 0
	}
	c.pos += n
	return v
}

// Count reads a compact-index element count and checks that count elements
// of at least minSize bytes each can still fit in the remaining data, so that
// callers may allocate count elements safely.
func (c *Cursor) Count(what string, minSize int) int {
	at := c.pos
	n := c.Index(what)
	if c.err != nil {
		return 0
	}
	return c.checkCount(at, what, int64(n), minSize)
}

// Count32 reads an int32 element count, as UE4 and later store array
// lengths, and checks it as Count does.
func (c *Cursor) Count32(what string, minSize int) int {
	at := c.pos
	n := c.I32(what)
	if c.err != nil {
		return 0
	}
	return c.checkCount(at, what, int64(n), minSize)
}

// checkCount fails on a negative count and on count elements of minSize
// bytes that cannot fit in the remaining data; at is the count's position.
func (c *Cursor) checkCount(at int, what string, n int64, minSize int) int {
	if n < 0 {
		c.FailAt(at, what, fmt.Errorf("negative count %d", n))
		return 0
	}
	if minSize > 0 && n*int64(minSize) > int64(c.Len()) {
		c.FailAt(at, what, fmt.Errorf("count %d needs at least %d bytes, %d left: %w",
			n, n*int64(minSize), c.Len(), ErrTruncated))
		return 0
	}
	return int(n)
}

// CString reads a zero-terminated 8-bit (Latin-1) string.
func (c *Cursor) CString(what string) string {
	if c.err != nil {
		return ""
	}
	for i := c.pos; i < len(c.b); i++ {
		if c.b[i] == 0 {
			s := Latin1(c.b[c.pos:i])
			c.pos = i + 1
			return s
		}
	}
	c.Fail(what, fmt.Errorf("no terminating zero: %w", ErrTruncated))
	return ""
}

// FString reads an Unreal FString: a compact length that counts the trailing
// zero, then Latin-1 bytes (positive length) or UTF-16LE units (negative).
func (c *Cursor) FString(what string) string {
	at := c.pos
	n := c.Index(what + " length")
	return c.fstringBody(at, what, int64(n))
}

// FString32 reads an FString as UE4 and later store it: an int32 length
// that counts the terminating zero, then that many Latin-1 bytes (positive)
// or UTF-16LE units (negative); 0 is the empty string. As for FString, the
// terminating zero must be there: the engine always writes it.
func (c *Cursor) FString32(what string) string {
	at := c.pos
	n := c.I32(what + " length")
	return c.fstringBody(at, what, int64(n))
}

// fstringBody reads the characters of an FString of length n whose length
// field is at position at.
func (c *Cursor) fstringBody(at int, what string, n int64) string {
	if c.err != nil {
		return ""
	}
	switch {
	case n == 0:
		return ""
	case n > 0:
		b := c.Bytes(int(min(n, math.MaxInt32)), what)
		if c.err != nil {
			return ""
		}
		if b[len(b)-1] != 0 {
			c.FailAt(at, what, errors.New("string is not zero-terminated"))
			return ""
		}
		return Latin1(b[:len(b)-1])
	default:
		units := -n
		if units > int64(c.Len())/2 {
			c.Fail(what, fmt.Errorf("UTF-16 string of %d units, %d bytes left: %w", units, c.Len(), ErrTruncated))
			return ""
		}
		b := c.Bytes(int(units)*2, what)
		u := make([]uint16, units)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		if u[len(u)-1] != 0 {
			c.FailAt(at, what, errors.New("string is not zero-terminated"))
			return ""
		}
		return string(utf16.Decode(u[:len(u)-1]))
	}
}

// Latin1 converts 8-bit Latin-1 text to a Go string.
func Latin1(b []byte) string {
	ascii := true
	for _, x := range b {
		if x >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, x := range b {
		r[i] = rune(x)
	}
	return string(r)
}

// IsLatin1 reports whether every rune of s fits in one Latin-1 byte.
func IsLatin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}

// AppendFString appends s as an Unreal FString: Latin-1 with a positive length
// when every rune fits, UTF-16LE with a negative length otherwise. The empty
// string is written as a zero length.
func AppendFString(dst []byte, s string) []byte {
	if s == "" {
		return AppendIndex(dst, 0)
	}
	if IsLatin1(s) {
		rs := []rune(s)
		dst = AppendIndex(dst, int32(len(rs)+1))
		for _, r := range rs {
			dst = append(dst, byte(r))
		}
		return append(dst, 0)
	}
	u := utf16.Encode([]rune(s))
	dst = AppendIndex(dst, -int32(len(u)+1))
	for _, x := range u {
		dst = binary.LittleEndian.AppendUint16(dst, x)
	}
	return append(dst, 0, 0)
}

// AppendFString32 appends s as UE4 and later write an FString: an int32
// length, then the characters as bytes when every one is ASCII, else as
// UTF-16LE with a negative length; both lengths count the terminating
// zero. The empty string is a zero length.
func AppendFString32(dst []byte, s string) []byte {
	le := binary.LittleEndian
	if s == "" {
		return le.AppendUint32(dst, 0)
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		ascii = ascii && s[i] < utf8.RuneSelf
	}
	if ascii {
		dst = le.AppendUint32(dst, uint32(len(s)+1))
		dst = append(dst, s...)
		return append(dst, 0)
	}
	u := utf16.Encode([]rune(s))
	dst = le.AppendUint32(dst, uint32(-int32(len(u)+1)))
	for _, x := range u {
		dst = le.AppendUint16(dst, x)
	}
	return append(dst, 0, 0)
}

// AppendCString appends s as zero-terminated Latin-1 text.
func AppendCString(dst []byte, s string) []byte {
	for _, r := range s {
		dst = append(dst, byte(r))
	}
	return append(dst, 0)
}

// AppendU32 appends a little-endian DWORD.
func AppendU32(dst []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(dst, v) }

// AppendI32 appends a little-endian INT.
func AppendI32(dst []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(dst, uint32(v)) }

// Slice returns the bytes from position start (relative) to the current
// position, without copying.
func (c *Cursor) Slice(start int) []byte { return c.b[start:c.pos:c.pos] }
