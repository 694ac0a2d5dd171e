package assetprops

import (
	"fmt"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
)

// Document is the properties of a package's exports in a form that does
// not depend on the package format: what "unrmod props" shows. A cooked
// asset and the zen package made from it give equal Documents (Entries
// names object references by their paths on both sides).
type Document struct {
	Package string           `json:"package,omitempty" yaml:"package,omitempty"`
	Exports []ExportDocument `json:"exports" yaml:"exports"`
	// Skipped counts the exports whose data is not a property list.
	Skipped int `json:"skipped,omitempty" yaml:"skipped,omitempty"`
}

// ExportDocument is one export's properties.
type ExportDocument struct {
	Index      int           `json:"index" yaml:"index"`
	Path       string        `json:"path" yaml:"path"`
	Class      string        `json:"class" yaml:"class"`
	Properties []Entry       `json:"properties" yaml:"properties"`
	Rows       []RowDocument `json:"rows,omitempty" yaml:"rows,omitempty"`
	// NativeBytes is the size of the data after the properties (and
	// rows): the class's own serialization.
	NativeBytes int `json:"native_bytes,omitempty" yaml:"native_bytes,omitempty"`
}

// RowDocument is a DataTable row.
type RowDocument struct {
	Name       string  `json:"name" yaml:"name"`
	Properties []Entry `json:"properties" yaml:"properties"`
}

// Entry is one property, struct member or array element.
type Entry struct {
	Name     string  `json:"name" yaml:"name"`                       // the property or member name; "[i]" for an element
	Index    int     `json:"index,omitempty" yaml:"index,omitempty"` // static-array index
	Type     string  `json:"type,omitempty" yaml:"type,omitempty"`
	Value    string  `json:"value,omitempty" yaml:"value,omitempty"`       // the value, when it fits on a line
	Fields   []Entry `json:"fields,omitempty" yaml:"fields,omitempty"`     // struct members
	Elements []Entry `json:"elements,omitempty" yaml:"elements,omitempty"` // array elements
	Problem  string  `json:"problem,omitempty" yaml:"problem,omitempty"`   // why the value was kept raw
}

// Describe reads every export of p whose data is a property list (the
// others are counted in Skipped) into a Document; pkg names the package
// as NewResolver takes it. Packages cooked with unversioned properties
// are refused with props.ErrUnversioned.
func Describe(p *uasset.Package, pkg string) (*Document, error) {
	if p.UnversionedProperties() {
		return nil, fmt.Errorf("%s: %w", p.FileName, props.ErrUnversioned)
	}
	r := NewResolver(p, pkg)
	d := &Document{Package: r.pkg, Exports: []ExportDocument{}}
	for i := range p.Exports {
		x, err := DecodeExport(p, i)
		if err != nil {
			d.Skipped++
			continue
		}
		d.Exports = append(d.Exports, ExportOf(x, i, r.ExportPath(i), r.ClassName(i), r.Name))
	}
	return d, nil
}

// ExportOf turns a decoded export (of any package format) into its
// ExportDocument; object names its object references (e.g.
// Resolver.Name, or zenprops.Resolver.Name for a zen package).
func ExportOf(x *props.Export, index int, path, class string, object func(int32) string) ExportDocument {
	e := ExportDocument{Index: index, Path: path, Class: class, Properties: Entries(x.Properties, object), NativeBytes: len(x.Rest)}
	if x.Table != nil {
		for _, rw := range x.Table.Rows {
			e.Rows = append(e.Rows, RowDocument{Name: rw.Name.Text, Properties: Entries(rw.Properties, object)})
		}
	}
	return e
}

// Entries converts a property list to entries.
func Entries(l *props.List, object func(int32) string) []Entry {
	out := make([]Entry, 0, len(l.Properties))
	for _, q := range l.Properties {
		e := entry(q.Name.Text, q.Value, object)
		e.Index, e.Type, e.Problem = int(q.ArrayIndex), q.TypeString(), q.Problem
		out = append(out, e)
	}
	return out
}

func entry(name string, v props.Value, object func(int32) string) Entry {
	e := Entry{Name: name}
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
		e.Elements = make([]Entry, 0, len(x.Elements))
		for i, el := range x.Elements {
			e.Elements = append(e.Elements, entry(fmt.Sprintf("[%d]", i), el.Value, object))
		}
		return e
	}
	e.Value = props.Display(v, object)
	return e
}
