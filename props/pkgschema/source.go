package pkgschema

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// Package is what Source needs of a cooked package (a zen package, or a
// cooked asset): package iostore/zen/zenprops and uasset/assetprops give
// one.
type Package interface {
	// Name is the package's name, e.g. "/Game/BP/BP_Crate".
	Name() string
	// NumExports is the number of exports.
	NumExports() int
	// ExportName is export i's object name, e.g. "BP_Crate_C".
	ExportName(i int) string
	// ExportClass is the short name of export i's class, e.g.
	// "BlueprintGeneratedClass".
	ExportClass(i int) string
	// ExportData is export i's serialized data.
	ExportData(i int) []byte
	// Context is the property Context of export i, for reading its own
	// property list with the mappings m.
	Context(i int, m *usmap.Mappings) (*props.Context, error)
	// Object is the full path of the object an FPackageIndex of the
	// package's export data refers to ("/Script/Engine.Actor",
	// "/Game/BP/BP_Base.BP_Base_C").
	Object(index int32) string
	// Options are the decoding options of the package's definitions
	// (Names, Imports, Exports, Flags).
	Options() Options
}

// Loader returns the package named name (e.g. "/Game/BP/BP_Base") when it
// is at hand, or nil.
type Loader func(name string) (Package, error)

// Source is a usmap.Source of the classes, structs and enums that a
// package defines, and of those it derives from or refers to that other
// packages define (read through the Loader when they are at hand). Types
// are read when first asked for. It is safe for concurrent use.
type Source struct {
	base *usmap.Mappings
	load Loader
	root Package

	mu        sync.Mutex
	pkgs      map[string]bool   // packages indexed, by lower-case name
	defs      map[string]*def   // definitions, by lower-case short name
	elsewhere map[string]string // referenced types, by lower-case short name: their package
}

// def is one type a package defines.
type def struct {
	pkg    Package
	export int
	enum   bool
	done   bool
	s      *usmap.Struct
	e      *usmap.Enum
	err    error
}

// NewSource returns the Source of package p, which reads the object part
// of its definitions (an unversioned package's BlueprintGeneratedClass
// export has its own property list) with the mappings base, and finds the
// packages other types are defined in with load (nil: none but p).
// Nothing is read before a type is asked for.
func NewSource(p Package, base *usmap.Mappings, load Loader) *Source {
	return &Source{base: base, load: load, root: p}
}

// kindOf tells from the mappings whether a class makes struct
// definitions (a class or script struct, not a function) or enum ones;
// without them (or for a class they lack), from the engine's class names.
func kindOf(base *usmap.Mappings, class string) (isStruct, isEnum bool) {
	for n, i := class, 0; n != "" && i < 64; i++ {
		switch n {
		case "Class", "ScriptStruct":
			return true, false
		case "Enum":
			return false, true
		case "Function", "Object":
			return false, false
		}
		var s *usmap.Struct
		if base != nil {
			s = base.Struct(n)
		}
		if s == nil {
			switch {
			case strings.HasSuffix(n, "BlueprintGeneratedClass"), n == "UserDefinedStruct":
				return true, false
			case n == "UserDefinedEnum":
				return false, true
			}
			break
		}
		n = s.Super
	}
	return false, false
}

// index records the types package p defines and, for the first package,
// the package of each game object it imports: an object of a Blueprint
// class another package defines (an actor placed in a level, a row of a
// user-defined struct) needs that package's definition.
func (s *Source) index(p Package) {
	first := len(s.pkgs) == 0
	s.pkgs[strings.ToLower(p.Name())] = true
	defer func() {
		if first {
			for k, n := 0, p.Options().Imports; k < n; k++ {
				s.refer(p, int32(-k-1))
			}
		}
	}()
	for i := 0; i < p.NumExports(); i++ {
		isStruct, isEnum := kindOf(s.base, p.ExportClass(i))
		if !isStruct && !isEnum {
			continue
		}
		k := strings.ToLower(p.ExportName(i))
		if _, ok := s.defs[k]; !ok {
			s.defs[k] = &def{pkg: p, export: i, enum: isEnum}
		}
	}
}

// find returns the definition of name, loading the package that defines
// it when a definition read before names it; nil when none is known.
func (s *Source) find(name string) (*def, error) {
	if s.defs == nil {
		s.pkgs, s.defs, s.elsewhere = map[string]bool{}, map[string]*def{}, map[string]string{}
		s.index(s.root)
	}
	k := strings.ToLower(name)
	if d, ok := s.defs[k]; ok {
		return d, nil
	}
	pkg, ok := s.elsewhere[k]
	if !ok {
		return nil, nil
	}
	if s.load != nil && !s.pkgs[strings.ToLower(pkg)] {
		p, err := s.load(pkg)
		if err != nil {
			return nil, fmt.Errorf("%s, which defines %s: %w", pkg, name, err)
		}
		if p != nil {
			s.index(p)
			if d, ok := s.defs[k]; ok {
				return d, nil
			}
		}
	}
	return nil, fmt.Errorf("%s is defined by package %s, which is not at hand: %w", name, pkg, usmap.ErrMissing)
}

// Struct returns the schema of the class or struct named name that the
// package (or one it refers to) defines, or nil.
func (s *Source) Struct(name string) (*usmap.Struct, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.find(name)
	if d == nil || err != nil {
		return nil, err
	}
	if d.enum {
		return nil, nil
	}
	s.read(d)
	return d.s, d.err
}

// Enum returns the enum named name that the package (or one it refers
// to) defines, or nil.
func (s *Source) Enum(name string) (*usmap.Enum, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.find(name)
	if d == nil || err != nil {
		return nil, err
	}
	if !d.enum {
		return nil, nil
	}
	s.read(d)
	return d.e, d.err
}

// read decodes a definition once.
func (s *Source) read(d *def) {
	if d.done {
		return
	}
	d.done = true
	p, i := d.pkg, d.export
	name := p.ExportName(i)
	fail := func(err error) {
		d.err = fmt.Errorf("%s, as package %s defines it: %w", name, p.Name(), err)
	}
	ctx, err := p.Context(i, s.base)
	if err != nil {
		fail(err)
		return
	}
	data := p.ExportData(i)
	l, err := props.Decode(data, ctx)
	if err != nil {
		fail(err)
		return
	}
	o := p.Options()
	o.Struct = fmt.Sprintf("%s %s", p.ExportClass(i), p.Name()+"."+name)
	if d.enum {
		e, err := DecodeEnum(data, l.TailEnd, &o)
		if err != nil {
			fail(err)
			return
		}
		d.e = e.Usmap(name)
		return
	}
	st, err := DecodeStruct(data, l.TailEnd, &o)
	if err != nil {
		fail(err)
		return
	}
	us, err := st.Usmap(name, func(x int32) string { return s.refer(p, x) })
	if err != nil {
		fail(err)
		return
	}
	d.s = us
}

// refer names the object x of package p by its short name, and records
// the package that defines it when that is another game package.
func (s *Source) refer(p Package, x int32) string {
	if x == 0 {
		return ""
	}
	path := p.Object(x)
	short := usmap.ShortName(path)
	// Only a package's top-level objects ("/Game/BP/BP_Base.BP_Base_C")
	// define types.
	if pkg, obj, ok := strings.Cut(path, "."); ok && strings.HasPrefix(pkg, "/") && !strings.HasPrefix(pkg, "/Script/") && !strings.ContainsAny(obj, ".:") {
		k := strings.ToLower(short)
		if _, ok := s.defs[k]; !ok {
			if _, ok := s.elsewhere[k]; !ok {
				s.elsewhere[k] = pkg
			}
		}
	}
	return short
}

// Usmap returns the struct's schema under the name name: its super's
// short name and its properties, in slot order, each taking ArrayDim
// slots. object names an FPackageIndex by its short name.
func (st *Struct) Usmap(name string, object func(int32) string) (*usmap.Struct, error) {
	out := &usmap.Struct{Name: name, Super: object(st.Super), Properties: make([]*usmap.Property, 0, len(st.Properties))}
	for _, f := range st.Properties {
		t, err := f.usmapType(object, 0)
		if err != nil {
			return nil, err
		}
		out.Properties = append(out.Properties, &usmap.Property{Index: out.PropertyCount, ArrayDim: int(f.ArrayDim), Name: f.Name, Type: t})
		out.PropertyCount += int(f.ArrayDim)
	}
	return out, nil
}

// ErrIncomplete means a property definition lacks what its type needs (an
// array without an inner property, a struct property naming no struct).
var ErrIncomplete = errors.New("incomplete property definition")

// usmapType returns the .usmap type tree of a definition.
func (f *Field) usmapType(object func(int32) string, depth int) (*usmap.Type, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("property %s: types nest too deep: %w", f.Name, ue.ErrCorrupt)
	}
	inner := func(g *Field, what string) (*usmap.Type, error) {
		if g == nil {
			return nil, fmt.Errorf("%s property %s has no %s: %w: %w", f.Type, f.Name, what, ErrIncomplete, ue.ErrCorrupt)
		}
		return g.usmapType(object, depth+1)
	}
	named := func(what string) (string, error) {
		n := object(f.Ref)
		if n == "" || n == "None" {
			return "", fmt.Errorf("%s property %s names no %s: %w: %w", f.Type, f.Name, what, ErrIncomplete, ue.ErrCorrupt)
		}
		return n, nil
	}
	var err error
	t := &usmap.Type{}
	switch f.Type {
	case "BoolProperty":
		t.Kind = usmap.BoolProperty
	case "ByteProperty":
		t.Kind = usmap.ByteProperty
		if f.Ref != 0 {
			// An enum stored as a byte (TEnumAsByte, a Blueprint enum
			// variable), as mappings dumpers write it.
			e, err := named("enum")
			if err != nil {
				return nil, err
			}
			return &usmap.Type{Kind: usmap.EnumProperty, Enum: e, Inner: &usmap.Type{Kind: usmap.ByteProperty}}, nil
		}
	case "Int8Property":
		t.Kind = usmap.Int8Property
	case "Int16Property":
		t.Kind = usmap.Int16Property
	case "IntProperty":
		t.Kind = usmap.IntProperty
	case "Int64Property":
		t.Kind = usmap.Int64Property
	case "UInt16Property":
		t.Kind = usmap.UInt16Property
	case "UInt32Property":
		t.Kind = usmap.UInt32Property
	case "UInt64Property":
		t.Kind = usmap.UInt64Property
	case "FloatProperty":
		t.Kind = usmap.FloatProperty
	case "DoubleProperty":
		t.Kind = usmap.DoubleProperty
	case "NameProperty":
		t.Kind = usmap.NameProperty
	case "StrProperty":
		t.Kind = usmap.StrProperty
	case "TextProperty":
		t.Kind = usmap.TextProperty
	case "Utf8StrProperty":
		t.Kind = usmap.Utf8StrProperty
	case "AnsiStrProperty":
		t.Kind = usmap.AnsiStrProperty
	case "ObjectProperty", "ObjectPtrProperty", "ClassProperty", "ClassPtrProperty":
		t.Kind = usmap.ObjectProperty
	case "WeakObjectProperty":
		t.Kind = usmap.WeakObjectProperty
	case "LazyObjectProperty":
		t.Kind = usmap.LazyObjectProperty
	case "SoftObjectProperty", "SoftClassProperty":
		t.Kind = usmap.SoftObjectProperty
	case "InterfaceProperty":
		t.Kind = usmap.InterfaceProperty
	case "DelegateProperty":
		t.Kind = usmap.DelegateProperty
	case "MulticastDelegateProperty", "MulticastInlineDelegateProperty", "MulticastSparseDelegateProperty":
		t.Kind = usmap.MulticastDelegateProperty
	case "FieldPathProperty":
		t.Kind = usmap.FieldPathProperty
	case "StructProperty":
		t.Kind = usmap.StructProperty
		t.Struct, err = named("struct")
	case "EnumProperty":
		t.Kind = usmap.EnumProperty
		if t.Enum, err = named("enum"); err == nil {
			t.Inner, err = inner(f.Inner, "underlying property")
		}
	case "ArrayProperty":
		t.Kind = usmap.ArrayProperty
		t.Inner, err = inner(f.Inner, "inner property")
	case "SetProperty":
		t.Kind = usmap.SetProperty
		t.Inner, err = inner(f.Inner, "element property")
	case "OptionalProperty":
		t.Kind = usmap.OptionalProperty
		t.Inner, err = inner(f.Inner, "value property")
	case "MapProperty":
		t.Kind = usmap.MapProperty
		if t.Inner, err = inner(f.Inner, "key property"); err == nil {
			t.Value, err = inner(f.Value, "value property")
		}
	default:
		return nil, fmt.Errorf("property %s of type %s: %w", f.Name, f.Type, ErrUnknownField)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Usmap returns the enum as the mappings hold enums, under the name
// name.
func (e *Enum) Usmap(name string) *usmap.Enum {
	out := &usmap.Enum{Name: name, Entries: make([]usmap.EnumEntry, len(e.Entries))}
	for i, x := range e.Entries {
		out.Entries[i] = usmap.EnumEntry{Value: uint64(x.Value), Name: x.Name}
	}
	return out
}
