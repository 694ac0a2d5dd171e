// Package assetprops is the cooked asset's side of the property codec
// (package props): it fills a props.Context from an export of a
// *uasset.Package (its name map, its UE5 file version, its custom versions
// and its object references), decodes an export's properties and a
// DataTable's rows, and sets a property in a cooked asset, keeping the
// header right (new names with their hashes, the count of names the
// export data uses, the export's script serialization range). Package
// uasset keeps export data raw and imports nothing of props; this package
// is what ties them together, as iostore/zen/zenprops does for zen
// packages.
//
// Object references (FPackageIndex values) are named by their full
// paths, as zenprops names them: an import by the path its outer chain
// spells ("/Script/Engine.Texture2D", "/Game/UI/T_Icon.T_Icon"), an export
// as Class'/Game/Pkg.Object'. So the properties of a cooked asset and of
// the zen package made from it read the same.
package assetprops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/props/pkgschema"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/usmap"
)

// fortniteMainGUID is FFortniteMainBranchObjectVersion's custom version key
// (601D1886-AC644F84-AA16D3DE-0DEAC7D6), as a summary stores it: four
// little-endian uint32s.
var fortniteMainGUID = uasset.GUID{
	0x86, 0x18, 0x1D, 0x60, 0x84, 0x4F, 0x64, 0xAC,
	0xDE, 0xD3, 0x16, 0xAA, 0xD6, 0xC7, 0xEA, 0x0D,
}

// RF_ClassDefaultObject.
const flagClassDefaultObject = 0x10

// ue5NamesReferencedFromExportData is the UE5 file version (1001) from
// which the summary counts the names the export data uses.
const ue5NamesReferencedFromExportData = 1001

// ContextFor returns the Context of export i of p: the names its export
// data may use (the first NamesReferencedFromExportDataCount names from
// UE5 file version 1001 on, else the whole map); its UE5 file version (the
// file's own, or its release's for an unversioned cook); whether soft
// object sub paths are UTF-8 (from the Fortnite main branch custom
// version, or for a cook without custom versions from its release, 5.6
// and later); whether the export is a class default object; and the
// import and export counts. AddName is AddName on p; ResolveObject and
// ObjectName are NewResolver(p, "")'s. Packages cooked with unversioned
// properties are refused with props.ErrUnversioned; an unversioned file
// whose detected release is ambiguous where the property format differs,
// with uasset.ErrUnsupportedVersion (decode it with
// uasset.Options.Release).
func ContextFor(p *uasset.Package, i int) (*props.Context, error) {
	return ContextWith(p, i, nil)
}

// ContextWith is ContextFor with the game's property schema m, which an
// asset cooked with unversioned properties needs (nil refuses such an
// asset with props.ErrUnversioned; a tagged asset ignores m): the
// export's list then follows its class's schema. For a class, struct or
// enum the mappings lack (a Blueprint class, a user-defined struct or
// enum), the schema is read from p when p defines it (package
// props/pkgschema); one another package defines is refused with
// usmap.ErrMissing naming that package, unless m already has a source for
// it (m.With(SchemaSource(other, m, load))).
func ContextWith(p *uasset.Package, i int, m *usmap.Mappings) (*props.Context, error) {
	ctx, err := contextWith(p, i, m)
	if err != nil || ctx.Schema == nil {
		return ctx, err
	}
	ctx.Schema = m.With(SchemaSource(p, m, nil))
	return ctx, nil
}

// contextWith is ContextWith without the package's own schemas.
func contextWith(p *uasset.Package, i int, m *usmap.Mappings) (*props.Context, error) {
	unversioned := p.UnversionedProperties()
	if unversioned && m == nil {
		return nil, fmt.Errorf("%s: %w", p.FileName, props.ErrUnversioned)
	}
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("%s: no export %d (%d exports): %w", p.FileName, i, len(p.Exports), props.ErrNotFound)
	}
	if err := checkPropertyVersion(p); err != nil {
		return nil, err
	}
	ctx := &props.Context{
		Names:          dataNames(p),
		FileVersionUE5: p.Version.UE5,
		Object:         true,
		CDO:            p.Exports[i].ObjectFlags&flagClassDefaultObject != 0,
		UTF8SubPaths:   UTF8SubPaths(p),
		Imports:        len(p.Imports),
		Exports:        len(p.Exports),
	}
	ctx.AddName = func(name string) (int32, error) {
		at, err := AddName(p, name)
		if err != nil {
			return 0, err
		}
		ctx.Names = dataNames(p)
		return at, nil
	}
	r := NewResolver(p, "")
	ctx.ResolveObject, ctx.ObjectName = r.Index, r.Name
	if unversioned {
		ctx.Schema, ctx.Class = m, usmap.ShortName(r.ClassName(i))
	}
	return ctx, nil
}

// SchemaSource returns the schemas of the Blueprint classes, user-defined
// structs and user-defined enums asset p defines, and of those they
// derive from or refer to that the assets load returns define (nil load:
// p's own only), for m.With. load is given a package name such as
// "/Game/BP/BP_Base" and returns nil when that asset is not at hand. The
// definitions' own property lists are read with m.
func SchemaSource(p *uasset.Package, m *usmap.Mappings, load func(name string) (*uasset.Package, error)) *pkgschema.Source {
	var l pkgschema.Loader
	if load != nil {
		l = func(name string) (pkgschema.Package, error) {
			q, err := load(name)
			if q == nil || err != nil {
				return nil, err
			}
			return &schemaPackage{q, NewResolver(q, name)}, nil
		}
	}
	return pkgschema.NewSource(&schemaPackage{p, NewResolver(p, "")}, m, l)
}

// schemaPackage is a cooked asset as package pkgschema sees it.
type schemaPackage struct {
	p *uasset.Package
	r *Resolver
}

func (s *schemaPackage) Name() string             { return s.r.pkg }
func (s *schemaPackage) NumExports() int          { return len(s.p.Exports) }
func (s *schemaPackage) ExportName(i int) string  { return s.p.NameOf(s.p.Exports[i].ObjectName) }
func (s *schemaPackage) ExportClass(i int) string { return s.r.ClassName(i) }
func (s *schemaPackage) ExportData(i int) []byte  { return s.p.Exports[i].Data }
func (s *schemaPackage) Object(index int32) string {
	return s.r.Object(uasset.PackageIndex(index))
}

func (s *schemaPackage) Context(i int, m *usmap.Mappings) (*props.Context, error) {
	return contextWith(s.p, i, m)
}

// ue57FileVersion is the UE5 file version of UE 5.7 and 5.8 assets.
const ue57FileVersion = 1018

func (s *schemaPackage) Options() pkgschema.Options {
	o := pkgschema.Options{Names: dataNames(s.p), Imports: len(s.p.Imports), Exports: len(s.p.Exports), File: s.p.FileName}
	rel := s.p.Release
	is58 := rel.Major > 5 || rel.Major == 5 && rel.Minor >= 8
	switch {
	case s.p.Summary.PackageFlags&uasset.PkgFilterEditorOnly == 0 || s.p.Version.UE5 < ue57FileVersion:
		// Editor data keeps the FField flags, and every release before
		// 5.8 stores them.
		o.Flags = pkgschema.FlagsStored
	case s.p.ReleaseDetected:
		// 5.7 and 5.8 share a file version; only 5.8 cooks drop them.
		o.Flags = pkgschema.FlagsUnknown
	case is58:
		o.Flags = pkgschema.FlagsNotStored
	default:
		o.Flags = pkgschema.FlagsStored
	}
	return o
}

// propertyVersions are the UE5 file versions from which the property
// format changes (see props.Context.FileVersionUE5).
var propertyVersions = []int32{props.VersionLargeWorldCoordinates, props.VersionSoftObjectPathTopLevel,
	props.VersionTagExtensions, props.VersionCompleteTypeName}

// propertyFormat returns how many of the property format's changes a UE5
// file version has.
func propertyFormat(v int32) int {
	n := 0
	for _, x := range propertyVersions {
		if v >= x {
			n++
		}
	}
	return n
}

// checkPropertyVersion refuses an unversioned file whose release was
// detected from its header when the releases that fit it write
// properties differently (a 5.2 cook looks like a 5.5 one, but only 5.4
// and later write complete type names): its properties cannot be read
// without knowing the release.
func checkPropertyVersion(p *uasset.Package) error {
	if !p.ReleaseDetected {
		return nil
	}
	want := propertyFormat(p.Version.UE5)
	for _, r := range p.Fitting {
		v, ok := uasset.ReleaseFileVersion(r)
		if ok && propertyFormat(v.UE5) != want {
			return fmt.Errorf("%s: the file records no version and releases %s to %s fit its header, "+
				"which write properties differently (%s: UE5 file version %d, %s: %d); give the release that cooked it: %w",
				p.FileName, p.Fitting[0], p.Fitting[len(p.Fitting)-1], r, v.UE5, p.Release, p.Version.UE5, uasset.ErrUnsupportedVersion)
		}
	}
	return nil
}

// dataNames returns the texts of the names p's export data may use.
func dataNames(p *uasset.Package) []string {
	out := make([]string, exportNames(p))
	for i := range out {
		out[i] = p.Names[i].Value
	}
	return out
}

// UTF8SubPaths reports whether p stores soft object sub paths as UTF-8:
// from its FFortniteMainBranchObjectVersion (192 and later) when the
// summary lists custom versions, else from its release (5.6 and later).
func UTF8SubPaths(p *uasset.Package) bool {
	if len(p.Summary.CustomVersions) > 0 {
		for _, cv := range p.Summary.CustomVersions {
			if cv.Key == fortniteMainGUID {
				return cv.Version >= props.SoftObjectPathUTF8Version
			}
		}
		return false
	}
	r := p.Release
	return r.Major > 5 || r.Major == 5 && r.Minor >= 6
}

// exportNames returns how many names, from the start of p's name map,
// the export data may use: NamesReferencedFromExportDataCount from UE5
// file version 1001 on (a zen conversion keeps only those names), else
// the whole map.
func exportNames(p *uasset.Package) int {
	n := int(p.Summary.NamesReferencedFromExportDataCount)
	if p.Version.UE5 < ue5NamesReferencedFromExportData || n < 0 || n > len(p.Names) {
		return len(p.Names)
	}
	return n
}

// AddName makes name one of the names p's export data may use and returns
// its index; a new entry gets its two hashes (uasset.NewName). Before UE5
// file version 1001 that is any name of the map, and a new name is
// appended. From 1001 on, NamesReferencedFromExportDataCount counts the
// first names of the map, those the export data uses (a zen conversion
// keeps only them); a name must be among them:
//
//   - an export data name is returned as is;
//   - a new name is appended when the count covers the whole map, else it
//     takes the first header-only slot, whose name moves to the end;
//   - a header-only name (an import's name, say) swaps places with the
//     first header-only name;
//
// every import, export and soft package reference follows a name that
// moves, and the count grows by one. When the header holds parts with
// names this package keeps as bytes (soft object paths, searchable names,
// metadata, Verse cells, import type hierarchies, world tile info, an
// opaque soft package reference table), moving a name is refused with
// props.ErrUnsupported.
func AddName(p *uasset.Package, name string) (int32, error) {
	if name == "" {
		return 0, fmt.Errorf("%s: cannot add an empty name: %w", p.FileName, props.ErrType)
	}
	s := &p.Summary
	versioned := p.Version.UE5 >= ue5NamesReferencedFromExportData
	count := int(s.NamesReferencedFromExportDataCount)
	if versioned && (count < 0 || count > len(p.Names)) {
		return 0, fmt.Errorf("%s: NamesReferencedFromExportDataCount %d is outside the %d names: %w",
			p.FileName, count, len(p.Names), uasset.ErrCorrupt)
	}
	have := -1
	for i, n := range p.Names {
		if n.Value == name {
			have = i
			break
		}
	}
	switch {
	case have >= 0 && (!versioned || have < count):
		return int32(have), nil
	case have < 0 && len(p.Names) >= 1<<30:
		return 0, fmt.Errorf("%s: the name map is full: %w", p.FileName, props.ErrRange)
	case have < 0 && (!versioned || count == len(p.Names)):
		p.Names = append(p.Names, p.NewName(name))
		if versioned {
			s.NamesReferencedFromExportDataCount++
		}
		return int32(len(p.Names) - 1), nil
	}
	if why := opaqueNames(p); why != "" {
		return 0, fmt.Errorf("%s: the name %q must be among the names the export data uses (the first %d of %d), "+
			"which moves a header-only name, and the header's %s may refer to it: %w", p.FileName, name, count, len(p.Names), why, props.ErrUnsupported)
	}
	if have < 0 {
		// The name at the first header-only slot moves to the end.
		p.Names = append(p.Names, p.Names[count])
		p.Names[count] = p.NewName(name)
		remapNames(p, int32(count), int32(len(p.Names)-1), -1)
	} else {
		// The header-only name swaps places with the first one.
		p.Names[count], p.Names[have] = p.Names[have], p.Names[count]
		remapNames(p, int32(count), int32(have), int32(count))
	}
	s.NamesReferencedFromExportDataCount++
	return int32(count), nil
}

// remapNames makes the header's references to name a refer to b, and
// those to b (when b2a is b) refer to a.
func remapNames(p *uasset.Package, a, b, b2a int32) {
	remap := func(n *uasset.NameRef) {
		switch n.Index {
		case a:
			n.Index = b
		case b:
			if b2a >= 0 {
				n.Index = b2a
			}
		}
	}
	for k := range p.Imports {
		im := &p.Imports[k]
		remap(&im.ClassPackage)
		remap(&im.ClassName)
		remap(&im.ObjectName)
		remap(&im.PackageName)
	}
	for k := range p.Exports {
		remap(&p.Exports[k].ObjectName)
	}
	for k := range p.SoftPackageReferences {
		remap(&p.SoftPackageReferences[k])
	}
}

// opaqueNames names a header part that may hold FNames this package
// keeps as bytes, or "".
func opaqueNames(p *uasset.Package) string {
	s := &p.Summary
	switch {
	case s.SoftObjectPathsCount > 0:
		return "soft object path list"
	case s.SearchableNamesOffset > 0:
		return "searchable names"
	case s.MetaDataOffset > 0:
		return "metadata"
	case s.CellExportCount > 0 || s.CellImportCount > 0:
		return "Verse cell maps"
	case s.ImportTypeHierarchiesCount > 0:
		return "import type hierarchies"
	case s.WorldTileInfoDataOffset > 0:
		return "world tile info"
	case s.SoftPackageReferencesCount > 0 && p.SoftPackageReferences == nil:
		return "soft package references"
	}
	return ""
}

// IsDataTable reports whether export i of p is a DataTable (its class is
// /Script/Engine.DataTable or CompositeDataTable, or a class whose name
// ends in DataTable), whose rows follow its properties.
func IsDataTable(p *uasset.Package, i int) bool {
	if i < 0 || i >= len(p.Exports) {
		return false
	}
	r := NewResolver(p, "")
	c := r.Object(p.Exports[i].ClassIndex)
	return c == "/Script/Engine.DataTable" || c == "/Script/Engine.CompositeDataTable" || strings.HasSuffix(r.ClassName(i), "DataTable")
}

// DecodeExport reads export i of p as properties: with
// props.DecodeDataTable when it is a DataTable (IsDataTable), else with
// props.Decode. Packages cooked with unversioned properties are refused
// with props.ErrUnversioned.
func DecodeExport(p *uasset.Package, i int) (*props.Export, error) {
	return DecodeExportWith(p, i, nil)
}

// DecodeExportWith is DecodeExport with the game's property schema m,
// which assets cooked with unversioned properties need (see ContextWith).
func DecodeExportWith(p *uasset.Package, i int, m *usmap.Mappings) (*props.Export, error) {
	ctx, err := ContextWith(p, i, m)
	if err != nil {
		return nil, err
	}
	e := &props.Export{Context: ctx}
	data := p.Exports[i].Data
	if IsDataTable(p, i) {
		if e.Table, err = props.DecodeDataTable(data, ctx); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", p.FileName, NewResolver(p, "").ExportPath(i), err)
		}
		e.Properties, e.Rest = e.Table.Properties, e.Table.Rest
		return e, nil
	}
	if e.Properties, err = props.Decode(data, ctx); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p.FileName, NewResolver(p, "").ExportPath(i), err)
	}
	e.Rest = e.Properties.Rest
	return e, nil
}

// Set changes the value target names in export i of p (a property path,
// or a DataTable row and a path in it) to in, as props.Set does, and
// keeps the package right around the new data: names the value needs are
// added by AddName, the export's ScriptSerializationEndOffset (UE5 1010+)
// follows a change inside the tagged properties, and p.Encode recomputes
// the export's SerialSize and every later offset. A change that resizes
// the data of an export with an inline bulk data payload (a UE 5.2+ data
// resource in that export's data or a later one's) is refused with
// props.ErrUnsupported: the payload's recorded offset would go stale. A
// value already in effect leaves p unchanged (Change.Already). On error p
// is unchanged.
func Set(p *uasset.Package, i int, target props.Target, in props.Input) (props.Change, error) {
	return SetWith(p, i, target, in, nil)
}

// SetWith is Set with the game's property schema m, which assets cooked
// with unversioned properties need (see ContextWith).
func SetWith(p *uasset.Package, i int, target props.Target, in props.Input, m *usmap.Mappings) (props.Change, error) {
	return EditWith(p, i, m, func(data []byte, ctx *props.Context) ([]byte, props.Change, error) {
		return props.Set(data, ctx, target, in)
	})
}

// EditWith changes the data of export i of p with edit (props.Set,
// props.AddRow, props.RemoveRow, props.RenameRow, props.RemoveElement …,
// given the export's data and its Context) and keeps the package right
// around the new data as Set does: names edit adds go through AddName,
// ScriptSerializationEndOffset follows a change inside the tagged
// properties (edit's Change.Offset says where), and a change that resizes
// data before an inline bulk data payload is refused. On error p is
// unchanged.
func EditWith(p *uasset.Package, i int, m *usmap.Mappings, edit func([]byte, *props.Context) ([]byte, props.Change, error)) (props.Change, error) {
	ctx, err := ContextWith(p, i, m)
	if err != nil {
		return props.Change{}, err
	}
	undo := snapshot(p)
	e := &p.Exports[i]
	old := e.Data
	data, ch, err := edit(old, ctx)
	if err != nil {
		undo.restore(p)
		return ch, fmt.Errorf("%s: %s: %w", p.FileName, NewResolver(p, "").ExportPath(i), err)
	}
	if ch.Already {
		return ch, nil
	}
	if delta := int64(len(data) - len(old)); delta != 0 {
		if d := inlineBulkAfter(p, i); d >= 0 {
			undo.restore(p)
			return ch, fmt.Errorf("%s: %s: %s: the change resizes the export's data, and data resource %d is a bulk data payload "+
				"inline in the export data at or after it, whose recorded offset this package does not move: %w",
				p.FileName, NewResolver(p, "").ExportPath(i), ch.Target, d, props.ErrUnsupported)
		}
		// Where the bytes were changed, in the old data: the same start;
		// a change inside the script range moves its end.
		if start := int64(ch.Offset); e.ScriptSerializationEndOffset > e.ScriptSerializationStartOffset &&
			start >= e.ScriptSerializationStartOffset && start < e.ScriptSerializationEndOffset {
			e.ScriptSerializationEndOffset += delta
		}
	}
	e.Data = data
	return ch, nil
}

// Bulk data flags (EBulkDataFlags) of a payload outside the export data.
const (
	bulkPayloadAtEndOfFile     = 0x1
	bulkPayloadInSeparateFile  = 0x100
	bulkOutsideExportDataFlags = bulkPayloadAtEndOfFile | bulkPayloadInSeparateFile
)

// inlineBulkAfter returns the index of a data resource (UE 5.2+) whose
// payload is inline in the data of export i or of an export whose data
// follows it, or -1. Such an offset would have to move when export i's
// data changes size.
func inlineBulkAfter(p *uasset.Package, i int) int {
	for k, d := range p.DataResources {
		if d.LegacyBulkDataFlags&bulkOutsideExportDataFlags != 0 || !d.OuterIndex.IsExport() {
			continue
		}
		o := d.OuterIndex.Export()
		if o == i || o < len(p.Exports) && p.Exports[o].SerialOffset > p.Exports[i].SerialOffset {
			return k
		}
	}
	return -1
}

// undo is what Set restores when props.Set fails after adding names.
type undo struct {
	names   []uasset.Name
	imports []uasset.Import
	exports []uasset.NameRef
	softRef []uasset.NameRef
	count   int32
}

func snapshot(p *uasset.Package) *undo {
	u := &undo{names: slices.Clone(p.Names), imports: slices.Clone(p.Imports),
		softRef: slices.Clone(p.SoftPackageReferences), count: p.Summary.NamesReferencedFromExportDataCount}
	for _, e := range p.Exports {
		u.exports = append(u.exports, e.ObjectName)
	}
	return u
}

func (u *undo) restore(p *uasset.Package) {
	p.Names, p.Imports, p.SoftPackageReferences = u.names, u.imports, u.softRef
	p.Summary.NamesReferencedFromExportDataCount = u.count
	for k := range p.Exports {
		p.Exports[k].ObjectName = u.exports[k]
	}
}

// Resolver names the object references of one cooked asset and turns
// object paths back into references.
type Resolver struct {
	p   *uasset.Package
	pkg string
}

// NewResolver returns the Resolver of p, whose exports live in the
// package named pkg (e.g. "/Game/Maps/Arena"); "" takes the summary's
// package name (which UE4 cooks leave "None").
func NewResolver(p *uasset.Package, pkg string) *Resolver {
	if pkg == "" {
		pkg = PackageName(p)
	}
	return &Resolver{p: p, pkg: pkg}
}

// PackageName returns the package name the summary records (its
// FolderName), or "" when it records none (UE4 cooks write "None").
func PackageName(p *uasset.Package) string {
	if n := p.Summary.PackageName; n != "" && !strings.EqualFold(n, "None") {
		return n
	}
	return ""
}

// maxChain bounds an outer chain, against cycles.
func (r *Resolver) maxChain() int { return len(r.p.Imports) + len(r.p.Exports) + 1 }

// Object returns the full path of the object x refers to: "None"; an
// import's path ("/Script/Engine.Actor", "/Game/Other.Other:Sub"); an
// export's path in r's package; or "<bad import 12>" for an index outside
// the maps.
func (r *Resolver) Object(x uasset.PackageIndex) string {
	switch {
	case x == 0:
		return "None"
	case x.IsExport():
		if x.Export() >= len(r.p.Exports) {
			return fmt.Sprintf("<bad export %d>", x.Export())
		}
		return r.ExportPath(x.Export())
	}
	if x.Import() >= len(r.p.Imports) {
		return fmt.Sprintf("<bad import %d>", x.Import())
	}
	var parts []string
	for n := 0; x.IsImport() && x.Import() < len(r.p.Imports) && n < r.maxChain(); n++ {
		im := &r.p.Imports[x.Import()]
		parts = append(parts, r.p.NameOf(im.ObjectName))
		x = im.OuterIndex
	}
	slices.Reverse(parts)
	return joinPath(parts)
}

// joinPath joins an outer chain, outermost (the package) first:
// Package.Object:Sub.Sub.
func joinPath(parts []string) string {
	var b strings.Builder
	for k, s := range parts {
		switch k {
		case 0:
		case 1:
			b.WriteByte('.')
		case 2:
			b.WriteByte(':')
		default:
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// ExportPath returns export i's full path: the package name, then its
// outer chain ("/Game/Maps/Arena.Arena:PersistentLevel").
func (r *Resolver) ExportPath(i int) string {
	var parts []string
	for n := 0; i >= 0 && i < len(r.p.Exports) && n < r.maxChain(); n++ {
		e := &r.p.Exports[i]
		parts = append(parts, r.p.NameOf(e.ObjectName))
		if !e.OuterIndex.IsExport() {
			break
		}
		i = e.OuterIndex.Export()
	}
	parts = append(parts, r.pkg)
	slices.Reverse(parts)
	return joinPath(parts)
}

// ClassName returns the name of export i's class ("DataTable",
// "BP_Lamp_C").
func (r *Resolver) ClassName(i int) string {
	path := r.Object(r.p.Exports[i].ClassIndex)
	if strings.ContainsAny(path, " <") {
		return path
	}
	return path[strings.LastIndexAny(path, ".:/")+1:]
}

// Name returns the object an FPackageIndex refers to, for display, as
// zenprops.Resolver.Name does: "None", Class'Path' for an export, the
// path of an import, "<bad import 12>" for an index outside the maps.
func (r *Resolver) Name(index int32) string {
	x := uasset.PackageIndex(index)
	if x.IsExport() && x.Export() < len(r.p.Exports) {
		path := r.ExportPath(x.Export())
		if class := r.ClassName(x.Export()); !strings.ContainsAny(class, " <") {
			return class + "'" + path + "'"
		}
		return path
	}
	return r.Object(x)
}

// Index turns what a user wrote for an object reference into an
// FPackageIndex: "None" (0); a number (taken as is); or an object path,
// optionally in Class'Path' form, naming an export (its full path, its
// path inside the package, or its name when unique) or an import (its
// full path, e.g. /Script/Engine.Texture2D or /Game/UI/T_Icon.T_Icon).
func (r *Resolver) Index(text string) (int32, error) {
	s := strings.TrimSpace(text)
	if s == "" || strings.EqualFold(s, "None") || strings.EqualFold(s, "null") {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 0, 32); err == nil {
		return int32(n), nil
	}
	if k := strings.IndexByte(s, '\''); k > 0 && strings.HasSuffix(s, "'") && len(s) > k+1 {
		s = s[k+1 : len(s)-1]
	}
	dots := func(s string) string { return strings.ReplaceAll(s, ":", ".") }
	want := dots(s)
	var byName []int
	for i := range r.p.Exports {
		full := dots(r.ExportPath(i))
		rel := strings.TrimPrefix(full, r.pkg+".")
		if strings.EqualFold(full, want) || strings.EqualFold(rel, want) {
			return int32(i + 1), nil
		}
		if strings.EqualFold(r.p.NameOf(r.p.Exports[i].ObjectName), s) {
			byName = append(byName, i)
		}
	}
	if len(byName) == 1 {
		return int32(byName[0] + 1), nil
	}
	if len(byName) > 1 {
		return 0, fmt.Errorf("object %q: %d exports have that name; give the full path: %w", text, len(byName), props.ErrNotFound)
	}
	for i := range r.p.Imports {
		x := uasset.PackageIndex(-i - 1)
		if strings.EqualFold(dots(r.Object(x)), want) {
			return int32(x), nil
		}
	}
	return 0, fmt.Errorf("object %q is neither an export nor an import of %s: %w", text, r.p.FileName, props.ErrNotFound)
}

// PackageNameFromPath returns the package name of the asset at path, a
// pak's mount point joined with a file's path or any path relative to the
// game's root ("../../../Maine/Content/Items/DT_Items.uasset"): content
// of the game project is under /Game ("/Game/Items/DT_Items"), of the
// engine under /Engine, of a plugin under /PluginName. It returns "" for
// a path with no Content folder. UE4 cooks record no package name
// (NewResolver and report.NewCookedProperties take one).
func PackageNameFromPath(path string) string {
	path = strings.ReplaceAll(path, `\`, "/")
	for strings.HasPrefix(path, "../") {
		path = path[3:]
	}
	path = strings.TrimPrefix(path, "/")
	parts := strings.Split(path, "/")
	at := -1
	for k, s := range parts {
		if strings.EqualFold(s, "Content") && k > 0 {
			at = k // the last Content folder: a plugin's is below the project's Plugins folder
		}
	}
	if at < 0 || at == len(parts)-1 {
		return ""
	}
	root := "/Game"
	switch {
	case at == 1 && strings.EqualFold(parts[0], "Engine"):
		root = "/Engine"
	case hasPlugins(parts[:at]):
		root = "/" + parts[at-1]
	}
	rest := strings.Join(parts[at+1:], "/")
	if i := strings.LastIndexByte(rest, '.'); i > strings.LastIndexByte(rest, '/') {
		rest = rest[:i]
	}
	return root + "/" + rest
}

// hasPlugins reports whether a folder named Plugins is among dirs.
func hasPlugins(dirs []string) bool {
	for _, s := range dirs {
		if strings.EqualFold(s, "Plugins") {
			return true
		}
	}
	return false
}
