package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
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
func NewZenProperties(file string, p *zen.Package, r *zen.Resolver, list []int, all bool, row string) (*Properties, error) {
	d := &Properties{File: file, Package: p.PackageName(), Exports: []ExportProperties{}}
	if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
		return nil, fmt.Errorf("%s: %w", file, props.ErrUnversioned)
	}
	if r == nil {
		r = &zen.Resolver{}
	}
	object := zenprops.NewResolver(p, r).Name
	fopts := &props.FormatOptions{Object: object, MaxElements: -1}
	rowFound := false
	for _, i := range list {
		e := ExportProperties{Index: i, Path: p.ExportPath(i), Class: r.ClassName(p, i)}
		x, err := zenprops.DecodeExport(p, r, i)
		switch {
		case err != nil && all:
			d.Skipped++
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %s: %w", file, e.Path, err)
		case x.Table == nil && row != "" && all:
			continue
		case x.Table == nil && row != "":
			return nil, &NotDataTableError{File: file, Path: e.Path}
		}
		e.Properties, e.NativeBytes = zenEntries(x.Properties, object), len(x.Rest)
		switch t := x.Table; {
		case t == nil:
			e.Text = x.Properties.Format(fopts)
		case row == "":
			e.Text = t.Format(fopts)
			for _, rw := range t.Rows {
				e.Rows = append(e.Rows, PropertyRow{Name: rw.Name.Text, Properties: zenEntries(rw.Properties, object)})
			}
		case t.Row(row) != nil:
			rw := t.Row(row)
			rowFound = true
			e.Text = "Row " + rw.Name.Text + "\n" + indent(rw.Properties.Format(fopts), "  ")
			e.Properties = []Property{} // only the row's properties are shown
			e.Rows = []PropertyRow{{Name: rw.Name.Text, Properties: zenEntries(rw.Properties, object)}}
		case all:
			continue
		default:
			var names []string
			for _, rw := range t.Rows {
				names = append(names, rw.Name.Text)
			}
			return nil, fmt.Errorf("%s: %s has no row %q; its rows: %s", file, e.Path, row, strings.Join(names, ", "))
		}
		d.Exports = append(d.Exports, e)
	}
	if row != "" && all && !rowFound {
		return nil, fmt.Errorf("%s: no DataTable of the package has a row %q", file, row)
	}
	return d, nil
}

func indent(s, pad string) string {
	if s == "" {
		return s
	}
	return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
}

// zenEntries converts a property list to entries.
func zenEntries(l *props.List, object func(int32) string) []Property {
	out := make([]Property, 0, len(l.Properties))
	for _, q := range l.Properties {
		e := zenEntry(q.Name.Text, q.Value, object)
		e.Index, e.Type, e.Problem = int(q.ArrayIndex), q.TypeString(), q.Problem
		out = append(out, e)
	}
	return out
}

func zenEntry(name string, v props.Value, object func(int32) string) Property {
	e := Property{Name: name}
	switch x := v.(type) {
	case *props.Struct:
		switch {
		case x.Tagged != nil:
			e.Fields = zenEntries(x.Tagged, object)
			return e
		case len(x.Native) > 1 || len(x.Native) == 1 && x.Native[0].Name != "":
			for _, f := range x.Native {
				e.Fields = append(e.Fields, zenEntry(f.Name, f.Value, object))
			}
			return e
		}
	case *props.Array:
		e.Elements = make([]Property, 0, len(x.Elements))
		for i, el := range x.Elements {
			e.Elements = append(e.Elements, zenEntry(fmt.Sprintf("[%d]", i), el.Value, object))
		}
		return e
	}
	e.Value = props.Display(v, object)
	return e
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
