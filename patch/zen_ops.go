package patch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/editdist"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// The operations on a zen package (zen.Package), one apply method per
// operation. They change the model in memory; the zen encoder derives
// every hash, offset, size and bundle field from it (docs/zen.md, "Patch
// recipes").

// zenContext is the state of one zen package while operations apply.
type zenContext struct {
	p   *zen.Package
	dir string // resolves data files written in the patch
	// schema reads unversioned properties (nil: they are refused).
	schema *schema
	// names indexes p.Names[:named] by nameKey, so that lookups do not scan
	// the table; entries are checked on use, names appended since are
	// indexed on the next lookup, and a shrunk table is indexed again.
	names map[string][]int
	named int
}

// findName returns the index of name s: the exact text first, then a
// case-insensitive match (the lowest index of either), or -1.
func (c *zenContext) findName(s string) int {
	p := c.p
	if c.names == nil || len(p.Names) < c.named {
		c.names, c.named = make(map[string][]int, len(p.Names)), 0
	}
	for ; c.named < len(p.Names); c.named++ {
		k := nameKey(p.Names[c.named])
		c.names[k] = append(c.names[k], c.named)
	}
	exact, fold := -1, -1
	for _, i := range c.names[nameKey(s)] {
		if i >= len(p.Names) || !strings.EqualFold(p.Names[i], s) {
			continue // renamed since it was indexed
		}
		if p.Names[i] == s && (exact < 0 || i < exact) {
			exact = i
		}
		if fold < 0 || i < fold {
			fold = i
		}
	}
	if exact >= 0 {
		return exact
	}
	return fold
}

// setName renames name i, indexing its new text.
func (c *zenContext) setName(i int, s string) {
	c.p.Names[i] = s
	if c.names != nil && i < c.named {
		c.names[nameKey(s)] = append(c.names[nameKey(s)], i)
	}
}

// zenOp is an operation on a zen package: it changes the model and
// describes what changed.
type zenOp interface {
	applyZen(c *zenContext) ([]Change, error)
}

// ApplyZen applies ops to the zen package p in memory, in order, and
// returns what changed. dir resolves relative data files. An operation
// zen packages do not support, or one that cannot be done safely, fails
// with an *Error at the operation; p is then partly changed, so callers
// that must stay all-or-nothing apply to a copy (DecodePackage again).
func ApplyZen(p *zen.Package, ops []Op, dir string) ([]Change, error) {
	return applyZen(p, ops, dir, nil)
}

// applyZen is ApplyZen with the schema of unversioned properties.
func applyZen(p *zen.Package, ops []Op, dir string, sc *schema) ([]Change, error) {
	c := &zenContext{p: p, dir: dir, schema: sc}
	var out []Change
	for _, op := range ops {
		zop, ok := op.(zenOp)
		if !ok {
			return nil, errorf(op.Position(), "%s is not supported on zen packages (%s)", op.Kind(), zenUnsupported[op.Kind()])
		}
		changes, err := zop.applyZen(c)
		if err != nil {
			return nil, atOp(op, err)
		}
		out = append(out, changes...)
	}
	return out, nil
}

// zenUnsupported says why an operation does not apply to zen packages.
var zenUnsupported = map[string]string{
	"retarget-import": "a zen package's imports are hashes its store entry and dependency data repeat; changing them makes a new package",
	"replace-texture": "it rebuilds the Texture exports of legacy packages; UE4/UE5 textures keep their pixels in bulk data of platform formats",
	"replace-sound":   "zen sounds (SoundWave) keep their audio in bulk data, which unrmod does not write",
	"prune-imports":   "a zen package's imports are hashes its store entry and dependency data repeat; removing them makes a new package",
}

// checkZenName applies the engine's rules for a name of a zen package: at
// most 1023 characters (NAME_SIZE), no control characters.
func checkZenName(pos Pos, s string) error {
	if n := len([]rune(s)); n > 1023 {
		return errorf(pos, "name %q has %d characters; the engine allows at most 1023", s, n)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7F {
			return errorf(pos, "name %q contains the control character %U", s, r)
		}
	}
	return nil
}

func (op *Rename) applyZen(c *zenContext) ([]Change, error) {
	if err := checkZenName(op.toPos, op.To); err != nil {
		return nil, err
	}
	p := c.p
	idx := c.findName(op.From)
	if idx < 0 {
		if to := c.findName(op.To); to >= 0 {
			return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", to), New: p.Names[to], Already: true}}, nil
		}
		return nil, errorf(op.Pos, "%s has no name %q%s", p.PackageName(), op.From, zenNameHint(p, op.From))
	}
	if other := c.findName(op.To); other >= 0 && other != idx {
		return nil, errorf(op.Pos, "cannot rename %q to %q: the package already has the name %q (index %d), and the engine would merge the two",
			op.From, op.To, p.Names[other], other)
	}
	if strings.EqualFold(p.Names[idx], "None") {
		return nil, errorf(op.Pos, "cannot rename None: it ends every property list and stands for no name")
	}
	if why := zenIdentityUse(p, idx); why != "" {
		return nil, errorf(op.Pos, "cannot rename %q: %s", p.Names[idx], why)
	}
	uses := zenTagUses(p, int32(idx))
	if uses.asType != "" {
		return nil, errorf(op.Pos, "cannot rename %q: it is a type in the property tags of %s (a property, struct or enum type); the engine would no longer match those tags to their properties and would skip their values",
			p.Names[idx], uses.asType)
	}
	if why := zenImportPackageUse(p, idx); why != "" {
		return nil, errorf(op.Pos, "cannot rename %q: %s", p.Names[idx], why)
	}
	old := p.Names[idx]
	if old == op.To {
		return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", idx), New: old, Already: true}}, nil
	}
	c.setName(idx, op.To)
	return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", idx), Old: old, New: op.To, Warning: zenRenameWarning(p, idx, uses)}}, nil
}

// zenIdentityUse says why renaming name idx would change an identity other
// packages or the container know the package by, or "".
func zenIdentityUse(p *zen.Package, idx int) string {
	if int(p.Name.Index()) == idx {
		return "it is the package's name: a renamed package has another package id, chunk ids and store entry (it is a new package)"
	}
	if !p.Layout.IsUE5() && int(p.SourceName.Index()) == idx {
		return "it is the package's source name, which localized packages are found by"
	}
	for i, e := range p.Exports {
		if int(e.ObjectName.Index()) != idx {
			continue
		}
		public := e.PublicExportHash != 0 && zen.ObjectIndex(e.PublicExportHash) != zen.NullObject
		if public {
			return fmt.Sprintf("it names the public export %s, whose identity hash (%s) other packages import it by; the renamed object would no longer be found",
				p.ExportPath(i), zenHashName(p))
		}
	}
	return ""
}

// zenImportPackageUse says why renaming name idx would not do what it
// seems to, when the name is the path of a package p imports from, or "".
// A cooked package keeps the paths of the packages it imports from in its
// name map, but its imports are hashes: of the imported object's full path
// (ScriptImport, and 4.26/4.27 PackageImport), or the imported package's
// index and the object's PublicExportHash (UE5). Renaming the name leaves
// every import where it was, so the rename is refused rather than written
// as a change that changes nothing.
func zenImportPackageUse(p *zen.Package, idx int) string {
	n := p.Names[idx]
	if len(n) < 2 || n[0] != '/' {
		return ""
	}
	id := zen.PackageIDFromName(n)
	imported := false
	for _, g := range p.Graph {
		imported = imported || g.Package == id
	}
	for _, ip := range p.ImportedPackages {
		imported = imported || zen.PackageIDFromName(ip.String()) == id
	}
	imports := make(map[zen.ObjectIndex]bool, len(p.Imports))
	for _, x := range p.Imports {
		imports[x] = true
	}
	// The import whose hash spells n (a script package) or n.Object, for
	// an object named in the name map.
	var example string
	if imports[zen.ScriptObject(n)] {
		example = n
	}
	for _, m := range p.Names {
		if example != "" {
			break
		}
		path := n + "." + m
		if imports[zen.ScriptObject(path)] || !p.Layout.IsUE5() && imports[zen.ObjectIndex(cityhash.PackageImportIndex(path))] {
			example = path
		}
	}
	if !imported && example == "" {
		return ""
	}
	how := "by the imported package's id and a hash of the object's path in it (PublicExportHash)"
	if !p.Layout.IsUE5() {
		how = "by a hash of the object's full path (GlobalImportIndex)"
	}
	if strings.HasPrefix(n, "/Script/") {
		how = "by a hash of the object's full path (a script import)"
	}
	what := "it is the path of a package this package imports from"
	if example != "" {
		what = fmt.Sprintf("it is the path of the package of the import %s", example)
	}
	return what + "; a zen package refers to an imported object " + how +
		", not by this name, so the rename would retarget no import (and retarget-import is refused on zen packages: the hashes are repeated in the package's store entry and dependency data)"
}

func zenHashName(p *zen.Package) string {
	if p.Layout.IsUE5() {
		return "PublicExportHash"
	}
	return "GlobalImportIndex"
}

// zenRenameWarning says what else the renamed name stands for.
func zenRenameWarning(p *zen.Package, idx int, uses tagUses) string {
	var out []string
	for i, e := range p.Exports {
		if int(e.ObjectName.Index()) == idx {
			out = append(out, fmt.Sprintf("it names the export %s, whose path changes", p.ExportPath(i)))
			break
		}
	}
	if uses.asProperty != "" {
		out = append(out, fmt.Sprintf("it names properties (in %s): the engine looks them up by the new name, and a class without it skips their values", uses.asProperty))
	}
	return strings.Join(out, "; ")
}

// tagUses says where the property tags of a package use a name: the first
// export (or DataTable row) whose tags have it as a type (a node of a
// tag's type tree: a property, struct or enum type) and as a property
// name.
type tagUses struct {
	asType, asProperty string
}

// zenTagUses finds the uses of name idx in the property tags of every
// export whose data reads as properties; exports that do not read are
// skipped (their bytes are not changed by a rename).
func zenTagUses(p *zen.Package, idx int32) tagUses {
	var u tagUses
	for i := range p.Exports {
		e, err := decodeZenExport(p, i)
		if errors.Is(err, props.ErrUnversioned) {
			return u // no tags in the package
		}
		if err != nil {
			continue
		}
		where := p.ExportPath(i)
		u.list(e.Properties, idx, where)
		if e.Table != nil {
			for k := range e.Table.Rows {
				u.list(e.Table.Rows[k].Properties, idx, where+" row "+e.Table.Rows[k].Name.Text)
			}
		}
	}
	return u
}

// decodeZenExport decodes export i's properties (zenprops.DecodeExport).
// The data of an export of a streamed package that is not loaded is read
// for the call and not kept: one export at a time is held, not the
// package.
func decodeZenExport(p *zen.Package, i int) (*props.Export, error) {
	if p.Loaded(i) {
		return zenprops.DecodeExport(p, nil, i)
	}
	d, err := p.ExportData(i)
	if err != nil {
		return nil, err
	}
	p.Exports[i].Data = d
	defer func() { p.Exports[i].Data = nil }()
	return zenprops.DecodeExport(p, nil, i)
}

func (u *tagUses) list(l *props.List, idx int32, where string) {
	if l == nil {
		return
	}
	for _, q := range l.Properties {
		if u.asType == "" && typeUses(q.Type, idx) {
			u.asType = where
		}
		if u.asProperty == "" && q.Name.Index == idx {
			u.asProperty = where
		}
		u.value(q.Value, idx, where)
	}
}

func (u *tagUses) value(v props.Value, idx int32, where string) {
	switch x := v.(type) {
	case *props.Struct:
		u.list(x.Tagged, idx, where)
	case *props.Array:
		for _, e := range x.Elements {
			u.value(e.Value, idx, where)
		}
	}
}

func typeUses(t props.TypeName, idx int32) bool {
	if t.Name.Index == idx {
		return true
	}
	for _, q := range t.Params {
		if typeUses(q, idx) {
			return true
		}
	}
	return false
}

func zenNameHint(p *zen.Package, s string) string {
	var close []string
	ls := strings.ToLower(s)
	for _, n := range p.Names {
		if len(close) < 8 && (strings.Contains(strings.ToLower(n), ls) || editdist.Distance(strings.ToLower(n), ls) <= 2) {
			close = append(close, n)
		}
	}
	if len(close) == 0 {
		return ""
	}
	return "; close matches: " + strings.Join(close, ", ")
}

func (op *AddName) applyZen(c *zenContext) ([]Change, error) {
	if err := checkZenName(op.namePos, op.Name); err != nil {
		return nil, err
	}
	p := c.p
	if i := c.findName(op.Name); i >= 0 {
		return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", i), New: p.Names[i], Already: true}}, nil
	}
	p.Names = append(p.Names, op.Name)
	return []Change{{Op: op.Kind(), Target: fmt.Sprintf("name %d", len(p.Names)-1), New: op.Name}}, nil
}

func (op *PackageFlags) applyZen(c *zenContext) ([]Change, error) {
	fp := packageFlagParsers[1]
	set, clear, err := op.Flags.resolve(fp.kind, fp.parse)
	if err != nil {
		return nil, err
	}
	p := c.p
	old := p.PackageFlags
	next := (old | zen.PackageFlags(set)) &^ zen.PackageFlags(clear)
	if (old^next)&zen.FlagUnversionedProperties != 0 {
		return nil, errorf(op.Pos, "UnversionedProperties says how every export's data is written (with or without property tags); it follows the data and cannot be changed on its own")
	}
	p.PackageFlags = next
	ch := Change{Op: op.Kind(), Target: "package " + p.PackageName(), Field: "flags", Old: old.String(), New: next.String(), Already: old == next}
	if (old^next)&(zen.FlagFilterEditorOnly|0x200) != 0 {
		ch.Warning = "Cooked and FilterEditorOnly describe how the package was cooked; the engine may refuse or misread a package whose flags disagree with its data"
	}
	return []Change{ch}, nil
}

func (op *ObjectFlags) applyZen(c *zenContext) ([]Change, error) {
	fp := objectFlagParsers[1]
	set, clear, err := op.Flags.resolve(fp.kind, fp.parse)
	if err != nil {
		return nil, err
	}
	p := c.p
	i, err := resolveZenExport(op.Pos, p, op.Object)
	if err != nil {
		return nil, err
	}
	e := &p.Exports[i]
	old := e.ObjectFlags
	next := (old | zen.ObjectFlags(set)) &^ zen.ObjectFlags(clear)
	switch changed := old ^ next; {
	case changed&zen.FlagPublic != 0:
		return nil, errorf(op.Pos, "%s: Public goes with the export's %s, which other packages import it by; it cannot be set or cleared on its own", p.ExportPath(i), zenHashName(p))
	case changed&zen.FlagClassDefaultObject != 0:
		return nil, errorf(op.Pos, "%s: ClassDefaultObject decides how the object's data is read; it cannot be set or cleared on its own", p.ExportPath(i))
	}
	e.ObjectFlags = next
	return []Change{{Op: op.Kind(), Target: "export " + p.ExportPath(i), Field: "flags", Old: old.String(), New: next.String(), Already: old == next}}, nil
}

func (op *ReplaceExport) applyZen(c *zenContext) ([]Change, error) {
	p := c.p
	i, err := resolveZenExportData(op.Pos, p, op.Object)
	if err != nil {
		return nil, err
	}
	e := &p.Exports[i]
	target := "export " + p.ExportPath(i)
	var data []byte
	var note string
	switch {
	case op.data != nil:
		if data, err = op.data.load(c.dir, pack.MaxFileSize, "the data of a zen export"); err != nil {
			return nil, err
		}
		note = "given data"
	case op.from.file != "":
		return nil, errorf(op.from.pos, "from: another package is not supported on zen packages: its names and object references are indices into that package's maps; copy an export of this package, or give data:")
	default:
		j, err := resolveZenExportData(op.from.pos, p, op.from.object)
		if err != nil {
			return nil, err
		}
		if e.Class != p.Exports[j].Class {
			r := &zen.Resolver{}
			return nil, errorf(op.from.pos, "%s (class %s) and %s (class %s) differ in class: an export's data must be of its own class",
				p.ExportPath(j), r.ClassName(p, j), p.ExportPath(i), r.ClassName(p, i))
		}
		data = bytes.Clone(p.Exports[j].Data)
		note = "copied from " + p.ExportPath(j)
	}
	if bytes.Equal(data, e.Data) {
		return []Change{{Op: op.Kind(), Target: target, Field: "data", New: fmt.Sprintf("%d bytes, %s", len(data), note), Already: true}}, nil
	}
	warning, err := checkZenData(p, i, data)
	if err != nil {
		hint := ""
		if op.data != nil {
			hint = " (given data must be a whole export of this object, as 'unrmod export-data' writes it)"
		}
		return nil, errorf(op.Pos, "%s: the new data does not fit this export: %v%s", p.ExportPath(i), err, hint)
	}
	oldSize := len(e.Data)
	e.Data = data
	return []Change{{Op: op.Kind(), Target: target, Field: "data", Old: fmt.Sprintf("%d bytes", oldSize),
		New: fmt.Sprintf("%d bytes, %s", len(data), note), Warning: warning}}, nil
}

// checkZenData checks new data for export i: when the export's present
// data is a property list of this package (a tagged package), the new data
// must be one too, with every name and object reference in the package's
// maps. Other data cannot be checked, which the warning says.
func checkZenData(p *zen.Package, i int, data []byte) (warning string, err error) {
	ctx, err := zenprops.ContextFor(p, i)
	if err != nil {
		return "unrmod cannot check this export's data (the package has no property tags): the engine must be able to read it as the object's class serializes it", nil
	}
	ctx.AddName = nil
	if _, err := props.Decode(p.Exports[i].Data, ctx); err != nil {
		return "unrmod cannot read this export's present data as a property list, so it cannot check the new data against it", nil
	}
	l, err := props.Decode(data, ctx)
	if err != nil {
		return "", fmt.Errorf("it is not a property list of this package: %w", err)
	}
	if err := checkReferences(l, ctx); err != nil {
		return "", err
	}
	return "", nil
}

// checkReferences refuses object references outside the package's maps.
func checkReferences(l *props.List, ctx *props.Context) error {
	var bad error
	var walk func(v props.Value)
	walk = func(v props.Value) {
		switch x := v.(type) {
		case props.Object:
			if i, ok := x.Import(); ok && i >= ctx.Imports || func() bool { j, ok := x.Export(); return ok && j >= ctx.Exports }() {
				if bad == nil {
					bad = fmt.Errorf("object reference %d is outside the package's %d imports and %d exports", int32(x), ctx.Imports, ctx.Exports)
				}
			}
		case *props.Struct:
			for _, f := range x.Native {
				walk(f.Value)
			}
			if x.Tagged != nil {
				for _, q := range x.Tagged.Properties {
					walk(q.Value)
				}
			}
		case *props.Array:
			for _, e := range x.Elements {
				walk(e.Value)
			}
		}
	}
	for _, q := range l.Properties {
		walk(q.Value)
	}
	return bad
}

// propsContext finds the export object names and the context its
// properties decode with: the target's mappings for unversioned
// properties, whose absence is an error saying to give them.
func (c *zenContext) propsContext(pos Pos, object string) (int, *props.Context, error) {
	p := c.p
	i, err := resolveZenExportData(pos, p, object)
	if err != nil {
		return 0, nil, err
	}
	var ctx *props.Context
	if c.schema != nil {
		ctx, err = zenprops.ContextWith(p, c.schema.r, i, c.schema.m)
	} else {
		ctx, err = zenprops.ContextFor(p, i)
	}
	if errors.Is(err, props.ErrUnversioned) {
		return 0, nil, &Error{Pos: pos, Msg: fmt.Sprintf("%s: %v; give the target mappings: (the game's .usmap file)", p.ExportPath(i), err), Err: err}
	}
	if err != nil {
		return 0, nil, errorf(pos, "%s: %v", p.ExportPath(i), err)
	}
	return i, ctx, nil
}

func (op *SetProperty) applyZen(c *zenContext) ([]Change, error) {
	p := c.p
	i, ctx, err := c.propsContext(op.Pos, op.Object)
	if err != nil {
		return nil, err
	}
	path := op.Property
	if op.Index != 0 {
		path = fmt.Sprintf("%s[%d]", op.Property, op.Index)
	}
	names := len(p.Names)
	data, ch, err := props.Set(p.Exports[i].Data, ctx, props.Target{Row: op.Row, Path: path}, props.Input{Text: op.Value, Type: op.Type})
	if err != nil {
		p.Names = p.Names[:names]
		pos := op.Pos
		if errors.Is(err, props.ErrType) || errors.Is(err, props.ErrRange) {
			pos = op.valuePos
		}
		return nil, errorf(pos, "%s: %v", p.ExportPath(i), err)
	}
	field := "property " + ch.Target
	if op.Row != "" {
		field = "row " + ch.Target
	}
	out := Change{Op: op.Kind(), Target: "export " + p.ExportPath(i), Field: field, Old: ch.Old, New: ch.New, Already: ch.Already,
		Warning: strings.Join(ch.Warnings, "; ")}
	if ch.Added {
		out.Old = "(class default)"
		if out.Warning == "" {
			out.Warning = "the property is added; unrmod cannot check that the object's class declares it with this type"
		}
	}
	if !ch.Already {
		p.Exports[i].Data = data // props.Set's warnings name the names it added
	}
	return []Change{out}, nil
}

// resolveZenExport finds the one export spec names (zen.Package.FindExport)
// and reports a failure at pos.
func resolveZenExport(pos Pos, p *zen.Package, spec string) (int, error) {
	i, err := p.FindExport(spec, nil)
	if err != nil {
		return 0, errorf(pos, "%s: %v", p.PackageName(), err)
	}
	return i, nil
}

// resolveZenExportData is resolveZenExport for an operation that reads or
// changes the export's data: the data is loaded when p is streamed
// (zen.DecodePackageStream).
func resolveZenExportData(pos Pos, p *zen.Package, spec string) (int, error) {
	i, err := resolveZenExport(pos, p, spec)
	if err != nil {
		return 0, err
	}
	if err := p.LoadExport(i); err != nil {
		return 0, errorf(pos, "%s: %v", p.PackageName(), err)
	}
	return i, nil
}
