// Package zenbuild makes small zen packages shaped as the engine cooks
// them, from a description: the project's demo packages and containers,
// and the packages tests and benchmarks store in containers. Packages are
// built as a zen.Package model and encoded by the zen codec, so every
// offset, hash and bundle is what the codec (and the engine) expects.
package zenbuild

import (
	"fmt"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/iostore/zen"
)

// Spec describes a package.
type Spec struct {
	// Name is the long package name, e.g. "/Game/Data/DT_DemoItems".
	Name string
	// SourceName (4.26/4.27) is the package a localized or redirected
	// package stands for; "" gives what the engine's packer does: the
	// name without /L10N/<culture> for a localized package
	// (zen.LocalizedSource), the name itself otherwise. The public
	// exports' GlobalImportIndex hashes their path under it, as the
	// packer gives a localized package's exports its source's.
	SourceName string
	// Layout is the engine generation to lay the package out for.
	Layout zen.Layout
	// Flags are the package flags; FilterEditorOnly is always set, as in
	// every cooked package.
	Flags zen.PackageFlags
	// Versioned gives a UE5 package versioning info for its layout.
	Versioned bool
	// Names are names the export data refers to (property names, FName
	// values), in the order they take in the name map after the package
	// name and the export names.
	Names []string
	// Imports are script objects the package imports, e.g.
	// "/Script/Engine.DataTable".
	Imports []string
	// ImportedPackages are the packages the package depends on (their
	// long names): 4.26/4.27 graph data and 5.3+ imported package names.
	ImportedPackages []string
	// Exports are the package's objects.
	Exports []Export
	// CookedHeaderSize is the size of the legacy header the cooker worked
	// from; 0 picks a plausible value.
	CookedHeaderSize uint32
}

// Export describes one export.
type Export struct {
	Name string
	// Class is the script path of a native class ("/Script/Engine.DataTable")
	// or, as "#N", export N of the package (a Blueprint's generated class).
	Class string
	// Super and Template are script paths or "#N"; "" is none.
	Super, Template string
	// Outer is the index of the export's outer export, or -1 for the
	// package.
	Outer int
	Flags zen.ObjectFlags
	// Data is the export's serialized data, used as it is when Props and
	// Rows are empty.
	Data []byte
	// Props are the object's tagged properties. With Props or Rows the
	// data is written as the engine serializes an object: the properties,
	// the has-GUID flag of objects that are not class defaults, the rows
	// of a DataTable (Table), then Native.
	Props []Prop
	// Table marks a DataTable: Rows follow the properties.
	Table bool
	Rows  []Row
	// Native are the bytes after the properties (a class's native data).
	Native []byte
}

// Build returns the package model.
func Build(s Spec) (*zen.Package, error) {
	if err := zen.CheckPackageName(s.Name); err != nil {
		return nil, err
	}
	if s.Layout == zen.LayoutUnknown {
		return nil, fmt.Errorf("zenbuild: %s: no layout", s.Name)
	}
	p := &zen.Package{Layout: s.Layout, PackageFlags: s.Flags | zen.FlagFilterEditorOnly, CookedHeaderSize: s.CookedHeaderSize}
	names := map[string]int{}
	name := func(n string) zen.MappedName {
		i, ok := names[n]
		if !ok {
			i = len(p.Names)
			names[n] = i
			p.Names = append(p.Names, n)
		}
		return zen.MappedName{IndexAndType: uint32(i)}
	}
	// The name map holds every name the package uses, sorted as the
	// cooker sorts it (case-insensitively); a UE5 package's own name comes
	// last.
	complete := s.Layout >= zen.LayoutUE54
	all := append([]string{"None"}, s.Names...)
	for _, e := range s.Exports {
		all = append(all, e.Name)
		all = append(all, propNames(e.Props, complete)...)
		for _, r := range e.Rows {
			all = append(all, r.Name)
			all = append(all, propNames(r.Props, complete)...)
		}
	}
	// The cooker keeps the names of what the package imports: the script
	// package and the object's name.
	for _, imp := range s.Imports {
		module, obj, _ := strings.Cut(imp, ".")
		all = append(all, module)
		if obj != "" {
			all = append(all, obj)
		}
	}
	source := s.SourceName
	if source == "" {
		source, _, _ = zen.LocalizedSource(s.Name)
	}
	if !s.Layout.IsUE5() {
		all = append(all, s.Name)
		if source != s.Name {
			all = append(all, source)
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return strings.ToLower(all[a]) < strings.ToLower(all[b]) })
	for _, n := range all {
		name(n)
	}
	p.Name = name(s.Name)
	if !s.Layout.IsUE5() {
		p.SourceName = name(source)
	}
	w := &propWriter{name: func(n string) int32 { return int32(name(n).IndexAndType) }, completeTag: complete}
	for _, imp := range s.Imports {
		p.Imports = append(p.Imports, zen.ScriptObject(imp))
	}
	ref := func(spec string) (zen.ObjectIndex, error) {
		switch {
		case spec == "":
			return zen.NullObject, nil
		case spec[0] == '#':
			var i int
			if _, err := fmt.Sscanf(spec, "#%d", &i); err != nil || i < 0 || i >= len(s.Exports) {
				return 0, fmt.Errorf("zenbuild: %s: bad export reference %q", s.Name, spec)
			}
			return zen.ExportObject(i), nil
		}
		return zen.ScriptObject(spec), nil
	}
	for _, e := range s.Exports {
		x := zen.Export{ObjectName: name(e.Name), Outer: zen.NullObject, ObjectFlags: e.Flags, Data: e.Data}
		if len(e.Props) > 0 || e.Table {
			x.Data = w.object(nil, e.Props)
			if e.Flags&zen.FlagClassDefaultObject == 0 {
				x.Data = append(x.Data, 0, 0, 0, 0) // no object GUID
			}
			if e.Table {
				x.Data = binio.AppendI32(x.Data, int32(len(e.Rows)))
				for _, r := range e.Rows {
					x.Data = w.fname(x.Data, r.Name)
					x.Data = w.list(x.Data, r.Props)
				}
			}
			x.Data = append(x.Data, e.Native...)
			if w.err != nil {
				return nil, w.err
			}
		}
		if e.Outer >= 0 {
			x.Outer = zen.ExportObject(e.Outer)
		}
		var err error
		if x.Class, err = ref(e.Class); err != nil {
			return nil, err
		}
		if x.Super, err = ref(e.Super); err != nil {
			return nil, err
		}
		if x.Template, err = ref(e.Template); err != nil {
			return nil, err
		}
		x.PublicExportHash = 0
		if !s.Layout.IsUE5() {
			x.PublicExportHash = uint64(zen.NullObject)
		}
		p.Exports = append(p.Exports, x)
	}
	// Public exports get their identity hash from their path.
	for i := range p.Exports {
		if p.Exports[i].ObjectFlags&zen.FlagPublic == 0 {
			continue
		}
		if s.Layout.IsUE5() {
			p.Exports[i].PublicExportHash = cityhash.PublicExportHash(p.RelativePath(i, "/"))
		} else {
			p.Exports[i].PublicExportHash = cityhash.PackageImportIndex(source + p.ExportPath(i)[len(s.Name):])
		}
	}
	// One export bundle: create every export, then serialize every export.
	for i := range p.Exports {
		p.BundleEntries = append(p.BundleEntries, zen.BundleEntry{Export: uint32(i), Command: zen.CommandCreate})
	}
	for i := range p.Exports {
		p.BundleEntries = append(p.BundleEntries, zen.BundleEntry{Export: uint32(i), Command: zen.CommandSerialize})
	}
	imported := append([]string(nil), s.ImportedPackages...)
	sort.Slice(imported, func(a, b int) bool { return zen.PackageIDFromName(imported[a]) < zen.PackageIDFromName(imported[b]) })
	switch {
	case !s.Layout.IsUE5():
		p.Bundles = []zen.ExportBundle{{EntryCount: uint32(len(p.BundleEntries))}}
		for _, ip := range imported {
			p.Graph = append(p.Graph, zen.GraphPackage{Package: zen.PackageIDFromName(ip), Arcs: []zen.Arc{{From: 0, To: 0}}})
		}
	case s.Layout < zen.LayoutUE53:
		p.Bundles = []zen.ExportBundle{{EntryCount: uint32(len(p.BundleEntries))}}
		p.ExternalArcs = make([][]zen.ExternalArc, len(imported))
	default:
		for range p.Exports {
			p.DependencyHeaders = append(p.DependencyHeaders, zen.DependencyHeader{FirstEntry: -1})
		}
		for _, ip := range imported {
			p.ImportedPackages = append(p.ImportedPackages, zen.PackageName{Name: ip})
		}
	}
	if s.Layout.IsUE5() {
		p.Trailing = []byte{0xC1, 0x83, 0x2A, 0x9E}
		if s.Versioned {
			p.Versioning = versioning(s.Layout)
		}
	}
	if p.CookedHeaderSize == 0 {
		p.CookedHeaderSize = uint32(1024 + 64*len(p.Names) + 100*len(p.Exports))
	}
	return p, nil
}

// versioning returns the versioning info the engine generation writes.
func versioning(l zen.Layout) *zen.Versioning {
	e := map[zen.Layout]zen.Engine{zen.LayoutUE50: {Major: 5, Minor: 1}, zen.LayoutUE52: {Major: 5, Minor: 2},
		zen.LayoutUE53: {Major: 5, Minor: 3}, zen.LayoutUE54: {Major: 5, Minor: 5}, zen.LayoutUE56: zen.Engine58}[l]
	zv := map[zen.Layout]uint32{zen.LayoutUE50: 0, zen.LayoutUE52: 1}[l]
	if l >= zen.LayoutUE53 {
		zv = 3
	}
	return &zen.Versioning{ZenVersion: zv, FileVersionUE4: 522, FileVersionUE5: e.ObjectVersionUE5()}
}

// Encode builds the package and encodes it.
func Encode(s Spec) ([]byte, error) {
	p, err := Build(s)
	if err != nil {
		return nil, err
	}
	return p.Encode()
}

// Blob returns the bytes of a package named name holding one public
// object of class /Script/CoreUObject.Object whose data is data: a real
// package chunk for tests that store given bytes in a container.
func Blob(name string, l zen.Layout, data []byte) ([]byte, error) {
	obj := name[len(name)-len(lastName(name)):]
	return Encode(Spec{Name: name, Layout: l, Imports: []string{"/Script/CoreUObject.Object"},
		Exports: []Export{{Name: obj, Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2, Data: data}}})
}

func lastName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

// ScriptObjects returns the script objects of a game whose script
// packages hold the given classes ("/Script/CoreUObject.Object"): each
// class's package, the class and its class default object, as a
// global.utoc lists them, so that a package built here that imports the
// classes can be converted (convert.NewContainerSource).
func ScriptObjects(classes ...string) *zen.ScriptObjects {
	so := &zen.ScriptObjects{}
	names := map[string]uint32{}
	name := func(text string) zen.MappedName {
		i, ok := names[text]
		if !ok {
			i = uint32(len(so.Names))
			names[text] = i
			so.Names = append(so.Names, text)
		}
		return zen.MappedName{IndexAndType: i | 2<<30} // the global name map
	}
	have := map[zen.ObjectIndex]bool{}
	add := func(e zen.ScriptObjectEntry) {
		if !have[e.Index] {
			have[e.Index] = true
			so.Objects = append(so.Objects, e)
		}
	}
	for _, c := range classes {
		module, class, _ := strings.Cut(c, ".")
		add(zen.ScriptObjectEntry{Name: name(module), Index: zen.ScriptObject(module), Outer: zen.NullObject, CDOClass: zen.NullObject})
		add(zen.ScriptObjectEntry{Name: name(class), Index: zen.ScriptObject(c), Outer: zen.ScriptObject(module), CDOClass: zen.NullObject})
		add(zen.ScriptObjectEntry{Name: name("Default__" + class), Index: zen.ScriptObject(module + ".Default__" + class),
			Outer: zen.ScriptObject(module), CDOClass: zen.ScriptObject(c)})
	}
	return so
}
