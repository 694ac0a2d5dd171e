package convert

import (
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
)

// toUE4 converts for UE 4.26/4.27 as IoStoreUtilities does: every name
// kept, imports and public exports as path hashes, export bundles in load
// order, and arcs from the bundles of the packages whose exports the
// preload dependencies name; the package is converted as a set of one.
func (s *source) toUE4(o Options) (*zen.Package, error) {
	u, err := s.prepareUE4()
	if err != nil {
		return nil, err
	}
	out, err := setUE4([]*ue4Package{u}, o)
	if err != nil {
		return nil, err
	}
	return out[0].Package, nil
}

// prepareUE4 converts what of a 4.26/4.27 package is its own: names,
// imports, exports and the internal arcs of its export graph.
func (s *source) prepareUE4() (*ue4Package, error) {
	a, sum := s.a, &s.a.Summary
	p := &zen.Package{
		Layout:           zen.LayoutUE4,
		PackageFlags:     zen.PackageFlags(sum.PackageFlags),
		CookedHeaderSize: uint32(sum.TotalHeaderSize),
	}
	// ParsePackageAssets adds every name; FinalizeNameMaps then marks the
	// package and source names, which are appended when missing. The
	// builder compares names without case (it keys on the comparison id).
	names := newFoldedNameMap(len(a.Names) + 2)
	for _, n := range a.Names {
		names.add(n.Value)
	}
	source := sourcePackageName(s.name)
	base, num := splitName(s.name)
	p.Name = names.ref(base, num)
	sbase, snum := splitName(source)
	p.SourceName = names.ref(sbase, snum)
	p.Names = names.names

	// CreateGlobalImportsAndExports: script objects and other packages'
	// objects by path hash, packages themselves null.
	p.Imports = make([]zen.ObjectIndex, len(s.imports))
	for i, im := range s.imports {
		switch {
		case im.script:
			p.Imports[i] = zen.ObjectIndex(cityhash.ScriptImportIndex(im.fullName))
		case im.isPackage:
			p.Imports[i] = zen.NullObject
		default:
			p.Imports[i] = zen.ObjectIndex(cityhash.PackageImportIndex(im.fullName))
		}
	}

	// FindExport and FinalizePackageHeaders: a public export's global
	// import index is the hash of its full name; outers must be exports.
	p.Exports = make([]zen.Export, len(a.Exports))
	seen := map[uint64]int{}
	for i, le := range a.Exports {
		where := exportLabel(a, i)
		if le.OuterIndex.IsImport() {
			return nil, errorf(s.file, where, ErrNotConvertible, "its outer is an import: a 4.26/4.27 package names every export from its own package")
		}
		z := &p.Exports[i]
		on := le.ObjectName
		z.ObjectName = names.ref(a.Names[on.Index].Value, on.Number)
		z.ObjectFlags = zen.ObjectFlags(le.ObjectFlags)
		z.Data = le.Data
		switch {
		case le.NotForClient:
			z.FilterFlags = 1
		case le.NotForServer:
			z.FilterFlags = 2
		}
		z.PublicExportHash = uint64(zen.NullObject)
		if le.ObjectFlags&rfPublic != 0 {
			h := cityhash.PackageImportIndex(s.exports[i])
			if j, dup := seen[h]; dup {
				return nil, errorf(s.file, where, ErrNotConvertible, "its global import index 0x%016x is also export %d's (%s): the engine refuses such a package", h, j, s.exports[j])
			}
			seen[h] = i
			z.PublicExportHash = h
		}
		if err := s.exportRefs(p, z, i); err != nil {
			return nil, err
		}
	}

	// AddPreloadDependencies: internal arcs order the package's nodes; a
	// dependency on another package's object is kept for the set's pass
	// (setUE4), which gives it an arc from that package's bundle.
	u := &ue4Package{s: s, p: p, id: zen.PackageIDFromName(s.name), g: newGraph(make([]bool, len(a.Exports)))}
	for _, im := range s.imports {
		if im.isPackage && !im.script {
			u.imported = append(u.imported, zen.PackageIDFromName(a.NameOf(im.fromPackage)))
		}
	}
	deps := a.PreloadDependencies
	for i, le := range a.Exports {
		u.g.add(node(i, zen.CommandCreate), node(i, zen.CommandSerialize))
		if le.FirstExportDependency < 0 || sum.PreloadDependencyCount < 0 {
			continue
		}
		first := int64(le.FirstExportDependency)
		runs := []struct {
			n        int32
			from, to uint32
		}{
			{le.SerializationBeforeSerializationDependencies, zen.CommandSerialize, zen.CommandSerialize},
			{le.CreateBeforeSerializationDependencies, zen.CommandCreate, zen.CommandSerialize},
			{le.SerializationBeforeCreateDependencies, zen.CommandSerialize, zen.CommandCreate},
			{le.CreateBeforeCreateDependencies, zen.CommandCreate, zen.CommandCreate},
		}
		total := int64(0)
		for _, r := range runs {
			if r.n < 0 {
				total = -1 << 40
				break
			}
			total += int64(r.n)
		}
		if total < 0 || first+total > int64(len(deps)) {
			return nil, errorf(s.file, exportLabel(a, i), ErrNotConvertible,
				"its dependencies (%d from %d) lie outside the %d preload dependencies", total, first, len(deps))
		}
		at := first
		for _, r := range runs {
			for _, d := range deps[at : at+int64(r.n)] {
				switch {
				case d.IsExport() && d.Export() < len(a.Exports):
					u.g.add(node(d.Export(), r.from), node(i, r.to))
				case d.IsImport() && d.Import() < len(a.Imports):
					if p.Imports[d.Import()].Kind() != zen.KindPackageImport {
						continue
					}
					im := s.imports[d.Import()]
					u.deps = append(u.deps, importDep{
						to:    node(i, r.to),
						from:  r.from,
						index: p.Imports[d.Import()],
						pkg:   zen.PackageIDFromName(a.NameOf(im.fromPackage)),
					})
				default:
					return nil, errorf(s.file, exportLabel(a, i), ErrNotConvertible,
						"a preload dependency is package index %d, outside the %d imports and %d exports", d, len(a.Imports), len(a.Exports))
				}
			}
			at += int64(r.n)
		}
	}
	if err := streamZen(a, p); err != nil {
		return nil, err
	}
	return u, nil
}

// sourcePackageName returns the package a localized package stands in
// for: the name without its /L10N/<culture> part
// (RemapLocalizationPathIfNeeded); other names are their own source.
func sourcePackageName(name string) string {
	i := strings.Index(strings.ToLower(name), "/l10n/")
	if i < 0 {
		return name
	}
	rest := name[i+len("/l10n/"):]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return name
	}
	return name[:i] + rest[j:]
}
