// Package zenprops is the zen package's side of the property codec
// (package props): it fills a props.Context from an export of a
// *zen.Package (its names, file version, custom versions and object
// references) and names and resolves the package's object references, so
// that package props needs nothing of package zen.
package zenprops

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/props/pkgschema"
	"github.com/unrmod/unrmod/usmap"
)

// fortniteMainGUID is FFortniteMainBranchObjectVersion's custom version key.
var fortniteMainGUID = zen.GUID{0x601D1886, 0xAC644F84, 0xAA16D3DE, 0x0DEAC7D6}

// RF_ClassDefaultObject.
const flagClassDefaultObject = 0x10

// ContextFor returns the Context of export i of package p: its name map,
// its UE5 file version and custom versions, and whether the export is a
// class default object. AddName appends to p.Names (and the Context's
// Names), so a change that needs a new name changes the package's name
// map; ResolveObject and ObjectName resolve p's exports and imports
// (NewResolver(p, nil)). Packages cooked with unversioned properties are
// refused with props.ErrUnversioned.
func ContextFor(p *zen.Package, i int) (*props.Context, error) {
	return ContextWith(p, nil, i, nil)
}

// ContextWith is ContextFor with the game's property schema m, which a
// package cooked with unversioned properties needs (nil refuses such a
// package with props.ErrUnversioned; a tagged package ignores m). r names
// the export's class, whose schema the export's list follows; nil names
// what the package alone can.
//
// For a class, struct or enum the mappings lack (a Blueprint class, a
// user-defined struct or enum), the schema is read from the package that
// defines it (package props/pkgschema): p itself, or a package r finds
// (Resolver.Package) — SchemaSource says how.
func ContextWith(p *zen.Package, r *zen.Resolver, i int, m *usmap.Mappings) (*props.Context, error) {
	ctx, err := contextWith(p, r, i, m)
	if err != nil || ctx.Schema == nil {
		return ctx, err
	}
	ctx.Schema = m.With(SchemaSource(p, r, m))
	return ctx, nil
}

// contextWith is ContextWith without the package's own schemas.
func contextWith(p *zen.Package, r *zen.Resolver, i int, m *usmap.Mappings) (*props.Context, error) {
	unversioned := p.PackageFlags&zen.FlagUnversionedProperties != 0
	if unversioned && m == nil {
		return nil, fmt.Errorf("%s: %w", p.PackageName(), props.ErrUnversioned)
	}
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("%s: no export %d (%d exports): %w", p.PackageName(), i, len(p.Exports), props.ErrNotFound)
	}
	ctx := &props.Context{
		Names:          p.Names,
		FileVersionUE5: p.FileVersionUE5(),
		Object:         true,
		CDO:            p.Exports[i].ObjectFlags&flagClassDefaultObject != 0,
		Imports:        len(p.Imports),
		Exports:        len(p.Exports),
	}
	ctx.UTF8SubPaths = utf8SubPaths(p)
	ctx.AddName = func(name string) (int32, error) {
		if name == "" {
			return 0, fmt.Errorf("cannot add an empty name: %w", props.ErrType)
		}
		if len(p.Names) >= 1<<30 {
			return 0, fmt.Errorf("the name map is full: %w", props.ErrRange)
		}
		p.Names = append(p.Names, name)
		ctx.Names = p.Names
		return int32(len(p.Names) - 1), nil
	}
	res := NewResolver(p, r)
	ctx.ResolveObject, ctx.ObjectName = res.Index, res.Name
	if unversioned {
		ctx.Schema = m
		ctx.Class = usmap.ShortName(r.ClassName(p, i))
	}
	return ctx, nil
}

// SchemaSource returns the schemas of the Blueprint classes, user-defined
// structs and user-defined enums package p defines, and of those they
// derive from or refer to that the packages r finds define (nil r: p's
// own only), for m.With. The definitions' own property lists are read
// with m.
func SchemaSource(p *zen.Package, r *zen.Resolver, m *usmap.Mappings) *pkgschema.Source {
	if r == nil {
		r = &zen.Resolver{}
	}
	var load pkgschema.Loader
	if r.Package != nil {
		load = func(name string) (pkgschema.Package, error) {
			if q := r.Package(zen.PackageIDFromName(name)); q != nil {
				return &schemaPackage{q, r}, nil
			}
			return nil, nil
		}
	}
	return pkgschema.NewSource(&schemaPackage{p, r}, m, load)
}

// schemaPackage is a zen package as package pkgschema sees it.
type schemaPackage struct {
	p *zen.Package
	r *zen.Resolver
}

func (s *schemaPackage) Name() string             { return s.p.PackageName() }
func (s *schemaPackage) NumExports() int          { return len(s.p.Exports) }
func (s *schemaPackage) ExportName(i int) string  { return s.p.ExportName(i) }
func (s *schemaPackage) ExportClass(i int) string { return s.r.ClassName(s.p, i) }
func (s *schemaPackage) ExportData(i int) []byte  { return s.p.Exports[i].Data }

func (s *schemaPackage) Context(i int, m *usmap.Mappings) (*props.Context, error) {
	return contextWith(s.p, s.r, i, m)
}

func (s *schemaPackage) Object(index int32) string {
	v := props.Object(index)
	if i, ok := v.Export(); ok && i < len(s.p.Exports) {
		return s.p.ExportPath(i)
	}
	if i, ok := v.Import(); ok && i < len(s.p.Imports) {
		return s.r.Object(s.p, s.p.Imports[i])
	}
	return "None"
}

func (s *schemaPackage) Options() pkgschema.Options {
	o := pkgschema.Options{Names: s.p.Names, Imports: len(s.p.Imports), Exports: len(s.p.Exports), File: s.p.PackageName()}
	switch {
	case s.p.PackageFlags&zen.FlagFilterEditorOnly == 0 || s.p.FileVersionUE5() < ue57FileVersion:
		// Editor data keeps the FField flags, and every release before
		// 5.8 stores them.
		o.Flags = pkgschema.FlagsStored
	default:
		// 5.7 and 5.8 share a file version; only 5.8 cooks drop them.
		o.Flags = pkgschema.FlagsUnknown
	}
	return o
}

// ue57FileVersion is the UE5 file version of UE 5.7 and 5.8 packages.
const ue57FileVersion = 1018

// utf8SubPaths tells from the package's custom versions, or else from its
// layout, whether soft object sub paths are UTF-8.
func utf8SubPaths(p *zen.Package) bool {
	if p.Versioning != nil {
		for _, cv := range p.Versioning.CustomVersions {
			if cv.Key == fortniteMainGUID {
				return cv.Version >= props.SoftObjectPathUTF8Version
			}
		}
		return false
	}
	return p.Layout >= zen.LayoutUE56
}

// DecodeExport reads export i of p as properties: with DecodeDataTable
// when it is a DataTable (IsDataTable, classes named through r, which may
// be nil), else with props.Decode. Packages cooked with unversioned properties
// are refused with ErrUnversioned.
func DecodeExport(p *zen.Package, r *zen.Resolver, i int) (*props.Export, error) {
	return DecodeExportWith(p, r, i, nil)
}

// DecodeExportWith is DecodeExport with the game's property schema m,
// which packages cooked with unversioned properties need (see
// ContextWith).
func DecodeExportWith(p *zen.Package, r *zen.Resolver, i int, m *usmap.Mappings) (*props.Export, error) {
	ctx, err := ContextWith(p, r, i, m)
	if err != nil {
		return nil, err
	}
	e := &props.Export{Context: ctx}
	if IsDataTable(p, r, i) {
		if e.Table, err = props.DecodeDataTable(p.Exports[i].Data, ctx); err != nil {
			return nil, err
		}
		e.Properties, e.Rest = e.Table.Properties, e.Table.Rest
		return e, nil
	}
	if e.Properties, err = props.Decode(p.Exports[i].Data, ctx); err != nil {
		return nil, err
	}
	e.Rest = e.Properties.Rest
	return e, nil
}

// IsDataTable reports whether export i of p is a DataTable (or a
// CompositeDataTable, or a class whose name ends in DataTable), whose rows
// follow its properties: DecodeDataTable reads it. r names the export's
// class; nil recognizes only the engine's two classes.
func IsDataTable(p *zen.Package, r *zen.Resolver, i int) bool {
	c := p.Exports[i].Class
	if c == zen.ScriptObject("/Script/Engine.DataTable") || c == zen.ScriptObject("/Script/Engine.CompositeDataTable") {
		return true
	}
	if r == nil {
		r = &zen.Resolver{}
	}
	return strings.HasSuffix(r.ClassName(p, i), "DataTable")
}

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
	v := props.Object(index)
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
		return 0, fmt.Errorf("object %q: %d exports have that name; give the full path: %w", text, len(byName), props.ErrNotFound)
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
	return 0, fmt.Errorf("object %q is neither an export nor an import of %s: %w", text, r.p.PackageName(), props.ErrNotFound)
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
