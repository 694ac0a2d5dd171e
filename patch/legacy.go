package patch

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/writer"
)

// applyLegacyTarget patches one legacy package in memory and returns its
// encoded, verified output and the input's bytes.
func applyLegacyTarget(t *Target, dir string, f *ufile.File, out string, opt Options, load func(string) (*reader.Package, error)) (*TargetResult, []byte, []byte, error) {
	in := f.Path
	p, err := f.Legacy()
	if err != nil {
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	tr := &TargetResult{Kind: "legacy", Input: in, Output: out, Layout: t.Layout.String(), GUID: GUIDChange{Old: p.GUID().String()}}
	if opt.InPlace {
		tr.Backup = in + ".bak"
	}
	tr.Counts = Counts{NamesBefore: len(p.Names), ImportsBefore: len(p.Imports), ExportsBefore: len(p.Exports)}
	// What is wrong with the input is not the patch's doing: find it first,
	// to tell it from what the patch would break.
	inProbs := p.Verify()
	c := &legacyContext{p: p, patchDir: dir, owned: map[int]bool{}, load: load, imports0: len(p.Imports)}
	before := make([]reader.Export, len(p.Exports))
	copy(before, p.Exports)
	names := append([]reader.Name(nil), p.Names...)
	imports := append([]reader.Import(nil), p.Imports...)
	for _, op := range t.Ops {
		lop, ok := op.(legacyOp)
		if !ok {
			return nil, nil, nil, errorf(op.Position(), "%s is not an operation on legacy packages", op.Kind())
		}
		changes, err := lop.applyLegacy(c)
		switch op.(type) {
		case *Rename, *PruneImports:
			c.objects = nil // object names changed, or imports were renumbered
		}
		if err != nil {
			pos := op.Position()
			var pe *Error
			if errors.As(err, &pe) {
				pos = pe.Pos
			}
			if len(inProbs) > 0 {
				ie := inputProblems(in, inProbs, nil, nil, err)
				return nil, nil, nil, &Error{Pos: pos, Msg: ie.Error(), Err: ie}
			}
			if pe != nil {
				return nil, nil, nil, err
			}
			return nil, nil, nil, &Error{Pos: pos, Msg: err.Error(), Err: err}
		}
		for _, ch := range changes {
			tr.Changes = append(tr.Changes, ch)
			if !ch.Already {
				tr.Changed = true
			}
		}
	}
	tr.Counts.NamesAfter, tr.Counts.ImportsAfter, tr.Counts.ExportsAfter = len(p.Names), len(p.Imports), len(p.Exports)
	var dataChanged []int
	for i := range before {
		a, b := &before[i], &p.Exports[i]
		if string(a.Data) != string(b.Data) || a.SerialOffset != b.SerialOffset {
			dataChanged = append(dataChanged, i)
		}
		if a.Flags != b.Flags || a.ObjectName != b.ObjectName || a.Class != b.Class || a.Outer != b.Outer || string(a.Data) != string(b.Data) {
			tr.Counts.ChangedExports++
		}
	}

	tr.GUID.Policy = [...]string{"regenerate", "keep", "explicit"}[t.GUID]
	if tr.Changed {
		applyGUIDPolicy(p, t)
	}
	data, rep, err := writer.Encode(p, writer.Options{Layout: t.Layout})
	if err == nil && tr.Changed && t.GUID == GUIDRegenerate {
		// Derive the new GUID from the old one and the patched content, then
		// encode again with it.
		h := sha256.New()
		h.Write([]byte(tr.GUID.Old))
		h.Write(data)
		sum := h.Sum(nil)
		var g reader.GUID
		for k := range g {
			g[k] = binary.LittleEndian.Uint32(sum[4*k:])
		}
		setGUID(p, g)
		data, rep, err = writer.Encode(p, writer.Options{Layout: t.Layout})
	}
	if err != nil {
		if len(inProbs) > 0 {
			ie := inputProblems(in, inProbs, nil, nil, err)
			return nil, nil, nil, &Error{Pos: t.Pos, Msg: ie.Error(), Err: ie}
		}
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	q, err := reader.Read(out, data)
	if err != nil {
		msg := "the patched package does not decode, nothing was written: " + err.Error()
		if len(inProbs) > 0 {
			msg += fmt.Sprintf(" (the input already has %s: %s)", count(len(inProbs), "problem"), problemList(inProbs))
		}
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: msg, Err: err}
	}
	kept, fresh := matchProblems(inProbs, q.Verify())
	if len(fresh) > 0 {
		// The patch made these: blame it, and say what the input had.
		ve := &writer.VerifyError{File: out, Problems: fresh}
		msg := "the patched package fails verification, nothing was written: " + ve.Error()
		if len(inProbs) > 0 {
			msg += fmt.Sprintf("\n(besides, the input already has %s: %s)", count(len(inProbs), "problem"), problemList(inProbs))
		}
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: msg, Err: ve}
	}
	// What remains is the input's own. The patch goes on only when it
	// changes none of the parts those problems are in.
	changed := changedParts(p, before, names, imports, tr.Changed)
	var touched []reader.Problem
	for k, q := range inProbs {
		if _, ok := changed[part{q.Part, q.Index}]; kept[k] && ok {
			touched = append(touched, q)
		}
	}
	if len(touched) > 0 {
		ie := inputProblems(in, inProbs, touched, changed, nil)
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: ie.Error(), Err: ie}
	}
	for k, q := range inProbs {
		tr.InputProblems = append(tr.InputProblems, InputProblem{Problem: q.String(), Kept: kept[k]})
	}
	for _, i := range dataChanged {
		a, b := &before[i], &q.Exports[i]
		tr.Data = append(tr.Data, DataChange{Export: q.ExportPath(i), OldOffset: int64(a.SerialOffset), OldSize: int64(len(a.Data)),
			NewOffset: int64(b.SerialOffset), NewSize: int64(len(b.Data))})
	}
	tr.GUID.New = q.GUID().String()
	tr.GUID.Generations = len(q.Header.Generations)
	tr.Report, tr.Size, tr.DeadBytes = rep, int64(len(data)), q.DeadBytes()
	return tr, data, p.Source(), nil
}

// applyGUIDPolicy sets the GUID and generations of a changed package.
func applyGUIDPolicy(p *reader.Package, t *Target) {
	h := &p.Header
	switch t.GUID {
	case GUIDKeep:
		if h.Version.File >= reader.VerGUIDGenerations {
			cur := reader.Generation{ExportCount: int32(len(p.Exports)), NameCount: int32(len(p.Names))}
			if n := len(h.Generations); n == 0 || h.Generations[n-1] != cur {
				h.Generations = append(h.Generations, cur)
			}
		}
	case GUIDExplicit:
		setGUID(p, t.SetTo)
	default:
		setGUID(p, reader.GUID{})
	}
}

// setGUID gives the package a GUID and a single generation (or, below
// version 68, a single heritage entry), as a normal engine save does.
func setGUID(p *reader.Package, g reader.GUID) {
	h := &p.Header
	if h.Version.File < reader.VerGUIDGenerations {
		h.Heritage = []reader.GUID{g}
		return
	}
	h.GUID = g
	h.Generations = []reader.Generation{{ExportCount: int32(len(p.Exports)), NameCount: int32(len(p.Names))}}
}
