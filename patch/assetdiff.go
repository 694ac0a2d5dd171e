package patch

import (
	"fmt"
	"github.com/unrmod/unrmod/usmap"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// DiffAsset compares cooked asset a (old, a .uasset with its .uexp) with
// cooked asset b (new), as DiffZen does for zen packages: summary fields,
// names by text, imports by path, exports by their path inside the package
// (so an asset saved under another name still matches) with their table
// fields, sizes, data hashes and, for tagged properties, property values
// and DataTable rows. pkgA and pkgB name the packages ("" takes each
// summary's package name); fileA and fileB name the files in the result.
func DiffAsset(fileA string, a *uasset.Package, pkgA string, fileB string, b *uasset.Package, pkgB string) *PackageDiff {
	return DiffAssetWith(fileA, a, pkgA, fileB, b, pkgB, nil)
}

// DiffAssetWith is DiffAsset with the game's property schema m, with
// which the property values of assets cooked with unversioned properties
// are compared too (nil: their data is compared by its bytes).
func DiffAssetWith(fileA string, a *uasset.Package, pkgA string, fileB string, b *uasset.Package, pkgB string, m *usmap.Mappings) *PackageDiff {
	ra, rb := assetprops.NewResolver(a, pkgA), assetprops.NewResolver(b, pkgB)
	d := &PackageDiff{A: fileA, B: fileB}
	d.Header = diffAssetHeader(a, b)
	names := func(p *uasset.Package) []string {
		out := make([]string, len(p.Names))
		for i, n := range p.Names {
			out[i] = n.Value
		}
		return out
	}
	d.Names = diffNameLists(names(a), names(b), nil, nil)
	d.Imports = diffAssetImports(a, ra, b, rb)
	d.Exports = diffAssetExports(a, ra, b, rb, m)
	return d
}

func diffAssetHeader(a, b *uasset.Package) []HeaderDiff {
	out := []HeaderDiff{}
	field := func(name, old, new string) {
		if old != new {
			out = append(out, HeaderDiff{Field: name, Old: old, New: new})
		}
	}
	sa, sb := &a.Summary, &b.Summary
	field("release", a.Release.String(), b.Release.String())
	field("version", fmt.Sprintf("UE4 %d, UE5 %d, licensee %d, %d custom versions", a.Version.UE4, a.Version.UE5, sa.FileVersionLicensee, len(sa.CustomVersions)),
		fmt.Sprintf("UE4 %d, UE5 %d, licensee %d, %d custom versions", b.Version.UE4, b.Version.UE5, sb.FileVersionLicensee, len(sb.CustomVersions)))
	field("package", sa.PackageName, sb.PackageName)
	field("flags", diffFlagText(zen.PackageFlags(sa.PackageFlags).Names()), diffFlagText(zen.PackageFlags(sb.PackageFlags).Names()))
	field("guid", sa.GUID.String(), sb.GUID.String())
	field("saved by", sa.SavedByEngineVersion.String(), sb.SavedByEngineVersion.String())
	field("split", fmt.Sprint(a.Split), fmt.Sprint(b.Split))
	return out
}

func diffAssetImports(a *uasset.Package, ra *assetprops.Resolver, b *uasset.Package, rb *assetprops.Resolver) []ImportDiff {
	out := []ImportDiff{}
	path := func(p *uasset.Package, r *assetprops.Resolver) func(int) string {
		return func(i int) string { return r.Object(uasset.PackageIndex(-i - 1)) }
	}
	class := func(p *uasset.Package) func(int) string {
		return func(i int) string {
			im := &p.Imports[i]
			return p.NameOf(im.ClassPackage) + "." + p.NameOf(im.ClassName)
		}
	}
	pairs, onlyA, onlyB := diffMatch(len(a.Imports), len(b.Imports), path(a, ra), path(b, rb), class(a), class(b))
	for _, pr := range pairs {
		if ca, cb := class(a)(pr[0]), class(b)(pr[1]); ca != cb {
			out = append(out, ImportDiff{Change: DiffChanged, Path: path(a, ra)(pr[0]), OldClass: ca, NewClass: cb})
		}
	}
	for _, i := range onlyA {
		out = append(out, ImportDiff{Change: DiffRemoved, Path: path(a, ra)(i), OldClass: class(a)(i)})
	}
	for _, j := range onlyB {
		out = append(out, ImportDiff{Change: DiffAdded, Path: path(b, rb)(j), NewClass: class(b)(j)})
	}
	return out
}

// assetRelativePath is export i's path without the package name, so that
// assets saved under other names still match.
func assetRelativePath(r *assetprops.Resolver, i int) string {
	p := r.ExportPath(i)
	if k := strings.IndexByte(p, '.'); k >= 0 {
		return p[k+1:]
	}
	return p
}

func diffAssetExports(a *uasset.Package, ra *assetprops.Resolver, b *uasset.Package, rb *assetprops.Resolver, m *usmap.Mappings) []ExportDiff {
	out := []ExportDiff{}
	key := func(r *assetprops.Resolver) func(int) string {
		return func(i int) string { return assetRelativePath(r, i) }
	}
	pairs, onlyA, onlyB := diffMatch(len(a.Exports), len(b.Exports), key(ra), key(rb), ra.ClassName, rb.ClassName)
	for _, pr := range pairs {
		if e, ok := diffAssetExport(a, ra, pr[0], b, rb, pr[1], m); ok {
			out = append(out, e)
		}
	}
	for _, i := range onlyA {
		e := &a.Exports[i]
		out = append(out, ExportDiff{Change: DiffRemoved, Path: ra.ExportPath(i), Class: ra.ClassName(i), OldIndex: i, NewIndex: -1,
			OldSize: len(e.Data), OldOffset: int32(e.SerialOffset), OldXXH3: diffHash(e.Data)})
	}
	for _, j := range onlyB {
		e := &b.Exports[j]
		out = append(out, ExportDiff{Change: DiffAdded, Path: rb.ExportPath(j), Class: rb.ClassName(j), OldIndex: -1, NewIndex: j,
			NewSize: len(e.Data), NewOffset: int32(e.SerialOffset), NewXXH3: diffHash(e.Data)})
	}
	return out
}

// diffAssetExport compares export i of a with export j of b; ok is false
// when they do not differ.
func diffAssetExport(a *uasset.Package, ra *assetprops.Resolver, i int, b *uasset.Package, rb *assetprops.Resolver, j int, m *usmap.Mappings) (ExportDiff, bool) {
	ea, eb := &a.Exports[i], &b.Exports[j]
	d := ExportDiff{Change: DiffChanged, Path: ra.ExportPath(i), Class: ra.ClassName(i), OldIndex: i, NewIndex: j}
	field := func(name, old, new string) {
		if old != new {
			d.Fields = append(d.Fields, FieldDiff{Field: name, Old: old, New: new})
		}
	}
	ref := func(name string, x, y uasset.PackageIndex) {
		field(name, ra.Object(x), rb.Object(y))
	}
	ref("class", ea.ClassIndex, eb.ClassIndex)
	ref("super", ea.SuperIndex, eb.SuperIndex)
	ref("template", ea.TemplateIndex, eb.TemplateIndex)
	field("flags", diffFlagText(zen.ObjectFlags(ea.ObjectFlags).Names()), diffFlagText(zen.ObjectFlags(eb.ObjectFlags).Names()))
	field("not for client", fmt.Sprint(ea.NotForClient), fmt.Sprint(eb.NotForClient))
	field("not for server", fmt.Sprint(ea.NotForServer), fmt.Sprint(eb.NotForServer))
	field("is asset", fmt.Sprint(ea.IsAsset), fmt.Sprint(eb.IsAsset))
	field("generate public hash", fmt.Sprint(ea.GeneratePublicHash), fmt.Sprint(eb.GeneratePublicHash))
	if string(ea.Data) != string(eb.Data) {
		d.OldSize, d.NewSize = len(ea.Data), len(eb.Data)
		d.OldOffset, d.NewOffset = int32(ea.SerialOffset), int32(eb.SerialOffset)
		d.OldXXH3, d.NewXXH3 = diffHash(ea.Data), diffHash(eb.Data)
		diffAssetProperties(a, ra, i, b, rb, j, m, &d)
	}
	return d, len(d.Fields) > 0 || d.Data != "" || len(d.Properties) > 0
}

// diffAssetProperties compares the properties (and DataTable rows) of two
// exports whose data differs, and says how the rest of the data differs.
func diffAssetProperties(a *uasset.Package, ra *assetprops.Resolver, i int, b *uasset.Package, rb *assetprops.Resolver, j int, m *usmap.Mappings, d *ExportDiff) {
	var oa, ob *props.Export
	var err error
	switch {
	case m == nil && (a.UnversionedProperties() || b.UnversionedProperties()):
		err = fmt.Errorf("%w", props.ErrUnversioned)
	default:
		if oa, err = assetprops.DecodeExportWith(a, i, m); err == nil {
			ob, err = assetprops.DecodeExportWith(b, j, m)
		}
	}
	if err != nil {
		d.Data, d.Detail = DataDiffers, "the properties cannot be read: "+err.Error()
		return
	}
	diffDecodedExports(oa, ra.Name, ob, rb.Name, d)
}

// diffDecodedExports compares two decoded exports (properties, DataTable
// rows and the data after them) into d; objA and objB name object
// references in each package.
func diffDecodedExports(oa *props.Export, objA func(int32) string, ob *props.Export, objB func(int32) string, d *ExportDiff) {
	d.Properties = diffPropLists("", oa.Properties, objA, ob.Properties, objB)
	rowsA, rowsB := tableRows(oa), tableRows(ob)
	inB := map[string]*props.Row{}
	for k := range rowsB {
		inB[strings.ToLower(rowsB[k].Name.Text)] = &rowsB[k]
	}
	seen := map[string]bool{}
	for k := range rowsA {
		r := &rowsA[k]
		key := strings.ToLower(r.Name.Text)
		seen[key] = true
		if w, ok := inB[key]; ok {
			d.Properties = append(d.Properties, diffPropLists(r.Name.Text, r.Properties, objA, w.Properties, objB)...)
		} else {
			d.Properties = append(d.Properties, PropertyDiff{Change: DiffRemoved, Row: r.Name.Text, Name: "(row)", Old: r.Properties.Format(&props.FormatOptions{Object: objA})})
		}
	}
	for k := range rowsB {
		w := &rowsB[k]
		if !seen[strings.ToLower(w.Name.Text)] {
			d.Properties = append(d.Properties, PropertyDiff{Change: DiffAdded, Row: w.Name.Text, Name: "(row)", New: w.Properties.Format(&props.FormatOptions{Object: objB})})
		}
	}
	switch {
	case string(oa.Rest) != string(ob.Rest):
		d.Data, d.NativeOldSize, d.NativeNewSize = DataNative, len(oa.Rest), len(ob.Rest)
	case len(d.Properties) == 0:
		d.Data = DataReencoded
	}
}
