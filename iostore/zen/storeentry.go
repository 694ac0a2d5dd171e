package zen

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
)

// ErrNeedsBaseEntry is returned (wrapped) by StoreEntry when a field of the
// store entry cannot be derived from the package alone and no base entry
// was given: the 5.0–5.2 imported package ids, which only the container
// header holds.
var ErrNeedsBaseEntry = errors.New("the store entry needs the package's entry from its original container header")

// StoreEntry derives the package's store entry for a container header of
// version v, as the engine's cooker writes it (docs/zen.md §9):
//
//   - UE 4.26/4.27: ExportBundlesSize (the package chunk's size), the
//     export and bundle counts, and the imported packages: the packages of
//     the package imports in import-map order, found from the paths the
//     package's names spell, then any other package of the graph data.
//   - UE 5.0–5.2: the export and bundle counts; the imported package ids
//     are not in the package and come from base.
//   - UE 5.3+: the imported packages are the hashes of the package's
//     ImportedPackages names.
//
// What no package holds comes from base, the package's entry in the
// container it was taken from, when base is not nil: the UE4 LoadOrder (a
// game-wide order the cooker computes) and UE5 shader map hashes. A base
// whose imported packages disagree with the package is not used for them.
func (p *Package) StoreEntry(v HeaderVersion, base *StoreEntry) (StoreEntry, error) {
	e := StoreEntry{PackageID: p.ID()}
	if base != nil {
		e.LoadOrder = base.LoadOrder
		e.ShaderMapHashes = base.ShaderMapHashes
	}
	if v == HeaderUE4 {
		e.ExportBundlesSize = uint64(p.size)
	}
	if v.hasExportInfo() {
		e.ExportCount = int32(len(p.Exports))
		e.ExportBundleCount = int32(len(p.Bundles))
		if p.Layout.hasDependencies() {
			e.ExportBundleCount = 1
		}
	}
	switch {
	case p.Layout.hasDependencies():
		e.ImportedPackages = make([]PackageID, len(p.ImportedPackages))
		for k, n := range p.ImportedPackages {
			e.ImportedPackages[k] = PackageIDFromName(n.String())
		}
	case p.Layout.IsUE5():
		if base == nil {
			return e, fmt.Errorf("%s: %w", p.PackageName(), ErrNeedsBaseEntry)
		}
		if len(base.ImportedPackages) != len(p.ExternalArcs) {
			return e, fmt.Errorf("%s: the original store entry lists %d imported packages, the package's graph data %d", p.PackageName(), len(base.ImportedPackages), len(p.ExternalArcs))
		}
		e.ImportedPackages = base.ImportedPackages
	default:
		e.ImportedPackages = p.importedPackagesUE4()
		if base != nil && sameSet(base.ImportedPackages, e.ImportedPackages) {
			e.ImportedPackages = base.ImportedPackages
		}
	}
	return e, nil
}

// importedPackagesUE4 lists the packages a 4.26/4.27 package imports: the
// package of each package import whose path the package's names spell
// (cooked packages keep the names of what they import), in import-map
// order, then the graph packages not found that way, in graph order.
func (p *Package) importedPackagesUE4() []PackageID {
	var ids []PackageID
	seen := map[PackageID]bool{}
	add := func(id PackageID) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var pkgs []string
	for _, n := range p.Names {
		if len(n) > 1 && n[0] == '/' && !strings.HasPrefix(n, "/Script/") && CheckPackageName(n) == nil {
			pkgs = append(pkgs, n)
		}
	}
	if len(pkgs)*len(p.Names) <= maxGuesses {
		// One hash per package and object name pair: index the imports.
		want := make(map[ObjectIndex]int, len(p.Imports))
		for k, x := range p.Imports {
			if x.Kind() == KindPackageImport {
				want[x] = k
			}
		}
		found := make(map[int]string, len(want))
		for _, pkg := range pkgs {
			for _, obj := range p.Names {
				if len(found) == len(want) {
					break
				}
				if k, ok := want[ObjectIndex(cityhash.PackageImportIndex(pkg+"."+obj))]; ok {
					found[k] = pkg
				}
			}
		}
		for k := range p.Imports {
			if pkg, ok := found[k]; ok {
				add(PackageIDFromName(pkg))
			}
		}
	}
	for _, g := range p.Graph {
		add(g.Package)
	}
	return ids
}

func sameSet(a, b []PackageID) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
