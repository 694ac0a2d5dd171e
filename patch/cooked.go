package patch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
	"github.com/unrmod/unrmod/writer"
)

// The operations on a cooked asset (uasset.Package: a .uasset or .umap
// with its .uexp), one apply method per operation. They change the model
// in memory; uasset's encoder recomputes every count, offset and size.

// cookedContext is the state of one cooked asset while operations apply.
type cookedContext struct {
	p *uasset.Package
	r *assetprops.Resolver
	// mappings reads unversioned properties (nil: they are refused).
	mappings *usmap.Mappings
	pkg      string // the package name object paths start with
	dir      string
}

// cookedOp is an operation on a cooked asset.
type cookedOp interface {
	applyCooked(c *cookedContext) ([]Change, error)
}

// companionFile is a file that goes with a cooked asset's header: its
// .uexp (rewritten) or a bulk data file (copied beside the output).
type companionFile struct {
	in, out, backup string
}

// cookedCompanions lists the companion files of the cooked asset in (those
// that exist) with their outputs beside out, when in has a .uexp beside
// it (a zen package extracted as .uasset has none); nil otherwise.
func cookedCompanions(in, out string, inPlace bool) []companionFile {
	a, b := uasset.CompanionNames(in), uasset.CompanionNames(out)
	if st, err := os.Stat(a.Uexp); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	list := []companionFile{{in: a.Uexp, out: b.Uexp}}
	if inPlace {
		list[0].backup = a.Uexp + ".bak"
	}
	for _, pair := range [][2]string{{a.Ubulk, b.Ubulk}, {a.Uptnl, b.Uptnl}, {a.MUbulk, b.MUbulk}} {
		if st, err := os.Stat(pair[0]); err == nil && st.Mode().IsRegular() {
			list = append(list, companionFile{in: pair[0], out: pair[1]})
		}
	}
	return list
}

// extraOutput is a file besides a target's output that the target writes:
// a cooked asset's .uexp and its copied bulk data files.
type extraOutput struct {
	path, backup string
	data, orig   []byte
}

// ApplyCooked applies ops to the cooked asset p in memory, in order, and
// returns what changed. pkg is the asset's package name ("" takes the
// summary's), which object paths start with; dir resolves relative data
// files. An operation cooked assets do not support fails with an *Error
// at the operation; p is then partly changed, so callers that must stay
// all-or-nothing apply to a copy (Decode again).
func ApplyCooked(p *uasset.Package, pkg string, ops []Op, dir string) ([]Change, error) {
	return applyCooked(p, pkg, ops, dir, nil)
}

// applyCooked is ApplyCooked with the mappings of unversioned properties.
func applyCooked(p *uasset.Package, pkg string, ops []Op, dir string, m *usmap.Mappings) ([]Change, error) {
	c := &cookedContext{p: p, r: assetprops.NewResolver(p, pkg), pkg: pkg, dir: dir, mappings: m}
	var out []Change
	for _, op := range ops {
		cop, ok := op.(cookedOp)
		if !ok {
			why := cookedUnsupported[op.Kind()]
			if why == "" {
				why = "unrmod does not do it on cooked assets yet"
			}
			return nil, errorf(op.Position(), "%s is not supported on cooked assets (%s)", op.Kind(), why)
		}
		changes, err := cop.applyCooked(c)
		if err != nil {
			return nil, atOp(op, err)
		}
		out = append(out, changes...)
	}
	return out, nil
}

// cookedUnsupported says why an operation does not apply to cooked assets.
var cookedUnsupported = map[string]string{
	"replace-texture": "it rebuilds the Texture exports of legacy packages; UE4/UE5 textures keep their pixels in bulk data of platform formats",
	"replace-sound":   "cooked sounds (SoundWave) keep their audio in bulk data, which unrmod does not write",
}

// cookedPackageName is the package name object paths of the cooked asset
// at path start with: the summary's, else the one its path implies
// (UE4 cooks record none), else its file name.
func cookedPackageName(p *uasset.Package, path string) string {
	if n := assetprops.PackageName(p); n != "" {
		return n
	}
	if n := assetprops.PackageNameFromPath(path); n != "" {
		return n
	}
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// resolveCookedExport finds the export spec names: its full path, its
// path inside the package, its name when unique, or its number.
func (c *cookedContext) resolveExport(pos Pos, spec string) (int, error) {
	x, err := c.r.Index(spec)
	if err != nil {
		return 0, errorf(pos, "%s: %v", c.p.FileName, err)
	}
	if !uasset.PackageIndex(x).IsExport() || uasset.PackageIndex(x).Export() >= len(c.p.Exports) {
		return 0, errorf(pos, "%s: %q is not an export of this asset (it is %s)", c.p.FileName, spec, c.r.Object(uasset.PackageIndex(x)))
	}
	return uasset.PackageIndex(x).Export(), nil
}

func (op *SetProperty) applyCooked(c *cookedContext) ([]Change, error) {
	p := c.p
	i, err := c.resolveExport(op.Pos, op.Object)
	if err != nil {
		return nil, err
	}
	path := op.Property
	if op.Index != 0 {
		path = fmt.Sprintf("%s[%d]", op.Property, op.Index)
	}
	ch, err := assetprops.SetWith(p, i, props.Target{Row: op.Row, Path: path}, props.Input{Text: op.Value, Type: op.Type}, c.mappings)
	if errors.Is(err, props.ErrUnversioned) {
		return nil, &Error{Pos: op.Pos, Msg: fmt.Sprintf("%v; give the target mappings: (the game's .usmap file)", err), Err: err}
	}
	if err != nil {
		pos := op.Pos
		if errors.Is(err, props.ErrType) || errors.Is(err, props.ErrRange) {
			pos = op.valuePos
		}
		return nil, errorf(pos, "%v", err)
	}
	field := "property " + ch.Target
	if op.Row != "" {
		field = "row " + ch.Target
	}
	out := Change{Op: op.Kind(), Target: "export " + c.r.ExportPath(i), Field: field, Old: ch.Old, New: ch.New, Already: ch.Already,
		Warning: strings.Join(ch.Warnings, "; ")}
	if ch.Added {
		out.Old = "(class default)"
		if out.Warning == "" {
			out.Warning = "the property is added; unrmod cannot check that the object's class declares it with this type"
		}
	}
	return []Change{out}, nil
}

// applyCookedTarget patches one cooked asset (header in, whose bytes are
// f.Data, with its .uexp) in memory and returns its encoded, checked
// header, the input header's bytes, and the .uexp and copied bulk files
// it writes besides.
func applyCookedTarget(t *Target, dir string, f *ufile.File, tf *targetFiles, opt Options) (*TargetResult, []byte, []byte, error) {
	in, out := tf.in, tf.out
	if t.guidPos != nil {
		return nil, nil, nil, errorf(*t.guidPos, "guid: cooked assets keep no package GUID a patch sets; remove the key")
	}
	if t.Layout == writer.Compact {
		return nil, nil, nil, errorf(t.Pos, "layout: compact: a cooked asset is always written in the layout the engine saves, its offsets recomputed by the encoder; remove the key")
	}
	decode := func() (*uasset.Package, error) { return f.Asset(nil) }
	m, err := loadMappings(t, dir, opt.Codecs)
	if err != nil {
		return nil, nil, nil, err
	}
	cp, err := patchCooked(t.Pos, in, out, decode, t.Ops, dir, m)
	if err != nil {
		return nil, nil, nil, err
	}
	header, uexp := cp.header, cp.uexp
	tr := &TargetResult{Input: in, Output: out, Kind: "cooked", Layout: t.Layout.String(), Package: cp.pkg, Backup: tf.backup,
		Changes: cp.changes, Changed: cp.changed, InputProblems: cp.inputProblems, Counts: cp.counts, Data: cp.data}
	tr.Size = int64(len(header) + len(uexp))
	for _, cf := range tf.companions {
		if cf.out == cf.in && cf.backup == "" {
			continue // bulk data stays where it is
		}
		orig, err := safefile.ReadRegular(cf.in, ufile.MaxAssetSize, "a companion file of a cooked asset")
		if err != nil {
			return nil, nil, nil, errorf(t.Pos, "%v", err)
		}
		data := orig
		if cf.backup != "" || strings.EqualFold(cf.in, f.Uexp) {
			data = uexp
		}
		tr.extra = append(tr.extra, extraOutput{path: cf.out, backup: cf.backup, data: data, orig: orig})
	}
	if cp.split && f.Uexp == "" {
		return nil, nil, nil, errorf(t.Pos, "%s: the asset's export data is in a .uexp, which is missing", in)
	}
	return tr, header, f.Data, nil
}

// cookedPatch is a cooked asset patched in memory: its encoded, checked
// header and .uexp, and what changed.
type cookedPatch struct {
	pkg           string // the package name object paths start with
	header, uexp  []byte
	split         bool // the export data is in the .uexp
	changes       []Change
	changed       bool // false when every operation was already in effect
	counts        Counts
	data          []DataChange
	inputProblems []InputProblem
}

// patchCooked decodes a cooked asset (with decode, twice: the asset to
// patch and the original to compare with), applies ops (with m, the
// mappings of unversioned properties, or nil) and encodes it for
// out, checking that the output decodes and has no problem the input has
// not. in names the input (a file, or a pak's path of it), whose path
// implies the package name when the summary records none.
func patchCooked(pos Pos, in, out string, decode func() (*uasset.Package, error), ops []Op, dir string, m *usmap.Mappings) (*cookedPatch, error) {
	load := func() (*uasset.Package, error) {
		p, err := decode()
		if err != nil {
			return nil, &Error{Pos: pos, Msg: err.Error(), Err: err}
		}
		return p, nil
	}
	p, err := load()
	if err != nil {
		return nil, err
	}
	old, err := load() // the original, to compare with
	if err != nil {
		return nil, err
	}
	cp := &cookedPatch{pkg: cookedPackageName(p, in)}
	cp.counts = Counts{NamesBefore: len(p.Names), ImportsBefore: len(p.Imports), ExportsBefore: len(p.Exports)}
	if cp.changes, err = applyCooked(p, cp.pkg, ops, dir, m); err != nil {
		return nil, err
	}
	for _, ch := range cp.changes {
		if !ch.Already {
			cp.changed = true
		}
	}
	header, uexp, _, err := p.EncodeChecked(out)
	if err != nil {
		return nil, &Error{Pos: pos, Msg: "the patched asset fails verification, nothing was written: " + err.Error(), Err: err}
	}
	q, err := uasset.Decode(out, header, uexp, &uasset.Options{Release: p.Release})
	if err != nil {
		return nil, &Error{Pos: pos, Msg: "the patched asset does not decode, nothing was written: " + err.Error(), Err: err}
	}
	cp.header, cp.uexp, cp.split = header, uexp, p.Split
	// The input's problems (its structure and its properties) against the
	// output's: the output may have none the input has not, and keeps
	// those it has (the encoder writes what it does not change byte for
	// byte).
	before := append(old.Problems(), assetprops.Problems(old)...)
	after := append(q.Problems(), assetprops.Problems(q)...)
	if fresh := newProblems(before, after); len(fresh) > 0 {
		return nil, errorf(pos, "the patched asset fails verification, nothing was written: %s", strings.Join(fresh, "; "))
	}
	for _, x := range before {
		cp.inputProblems = append(cp.inputProblems, InputProblem{Problem: x.String(), Kept: !slices.Contains(newProblems(after, before), x.String())})
	}
	cp.counts.NamesAfter, cp.counts.ImportsAfter, cp.counts.ExportsAfter = len(q.Names), len(q.Imports), len(q.Exports)
	r := assetprops.NewResolver(q, cp.pkg)
	for i := range q.Exports {
		a, b := &old.Exports[i], &q.Exports[i]
		if string(a.Data) != string(b.Data) {
			cp.data = append(cp.data, DataChange{Export: r.ExportPath(i), OldOffset: a.SerialOffset, OldSize: int64(len(a.Data)),
				NewOffset: b.SerialOffset, NewSize: int64(len(b.Data))})
		}
		if a.ObjectFlags != b.ObjectFlags || string(a.Data) != string(b.Data) {
			cp.counts.ChangedExports++
		}
	}
	return cp, nil
}

// cookedSummary is Summary for a cooked asset.
func (tr *TargetResult) cookedSummary() string {
	var parts []string
	c := tr.Counts
	if c.NamesAfter != c.NamesBefore {
		parts = append(parts, fmt.Sprintf("names %d → %d", c.NamesBefore, c.NamesAfter))
	}
	if c.ChangedExports > 0 {
		parts = append(parts, fmt.Sprintf("%d export(s) changed", c.ChangedExports))
	}
	parts = append(parts, fmt.Sprintf("%d bytes with its .uexp", tr.Size))
	if n := len(tr.extra) - 1; n > 0 {
		parts = append(parts, fmt.Sprintf("%s copied", count(n, "bulk data file")))
	}
	return fmt.Sprintf("%s → %s: cooked asset %s: %s", tr.Input, tr.Output, tr.Package, strings.Join(parts, ", "))
}

// findName returns the index of name s in p: the exact text first, then a
// case-insensitive match (the engine's names compare without case), or -1.
func (c *cookedContext) findName(s string) int {
	fold := -1
	for i, n := range c.p.Names {
		if n.Value == s {
			return i
		}
		if fold < 0 && strings.EqualFold(n.Value, s) {
			fold = i
		}
	}
	return fold
}

func (op *AddName) applyCooked(c *cookedContext) ([]Change, error) {
	if err := checkZenName(op.namePos, op.Name); err != nil {
		return nil, err
	}
	p := c.p
	if i := c.findName(op.Name); i >= 0 {
		return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", i), New: p.Names[i].Value, Already: true}}, nil
	}
	i, err := assetprops.AddName(p, op.Name)
	if err != nil {
		return nil, errorf(op.Pos, "%v", err)
	}
	return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", i), New: op.Name}}, nil
}

// Object flags a rename or object-flags change checks.
const (
	rfPublic             = 0x1
	rfClassDefaultObject = 0x10
)

func (op *Rename) applyCooked(c *cookedContext) ([]Change, error) {
	if err := checkZenName(op.toPos, op.To); err != nil {
		return nil, err
	}
	p := c.p
	idx := c.findName(op.From)
	if idx < 0 {
		if to := c.findName(op.To); to >= 0 {
			return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", to), New: p.Names[to].Value, Already: true}}, nil
		}
		return nil, errorf(op.Pos, "%s has no name %q", p.FileName, op.From)
	}
	old := p.Names[idx].Value
	if other := c.findName(op.To); other >= 0 && other != idx {
		return nil, errorf(op.Pos, "cannot rename %q to %q: the asset already has the name %q (index %d), and the engine would merge the two",
			op.From, op.To, p.Names[other].Value, other)
	}
	if strings.EqualFold(old, "None") {
		return nil, errorf(op.Pos, "cannot rename None: it ends every property list and stands for no name")
	}
	if old == op.To {
		return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", idx), New: old, Already: true}}, nil
	}
	if why := c.identityUse(idx); why != "" {
		return nil, errorf(op.Pos, "cannot rename %q: %s", old, why)
	}
	uses := c.tagUses(int32(idx))
	if uses.asType != "" {
		return nil, errorf(op.Pos, "cannot rename %q: it is a type in the property tags of %s (a property, struct or enum type); the engine would no longer match those tags to their properties and would skip their values",
			old, uses.asType)
	}
	var warn []string
	for i, e := range p.Exports {
		if int(e.ObjectName.Index) == idx {
			warn = append(warn, fmt.Sprintf("it names the export %s, whose path changes", c.r.ExportPath(i)))
			break
		}
	}
	for i, im := range p.Imports {
		if int(im.ObjectName.Index) == idx || int(im.ClassPackage.Index) == idx || int(im.ClassName.Index) == idx || int(im.PackageName.Index) == idx {
			warn = append(warn, fmt.Sprintf("the import %s uses it: it then refers to another object, which must exist for the asset to load", c.r.Object(uasset.PackageIndex(-i-1))))
			break
		}
	}
	if uses.asProperty != "" {
		warn = append(warn, fmt.Sprintf("it names properties (in %s): the engine looks them up by the new name, and a class without it skips their values", uses.asProperty))
	}
	p.Names[idx] = p.NewName(op.To)
	return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", idx), Old: old, New: op.To, Warning: strings.Join(warn, "; ")}}, nil
}

// identityUse says why renaming name idx would change an identity other
// packages find the asset or its objects by, or "".
func (c *cookedContext) identityUse(idx int) string {
	p := c.p
	if n := p.Names[idx].Value; strings.EqualFold(n, cookedPackageName(p, p.FileName)) {
		return "it is the package's name, which other packages and the pak find the asset by (a renamed package is a new file)"
	}
	for i, e := range p.Exports {
		if int(e.ObjectName.Index) == idx && e.ObjectFlags&rfPublic != 0 {
			return fmt.Sprintf("it names the public export %s, which other packages import by its path; the renamed object would no longer be found", c.r.ExportPath(i))
		}
	}
	return ""
}

// tagUses finds the uses of name idx in the property tags of every export
// whose data reads as properties.
func (c *cookedContext) tagUses(idx int32) tagUses {
	var u tagUses
	for i := range c.p.Exports {
		e, err := assetprops.DecodeExport(c.p, i)
		if errors.Is(err, props.ErrUnversioned) {
			return u // no tags in the package
		}
		if err != nil {
			continue
		}
		where := c.r.ExportPath(i)
		u.list(e.Properties, idx, where)
		if e.Table != nil {
			for k := range e.Table.Rows {
				u.list(e.Table.Rows[k].Properties, idx, where+" row "+e.Table.Rows[k].Name.Text)
			}
		}
	}
	return u
}

func (op *PackageFlags) applyCooked(c *cookedContext) ([]Change, error) {
	fp := packageFlagParsers[1] // a cooked asset's flags are EPackageFlags, as a zen package's
	set, clear, err := op.Flags.resolve("cooked", fp.parse)
	if err != nil {
		return nil, err
	}
	s := &c.p.Summary
	old := zen.PackageFlags(s.PackageFlags)
	next := (old | zen.PackageFlags(set)) &^ zen.PackageFlags(clear)
	switch changed := old ^ next; {
	case changed&zen.FlagUnversionedProperties != 0:
		return nil, errorf(op.Pos, "UnversionedProperties says how every export's data is written (with or without property tags); it follows the data and cannot be changed on its own")
	case changed&zen.FlagFilterEditorOnly != 0:
		return nil, errorf(op.Pos, "FilterEditorOnly says which fields the summary and export map hold (a cooked asset has no editor-only ones); it follows the file's layout and cannot be changed on its own")
	}
	s.PackageFlags = uint32(next)
	ch := Change{Op: op.Kind(), Target: "package " + c.pkg, Field: "flags", Old: old.String(), New: next.String(), Already: old == next}
	if (old^next)&0x200 != 0 {
		ch.Warning = "Cooked describes how the package was cooked; the engine may refuse or misread a package whose flags disagree with its data"
	}
	return []Change{ch}, nil
}

func (op *ObjectFlags) applyCooked(c *cookedContext) ([]Change, error) {
	fp := objectFlagParsers[1] // EObjectFlags, as a zen package's
	set, clear, err := op.Flags.resolve("cooked", fp.parse)
	if err != nil {
		return nil, err
	}
	i, err := c.resolveExport(op.Pos, op.Object)
	if err != nil {
		return nil, err
	}
	e := &c.p.Exports[i]
	old := zen.ObjectFlags(e.ObjectFlags)
	next := (old | zen.ObjectFlags(set)) &^ zen.ObjectFlags(clear)
	switch changed := old ^ next; {
	case changed&rfPublic != 0:
		return nil, errorf(op.Pos, "%s: Public says whether other packages may import the object (by its path); the packages cooked with this one were checked against it, so it cannot be set or cleared on its own", c.r.ExportPath(i))
	case changed&rfClassDefaultObject != 0:
		return nil, errorf(op.Pos, "%s: ClassDefaultObject decides how the object's data is read; it cannot be set or cleared on its own", c.r.ExportPath(i))
	}
	e.ObjectFlags = uint32(next)
	return []Change{{Op: op.Kind(), Target: "export " + c.r.ExportPath(i), Field: "flags", Old: old.String(), New: next.String(), Already: old == next}}, nil
}

func (op *ReplaceExport) applyCooked(c *cookedContext) ([]Change, error) {
	p := c.p
	i, err := c.resolveExport(op.Pos, op.Object)
	if err != nil {
		return nil, err
	}
	e := &p.Exports[i]
	target := "export " + c.r.ExportPath(i)
	var data []byte
	var note string
	switch {
	case op.data != nil:
		if data, err = op.data.load(c.dir, ufile.MaxAssetSize, "the data of an export of a cooked asset"); err != nil {
			return nil, err
		}
		note = "given data"
	case op.from.file != "":
		return nil, errorf(op.from.pos, "from: another package is not supported on cooked assets: its names and object references are indices into that package's maps; copy an export of this asset, or give data:")
	default:
		j, err := c.resolveExport(op.from.pos, op.from.object)
		if err != nil {
			return nil, err
		}
		if e.ClassIndex != p.Exports[j].ClassIndex {
			return nil, errorf(op.from.pos, "%s (class %s) and %s (class %s) differ in class: an export's data must be of its own class",
				c.r.ExportPath(j), c.r.ClassName(j), c.r.ExportPath(i), c.r.ClassName(i))
		}
		data = bytes.Clone(p.Exports[j].Data)
		note = "copied from " + c.r.ExportPath(j)
	}
	if bytes.Equal(data, e.Data) {
		return []Change{{Op: op.Kind(), Target: target, Field: "data", New: fmt.Sprintf("%d bytes, %s", len(data), note), Already: true}}, nil
	}
	if len(data) != len(e.Data) {
		for k, d := range p.DataResources {
			if d.LegacyBulkDataFlags&(0x1|bulkSeparateFile) == 0 && d.OuterIndex.IsExport() {
				return nil, errorf(op.Pos, "%s: the new data has %d bytes, not %d, and data resource %d is a bulk data payload inline in the export data, whose recorded offset unrmod does not move; data of the same size is possible",
					c.r.ExportPath(i), len(data), len(e.Data), k)
			}
		}
	}
	warning, l, err := checkCookedData(p, i, data)
	if err != nil {
		hint := ""
		if op.data != nil {
			hint = " (given data must be a whole export of this object, as 'unrmod export-data' writes it)"
		}
		return nil, errorf(op.Pos, "%s: the new data does not fit this export: %v%s", c.r.ExportPath(i), err, hint)
	}
	if l != nil && (e.ScriptSerializationStartOffset != 0 || e.ScriptSerializationEndOffset != 0) {
		// UE5 1010+ records where the tagged properties are.
		e.ScriptSerializationStartOffset, e.ScriptSerializationEndOffset = int64(l.Start), int64(l.End)
	}
	oldSize := len(e.Data)
	e.Data = data
	return []Change{{Op: op.Kind(), Target: target, Field: "data", Old: fmt.Sprintf("%d bytes", oldSize),
		New: fmt.Sprintf("%d bytes, %s", len(data), note), Warning: warning}}, nil
}

// checkCookedData checks new data for export i as checkZenData does, and
// returns its property list when it has one.
func checkCookedData(p *uasset.Package, i int, data []byte) (warning string, l *props.List, err error) {
	ctx, err := assetprops.ContextFor(p, i)
	if err != nil {
		return "unrmod cannot check this export's data (the asset has no property tags): the engine must be able to read it as the object's class serializes it", nil, nil
	}
	ctx.AddName = nil
	if _, err := props.Decode(p.Exports[i].Data, ctx); err != nil {
		return "unrmod cannot read this export's present data as a property list, so it cannot check the new data against it", nil, nil
	}
	if l, err = props.Decode(data, ctx); err != nil {
		return "", nil, fmt.Errorf("it is not a property list of this asset: %w", err)
	}
	if err := checkReferences(l, ctx); err != nil {
		return "", nil, err
	}
	return "", l, nil
}
