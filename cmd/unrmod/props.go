package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
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
writes them), a cooked UE4/UE5 asset (.uasset or .umap with its .uexp
beside it, as extracted from a .pak), or a container (.utoc) with
--package naming one of its packages. A cooked asset prints the same
document as the zen package cooked from it; its package name is the one
its summary records, else the one its path under a Content folder gives. OBJECT names an export as patches do: its path, a unique dotted
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
game's property schema, a .usmap file dumped from the running game (UE4SS,
Dumper-7), given with --mappings; without it unrmod says so instead of
guessing. Zen packages name their classes through the global container
(--global, or a global.utoc beside the container).`,
		examples: []string{
			"unrmod props Maps/CTF-Face.unr LevelInfo0",
			"unrmod props System/Engine.u \"Class'Engine.LevelInfo'\" --yaml",
			"unrmod props out/Grounded/Content/Blueprints/BP_SpicyChoppingDamage.uasset Default__BP_SpicyChoppingDamage_C",
			"unrmod props examples/containers/UnrmodDemo427_P.utoc --package /Game/Data/DT_DemoItems --row Stick",
			"unrmod props examples/packages/zen/DT_DemoItems.uasset --json",
			"unrmod props out/Game/Content/Data/DT_Items.uasset --row Stick",
			"unrmod props Paks/pakchunk0-Windows.utoc --package /Game/Data/DT_Items --mappings Game.usmap",
		},
		setup: func(fs *flag.FlagSet) runner {
			asJSON := fs.Bool("json", false, "print one JSON document")
			asYAML := fs.Bool("yaml", false, "print one YAML document")
			row := fs.String("row", "", "show only the DataTable row `ROW`")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			mf := addMappingsFlag(fs)
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
				m, err := mf.load(key)
				if err != nil {
					return err
				}
				doc, err := readProps(file, objects, *row, zf, m)
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
func readProps(file string, objects []string, row string, zf *zenFlags, m *usmap.Mappings) (*propsDoc, error) {
	f, err := pakPackageArg(recognise(file), zf)
	if err != nil {
		return nil, err
	}
	z, err := openZenArg("props", f, zf)
	if err != nil {
		return nil, err
	}
	if z != nil {
		defer z.Close()
		return zenProps(z, objects, row, m)
	}
	if f.Kind == ufile.CookedAsset {
		return cookedProps(f, objects, row, m)
	}
	if f.Kind == ufile.Container {
		return nil, usagef("props", "%s is an IoStore container: give the package with --package (the names 'unrmod ls' shows)", file)
	}
	if row != "" {
		return nil, usagef("props", "--row selects a DataTable row of a zen package; %s is not one", file)
	}
	p, err := readLegacy("props", f)
	if err != nil {
		return nil, err
	}
	return legacyProps(file, p, objects)
}

// propsDoc is the output of "unrmod props".
type propsDoc struct {
	*report.Properties `json:",inline" yaml:",inline"`
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
		for _, line := range strings.SplitAfter(strings.TrimSuffix(e.Text, "\n"), "\n") {
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
func zenProps(z *zenSource, objects []string, row string, m *usmap.Mappings) (*propsDoc, error) {
	p := z.pkg
	if p.PackageFlags&zen.FlagUnversionedProperties != 0 && m == nil {
		return nil, fmt.Errorf("%s: %w", z.name, props.ErrUnversioned)
	}
	r := z.resolver
	if r == nil {
		r = &zen.Resolver{}
	}
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
	d, err := report.NewZenProperties(z.name, p, r, list, len(objects) == 0, row, m)
	var nt *report.NotDataTableError
	if errors.As(err, &nt) {
		return nil, usagef("props", "--row: %s is not a DataTable", nt.Path)
	}
	if err != nil {
		return nil, err
	}
	return &propsDoc{d}, nil
}

// cookedProps reads the properties of a cooked asset's exports.
func cookedProps(f *ufile.File, objects []string, row string, m *usmap.Mappings) (*propsDoc, error) {
	p, err := f.Asset(nil)
	if err != nil {
		return nil, err
	}
	if p.UnversionedProperties() && m == nil {
		return nil, fmt.Errorf("%s: %w", f.Path, props.ErrUnversioned)
	}
	pkg := report.CookedPackageName(f.Path, p)
	list, err := exportList(objects, len(p.Exports), func(o string) (int, error) {
		return report.FindCookedExport(p, pkg, o)
	})
	if err != nil {
		return nil, err
	}
	d, err := report.NewCookedProperties(f.Path, p, pkg, list, len(objects) == 0, row, m)
	var nt *report.NotDataTableError
	if errors.As(err, &nt) {
		return nil, usagef("props", "--row: %s is not a DataTable", nt.Path)
	}
	if err != nil {
		return nil, err
	}
	return &propsDoc{d}, nil
}

// indent puts pad before every line of s.
func indent(s, pad string) string {
	if s == "" {
		return s
	}
	return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
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
	d, err := report.NewLegacyProperties(file, p, list, all)
	if err != nil {
		return nil, err
	}
	return &propsDoc{d}, nil
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
