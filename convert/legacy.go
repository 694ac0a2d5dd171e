package convert

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

// ImportSource names what a zen package imports: the game's script
// objects (global.utoc) and the zen packages of the imported packages
// (the containers of the game). A container set fills it; see
// ContainerSource.
type ImportSource interface {
	// ScriptObjects returns the game's script objects, or nil when they
	// are not at hand.
	ScriptObjects() *zen.ScriptObjects
	// Package returns the zen package named name (e.g. "/Game/UI/T_Icon"),
	// or nil and no error when no container at hand holds it.
	Package(name string) (*zen.Package, error)
}

// LegacyOptions tell ToLegacy what the zen package does not record.
type LegacyOptions struct {
	// Engine is the release the package was cooked by. When zero it is
	// taken from the package's layout, which must then name one release
	// whose cooked assets are laid out alike (5.6–5.8 share a zen layout
	// but not an asset layout: give it).
	Engine zen.Engine
	// Imports names the imports: without it only a package that imports
	// nothing converts.
	Imports ImportSource
	// ContainerHeader is, for a 4.26/4.27 package, the header of the
	// container holding it (its ContainerHeader chunk): the package's store
	// entry names the imported packages. Without it they are read from the
	// package's name map when that is unambiguous.
	ContainerHeader *zen.ContainerHeader
	// FileName names the asset in errors and in the result (e.g.
	// "T_Icon.uasset"); when empty the package's short name with .uasset.
	FileName string
}

// ToLegacy converts a zen package into the cooked asset (.uasset/.umap
// with its .uexp) the engine's cooker wrote before the IoStore packer made
// the package from it (docs/convert.md §9 gives the rules): the name map
// in the cooker's order, the import map named through the script objects
// and the imported packages, the export map with the exports' data
// unchanged, the preload dependencies, the data resources of the bulk data
// and a header of the size the package records, so that every export sits
// where it was cooked. ToZen of the result gives the package back.
//
// What the zen package does not keep and the asset has (the custom
// versions of an unversioned asset, its saved hash, the preload
// dependencies on script objects that only serialization needs) is left
// out; a loader does not need it. UE 5.3 and later packages convert, and
// 4.26/4.27 packages (docs/convert.md §9.10: imports named by hashing
// paths of the package's own names, preload dependencies from the export
// bundle's order, the name map and .uexp the engine's); imports that
// cannot be named are refused with ErrUnresolvedImport saying which file
// would name them. pkg is not modified.
func ToLegacy(pkg *zen.Package, opts *LegacyOptions) (*uasset.Package, error) {
	var o LegacyOptions
	if opts != nil {
		o = *opts
	}
	if pkg == nil {
		return nil, errorf(o.FileName, "package", ErrNotConvertible, "no package given")
	}
	name := pkg.PackageName()
	file := o.FileName
	if file == "" {
		file = name[strings.LastIndexByte(name, '/')+1:] + ".uasset"
	}
	if pkg.Layout == zen.LayoutUE4 {
		return toLegacyUE4(pkg, o, file, name)
	}
	if pkg.Layout.IsUE5() && pkg.Layout < zen.LayoutUE53 || !pkg.Layout.IsUE5() {
		return nil, errorf(file, "package", ErrUnsupportedEngine,
			"zen layout %v: converting to a cooked asset is done for UE 5.3 and later packages", pkg.Layout)
	}
	engine, err := legacyEngine(file, pkg, o.Engine)
	if err != nil {
		return nil, err
	}
	if len(pkg.CellImports) > 0 || len(pkg.CellExports) > 0 {
		return nil, errorf(file, "package", ErrNotConvertible, "the package has Verse cells, which unrmod does not convert")
	}
	if uint64(zen.PackageFlags(uasset.PkgCooked))&uint64(pkg.PackageFlags) == 0 {
		return nil, errorf(file, "package summary", ErrNotCooked, "package flags 0x%08X lack PKG_Cooked", uint32(pkg.PackageFlags))
	}
	b := &legacyBuilder{pkg: pkg, file: file, name: name, src: o.Imports, r: rulesFor(engine), engine: engine}
	if err := b.imports(); err != nil {
		return nil, err
	}
	exports, err := b.exports()
	if err != nil {
		return nil, err
	}
	b.templateClasses(exports)
	preload, err := b.preload(exports)
	if err != nil {
		return nil, err
	}
	names, nrefd, err := b.nameMap(exports)
	if err != nil {
		return nil, err
	}
	sum := uasset.Summary{PackageName: name, PackageFlags: uint32(pkg.PackageFlags), NamesReferencedFromExportDataCount: int32(nrefd)}
	if !engine.Less(zen.Engine58) {
		sum.LegacyUE3Version = 864 // what the 5.8 cooker writes
	}
	if v := pkg.Versioning; v != nil {
		sum.FileVersionUE4, sum.FileVersionUE5, sum.FileVersionLicensee = v.FileVersionUE4, v.FileVersionUE5, v.Licensee
		for _, cv := range v.CustomVersions {
			var k uasset.GUID
			for j, w := range cv.Key {
				k[4*j], k[4*j+1], k[4*j+2], k[4*j+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
			}
			sum.CustomVersions = append(sum.CustomVersions, uasset.CustomVersion{Key: k, Version: cv.Version})
		}
	}
	// The header the exports were cooked behind (ToZen's CookedHeaderSize
	// rule backwards).
	hs := int64(pkg.CookedHeaderSize) + int64(b.r.headerSizeBias) + int64(b.r.importBias)*int64(len(b.legacy))
	a, err := uasset.NewCookedUE5(uasset.CookedUE5{
		Release: uasset.Release{Major: engine.Major, Minor: engine.Minor}, FileName: file, Summary: sum,
		Names: names.names, Imports: b.legacyImports(names), Exports: b.legacyExports(names, exports),
		PreloadDependencies: preload, DataResources: b.dataResources(exports), HeaderSize: int32(hs),
	})
	if err != nil {
		return nil, err
	}
	if err := streamLegacy(pkg, a); err != nil {
		return nil, err
	}
	if err := b.scriptRanges(a); err != nil {
		return nil, err
	}
	return a, nil
}

// legacyEngine picks the release the package converts for.
func legacyEngine(file string, pkg *zen.Package, given zen.Engine) (zen.Engine, error) {
	if given != (zen.Engine{}) {
		if !given.Known() {
			return zen.Engine{}, errorf(file, "package", ErrUnsupportedEngine, "engine %s: unrmod knows %s", given, zen.EngineNames())
		}
		if given.Layout() != pkg.Layout {
			return zen.Engine{}, errorf(file, "package", ErrUnsupportedEngine, "the package's layout (%v) is not UE %s's (%v)", pkg.Layout, given, given.Layout())
		}
		return given, nil
	}
	var fits []zen.Engine
	for _, e := range zen.Engines() {
		if e.Layout() == pkg.Layout {
			fits = append(fits, e)
		}
	}
	if len(fits) == 0 {
		return zen.Engine{}, errorf(file, "package", ErrUnsupportedEngine, "no release unrmod knows writes zen layout %v", pkg.Layout)
	}
	for _, e := range fits[1:] {
		if _, ok := uasset.ReleaseFileVersion(uasset.Release{Major: e.Major, Minor: e.Minor}); !ok || !sameAsset(e, fits[0]) {
			return zen.Engine{}, errorf(file, "package", ErrUnsupportedEngine,
				"zen layout %v is written by UE %s to %s, whose cooked assets differ: give the engine release", pkg.Layout, fits[0], fits[len(fits)-1])
		}
	}
	return fits[len(fits)-1], nil
}

// sameAsset reports whether two releases lay out a cooked asset and its
// conversion alike.
func sameAsset(a, b zen.Engine) bool {
	va, _ := uasset.ReleaseFileVersion(uasset.Release{Major: a.Major, Minor: a.Minor})
	vb, _ := uasset.ReleaseFileVersion(uasset.Release{Major: b.Major, Minor: b.Minor})
	return va == vb && sameOutput(a, b) && a.Less(zen.Engine58) == b.Less(zen.Engine58)
}

// legacyBuilder holds the conversion of one package.
type legacyBuilder struct {
	pkg *zen.Package
	// split is the 4.26/4.27 package as the packer split it, when pkg is
	// it with its bundles merged.
	split  *zen.Package
	file   string
	name   string
	src    ImportSource
	r      rules
	engine zen.Engine

	legacy  []legacyImport
	byRef   map[zen.ObjectIndex]int  // zen import → legacy import index
	classes map[zen.ObjectIndex]bool // see isScriptClass
	// depRanges are each export's FirstExportDependency and its four
	// counts in the asset's order (sbs, cbs, sbc, cbc).
	depRanges [][5]int32
}

// legacyImport is one import being named; names are FName texts with
// their numbers.
type legacyImport struct {
	object, classPackage, className nameText
	outer                           uasset.PackageIndex
	script                          bool
	// unknownClass: a script object whose class the script objects do
	// not tell (a class default object's subobject).
	unknownClass bool
}

// nameText is a name-map entry and the FName number beside it.
type nameText struct {
	text   string
	number int32
}

func (n nameText) String() string {
	if n.number == 0 {
		return n.text
	}
	return fmt.Sprintf("%s_%d", n.text, n.number-1)
}

func plain(s string) nameText { return nameText{text: s} }

// imports names every import of the package.
func (b *legacyBuilder) imports() error {
	p := b.pkg
	b.legacy = make([]legacyImport, len(p.Imports))
	b.byRef = make(map[zen.ObjectIndex]int, len(p.Imports))
	var nulls []int
	for i, x := range p.Imports {
		if x.IsNull() {
			nulls = append(nulls, i)
			continue
		}
		if _, dup := b.byRef[x]; !dup {
			b.byRef[x] = i
		}
	}
	// The packages imported: the null imports, which the cooker sorted by
	// name among themselves, are the imported packages in that order.
	if len(nulls) != len(p.ImportedPackages) {
		return errorf(b.file, "import map", ErrNotConvertible,
			"%d null imports for %d imported packages: the package imports are not the cooker's", len(nulls), len(p.ImportedPackages))
	}
	pkgs := slices.Clone(p.ImportedPackages)
	slices.SortStableFunc(pkgs, func(x, y zen.PackageName) int { return strings.Compare(lowerASCII(x.String()), lowerASCII(y.String())) })
	pkgImport := map[string]int{}
	for k, i := range nulls {
		b.legacy[i] = legacyImport{object: nameText{pkgs[k].Name, pkgs[k].Number}, classPackage: plain(coreUObject), className: plain("Package")}
		pkgImport[lowerASCII(pkgs[k].String())] = i
	}
	var script *zen.ScriptObjects
	if b.src != nil {
		script = b.src.ScriptObjects()
	}
	un := &UnresolvedImportsError{}
	for i, x := range p.Imports {
		var err error
		switch x.Kind() {
		case zen.KindNull:
		case zen.KindScriptImport:
			if script == nil {
				un.ScriptObjects = true
			}
			err = b.scriptImport(script, i, x)
		case zen.KindPackageImport:
			err = b.packageImport(i, x, pkgImport, un)
		default:
			err = errorf(b.file, fmt.Sprintf("import %d", i), ErrNotConvertible, "%v is not an import", x)
		}
		var fe *ue.FormatError
		switch {
		case err == nil:
		case errors.Is(err, ErrUnresolvedImport) && errors.As(err, &fe):
			un.Imports = append(un.Imports, fe.Struct+": "+fe.Msg)
		default:
			return err
		}
	}
	if len(un.Imports) > 0 {
		slices.Sort(un.Packages)
		un.Packages = slices.Compact(un.Packages)
		return &ue.FormatError{File: b.file, Struct: "import map", Offset: -1, Msg: un.Error(), Err: un}
	}
	return nil
}

// UnresolvedImportsError lists the imports ToLegacy could not name and
// what would name them. It matches ErrUnresolvedImport.
type UnresolvedImportsError struct {
	// Imports says, per import, what is missing ("import 3: …").
	Imports []string
	// Packages are the imported packages no container at hand holds: the
	// game's container that holds each names its objects.
	Packages []string
	// ScriptObjects is true when the game's script objects (global.utoc)
	// were not given and script imports need them.
	ScriptObjects bool
}

func (e *UnresolvedImportsError) Error() string {
	var need []string
	if e.ScriptObjects {
		need = append(need, "the game's global.utoc (its script objects)")
	}
	if len(e.Packages) > 0 {
		need = append(need, "the containers holding "+strings.Join(e.Packages, ", "))
	}
	msg := fmt.Sprintf("%d imports cannot be named (%s)", len(e.Imports), strings.Join(e.Imports, "; "))
	if len(need) > 0 {
		msg += "; " + strings.Join(need, " and ") + " would name them"
	}
	return msg
}

// Unwrap returns ErrUnresolvedImport.
func (e *UnresolvedImportsError) Unwrap() error { return ErrUnresolvedImport }

const coreUObject = "/Script/CoreUObject"

// scriptImport names import i, a script object.
func (b *legacyBuilder) scriptImport(script *zen.ScriptObjects, i int, x zen.ObjectIndex) error {
	where := fmt.Sprintf("import %d", i)
	if script == nil {
		return errorf(b.file, where, ErrUnresolvedImport, "script import %v: naming it needs the game's script objects (global.utoc)", x)
	}
	e, ok := script.Find(x)
	if !ok {
		return errorf(b.file, where, ErrUnresolvedImport, "script import %v is not among the %d script objects of the global.utoc given: it is another game's or release's", x, script.Len())
	}
	name, ok := scriptName(script, e.Name)
	if !ok {
		return errorf(b.file, where, ErrUnresolvedImport, "script object %v names entry %d outside the global names", x, e.Name.Index())
	}
	li := legacyImport{object: name, script: true}
	if e.Outer.IsNull() {
		li.classPackage, li.className = plain(coreUObject), plain("Package")
		b.legacy[i] = li
		return nil
	}
	j, ok := b.byRef[e.Outer]
	if !ok {
		path, _ := script.Path(e.Outer)
		return errorf(b.file, where, ErrNotConvertible, "the outer of %s (%s) is not imported: the cooker imports every outer", name, path)
	}
	li.outer = uasset.PackageIndex(-j - 1)
	li.classPackage, li.className = b.scriptClass(script, x, e)
	li.unknownClass = li.className.text == unknownClass
	b.legacy[i] = li
	return nil
}

// scriptName returns a global name with its number.
func scriptName(s *zen.ScriptObjects, n zen.MappedName) (nameText, bool) {
	if int(n.Index()) >= len(s.Names) {
		return nameText{}, false
	}
	return nameText{s.Names[n.Index()], int32(n.Number)}, true
}

// scriptClass returns the class of a script object that is not a package.
// Script objects do not record classes: a class default object names its
// class; an object some class default object names is a class; a function
// is what a class holds (a delegate signature also stands at package
// level); what else stands at package level is an enum when its name reads
// as one (E and a capital) and a script struct otherwise.
func (b *legacyBuilder) scriptClass(s *zen.ScriptObjects, x zen.ObjectIndex, e zen.ScriptObjectEntry) (pkg, class nameText) {
	if !e.CDOClass.IsNull() {
		if path, ok := s.Path(e.CDOClass); ok {
			if k := strings.LastIndexByte(path, '.'); k > 0 {
				return plain(path[:k]), plain(path[k+1:])
			}
		}
	}
	if b.isScriptClass(s, x) {
		return plain(coreUObject), plain("Class")
	}
	name, _ := s.ObjectName(x)
	outer, _ := s.Find(e.Outer)
	switch {
	case strings.HasSuffix(name, "__DelegateSignature"):
		if outer.Outer.IsNull() {
			return plain(coreUObject), plain("DelegateFunction")
		}
		return plain(coreUObject), plain("Function")
	case !outer.Outer.IsNull():
		if b.isScriptClass(s, e.Outer) {
			return plain(coreUObject), plain("Function")
		}
		return plain(coreUObject), plain(unknownClass)
	case len(name) > 1 && name[0] == 'E' && name[1] >= 'A' && name[1] <= 'Z':
		return plain(coreUObject), plain("Enum")
	}
	return plain(coreUObject), plain("ScriptStruct")
}

// scriptClasses returns the script objects some class default object
// names as its class.
func scriptClasses(s *zen.ScriptObjects) map[zen.ObjectIndex]bool {
	out := map[zen.ObjectIndex]bool{}
	for _, o := range s.Objects {
		if !o.CDOClass.IsNull() {
			out[o.CDOClass] = true
		}
	}
	return out
}

// classSet is implemented by sources that keep scriptClasses of their
// script objects.
type classSet interface {
	scriptClasses() map[zen.ObjectIndex]bool
}

// isScriptClass reports whether a class default object among the script
// objects names x as its class.
func (b *legacyBuilder) isScriptClass(s *zen.ScriptObjects, x zen.ObjectIndex) bool {
	if b.classes == nil {
		if c, ok := b.src.(classSet); ok && b.src.ScriptObjects() == s {
			b.classes = c.scriptClasses()
		} else {
			b.classes = scriptClasses(s)
		}
	}
	return b.classes[x]
}

// packageImport names import i, an object of another package.
func (b *legacyBuilder) packageImport(i int, x zen.ObjectIndex, pkgImport map[string]int, un *UnresolvedImportsError) error {
	p := b.pkg
	where := fmt.Sprintf("import %d", i)
	k, h, _ := x.PackageImport()
	if int(k) >= len(p.ImportedPackages) || int(h) >= len(p.ImportedPublicExportHashes) {
		return errorf(b.file, where, ErrNotConvertible, "%v refers outside the %d imported packages and %d public export hashes", x, len(p.ImportedPackages), len(p.ImportedPublicExportHashes))
	}
	pn := p.ImportedPackages[k].String()
	hash := p.ImportedPublicExportHashes[h]
	q, err := b.imported(where, pn, hash)
	if err != nil {
		if q == nil && b.src != nil {
			un.Packages = append(un.Packages, pn)
		}
		return err
	}
	ei := -1
	for j := range q.Exports {
		if q.Exports[j].PublicExportHash == hash {
			ei = j
			break
		}
	}
	if ei < 0 {
		return errorf(b.file, where, ErrUnresolvedImport, "package %s has no export with public hash 0x%016x: the container holds another version of it", pn, hash)
	}
	qe := &q.Exports[ei]
	on := qe.ObjectName
	if int(on.Index()) >= len(q.Names) {
		return errorf(b.file, where, ErrUnresolvedImport, "export %d of %s names entry %d outside its name map", ei, pn, on.Index())
	}
	li := legacyImport{object: nameText{q.Names[on.Index()], int32(on.Number)}}
	switch {
	case qe.Outer.IsNull():
		li.outer = uasset.PackageIndex(-pkgImport[lowerASCII(pn)] - 1)
	default:
		oi, ok := qe.Outer.Export()
		if !ok || oi >= len(q.Exports) {
			return errorf(b.file, where, ErrUnresolvedImport, "the outer of %s in %s is not one of its exports", q.ExportPath(ei), pn)
		}
		oh := q.Exports[oi].PublicExportHash
		found := -1
		for j, y := range p.Imports {
			if kk, hh, ok := y.PackageImport(); ok && kk == k && int(hh) < len(p.ImportedPublicExportHashes) && p.ImportedPublicExportHashes[hh] == oh {
				found = j
				break
			}
		}
		if found < 0 {
			return errorf(b.file, where, ErrNotConvertible, "the outer of %s is not imported: the cooker imports every outer", q.ExportPath(ei))
		}
		li.outer = uasset.PackageIndex(-found - 1)
	}
	// The class: the imported export's class, named from that package.
	cp, cn, err := b.className(where, q, qe.Class)
	if err != nil {
		return err
	}
	li.classPackage, li.className = cp, cn
	b.legacy[i] = li
	return nil
}

// imported returns the zen package named pn.
func (b *legacyBuilder) imported(where, pn string, hash uint64) (*zen.Package, error) {
	if b.src == nil {
		return nil, errorf(b.file, where, ErrUnresolvedImport, "an object of %s (public export hash 0x%016x): naming it needs the container that holds %s", pn, hash, pn)
	}
	q, err := b.src.Package(pn)
	if err != nil {
		return nil, errorf(b.file, where, ErrUnresolvedImport, "reading %s: %v", pn, err)
	}
	if q == nil {
		return nil, errorf(b.file, where, ErrUnresolvedImport, "an object of %s (public export hash 0x%016x): no container given holds that package", pn, hash)
	}
	return q, nil
}

// className names the class x (a reference from package q) as its
// package and object name.
func (b *legacyBuilder) className(where string, q *zen.Package, x zen.ObjectIndex) (nameText, nameText, error) {
	switch x.Kind() {
	case zen.KindExport:
		i, ok := x.Export()
		if !ok || i >= len(q.Exports) {
			break
		}
		on := q.Exports[i].ObjectName
		if int(on.Index()) < len(q.Names) && int(q.Name.Index()) < len(q.Names) {
			return nameText{q.Names[q.Name.Index()], int32(q.Name.Number)}, nameText{q.Names[on.Index()], int32(on.Number)}, nil
		}
	case zen.KindScriptImport:
		var s *zen.ScriptObjects
		if b.src != nil {
			s = b.src.ScriptObjects()
		}
		if s == nil {
			return nameText{}, nameText{}, errorf(b.file, where, ErrUnresolvedImport, "the class of an object of %s is script object %v: naming it needs the game's script objects (global.utoc)", q.PackageName(), x)
		}
		e, ok := s.Find(x)
		if !ok {
			break
		}
		name, ok1 := scriptName(s, e.Name)
		pkg, ok2 := s.Path(e.Outer)
		if ok1 && ok2 {
			return plain(pkg), name, nil
		}
	case zen.KindPackageImport:
		k, h, _ := x.PackageImport()
		if int(k) >= len(q.ImportedPackages) || int(h) >= len(q.ImportedPublicExportHashes) {
			break
		}
		pn := q.ImportedPackages[k]
		hash := q.ImportedPublicExportHashes[h]
		r, err := b.imported(where, pn.String(), hash)
		if err != nil {
			return nameText{}, nameText{}, err
		}
		for _, e := range r.Exports {
			if e.PublicExportHash == hash && int(e.ObjectName.Index()) < len(r.Names) {
				return nameText{pn.Name, pn.Number}, nameText{r.Names[e.ObjectName.Index()], int32(e.ObjectName.Number)}, nil
			}
		}
	}
	return nameText{}, nameText{}, errorf(b.file, where, ErrUnresolvedImport, "the class of an object of %s (%v) cannot be named", q.PackageName(), x)
}

// ref turns a zen object reference into a legacy package index.
func (b *legacyBuilder) ref(x zen.ObjectIndex, where, field string) (uasset.PackageIndex, error) {
	switch x.Kind() {
	case zen.KindNull:
		return 0, nil
	case zen.KindExport:
		if i, ok := x.Export(); ok && i < len(b.pkg.Exports) {
			return uasset.PackageIndex(i + 1), nil
		}
	default:
		if i, ok := b.byRef[x]; ok {
			return uasset.PackageIndex(-i - 1), nil
		}
	}
	return 0, errorf(b.file, where, ErrNotConvertible, "%s %v is neither an export nor an import of the package", field, x)
}

// unknownClass is the class given to a script object whose class nothing
// tells: UObject.
const unknownClass = "Object"

// templateClasses gives a script import whose class the script objects do
// not tell (a default subobject of a native class default object) the
// class of an export it is the template of: an instance has its
// template's class.
func (b *legacyBuilder) templateClasses(refs []legacyExport) {
	for _, r := range refs {
		if !r.template.IsImport() || !b.legacy[r.template.Import()].unknownClass {
			continue
		}
		t := &b.legacy[r.template.Import()]
		switch {
		case r.class.IsImport():
			c := b.legacy[r.class.Import()]
			top := c
			for k := 0; top.outer.IsImport() && k < len(b.legacy); k++ {
				top = b.legacy[top.outer.Import()]
			}
			if c.outer.IsImport() && top.outer == 0 {
				t.classPackage, t.className, t.unknownClass = top.object, c.object, false
			}
		case r.class.IsExport():
			on := b.pkg.Exports[r.class.Export()].ObjectName
			t.classPackage, t.className, t.unknownClass = plain(b.name), nameText{b.pkg.Names[on.Index()], int32(on.Number)}, false
		}
	}
}

// legacyExport is an export's references in legacy form.
type legacyExport struct {
	class, super, template, outer uasset.PackageIndex
}

func (b *legacyBuilder) exports() ([]legacyExport, error) {
	out := make([]legacyExport, len(b.pkg.Exports))
	for i, e := range b.pkg.Exports {
		where := fmt.Sprintf("export %d", i)
		var err error
		le := &out[i]
		for _, f := range []struct {
			dst   *uasset.PackageIndex
			x     zen.ObjectIndex
			field string
		}{{&le.outer, e.Outer, "OuterIndex"}, {&le.class, e.Class, "ClassIndex"}, {&le.super, e.Super, "SuperIndex"}, {&le.template, e.Template, "TemplateIndex"}} {
			if *f.dst, err = b.ref(f.x, where, f.field); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// preload rebuilds each export's preload dependencies from its dependency
// bundle: the runs serialize-before-serialize, create-before-serialize,
// serialize-before-create and create-before-create, as the asset lists
// them. The packer dropped dependencies on script objects; those the
// export's class and template give (serialize-before-create, class first)
// come back.
func (b *legacyBuilder) preload(exports []legacyExport) ([]uasset.PackageIndex, error) {
	p := b.pkg
	if len(p.DependencyHeaders) != len(p.Exports) {
		return nil, errorf(b.file, "dependency bundles", ErrNotConvertible, "%d dependency headers for %d exports", len(p.DependencyHeaders), len(p.Exports))
	}
	var out []uasset.PackageIndex
	b.depRanges = make([][5]int32, len(p.Exports))
	for i, h := range p.DependencyHeaders {
		var runs [4][]uasset.PackageIndex // cbc, sbc, cbs, sbs as the bundle counts them
		if h.FirstEntry >= 0 {
			at := int(h.FirstEntry)
			for k := range 4 {
				n := int(h.Counts[k])
				if n < 0 || at+n > len(p.DependencyEntries) {
					return nil, errorf(b.file, fmt.Sprintf("export %d dependency bundle", i), ErrNotConvertible, "its entries lie outside the %d dependency entries", len(p.DependencyEntries))
				}
				for _, d := range p.DependencyEntries[at : at+n] {
					x := uasset.PackageIndex(d)
					if (x.IsImport() && x.Import() >= len(p.Imports)) || (x.IsExport() && x.Export() >= len(p.Exports)) {
						return nil, errorf(b.file, fmt.Sprintf("export %d dependency bundle", i), ErrNotConvertible, "entry %d refers outside the imports and exports", d)
					}
					runs[k] = append(runs[k], x)
				}
				at += n
			}
		}
		if h.FirstEntry < 0 {
			// The asset listed no dependencies for the export (an empty
			// list would have given a first entry).
			b.depRanges[i] = [5]int32{-1, 0, 0, 0, 0}
			continue
		}
		runs[1] = b.withScriptDeps(runs[1], exports[i].class, exports[i].template)
		runs[0] = b.withScriptDeps(runs[0], exports[i].super)
		b.depRanges[i] = [5]int32{int32(len(out)), int32(len(runs[3])), int32(len(runs[2])), int32(len(runs[1])), int32(len(runs[0]))}
		out = append(out, runs[3]...)
		out = append(out, runs[2]...)
		out = append(out, runs[1]...)
		out = append(out, runs[0]...)
	}
	return out, nil
}

// withScriptDeps puts back in a run the export's references (class and
// template for serialize-before-create, super for create-before-create)
// that are script imports, first and in that order.
func (b *legacyBuilder) withScriptDeps(run []uasset.PackageIndex, refs ...uasset.PackageIndex) []uasset.PackageIndex {
	var out []uasset.PackageIndex
	for _, x := range refs {
		if x.IsImport() && b.legacy[x.Import()].script && !slices.Contains(out, x) && !slices.Contains(run, x) {
			out = append(out, x)
		} else if slices.Contains(run, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	for _, x := range run {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// legacyNames is the asset's name map being built.
type legacyNames struct {
	names []string
	index map[string]int
}

func (m *legacyNames) ref(n nameText) uasset.NameRef {
	return uasset.NameRef{Index: int32(m.index[n.text]), Number: n.number}
}

// referencedCount finds how many of the zen package's names the export
// data refers to: the fewest whose completion as the packer completes them
// (the exports' names, then the package's, each appended when missing)
// gives the package's name map.
func (b *legacyBuilder) referencedCount() (int, error) {
	p := b.pkg
	first := make(map[string]int, len(p.Names)) // a name's first index
	for i, s := range p.Names {
		if _, ok := first[s]; !ok {
			first[s] = i
		}
	}
	tail := make([]string, 0, len(p.Exports)+1) // the names the packer appends, in order
	for _, e := range p.Exports {
		if int(e.ObjectName.Index()) >= len(p.Names) {
			return 0, errorf(b.file, "export map", ErrNotConvertible, "an export names entry %d outside the %d names", e.ObjectName.Index(), len(p.Names))
		}
		tail = append(tail, p.Names[e.ObjectName.Index()])
	}
	if int(p.Name.Index()) >= len(p.Names) {
		return 0, errorf(b.file, "package summary", ErrNotConvertible, "the package name is entry %d outside the %d names", p.Name.Index(), len(p.Names))
	}
	tail = append(tail, p.Names[p.Name.Index()])
	// The packer appends at most one name per export and the package's.
	for n := max(0, len(p.Names)-len(tail)); n <= len(p.Names); n++ {
		got := n
		seen := map[string]bool{}
		ok := true
		for _, s := range tail {
			if first[s] < n || seen[s] {
				continue
			}
			if got >= len(p.Names) || p.Names[got] != s {
				ok = false
				break
			}
			seen[s] = true
			got++
		}
		if ok && got == len(p.Names) {
			return n, nil
		}
	}
	return len(p.Names), nil
}

// nameMap builds the asset's name map as the cooker orders it: the names
// the export data refers to, as the zen package keeps them, then every
// other name the header needs, sorted without ASCII case.
func (b *legacyBuilder) nameMap(exports []legacyExport) (*legacyNames, int, error) {
	p := b.pkg
	n, err := b.referencedCount()
	if err != nil {
		return nil, 0, err
	}
	if b.engine.Less(engine55) {
		// Up to 5.4 the cooker counts the exports' names and the package's
		// own as referenced from export data: all of the zen package's.
		n = len(p.Names)
	}
	m := &legacyNames{index: map[string]int{}}
	for _, s := range p.Names[:n] {
		m.names = append(m.names, s)
		m.index[s] = len(m.names) - 1
	}
	var extra []string
	inExtra := map[string]bool{}
	need := func(s string) {
		if _, ok := m.index[s]; !ok && !inExtra[s] {
			inExtra[s] = true
			extra = append(extra, s)
		}
	}
	for _, e := range p.Exports {
		need(p.Names[e.ObjectName.Index()])
	}
	need(p.Names[p.Name.Index()])
	for _, li := range b.legacy {
		need(li.object.text)
		need(li.classPackage.text)
		need(li.className.text)
	}
	slices.SortStableFunc(extra, func(x, y string) int { return strings.Compare(lowerASCII(x), lowerASCII(y)) })
	for _, s := range extra {
		m.names = append(m.names, s)
		m.index[s] = len(m.names) - 1
	}
	return m, n, nil
}

func (b *legacyBuilder) legacyImports(m *legacyNames) []uasset.Import {
	out := make([]uasset.Import, len(b.legacy))
	for i, li := range b.legacy {
		obj := m.ref(li.object)
		out[i] = uasset.Import{ClassPackage: m.ref(li.classPackage), ClassName: m.ref(li.className), OuterIndex: li.outer,
			ObjectName: obj, PackageName: obj}
	}
	return out
}

// Object flags ToLegacy looks at.
const (
	rfClassDefaultObject = 0x10
	rfTransient          = 0x40
	rfDefaultSubObject   = 0x40000
)

// engine55 is UE 5.5, whose cooker changed bIsAsset, bGeneratePublicHash
// and the names counted as referenced from export data.
var engine55 = zen.Engine{Major: 5, Minor: 5}

// isAsset tells the export's bIsAsset: UObject::IsAsset (public, neither a
// class default object nor transient, directly in the package); before
// 5.5 also named as the package is (FAssetData::IsUAsset).
func (b *legacyBuilder) isAsset(e zen.Export, r legacyExport) bool {
	if e.ObjectFlags&rfPublic == 0 || e.ObjectFlags&(rfClassDefaultObject|rfTransient) != 0 || r.outer != 0 {
		return false
	}
	if b.engine.Less(engine55) {
		return b.pkg.Names[e.ObjectName.Index()] == b.name[strings.LastIndexByte(b.name, '/')+1:] && e.ObjectName.Number == 0
	}
	return true
}

func (b *legacyBuilder) legacyExports(m *legacyNames, refs []legacyExport) []uasset.Export {
	p := b.pkg
	out := make([]uasset.Export, len(p.Exports))
	for i, e := range p.Exports {
		r := refs[i]
		d := b.depRanges[i]
		public := e.ObjectFlags&rfPublic != 0
		out[i] = uasset.Export{
			ClassIndex: r.class, SuperIndex: r.super, TemplateIndex: r.template, OuterIndex: r.outer,
			ObjectName:  m.ref(nameText{p.Names[e.ObjectName.Index()], int32(e.ObjectName.Number)}),
			ObjectFlags: uint32(e.ObjectFlags),
			SerialSize:  int64(p.DataLen(i)),
			// The cooker's default: the editor may skip loading the export.
			NotAlwaysLoadedForEditorGame: true,
			NotForClient:                 e.FilterFlags == 1,
			NotForServer:                 e.FilterFlags == 2,
			IsAsset:                      b.isAsset(e, r),
			// 5.4 and before flag every export with a public hash, later
			// releases those without RF_Public.
			GeneratePublicHash: e.PublicExportHash != 0 && (!public || b.engine.Less(engine55)),
			// An instance of a default subobject its template (another
			// package's) defines.
			IsInheritedInstance:                          e.ObjectFlags&rfDefaultSubObject != 0 && r.template.IsImport() && !b.engine.Less(engine55),
			FirstExportDependency:                        d[0],
			SerializationBeforeSerializationDependencies: d[1],
			CreateBeforeSerializationDependencies:        d[2],
			SerializationBeforeCreateDependencies:        d[3],
			CreateBeforeCreateDependencies:               d[4],
			Data:                                         e.Data,
		}
	}
	return out
}

// dataResources turns the bulk-data map back into data resources. The
// zen package does not say which export owns a payload, and a loader does
// not ask: a payload in a separate file is given to the asset export, an
// inline payload (its offset counts from the start of its export's data,
// and grows within one export) to the first export from the last inline
// owner on whose data can hold it, moving on when its offset goes back.
func (b *legacyBuilder) dataResources(refs []legacyExport) []uasset.DataResource {
	p := b.pkg
	if len(p.BulkData) == 0 {
		return nil
	}
	asset := uasset.PackageIndex(1)
	for i, e := range p.Exports {
		if e.ObjectFlags&rfPublic != 0 && refs[i].outer == 0 {
			asset = uasset.PackageIndex(i + 1)
			break
		}
	}
	out := make([]uasset.DataResource, len(p.BulkData))
	inline, lastEnd := 0, int64(-1) // inline: the last inline owner's export index + 1
	for k, d := range p.BulkData {
		owner := asset
		if d.Flags&bulkDataInSeparateFile == 0 {
			from := max(inline, 1)
			if inline == 0 || d.SerialOffset < lastEnd {
				from = inline + 1
			}
			inline = min(from, len(p.Exports))
			for i := from; i <= len(p.Exports); i++ {
				if d.SerialOffset+d.SerialSize <= int64(p.DataLen(i-1)) {
					inline = i
					break
				}
			}
			owner, lastEnd = uasset.PackageIndex(inline), d.SerialOffset+d.SerialSize
		}
		out[k] = uasset.DataResource{SerialOffset: d.SerialOffset, DuplicateSerialOffset: d.DuplicateSerialOffset,
			SerialSize: d.SerialSize, RawSize: d.SerialSize, OuterIndex: owner, LegacyBulkDataFlags: d.Flags, CookedIndex: d.CookedIndex}
	}
	return out
}

// bulkDataInSeparateFile is BULKDATA_PayloadInSeperateFile: the payload is
// in the .ubulk (or .uptnl, .m.ubulk), not in the export data.
const bulkDataInSeparateFile = 0x100

// scriptRanges records each export's tagged property range (UE5 1010+),
// read with the property codec: the range is where the list lies in the
// export's data.
func (b *legacyBuilder) scriptRanges(a *uasset.Package) error {
	if a.UnversionedProperties() {
		return nil
	}
	for i := range a.Exports {
		x, err := decodeAssetExport(a, i)
		if err != nil {
			var re *readError
			if errors.As(err, &re) {
				return re.err
			}
			continue
		}
		if x.Properties == nil {
			continue
		}
		a.Exports[i].ScriptSerializationStartOffset = int64(x.Properties.Start)
		a.Exports[i].ScriptSerializationEndOffset = int64(x.Properties.End)
	}
	return nil
}

// convertBack is the part of the to-legacy checks both forms share:
// back, the asset a decoded again, must have no problems and convert back
// (ToZen) into a package, which the caller compares with pkg's bytes.
func convertBack(a, back *uasset.Package, pkg *zen.Package) (*zen.Package, error) {
	if pr := back.Problems(); len(pr) > 0 {
		return nil, errorf(a.FileName, pr[0].Struct, ErrNotConvertible, "the converted asset has %d problems, the first: %s", len(pr), pr[0].Msg)
	}
	z, err := ToZen(back, legacyBackOptions(a, pkg))
	if err != nil {
		return nil, fmt.Errorf("the converted asset does not convert back: %w", err)
	}
	return z, nil
}

// EncodeLegacyChecked encodes a, the asset ToLegacy made from pkg, and
// checks it before anything is written: it decodes again
// without problems, encodes to the same bytes, and converts back (ToZen)
// into pkg's own bytes — for a 4.26/4.27 package the packer split into
// several export bundles, into MergeBundles(pkg)'s, the one asset deciding
// everything but the split. It returns the .uasset/.umap and the .uexp.
func EncodeLegacyChecked(a *uasset.Package, pkg *zen.Package) (header, uexp []byte, err error) {
	header, uexp, err = a.Encode()
	if err != nil {
		return nil, nil, err
	}
	back, err := uasset.Decode(a.FileName, header, uexp, &uasset.Options{Release: a.Release})
	if err != nil {
		return nil, nil, fmt.Errorf("the converted asset does not decode again: %w", err)
	}
	z, err := convertBack(a, back, pkg)
	if err != nil {
		return nil, nil, err
	}
	got, err := z.Encode()
	if err != nil {
		return nil, nil, err
	}
	// A package the packer split converts back with its bundles
	// merged (MergeBundles); everything else is compared as it is.
	want, err := MergeBundles(pkg).Encode()
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(got, want) {
		return nil, nil, errorf(a.FileName, "package", ErrNotConvertible,
			"the converted asset converts back into a package that differs from the original (%d bytes, %d); it would not load as the original does", len(got), len(want))
	}
	return header, uexp, nil
}

// legacyBackOptions are the options ToZen converts a, made from pkg, back
// with.
func legacyBackOptions(a *uasset.Package, pkg *zen.Package) *Options {
	zo := &Options{Engine: zen.Engine{Major: a.Release.Major, Minor: a.Release.Minor}, PackageName: pkg.PackageName()}
	for _, g := range pkg.Graph {
		for _, arc := range g.Arcs {
			// 4.26/4.27: the packer wrote the arcs of packages not packed
			// with this one from bundle −1.
			zo.ImportsFromBaseGame = zo.ImportsFromBaseGame || arc.From == -1
		}
	}
	if len(pkg.Bundles) > 1 {
		// A package the packer split was packed with some of the packages
		// it depends on (bundle 0 once merged) and maybe not with others
		// (bundle −1): which is the run's, not the asset's, so each
		// package's from-bundle is taken from the merged package.
		zo.fromBundle = map[zen.PackageID]int32{}
		for _, g := range MergeBundles(pkg).Graph {
			if len(g.Arcs) > 0 {
				zo.fromBundle[g.Package] = g.Arcs[0].From
			}
		}
	}
	return zo
}
