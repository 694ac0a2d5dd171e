package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
)

// propsCommand returns the "props" command.
func propsCommand() *command {
	return &command{
		name:     "props",
		synopsis: "FILE [OBJECT...] [--row ROW] [--package PACKAGE] [--json | --yaml]",
		summary:  "show the tagged properties of a package's exports",
		description: `Print the tagged properties of exports: each property's name, static-array
index, type and value, one a line as "Name[index] (Type) = value". Struct
members and array elements follow on indented lines; object references show
the object's path. A DataTable (in a zen package) lists its own properties,
then each row's. These are the names and paths set-property takes.

FILE is a legacy package, a zen package saved as a file ('unrmod extract'
writes them), or a container (.utoc) with --package naming one of its
packages. OBJECT names an export as patches do: its path, a unique dotted
suffix of it, its name, or Class'Path'. Without OBJECT every export whose
data starts with a property list is shown, and the ones that do not are
counted at the end.

In a legacy package (UE1 and UE2) a class export shows its default
properties. Objects show as Class'Package.Path'; structs the engine lays
out in binary (Vector, Rotator, Color, Plane, Sphere, Scale, Box, Coords,
Guid, Range, RangeVector, PointRegion) and UE2's tagged structs show
member by member, with their members in the JSON "fields"; other values
(arrays, unknown structs) as hex.

Packages cooked with unversioned properties (PKG_UnversionedProperties, as
many UE5 games ship) store values without tags: reading them needs the
game's property schema, so unrmod says so instead of guessing.`,
		examples: []string{
			"unrmod props Maps/CTF-Face.unr LevelInfo0",
			"unrmod props System/Engine.u \"Class'Engine.LevelInfo'\" --yaml",
			"unrmod props out/Grounded/Content/Blueprints/BP_SpicyChoppingDamage.uasset Default__BP_SpicyChoppingDamage_C",
			"unrmod props examples/containers/UnrmodDemo427_P.utoc --package /Game/Data/DT_DemoItems --row Stick",
			"unrmod props examples/packages/zen/DT_DemoItems.uasset --json",
		},
		setup: func(fs *flag.FlagSet) runner {
			asJSON := fs.Bool("json", false, "print one JSON document")
			asYAML := fs.Bool("yaml", false, "print one YAML document")
			row := fs.String("row", "", "show only the DataTable row `ROW`")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			return func(s streams, args []string) error {
				if len(args) == 0 {
					return usagef("props", "missing FILE")
				}
				if *asJSON && *asYAML {
					return usagef("props", "--json and --yaml exclude each other")
				}
				file, objects := args[0], args[1:]
				for _, o := range objects {
					if strings.TrimSpace(o) == "" {
						return usagef("props", "an OBJECT is empty")
					}
				}
				doc, err := readProps(file, objects, *row, zf)
				if err != nil {
					return err
				}
				return writeDoc(s.out, *asJSON, *asYAML, doc, doc.writeText)
			}
		},
	}
}

// readProps reads the properties of the named exports of FILE (all when
// objects is empty).
func readProps(file string, objects []string, row string, zf *zenFlags) (*propsDoc, error) {
	z, err := openZenArg("props", file, zf)
	if err != nil {
		return nil, err
	}
	if z != nil {
		defer z.Close()
		return zenProps(z, objects, row)
	}
	if isContainerFile(file) {
		return nil, usagef("props", "%s is an IoStore container: give the package with --package (the names 'unrmod ls' shows)", file)
	}
	if row != "" {
		return nil, usagef("props", "--row selects a DataTable row of a zen package; %s is not one", file)
	}
	p, err := reader.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return legacyProps(file, p, objects)
}

// propsDoc is the output of "unrmod props".
type propsDoc struct {
	File    string        `json:"file" yaml:"file"`
	Package string        `json:"package,omitempty" yaml:"package,omitempty"` // a zen package's name
	Exports []propsExport `json:"exports" yaml:"exports"`
	// Skipped counts the exports (of all listed) whose data is not a
	// property list.
	Skipped int `json:"skipped,omitempty" yaml:"skipped,omitempty"`
}

// propsExport is one export's properties.
type propsExport struct {
	Index      int         `json:"index" yaml:"index"`
	Path       string      `json:"path" yaml:"path"`
	Class      string      `json:"class" yaml:"class"`
	Properties []propEntry `json:"properties" yaml:"properties"`
	// Defaults is set for a class export of a legacy package: Properties
	// are the class's default properties.
	Defaults bool       `json:"defaults,omitempty" yaml:"defaults,omitempty"`
	Rows     []propsRow `json:"rows,omitempty" yaml:"rows,omitempty"`
	// NativeBytes is the size of the data after the properties (and
	// rows): the class's own serialization.
	NativeBytes int    `json:"native_bytes,omitempty" yaml:"native_bytes,omitempty"`
	text        string // the text form, as props.Format gives it
}

// propsRow is a DataTable row.
type propsRow struct {
	Name       string      `json:"name" yaml:"name"`
	Properties []propEntry `json:"properties" yaml:"properties"`
}

// propEntry is one property, struct member or array element.
type propEntry struct {
	Name     string      `json:"name" yaml:"name"`                       // the property or member name; "[i]" for an element
	Index    int         `json:"index,omitempty" yaml:"index,omitempty"` // static-array index
	Type     string      `json:"type,omitempty" yaml:"type,omitempty"`
	Struct   string      `json:"struct,omitempty" yaml:"struct,omitempty"`     // the struct of a legacy StructProperty
	Value    string      `json:"value,omitempty" yaml:"value,omitempty"`       // the value, when it fits on a line
	Fields   []propEntry `json:"fields,omitempty" yaml:"fields,omitempty"`     // struct members
	Elements []propEntry `json:"elements,omitempty" yaml:"elements,omitempty"` // array elements
	Problem  string      `json:"problem,omitempty" yaml:"problem,omitempty"`   // why the value was kept raw
}

func (d *propsDoc) writeText(w io.Writer) error {
	ew := &errWriter{w: w}
	for k, e := range d.Exports {
		if k > 0 {
			ew.printf("\n")
		}
		if e.Defaults {
			ew.printf("export %d %s (class %s): default properties\n", e.Index, e.Path, e.Class)
		} else {
			ew.printf("export %d %s (class %s)\n", e.Index, e.Path, e.Class)
		}
		for _, line := range strings.SplitAfter(strings.TrimSuffix(e.text, "\n"), "\n") {
			ew.printf("  %s", line)
		}
		ew.printf("\n")
	}
	if d.Skipped > 0 {
		if len(d.Exports) > 0 {
			ew.printf("\n")
		}
		ew.printf("(%d export(s) have no property list: class exports or native data)\n", d.Skipped)
	}
	return ew.err
}

// writeSection writes the properties as a section of dump's output.
func (d *propsDoc) writeSection(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "Properties: %d export(s)\n", len(d.Exports)); err != nil {
		return err
	}
	return d.writeText(w)
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// zenProps reads the properties of a zen package's exports.
func zenProps(z *zenSource, objects []string, row string) (*propsDoc, error) {
	p := z.pkg
	d := &propsDoc{File: z.name, Package: p.PackageName(), Exports: []propsExport{}}
	if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
		return nil, fmt.Errorf("%s: %w", z.name, props.ErrUnversioned)
	}
	r := z.resolver
	if r == nil {
		r = &zen.Resolver{}
	}
	object := zenprops.NewResolver(p, r).Name
	fopts := &props.FormatOptions{Object: object, MaxElements: -1}
	list, err := exportList(objects, len(p.Exports), func(o string) (int, error) {
		i, err := p.FindExport(o, r)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", z.name, err)
		}
		return i, nil
	})
	if err != nil {
		return nil, err
	}
	all := len(objects) == 0
	rowFound := false
	for _, i := range list {
		e := propsExport{Index: i, Path: p.ExportPath(i), Class: r.ClassName(p, i)}
		x, err := zenprops.DecodeExport(p, r, i)
		switch {
		case err != nil && all:
			d.Skipped++
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %s: %w", z.name, e.Path, err)
		case x.Table == nil && row != "" && all:
			continue
		case x.Table == nil && row != "":
			return nil, usagef("props", "--row: %s is not a DataTable", e.Path)
		}
		e.Properties, e.NativeBytes = zenEntries(x.Properties, object), len(x.Rest)
		switch t := x.Table; {
		case t == nil:
			e.text = x.Properties.Format(fopts)
		case row == "":
			e.text = t.Format(fopts)
			for _, rw := range t.Rows {
				e.Rows = append(e.Rows, propsRow{Name: rw.Name.Text, Properties: zenEntries(rw.Properties, object)})
			}
		case t.Row(row) != nil:
			rw := t.Row(row)
			rowFound = true
			e.text = "Row " + rw.Name.Text + "\n" + indent(rw.Properties.Format(fopts), "  ")
			e.Properties = []propEntry{} // only the row's properties are shown
			e.Rows = []propsRow{{Name: rw.Name.Text, Properties: zenEntries(rw.Properties, object)}}
		case all:
			continue
		default:
			var names []string
			for _, rw := range t.Rows {
				names = append(names, rw.Name.Text)
			}
			return nil, fmt.Errorf("%s: %s has no row %q; its rows: %s", z.name, e.Path, row, strings.Join(names, ", "))
		}
		d.Exports = append(d.Exports, e)
	}
	if row != "" && all && !rowFound {
		return nil, fmt.Errorf("%s: no DataTable of the package has a row %q", z.name, row)
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
func zenEntries(l *props.List, object func(int32) string) []propEntry {
	out := make([]propEntry, 0, len(l.Properties))
	for _, q := range l.Properties {
		e := zenEntry(q.Name.Text, q.Value, object)
		e.Index, e.Type, e.Problem = int(q.ArrayIndex), q.TypeString(), q.Problem
		out = append(out, e)
	}
	return out
}

func zenEntry(name string, v props.Value, object func(int32) string) propEntry {
	e := propEntry{Name: name}
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
		e.Elements = make([]propEntry, 0, len(x.Elements))
		for i, el := range x.Elements {
			e.Elements = append(e.Elements, zenEntry(fmt.Sprintf("[%d]", i), el.Value, object))
		}
		return e
	}
	e.Value = props.Display(v, object)
	return e
}

// legacyProps reads the properties of a legacy package's exports (all
// when objects is empty): an export's tagged properties, or a class's
// default properties.
func legacyProps(file string, p *reader.Package, objects []string) (*propsDoc, error) {
	list, err := exportList(objects, len(p.Exports), func(o string) (int, error) {
		class, path := splitClassSpec(o)
		return findExport(file, p, path, class)
	})
	if err != nil {
		return nil, err
	}
	return legacyPropsOf(file, p, list, len(objects) == 0)
}

// legacyPropsOf reads the properties of the exports in list; with all set,
// exports whose data has no property list are counted, not refused.
func legacyPropsOf(file string, p *reader.Package, list []int, all bool) (*propsDoc, error) {
	d := &propsDoc{File: file, Exports: []propsExport{}}
	for _, i := range list {
		e := propsExport{Index: i, Path: p.ExportPath(i), Class: p.ClassName(i)}
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
		e.Properties = make([]propEntry, 0, len(l.Props))
		for k := range l.Props {
			q := &l.Props[k]
			pe := propEntry{Name: p.NameOf(q.Name), Index: q.ArrayIndex, Type: q.Type.String() + "Property"}
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
		e.text = b.String()
		d.Exports = append(d.Exports, e)
	}
	return d, nil
}

// legacyFields converts the members of a struct value to entries.
func legacyFields(p *reader.Package, fields []reader.StructField) []propEntry {
	out := make([]propEntry, 0, len(fields))
	for _, f := range fields {
		pe := propEntry{Name: f.Name, Index: f.Index, Type: f.Value.Type.String() + "Property", Value: p.FormatValue(f.Value)}
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

// exportList returns the exports the OBJECT arguments name (find resolves
// one), or every export of n when there are none.
func exportList(objects []string, n int, find func(string) (int, error)) ([]int, error) {
	if len(objects) == 0 {
		list := make([]int, n)
		for i := range list {
			list[i] = i
		}
		return list, nil
	}
	list := make([]int, 0, len(objects))
	for _, o := range objects {
		i, err := find(o)
		if err != nil {
			return nil, err
		}
		list = append(list, i)
	}
	return list, nil
}
