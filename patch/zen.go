package patch

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/writer"
)

// StoreChange is a field of the package's store entry (in its container's
// header) that the patch changes: what a container writer must write for
// the patched package.
type StoreChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// String returns "FIELD OLD → NEW".
func (s StoreChange) String() string { return fmt.Sprintf("%s %s → %s", s.Field, s.Old, s.New) }

// applyZenTarget patches one zen package file (in, whose bytes are src) in
// memory and returns its encoded, checked output and the input's bytes.
func applyZenTarget(t *Target, dir, in string, src []byte, out string, opt Options) (*TargetResult, []byte, []byte, error) {
	if t.guidPos != nil {
		return nil, nil, nil, errorf(*t.guidPos, "guid: zen packages have no GUID; remove the key")
	}
	p, err := zen.DecodePackage(in, src, nil)
	if err != nil {
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	before := p.Problems(nil)
	tr := &TargetResult{Input: in, Output: out, Kind: "zen", Layout: t.Layout.String(), Package: p.PackageName()}
	if opt.InPlace {
		tr.Backup = in + ".bak"
	}
	tr.Counts = Counts{NamesBefore: len(p.Names), ImportsBefore: len(p.Imports), ExportsBefore: len(p.Exports)}
	old, err := zen.DecodePackage(in, src, nil) // the original, to compare with
	if err != nil {
		return nil, nil, nil, err
	}
	var sc *schema
	if m, err := loadMappings(t, dir, opt.Codecs); err != nil {
		return nil, nil, nil, err
	} else if m != nil {
		so, err := loadScript(t, dir, in)
		if err != nil {
			return nil, nil, nil, err
		}
		sc = &schema{m: m, r: &zen.Resolver{Script: so}}
	}
	changes, err := applyZen(p, t.Ops, dir, sc)
	if err != nil {
		return nil, nil, nil, err
	}
	tr.Changes = changes
	for _, ch := range changes {
		if !ch.Already {
			tr.Changed = true
		}
	}
	if err := checkInlineBulkData(t.Pos, old, p); err != nil {
		return nil, nil, nil, err
	}
	if t.Layout == writer.Compact {
		p.ForgetRaw()
	}
	data, err := p.Encode()
	if err != nil {
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	q, err := zen.DecodePackage(out, data, nil)
	if err != nil {
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: "the patched package does not decode, nothing was written: " + err.Error(), Err: err}
	}
	after := q.Problems(nil)
	if fresh := newProblems(before, after); len(fresh) > 0 {
		msg := fmt.Sprintf("the patched package fails verification, nothing was written: %s", strings.Join(fresh, "; "))
		if len(before) > 0 {
			msg += fmt.Sprintf("\n(besides, the input already has %s: %s)", count(len(before), "problem"), zen.ProblemList(before))
		}
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: msg}
	}
	// The input's own problems: the output must keep each byte for byte.
	// One it no longer has was rebuilt from damaged data: refuse.
	kept, _, err := zen.CheckOutputProblems(in, before, after)
	if err != nil {
		return nil, nil, nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
	}
	for _, q := range kept {
		tr.InputProblems = append(tr.InputProblems, InputProblem{Problem: q.String(), Kept: true})
	}
	tr.Counts.NamesAfter, tr.Counts.ImportsAfter, tr.Counts.ExportsAfter = len(q.Names), len(q.Imports), len(q.Exports)
	for i := range q.Exports {
		a, b := &old.Exports[i], &q.Exports[i]
		if string(a.Data) != string(b.Data) {
			tr.Data = append(tr.Data, DataChange{Export: q.ExportPath(i), OldOffset: int64(a.DataOffset), OldSize: int64(len(a.Data)),
				NewOffset: int64(b.DataOffset), NewSize: int64(len(b.Data))})
		}
		if a.ObjectFlags != b.ObjectFlags || string(a.Data) != string(b.Data) {
			tr.Counts.ChangedExports++
		}
	}
	tr.Store = storeChanges(old, len(src), q, len(data))
	tr.Size = int64(len(data))
	return tr, data, src, nil
}

// newProblems returns the problems of after that before does not have.
func newProblems(before, after []ue.Problem) []string {
	had := map[string]int{}
	for _, q := range before {
		had[q.String()]++
	}
	var out []string
	for _, q := range after {
		if had[q.String()] > 0 {
			had[q.String()]--
			continue
		}
		out = append(out, q.String())
	}
	return out
}

// storeChanges lists the store-entry fields that differ between package a
// (of aSize bytes) and its patched form b: in 4.26/4.27 the package chunk's
// size (ExportBundlesSize); the export and bundle counts; the imported
// packages. The container writer updates them.
func storeChanges(a *zen.Package, aSize int, b *zen.Package, bSize int) []StoreChange {
	var out []StoreChange
	add := func(field string, old, new int) {
		if old != new {
			out = append(out, StoreChange{Field: field, Old: fmt.Sprint(old), New: fmt.Sprint(new)})
		}
	}
	if !a.Layout.IsUE5() {
		add("ExportBundlesSize", aSize, bSize)
	}
	if a.Layout < zen.LayoutUE53 {
		add("ExportCount", len(a.Exports), len(b.Exports))
		add("ExportBundleCount", len(a.Bundles), len(b.Bundles))
	}
	return out
}

// bulkSeparateFile is BULKDATA_PayloadInSeperateFile: the payload is in
// the package's .ubulk (or .uptnl, .m.ubulk) chunk, not in its export data.
const bulkSeparateFile = 0x100

// checkInlineBulkData refuses a change that resizes an export's data when
// the export may hold a bulk-data payload stored inline and the change
// moves it: the bulk data map (UE 5.2+) gives each such payload's offset
// inside its export, and the map does not say which export, so unrmod
// cannot move the payload safely. Payloads in separate files, exports whose
// size does not change and changes after a payload (its bytes and all
// before them unchanged) are not affected.
func checkInlineBulkData(pos Pos, old, p *zen.Package) error {
	for i := range old.Exports {
		was, now := old.Exports[i].Data, p.Exports[i].Data
		a, b := len(was), len(now)
		if a == b {
			continue
		}
		for k, e := range old.BulkData {
			if e.Flags&bulkSeparateFile != 0 || e.SerialSize <= 0 || e.SerialOffset < 0 || e.SerialOffset+e.SerialSize > int64(a) {
				continue
			}
			if end := e.SerialOffset + e.SerialSize; end <= int64(b) && bytes.Equal(was[:end], now[:end]) {
				continue // the payload, and everything before it, stay where they were
			}
			return errorf(pos, "%s: the change resizes the data of %s (%d → %d bytes), which may hold an inline bulk-data payload "+
				"(bulk data map entry %d: %d bytes at offset %d of its export); the map would then point at the wrong bytes, "+
				"and unrmod does not move bulk-data payloads. Changes that keep the export's size, or change only what follows the payload, are possible",
				p.PackageName(), p.ExportPath(i), a, b, k, e.SerialSize, e.SerialOffset)
		}
	}
	return nil
}
