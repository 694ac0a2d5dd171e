package patch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ufile"
)

// streamedZen is a loose zen package target patched without holding the
// package: its result, the output as a stream and the input it reads.
type streamedZen struct {
	tr *TargetResult
	s  *zen.Stream
	in *os.File
}

// applyZenStreamed applies a target whose input is a zen package file of
// streamThreshold bytes or more as applyZenTarget does, in memory that
// follows the package's header and the exports the operations read: the
// file is decoded with zen.DecodePackageStream, the exports an operation
// names are loaded, and the output is a stream of the header and the
// other exports' bytes copied from the input in ranges. The checks are
// applyZenTarget's, made on the stream's header and the loaded exports.
// It returns nil and no error for an input it does not stream (smaller,
// not a zen package, or not laid out canonically:
// zen.ErrNotStreamable), which applyTarget then applies in memory.
func applyZenStreamed(t *Target, dir string, tf *targetFiles, opt Options) (*streamedZen, error) {
	threshold := int64(streamThreshold)
	if opt.streamAbove > 0 {
		threshold = opt.streamAbove
	}
	in, out := tf.in, tf.out
	if t.guidPos != nil {
		return nil, nil // applyZenTarget refuses it
	}
	p, f := ufile.OpenZenStream(in, threshold)
	if p == nil {
		return nil, nil // small, not a zen package, or not streamable: decoded whole
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := st.Size()
	so, err := patchZenStreamed(t, dir, in, out, f, size, p, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return so, nil
}

func patchZenStreamed(t *Target, dir, in, out string, f *os.File, size int64, p *zen.Package, opt Options) (*streamedZen, error) {
	before := p.Problems(nil)
	tr := &TargetResult{Input: in, Output: out, Kind: "zen", Layout: t.Layout.String(), Package: p.PackageName()}
	if opt.InPlace {
		tr.Backup = in + ".bak"
	}
	tr.Counts = Counts{NamesBefore: len(p.Names), ImportsBefore: len(p.Imports), ExportsBefore: len(p.Exports)}
	old, err := zen.DecodePackageStream(in, f, size, nil) // the original, to compare with
	if err != nil {
		return nil, err
	}
	var sc *schema
	if m, err := loadMappings(t, dir, opt.Codecs); err != nil {
		return nil, err
	} else if m != nil {
		so, err := loadScript(t, dir, in)
		if err != nil {
			return nil, err
		}
		sc = &schema{m: m, r: &zen.Resolver{Script: so}}
	}
	changes, err := applyZen(p, t.Ops, dir, sc)
	if err != nil {
		return nil, err
	}
	tr.Changes = changes
	for _, ch := range changes {
		if !ch.Already {
			tr.Changed = true
		}
	}
	for k := range p.Exports {
		if p.Loaded(k) && !old.Loaded(k) {
			if err := old.LoadExport(k); err != nil {
				return nil, err
			}
		}
	}
	if err := checkInlineBulkData(t.Pos, old, p); err != nil {
		return nil, err
	}
	// A streamed package keeps no raw parts: layout compact writes what
	// preserve writes.
	s, err := p.EncodeStream()
	if err != nil {
		return nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	q, err := zen.DecodePackageStream(out, s, s.Size(), nil)
	if err != nil {
		return nil, &Error{Pos: t.Pos, Msg: "the patched package does not decode, nothing was written: " + err.Error(), Err: err}
	}
	after := q.Problems(nil)
	if fresh := newProblems(before, after); len(fresh) > 0 {
		msg := fmt.Sprintf("the patched package fails verification, nothing was written: %s", strings.Join(fresh, "; "))
		if len(before) > 0 {
			msg += fmt.Sprintf("\n(besides, the input already has %s: %s)", count(len(before), "problem"), zen.ProblemList(before))
		}
		return nil, &Error{Pos: t.Pos, Msg: msg}
	}
	kept, _, err := zen.CheckOutputProblems(in, before, after)
	if err != nil {
		return nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	for _, k := range kept {
		tr.InputProblems = append(tr.InputProblems, InputProblem{Problem: k.String(), Kept: true})
	}
	tr.Counts.NamesAfter, tr.Counts.ImportsAfter, tr.Counts.ExportsAfter = len(q.Names), len(q.Imports), len(q.Exports)
	for i := range q.Exports {
		// Only exports the operations loaded may hold other data; the
		// others are copied as they are.
		a, b := &old.Exports[i], &q.Exports[i]
		changed := p.Loaded(i) && !bytes.Equal(a.Data, p.Exports[i].Data)
		if changed {
			tr.Data = append(tr.Data, DataChange{Export: q.ExportPath(i), OldOffset: int64(a.DataOffset), OldSize: int64(old.DataLen(i)),
				NewOffset: int64(b.DataOffset), NewSize: int64(p.DataLen(i))})
		}
		if a.ObjectFlags != b.ObjectFlags || changed {
			tr.Counts.ChangedExports++
		}
	}
	tr.Store = storeChanges(old, int(size), q, int(s.Size()))
	tr.Size = s.Size()
	return &streamedZen{tr: tr, s: s, in: f}, nil
}

// checkZenOutputHeader is checkPackageOutput for a streamed zen target:
// an output that exists must be a zen package of the same name (an
// earlier output), decoded from its header.
func checkZenOutputHeader(t *Target, tr *TargetResult) error {
	f, err := os.Open(tr.Output)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return errorf(t.Pos, "output %s: %v", tr.Output, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return errorf(t.Pos, "output %s: %v", tr.Output, err)
	}
	if !st.Mode().IsRegular() {
		return errorf(t.Pos, "the output %s exists and is not a file", tr.Output)
	}
	p, err := zen.DecodePackageHeader(tr.Output, f, st.Size(), nil)
	if err != nil {
		return errNotEarlierOutput(t.Pos, tr.Output, "it is not a zen package that decodes: "+err.Error())
	}
	if !strings.EqualFold(p.PackageName(), tr.Package) {
		return errNotEarlierOutput(t.Pos, tr.Output, fmt.Sprintf("it is the package %s, the output is %s", p.PackageName(), tr.Package))
	}
	return nil
}

// sameAsFile reports whether the file path holds r's size bytes, compared
// a MiB at a time.
func sameAsFile(path string, r io.ReaderAt, size int64) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != size {
		return false, err
	}
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); off < size; {
		n := int(min(int64(len(a)), size-off))
		if _, err := io.ReadFull(f, a[:n]); err != nil {
			return false, err
		}
		if m, err := r.ReadAt(b[:n], off); m < n {
			return false, err
		}
		if !bytes.Equal(a[:n], b[:n]) {
			return false, nil
		}
		off += int64(n)
	}
	return true, nil
}

// streamIntoBatch stages the file path with r's bytes.
func streamIntoBatch(b *safefile.Batch, path string, r io.Reader) error {
	w, err := b.Create(path, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// copyIntoBatch stages the file path as a copy of src.
func copyIntoBatch(b *safefile.Batch, path, src string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := b.Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, in); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
