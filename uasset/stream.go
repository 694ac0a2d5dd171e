package uasset

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/unrmod/unrmod/internal/rangeio"
)

// maxStreamGap is the most bytes DecodeStream reads into memory between
// exports' data or after the last export (the .uexp's package tag):
// cooked assets have none but the 4-byte tag.
const maxStreamGap = 64 << 10

// lazyArea is a .uexp read through r, size bytes, not held.
type lazyArea struct {
	r    io.ReaderAt
	size int64
}

// DecodeStream decodes a split cooked asset as Decode does, but for its
// export data: uasset is the header file (.uasset/.umap), and the .uexp,
// uexpSize bytes, is read from uexp only as needed, so that memory follows
// the header, not the asset. The exports have no Data until LoadExport
// reads it; DataLen gives each export's size, and EncodeStream writes the
// asset again with the data of the exports not loaded copied from uexp in
// ranges. Encode refuses the package. Bytes between exports' data and
// after the last export are read into the model when they take at most 64
// KiB (a cooked .uexp has none but its 4-byte tag); more is refused. uexp
// must stay readable (and unchanged) while the package is used.
func DecodeStream(name string, uasset []byte, uexp io.ReaderAt, uexpSize int64, opts *Options) (*Package, error) {
	if uexpSize < 0 || uexpSize > 1<<40 {
		return nil, errorf(name, "the .uexp", -1, ErrCorrupt, "%d bytes", uexpSize)
	}
	return decode(name, uasset, nil, &lazyArea{r: uexp, size: uexpSize}, opts)
}

// splitLazy is splitExportData for a .uexp lz reads: it checks every
// export's place against lz's size and reads the gaps and the trailer.
func (p *Package) splitLazy(lz *lazyArea, hs int) error {
	n := len(p.Exports)
	p.order = make([]int, n)
	for i := range p.order {
		p.order[i] = i
	}
	s := &rangeio.Exports{R: lz.r, Sizes: make([]int, n), Offs: make([]int64, n)}
	for i := range p.Exports {
		e := &p.Exports[i]
		start := e.SerialOffset - int64(hs)
		if e.SerialSize < 0 || start < 0 || start > lz.size || e.SerialSize > lz.size-start {
			return errorf(p.FileName, p.exportLabel(i), -1, ErrCorrupt,
				"data at SerialOffset 0x%X, SerialSize 0x%X is outside the .uexp (0x%X..0x%X)", e.SerialOffset, e.SerialSize, hs, int64(hs)+lz.size)
		}
		s.Sizes[i], s.Offs[i] = int(e.SerialSize), start
	}
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(p.Exports[a].SerialOffset, p.Exports[b].SerialOffset) })
	read := func(from, to int64, what string) ([]byte, error) {
		if to-from > maxStreamGap {
			return nil, errorf(p.FileName, what, int64(hs)+from, ErrNotEncodable,
				"%d bytes that belong to no export: more than unrmod reads without the whole .uexp", to-from)
		}
		b := make([]byte, to-from)
		if err := rangeio.ReadFull(lz.r, b, from); err != nil {
			return nil, fmt.Errorf("%s: read the .uexp at 0x%X: %w", p.FileName, from, err)
		}
		return b, nil
	}
	pos := int64(0)
	for _, i := range p.order {
		e := &p.Exports[i]
		start := s.Offs[i]
		if start < pos {
			return errorf(p.FileName, p.exportLabel(i), e.SerialOffset, ErrCorrupt, "data overlaps the export data before it (which ends at 0x%X)", int64(hs)+pos)
		}
		lead, err := read(pos, start, p.exportLabel(i))
		if err != nil {
			return err
		}
		e.lead, e.Data = lead, nil
		pos = start + e.SerialSize
	}
	t, err := read(pos, lz.size, "export trailer")
	if err != nil {
		return err
	}
	p.ExportTrailer = t
	p.areaLen = int(lz.size)
	p.stream = s
	return nil
}

// dataLen returns the size of export i's data: its Data's, or for an
// export of a streamed package not loaded, its size in the source.
func (p *Package) dataLen(i int) int {
	if s := p.stream; s != nil && p.Exports[i].Data == nil {
		return s.Sizes[i]
	}
	return len(p.Exports[i].Data)
}

// DataLen returns the size of export i's data (see DecodeStream).
func (p *Package) DataLen(i int) int { return p.dataLen(i) }

// Streamed reports whether p reads export data it does not hold
// (DecodeStream, StreamExportsFrom).
func (p *Package) Streamed() bool { return p.stream != nil }

// Loaded reports whether export i's data is in memory: always for a
// package Decode decoded; for a streamed one once LoadExport read it or
// its Data was set.
func (p *Package) Loaded(i int) bool {
	return p.stream == nil || p.Exports[i].Data != nil || p.stream.Sizes[i] == 0
}

// LoadExport reads export i's data into its Data. It does nothing when the
// data is in memory.
func (p *Package) LoadExport(i int) error {
	if i < 0 || i >= len(p.Exports) {
		return fmt.Errorf("uasset: export %d of %d", i, len(p.Exports))
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

// ExportData returns export i's data: its Data, or for an export of a
// streamed package not loaded, a copy read from the source that p does not
// keep.
func (p *Package) ExportData(i int) ([]byte, error) {
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("uasset: export %d of %d", i, len(p.Exports))
	}
	if p.Loaded(i) {
		return p.Exports[i].Data, nil
	}
	d, err := p.stream.Read(i)
	if err != nil {
		return nil, fmt.Errorf("%s: %s's data: %w", p.FileName, p.exportLabel(i), err)
	}
	return d, nil
}

// StreamExportsFrom makes p a streamed package whose exports with no Data
// hold sizes[i] bytes read from r at offs[i]: an asset built in memory
// from another file's model (a zen package converted) whose export data
// stays in that file. r must stay readable while p is used.
func (p *Package) StreamExportsFrom(r io.ReaderAt, offs []int64, sizes []int) error {
	s, err := rangeio.NewExports(r, offs, sizes, len(p.Exports), func(i int) bool { return p.Exports[i].Data != nil })
	if err != nil {
		return fmt.Errorf("uasset: %w", err)
	}
	p.stream = s
	return nil
}

// Stream is export data read from its source as it is read. It is an
// io.ReaderAt; NewReader reads it from the start.
type Stream struct{ s rangeio.Stream }

// Size returns the stream's size.
func (s *Stream) Size() int64 { return s.s.Size() }

// NewReader returns a reader of the stream from its start.
func (s *Stream) NewReader() io.Reader { return s.s.NewReader() }

// ReadAt reads len(b) bytes of the stream at off.
func (s *Stream) ReadAt(b []byte, off int64) (int, error) { return s.s.ReadAt(b, off) }

// EncodeStream encodes a split streamed package as Encode encodes one
// decoded whole: the header file, and the .uexp as a stream of each
// export's data (its Data when in memory, else its bytes in the source)
// with the bytes between and after them.
func (p *Package) EncodeStream() (uasset []byte, uexp *Stream, err error) {
	if p.stream == nil || !p.Split {
		return nil, nil, p.notEncodable("export data", "not a split package read by DecodeStream or given its data by StreamExportsFrom: use Encode")
	}
	order, starts, size := p.areaLayout()
	hdr, err := p.appendHeader(nil, int(p.Summary.TotalHeaderSize), starts, size)
	if err != nil {
		return nil, nil, err
	}
	if len(hdr) != int(p.Summary.TotalHeaderSize) {
		if hdr, err = p.appendHeader(nil, len(hdr), starts, size); err != nil {
			return nil, nil, err
		}
	}
	out := &Stream{}
	for _, i := range order {
		e := &p.Exports[i]
		out.s.Add(e.lead)
		if p.Loaded(i) {
			out.s.Add(e.Data)
		} else {
			out.s.AddRange(p.stream.R, p.stream.Offs[i], int64(p.stream.Sizes[i]))
		}
	}
	out.s.Add(p.ExportTrailer)
	return append(hdr, p.HeaderTrailer...), out, nil
}

// DataSource returns where the data of export i of a streamed package is
// read from, when it is not in memory: the source and the offset there.
func (p *Package) DataSource(i int) (r io.ReaderAt, off int64, ok bool) {
	if i < 0 || i >= len(p.Exports) || p.Loaded(i) {
		return nil, 0, false
	}
	return p.stream.R, p.stream.Offs[i], true
}
