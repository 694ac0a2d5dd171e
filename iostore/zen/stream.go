package zen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/unrmod/unrmod/ue"
)

// ErrNotStreamable means a package cannot be changed without holding its
// export data (DecodePackageStream): its parts are not laid out as Encode
// lays them out, so writing it again needs the bytes DecodePackage keeps.
// Callers decode the whole package instead. Matches ue.ErrNotEncodable.
var ErrNotStreamable = ue.NewSentinel("cannot be streamed", ue.ErrNotEncodable)

// maxStreamTrailing is the most trailing bytes (after the last export's
// data) DecodePackageStream reads into Trailing: engine packages have
// none, or the 4-byte package file tag.
const maxStreamTrailing = 64 << 10

// streamSource is where a package DecodePackageStream decoded reads the
// export data it does not hold: export i's sizes[i] bytes at its
// DataOffset in r.
type streamSource struct {
	r       io.ReaderAt
	sizes   []int
	dataEnd int // where the trailing bytes start
}

// dataLen returns the size export i's data takes in the package: its
// Data's, or, for an export of a streamed package whose data was not
// loaded, the size it had in the source.
func (p *Package) dataLen(i int) int {
	if s := p.stream; s != nil && p.Exports[i].Data == nil {
		return s.sizes[i]
	}
	return len(p.Exports[i].Data)
}

// trailingLen returns the size of the trailing bytes.
func (p *Package) trailingLen() int { return len(p.Trailing) }

// headerOnlyData is the size of the export data a header-only plan leaves
// out of the bytes encodeParts returns.
func headerOnlyData(pl *dataPlan) int {
	if pl.headerOnly {
		return pl.size
	}
	return 0
}

// DecodePackageStream decodes the size-byte zen package read from r to be
// changed and written again in memory that follows its header and the
// exports it changes, not the package: it decodes the header as
// DecodePackageHeader does and reads no export's data until LoadExport
// asks for it; EncodeStream then writes the header and every export's
// data, the exports not loaded copied from r in ranges. r must stay
// readable (and unchanged) until the stream EncodeStream returns has been
// read.
//
// The package must be laid out as Encode lays it out (every engine-written
// package is): a package whose header or export data differ from their
// canonical encoding, or that holds bytes between exports or more than 64
// KiB after them, is refused with ErrNotStreamable, and DecodePackage
// decodes it as usual.
func DecodePackageStream(name string, r io.ReaderAt, size int64, opts *DecodeOptions) (*Package, error) {
	p, raw, err := decodeHeader(name, r, size, opts, true)
	if err != nil {
		return nil, err
	}
	notStreamable := func(format string, args ...any) error {
		return errorf(name, "package", -1, ErrNotStreamable, format, args...)
	}
	if p.loose > 0 {
		return nil, notStreamable("%d bytes between the exports' data belong to no export", p.loose)
	}
	s := p.stream
	s.r = r
	if t := int(size) - s.dataEnd; t > 0 {
		if t > maxStreamTrailing {
			return nil, notStreamable("%d bytes follow the last export's data", t)
		}
		p.Trailing = make([]byte, t)
		if err := readAt(name, r, p.Trailing, int64(s.dataEnd)); err != nil {
			return nil, err
		}
	}
	// Streaming writes the header from the model: it must be the header
	// as stored, and each export's data where the plan puts it. (Encode
	// still refuses p, as it refuses every package decoded without its
	// data: EncodeStream writes it.)
	h, pl, err := p.encodeHeader()
	if err != nil {
		return nil, notStreamable("%v", err)
	}
	if !bytes.Equal(h, raw) {
		at := 0
		for at < len(h) && at < len(raw) && h[at] == raw[at] {
			at++
		}
		return nil, notStreamable("its header is not laid out as unrmod encodes it (first difference at 0x%X)", at)
	}
	for i, e := range p.Exports {
		if s.sizes[i] > 0 && e.DataOffset != len(raw)+int(pl.at[i]) {
			return nil, notStreamable("export %d's data is at 0x%X, not where the export data is laid out (0x%X)", i, e.DataOffset, len(raw)+int(pl.at[i]))
		}
	}
	if len(raw)+pl.size != int(size) {
		return nil, notStreamable("the export data takes %d bytes, not the %d after the header", int(size)-len(raw), pl.size)
	}
	return p, nil
}

// encodeHeader returns the header of a streamed package and its data plan.
func (p *Package) encodeHeader() ([]byte, *dataPlan, error) {
	h, err := p.encodeParts(nil, nil, true)
	if err != nil {
		return nil, nil, err
	}
	pl, err := p.planData()
	if err != nil {
		return nil, nil, err
	}
	return h, pl, nil
}

// Streamed reports whether p was decoded by DecodePackageStream.
func (p *Package) Streamed() bool { return p.stream != nil }

// Loaded reports whether export i's data is in memory: always for a
// package DecodePackage decoded or built in memory; for a streamed one,
// once LoadExport loaded it or its Data was set.
func (p *Package) Loaded(i int) bool {
	return p.stream == nil || p.Exports[i].Data != nil || p.stream.sizes[i] == 0
}

// LoadExport reads the data of export i of a streamed package into its
// Data, to read or change it. It does nothing when the data is in memory
// (always, for a package not streamed).
func (p *Package) LoadExport(i int) error {
	if i < 0 || i >= len(p.Exports) {
		return fmt.Errorf("zen: export %d of %d", i, len(p.Exports))
	}
	if p.Loaded(i) {
		return nil
	}
	d, err := p.ExportData(i)
	if err != nil {
		return err
	}
	p.Exports[i].Data = d
	return nil
}

// ExportData returns the data of export i: its Data, or for an export of a
// streamed package not loaded, a copy read from the source that p does not
// keep.
func (p *Package) ExportData(i int) ([]byte, error) {
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("zen: export %d of %d", i, len(p.Exports))
	}
	if p.Loaded(i) {
		return p.Exports[i].Data, nil
	}
	s := p.stream
	d := make([]byte, s.sizes[i])
	if err := readAt(p.PackageName(), s.r, d, int64(p.Exports[i].DataOffset)); err != nil {
		return nil, err
	}
	return d, nil
}

// Stream is an encoded package whose export data is read from its source
// as it is read: the header in memory, the data in ranges. It is an
// io.ReaderAt; NewReader reads it from the start.
type Stream struct {
	// Header is the encoded header: the package's first bytes.
	Header []byte
	pieces []piece
	size   int64
}

// piece is a run of the package's bytes at off: b, or n bytes of r at
// from.
type piece struct {
	off  int64
	b    []byte
	r    io.ReaderAt
	from int64
	n    int64
}

// Size returns the package's size.
func (s *Stream) Size() int64 { return s.size }

// NewReader returns a reader of the package's bytes from the start.
func (s *Stream) NewReader() io.Reader {
	rs := make([]io.Reader, 0, len(s.pieces))
	for _, pc := range s.pieces {
		if pc.r == nil {
			rs = append(rs, bytes.NewReader(pc.b))
		} else {
			rs = append(rs, io.NewSectionReader(pc.r, pc.from, pc.n))
		}
	}
	return io.MultiReader(rs...)
}

// ReadAt reads len(b) bytes of the package at off.
func (s *Stream) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("zen: negative offset")
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

func (pc *piece) len() int64 {
	if pc.r == nil {
		return int64(len(pc.b))
	}
	return pc.n
}

// EncodeStream encodes a package DecodePackageStream decoded, as Encode
// encodes a package decoded whole: the header from the model, then every
// export's data, its Data when it is in memory (loaded or set), else its
// bytes in the source, then the trailing bytes. Adjacent ranges of the
// source are read as one.
func (p *Package) EncodeStream() (*Stream, error) {
	s := p.stream
	if s == nil {
		return nil, pkgEncodeError("package", "not decoded by DecodePackageStream: use Encode")
	}
	if err := p.checkModel(); err != nil {
		return nil, err
	}
	h, pl, err := p.encodeHeader()
	if err != nil {
		return nil, err
	}
	out := &Stream{Header: h}
	add := func(pc piece) {
		pc.off = out.size
		out.size += pc.len()
		if pc.len() == 0 {
			return
		}
		if k := len(out.pieces) - 1; k >= 0 && pc.r != nil && out.pieces[k].r == pc.r && out.pieces[k].from+out.pieces[k].n == pc.from {
			out.pieces[k].n += pc.n
			return
		}
		out.pieces = append(out.pieces, pc)
	}
	add(piece{b: h})
	for _, i := range pl.order {
		if p.Loaded(i) {
			add(piece{b: p.Exports[i].Data})
		} else {
			add(piece{r: s.r, from: int64(p.Exports[i].DataOffset), n: int64(s.sizes[i])})
		}
	}
	add(piece{b: p.Trailing})
	return out, nil
}
