package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/usmap"
)

// Properties is the properties of a package's exports: what `unrmod props`
// shows.
type Properties struct {
	File    string             `json:"file" yaml:"file"`
	Package string             `json:"package,omitempty" yaml:"package,omitempty"` // a zen package's name
	Exports []ExportProperties `json:"exports" yaml:"exports"`
	// Skipped counts the exports (of all listed) whose data is not a
	// property list.
	Skipped int `json:"skipped,omitempty" yaml:"skipped,omitempty"`
}

// ExportProperties is one export's properties.
type ExportProperties struct {
	Index      int        `json:"index" yaml:"index"`
	Path       string     `json:"path" yaml:"path"`
	Class      string     `json:"class" yaml:"class"`
	Properties []Property `json:"properties" yaml:"properties"`
	// Defaults is set for a class export of a legacy package: Properties
	// are the class's default properties.
	Defaults bool          `json:"defaults,omitempty" yaml:"defaults,omitempty"`
	Rows     []PropertyRow `json:"rows,omitempty" yaml:"rows,omitempty"`
	// NativeBytes is the size of the data after the properties (and
	// rows): the class's own serialization.
	NativeBytes int `json:"native_bytes,omitempty" yaml:"native_bytes,omitempty"`
	// Text is the text form, as props.Format gives it (a zen package) or
	// as "Name (Type) = value" lines (a legacy package).
	Text string `json:"-" yaml:"-"`
}

// PropertyRow is a DataTable row.
type PropertyRow struct {
	Name       string     `json:"name" yaml:"name"`
	Properties []Property `json:"properties" yaml:"properties"`
}

// Property is one property, struct member or array element.
type Property struct {
	Name     string     `json:"name" yaml:"name"`                       // the property or member name; "[i]" for an element
	Index    int        `json:"index,omitempty" yaml:"index,omitempty"` // static-array index
	Type     string     `json:"type,omitempty" yaml:"type,omitempty"`
	Struct   string     `json:"struct,omitempty" yaml:"struct,omitempty"`     // the struct of a legacy StructProperty
	Value    string     `json:"value,omitempty" yaml:"value,omitempty"`       // the value, when it fits on a line
	Fields   []Property `json:"fields,omitempty" yaml:"fields,omitempty"`     // struct members
	Elements []Property `json:"elements,omitempty" yaml:"elements,omitempty"` // array elements
	Problem  string     `json:"problem,omitempty" yaml:"problem,omitempty"`   // why the value was kept raw
}

// NotDataTableError is the error of a row asked of an export that is no
// DataTable.
type NotDataTableError struct {
	File, Path string
}

func (e *NotDataTableError) Error() string {
	return fmt.Sprintf("%s: %s is not a DataTable", e.File, e.Path)
}

// NewZenProperties reads the properties of the exports in list of zen
// package p, read from file; r resolves imports (nil resolves none). With
// all set, exports whose data has no property list are counted, not
// refused. A row name other than "" keeps only that row of DataTables: a
// listed export that is no DataTable fails with a *NotDataTableError.
// Packages with unversioned properties are refused with
// props.ErrUnversioned.
//
// m is the game's property schema, which packages cooked with unversioned
// properties need; nil refuses them with props.ErrUnversioned.
func NewZenProperties(file string, p *zen.Package, r *zen.Resolver, list []int, all bool, row string, m *usmap.Mappings) (*Properties, error) {
	if r == nil {
		r = &zen.Resolver{}
	}
	return newProperties(source{
		file:        file,
		pkg:         p.PackageName(),
		unversioned: p.PackageFlags&zen.FlagUnversionedProperties != 0 && m == nil,
		decode: func(i int) (*props.Export, error) {
			x, err := zenprops.DecodeExportWith(p, r, i, m)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", file, p.ExportPath(i), err)
			}
			return x, nil
		},
		path:   p.ExportPath,
		class:  func(i int) string { return r.ClassName(p, i) },
		object: zenprops.NewResolver(p, r).Name,
	}, list, all, row)
}

// NewCookedProperties reads the properties of the exports in list of
// cooked asset p (a .uasset with its .uexp), read from file, into the same
// document NewZenProperties gives for the zen package cooked from the same
// asset: export paths, classes, properties (object references named by
// their paths) and DataTable rows are equal. pkg names the package as
// assetprops.NewResolver takes it ("" takes the summary's package name,
// which UE4 cooks leave "None"). all and row are NewZenProperties'; errors
// decoding an export name p.FileName and the export. Assets cooked with
// unversioned properties are refused with props.ErrUnversioned.
//
// m is the game's property schema, which assets cooked with unversioned
// properties need; nil refuses them with props.ErrUnversioned.
func NewCookedProperties(file string, p *uasset.Package, pkg string, list []int, all bool, row string, m *usmap.Mappings) (*Properties, error) {
	if pkg == "" {
		pkg = assetprops.PackageName(p)
	}
	r := assetprops.NewResolver(p, pkg)
	return newProperties(source{
		file:        file,
		pkg:         pkg,
		unversioned: p.UnversionedProperties() && m == nil,
		decode:      func(i int) (*props.Export, error) { return assetprops.DecodeExportWith(p, i, m) },
		path:        r.ExportPath,
		class:       r.ClassName,
		object:      r.Name,
	}, list, all, row)
}

// source is what newProperties needs of one package format.
type source struct {
	file, pkg   string // the file's name and the package's
	unversioned bool   // the package's properties are unversioned
	// decode reads export i's properties (and rows); its errors name the
	// file and the export.
	decode      func(i int) (*props.Export, error)
	path, class func(i int) string // export i's path and class name
	object      func(int32) string // names an FPackageIndex
}

// newProperties reads the properties of the exports in list of the
// package s gives, as NewZenProperties documents.
func newProperties(s source, list []int, all bool, row string) (*Properties, error) {
	if s.unversioned {
		return nil, fmt.Errorf("%s: %w", s.file, props.ErrUnversioned)
	}
	d := &Properties{File: s.file, Package: s.pkg, Exports: []ExportProperties{}}
	fopts := &props.FormatOptions{Object: s.object, MaxElements: -1}
	rowFound := false
	for _, i := range list {
		e := ExportProperties{Index: i, Path: s.path(i), Class: s.class(i)}
		x, err := s.decode(i)
		switch {
		case err != nil && all:
			d.Skipped++
			continue
		case err != nil:
			return nil, err
		case x.Table == nil && row != "" && all:
			continue
		case x.Table == nil && row != "":
			return nil, &NotDataTableError{File: s.file, Path: e.Path}
		}
		e.Properties, e.NativeBytes = Entries(x.Properties, s.object), len(x.Rest)
		switch t := x.Table; {
		case t == nil:
			e.Text = x.Properties.Format(fopts)
		case row == "":
			e.Text = t.Format(fopts)
			for _, rw := range t.Rows {
				e.Rows = append(e.Rows, PropertyRow{Name: rw.Name.Text, Properties: Entries(rw.Properties, s.object)})
			}
		case t.Row(row) != nil:
			rw := t.Row(row)
			rowFound = true
			e.Text = "Row " + rw.Name.Text + "\n" + indent(rw.Properties.Format(fopts), "  ")
			e.Properties = []Property{} // only the row's properties are shown
			e.Rows = []PropertyRow{{Name: rw.Name.Text, Properties: Entries(rw.Properties, s.object)}}
		case all:
			continue
		default:
			var names []string
			for _, rw := range t.Rows {
				names = append(names, rw.Name.Text)
			}
			return nil, fmt.Errorf("%s: %s has no row %q; its rows: %s", s.file, e.Path, row, strings.Join(names, ", "))
		}
		d.Exports = append(d.Exports, e)
	}
	if row != "" && all && !rowFound {
		return nil, fmt.Errorf("%s: no DataTable of the package has a row %q", s.file, row)
	}
	return d, nil
}

func indent(s, pad string) string {
	if s == "" {
		return s
	}
	return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
}

// Entries converts a property list of any package format to its
// Properties; object names its object references (zenprops.Resolver.Name
// for a zen package, assetprops.Resolver.Name for a cooked asset: both
// name them by their paths, so the two formats give equal Properties).
func Entries(l *props.List, object func(int32) string) []Property {
	out := make([]Property, 0, len(l.Properties))
	for _, q := range l.Properties {
		e := entry(q.Name.Text, q.Value, object)
		e.Index, e.Type, e.Problem = int(q.ArrayIndex), q.TypeString(), q.Problem
		out = append(out, e)
	}
	return out
}

func entry(name string, v props.Value, object func(int32) string) Property {
	e := Property{Name: name}
	switch x := v.(type) {
	case *props.Struct:
		switch {
		case x.Tagged != nil:
			e.Fields = Entries(x.Tagged, object)
			return e
		case len(x.Native) > 1 || len(x.Native) == 1 && x.Native[0].Name != "":
			for _, f := range x.Native {
				e.Fields = append(e.Fields, entry(f.Name, f.Value, object))
			}
			return e
		}
	case *props.Array:
		e.Elements = make([]Property, 0, len(x.Elements))
		for i, el := range x.Elements {
			e.Elements = append(e.Elements, entry(fmt.Sprintf("[%d]", i), el.Value, object))
		}
		return e
	case *props.Delegate:
		e.Fields = delegateFields(x, object)
		return e
	case *props.MulticastDelegate:
		e.Elements = make([]Property, 0, len(x.Delegates))
		for i := range x.Delegates {
			e.Elements = append(e.Elements, Property{Name: fmt.Sprintf("[%d]", i), Fields: delegateFields(&x.Delegates[i], object)})
		}
		return e
	}
	e.Value = props.Display(v, object)
	return e
}

// delegateFields returns a delegate's object (named as object references
// are) and function name as the fields Object and FunctionName, the
// members of the engine's FScriptDelegate.
func delegateFields(d *props.Delegate, object func(int32) string) []Property {
	return []Property{
		{Name: "Object", Value: props.Display(d.Object, object)},
		{Name: "FunctionName", Value: d.Function.Text},
	}
}

// NewLegacyProperties reads the properties of the exports in list of
// legacy package p, read from file: an export's tagged properties, or a
// class's default properties. With all set, exports whose data has no
// property list are counted, not refused.
func NewLegacyProperties(file string, p *reader.Package, list []int, all bool) (*Properties, error) {
	d := &Properties{File: file, Exports: []ExportProperties{}}
	for _, i := range list {
		e := ExportProperties{Index: i, Path: p.ExportPath(i), Class: p.ClassName(i)}
		l, err := p.Properties(i)
		if errors.Is(err, reader.ErrNoPropertyList) {
			e.Defaults = true
			l, err = p.ClassDefaults(i)
		}
		if err != nil {
			if all {
				d.Skipped++
				continue
			}
			return nil, err
		}
		var b strings.Builder
		e.Properties = make([]Property, 0, len(l.Props))
		for k := range l.Props {
			q := &l.Props[k]
			pe := Property{Name: p.NameOf(q.Name), Index: q.ArrayIndex, Type: q.Type.String() + "Property"}
			if q.Type == reader.PropStruct {
				pe.Struct = p.NameOf(q.StructName)
				pe.Type = "StructProperty(" + pe.Struct + ")"
			}
			v, err := p.PropertyValue(i, q)
			if err != nil {
				pe.Problem = err.Error()
			} else {
				pe.Value = p.FormatValue(v)
				if fields, ok := p.StructFields(v); ok {
					pe.Fields = legacyFields(p, fields)
				}
			}
			label := pe.Name
			if pe.Index != 0 {
				label = fmt.Sprintf("%s[%d]", pe.Name, pe.Index)
			}
			fmt.Fprintf(&b, "%s (%s) = %s\n", label, pe.Type, pe.Value)
			if pe.Problem != "" {
				fmt.Fprintf(&b, "  (not read: %s)\n", pe.Problem)
			}
			e.Properties = append(e.Properties, pe)
		}
		if !e.Defaults {
			e.NativeBytes = len(p.Exports[i].Data) - l.End
		}
		if e.NativeBytes > 0 {
			fmt.Fprintf(&b, "(%d bytes of native data after the properties)\n", e.NativeBytes)
		}
		e.Text = b.String()
		d.Exports = append(d.Exports, e)
	}
	return d, nil
}

// legacyFields converts the members of a struct value to entries.
func legacyFields(p *reader.Package, fields []reader.StructField) []Property {
	out := make([]Property, 0, len(fields))
	for _, f := range fields {
		pe := Property{Name: f.Name, Index: f.Index, Type: f.Value.Type.String() + "Property", Value: p.FormatValue(f.Value)}
		if f.Value.Type == reader.PropStruct {
			pe.Struct = f.Struct
			pe.Type = "StructProperty(" + pe.Struct + ")"
			if f.Fields != nil {
				pe.Value = p.FormatFields(f.Fields)
				pe.Fields = legacyFields(p, f.Fields)
			}
		}
		out = append(out, pe)
	}
	return out
}
