package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/tables"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

const tableFiles = `FILE is a zen package file (as 'unrmod extract' writes it), a cooked
UE4/UE5 asset (.uasset with its .uexp), or a container (.utoc) or pak
(.pak) with --package naming the package in it. TABLE names the DataTable
export as patches do (its name, path or Class'Path'). Packages cooked with
unversioned properties need the game's .usmap (--mappings).`

// tableFormat returns "json" or "csv" for a document path, or the one
// --format names.
func tableFormat(cmd, format, path string) (string, error) {
	f := strings.ToLower(format)
	if f == "" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".json":
			f = "json"
		case ".csv":
			f = "csv"
		default:
			return "", usagef(cmd, "cannot tell the format of %s from its extension: name it .json or .csv, or give --format", path)
		}
	}
	if f != "json" && f != "csv" {
		return "", usagef(cmd, "--format is json or csv, not %s", format)
	}
	return f, nil
}

// openTable decodes the DataTable export object of FILE.
func openTable(cmd, file, object string, zf *zenFlags, m *usmap.Mappings) (*props.Table, *props.Context, string, *ufile.File, error) {
	f, err := pakPackageArg(recognise(file), zf)
	if err != nil {
		return nil, nil, "", nil, err
	}
	z, err := openZenArg(cmd, f, zf)
	if err != nil {
		return nil, nil, "", nil, err
	}
	var x *props.Export
	var what string
	switch {
	case z != nil:
		defer z.Close()
		i, err := z.pkg.FindExport(object, z.resolver)
		if err != nil {
			return nil, nil, "", nil, fmt.Errorf("%s: %w", z.name, err)
		}
		if x, err = zenprops.DecodeExportWith(z.pkg, z.resolver, i, m); err != nil {
			return nil, nil, "", nil, fmt.Errorf("%s: %w", z.name, err)
		}
		what = z.name + ": " + z.pkg.ExportPath(i)
	case f.Kind == ufile.CookedAsset:
		p, err := f.Asset(nil)
		if err != nil {
			return nil, nil, "", nil, err
		}
		pkg := report.CookedPackageName(f.Path, p)
		i, err := report.FindCookedExport(p, pkg, object)
		if err != nil {
			return nil, nil, "", nil, err
		}
		if x, err = assetprops.DecodeExportWith(p, i, m); err != nil {
			return nil, nil, "", nil, err
		}
		what = f.Path + ": " + assetprops.NewResolver(p, pkg).ExportPath(i)
	case f.Kind == ufile.Container || f.Kind == ufile.Pak:
		return nil, nil, "", nil, usagef(cmd, "%s is a container: give the package with --package (the names 'unrmod ls' shows)", file)
	default:
		return nil, nil, "", nil, usagef(cmd, "%s is a %s; DataTables are in zen packages and cooked assets", file, f.Kind)
	}
	if x.Table == nil {
		return nil, nil, "", nil, fmt.Errorf("%s is not a DataTable", what)
	}
	return x.Table, x.Context, what, f, nil
}

// exportTableCommand returns the "export-table" command.
func exportTableCommand() *command {
	return &command{
		name:     "export-table",
		synopsis: "FILE TABLE -o OUT.json|OUT.csv [--package PACKAGE] [--mappings FILE]",
		summary:  "write a DataTable's rows as JSON or CSV",
		description: `Write the rows of a DataTable export to OUT, atomically: as JSON (rows as
objects keyed by row name, values as numbers, strings, objects and arrays)
or in the Unreal editor's DataTable CSV layout (a first column "---" with
the row names, one column per property, structs and arrays in their text
form, e.g. (X=1,Y=2,Z=3) and [1,2,3]). The format follows OUT's extension,
or --format; '-o -' writes to standard output. 'unrmod import-table' takes
the file back.

` + tableFiles,
		examples: []string{
			"unrmod export-table out/Game/Content/Data/DT_Items.uasset DT_Items -o DT_Items.csv",
			"unrmod export-table Paks/pakchunk0-Windows.utoc DT_Items --package /Game/Data/DT_Items --mappings Game.usmap -o DT_Items.json",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the document to `OUT` (.json or .csv), or - for standard output (required)")
			format := fs.String("format", "", "the document's `FORMAT`, json or csv (default: OUT's extension)")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			mf := addMappingsFlag(fs)
			return func(s streams, args []string) error {
				switch {
				case len(args) != 2:
					return usagef("export-table", "want FILE and TABLE, got %d argument(s)", len(args))
				case *out == "":
					return usagef("export-table", "missing -o OUT (.json or .csv, or - for standard output)")
				}
				fmtName, err := tableFormat("export-table", *format, *out)
				if *out == "-" && *format == "" {
					return usagef("export-table", "-o - needs --format json or csv")
				}
				if err != nil {
					return err
				}
				m, err := mf.load(key)
				if err != nil {
					return err
				}
				t, ctx, what, _, err := openTable("export-table", args[0], args[1], zf, m)
				if err != nil {
					return err
				}
				doc := tables.Export(t, ctx)
				var b bytes.Buffer
				if fmtName == "json" {
					err = tables.WriteJSON(&b, doc)
				} else {
					err = tables.WriteCSV(&b, doc)
				}
				if err != nil {
					return err
				}
				if *out == "-" {
					_, err = s.out.Write(b.Bytes())
					return err
				}
				if err := safefile.WriteFile(*out, b.Bytes(), 0o644); err != nil {
					return err
				}
				fmt.Fprintf(s.err, "wrote %d rows and %d columns of %s to %s\n", len(doc.Rows), len(doc.Columns), what, *out)
				return nil
			}
		},
	}
}

// importTableCommand returns the "import-table" command.
func importTableCommand() *command {
	return &command{
		name:     "import-table",
		synopsis: "FILE TABLE DOC.json|DOC.csv -o OUT [--package PACKAGE] [--mappings FILE] [--dry-run] [--json]",
		summary:  "change a DataTable to match a JSON or CSV file",
		description: `Make the DataTable export TABLE of FILE hold the rows of DOC (a file
'unrmod export-table' wrote, edited) and write the package to OUT: rows
missing from DOC are removed, rows new in it are added (a tagged row as a
copy of the table's first row, an unversioned one all zero, then its cells
set), and every cell whose value differs is set; an empty CSV cell leaves
the value as it is (or empties a string). Nothing else changes: DOC as
exported imports to identical bytes.

The changes are made as a patch would make them (add-row, remove-row,
set-property), and the output is verified before it is written,
atomically. For a container or pak (with --package), OUT is the mod
container or pak written beside the game's (as a container target in
mode: mod writes it); otherwise OUT is the package file.

` + tableFiles,
		examples: []string{
			"unrmod import-table out/Game/Content/Data/DT_Items.uasset DT_Items DT_Items.csv -o mod/DT_Items.uasset",
			"unrmod import-table Paks/pakchunk0-Windows.utoc DT_Items DT_Items.json --package /Game/Data/DT_Items --mappings Game.usmap -o Paks/MyMod_P",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the changed package to `OUT` (required)")
			format := fs.String("format", "", "DOC's `FORMAT`, json or csv (default: DOC's extension)")
			dry := fs.Bool("dry-run", false, "print the plan and verify the output, but write nothing")
			force := fs.Bool("force", false, "let OUT replace an existing file")
			asJSON := fs.Bool("json", false, "print the plan and result as one JSON document")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			mf := addMappingsFlag(fs)
			return func(s streams, args []string) error {
				switch {
				case len(args) != 3:
					return usagef("import-table", "want FILE, TABLE and DOC, got %d argument(s)", len(args))
				case *out == "":
					return usagef("import-table", "missing -o OUT")
				}
				file, object, docPath := args[0], args[1], args[2]
				if safefile.SameFile(file, *out) {
					return usagef("import-table", "output %s is the input file; write the changed package elsewhere", *out)
				}
				fmtName, err := tableFormat("import-table", *format, docPath)
				if err != nil {
					return err
				}
				text, err := safefile.ReadRegular(docPath, 1<<30, "a DataTable document")
				if err != nil {
					return err
				}
				var doc *tables.Document
				if fmtName == "json" {
					doc, err = tables.ReadJSON(bytes.NewReader(text))
				} else {
					doc, err = tables.ReadCSV(bytes.NewReader(text))
				}
				if err != nil {
					return fmt.Errorf("%s: %w", docPath, err)
				}
				m, err := mf.load(key)
				if err != nil {
					return err
				}
				t, ctx, _, f, err := openTable("import-table", file, object, zf, m)
				if err != nil {
					return err
				}
				edits, err := tables.Plan(t, ctx, doc)
				if err != nil {
					return fmt.Errorf("%s: %w", docPath, err)
				}
				pf, err := importPatch(file, object, *out, docPath, f, zf, key, *mf.path, edits)
				if err != nil {
					return err
				}
				codecs, err := key.codecs(file)
				if err != nil {
					return err
				}
				res, err := patch.Apply(pf, patch.Options{DryRun: *dry, Force: *force, Session: s.sess, Codecs: codecs})
				if err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(s.out, res)
				}
				if len(edits) == 0 {
					fmt.Fprintf(s.err, "%s matches the table: the output is the input's bytes\n", docPath)
				}
				printPlan(s.out, res)
				return nil
			}
		},
	}
}

// importPatch is the patch import-table applies: one target, FILE (or
// the package of a container or pak) to OUT, with the edits as
// operations.
func importPatch(file, object, out, docPath string, f *ufile.File, zf *zenFlags, key *keyFlag, mappings string, edits []tables.Edit) (*patch.File, error) {
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(a)
	}
	pos := patch.Pos{File: docPath}
	ops := patch.TableOps(pos, object, edits)
	t := &patch.Target{Pos: pos, Mappings: abs(mappings), Global: abs(*zf.global)}
	if *zf.pkg != "" {
		base := strings.TrimSuffix(strings.TrimSuffix(out, ".utoc"), ".pak")
		t.Output = abs(base)
		t.Container = &patch.ContainerTarget{Pos: pos, Container: abs(file), Pak: f.Pak != "", Key: key.key, Mode: patch.ModeMod,
			Compression: "keep", Packages: []*patch.PackageTarget{{Pos: pos, Package: *zf.pkg, Ops: ops}}}
	} else {
		t.File, t.Output, t.Ops = abs(file), abs(out), ops
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return &patch.File{Path: filepath.Join(wd, "import-table"), Version: 1, Targets: []*patch.Target{t}}, nil
}
