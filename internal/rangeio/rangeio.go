// Package rangeio assembles a file's bytes from pieces: bytes in memory
// and ranges of other files, read only as the result is read. The
// streamed encoders (zen.Package.EncodeStream, uasset.Package.EncodeStream)
// write a package this way without holding its export data.
package rangeio

import (
	"errors"
	"fmt"
	"io"
	"sort"
)

// Stream is a sequence of pieces read as one file. The zero value is an
// empty stream.
type Stream struct {
	pieces []piece
	size   int64
}

// piece is a run of the stream's bytes at off: b, or n bytes of r at from.
type piece struct {
	off  int64
	b    []byte
	r    io.ReaderAt
	from int64
	n    int64
}

func (pc *piece) len() int64 {
	if pc.r == nil {
		return int64(len(pc.b))
	}
	return pc.n
}

// Add appends b (not copied).
func (s *Stream) Add(b []byte) {
	if len(b) > 0 {
		s.pieces = append(s.pieces, piece{off: s.size, b: b})
		s.size += int64(len(b))
	}
}

// AddRange appends n bytes of r at from; a range that continues the last
// one in the same r joins it.
func (s *Stream) AddRange(r io.ReaderAt, from, n int64) {
	if n <= 0 {
		return
	}
	if k := len(s.pieces) - 1; k >= 0 && s.pieces[k].r == r && s.pieces[k].from+s.pieces[k].n == from {
		s.pieces[k].n += n
		s.size += n
		return
	}
	s.pieces = append(s.pieces, piece{off: s.size, r: r, from: from, n: n})
	s.size += n
}

// Size returns the stream's size.
func (s *Stream) Size() int64 { return s.size }

// NewReader returns a reader of the stream from its start. A range its
// source cannot fill (a file that shrank) fails the read with
// io.ErrUnexpectedEOF rather than giving fewer bytes than Size.
func (s *Stream) NewReader() io.Reader { return &reader{s: s} }

// reader reads a Stream in order.
type reader struct {
	s   *Stream
	off int64
}

func (r *reader) Read(b []byte) (int, error) {
	if r.off >= r.s.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), r.s.size-r.off))
	m, err := r.s.ReadAt(b[:n], r.off)
	r.off += int64(m)
	if m < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return m, err
	}
	return m, nil
}

// ReadAt reads len(b) bytes of the stream at off.
func (s *Stream) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("rangeio: negative offset")
	}
	k := sort.Search(len(s.pieces), func(k int) bool { return s.pieces[k].off+s.pieces[k].len() > off })
	n := 0
	for ; n < len(b) && k < len(s.pieces); k++ {
		pc := s.pieces[k]
		at := off + int64(n) - pc.off
		want := min(int64(len(b)-n), pc.len()-at)
		if pc.r == nil {
			copy(b[n:], pc.b[at:at+want])
		} else if m, err := pc.r.ReadAt(b[n:n+int(want)], pc.from+at); int64(m) < want {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n + m, err
		}
		n += int(want)
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// ReadFull reads len(b) bytes of r at off; a source that holds fewer is
// io.ErrUnexpectedEOF.
func ReadFull(r io.ReaderAt, b []byte, off int64) error {
	m, err := r.ReadAt(b, off)
	if m == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// Exports is where a streamed package reads the export data it does not
// hold: export i's Sizes[i] bytes at Offs[i] of R (a size of 0: the data
// is held, or empty).
type Exports struct {
	R     io.ReaderAt
	Sizes []int
	Offs  []int64
}

// NewExports returns the source of n exports' data in r, export i's
// sizes[i] bytes at offs[i], leaving out the exports held reports as in
// memory.
func NewExports(r io.ReaderAt, offs []int64, sizes []int, n int, held func(i int) bool) (*Exports, error) {
	if len(offs) != n || len(sizes) != n {
		return nil, fmt.Errorf("%d offsets and %d sizes for %d exports", len(offs), len(sizes), n)
	}
	e := &Exports{R: r, Sizes: make([]int, n), Offs: offs}
	for i := range n {
		if sizes[i] < 0 || offs[i] < 0 {
			return nil, fmt.Errorf("export %d: %d bytes at %d", i, sizes[i], offs[i])
		}
		if !held(i) {
			e.Sizes[i] = sizes[i]
		}
	}
	return e, nil
}

// Read returns a copy of export i's data.
func (e *Exports) Read(i int) ([]byte, error) {
	d := make([]byte, e.Sizes[i])
	if err := ReadFull(e.R, d, e.Offs[i]); err != nil {
		return nil, fmt.Errorf("read %d bytes at 0x%X: %w", len(d), e.Offs[i], err)
	}
	return d, nil
}
