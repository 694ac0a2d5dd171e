package convert

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

// toLegacyUE4 converts a 4.26/4.27 zen package (docs/convert.md §9.10):
// the name map is the package's (the packer kept every legacy name), the
// imports are named by hashing paths made of those names (or from the
// imported packages' exports), and the preload dependencies are the
// fewest that make the packer's load order give the package's export
// bundle again, plus one on an import of each package the graph data
// names.
func toLegacyUE4(pkg *zen.Package, o LegacyOptions, file, name string) (*uasset.Package, error) {
	// 4.26 and 4.27 share the zen layout but not the asset's file
	// version: the release must be given.
	engine, err := legacyEngine(file, pkg, o.Engine)
	if err != nil {
		return nil, err
	}
	if uint64(pkg.PackageFlags)&uint64(uasset.PkgFilterEditorOnly) == 0 {
		return nil, errorf(file, "package summary", ErrNotCooked, "package flags 0x%08X lack PKG_FilterEditorOnly", uint32(pkg.PackageFlags))
	}
	if len(pkg.Bundles) == 0 {
		return nil, errorf(file, "export bundles", ErrNotConvertible, "no export bundle: the package loads no export")
	}
	// A package the packer split (an import cycle with packages packed
	// with it) is one asset: the split is the packer's, from the asset and
	// the packages of its run. The asset is the merged package's.
	next := uint32(0)
	for i, bd := range pkg.Bundles {
		if bd.FirstEntry != next || uint64(bd.FirstEntry)+uint64(bd.EntryCount) > uint64(len(pkg.BundleEntries)) {
			return nil, errorf(file, fmt.Sprintf("export bundle %d", i), ErrNotConvertible,
				"entries %d..%d do not follow the previous bundle's within the %d entries", bd.FirstEntry, uint64(bd.FirstEntry)+uint64(bd.EntryCount), len(pkg.BundleEntries))
		}
		next += bd.EntryCount
	}
	if int(next) != len(pkg.BundleEntries) {
		return nil, errorf(file, "export bundles", ErrNotConvertible, "the bundles hold %d of the %d entries", next, len(pkg.BundleEntries))
	}
	split := pkg
	pkg = MergeBundles(pkg)
	b := &legacyBuilder{pkg: pkg, file: file, name: name, src: o.Imports, engine: engine}
	if split != pkg {
		b.split = split
	}
	n4 := newNames4(pkg.Names)
	if err := b.imports4(n4, o.ContainerHeader); err != nil {
		return nil, err
	}
	exports, err := b.exports()
	if err != nil {
		return nil, err
	}
	for i, e := range pkg.Exports {
		if int(e.ObjectName.Index()) >= len(pkg.Names) {
			return nil, errorf(file, fmt.Sprintf("export %d", i), ErrNotConvertible, "its name is entry %d, outside the %d names", e.ObjectName.Index(), len(pkg.Names))
		}
	}
	for i, e := range exports {
		if e.outer.IsImport() {
			return nil, errorf(file, fmt.Sprintf("export %d", i), ErrNotConvertible, "its outer is an import: a 4.26/4.27 package names every export from its own package")
		}
	}
	b.templateClasses(exports)
	for i, li := range b.legacy {
		for _, s := range []string{li.object.text, li.classPackage.text, li.className.text} {
			if _, ok := n4.find(s); !ok {
				return nil, errorf(file, fmt.Sprintf("import %d", i), ErrNotConvertible,
					"its name %q is not in the package's name map, which keeps every name of the cooked asset", s)
			}
		}
	}
	preload, ranges, err := b.preload4(exports)
	if err != nil {
		return nil, err
	}
	imports := make([]uasset.Import, len(b.legacy))
	for i, li := range b.legacy {
		imports[i] = uasset.Import{ClassPackage: n4.ref(li.classPackage), ClassName: n4.ref(li.className),
			OuterIndex: li.outer, ObjectName: n4.ref(li.object)}
	}
	out := make([]uasset.Export, len(pkg.Exports))
	for i, e := range pkg.Exports {
		r, d := exports[i], ranges[i]
		out[i] = uasset.Export{
			ClassIndex: r.class, SuperIndex: r.super, TemplateIndex: r.template, OuterIndex: r.outer,
			ObjectName:  uasset.NameRef{Index: int32(e.ObjectName.Index()), Number: int32(e.ObjectName.Number)},
			ObjectFlags: uint32(e.ObjectFlags), SerialSize: int64(pkg.DataLen(i)),
			NotForClient: e.FilterFlags == 1, NotForServer: e.FilterFlags == 2,
			// UObject::IsAsset: public, not a class default object nor
			// transient, directly in the package (the pair's generated
			// class is one).
			IsAsset:               e.ObjectFlags&rfPublic != 0 && e.ObjectFlags&(rfClassDefaultObject|rfTransient) == 0 && r.outer == 0,
			FirstExportDependency: d[0],
			SerializationBeforeSerializationDependencies: d[1],
			CreateBeforeSerializationDependencies:        d[2],
			SerializationBeforeCreateDependencies:        d[3],
			CreateBeforeCreateDependencies:               d[4],
			Data:                                         e.Data,
		}
	}
	// 4.26/4.27 cooks record no package name ("None"), no engine
	// versions, and one generation.
	sum := uasset.Summary{PackageName: "None", PackageFlags: uint32(pkg.PackageFlags)}
	a, err := uasset.NewCookedUE5(uasset.CookedUE5{
		Release: uasset.Release{Major: engine.Major, Minor: engine.Minor}, FileName: file, Summary: sum,
		Names: pkg.Names, Imports: imports, Exports: out, PreloadDependencies: preload,
		HeaderSize: int32(pkg.CookedHeaderSize),
	})
	if err != nil {
		return nil, err
	}
	if err := streamLegacy(pkg, a); err != nil {
		return nil, err
	}
	// The exports must sit where they were cooked (4.27 serial offsets
	// count from the file's start): the header may not outgrow the one
	// the package records.
	var h []byte
	if a.Streamed() {
		h, _, err = a.EncodeStream()
	} else {
		h, _, err = a.Encode()
	}
	if err != nil {
		return nil, err
	}
	if len(h) > int(pkg.CookedHeaderSize) {
		return nil, errorf(file, "package summary", ErrNotConvertible,
			"the rebuilt header needs %d bytes, more than the %d the exports were cooked behind", len(h), pkg.CookedHeaderSize)
	}
	return a, nil
}

// names4 finds names in a 4.26/4.27 package's name map, whose packer
// compared names without case.
type names4 struct {
	names []string
	index map[string]int // lower-case name → first index
}

func newNames4(names []string) *names4 {
	m := &names4{names: names, index: make(map[string]int, len(names))}
	for i, s := range names {
		if _, ok := m.index[lowerASCII(s)]; !ok {
			m.index[lowerASCII(s)] = i
		}
	}
	return m
}

func (m *names4) find(s string) (int, bool) {
	i, ok := m.index[lowerASCII(s)]
	return i, ok
}

func (m *names4) ref(n nameText) uasset.NameRef {
	i, _ := m.find(n.text)
	return uasset.NameRef{Index: int32(i), Number: n.number}
}

// imports4 names the imports of a 4.26/4.27 package: the null imports are
// the imported packages, a script import is found among the script
// objects, a package import is the hash of an object's full path.
func (b *legacyBuilder) imports4(n4 *names4, ch *zen.ContainerHeader) error {
	p := b.pkg
	b.legacy = make([]legacyImport, len(p.Imports))
	b.byRef = make(map[zen.ObjectIndex]int, len(p.Imports))
	var nulls []int
	for i, x := range p.Imports {
		if x.IsNull() {
			nulls = append(nulls, i)
		} else if _, dup := b.byRef[x]; !dup {
			b.byRef[x] = i
		}
	}
	un := &UnresolvedImportsError{}
	pkgNames, err := b.importedPackages4(ch, len(nulls))
	if err != nil {
		return err
	}
	// path is each named import's full name (lower case): what a package
	// import's hash is made of.
	path := make([]string, len(p.Imports))
	for k, i := range nulls {
		nt := splitNameText(pkgNames[k])
		b.legacy[i] = legacyImport{object: nt, classPackage: plain(coreUObject), className: plain("Package")}
		path[i] = lowerASCII(pkgNames[k])
	}
	var script *zen.ScriptObjects
	if b.src != nil {
		script = b.src.ScriptObjects()
	}
	var pending []int
	scriptWhy := map[int]string{}
	for i, x := range p.Imports {
		switch x.Kind() {
		case zen.KindNull:
		case zen.KindScriptImport:
			if script == nil {
				un.ScriptObjects = true
			}
			err := b.scriptImport(script, i, x)
			var fe *ue.FormatError
			switch {
			case err == nil:
				path[i], _ = script.Path(x)
				path[i] = lowerASCII(strings.NewReplacer(".", "/", ":", "/").Replace(path[i]))
			case errors.Is(err, ErrUnresolvedImport) && errors.As(err, &fe):
				// Named below from the package's names when it can be.
				pending = append(pending, i)
				scriptWhy[i] = fe.Struct + ": " + fe.Msg
			default:
				return err
			}
		case zen.KindPackageImport:
			pending = append(pending, i)
		default:
			return errorf(b.file, fmt.Sprintf("import %d", i), ErrNotConvertible, "%v is not an import", x)
		}
	}
	// The imported packages' exports, when a container set holds them,
	// carry these hashes as their global import indices.
	fromPkg := map[zen.ObjectIndex]struct {
		q *zen.Package
		e int
	}{}
	if b.src != nil {
		for _, pn := range pkgNames {
			q, err := b.src.Package(pn)
			if err != nil || q == nil || q.Layout != zen.LayoutUE4 {
				continue
			}
			for e := range q.Exports {
				fromPkg[zen.ObjectIndex(q.Exports[e].PublicExportHash)] = struct {
					q *zen.Package
					e int
				}{q, e}
			}
		}
	}
	// Name the package imports by hashing outer path + '/' + a name of the
	// name map, outers first, until no more are found.
	left := map[zen.ObjectIndex][]int{}
	for _, i := range pending {
		left[p.Imports[i]] = append(left[p.Imports[i]], i)
	}
	lower := make([]string, len(p.Names))
	for i, s := range p.Names {
		lower[i] = lowerASCII(s)
	}
	// Script packages the script objects did not name: /Script/ names.
	for k, s := range lower {
		if !strings.HasPrefix(s, "/script/") {
			continue
		}
		x := zen.ObjectIndex(cityhash.ScriptImportIndex(s))
		for _, i := range left[x] {
			b.legacy[i] = legacyImport{object: plain(p.Names[k]), classPackage: plain(coreUObject), className: plain("Package"), script: true}
			path[i] = s
		}
		delete(left, x)
	}
	// First with the names as they are; then, for what is left, with the
	// FName number _0 (rare in import paths).
	for num := int32(0); num <= 1 && len(left) > 0; num++ {
		var known []int
		for i := range p.Imports {
			if path[i] != "" {
				known = append(known, i)
			}
		}
		for len(known) > 0 && len(left) > 0 {
			var next []int
			for _, o := range known {
				for k, s := range lower {
					if strings.HasPrefix(s, "/") {
						continue
					}
					full := path[o] + "/" + s
					if num > 0 {
						full += "_0"
					}
					x := zen.ObjectIndex(cityhash.PackageImportIndex(full))
					if b.legacy[o].script {
						x = zen.ObjectIndex(cityhash.ScriptImportIndex(full))
					}
					is, ok := left[x]
					if !ok {
						continue
					}
					delete(left, x)
					for _, i := range is {
						b.legacy[i] = legacyImport{object: nameText{p.Names[k], num}, outer: uasset.PackageIndex(-o - 1), script: b.legacy[o].script}
						path[i] = full
						next = append(next, i)
					}
				}
			}
			known = next
		}
	}
	for _, i := range pending {
		x := p.Imports[i]
		if _, still := left[x]; !still {
			// Named from the names; the imported package, when at hand,
			// gives the class.
			if f, ok := fromPkg[x]; ok && b.legacy[i].className.text == "" {
				if cp, cn, err := b.className(fmt.Sprintf("import %d", i), f.q, f.q.Exports[f.e].Class); err == nil {
					b.legacy[i].classPackage, b.legacy[i].className = cp, cn
				}
			}
			continue
		}
		if why, ok := scriptWhy[i]; ok {
			un.Imports = append(un.Imports, why+", nor a path made of the package's names")
			continue
		}
		f, ok := fromPkg[x]
		if !ok {
			un.Imports = append(un.Imports, fmt.Sprintf("import %d: package import %v is no path made of the package's names under %s", i, x, strings.Join(pkgNames, ", ")))
			continue
		}
		// Named by the imported package's export.
		qe := f.q.Exports[f.e]
		li := legacyImport{object: nameText{f.q.Names[qe.ObjectName.Index()], int32(qe.ObjectName.Number)}}
		if qe.Outer.IsNull() {
			for k, j := range nulls {
				if strings.EqualFold(pkgNames[k], f.q.PackageName()) {
					li.outer = uasset.PackageIndex(-j - 1)
				}
			}
		} else if oi, ok := qe.Outer.Export(); ok && oi < len(f.q.Exports) {
			if j, ok := b.byRef[zen.ObjectIndex(f.q.Exports[oi].PublicExportHash)]; ok {
				li.outer = uasset.PackageIndex(-j - 1)
			}
		}
		if li.outer == 0 {
			un.Imports = append(un.Imports, fmt.Sprintf("import %d: the outer of %s is not imported", i, f.q.ExportPath(f.e)))
			continue
		}
		if cp, cn, err := b.className(fmt.Sprintf("import %d", i), f.q, qe.Class); err == nil {
			li.classPackage, li.className = cp, cn
		}
		b.legacy[i] = li
		delete(left, x)
	}
	if len(un.Imports) > 0 {
		for _, pn := range pkgNames {
			un.Packages = append(un.Packages, pn)
		}
		return unresolved4(b.file, un)
	}
	return b.classes4(script, n4)
}

// unresolved4 is the import map's refusal listing what cannot be named.
func unresolved4(file string, un *UnresolvedImportsError) error {
	return &ue.FormatError{File: file, Struct: "import map", Offset: -1, Msg: un.Error(), Err: un}
}

// splitNameText splits a trailing _N (N without leading zero) into an
// FName number, as FName does.
func splitNameText(s string) nameText {
	base, num := splitName(s)
	return nameText{base, int32(num)}
}

// importedPackages4 names the n null imports (the imported packages, in
// import-map order). The store entry of the package in the container
// header lists their ids in that order; without it they are the names of
// the name map that read as package names (not /Script/, not the package
// itself) and are the outers of package imports, in the cooker's order
// (imports are sorted by class, then path, without case).
func (b *legacyBuilder) importedPackages4(ch *zen.ContainerHeader, n int) ([]string, error) {
	p := b.pkg
	if n == 0 {
		return nil, nil
	}
	ids, ok := []zen.PackageID(nil), false
	if ch != nil {
		ids, ok = storeImports(ch, p.ID())
	}
	if is, has := b.src.(interface {
		importedPackages(zen.PackageID) ([]zen.PackageID, bool)
	}); !ok && has {
		ids, ok = is.importedPackages(p.ID())
	}
	if ok {
		if len(ids) != n {
			return nil, errorf(b.file, "import map", ErrNotConvertible,
				"%d null imports, and the container header's store entry lists %d imported packages", n, len(ids))
		}
		out := make([]string, n)
		un := &UnresolvedImportsError{}
		for k, want := range ids {
			for _, s := range p.Names {
				if strings.HasPrefix(s, "/") && zen.PackageIDFromName(s) == want {
					out[k] = s
					break
				}
			}
			if out[k] == "" {
				un.Imports = append(un.Imports, fmt.Sprintf("imported package %v: no name of the package's name map has that id", want))
			}
		}
		if len(un.Imports) > 0 {
			return nil, unresolved4(b.file, un)
		}
		return out, nil
	}
	// A package name is one some package import's path starts with.
	hashes := map[zen.ObjectIndex]bool{}
	for _, x := range p.Imports {
		hashes[x] = true
	}
	var cands []string
	for _, s := range p.Names {
		if !strings.HasPrefix(s, "/") || strings.HasPrefix(lowerASCII(s), "/script/") || strings.EqualFold(s, b.name) {
			continue
		}
		for _, o := range p.Names {
			if hashes[zen.ObjectIndex(cityhash.PackageImportIndex(lowerASCII(s)+"/"+lowerASCII(o)))] {
				cands = append(cands, s)
				break
			}
		}
	}
	if len(cands) != n {
		return nil, unresolved4(b.file, &UnresolvedImportsError{Imports: []string{fmt.Sprintf(
			"%d null imports (the imported packages) for %d package names in the name map: the container header (the game's .utoc holding %s) names them in its store entry", n, len(cands), b.name)}})
	}
	slices.SortStableFunc(cands, func(x, y string) int { return strings.Compare(lowerASCII(x), lowerASCII(y)) })
	return cands, nil
}

// classes4 gives the package imports named by hash their classes, which a
// hash does not keep: a class default object's class is the object its
// name follows Default__ with, in the same package; another object's class
// is the one script class named in the name map that fits where the
// cooker's sort (imports by class name, then path, without case) put the
// import among the imports whose classes are known. An import neither
// tells is left for templateClasses (an instance has its template's
// class).
func (b *legacyBuilder) classes4(script *zen.ScriptObjects, n4 *names4) error {
	type cand struct{ pkg, name string }
	var cands []cand
	if script != nil {
		for x := range scriptClassSet(b, script) {
			nm, ok1 := script.ObjectName(x)
			e, _ := script.Find(x)
			pk, ok2 := script.Path(e.Outer)
			if !ok1 || !ok2 {
				continue
			}
			if _, ok := n4.find(nm); !ok || strings.HasSuffix(nm, "Property") {
				// 4.26/4.27 properties are not objects: no import is one.
				continue
			}
			if _, ok := n4.find(pk); !ok {
				continue
			}
			cands = append(cands, cand{pk, nm})
		}
	}
	slices.SortFunc(cands, func(x, y cand) int { return strings.Compare(lowerASCII(x.name), lowerASCII(y.name)) })
	top := func(i int) legacyImport {
		li := b.legacy[i]
		for k := 0; li.outer.IsImport() && k < len(b.legacy); k++ {
			li = b.legacy[li.outer.Import()]
		}
		return li
	}
	full := func(i int) string {
		li := b.legacy[i]
		s := lowerASCII(li.object.String())
		for k := 0; li.outer.IsImport() && k < len(b.legacy); k++ {
			li = b.legacy[li.outer.Import()]
			s = lowerASCII(li.object.String()) + "/" + s
		}
		return s
	}
	known := make([]bool, len(b.legacy))
	for i, li := range b.legacy {
		switch {
		case li.className.text != "":
			known[i] = !li.unknownClass
		case strings.HasSuffix(li.object.text, "__DelegateSignature"):
			// A delegate's signature: a function of its class, or at package
			// level a delegate function.
			b.legacy[i].classPackage, b.legacy[i].className = plain(coreUObject), plain("Function")
			if b.legacy[li.outer.Import()].outer == 0 {
				b.legacy[i].className = plain("DelegateFunction")
			}
			known[i] = true
		case strings.HasPrefix(li.object.text, "Default__"):
			b.legacy[i].classPackage = top(i).object
			b.legacy[i].className = nameText{li.object.text[len("Default__"):], li.object.number}
			known[i] = true
		}
	}
	key := func(class string, i int) string { return lowerASCII(class) + "\x00" + full(i) }
	for i, li := range b.legacy {
		if li.className.text != "" {
			continue
		}
		lo, hi := "", "\xff"
		for j := i - 1; j >= 0; j-- {
			if known[j] {
				lo = key(b.legacy[j].className.text, j)
				break
			}
		}
		for j := i + 1; j < len(b.legacy); j++ {
			if known[j] {
				hi = key(b.legacy[j].className.text, j)
				break
			}
		}
		var fit []cand
		for _, c := range cands {
			if !li.script && c.name == "Class" && c.pkg == coreUObject {
				// A package's objects are never native classes: its classes
				// are generated ones (BlueprintGeneratedClass, …).
				continue
			}
			if k := key(c.name, i); lo <= k && k <= hi {
				fit = append(fit, c)
			}
		}
		if len(fit) > 1 && strings.HasSuffix(li.object.text, "_C") {
			// A blueprint's generated class is an instance of a class.
			var classes []cand
			for _, c := range fit {
				if strings.HasSuffix(c.name, "Class") {
					classes = append(classes, c)
				}
			}
			fit = classes
		}
		if len(fit) == 1 {
			b.legacy[i].classPackage, b.legacy[i].className = plain(fit[0].pkg), plain(fit[0].name)
			continue
		}
		if li.script {
			// A native object the script objects given do not hold: a
			// function in a class, else an enum (E and a capital) or a
			// script struct (as scriptClass reads names) — or, when the
			// cooker's sort and the name map allow one kind of native
			// object only, that one (a class: Object, Actor …).
			c := "ScriptStruct"
			switch {
			case strings.HasSuffix(li.object.text, "__DelegateSignature") && top(i).object == b.legacy[li.outer.Import()].object:
				c = "DelegateFunction"
			case top(i).object != b.legacy[li.outer.Import()].object:
				c = "Function"
			case len(li.object.text) > 1 && li.object.text[0] == 'E' && li.object.text[1] >= 'A' && li.object.text[1] <= 'Z':
				c = "Enum"
			}
			var kinds []string
			for _, k := range []string{"Class", "DelegateFunction", "Enum", "Function", "ScriptStruct"} {
				if _, ok := n4.find(k); ok && lo <= key(k, i) && key(k, i) <= hi {
					kinds = append(kinds, k)
				}
			}
			if len(kinds) == 1 || len(kinds) > 0 && !slices.Contains(kinds, c) {
				c = kinds[0]
			}
			b.legacy[i].classPackage, b.legacy[i].className = plain(coreUObject), plain(c)
			continue
		}
		b.legacy[i].classPackage, b.legacy[i].className, b.legacy[i].unknownClass = plain(coreUObject), plain(unknownClass), true
	}
	return nil
}

// scriptClassSet returns the script objects that are classes.
func scriptClassSet(b *legacyBuilder, s *zen.ScriptObjects) map[zen.ObjectIndex]bool {
	if b.classes == nil {
		if c, ok := b.src.(classSet); ok && b.src.ScriptObjects() == s {
			b.classes = c.scriptClasses()
		} else {
			b.classes = scriptClasses(s)
		}
	}
	return b.classes
}

// preload4 gives each export preload dependencies from which the 4.26/4.27
// packer's load order (FExportGraph::ComputeLoadOrder: among the nodes
// waiting for nothing, the lowest export index, Create before Serialize)
// gives the package's export bundle again: walking the bundle, a node the
// sort would take before the bundle's next node is made to wait for the
// node the bundle puts just before it (at most one added dependency per
// node). Then, for each package the graph data names, the exports' class,
// super and template imports of that package (or, failing those, one
// import of it) are added, which gives the packer's arc from it; and the
// script imports the export's class, template and super are. The engine's
// own list is longer (it also names what serialization needs): it is not
// in the package.
func (b *legacyBuilder) preload4(exports []legacyExport) ([]uasset.PackageIndex, [][5]int32, error) {
	p := b.pkg
	nodes := 2 * len(p.Exports)
	if len(p.BundleEntries) != nodes {
		return nil, nil, errorf(b.file, "export bundles", ErrNotConvertible, "%d bundle entries for %d exports: each export has a Create and a Serialize entry", len(p.BundleEntries), len(p.Exports))
	}
	// runs[e][k]: the dependencies of export e, k = sbs, cbs, sbc, cbc.
	runs := make([][4][]uasset.PackageIndex, len(p.Exports))
	add := func(e, k int, x uasset.PackageIndex) {
		if !slices.Contains(runs[e][k], x) {
			runs[e][k] = append(runs[e][k], x)
		}
	}
	in := make([]int, nodes)
	edges := make([][]int, nodes)
	done := make([]bool, nodes)
	seen := make([]bool, nodes)
	for v := 0; v < nodes; v += 2 {
		edges[v] = append(edges[v], v+1)
		in[v+1]++
	}
	order := make([]int, nodes)
	pos := make([]int, nodes)
	for t, be := range p.BundleEntries {
		if be.Export >= uint32(len(p.Exports)) || be.Command > 1 {
			return nil, nil, errorf(b.file, "export bundles", ErrNotConvertible, "entry %d/%d is outside the %d exports", be.Export, be.Command, len(p.Exports))
		}
		v := node(int(be.Export), be.Command)
		if seen[v] {
			return nil, nil, errorf(b.file, "export bundles", ErrNotConvertible, "export %d's command %d is listed twice", be.Export, be.Command)
		}
		seen[v] = true
		order[t], pos[v] = v, t
	}
	// ready holds the nodes waiting for nothing (lazily: a node taken or
	// made to wait since is skipped when met).
	ready := &nodeQueue{byIndex: true}
	for v := 0; v < nodes; v++ {
		if in[v] == 0 {
			ready.push(v)
		}
	}
	for _, v := range order {
		if in[v] != 0 {
			return nil, nil, errorf(b.file, "export bundles", ErrNotConvertible, "export %d is serialized before it is created", v/2)
		}
		for ready.Len() > 0 && ready.nodes[0] < v {
			u := ready.pop()
			if done[u] || in[u] != 0 {
				continue
			}
			// u would be taken before v: it waits for the node the bundle
			// puts just before it (which comes at or after v).
			w := order[pos[u]-1]
			edges[w] = append(edges[w], u)
			in[u]++
			kind := [2][2]int{{3, 1}, {2, 0}}[w%2][u%2] // from w's command to u's
			add(u/2, kind, uasset.PackageIndex(w/2+1))
		}
		done[v] = true
		for _, w := range edges[v] {
			if in[w]--; in[w] == 0 {
				ready.push(w)
			}
		}
	}
	// The packages the graph data names get an arc back from a dependency
	// on one of their objects.
	pkgOf := func(i int) zen.PackageID {
		li := b.legacy[i]
		for k := 0; li.outer.IsImport() && k < len(b.legacy); k++ {
			li = b.legacy[li.outer.Import()]
		}
		return zen.PackageIDFromName(li.object.String())
	}
	inGraph := map[zen.PackageID]bool{}
	for _, g := range p.Graph {
		for _, a := range g.Arcs {
			if a.To != 0 || (a.From != 0 && a.From != -1) {
				return nil, nil, errorf(b.file, "graph data", ErrNotConvertible, "the arc {%d, %d} from %v is not the packer's for a package of one bundle", a.From, a.To, g.Package)
			}
		}
		inGraph[g.Package] = true
	}
	got := map[zen.PackageID]bool{}
	for e, r := range exports {
		for _, d := range []struct {
			x uasset.PackageIndex
			k int
		}{{r.class, 2}, {r.template, 2}, {r.super, 3}} {
			if !d.x.IsImport() {
				continue
			}
			i := d.x.Import()
			switch p.Imports[i].Kind() {
			case zen.KindScriptImport:
				add(e, d.k, d.x)
			case zen.KindPackageImport:
				if id := pkgOf(i); inGraph[id] {
					add(e, d.k, d.x)
					got[id] = true
				}
			}
		}
	}
	for _, g := range p.Graph {
		if got[g.Package] {
			continue
		}
		// On export 0's Serialize, created before (the earliest of the
		// package's nodes); for a package the packer split, on the first
		// node of the bundle the arc went to, from the node the arc came
		// from — Create in the package's first bundle, else Serialize.
		e, kind := 0, 1
		if b.split != nil {
			if x, k, ok := splitArcNode(b.split, g.Package); ok {
				e, kind = x, k
			}
		}
		found := false
		for i, x := range p.Imports {
			if x.Kind() == zen.KindPackageImport && pkgOf(i) == g.Package {
				add(e, kind, uasset.PackageIndex(-i-1))
				found = true
				break
			}
		}
		if !found {
			return nil, nil, errorf(b.file, "graph data", ErrNotConvertible, "the package depends on %v, none of whose objects it imports", g.Package)
		}
	}
	var out []uasset.PackageIndex
	ranges := make([][5]int32, len(p.Exports))
	for e, rs := range runs {
		ranges[e] = [5]int32{-1, 0, 0, 0, 0}
		if len(rs[0])+len(rs[1])+len(rs[2])+len(rs[3]) == 0 {
			continue
		}
		ranges[e] = [5]int32{int32(len(out)), int32(len(rs[0])), int32(len(rs[1])), int32(len(rs[2])), int32(len(rs[3]))}
		for _, r := range rs {
			out = append(out, r...)
		}
	}
	return out, ranges, nil
}

// MergeBundles returns a 4.26/4.27 package as the packer would have
// written it had it been packed without the packages it forms an import
// cycle with (docs/convert.md §9.10): its export bundles merged into one
// (their entries in order, which is the order BundleEntries holds), and
// the graph data's arcs given that one bundle — every arc's to-bundle 0,
// a from-bundle of a package of the run 0 (from −1, a package not in the
// run, kept), each package's arcs unique and sorted by from, then to, as
// the packer adds and sorts them. Everything else is shared with p. A
// package of one bundle (or another layout) is returned as is.
func MergeBundles(p *zen.Package) *zen.Package {
	if p == nil || p.Layout != zen.LayoutUE4 || len(p.Bundles) < 2 {
		return p
	}
	q := *p
	n := uint32(0)
	for _, b := range p.Bundles {
		n += b.EntryCount
	}
	q.Bundles = []zen.ExportBundle{{SerialOffset: p.Bundles[0].SerialOffset, FirstEntry: p.Bundles[0].FirstEntry, EntryCount: n}}
	q.Graph = make([]zen.GraphPackage, len(p.Graph))
	for i, g := range p.Graph {
		var arcs []zen.Arc
		for _, a := range g.Arcs {
			m := zen.Arc{From: min(a.From, 0), To: 0}
			if !slices.Contains(arcs, m) {
				arcs = append(arcs, m)
			}
		}
		slices.SortFunc(arcs, func(x, y zen.Arc) int {
			if c := cmp.Compare(x.From, y.From); c != 0 {
				return c
			}
			return cmp.Compare(x.To, y.To)
		})
		q.Graph[i] = zen.GraphPackage{Package: g.Package, Arcs: arcs}
	}
	return &q
}

// splitArcNode returns, for the first arc (by to-bundle) from package id
// in the split package p's graph data, the export whose node opens the
// bundle the arc goes to and the kind of dependency (0 sbs, 1 cbs, 2 sbc,
// 3 cbc) that makes the packer draw it: from the other package's Create
// when the arc comes from its first bundle (or −1), else from its
// Serialize.
func splitArcNode(p *zen.Package, id zen.PackageID) (export, kind int, ok bool) {
	for _, g := range p.Graph {
		if g.Package != id || len(g.Arcs) == 0 {
			continue
		}
		a := g.Arcs[0]
		for _, x := range g.Arcs[1:] {
			if x.To < a.To {
				a = x
			}
		}
		if a.To < 0 || int(a.To) >= len(p.Bundles) {
			return 0, 0, false
		}
		bd := p.Bundles[a.To]
		if bd.EntryCount == 0 || int(bd.FirstEntry) >= len(p.BundleEntries) {
			return 0, 0, false
		}
		en := p.BundleEntries[bd.FirstEntry]
		from := 0
		if a.From > 0 {
			from = 1
		}
		return int(en.Export), [2][2]int{{3, 1}, {2, 0}}[from][en.Command&1], true
	}
	return 0, 0, false
}
