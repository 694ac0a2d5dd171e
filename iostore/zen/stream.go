package zen

import (
	"bytes"
	"fmt"
	"io"

	"github.com/unrmod/unrmod/internal/rangeio"
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

// streamSource is where a streamed package reads the export data it does
// not hold.
type streamSource struct {
	rangeio.Exports
	dataEnd int // where the trailing bytes start (DecodePackageStream)
}

// dataLen returns the size export i's data takes in the package: its
// Data's, or, for an export of a streamed package whose data was not
// loaded, the size it had in the source.
func (p *Package) dataLen(i int) int {
	if s := p.stream; s != nil && p.Exports[i].Data == nil {
		return s.Sizes[i]
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
	s.R = r
	s.Offs = make([]int64, len(p.Exports))
	for i := range p.Exports {
		s.Offs[i] = int64(p.Exports[i].DataOffset)
	}
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
		if s.Sizes[i] > 0 && e.DataOffset != len(raw)+int(pl.at[i]) {
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

// StreamExportsFrom makes p a streamed package whose exports with no Data
// hold sizes[i] bytes read from r at offs[i]: a package built in memory
// from the model of another file (a cooked asset converted) whose export
// data stays in that file. EncodeStream writes it; Encode refuses it. r
// must stay readable until the stream has been read.
func (p *Package) StreamExportsFrom(r io.ReaderAt, offs []int64, sizes []int) error {
	e, err := rangeio.NewExports(r, offs, sizes, len(p.Exports), func(i int) bool { return p.Exports[i].Data != nil })
	if err != nil {
		return fmt.Errorf("zen: %w", err)
	}
	s := &streamSource{Exports: *e}
	p.stream, p.dataless = s, true
	return nil
}

// DataLen returns the size of export i's data: len(Data), or for an
// export of a streamed package not loaded, the size it has in the source.
func (p *Package) DataLen(i int) int { return p.dataLen(i) }

// Streamed reports whether p was decoded by DecodePackageStream or given
// its export data by StreamExportsFrom.
func (p *Package) Streamed() bool { return p.stream != nil }

// Loaded reports whether export i's data is in memory: always for a
// package DecodePackage decoded or built in memory; for a streamed one,
// once LoadExport loaded it or its Data was set.
func (p *Package) Loaded(i int) bool {
	return p.stream == nil || p.Exports[i].Data != nil || p.stream.Sizes[i] == 0
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
	d, err := p.stream.Read(i)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.PackageName(), err)
	}
	return d, nil
}

// Stream is an encoded package whose export data is read from its source
// as it is read: the header in memory, the data in ranges. It is an
// io.ReaderAt; NewReader reads it from the start.
type Stream struct {
	// Header is the encoded header: the package's first bytes.
	Header []byte
	s      rangeio.Stream
}

// Size returns the package's size.
func (s *Stream) Size() int64 { return s.s.Size() }

// NewReader returns a reader of the package's bytes from the start.
func (s *Stream) NewReader() io.Reader { return s.s.NewReader() }

// ReadAt reads len(b) bytes of the package at off.
func (s *Stream) ReadAt(b []byte, off int64) (int, error) { return s.s.ReadAt(b, off) }

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
	out.s.Add(h)
	for _, i := range pl.order {
		if p.Loaded(i) {
			out.s.Add(p.Exports[i].Data)
		} else {
			out.s.AddRange(s.R, s.Offs[i], int64(s.Sizes[i]))
		}
	}
	out.s.Add(p.Trailing)
	return out, nil
}

// DataSource returns where the data of export i of a streamed package is
// read from, when it is not in memory: the source and the offset there.
func (p *Package) DataSource(i int) (r io.ReaderAt, off int64, ok bool) {
	if i < 0 || i >= len(p.Exports) || p.Loaded(i) {
		return nil, 0, false
	}
	return p.stream.R, p.stream.Offs[i], true
}
