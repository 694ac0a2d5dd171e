package props

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
)

// Resolver names the object references (FPackageIndex values) of one zen
// package's export data and turns object paths back into references.
type Resolver struct {
	p     *zen.Package
	names *zen.Resolver
}

// NewResolver returns the Resolver of package p. names names the objects p
// refers to (script imports from the game's global script objects, package
// imports from the imported packages); nil names what the package alone
// can: its exports, and imports whose paths its own names spell.
func NewResolver(p *zen.Package, names *zen.Resolver) *Resolver {
	return &Resolver{p: p, names: names}
}

// Name returns the object an FPackageIndex refers to, for display:
// "None", Class'Path' for an export, the path of an import (or what is
// known of it, see zen.Resolver.Object), or "<bad import 12>" for an index
// outside the maps.
func (r *Resolver) Name(index int32) string {
	v := Object(index)
	if i, ok := v.Export(); ok {
		if i >= len(r.p.Exports) {
			return fmt.Sprintf("<bad export %d>", i)
		}
		path := r.p.ExportPath(i)
		if class := r.names.ClassName(r.p, i); !strings.ContainsAny(class, " <") {
			return class + "'" + path + "'"
		}
		return path
	}
	if i, ok := v.Import(); ok {
		if i >= len(r.p.Imports) {
			return fmt.Sprintf("<bad import %d>", i)
		}
		return r.names.Object(r.p, r.p.Imports[i])
	}
	return "None"
}

// Index turns what a user wrote for an object reference into an
// FPackageIndex: "None" (0); a number (taken as is); or an object path,
// optionally in Class'Path' form, naming an export of the package (its
// full path, its path inside the package, or its name when unique) or an
// import (a script object such as /Script/Engine.Texture2D; a UE 4.26/4.27
// package import by its full path; a UE5 package import by package name
// and object path, /Game/Dir/Asset.Asset). Import paths are matched by
// their hash, as the import map stores them.
func (r *Resolver) Index(text string) (int32, error) {
	s := strings.TrimSpace(text)
	if s == "" || strings.EqualFold(s, "None") || strings.EqualFold(s, "null") {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 0, 32); err == nil {
		return int32(n), nil
	}
	if i := strings.IndexByte(s, '\''); i > 0 && strings.HasSuffix(s, "'") && len(s) > i+1 {
		s = s[i+1 : len(s)-1]
	}
	// Exports: full path, relative path (with '.' or ':' between the
	// names), or unique name.
	dots := strings.ReplaceAll(s, ":", ".")
	var byName []int
	for i := range r.p.Exports {
		if strings.EqualFold(strings.ReplaceAll(r.p.ExportPath(i), ":", "."), dots) || strings.EqualFold(r.p.RelativePath(i, "."), dots) {
			return int32(i + 1), nil
		}
		if strings.EqualFold(r.p.ExportName(i), s) {
			byName = append(byName, i)
		}
	}
	if len(byName) == 1 {
		return int32(byName[0] + 1), nil
	}
	if len(byName) > 1 {
		return 0, fmt.Errorf("object %q: %d exports have that name; give the full path: %w", text, len(byName), ErrNotFound)
	}
	want := []zen.ObjectIndex{zen.ObjectIndex(cityhash.ScriptImportIndex(s))}
	if r.p.Layout < zen.LayoutUE50 {
		want = append(want, zen.ObjectIndex(cityhash.PackageImportIndex(s)))
	}
	for i, imp := range r.p.Imports {
		for _, w := range want {
			if imp == w {
				return int32(-i - 1), nil
			}
		}
	}
	if r.p.Layout >= zen.LayoutUE50 {
		if i, ok := r.ue5PackageImport(s); ok {
			return int32(-i - 1), nil
		}
	}
	return 0, fmt.Errorf("object %q is neither an export nor an import of %s: %w", text, r.p.PackageName(), ErrNotFound)
}

// ue5PackageImport finds a UE5 package import by its path: the package
// name, then the object's path inside it.
func (r *Resolver) ue5PackageImport(path string) (int, bool) {
	pkgName, rel, ok := strings.Cut(path, ".")
	if !ok {
		return 0, false
	}
	hash := cityhash.PublicExportHash(rel)
	for i, imp := range r.p.Imports {
		pkg, h, ok := imp.PackageImport()
		if !ok || int64(h) >= int64(len(r.p.ImportedPublicExportHashes)) || r.p.ImportedPublicExportHashes[h] != hash {
			continue
		}
		// 5.0–5.2 packages do not name their imported packages; the
		// export hash alone must do.
		if len(r.p.ImportedPackages) == 0 ||
			int64(pkg) < int64(len(r.p.ImportedPackages)) && strings.EqualFold(r.p.ImportedPackages[pkg].String(), pkgName) {
			return i, true
		}
	}
	return 0, false
}
