package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
)

// streamThreshold is the size from which a zen package a target changes
// (in a container, or a file) is patched without holding it
// (patchStreamed, applyZenStreamed): its header and the exports the
// operations read are decoded, the other exports' data copied in ranges
// into the output. Below it the whole package is decoded in memory, which
// is faster for the packages games have most of. It is convert's, so that
// every command streams from the same size.
const streamThreshold = convert.StreamThreshold

// reader returns the new content of changed chunk id.
func (j *containerJob) reader(id iostore.ChunkID) io.Reader {
	if s := j.streams[id]; s != nil {
		return s.NewReader()
	}
	return bytes.NewReader(j.data[id])
}

// removeSpooled removes the temporary files streamed packages were read
// from.
func (j *containerJob) removeSpooled() {
	for _, f := range j.spooled {
		f.Close()
		os.Remove(f.Name())
	}
	j.spooled = nil
}

// spool copies package chunk i into a temporary file beside the output, checked against the
// chunk's hash as it is read, and returns the file: the source a streamed
// package reads its export data from at any offset.
func (j *containerJob) spool(i int) (*os.File, error) {
	r, err := j.c.OpenChunk(i)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(j.out)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = "" // a folder the write will make: the system's temporary folder
	}
	f, err := os.CreateTemp(dir, safefile.TempPrefix(filepath.Base(j.out))+"*.tmp")
	if err != nil {
		return nil, err
	}
	j.spooled = append(j.spooled, f)
	if _, err := io.Copy(f, r); err != nil {
		return nil, fmt.Errorf("%s: package %s: %w", j.in, j.c.PackageName(i), err)
	}
	return f, nil
}

// patchStreamed applies one package's operations as patchPackage does, in
// memory that follows the package's header and the exports the operations
// read, not the package: the chunk is spooled to a temporary file,
// decoded with zen.DecodePackageStream, the exports an operation names are
// loaded, and the output streams the others from the file. The checks are
// patchPackage's: the input must verify, the output is decoded again (its
// header, and each export's place) and must verify. done is false, with
// nothing done, when the package cannot be streamed
// (zen.ErrNotStreamable): patchPackage then decodes it whole.
func (j *containerJob) patchStreamed(pt *PackageTarget, i int) (done bool, err error) {
	c := j.c
	ch := c.Chunks()[i]
	name := c.PackageName(i)
	f, err := j.spool(i)
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	size := int64(ch.Size)
	p, err := zen.DecodePackageStream(name, f, size, nil)
	if errors.Is(err, zen.ErrNotStreamable) {
		return false, nil
	}
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	old, err := zen.DecodePackageStream(name, f, size, nil)
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	if probs := p.Problems(j.verifyOptions(i)); len(probs) > 0 {
		err := &zen.InputProblemsError{File: j.in, Part: "package " + pt.Package, Problems: probs,
			Rebuilds: "a container write refuses a package that fails verification"}
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	before := p.Problems(nil)
	changes, err := applyZen(p, pt.Ops, j.dir, j.schema)
	if err != nil {
		return true, err
	}
	// The exports the operations loaded (and only those) may have changed:
	// load them in the original too, to compare.
	for k := range p.Exports {
		if p.Loaded(k) && !old.Loaded(k) {
			if err := old.LoadExport(k); err != nil {
				return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
			}
		}
	}
	if err := checkInlineBulkData(pt.Pos, old, p); err != nil {
		return true, err
	}
	s, err := p.EncodeStream()
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	q, err := zen.DecodePackageStream(p.PackageName(), s, s.Size(), nil)
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: "the patched package does not decode, nothing was written: " + err.Error(), Err: err}
	}
	if fresh := newProblems(before, q.Problems(nil)); len(fresh) > 0 {
		return true, &Error{Pos: pt.Pos, Msg: "the patched package fails verification, nothing was written: " + strings.Join(fresh, "; ")}
	}
	sum, err := iostore.HashChunkReader(j.v, s.NewReader())
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	cp := ContainerPackage{Package: p.PackageName(), Path: mustOutputPath(c, i), Changes: changes, OldSize: size,
		NewSize: s.Size(), OldHash: hashText(ch.Meta.Hash20()), NewHash: hashText(sum),
		Store: storeChanges(old, int(size), q, int(s.Size()))}
	j.res.Packages = append(j.res.Packages, cp)
	j.res.streamed++
	same, err := sameStream(old, f, p, s)
	if err != nil {
		return true, &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	if same {
		j.unchanged++
		if j.ct.Mode == ModeFull {
			return true, nil // every operation already in effect: the chunk stays
		}
	}
	if err := j.setEntry(q, pt.Pos); err != nil {
		return true, err
	}
	j.data[ch.ID] = s.Header
	j.streams[ch.ID] = s
	j.order = append(j.order, ch.ID)
	return true, nil
}

// sameStream reports whether the streamed package p, encoded as s, is
// the package old it was decoded from (read from src), byte for byte: the
// same header (which gives every export's size and place) and the same
// data for each export p holds; the others are copied from src.
func sameStream(old *zen.Package, src io.ReaderAt, p *zen.Package, s *zen.Stream) (bool, error) {
	if s.Size() != int64(old.Size()) || len(s.Header) != old.HeaderSize() {
		return false, nil
	}
	h := make([]byte, len(s.Header))
	if _, err := src.ReadAt(h, 0); err != nil {
		return false, err
	}
	if !bytes.Equal(h, s.Header) || !bytes.Equal(old.Trailing, p.Trailing) {
		return false, nil
	}
	for k := range p.Exports {
		if p.Loaded(k) && !bytes.Equal(p.Exports[k].Data, old.Exports[k].Data) {
			return false, nil
		}
	}
	return true, nil
}
