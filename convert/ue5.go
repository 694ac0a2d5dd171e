package convert

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// rules are the differences between the UE5 releases' conversions that
// show in the package beyond its layout.
type rules struct {
	layout zen.Layout
	// zenVersion is EZenPackageVersion::Latest, written in the versioning
	// info of a versioned package.
	zenVersion uint32
	// headerSizeBias and importBias are what is subtracted from the legacy
	// header size before it is stored as CookedHeaderSize, a field unused
	// since 5.2 that 5.7 freezes at its 5.6 baseline: 5.7 takes off the 8
	// bytes its summary gained, 5.8 also the 8 bytes each import gained.
	headerSizeBias, importBias uint32
	// verseImports: imports whose path holds /_Verse/VNI may be native,
	// which only the script objects can tell (5.6 and later).
	verseImports bool
}

func rulesFor(e zen.Engine) rules {
	r := rules{layout: e.Layout(), zenVersion: 3}
	if r.layout >= zen.LayoutUE56 {
		r.verseImports = true
	}
	if !e.Less(zen.Engine{Major: 5, Minor: 7}) {
		r.headerSizeBias = 8
	}
	if !e.Less(zen.Engine58) {
		r.importBias = 8
	}
	return r
}

// sameOutput reports whether two releases make the same zen package from
// the same asset.
func sameOutput(a, b zen.Engine) bool { return rulesFor(a) == rulesFor(b) }

// toUE5 converts for UE 5.3 and later (FPackageStoreOptimizer::
// CreatePackageFromCookedHeader): one export bundle in load order,
// dependency bundles per export, imported package names.
func (s *source) toUE5(e zen.Engine) (*zen.Package, error) {
	a, sum := s.a, &s.a.Summary
	r := rulesFor(e)
	if sum.CellExportCount > 0 || sum.CellImportCount > 0 {
		return nil, errorf(s.file, "package file summary", ErrNotConvertible,
			"the asset has %d Verse cell exports and %d cell imports, whose tables unrmod does not read", sum.CellExportCount, sum.CellImportCount)
	}
	bias := int64(r.headerSizeBias) + int64(r.importBias)*int64(len(a.Imports))
	if int64(sum.TotalHeaderSize) < bias {
		return nil, errorf(s.file, "package file summary", ErrNotConvertible, "TotalHeaderSize %d is smaller than the %d bytes the engine takes off it", sum.TotalHeaderSize, bias)
	}
	p := &zen.Package{
		Layout:           r.layout,
		PackageFlags:     zen.PackageFlags(sum.PackageFlags),
		CookedHeaderSize: uint32(int64(sum.TotalHeaderSize) - bias),
		Trailing:         s.trailer,
	}
	if !sum.Unversioned() {
		p.Versioning = &zen.Versioning{ZenVersion: r.zenVersion, FileVersionUE4: sum.FileVersionUE4,
			FileVersionUE5: sum.FileVersionUE5, Licensee: sum.FileVersionLicensee}
		for _, cv := range sum.CustomVersions {
			var g zen.GUID
			for k := range g {
				g[k] = binary.LittleEndian.Uint32(cv.Key[4*k:])
			}
			p.Versioning.CustomVersions = append(p.Versioning.CustomVersions, zen.CustomVersion{Key: g, Version: cv.Version})
		}
	}

	// The names the export data refers to come first, in the asset's order.
	n := int(sum.NamesReferencedFromExportDataCount)
	if n < 0 || n > len(a.Names) {
		return nil, errorf(s.file, "package file summary NamesReferencedFromExportDataCount", ErrNotConvertible,
			"%d is outside the name map's %d names", n, len(a.Names))
	}
	names := newNameMap(n + len(a.Exports) + 1)
	for _, nm := range a.Names[:n] {
		names.add(nm.Value)
	}

	if err := s.importsUE5(p, r); err != nil {
		return nil, err
	}
	public, err := s.exportsUE5(p)
	if err != nil {
		return nil, err
	}
	g := newGraph(public)
	if err := s.dependenciesUE5(p, g); err != nil {
		return nil, err
	}
	order, ok := g.loadOrder()
	if !ok {
		return nil, errorf(s.file, "preload dependencies", ErrNotConvertible,
			"the exports' dependencies form a loop: no load order satisfies them")
	}
	p.BundleEntries = order
	for _, d := range a.DataResources {
		if d.SerialSize != d.RawSize {
			return nil, errorf(s.file, "data resources", ErrNotConvertible,
				"a bulk payload of %d bytes is stored compressed (%d raw): cooked packages do not support compressed bulk data", d.SerialSize, d.RawSize)
		}
		p.BulkData = append(p.BulkData, zen.BulkDataEntry{SerialOffset: d.SerialOffset, DuplicateSerialOffset: d.DuplicateSerialOffset,
			SerialSize: d.SerialSize, Flags: d.LegacyBulkDataFlags, CookedIndex: d.CookedIndex})
	}

	// FinalizePackageHeader: the exports' names, then the package's own.
	for i := range p.Exports {
		on := a.Exports[i].ObjectName
		p.Exports[i].ObjectName = names.ref(a.Names[on.Index].Value, on.Number)
	}
	base, num := splitName(s.name)
	p.Name = names.ref(base, num)
	p.Names = names.names
	if err := streamZen(a, p); err != nil {
		return nil, err
	}
	return p, nil
}

// importsUE5 fills the import map, the imported packages and the imported
// public export hashes (ProcessImports).
func (s *source) importsUE5(p *zen.Package, r rules) error {
	a := s.a
	type pkgRef struct {
		name zen.PackageName
		id   zen.PackageID
	}
	seen := map[string]bool{}
	var pkgs []pkgRef
	for i, im := range s.imports {
		if r.verseImports && !im.script && strings.Contains(im.fullName, "/_verse/vni") {
			return errorf(s.file, importLabel(a, i), ErrNotConvertible,
				"%s is a Verse native import: whether it is a script object only the game's script objects (global.utoc) can tell", im.fullName)
		}
		if im.script || !im.isPackage {
			continue
		}
		key := lowerASCII(a.NameOf(im.fromPackage))
		if seen[key] {
			continue
		}
		seen[key] = true
		pkgs = append(pkgs, pkgRef{zen.PackageName{Name: a.Names[im.fromPackage.Index].Value, Number: im.fromPackage.Number},
			zen.PackageID(cityhash.PathHash(a.NameOf(im.fromPackage)))})
	}
	slices.SortStableFunc(pkgs, func(x, y pkgRef) int { return cmp.Compare(x.id, y.id) })
	index := map[string]int{}
	for k, pr := range pkgs {
		p.ImportedPackages = append(p.ImportedPackages, pr.name)
		index[lowerASCII(pr.name.String())] = k
	}
	p.Imports = make([]zen.ObjectIndex, len(s.imports))
	for i, im := range s.imports {
		switch {
		case im.script:
			p.Imports[i] = zen.ObjectIndex(cityhash.ScriptImportIndex(im.fullName))
		case im.isPackage:
			p.Imports[i] = zen.NullObject
		default:
			k, ok := index[lowerASCII(a.NameOf(im.fromPackage))]
			rel := im.fullName[im.fromLen:]
			if !ok || len(rel) < 2 {
				return errorf(s.file, importLabel(a, i), ErrUnresolvedImport, "%s names no object inside package %s", im.fullName, a.NameOf(im.fromPackage))
			}
			p.Imports[i] = zen.PackageImportUE5(uint32(k), uint32(len(p.ImportedPublicExportHashes)))
			p.ImportedPublicExportHashes = append(p.ImportedPublicExportHashes, cityhash.PathHash(rel[1:]))
		}
	}
	return nil
}

// objectRef turns a legacy package index into a zen object reference
// through the converted import map.
func (s *source) objectRef(p *zen.Package, x uasset.PackageIndex, where, field string) (zen.ObjectIndex, error) {
	switch {
	case x == 0:
		return zen.NullObject, nil
	case x.IsImport() && x.Import() < len(p.Imports):
		return p.Imports[x.Import()], nil
	case x.IsExport() && x.Export() < len(s.a.Exports):
		return zen.ExportObject(x.Export()), nil
	}
	return 0, errorf(s.file, where, ErrNotConvertible, "%s %d refers outside the %d imports and %d exports", field, x, len(s.a.Imports), len(s.a.Exports))
}

// exportsUE5 fills the export map (ProcessExports) and returns which
// exports are public.
func (s *source) exportsUE5(p *zen.Package) ([]bool, error) {
	a := s.a
	public := make([]bool, len(a.Exports))
	p.Exports = make([]zen.Export, len(a.Exports))
	pkgLen := utf16Len(s.name)
	seen := map[uint64]int{}
	for i, le := range a.Exports {
		where := exportLabel(a, i)
		z := &p.Exports[i]
		z.ObjectFlags = zen.ObjectFlags(le.ObjectFlags)
		z.Data = le.Data
		switch {
		case le.NotForClient:
			z.FilterFlags = 1
		case le.NotForServer:
			z.FilterFlags = 2
		}
		public[i] = le.ObjectFlags&rfPublic != 0 || le.GeneratePublicHash
		if public[i] {
			rel := chopUTF16(s.exports[i], pkgLen)
			if utf16Len(rel) < 2 {
				return nil, errorf(s.file, where, ErrNotConvertible, "a public export needs a name inside the package; its full name is %s", s.exports[i])
			}
			z.PublicExportHash = cityhash.PathHash(chopUTF16(rel, 1))
			if j, dup := seen[z.PublicExportHash]; dup {
				return nil, errorf(s.file, where, ErrNotConvertible, "its public export hash 0x%016x is also export %d's (%s): the engine refuses such a package", z.PublicExportHash, j, s.exports[j])
			}
			seen[z.PublicExportHash] = i
		}
		if err := s.exportRefs(p, z, i); err != nil {
			return nil, err
		}
	}
	return public, nil
}

// exportRefs converts export i's outer, class, super and template.
func (s *source) exportRefs(p *zen.Package, z *zen.Export, i int) error {
	le := &s.a.Exports[i]
	var err error
	for _, f := range []struct {
		dst   *zen.ObjectIndex
		x     uasset.PackageIndex
		field string
	}{{&z.Outer, le.OuterIndex, "OuterIndex"}, {&z.Class, le.ClassIndex, "ClassIndex"}, {&z.Super, le.SuperIndex, "SuperIndex"}, {&z.Template, le.TemplateIndex, "TemplateIndex"}} {
		if *f.dst, err = s.objectRef(p, f.x, exportLabel(s.a, i), f.field); err != nil {
			return err
		}
	}
	return nil
}

// rfPublic is RF_Public.
const rfPublic = 0x1

// dependenciesUE5 turns each export's preload dependencies into its
// dependency bundle and the export graph's edges
// (ProcessPreloadDependencies): per export, its create-before-create,
// serialize-before-create, create-before-serialize and
// serialize-before-serialize dependencies in that order, imports of native
// objects left out.
func (s *source) dependenciesUE5(p *zen.Package, g *graph) error {
	a := s.a
	deps := a.PreloadDependencies
	p.DependencyHeaders = make([]zen.DependencyHeader, len(a.Exports))
	for i, le := range a.Exports {
		g.add(node(i, zen.CommandCreate), node(i, zen.CommandSerialize))
		h := &p.DependencyHeaders[i]
		if le.FirstExportDependency < 0 {
			h.FirstEntry = -1
			continue
		}
		h.FirstEntry = int32(len(p.DependencyEntries))
		first := int64(le.FirstExportDependency)
		sbs, cbs, sbc, cbc := int64(le.SerializationBeforeSerializationDependencies), int64(le.CreateBeforeSerializationDependencies),
			int64(le.SerializationBeforeCreateDependencies), int64(le.CreateBeforeCreateDependencies)
		if sbs < 0 || cbs < 0 || sbc < 0 || cbc < 0 || first+sbs+cbs+sbc+cbc > int64(len(deps)) {
			return errorf(s.file, exportLabel(a, i), ErrNotConvertible,
				"its dependencies (%d from %d) lie outside the %d preload dependencies", sbs+cbs+sbc+cbc, first, len(deps))
		}
		groups := []struct {
			start, n      int64
			from, to      uint32
			countOf       int
			kindForErrors string
		}{
			{first + sbs + cbs + sbc, cbc, zen.CommandCreate, zen.CommandCreate, 0, "create-before-create"},
			{first + sbs + cbs, sbc, zen.CommandSerialize, zen.CommandCreate, 1, "serialize-before-create"},
			{first + sbs, cbs, zen.CommandCreate, zen.CommandSerialize, 2, "create-before-serialize"},
			{first, sbs, zen.CommandSerialize, zen.CommandSerialize, 3, "serialize-before-serialize"},
		}
		for _, gr := range groups {
			for _, d := range deps[gr.start : gr.start+gr.n] {
				switch {
				case d.IsExport() && d.Export() < len(a.Exports):
					g.add(node(d.Export(), gr.from), node(i, gr.to))
				case d.IsImport() && d.Import() < len(p.Imports):
					if p.Imports[d.Import()].Kind() == zen.KindScriptImport {
						continue
					}
				default:
					return errorf(s.file, exportLabel(a, i), ErrNotConvertible,
						"a %s dependency is package index %d, outside the %d imports and %d exports", gr.kindForErrors, d, len(a.Imports), len(a.Exports))
				}
				p.DependencyEntries = append(p.DependencyEntries, int32(d))
				h.Counts[gr.countOf]++
			}
		}
	}
	return nil
}

// utf16Len returns the length of s in UTF-16 code units (TCHARs).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// chopUTF16 drops the first n UTF-16 code units of s (FStringView::RightChop).
func chopUTF16(s string, n int) string {
	for i, r := range s {
		if n <= 0 {
			return s[i:]
		}
		n -= utf16.RuneLen(r)
	}
	return ""
}
