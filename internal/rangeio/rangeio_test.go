package rangeio

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestStream assembles streams of bytes and ranges and reads them whole
// and at every offset and length: the bytes must be the pieces' in order,
// adjacent ranges of one source join, and reads past the end say io.EOF.
func TestStream(t *testing.T) {
	src := bytes.NewReader([]byte("0123456789abcdefghij"))
	other := bytes.NewReader([]byte("ABCDEFGHIJ"))
	cases := []struct {
		name   string
		build  func(s *Stream)
		want   string
		pieces int
	}{
		{"empty", func(s *Stream) {}, "", 0},
		{"bytes", func(s *Stream) { s.Add([]byte("head")); s.Add(nil); s.Add([]byte("tail")) }, "headtail", 2},
		{"ranges join", func(s *Stream) { s.AddRange(src, 2, 3); s.AddRange(src, 5, 4) }, "2345678", 1},
		{"ranges of two sources", func(s *Stream) { s.AddRange(src, 0, 2); s.AddRange(other, 2, 2) }, "01CD", 2},
		{"gap does not join", func(s *Stream) { s.AddRange(src, 0, 2); s.AddRange(src, 3, 2) }, "0134", 2},
		{"mixed", func(s *Stream) {
			s.Add([]byte("H"))
			s.AddRange(src, 10, 6)
			s.AddRange(src, 0, 0)
			s.Add([]byte("-"))
			s.AddRange(other, 0, 3)
		}, "Habcdef-ABC", 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Stream
			tc.build(&s)
			if s.Size() != int64(len(tc.want)) || len(s.pieces) != tc.pieces {
				t.Fatalf("size %d in %d pieces, want %d in %d", s.Size(), len(s.pieces), len(tc.want), tc.pieces)
			}
			got, err := io.ReadAll(s.NewReader())
			if err != nil || string(got) != tc.want {
				t.Fatalf("NewReader: %q (%v), want %q", got, err, tc.want)
			}
			for off := 0; off <= len(tc.want); off++ {
				for n := 0; off+n <= len(tc.want)+2; n++ {
					b := make([]byte, n)
					m, err := s.ReadAt(b, int64(off))
					end := min(off+n, len(tc.want))
					if m != end-off || string(b[:m]) != tc.want[off:end] {
						t.Fatalf("ReadAt(%d, %d) = %d %q, want %q", n, off, m, b[:m], tc.want[off:end])
					}
					if (off+n > len(tc.want)) != (err == io.EOF) || err != nil && err != io.EOF {
						t.Fatalf("ReadAt(%d, %d): error %v", n, off, err)
					}
				}
			}
			if _, err := s.ReadAt(make([]byte, 1), -1); err == nil {
				t.Error("ReadAt at a negative offset did not fail")
			}
		})
	}
}

// TestStreamShortSource reads a range its source cannot fill (a file that
// shrank): ReadAt and NewReader fail with io.ErrUnexpectedEOF rather than
// give short data.
func TestStreamShortSource(t *testing.T) {
	var s Stream
	s.AddRange(bytes.NewReader([]byte("abc")), 1, 5)
	b := make([]byte, 5)
	if n, err := s.ReadAt(b, 0); n == 5 || err != io.ErrUnexpectedEOF {
		t.Fatalf("ReadAt = %d, %v; want a short read and io.ErrUnexpectedEOF", n, err)
	}
	if _, err := io.ReadAll(s.NewReader()); err != io.ErrUnexpectedEOF {
		t.Fatalf("NewReader: %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestExports checks the checks of NewExports and that Read gives an
// export's bytes, or io.ErrUnexpectedEOF from a source that holds fewer.
func TestExports(t *testing.T) {
	src := bytes.NewReader([]byte("0123456789"))
	held := func(i int) bool { return i == 1 }
	for _, tc := range []struct {
		name         string
		offs         []int64
		sizes        []int
		wantErr      bool
		want0, want2 string
	}{
		{"ok", []int64{2, 0, 8}, []int{3, 5, 2}, false, "234", "89"},
		{"a size too few", []int64{2, 0, 8}, []int{3, 5}, true, "", ""},
		{"negative size", []int64{2, 0, 8}, []int{3, 5, -1}, true, "", ""},
		{"negative offset", []int64{-2, 0, 8}, []int{3, 5, 1}, true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewExports(src, tc.offs, tc.sizes, 3, held)
			if tc.wantErr {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Sizes[1] != 0 {
				t.Errorf("held export's size %d, want 0", e.Sizes[1])
			}
			for i, want := range map[int]string{0: tc.want0, 2: tc.want2} {
				if got, err := e.Read(i); err != nil || string(got) != want {
					t.Errorf("Read(%d) = %q, %v; want %q", i, got, err, want)
				}
			}
		})
	}
	e, err := NewExports(src, []int64{8}, []int{4}, 1, func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Read(0); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a read past the source's end: %v, want io.ErrUnexpectedEOF", err)
	}
}
