package uasset

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/unrmod/unrmod/internal/binio"
)

// archive reads or writes one structure with the same code, as the
// engine's FArchive does, so that the decoder and the encoder cannot
// disagree about a layout: in read mode it fills the fields from the
// cursor, in write mode it appends them to out.
type archive struct {
	c   *binio.Cursor // read mode when non-nil
	out []byte
}

func (a *archive) reading() bool { return a.c != nil }

func (a *archive) failed() bool { return a.c != nil && a.c.Err() != nil }

func (a *archive) i32(v *int32, what string) {
	if a.c != nil {
		*v = a.c.I32(what)
		return
	}
	a.out = binary.LittleEndian.AppendUint32(a.out, uint32(*v))
}

func (a *archive) u32(v *uint32, what string) {
	if a.c != nil {
		*v = a.c.U32(what)
		return
	}
	a.out = binary.LittleEndian.AppendUint32(a.out, *v)
}

func (a *archive) u16(v *uint16, what string) {
	if a.c != nil {
		*v = a.c.U16(what)
		return
	}
	a.out = binary.LittleEndian.AppendUint16(a.out, *v)
}

func (a *archive) u8(v *uint8, what string) {
	if a.c != nil {
		*v = a.c.U8(what)
		return
	}
	a.out = append(a.out, *v)
}

func (a *archive) i64(v *int64, what string) {
	if a.c != nil {
		*v = a.c.I64(what)
		return
	}
	a.out = binary.LittleEndian.AppendUint64(a.out, uint64(*v))
}

// bytes reads or writes len(v) raw bytes (GUIDs, hashes).
func (a *archive) bytes(v []byte, what string) {
	if a.c != nil {
		copy(v, a.c.Bytes(len(v), what))
		return
	}
	a.out = append(a.out, v...)
}

// bool32 reads or writes a 4-byte bool; anything but 0 or 1 is corrupt
// (the engine writes only those).
func (a *archive) bool32(v *bool, what string) {
	if a.c != nil {
		at := a.c.Pos()
		switch x := a.c.U32(what); x {
		case 0:
			*v = false
		case 1:
			*v = true
		default:
			a.c.FailAt(at, what, fmt.Errorf("bool is %d, not 0 or 1: %w", x, ErrCorrupt))
		}
		return
	}
	var x uint32
	if *v {
		x = 1
	}
	a.out = binary.LittleEndian.AppendUint32(a.out, x)
}

func (a *archive) name(v *NameRef, what string) {
	a.i32(&v.Index, what+" index")
	a.i32(&v.Number, what+" number")
}

// fstring reads or writes an FString. The bytes read are kept in raw
// when the canonical encoding of the value would differ (a non-ASCII
// Latin-1 string, a UTF-16 string that fits in ASCII), so that an
// unchanged value writes back as it was.
func (a *archive) fstring(v *string, raw *rawString, what string) {
	if a.c != nil {
		start := a.c.Pos()
		*v = a.c.FString32(what)
		if a.c.Err() != nil {
			return
		}
		b := a.c.Slice(start)
		if !bytes.Equal(binio.AppendFString32(nil, *v), b) {
			*raw = rawString{value: *v, raw: bytes.Clone(b)}
		}
		return
	}
	if raw.raw != nil && raw.value == *v {
		a.out = append(a.out, raw.raw...)
		return
	}
	a.out = binio.AppendFString32(a.out, *v)
}

// count reads or writes an int32 element count; in read mode it checks
// that n elements of at least minSize bytes fit in what remains.
func (a *archive) count(n int, minSize int, what string) int {
	if a.c != nil {
		return a.c.Count32(what, minSize)
	}
	a.out = binary.LittleEndian.AppendUint32(a.out, uint32(int32(n)))
	return n
}

// rawString keeps the bytes an FString was read from when they are not
// the canonical encoding of its value.
type rawString struct {
	value string
	raw   []byte
}
