package zen

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
)

// Resolver names the objects a zen package refers to. Exports are named by
// their paths in the package. Script imports need the game's global script
// objects (Script); without them they stay hashes. Package imports need the
// imported package's name, which 5.3+ packages hold themselves and older
// ones leave to the container header's store entry (Entry), and, to name
// the object inside it, the imported package (Package); what cannot be
// found is shown as the hash or index the package stores.
type Resolver struct {
	// Script holds the global script objects, or nil.
	Script *ScriptObjects
	// Entry returns the store entry of the package with id, or nil.
	Entry func(id PackageID) *StoreEntry
	// Package returns the decoded package with id, or nil when it is not
	// at hand.
	Package func(id PackageID) *Package
}

// Object returns the full path of the object x refers to from package p:
// "/Script/Engine.Actor", "/Game/Maps/Arena.Arena:PersistentLevel", or for
// what cannot be resolved a form that says what is known
// ("ScriptImport 0x…", "/Game/Other.<public export 0x…>"). Null is "None".
func (r *Resolver) Object(p *Package, x ObjectIndex) string {
	switch x.Kind() {
	case KindNull:
		return "None"
	case KindExport:
		if i, ok := x.Export(); ok && i < len(p.Exports) {
			return p.ExportPath(i)
		}
		return fmt.Sprintf("Export %d (not in the package)", x.Value())
	case KindScriptImport:
		if r != nil && r.Script != nil {
			if s, ok := r.Script.Path(x); ok {
				return s
			}
		}
		// Cooked packages keep the names of the script packages and
		// classes they import: try the /Script/ paths the names spell.
		if s := guessScriptPath(p, x); s != "" {
			return s
		}
		return "ScriptImport " + x.String()
	}
	return r.packageImport(p, x)
}

// packageImport names a PackageImport reference.
func (r *Resolver) packageImport(p *Package, x ObjectIndex) string {
	if !p.Layout.IsUE5() {
		// 4.26/4.27: the hash of the object's full path; find it among
		// the public exports of the packages this one imports, or among
		// the paths the package's own names spell (cooked packages keep
		// the names of what they import).
		if q, i := r.findGlobalImport(p, x); q != nil {
			return q.ExportPath(i)
		}
		isPackage := func(n string) bool { return len(n) > 1 && n[0] == '/' && CheckPackageName(n) == nil }
		if s := guessPath(p, isPackage, func(path string) bool { return ObjectIndex(cityhash.PackageImportIndex(path)) == x }); s != "" {
			return s
		}
		return "PackageImport " + x.String()
	}
	pkg, hash, _ := x.PackageImport()
	name := fmt.Sprintf("imported package %d", pkg)
	var id PackageID
	var known bool
	if int(pkg) < len(p.ImportedPackages) {
		name = p.ImportedPackages[pkg].String()
		id, known = PackageIDFromName(name), true
	} else if ids := r.importedIDs(p); int(pkg) < len(ids) {
		id, known = ids[pkg], true
		name = id.String()
	}
	if int(hash) >= len(p.ImportedPublicExportHashes) {
		return fmt.Sprintf("%s.<public export %d, not in the package>", name, hash)
	}
	h := p.ImportedPublicExportHashes[hash]
	if known {
		if q := r.pkg(id); q != nil {
			name = q.PackageName()
			for i, e := range q.Exports {
				if e.PublicExportHash == h {
					return q.ExportPath(i)
				}
			}
		}
	}
	if known {
		for _, n := range p.Names {
			if cityhash.PublicExportHash(n) == h {
				return name + "." + n
			}
		}
	}
	return fmt.Sprintf("%s.<public export 0x%016x>", name, h)
}

// guessScriptPath returns the script object path /Script/Module or
// /Script/Module.Object, spelled by names of p, whose hash is x, or "".
func guessScriptPath(p *Package, x ObjectIndex) string {
	isModule := func(n string) bool { return strings.HasPrefix(n, "/Script/") && !strings.ContainsAny(n, ".:") }
	for _, n := range p.Names {
		if isModule(n) && ScriptObject(n) == x {
			return n
		}
	}
	return guessPath(p, isModule, func(path string) bool { return ScriptObject(path) == x })
}

// maxGuesses bounds the package-and-object pairs guessPath hashes.
const maxGuesses = 1 << 20

// guessPath returns the path package.object, both names of p's name map
// and the package one isPackage accepts, for which match is true, or "":
// the names of imported packages and objects stay in a cooked package's
// name map.
func guessPath(p *Package, isPackage func(string) bool, match func(path string) bool) string {
	var pkgs []string
	for _, n := range p.Names {
		if isPackage(n) {
			pkgs = append(pkgs, n)
		}
	}
	if len(pkgs)*len(p.Names) > maxGuesses {
		return ""
	}
	for _, pkg := range pkgs {
		for _, obj := range p.Names {
			if path := pkg + "." + obj; match(path) {
				return path
			}
		}
	}
	return ""
}

// importedIDs returns the store entry's imported package ids for p.
func (r *Resolver) importedIDs(p *Package) []PackageID {
	if r == nil || r.Entry == nil {
		return nil
	}
	if e := r.Entry(p.ID()); e != nil {
		return e.ImportedPackages
	}
	return nil
}

func (r *Resolver) pkg(id PackageID) *Package {
	if r == nil || r.Package == nil {
		return nil
	}
	return r.Package(id)
}

// findGlobalImport finds the 4.26/4.27 export whose GlobalImportIndex is x
// among the packages p imports (its store entry's, or its graph data's).
func (r *Resolver) findGlobalImport(p *Package, x ObjectIndex) (*Package, int) {
	ids := r.importedIDs(p)
	for _, g := range p.Graph {
		ids = append(ids, g.Package)
	}
	for _, id := range ids {
		q := r.pkg(id)
		if q == nil {
			continue
		}
		for i, e := range q.Exports {
			if ObjectIndex(e.PublicExportHash) == x {
				return q, i
			}
		}
	}
	return nil, 0
}

// ClassName returns the short name of export i's class: the last part of
// its path ("BlueprintGeneratedClass", "BP_Crate_C"), or the hash form when
// it cannot be resolved.
func (r *Resolver) ClassName(p *Package, i int) string {
	return ShortName(r.Object(p, p.Exports[i].Class))
}

// ShortName returns the last name of an object path: what follows the last
// '.', ':' or '/'. Unresolved forms ("ScriptImport 0x…") are kept whole.
func ShortName(path string) string {
	if strings.ContainsAny(path, " <") {
		return path
	}
	return path[strings.LastIndexAny(path, ".:/")+1:]
}
