package main

import (
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// maxCandidates bounds the close matches listed for an unknown object.
const maxCandidates = 10

// exportDataCommand returns the "export-data" command.
func exportDataCommand() *command {
	return &command{
		name:     "export-data",
		synopsis: "FILE OBJECT -o OUT [--class CLASS] [--package PACKAGE]",
		summary:  "write one export's serialized data to a file",
		description: `Write the serialized data of one export (its property list and native data,
exactly as stored in the package) to OUT, atomically; '-o -' writes the raw
bytes to standard output.

OBJECT is the export's full path (CTF-Face.LevelInfo0) or any dotted suffix
of it that is unique (LevelInfo0), compared case-insensitively, or either in
the form Class'Path' (FireTexture'DevGarbage.Lball'); 'unrmod dump
--exports FILE' lists the paths. An unknown OBJECT lists close matches and an
ambiguous one lists every candidate. Two objects of different classes may
share a path (a Palette and a FireTexture both called Lball); --class picks
one. A summary goes to standard error.

FILE may also be a zen package (a file 'unrmod extract' wrote), or a
container with --package naming one of its packages; OBJECT is then the
export's path, its path inside the package or its name. The bytes are what
a replace-export patch takes as data: for the same export.

FILE may also be a cooked UE4/UE5 asset (a .uasset or .umap with its
.uexp); OBJECT is then the export's path, its path inside the package or
its name. The bytes are the export's data as they stand in the .uexp,
checked against the export's SerialSize.

With --mappings (the game's .usmap) the summary also says where the
export's properties end and its native data starts, for a package cooked
with unversioned properties as for a tagged one.`,
		examples: []string{
			"unrmod export-data Maps/CTF-Face.unr LevelInfo0 -o LevelInfo0.bin",
			"unrmod export-data Textures/BluffFX.utx DevGarbage.Lball --class FireTexture -o - | xxd | head",
			"unrmod export-data Textures/BluffFX.utx \"FireTexture'DevGarbage.Lball'\" -o Lball.bin",
			"unrmod export-data examples/packages/zen/BP_DemoPickup.uasset Default__BP_DemoPickup_C -o defaults.bin",
			"unrmod export-data out/Maine/Content/Data/DT_Items.uasset DT_Items -o DT_Items.bin",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the data to `OUT`, or - for standard output (required)")
			class := fs.String("class", "", "only consider exports of class `CLASS` (for objects that share a path)")
			key := addKeyFlag(fs)
			zf := addZenFlags(fs, key)
			mf := addMappingsFlag(fs)
			return func(s streams, args []string) error {
				switch {
				case len(args) < 2:
					return usagef("export-data", "want FILE and OBJECT, got %d argument(s)", len(args))
				case len(args) > 2:
					return usagef("export-data", "too many arguments: want FILE and OBJECT, got %d", len(args))
				case strings.TrimSpace(args[1]) == "":
					return usagef("export-data", "OBJECT is empty")
				case *out == "":
					return usagef("export-data", "missing -o OUT (use -o - for standard output)")
				}
				file, object := args[0], args[1]
				if *out != "-" && safefile.SameFile(file, *out) {
					return usagef("export-data", "output %s is the input file; export-data never modifies its input", *out)
				}
				m, err := mf.load(key)
				if err != nil {
					return err
				}
				var data []byte
				var what string
				f, err := pakPackageArg(recognise(file), zf)
				if err != nil {
					return err
				}
				z, err := openZenArg("export-data", f, zf)
				if err != nil {
					return err
				}
				if f.Kind == ufile.CookedAsset {
					if data, what, err = cookedExportData(f, object, *class, m); err != nil {
						return err
					}
				} else if z != nil {
					defer z.Close()
					spec := object
					if *class != "" {
						spec = *class + "'" + object + "'"
					}
					i, err := z.pkg.FindExport(spec, z.resolver)
					if err != nil {
						return fmt.Errorf("%s: %w", z.name, err)
					}
					data = z.pkg.Exports[i].Data
					what = fmt.Sprintf("%s (class %s)", z.pkg.ExportPath(i), z.resolver.ClassName(z.pkg, i))
					if m != nil {
						what += "; " + spanNote(zenprops.DecodeExportWith(z.pkg, z.resolver, i, m))(len(data))
					}
				} else {
					p, err := readLegacy("export-data", f)
					if err != nil {
						return err
					}
					cl, path := splitClassSpec(object)
					switch {
					case cl == "":
						cl = *class
					case *class != "" && !strings.EqualFold(*class, cl):
						return usagef("export-data", "OBJECT %s names class %s, --class says %s", object, cl, *class)
					}
					i, err := findExport(file, p, path, cl)
					if err != nil {
						return err
					}
					data = p.Exports[i].Data
					what = fmt.Sprintf("%s (class %s)", p.ExportPath(i), p.ClassName(i))
				}
				dest := *out
				if dest == "-" {
					dest = "standard output"
					if _, err := s.out.Write(data); err != nil {
						return fmt.Errorf("write %s: %w", dest, err)
					}
				} else if err := safefile.WriteFile(dest, data, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(s.err, "wrote %d bytes of %s to %s\n", len(data), what, dest)
				return nil
			}
		},
	}
}

// cookedExportData returns the data of the export of cooked asset f that
// object names (optionally of class class), and says which it is.
func cookedExportData(f *ufile.File, object, class string, m *usmap.Mappings) ([]byte, string, error) {
	p, err := f.Asset(nil)
	if err != nil {
		return nil, "", err
	}
	cl, path := splitClassSpec(object)
	switch {
	case cl == "":
		cl = class
	case class != "" && !strings.EqualFold(class, cl):
		return nil, "", usagef("export-data", "OBJECT %s names class %s, --class says %s", object, cl, class)
	}
	pkg := report.CookedPackageName(f.Path, p)
	i, err := report.FindCookedExport(p, pkg, path)
	if err != nil {
		return nil, "", err
	}
	r := assetprops.NewResolver(p, pkg)
	if cl != "" && !strings.EqualFold(r.ClassName(i), cl) {
		return nil, "", fmt.Errorf("%s: %s is of class %s, not %s", f.Path, r.ExportPath(i), r.ClassName(i), cl)
	}
	data, err := report.CookedExportData(p, i)
	if err != nil {
		return nil, "", err
	}
	what := fmt.Sprintf("%s (class %s)", r.ExportPath(i), r.ClassName(i))
	if m != nil {
		what += "; " + spanNote(assetprops.DecodeExportWith(p, i, m))(len(data))
	}
	return data, what, nil
}

// spanNote says where the decoded export's properties lie, or why they
// could not be read.
func spanNote(x *props.Export, err error) func(size int) string {
	return func(size int) string {
		if err != nil {
			return "its properties were not read: " + err.Error()
		}
		return report.PropertySpan(x, size)
	}
}

// findExport returns the index of the one export that object names. Imports
// only count when no export matches, to say that they hold no data.
// With class set, only exports of that class count (compared
// case-insensitively): two objects of different classes may share a path.
func findExport(file string, p *reader.Package, object, class string) (int, error) {
	var exports, imports []int
	pathMatched := false // an export has the path, whatever its class
	for _, r := range p.Lookup(object) {
		if i, ok := r.Export(); ok {
			pathMatched = true
			if class == "" || strings.EqualFold(p.ClassName(i), class) {
				exports = append(exports, i)
			}
		} else if i, ok := r.Import(); ok {
			imports = append(imports, i)
		}
	}
	what := fmt.Sprintf("%q", object)
	if class != "" {
		what = fmt.Sprintf("%q of class %s", object, class)
	}
	switch {
	case len(exports) == 1:
		return exports[0], nil
	case len(exports) > 1:
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s is ambiguous: it matches %d exports; give a longer path or --class:", file, what, len(exports))
		for _, i := range exports {
			fmt.Fprintf(&b, "\n  %s (class %s)", p.ExportPath(i), p.ClassName(i))
		}
		return 0, errors.New(b.String())
	case len(imports) > 0 && !pathMatched:
		im := &p.Imports[imports[0]]
		return 0, fmt.Errorf("%s: %q is an import (%s, class %s.%s): it lives in another package and has no data here",
			file, object, p.Path(reader.ImportRef(imports[0])), p.NameOf(im.ClassPackage), p.NameOf(im.ClassName))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: no export %s", file, what)
	cands := candidates(p, object)
	if len(cands) == 0 {
		fmt.Fprintf(&b, "; run 'unrmod dump --exports %s' to list the exports", file)
		return 0, errors.New(b.String())
	}
	b.WriteString("; close matches:")
	for k, i := range cands {
		if k == maxCandidates {
			fmt.Fprintf(&b, "\n  ... and %d more", len(cands)-maxCandidates)
			break
		}
		fmt.Fprintf(&b, "\n  %s (class %s)", p.ExportPath(i), p.ClassName(i))
	}
	return 0, errors.New(b.String())
}

// candidates returns the exports whose paths contain, case-insensitively,
// object, or failing that its last dotted component, or failing that that
// component without its trailing digits (LevelInfo9 finds LevelInfo0),
// closest first.
func candidates(p *reader.Package, object string) []int {
	paths := p.ExportPaths()
	for i := range paths {
		paths[i] = strings.ToLower(paths[i])
	}
	want := strings.ToLower(object)
	last := want[strings.LastIndexByte(want, '.')+1:]
	for _, sub := range []string{want, last, strings.TrimRight(last, "0123456789")} {
		if sub == "" {
			continue
		}
		var out []int
		for i, path := range paths {
			if strings.Contains(path, sub) {
				out = append(out, i)
			}
		}
		if len(out) > 0 {
			// Closest first: the name itself, then shorter paths.
			rank := func(i int) int {
				if paths[i] == sub || strings.HasSuffix(paths[i], "."+sub) {
					return 0
				}
				return 1
			}
			sort.SliceStable(out, func(a, b int) bool {
				ra, rb := rank(out[a]), rank(out[b])
				if ra != rb {
					return ra < rb
				}
				return len(paths[out[a]]) < len(paths[out[b]])
			})
			return out
		}
	}
	return nil
}
