package binio

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
)

// canonicalIndex is the table of canonical encodings from
// docs/legacy-packages.md §1.1 (Epic's encoder).
var canonicalIndex = []struct {
	v   int32
	enc []byte
}{
	{0, []byte{0x00}},
	{1, []byte{0x01}},
	{-1, []byte{0x81}},
	{63, []byte{0x3F}},
	{-63, []byte{0xBF}},
	{64, []byte{0x40, 0x01}},
	{-64, []byte{0xC0, 0x01}},
	{127, []byte{0x7F, 0x01}},
	{8191, []byte{0x7F, 0x7F}},
	{8192, []byte{0x40, 0x80, 0x01}},
	{12345, []byte{0x79, 0xC0, 0x01}},
	{-12345, []byte{0xF9, 0xC0, 0x01}},
	{1<<20 - 1, []byte{0x7F, 0xFF, 0x7F}},
	{1<<27 - 1, []byte{0x7F, 0xFF, 0xFF, 0x7F}},
	{1 << 27, []byte{0x40, 0x80, 0x80, 0x80, 0x01}},
	{math.MaxInt32, []byte{0x7F, 0xFF, 0xFF, 0xFF, 0x0F}},
	{-math.MaxInt32, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}},
	{math.MinInt32, []byte{0xC0, 0x80, 0x80, 0x80, 0x10}},
}

func TestIndexCanonicalTable(t *testing.T) {
	for _, tc := range canonicalIndex {
		t.Run(fmt.Sprint(tc.v), func(t *testing.T) {
			got := AppendIndex(nil, tc.v)
			if !bytes.Equal(got, tc.enc) {
				t.Errorf("AppendIndex(%d) = % X, want % X", tc.v, got, tc.enc)
			}
			if n := IndexLen(tc.v); n != len(tc.enc) {
				t.Errorf("IndexLen(%d) = %d, want %d", tc.v, n, len(tc.enc))
			}
			// Decoding reads exactly the encoding, even with bytes after it.
			v, n, err := ReadIndex(append(append([]byte(nil), tc.enc...), 0xAA, 0x55))
			if err != nil || v != tc.v || n != len(tc.enc) {
				t.Errorf("ReadIndex(% X) = %d, %d, %v; want %d, %d, nil", tc.enc, v, n, err, tc.v, len(tc.enc))
			}
			if !IndexCanonical(tc.enc, len(tc.enc), tc.v) {
				t.Errorf("IndexCanonical(% X) = false, want true", tc.enc)
			}
			// AppendIndex appends: it keeps what dst holds.
			pre := []byte{0xDE, 0xAD}
			if got := AppendIndex(pre, tc.v); !bytes.Equal(got[:2], pre) || !bytes.Equal(got[2:], tc.enc) {
				t.Errorf("AppendIndex(% X, %d) = % X", pre, tc.v, got)
			}
		})
	}
}

func TestIndexLenBoundaries(t *testing.T) {
	// Every power-of-two boundary, both signs, agrees with the encoder.
	var vals []int32
	for s := 0; s < 31; s++ {
		b := int32(1) << s
		vals = append(vals, b-1, b, b+1, -(b - 1), -b, -(b + 1))
	}
	vals = append(vals, math.MaxInt32, math.MinInt32, math.MinInt32+1)
	for _, v := range vals {
		enc := AppendIndex(nil, v)
		if IndexLen(v) != len(enc) {
			t.Errorf("IndexLen(%d) = %d, encoding % X has %d bytes", v, IndexLen(v), enc, len(enc))
		}
		got, n, err := ReadIndex(enc)
		if err != nil || got != v || n != len(enc) {
			t.Errorf("round trip %d: % X decodes to %d, %d, %v", v, enc, got, n, err)
		}
	}
}

func TestIndexNonCanonical(t *testing.T) {
	cases := []struct {
		enc []byte
		v   int32
	}{
		{[]byte{0x80}, 0},                         // negative zero
		{[]byte{0x40, 0x00}, 0},                   // zero in two bytes
		{[]byte{0xC0, 0x00}, 0},                   // negative zero in two bytes
		{[]byte{0xC0, 0x80, 0x00}, 0},             // negative zero in three bytes
		{[]byte{0x41, 0x00}, 1},                   // 1 in two bytes
		{[]byte{0x7F, 0x80, 0x00}, 63},            // 63 in three bytes
		{[]byte{0x40, 0x81, 0x80, 0x00}, 64},      // 64 in four bytes
		{[]byte{0x40, 0x80, 0x80, 0x80, 0x00}, 0}, // zero in five bytes
		{[]byte{0x7F, 0xFF, 0xFF, 0xFF, 0x00}, 1<<27 - 1},
	}
	for _, tc := range cases {
		v, n, err := ReadIndex(tc.enc)
		if err != nil || v != tc.v || n != len(tc.enc) {
			t.Errorf("ReadIndex(% X) = %d, %d, %v; want %d, %d, nil", tc.enc, v, n, err, tc.v, len(tc.enc))
			continue
		}
		if IndexCanonical(tc.enc, n, v) {
			t.Errorf("IndexCanonical(% X) = true, want false (canonical is % X)", tc.enc, AppendIndex(nil, v))
		}
	}
	// IndexCanonical must not read past b nor accept a short n.
	if IndexCanonical([]byte{0x40}, 2, 64) {
		t.Error("IndexCanonical accepted n larger than b")
	}
	if IndexCanonical([]byte{0x40, 0x01}, 1, 64) {
		t.Error("IndexCanonical accepted a wrong length")
	}
}

func TestIndexFifthByte(t *testing.T) {
	// Every fifth byte: 0x00..0x0F is valid with either sign, 0x10 only for
	// INT_MIN (sign set, every lower bit clear), anything above is corrupt.
	for b4 := 0; b4 < 256; b4++ {
		for _, b0 := range []byte{0x40, 0xC0, 0x7F, 0xFF} {
			enc := []byte{b0, 0x80, 0x80, 0x80, byte(b4)}
			v, n, err := ReadIndex(enc)
			neg := b0&0x80 != 0
			wantErr := b4 > 0x10 || (b4 == 0x10 && (!neg || b0&0x3F != 0))
			if wantErr {
				if !errors.Is(err, ErrIndexOverflow) {
					t.Errorf("ReadIndex(% X) = %d, %d, %v; want ErrIndexOverflow", enc, v, n, err)
				}
				continue
			}
			if err != nil || n != 5 {
				t.Errorf("ReadIndex(% X) = %d, %d, %v; want a 5-byte value", enc, v, n, err)
			}
		}
	}
	for _, enc := range [][]byte{
		{0x7F, 0xFF, 0xFF, 0xFF, 0xFF}, // Epic's decoder wraps this to -1
		{0x40, 0x80, 0x80, 0x80, 0x10}, // 2^31 without the sign
		{0xC0, 0x80, 0x80, 0x80, 0x11},
		{0xC0, 0x80, 0x80, 0x80, 0x80}, // a "continue" bit on the fifth byte
	} {
		if _, _, err := ReadIndex(enc); !errors.Is(err, ErrIndexOverflow) {
			t.Errorf("ReadIndex(% X) error = %v, want ErrIndexOverflow", enc, err)
		}
	}
}

// TestIndexFifthByte0x10 covers a fifth byte of 0x10 with the sign set but
// low bits too: the magnitude exceeds 2^31, which only INT_MIN may reach.
// The engine's decoder wraps it; unrmod rejects it as corrupt.
func TestIndexFifthByte0x10(t *testing.T) {
	for _, enc := range [][]byte{
		{0xC1, 0x80, 0x80, 0x80, 0x10},
		{0xC0, 0x81, 0x80, 0x80, 0x10},
		{0xFF, 0xFF, 0xFF, 0xFF, 0x10},
	} {
		if v, n, err := ReadIndex(enc); !errors.Is(err, ErrIndexOverflow) {
			t.Errorf("ReadIndex(% X) = %d, %d, %v; want ErrIndexOverflow", enc, v, n, err)
		}
	}
}

func TestIndexTruncated(t *testing.T) {
	for _, enc := range [][]byte{
		nil,
		{},
		{0x40},
		{0xC0},
		{0x40, 0x80},
		{0x40, 0x80, 0x80},
		{0x40, 0x80, 0x80, 0x80},
		{0xFF, 0xFF, 0xFF, 0xFF},
	} {
		v, n, err := ReadIndex(enc)
		if !errors.Is(err, ErrIndexTruncated) || v != 0 || n != 0 {
			t.Errorf("ReadIndex(% X) = %d, %d, %v; want 0, 0, ErrIndexTruncated", enc, v, n, err)
		}
	}
	// Every proper prefix of every canonical multi-byte encoding is truncated.
	for _, tc := range canonicalIndex {
		for k := 0; k < len(tc.enc); k++ {
			if _, _, err := ReadIndex(tc.enc[:k]); !errors.Is(err, ErrIndexTruncated) {
				t.Errorf("ReadIndex(% X) (prefix of %d) error = %v, want ErrIndexTruncated", tc.enc[:k], tc.v, err)
			}
		}
	}
}

func FuzzIndex(f *testing.F) {
	for _, tc := range canonicalIndex {
		f.Add(tc.enc)
	}
	f.Add([]byte{0x80})
	f.Add([]byte{0x40, 0x00})
	f.Add([]byte{0x7F, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Add([]byte{0xC1, 0x80, 0x80, 0x80, 0x10})
	f.Add([]byte{0x40})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzbound.Check(t, time.Now(), len(b))
		v, n, err := ReadIndex(b)
		if err != nil {
			if n != 0 || v != 0 {
				t.Fatalf("ReadIndex(% X) failed with %v but returned %d, %d", b, err, v, n)
			}
			if !errors.Is(err, ErrIndexTruncated) && !errors.Is(err, ErrIndexOverflow) {
				t.Fatalf("ReadIndex(% X): unexpected error %v", b, err)
			}
			return
		}
		if n < 1 || n > MaxIndexLen || n > len(b) {
			t.Fatalf("ReadIndex(% X) used %d bytes", b, n)
		}
		enc := AppendIndex(nil, v)
		if len(enc) != IndexLen(v) {
			t.Fatalf("AppendIndex(%d) = % X but IndexLen = %d", v, enc, IndexLen(v))
		}
		if len(enc) > n && IndexCanonical(b, n, v) {
			t.Fatalf("IndexCanonical(% X) = true, but the canonical form % X is longer", b[:n], enc)
		}
		if got := IndexCanonical(b, n, v); got != bytes.Equal(enc, b[:n]) {
			t.Fatalf("IndexCanonical(% X, %d, %d) = %v, canonical form is % X", b, n, v, got, enc)
		}
		w, m, err := ReadIndex(enc)
		if err != nil || w != v || m != len(enc) {
			t.Fatalf("canonical % X of %d decodes to %d, %d, %v", enc, v, w, m, err)
		}
		if !IndexCanonical(enc, m, w) {
			t.Fatalf("AppendIndex(%d) = % X is not canonical by IndexCanonical", v, enc)
		}
	})
}
