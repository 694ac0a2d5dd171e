// Package binio holds the low-level codecs shared by the legacy package reader
// and writer: Unreal's FCompactIndex, little-endian integers and strings, and a
// bounds-checked cursor that reports the absolute offset of every failure.
package binio

import (
	"errors"
	"fmt"
)

// Errors returned by the compact index codec.
var (
	// ErrIndexTruncated means the bytes ended inside a compact index.
	ErrIndexTruncated = fmt.Errorf("compact index runs past the end of the data: %w", ErrTruncated)
	// ErrIndexOverflow means a compact index has a fifth byte that no engine
	// writes (above 0x10, or 0x10 without the sign bit): the data is corrupt.
	ErrIndexOverflow = errors.New("compact index has a fifth byte beyond 32 bits")
)

// MaxIndexLen is the longest encoding of a compact index.
const MaxIndexLen = 5

// ReadIndex decodes an FCompactIndex from the start of b. It returns the value
// and the number of bytes it used. Non-minimal encodings and negative zero
// decode as the engine decodes them; use IndexCanonical to detect them.
func ReadIndex(b []byte) (v int32, n int, err error) {
	if len(b) == 0 {
		return 0, 0, ErrIndexTruncated
	}
	b0 := b[0]
	mag := uint32(b0 & 0x3F)
	n = 1
	if b0&0x40 != 0 {
		shift := uint(6)
		for i := 1; ; i++ {
			if i >= len(b) {
				return 0, 0, ErrIndexTruncated
			}
			c := b[i]
			n++
			if i == 4 {
				// The fifth byte carries the top bits; it has no continue bit.
				// 0x10 only encodes INT_MIN: sign set and every lower bit clear.
				if c > 0x10 || (c == 0x10 && (b0&0x80 == 0 || mag != 0)) {
					return 0, 0, ErrIndexOverflow
				}
				mag |= uint32(c) << 27
				break
			}
			mag |= uint32(c&0x7F) << shift
			shift += 7
			if c&0x80 == 0 {
				break
			}
		}
	}
	if b0&0x80 != 0 {
		return int32(-int64(mag)), n, nil
	}
	return int32(mag), n, nil
}

// AppendIndex appends the canonical (engine) encoding of v to dst.
func AppendIndex(dst []byte, v int32) []byte {
	var sign byte
	mag := uint32(v)
	if v < 0 {
		sign = 0x80
		mag = uint32(-int64(v))
	}
	b0 := sign | byte(mag&0x3F)
	mag >>= 6
	if mag == 0 {
		return append(dst, b0)
	}
	dst = append(dst, b0|0x40)
	for i := 1; i < 4; i++ {
		c := byte(mag & 0x7F)
		mag >>= 7
		if mag == 0 {
			return append(dst, c)
		}
		dst = append(dst, c|0x80)
	}
	return append(dst, byte(mag))
}

// IndexLen returns the length of the canonical encoding of v.
func IndexLen(v int32) int {
	mag := uint64(v)
	if v < 0 {
		mag = uint64(-int64(v))
	}
	switch {
	case mag < 1<<6:
		return 1
	case mag < 1<<13:
		return 2
	case mag < 1<<20:
		return 3
	case mag < 1<<27:
		return 4
	}
	return 5
}

// IndexCanonical reports whether the n bytes at the start of b, which decode
// to v, are the encoding the engine itself would write.
func IndexCanonical(b []byte, n int, v int32) bool {
	var tmp [MaxIndexLen]byte
	enc := AppendIndex(tmp[:0], v)
	if len(enc) != n || n > len(b) {
		return false
	}
	for i := range enc {
		if enc[i] != b[i] {
			return false
		}
	}
	return true
}
