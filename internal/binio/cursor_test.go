package binio

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
)

func cursorErr(t *testing.T, c *Cursor) *CursorError {
	t.Helper()
	var ce *CursorError
	if !errors.As(c.Err(), &ce) {
		t.Fatalf("cursor error = %v (%T), want *CursorError", c.Err(), c.Err())
	}
	return ce
}

func TestCursorCount(t *testing.T) {
	cases := []struct {
		name    string
		data    []byte
		minSize int
		want    int
		wantErr error // nil: success
	}{
		{"zero", []byte{0x00}, 4, 0, nil},
		{"fits exactly", []byte{0x02, 1, 2, 3, 4, 5, 6, 7, 8}, 4, 2, nil},
		{"fits with room", []byte{0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 4, 2, nil},
		{"one byte short", []byte{0x02, 1, 2, 3, 4, 5, 6, 7}, 4, 0, ErrTruncated},
		{"max int32", []byte{0x7F, 0xFF, 0xFF, 0xFF, 0x0F}, 1, 0, ErrTruncated},
		{"max int32 size 0 is not bounded", []byte{0x7F, 0xFF, 0xFF, 0xFF, 0x0F}, 0, math.MaxInt32, nil},
		{"2^27 of 1 byte", []byte{0x40, 0x80, 0x80, 0x80, 0x01, 0, 0}, 1, 0, ErrTruncated},
		{"negative", []byte{0x81}, 1, 0, nil}, // checked separately below
		{"truncated index", []byte{0x40}, 1, 0, ErrIndexTruncated},
		{"overflowing index", []byte{0x40, 0x80, 0x80, 0x80, 0xFF}, 1, 0, ErrIndexOverflow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCursor(tc.data, 0x1000)
			n := c.Count("element count", tc.minSize)
			if tc.name == "negative" {
				ce := cursorErr(t, c)
				if n != 0 || ce.Offset != 0x1000 || !strings.Contains(ce.Error(), "negative") {
					t.Fatalf("Count = %d, err %v; want 0 and a negative-count error at 0x1000", n, ce)
				}
				return
			}
			if tc.wantErr == nil {
				if c.Err() != nil || n != tc.want {
					t.Fatalf("Count = %d, %v; want %d, nil", n, c.Err(), tc.want)
				}
				return
			}
			ce := cursorErr(t, c)
			if n != 0 || !errors.Is(ce, tc.wantErr) {
				t.Fatalf("Count = %d, %v; want 0 and %v", n, ce, tc.wantErr)
			}
			if ce.Offset != 0x1000 || ce.What != "element count" {
				t.Errorf("error at %q 0x%X, want \"element count\" at 0x1000", ce.What, ce.Offset)
			}
			if !strings.Contains(ce.Error(), "0x1000") {
				t.Errorf("message %q lacks the offset", ce.Error())
			}
		})
	}
}

// TestCursorCountNoAllocation checks that a caller that allocates what Count
// returns cannot be made to allocate more than the data can hold.
func TestCursorCountNoAllocation(t *testing.T) {
	data := append([]byte{0x7F, 0xFF, 0xFF, 0xFF, 0x0F}, make([]byte, 64)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 100; i++ {
		c := NewCursor(data, 0)
		n := c.Count("count", 16)
		s := make([]uint64, n)
		_ = s
		if c.Err() == nil {
			t.Fatal("Count accepted 2^31-1 elements in 64 bytes")
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("allocated %d bytes", d)
	}
}

func TestCursorFString(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want string
		used int
	}{
		{"empty", []byte{0x00, 0xEE}, "", 1},
		{"just the terminator", []byte{0x01, 0x00}, "", 2},
		{"latin1", []byte{0x05, 'N', 'o', 'n', 'e', 0x00, 0xEE}, "None", 6},
		{"latin1 high", []byte{0x04, 'c', 0xE9, 'a', 0x00}, "céa", 5},
		{"utf16", []byte{0x84, 'h', 0, 0xE9, 0, 0x34, 0x12, 0, 0, 0xEE}, "hé\u1234", 9},
		{"utf16 surrogate pair", []byte{0x83, 0x3D, 0xD8, 0x00, 0xDE, 0, 0}, "\U0001F600", 7},
		{"utf16 terminator only", []byte{0x81, 0, 0}, "", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCursor(tc.data, 0)
			s := c.FString("name")
			if c.Err() != nil || s != tc.want || c.Pos() != tc.used {
				t.Fatalf("FString = %q, pos %d, %v; want %q, pos %d", s, c.Pos(), c.Err(), tc.want, tc.used)
			}
			if tc.want != "" {
				// The writer's encoding decodes back to the same text.
				enc := AppendFString(nil, tc.want)
				c2 := NewCursor(enc, 0)
				if got := c2.FString("name"); got != tc.want || c2.Err() != nil || c2.Len() != 0 {
					t.Errorf("AppendFString(%q) = % X decodes to %q, %v", tc.want, enc, got, c2.Err())
				}
			}
		})
	}
}

func TestAppendFStringForms(t *testing.T) {
	if got := AppendFString(nil, ""); !bytes.Equal(got, []byte{0}) {
		t.Errorf("empty: % X", got)
	}
	if got := AppendFString(nil, "Ab"); !bytes.Equal(got, []byte{3, 'A', 'b', 0}) {
		t.Errorf("latin1: % X", got)
	}
	if got := AppendFString(nil, "é"); !bytes.Equal(got, []byte{2, 0xE9, 0}) {
		t.Errorf("latin1 high: % X", got)
	}
	if got := AppendFString(nil, "\u0100"); !bytes.Equal(got, []byte{0x82, 0x00, 0x01, 0, 0}) {
		t.Errorf("utf16: % X", got)
	}
}

func TestAppendFString32Forms(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want []byte
	}{
		{"", []byte{0, 0, 0, 0}},
		{"Ab", []byte{3, 0, 0, 0, 'A', 'b', 0}},
		{"é", []byte{0xFE, 0xFF, 0xFF, 0xFF, 0xE9, 0, 0, 0}}, // not ASCII: UTF-16
		{"a\U0001F600", []byte{0xFC, 0xFF, 0xFF, 0xFF, 'a', 0, 0x3D, 0xD8, 0x00, 0xDE, 0, 0}},
	} {
		if got := AppendFString32([]byte{}, tc.s); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: % X, want % X", tc.s, got, tc.want)
		}
	}
}

func TestCursorFStringErrors(t *testing.T) {
	cases := []struct {
		name   string
		data   []byte
		offset int64 // relative to the base 0x200
		is     error // nil: only check the message
		msg    string
	}{
		{"latin1 truncated", []byte{0x05, 'N', 'o'}, 1, ErrTruncated, "need 5 bytes"},
		{"latin1 unterminated", []byte{0x03, 'a', 'b', 'c'}, 0, nil, "not zero-terminated"},
		{"utf16 truncated", []byte{0x85, 'a', 0}, 1, ErrTruncated, "UTF-16"},
		{"utf16 odd bytes", []byte{0x82, 'a', 0, 0}, 1, ErrTruncated, "UTF-16"},
		{"utf16 unterminated", []byte{0x82, 'a', 0, 'b', 0}, 0, nil, "not zero-terminated"},
		{"utf16 INT_MIN units", []byte{0xC0, 0x80, 0x80, 0x80, 0x10, 0, 0}, 5, ErrTruncated, "UTF-16"},
		{"latin1 max length", []byte{0x7F, 0xFF, 0xFF, 0xFF, 0x0F, 'a', 0}, 5, ErrTruncated, "need"},
		{"length truncated", []byte{0x40}, 0, ErrIndexTruncated, "length"},
		{"length overflow", []byte{0x40, 0x80, 0x80, 0x80, 0x20}, 0, ErrIndexOverflow, "length"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCursor(tc.data, 0x200)
			s := c.FString("name")
			ce := cursorErr(t, c)
			if s != "" {
				t.Errorf("FString returned %q with an error", s)
			}
			if ce.Offset != 0x200+tc.offset {
				t.Errorf("error offset 0x%X, want 0x%X (%v)", ce.Offset, 0x200+tc.offset, ce)
			}
			if tc.is != nil && !errors.Is(ce, tc.is) {
				t.Errorf("error %v is not %v", ce, tc.is)
			}
			if !strings.Contains(ce.Error(), tc.msg) || !strings.Contains(ce.Error(), "name") {
				t.Errorf("message %q lacks %q or the field name", ce.Error(), tc.msg)
			}
		})
	}
}

func TestCursorStickyError(t *testing.T) {
	// tag (4) | count index (1) | U16 (2) | 3 bytes left: the U32 fails at
	// relative 7, absolute 0x507.
	data := []byte{0xC1, 0x83, 0x2A, 0x9E, 0x05, 0x34, 0x12, 0xAA, 0xBB, 0xCC}
	c := NewCursor(data, 0x500)
	if v := c.U32("tag"); v != 0x9E2A83C1 {
		t.Fatalf("tag = 0x%X", v)
	}
	if v := c.Index("count"); v != 5 {
		t.Fatalf("count = %d", v)
	}
	if v := c.U16("word"); v != 0x1234 {
		t.Fatalf("word = 0x%X", v)
	}
	if v := c.U32("flags"); v != 0 {
		t.Errorf("failed U32 returned 0x%X", v)
	}
	pos := c.Pos()
	// Every later read fails quietly and keeps the first error.
	if c.U8("b") != 0 || c.U16("w") != 0 || c.I32("i") != 0 || c.U64("q") != 0 || c.F32("f") != 0 ||
		c.Index("x") != 0 || c.Count("n", 1) != 0 || c.FString("s") != "" || c.CString("c") != "" || c.Bytes(1, "raw") != nil {
		t.Error("a read after the error returned a value")
	}
	c.Seek(0, "seek")
	c.Fail("later", errors.New("later failure"))
	if c.Pos() != pos {
		t.Errorf("position moved from %d to %d after the error", pos, c.Pos())
	}
	ce := cursorErr(t, c)
	if ce.What != "flags" || ce.Offset != 0x507 || !errors.Is(ce, ErrTruncated) {
		t.Errorf("error = %q at 0x%X (%v); want \"flags\" at 0x507, ErrTruncated", ce.What, ce.Offset, ce)
	}
	if msg := ce.Error(); !strings.Contains(msg, "flags at 0x507") {
		t.Errorf("message %q does not name the field and offset", msg)
	}
}

func TestCursorReads(t *testing.T) {
	data := []byte{
		0x01,       // U8
		0x02, 0x01, // U16 0x0102
		0xFF, 0xFF, 0xFF, 0xFF, // I32 -1
		1, 2, 3, 4, 5, 6, 7, 8, // U64
		0x00, 0x00, 0x80, 0x3F, // F32 1.0
		'a', 0xE9, 0x00, // CString
		0x40, 0x01, // Index 64
	}
	c := NewCursor(data, 10)
	if c.U8("a") != 1 || c.U16("b") != 0x0102 || c.I32("c") != -1 || c.U64("d") != 0x0807060504030201 ||
		c.F32("e") != 1.0 || c.CString("f") != "aé" || c.Index("g") != 64 {
		t.Fatalf("reads disagree; err %v", c.Err())
	}
	if c.Len() != 0 || c.Abs() != 10+int64(len(data)) || c.Err() != nil {
		t.Fatalf("Len %d Abs %d err %v", c.Len(), c.Abs(), c.Err())
	}
	c.Seek(1, "back")
	start := c.Pos()
	c.U16("b")
	if s := c.Slice(start); !bytes.Equal(s, []byte{0x02, 0x01}) || cap(s) != 2 {
		t.Errorf("Slice = % X cap %d", s, cap(s))
	}
	c.Seek(len(data)+1, "past the end")
	ce := cursorErr(t, c)
	if !errors.Is(ce, ErrTruncated) || ce.What != "past the end" {
		t.Errorf("Seek past the end: %v", ce)
	}
	c = NewCursor([]byte{'a', 'b'}, 0x30)
	c.CString("unterminated")
	if ce := cursorErr(t, c); ce.Offset != 0x30 || !errors.Is(ce, ErrTruncated) {
		t.Errorf("CString: %v", ce)
	}
	c = NewCursor([]byte{1, 2}, 0)
	if b := c.Bytes(-1, "negative"); b != nil || c.Err() == nil {
		t.Error("Bytes(-1) succeeded")
	}
}

func TestCursorCount32(t *testing.T) {
	cases := []struct {
		name    string
		data    []byte
		minSize int
		want    int
		wantErr string // "" on success
	}{
		{"zero", []byte{0, 0, 0, 0}, 8, 0, ""},
		{"fits", []byte{2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, 4, 2, ""},
		{"one byte short", []byte{2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7}, 4, 0, "needs at least 8 bytes"},
		{"max int32", []byte{0xFF, 0xFF, 0xFF, 0x7F}, 1, 0, "count 2147483647"},
		{"negative", []byte{0xFF, 0xFF, 0xFF, 0xFF}, 1, 0, "negative count -1"},
		{"truncated", []byte{1, 0}, 1, 0, "need 4 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCursor(tc.data, 0x40)
			n := c.Count32("entries", tc.minSize)
			if tc.wantErr == "" {
				if c.Err() != nil || n != tc.want {
					t.Fatalf("Count32 = %d, %v; want %d", n, c.Err(), tc.want)
				}
				return
			}
			ce := cursorErr(t, c)
			if n != 0 || ce.Offset != 0x40 || ce.What != "entries" || !strings.Contains(ce.Error(), tc.wantErr) {
				t.Fatalf("Count32 = %d, %v (at 0x%X); want 0 and %q at 0x40", n, ce, ce.Offset, tc.wantErr)
			}
		})
	}
}

func TestCursorFString32(t *testing.T) {
	for _, s := range []string{"", "Ab", "../../../Game/Content/", "é", "a\U0001F600"} {
		enc := AppendFString32(nil, s)
		c := NewCursor(append(enc, 0xEE), 0)
		if got := c.FString32("mount point"); got != s || c.Err() != nil || c.Pos() != len(enc) {
			t.Errorf("FString32(% X) = %q, pos %d, %v; want %q", enc, got, c.Pos(), c.Err(), s)
		}
	}
	le := func(v int32) []byte { return AppendI32(nil, v) }
	bad := []struct {
		name   string
		data   []byte
		offset int64
		msg    string
	}{
		{"unterminated", append(le(3), 'a', 'b', 'c'), 0, "not zero-terminated"},
		{"utf16 unterminated", append(le(-1), 'a', 0), 0, "not zero-terminated"},
		{"truncated", append(le(10), 'a', 0), 4, "need 10 bytes"},
		{"INT_MIN units", append(le(math.MinInt32), 0, 0), 4, "UTF-16 string of 2147483648 units"},
		{"INT_MAX bytes", append(le(math.MaxInt32), 0, 0), 4, "need 2147483647 bytes"},
		{"length truncated", []byte{1, 0}, 0, "length"},
	}
	for _, tc := range bad {
		c := NewCursor(tc.data, 0x100)
		if got := c.FString32("string 3"); got != "" {
			t.Errorf("%s: returned %q with an error", tc.name, got)
		}
		ce := cursorErr(t, c)
		if ce.Offset != 0x100+tc.offset || !strings.Contains(ce.Error(), tc.msg) || !strings.Contains(ce.Error(), "string 3") {
			t.Errorf("%s: %v at 0x%X; want %q at 0x%X", tc.name, ce, ce.Offset, tc.msg, 0x100+tc.offset)
		}
	}
}

func TestCursorKindAndDescribe(t *testing.T) {
	kind := errors.New("corrupt data")
	c := NewCursor([]byte{1, 2}, 0x10)
	c.SetKind(kind)
	c.U32("magic")
	if !errors.Is(c.Err(), kind) || !errors.Is(c.Err(), ErrTruncated) {
		t.Fatalf("%v does not match both the kind and ErrTruncated", c.Err())
	}
	what, off, msg, ok := Describe(c.Err())
	if !ok || what != "magic" || off != 0x10 || !strings.Contains(msg, "need 4 bytes") || strings.Contains(msg, "magic") {
		t.Errorf("Describe = %q, 0x%X, %q, %v", what, off, msg, ok)
	}
	if _, _, _, ok := Describe(errors.New("other")); ok {
		t.Error("Describe accepted an error that is not a *CursorError")
	}
	c = NewCursor(make([]byte, 8), 0x10)
	c.FailAt(6, "field", errors.New("bad"))
	c.FailAt(2, "later", errors.New("ignored"))
	if ce := cursorErr(t, c); ce.Offset != 0x16 || ce.What != "field" || errors.Is(ce, kind) {
		t.Errorf("FailAt recorded %v at 0x%X", ce, ce.Offset)
	}
}
