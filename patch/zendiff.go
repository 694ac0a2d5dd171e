package patch

import (
	"fmt"
	"github.com/unrmod/unrmod/usmap"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// DiffZen compares zen package a (old) with package b (new), as Diff does
// for legacy packages: header fields, names by text, imports by the object
// they name, exports by their path inside the package (so a package saved
// under another name still matches) with their table fields and data.
// ra and rb name the objects the packages refer to; nil leaves script
// imports as hashes. fileA and fileB name the packages in the result.
func DiffZen(fileA string, a *zen.Package, ra *zen.Resolver, fileB string, b *zen.Package, rb *zen.Resolver) *PackageDiff {
	return DiffZenWith(fileA, a, ra, fileB, b, rb, nil)
}

// DiffZenWith is DiffZen with the game's property schema m, with which
// the property values of packages cooked with unversioned properties are
// compared too (nil: their data is compared by its bytes).
func DiffZenWith(fileA string, a *zen.Package, ra *zen.Resolver, fileB string, b *zen.Package, rb *zen.Resolver, m *usmap.Mappings) *PackageDiff {
	d := &PackageDiff{A: fileA, B: fileB, Header: []HeaderDiff{}, Imports: []ImportDiff{}, Exports: []ExportDiff{}}
	d.Header = diffZenHeader(a, b)
	d.Names = diffNameLists(a.Names, b.Names, nil, nil)
	d.Imports = diffZenImports(a, ra, b, rb)
	d.Exports = diffZenExports(a, ra, b, rb, m)
	return d
}

func diffZenHeader(a, b *zen.Package) []HeaderDiff {
	out := []HeaderDiff{}
	field := func(name, old, new string) {
		if old != new {
			out = append(out, HeaderDiff{Field: name, Old: old, New: new})
		}
	}
	field("layout", a.Layout.String(), b.Layout.String())
	field("package", a.PackageName(), b.PackageName())
	field("flags", diffFlagText(a.PackageFlags.Names()), diffFlagText(b.PackageFlags.Names()))
	field("cooked header size", fmt.Sprint(a.CookedHeaderSize), fmt.Sprint(b.CookedHeaderSize))
	versions := func(p *zen.Package) string {
		if v := p.Versioning; v != nil {
			return fmt.Sprintf("zen %d, UE4 %d, UE5 %d, licensee %d, %d custom versions", v.ZenVersion, v.FileVersionUE4, v.FileVersionUE5, v.Licensee, len(v.CustomVersions))
		}
		return ""
	}
	field("versioning", versions(a), versions(b))
	return out
}

func diffZenImports(a *zen.Package, ra *zen.Resolver, b *zen.Package, rb *zen.Resolver) []ImportDiff {
	out := []ImportDiff{}
	kind := func(p *zen.Package) func(int) string {
		return func(i int) string { return p.Imports[i].Kind().String() }
	}
	// An import is its object index (a hash, or package and hash indices):
	// pair by value, and show the object it names.
	value := func(p *zen.Package) func(int) string {
		return func(i int) string { return p.Imports[i].String() }
	}
	_, onlyA, onlyB := diffMatch(len(a.Imports), len(b.Imports), value(a), value(b), kind(a), kind(b))
	for _, i := range onlyA {
		out = append(out, ImportDiff{Change: DiffRemoved, Path: ra.Object(a, a.Imports[i]), OldClass: a.Imports[i].Kind().String()})
	}
	for _, j := range onlyB {
		out = append(out, ImportDiff{Change: DiffAdded, Path: rb.Object(b, b.Imports[j]), NewClass: b.Imports[j].Kind().String()})
	}
	return out
}

func diffZenExports(a *zen.Package, ra *zen.Resolver, b *zen.Package, rb *zen.Resolver, m *usmap.Mappings) []ExportDiff {
	out := []ExportDiff{}
	key := func(p *zen.Package) func(int) string {
		return func(i int) string { return p.RelativePath(i, ".") }
	}
	class := func(p *zen.Package, r *zen.Resolver) func(int) string {
		return func(i int) string { return r.Object(p, p.Exports[i].Class) }
	}
	pairs, onlyA, onlyB := diffMatch(len(a.Exports), len(b.Exports), key(a), key(b), class(a, ra), class(b, rb))
	for _, pr := range pairs {
		if e, ok := diffZenExport(a, ra, pr[0], b, rb, pr[1], m); ok {
			out = append(out, e)
		}
	}
	for _, i := range onlyA {
		out = append(out, ExportDiff{Change: DiffRemoved, Path: a.ExportPath(i), Class: ra.ClassName(a, i), OldIndex: i, NewIndex: -1,
			OldSize: len(a.Exports[i].Data), OldXXH3: diffHash(a.Exports[i].Data)})
	}
	for _, j := range onlyB {
		out = append(out, ExportDiff{Change: DiffAdded, Path: b.ExportPath(j), Class: rb.ClassName(b, j), OldIndex: -1, NewIndex: j,
			NewSize: len(b.Exports[j].Data), NewXXH3: diffHash(b.Exports[j].Data)})
	}
	return out
}

// diffZenExport compares export i of a with export j of b; ok is false when
// they do not differ.
func diffZenExport(a *zen.Package, ra *zen.Resolver, i int, b *zen.Package, rb *zen.Resolver, j int, m *usmap.Mappings) (ExportDiff, bool) {
	ea, eb := &a.Exports[i], &b.Exports[j]
	d := ExportDiff{Change: DiffChanged, Path: a.ExportPath(i), Class: ra.ClassName(a, i), OldIndex: i, NewIndex: j}
	field := func(name, old, new string) {
		if old != new {
			d.Fields = append(d.Fields, FieldDiff{Field: name, Old: old, New: new})
		}
	}
	// References compare by value (a hash or a package and export index:
	// what the engine looks them up by) and show the objects they name.
	ref := func(name string, x, y zen.ObjectIndex) {
		if x != y {
			d.Fields = append(d.Fields, FieldDiff{Field: name, Old: ra.Object(a, x), New: rb.Object(b, y)})
		}
	}
	ref("class", ea.Class, eb.Class)
	ref("super", ea.Super, eb.Super)
	ref("template", ea.Template, eb.Template)
	field("flags", diffFlagText(ea.ObjectFlags.Names()), diffFlagText(eb.ObjectFlags.Names()))
	field("filter flags", fmt.Sprint(ea.FilterFlags), fmt.Sprint(eb.FilterFlags))
	field("public export hash", fmt.Sprintf("0x%016x", ea.PublicExportHash), fmt.Sprintf("0x%016x", eb.PublicExportHash))
	if string(ea.Data) != string(eb.Data) {
		d.OldSize, d.NewSize = len(ea.Data), len(eb.Data)
		d.OldOffset, d.NewOffset = int32(ea.DataOffset), int32(eb.DataOffset)
		d.OldXXH3, d.NewXXH3 = diffHash(ea.Data), diffHash(eb.Data)
		diffZenProperties(a, ra, i, b, rb, j, m, &d)
	}
	return d, len(d.Fields) > 0 || d.Data != "" || len(d.Properties) > 0
}

// diffZenProperties compares the properties (and DataTable rows) of two
// exports whose data differs, and says how the rest of the data differs.
func diffZenProperties(a *zen.Package, ra *zen.Resolver, i int, b *zen.Package, rb *zen.Resolver, j int, m *usmap.Mappings, d *ExportDiff) {
	oa, errA := zenprops.DecodeExportWith(a, ra, i, m)
	ob, errB := zenprops.DecodeExportWith(b, rb, j, m)
	if errA != nil || errB != nil {
		err := errA
		if err == nil {
			err = errB
		}
		d.Data, d.Detail = DataDiffers, "the properties cannot be read: "+err.Error()
		return
	}
	diffDecodedExports(oa, zenprops.NewResolver(a, ra).Name, ob, zenprops.NewResolver(b, rb).Name, d)
}

// tableRows returns a DataTable's rows, or none.
func tableRows(e *props.Export) []props.Row {
	if e.Table == nil {
		return nil
	}
	return e.Table.Rows
}

// diffPropLists compares two property lists by name and array index (as
// the engine matches them), values by how they display in their own
// package.
func diffPropLists(row string, a *props.List, objA func(int32) string, b *props.List, objB func(int32) string) []PropertyDiff {
	var out []PropertyDiff
	type key struct {
		name  string
		index int32
	}
	inB := map[key]*props.Property{}
	for _, q := range b.Properties {
		inB[key{strings.ToLower(q.Name.Text), q.ArrayIndex}] = q
	}
	seen := map[key]bool{}
	for _, q := range a.Properties {
		k := key{strings.ToLower(q.Name.Text), q.ArrayIndex}
		seen[k] = true
		old := props.Display(q.Value, objA)
		w, ok := inB[k]
		if !ok {
			out = append(out, PropertyDiff{Change: DiffRemoved, Row: row, Name: q.Name.Text, Index: int(q.ArrayIndex), Old: old, OldType: q.TypeString()})
			continue
		}
		if nw := props.Display(w.Value, objB); nw != old || w.TypeString() != q.TypeString() {
			out = append(out, PropertyDiff{Change: DiffChanged, Row: row, Name: q.Name.Text, Index: int(q.ArrayIndex), Old: old, New: nw,
				OldType: q.TypeString(), NewType: w.TypeString()})
		}
	}
	for _, w := range b.Properties {
		if !seen[key{strings.ToLower(w.Name.Text), w.ArrayIndex}] {
			out = append(out, PropertyDiff{Change: DiffAdded, Row: row, Name: w.Name.Text, Index: int(w.ArrayIndex), New: props.Display(w.Value, objB), NewType: w.TypeString()})
		}
	}
	return out
}
