package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
)

// dumpCommand returns the "dump" command.
func dumpCommand() *command {
	return &command{
		name:     "dump",
		synopsis: "FILE [--json | --yaml] [--names] [--imports] [--exports] [--props] [--class CLASS] [--package PACKAGE] [--aes-key KEY]",
		summary:  "list a package's tables, or a container header's store entries",
		description: `Print a package's tables. Names: index, name, flags. Imports: index, class
(ClassPackage.ClassName), path. Exports: index, class, path, serial size,
serial offset, the XXH3-64 hash of the export's data, and flags.

Indices are 0-based, as in unrmod's error messages ('export 12 "Light5"').
With none of --names, --imports and --exports, all three tables are printed;
--props adds every export's tagged properties, as 'unrmod props' shows them
(for a class, its default properties). --class CLASS keeps only the exports
of that class and its subclasses, as far as the package says (classes it
defines follow their super class) and unrmod knows the stock engine
classes (FireTexture is a Texture, LevelInfo a ZoneInfo ...); without a
table flag it prints the exports.

A zen package (a file 'unrmod extract' wrote, or --package in a container)
prints its package id and layout, its names with their CityHash64 hashes,
its imports (script objects and imported packages' public exports, by hash
and by path where known), its exports with their public export hashes, its
export bundles and imported packages.

A cooked UE4/UE5 asset (.uasset or .umap with its .uexp beside it) prints
its package and release, its names with the two hashes stored beside
each, its imports by class and path, and its exports with their class,
path, serial size and offset, the XXH3-64 hash of their data and flags.
Hashes and offsets are fixed-width hex; text output is aligned tables, and
--json or --yaml print one document with the same data (offsets and sizes as
numbers there).

A container-header chunk saved as a file prints its store entries instead:
package id, and as the version stores them the package chunk size and load
order (UE 4.2x), export and export-bundle counts (up to UE 5.2), and the
number of imported packages and shader maps; then names, localized
packages, cultures and redirects. --json and --yaml list every imported
package id and shader map hash; ids are fixed-width hex strings.

An IoStore container (.utoc) prints every chunk as 'unrmod ls --long' does;
--aes-key decrypts the paths of an encrypted one.`,
		examples: []string{
			"unrmod dump Maps/CTF-Face.unr",
			"unrmod dump --exports Textures/ArenaTex.utx",
			"unrmod dump System/Engine.u --imports --json",
			"unrmod dump Maps/CTF-Face.unr --exports --props",
			"unrmod dump Maps/CTF-Face.unr --class Texture --props",
			"unrmod dump examples/containers/UnrmodDemo427_P.utoc --package /Game/Data/DT_DemoItems",
			"unrmod dump --json out/chunks/ContainerHeader/8f1c35e1a2b3c4d500000006.bin",
		},
		setup: func(fs *flag.FlagSet) runner {
			asJSON := fs.Bool("json", false, "print one JSON document instead of tables")
			asYAML := fs.Bool("yaml", false, "print one YAML document instead of tables")
			names := fs.Bool("names", false, "print the name table")
			imports := fs.Bool("imports", false, "print the import table")
			exports := fs.Bool("exports", false, "print the export table")
			withProps := fs.Bool("props", false, "also print every export's tagged properties")
			class := fs.String("class", "", "legacy packages: only the exports of class `CLASS` and its subclasses")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			mf := addMappingsFlag(fs)
			return func(s streams, args []string) error {
				file, err := oneArg("dump", args, "FILE")
				if err != nil {
					return err
				}
				f, locks, err := openRead(s, file)
				if err != nil {
					return err
				}
				defer locks.Release()
				if f, err = pakPackageArg(f, zf); err != nil {
					return err
				}
				if *asJSON && *asYAML {
					return usagef("dump", "--json and --yaml exclude each other")
				}
				z, err := openZenArg("dump", f, zf)
				if err != nil {
					return err
				}
				m, err := mf.load(key)
				if err != nil {
					if z != nil {
						z.Close()
					}
					return err
				}
				if *class != "" && (z != nil || f.Kind == ufile.Container || f.Kind == ufile.CookedAsset) {
					return usagef("dump", "--class selects exports of a legacy package; %s is not one", file)
				}
				if z != nil {
					defer z.Close()
					if !*names && !*imports && !*exports {
						*names, *imports, *exports = true, true, true
					}
					doc := newZenDumpDoc(z, *names, *imports, *exports)
					if *withProps {
						if doc.Properties, err = zenProps(z, nil, "", m); errors.Is(err, props.ErrUnversioned) {
							doc.PropertiesNote, err = props.ErrUnversioned.Error(), nil
						}
						if err != nil {
							return err
						}
					}
					return writeDoc(s.out, *asJSON, *asYAML, doc, doc.writeText)
				}
				if f.Kind == ufile.Container {
					if *names || *imports || *exports || *withProps {
						return usagef("dump", "--names, --imports and --exports select the tables of a legacy package; %s is an IoStore container", file)
					}
					c, err := openIndexedContainer(file, key)
					if err != nil {
						return err
					}
					defer c.Close()
					doc := report.NewContainerList(file, c)
					return writeDoc(s.out, *asJSON, *asYAML, doc, containerListTable(doc, true).write)
				}
				if f.Kind == ufile.ContainerHeader {
					if *names || *imports || *exports || *withProps {
						return usagef("dump", "--names, --imports and --exports select the tables of a legacy package; %s is a %s", file, f.Kind)
					}
					h, err := f.ContainerHeader()
					if err != nil {
						return err
					}
					doc := newHeaderDumpDoc(file, h)
					return writeDoc(s.out, *asJSON, *asYAML, doc, doc.writeText)
				}
				if f.Kind == ufile.CookedAsset {
					if !*names && !*imports && !*exports {
						*names, *imports, *exports = true, true, true
					}
					doc, err := assetDump(f, report.Tables{Names: *names, Imports: *imports, Exports: *exports}, *withProps, m)
					if err != nil {
						return err
					}
					return writeDoc(s.out, *asJSON, *asYAML, doc, doc.writeText)
				}
				switch {
				case *class != "" && !*names && !*imports && !*exports:
					*exports = true
				case !*names && !*imports && !*exports:
					*names, *imports, *exports = true, true, true
				}
				p, err := readLegacy("dump", f)
				if err != nil {
					return err
				}
				list := make([]int, 0, len(p.Exports))
				for i := range p.Exports {
					if *class == "" || p.IsA(i, *class) {
						list = append(list, i)
					}
				}
				doc := &dumpDoc{PackageDump: *report.NewPackageDump(file, p, report.Tables{Names: *names, Imports: *imports, Exports: *exports})}
				if *class != "" {
					doc.Class = *class
					if doc.Exports != nil {
						rows := make([]report.ExportRow, 0, len(list))
						for _, i := range list {
							rows = append(rows, (*doc.Exports)[i])
						}
						doc.Exports = &rows
					}
				}
				if *withProps {
					if doc.Properties, err = legacyPropsOf(file, p, list, true); err != nil {
						return err
					}
				}
				if *asJSON {
					return doc.streamJSON(s.out)
				}
				return writeDoc(s.out, false, *asYAML, doc, doc.writeText)
			}
		},
	}
}

// dumpDoc is the output of "unrmod dump" for a legacy package: its tables
// and what the command adds to them.
type dumpDoc struct {
	report.PackageDump `json:",inline" yaml:",inline"`
	// Class is the --class filter: Exports and Properties hold only the
	// exports of that class and its subclasses.
	Class string `json:"class,omitempty" yaml:"class,omitempty"`
	// Properties are the exports' tagged properties (--props).
	Properties *propsDoc `json:"properties,omitempty" yaml:"properties,omitempty"`
}

// writeText prints the requested tables, separated by blank lines.
func (d *dumpDoc) writeText(w io.Writer) error {
	var sections []func() error
	if d.Names != nil {
		sections = append(sections, func() error {
			t := &table{header: []string{"INDEX", "NAME", "FLAGS"}, right: []bool{true, false, false}}
			for _, r := range *d.Names {
				t.add(strconv.Itoa(r.Index), r.Name, joinNames(r.Flags))
			}
			return writeSection(w, "Names", len(*d.Names), t)
		})
	}
	if d.Imports != nil {
		sections = append(sections, func() error {
			t := &table{header: []string{"INDEX", "CLASS", "PATH"}, right: []bool{true, false, false}}
			for _, r := range *d.Imports {
				t.add(strconv.Itoa(r.Index), r.Class, r.Path)
			}
			return writeSection(w, "Imports", len(*d.Imports), t)
		})
	}
	if d.Exports != nil {
		sections = append(sections, func() error {
			t := &table{
				header: []string{"INDEX", "CLASS", "PATH", "SIZE", "OFFSET", "XXH3", "FLAGS"},
				right:  []bool{true, false, false, true, false, false, false},
			}
			for _, r := range *d.Exports {
				off := "-"
				if r.SerialOffset != nil {
					off = hex32(uint32(*r.SerialOffset))
				}
				t.add(strconv.Itoa(r.Index), r.Class, r.Path, strconv.Itoa(int(r.SerialSize)), off, r.XXH3, joinNames(r.Flags))
			}
			title := "Exports"
			if d.Class != "" {
				title = "Exports of class " + d.Class + " (and subclasses)"
			}
			return writeSection(w, title, len(*d.Exports), t)
		})
	}
	if d.Properties != nil {
		sections = append(sections, func() error { return d.Properties.writeSection(w) })
	}
	for i, section := range sections {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := section(); err != nil {
			return err
		}
	}
	return nil
}

// writeSection prints a table under a "Title: count" line.
func writeSection(w io.Writer, title string, n int, t *table) error {
	if _, err := fmt.Fprintf(w, "%s: %d\n", title, n); err != nil {
		return err
	}
	return t.write(w)
}

// joinNames formats flags for text output as reader does: names joined by
// "|", or "0" when no bit is set.
func joinNames(f report.Flags) string {
	if len(f.Names) == 0 {
		return "0"
	}
	return strings.Join(f.Names, "|")
}
