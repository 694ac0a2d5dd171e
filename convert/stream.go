package convert

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// This file converts packages without holding their export data: an asset
// decoded with uasset.DecodeStream converts (ToZen) into a zen package
// whose exports' data is read from the asset's .uexp as the package is
// written (zen.Package.EncodeStream), and a package decoded with
// zen.DecodePackageStream converts (ToLegacy) into an asset whose .uexp
// is read from the package (uasset.Package.EncodeStream). The conversion
// is the same; only the bytes of the exports stay where they are.

// StreamThreshold is the size of a package (of a cooked asset's export
// data) from which unrmod handles it streamed rather than decoded whole:
// convert (uasset.DecodeStream, zen.DecodePackageStream,
// EncodeStreamChecked, EncodeLegacyStreamChecked) and a patch's zen
// targets. Below it decoding in memory is faster; above it memory follows
// the header, not the package. Both give the same bytes.
const StreamThreshold = 32 << 20

// scriptPrefix is how much of an export not in memory scriptRanges decodes
// first to find its tagged properties (which start the export's data).
const scriptPrefix = 1 << 20

// streamZen gives p, converted from a, the data of the exports a reads from
// its source.
func streamZen(a *uasset.Package, p *zen.Package) error {
	if !a.Streamed() {
		return nil
	}
	n := len(a.Exports)
	offs, sizes := make([]int64, n), make([]int, n)
	var src io.ReaderAt
	for i := range a.Exports {
		r, off, ok := a.DataSource(i)
		if !ok {
			continue
		}
		if src != nil && r != src {
			return fmt.Errorf("%s: the exports' data come from more than one source", a.FileName)
		}
		src, offs[i], sizes[i] = r, off, a.DataLen(i)
	}
	if len(p.Exports) != n {
		return fmt.Errorf("%s: %d exports converted into %d", a.FileName, n, len(p.Exports))
	}
	return p.StreamExportsFrom(src, offs, sizes)
}

// streamLegacy gives a, converted from pkg, the data of the exports pkg
// reads from its source.
func streamLegacy(pkg *zen.Package, a *uasset.Package) error {
	if !pkg.Streamed() {
		return nil
	}
	n := len(pkg.Exports)
	offs, sizes := make([]int64, n), make([]int, n)
	var src io.ReaderAt
	for i := range pkg.Exports {
		r, off, ok := pkg.DataSource(i)
		if !ok {
			continue
		}
		if src != nil && r != src {
			return fmt.Errorf("%s: the exports' data come from more than one source", pkg.PackageName())
		}
		src, offs[i], sizes[i] = r, off, pkg.DataLen(i)
	}
	if len(a.Exports) != n {
		return fmt.Errorf("%s: %d exports converted into %d", pkg.PackageName(), n, len(a.Exports))
	}
	return a.StreamExportsFrom(src, offs, sizes)
}

// readError is a failure to read an export's data from its source, which
// scriptRanges does not take for data that is not a property list.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }

// decodeAssetExport decodes export i's properties
// (assetprops.DecodeExport). The data of an export a streamed asset does
// not hold is read for the call and not kept: its first scriptPrefix
// bytes, when the property list decodes and ends within them (the list is
// read front to back and its end does not depend on what follows), else
// the whole export.
func decodeAssetExport(a *uasset.Package, i int) (*props.Export, error) {
	if a.Loaded(i) {
		return assetprops.DecodeExport(a, i)
	}
	decode := func(n int) (*props.Export, error) {
		r, off, _ := a.DataSource(i)
		b := make([]byte, n)
		if m, err := r.ReadAt(b, off); m < n {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, &readError{fmt.Errorf("%s: read export %d's data: %w", a.FileName, i, err)}
		}
		a.Exports[i].Data = b
		defer func() { a.Exports[i].Data = nil }()
		return assetprops.DecodeExport(a, i)
	}
	if n := a.DataLen(i); n > scriptPrefix {
		x, err := decode(scriptPrefix)
		if _, isRead := err.(*readError); isRead {
			return nil, err
		}
		if err == nil && x.Table == nil && x.Properties != nil && x.Properties.End < scriptPrefix {
			return x, nil
		}
	}
	return decode(a.DataLen(i))
}

// EncodeStreamChecked is EncodeChecked for a package whose export data is
// streamed (ToZen of an asset uasset.DecodeStream decoded): the package is
// encoded as a stream, its header decoded again from the stream
// (zen.DecodePackageStream, which also checks that the header and every
// export's place are as the encoder lays them out, so that the package
// encodes back to the same bytes) and verified. It returns the stream,
// which reads the exports' data from the asset's .uexp.
func EncodeStreamChecked(name string, p *zen.Package) (*zen.Stream, error) {
	s, err := p.EncodeStream()
	if err != nil {
		return nil, err
	}
	d, err := zen.DecodePackageStream(name, s, s.Size(), &zen.DecodeOptions{Layout: p.Layout})
	if err != nil {
		return nil, errorf(name, "converted package", ErrNotConvertible, "the encoded package does not decode again: %v", err)
	}
	if probs := d.Problems(nil); len(probs) > 0 {
		return nil, errorf(name, "converted package", ErrNotConvertible, "the encoded package has %d problems: %s", len(probs), problemList(probs))
	}
	return s, nil
}

// EncodeLegacyStreamChecked is EncodeLegacyChecked for an asset a that
// ToLegacy made from a package zen.DecodePackageStream decoded: the .uexp
// is a stream reading the exports' data from the package's source. The
// checks are EncodeLegacyChecked's, streamed: the asset decodes again
// (uasset.DecodeStream) without problems and converts back (ToZen) into
// pkg's own bytes (a split 4.26/4.27 package's with its bundles merged),
// compared a step at a time.
func EncodeLegacyStreamChecked(a *uasset.Package, pkg *zen.Package) (header []byte, uexp *uasset.Stream, err error) {
	header, uexp, err = a.EncodeStream()
	if err != nil {
		return nil, nil, err
	}
	back, err := uasset.DecodeStream(a.FileName, header, uexp, uexp.Size(), &uasset.Options{Release: a.Release})
	if err != nil {
		return nil, nil, fmt.Errorf("the converted asset does not decode again: %w", err)
	}
	z, err := convertBack(a, back, pkg)
	if err != nil {
		return nil, nil, err
	}
	got, err := z.EncodeStream()
	if err != nil {
		return nil, nil, err
	}
	// A package the packer split converts back with its bundles
	// merged (MergeBundles); everything else is compared as it is.
	want, err := MergeBundles(pkg).EncodeStream()
	if err != nil {
		return nil, nil, err
	}
	same, err := sameBytes(got, got.Size(), want, want.Size())
	if err != nil {
		return nil, nil, err
	}
	if !same {
		return nil, nil, errorf(a.FileName, "package", ErrNotConvertible,
			"the converted asset converts back into a package that differs from the original (%d bytes, %d); it would not load as the original does", got.Size(), want.Size())
	}
	return header, uexp, nil
}

// sameBytes reports whether a's na bytes are b's nb bytes, reading both a
// MiB at a time.
func sameBytes(a io.ReaderAt, na int64, b io.ReaderAt, nb int64) (bool, error) {
	if na != nb {
		return false, nil
	}
	x, y := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); off < na; {
		n := int(min(int64(len(x)), na-off))
		for _, r := range []struct {
			r io.ReaderAt
			b []byte
		}{{a, x[:n]}, {b, y[:n]}} {
			if m, err := r.r.ReadAt(r.b, off); m < n {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return false, err
			}
		}
		if !bytes.Equal(x[:n], y[:n]) {
			return false, nil
		}
		off += int64(n)
	}
	return true, nil
}

// PackageStream is Package for any size: a package of StreamThreshold
// bytes or more is copied from the container into a temporary file in dir
// ("" for the system's), checked against its chunk hash as it is read, and
// decoded from there with zen.DecodePackageStream, so that memory follows
// its header (its bulk data chunks are still read whole). done closes and
// removes the file: call it when done with the package and what was made
// from it. A package that cannot be streamed (zen.ErrNotStreamable) is
// decoded whole.
func (s *ContainerSet) PackageStream(name, dir string) (p *zen.Package, bulk *Bulk, done func(), err error) {
	c := s.Containers[0]
	i, err := c.FindPackage(name)
	if err != nil {
		return nil, nil, nil, err
	}
	done = func() {}
	if size := int64(c.Chunks()[i].Size); size >= StreamThreshold {
		f, err := spoolChunk(c, i, dir)
		if err != nil {
			return nil, nil, nil, err
		}
		done = func() { f.Close(); os.Remove(f.Name()) }
		p, err = zen.DecodePackageStream(c.PackageName(i), f, size, nil)
		if err != nil && !errors.Is(err, zen.ErrNotStreamable) {
			done()
			return nil, nil, nil, err
		}
		if err != nil {
			done, p = func() {}, nil
			f.Close()
			os.Remove(f.Name())
		}
	}
	if p == nil {
		if p, err = c.ReadPackage(i, nil); err != nil {
			return nil, nil, nil, err
		}
	}
	if bulk, err = bulkOf(c, p); err != nil {
		done()
		return nil, nil, nil, err
	}
	return p, bulk, done, nil
}

// spoolChunk copies chunk i of c into a temporary file in dir, checked
// against the chunk's hash as it is read.
func spoolChunk(c *iostore.Container, i int, dir string) (*os.File, error) {
	r, err := c.OpenChunk(i)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "unrmod-package-*.tmp")
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("%s: package %s: %w", c.File(), c.PackageName(i), err)
	}
	return f, nil
}
