package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
)

// convertCommand returns the "convert" command.
func convertCommand() *command {
	return &command{
		name:     "convert",
		synopsis: "IN --to zen|legacy -o OUT [--engine VERSION] [--package NAME] [--base-game] [--containers UTOC] [--global PATH] [--container-header FILE] [--json]",
		summary:  "convert a cooked asset (.uasset/.uexp) into the zen package the engine makes from it, or back",
		description: `Convert the cooked asset IN (.uasset or .umap, with its .uexp beside it) into
the zen package the engine's IoStore packer makes from it for the release
--engine names, byte for byte, and write it to OUT (the form 'unrmod extract'
writes a container's packages in, and 'unrmod pack' packs). The asset's bulk
data files (.ubulk, .uptnl, .m.ubulk) become the package's bulk chunks as
they are: they are copied beside OUT under OUT's base name. A bulk file
beside OUT that IN has not is removed, so OUT is not read with stale data.

--engine is the game's release (` + zen.EngineNames() + `; converting to
5.0-5.2 is not done). Without it, the asset's own release is used when the
asset tells it, or when every release its layout fits writes the same
package; otherwise the command asks for it. The package name
(/Game/Maps/Arena) is the one UE5 cooks record; UE4 cooks record none, and it
is then taken from the asset's name map (the one package path ending in the
file's name) unless --package gives it. For UE 4.26/4.27, --base-game says
that the packages the asset depends on are the shipped game's, not packed
with it (their arcs then name bundle -1, as the engine writes for base-game
packages).

Refused, with the reason: editor assets (not cooked), imports whose outer
chain does not end in a package (named), export data out of order, Verse
cells, compressed bulk data, and anything else the engine's packer would
stop on. The output is encoded, decoded again and verified before anything
is written; OUT and the bulk files are written as one commit (all or none),
then OUT is read back and compared. IN is never modified.

--to legacy goes the other way: IN is a zen package file (as 'unrmod extract'
writes them) or a container's .utoc with --package naming the package, and
OUT receives the cooked asset the engine's cooker wrote (OUT.uasset or
.umap, its .uexp, and the package's bulk data as .ubulk, .uptnl, .m.ubulk
beside it), which UAssetGUI and the editor open. The imports are named from
the container set: the other .utoc files beside the container and the
global.utoc beside it or one folder up (for a zen package file, the set of
the container --containers names). What the set cannot name is refused,
naming each import and the file that would name it (global.utoc for script
objects, the container of each missing package); --global reads the script
objects from elsewhere (a global.utoc, or a folder of its chunks saved as
files). UE 4.26/4.27 and 5.3 and later packages convert; 4.26/4.27 and
5.6-5.8 share zen layouts, so give --engine for them. A 4.26/4.27 package's
imports are path hashes: they are named from the package's own names, the
script objects and the container set; --container-header gives the game
container's ContainerHeader chunk (saved as a file) whose store entry names
the imported packages. The asset is verified before it is written: it
decodes clean and converts back into the package byte for byte.

A container's .utoc without --package converts every package of the
container: OUT is a folder, and each asset goes under the path 'unrmod ls'
shows for the package (<Game>/Content/...uasset, with its .uexp and bulk
files), -j N packages at once (default: one per core). --filter GLOB
(repeatable, as 'unrmod extract' takes it) selects packages by that path.
A package that cannot be converted (imports that no container of the set
holds) is refused with its reason and the others go on; the files are
renamed into place together once all are written, then read back. The
summary (--json: both lists) counts converted and refused packages; the
exit status is 1 when any was refused. A progress bar is shown on standard
error when it is a terminal.`,
		examples: []string{
			"unrmod convert Paks/pakchunk0-Windows.utoc --to legacy --engine 5.8 -o legacy/ --filter 'Game/Content/UI/**' -j 4",
			"unrmod convert Saved/Cooked/Windows/MyGame/Content/UI/W_Menu.uasset --to zen --engine 5.4 -o mod/MyGame/Content/UI/W_Menu.uasset",
			"unrmod convert TestModUI.uasset --to zen --engine 4.27 --package /Game/Mods/TestModUI -o out/TestModUI.uasset --json",
			"unrmod convert Paks/pakchunk0-Windows.utoc --package /Game/Data/DT_Items --to legacy --engine 5.8 -o legacy/DT_Items.uasset",
			"unrmod convert extracted/Game/Content/Data/DT_Items.uasset --to legacy --engine 5.8 --containers Paks/pakchunk0-Windows.utoc -o legacy/DT_Items.uasset",
			"unrmod convert extracted/Table_SignsJanuary.uasset --to legacy --engine 4.27 --global chunks/ --container-header chunks/ContainerHeader_1.bin -o legacy/Table_SignsJanuary.uasset",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the result to `OUT` (required): the zen package, or the cooked .uasset/.umap with its .uexp; bulk files go beside it")
			to := fs.String("to", "", "the `FORMAT` to convert to: zen or legacy (required)")
			engine := fs.String("engine", "", "the game's engine `VERSION` ("+zen.EngineNames()+")")
			pkgName := fs.String("package", "", "--to zen: the asset's long package `NAME` (/Game/Maps/Arena) when it does not record it; --to legacy from a container: the package to convert")
			baseGame := fs.Bool("base-game", false, "UE 4.26/4.27: the packages the asset depends on come from the shipped game")
			containers := fs.String("containers", "", "--to legacy from a zen package file: a `UTOC` of the game whose container set (and global.utoc) names the imports")
			global := fs.String("global", "", "--to legacy: the game's script objects from `PATH` (a global.utoc, or a folder of its chunks saved as files), instead of the global.utoc beside the containers")
			header := fs.String("container-header", "", "--to legacy, UE 4.26/4.27: the `FILE` holding the game container's ContainerHeader chunk, whose store entry names the imported packages")
			var filters globList
			fs.Var(&filters, "filter", "--to legacy from a whole container: convert only packages whose path matches `GLOB` (repeatable)")
			jobs := fs.Int("j", 0, "--to legacy from a whole container: convert `N` packages at once; 0 means one per core")
			fs.IntVar(jobs, "jobs", 0, "the same as -j `N`")
			asJSON := fs.Bool("json", false, "print the report as one JSON document")
			return func(s streams, args []string) error {
				in, err := oneArg("convert", args, "IN")
				if err != nil {
					return err
				}
				if *out == "" || *out == "-" {
					return usagef("convert", "missing -o OUT (a file path)")
				}
				switch strings.ToLower(*to) {
				case "zen":
				case "":
					return usagef("convert", "missing --to zen or --to legacy")
				case "legacy", "uasset", "cooked":
					var e zen.Engine
					if *engine != "" {
						if e, err = zen.ParseEngine(*engine); err != nil {
							return usagef("convert", "--engine: %v", err)
						}
					}
					if *baseGame {
						return usagef("convert", "--base-game is for --to zen")
					}
					return convertToLegacy(s, in, *out, e, legacyInputs{pkgName: *pkgName, containers: *containers, global: *global, header: *header, filters: filters, jobs: *jobs}, *asJSON)
				default:
					return usagef("convert", "--to %s: convert makes zen or legacy", *to)
				}
				if len(filters) > 0 || *jobs != 0 {
					return usagef("convert", "--filter and -j are for --to legacy from a whole container")
				}
				if *global != "" || *header != "" {
					return usagef("convert", "--global and --container-header are for --to legacy")
				}
				opts := &convert.Options{PackageName: *pkgName, ImportsFromBaseGame: *baseGame}
				if *engine != "" {
					if opts.Engine, err = zen.ParseEngine(*engine); err != nil {
						return usagef("convert", "--engine: %v", err)
					}
				}
				if safefile.SameFile(in, *out) {
					return usagef("convert", "output %s is the input file; convert never modifies its input", *out)
				}
				f := recognise(in)
				if f.Kind != ufile.CookedAsset {
					if err := f.Err(); err != nil {
						return err
					}
					return fmt.Errorf("%s: %s, not a cooked asset (.uasset/.umap with its .uexp): convert reads cooked assets", in, f.Kind)
				}
				uses := assetRewriteUses(f, *out)
				locks, err := checkAndLock(s, uses...)
				if err != nil {
					return err
				}
				defer locks.Release()
				doc, err := convertAsset(s.sess, f, *out, opts)
				if err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(s.out, doc)
				}
				_, err = fmt.Fprintln(s.out, doc.summary())
				return err
			}
		},
	}
}

// convertDoc reports a conversion.
type convertDoc struct {
	Input          string   `json:"input"`
	Output         string   `json:"output"`
	Engine         string   `json:"engine"`
	Layout         string   `json:"layout"`
	Package        string   `json:"package"`
	PackageID      string   `json:"package_id"`
	Size           int64    `json:"size"`
	Names          int      `json:"names"`
	Imports        int      `json:"imports"`
	Exports        int      `json:"exports"`
	ImportedPkgs   int      `json:"imported_packages"`
	BulkFiles      []string `json:"bulk_files"`
	BulkFilesBytes int64    `json:"bulk_files_bytes"`
}

func (d *convertDoc) summary() string {
	s := fmt.Sprintf("converted %s to %s: zen package %s (%s) for UE %s, %d bytes, %d names, %d imports, %d exports",
		d.Input, d.Output, d.Package, d.PackageID, d.Engine, d.Size, d.Names, d.Imports, d.Exports)
	if len(d.BulkFiles) > 0 {
		s += fmt.Sprintf("; bulk data copied to %s (%d bytes)", strings.Join(d.BulkFiles, ", "), d.BulkFilesBytes)
	}
	return s
}

// convertAsset converts cooked asset f, checks the package
// (convert.EncodeChecked) and writes it to out with copies of the bulk
// files beside the input, as one batch; then reads out back.
func convertAsset(sess *safefile.Session, f *ufile.File, out string, opts *convert.Options) (*convertDoc, error) {
	var aopts *uasset.Options
	if opts.Engine != (zen.Engine{}) {
		if r := (uasset.Release{Major: opts.Engine.Major, Minor: opts.Engine.Minor}); r != (uasset.Release{}) {
			if _, ok := uasset.ReleaseFileVersion(r); ok {
				aopts = &uasset.Options{Release: r}
			}
		}
	}
	// A large asset is converted with its export data left in the .uexp
	// (read in ranges as the package is written).
	var a *uasset.Package
	var err error
	if st, serr := os.Stat(f.Uexp); f.Uexp != "" && f.Pak == "" && serr == nil && st.Size() >= convert.StreamThreshold {
		var x *os.File
		a, x, err = f.AssetStream(aopts)
		if x != nil {
			defer x.Close()
		}
	} else {
		a, err = f.Asset(aopts)
	}
	if err != nil {
		return nil, err
	}
	p, err := convert.ToZen(a, opts)
	if errors.Is(err, convert.ErrUnsupportedEngine) && opts.Engine == (zen.Engine{}) {
		return nil, fmt.Errorf("%w (give it with --engine)", err)
	}
	if err != nil {
		return nil, err
	}
	var b []byte
	var stream *zen.Stream
	if p.Streamed() {
		stream, err = convert.EncodeStreamChecked(out, p)
	} else {
		b, err = convert.EncodeChecked(out, p)
	}
	if err != nil {
		return nil, err
	}
	in, o := uasset.CompanionNames(f.Path), uasset.CompanionNames(out)
	batch := &safefile.Batch{Session: sess}
	defer batch.Abort()
	size := int64(len(b))
	if stream != nil {
		size = stream.Size()
		if err := addStream(batch, out, stream.NewReader()); err != nil {
			return nil, err
		}
	} else if err := batch.Add(out, b, 0o644); err != nil {
		return nil, err
	}
	doc := &convertDoc{Input: f.Path, Output: out, Layout: p.Layout.String(), Package: p.PackageName(), PackageID: p.ID().String(),
		Size: size, Names: len(p.Names), Imports: len(p.Imports), Exports: len(p.Exports),
		ImportedPkgs: max(len(p.ImportedPackages), len(p.Graph)), BulkFiles: []string{}}
	if e, err := convert.TargetEngine(a, opts.Engine); err == nil {
		doc.Engine = e.String()
	}
	for _, c := range [][2]string{{in.Ubulk, o.Ubulk}, {in.Uptnl, o.Uptnl}, {in.MUbulk, o.MUbulk}} {
		n, err := copyInto(batch, c[0], c[1])
		if err != nil {
			return nil, err
		}
		if n < 0 {
			batch.Remove(c[1])
			continue
		}
		doc.BulkFiles = append(doc.BulkFiles, c[1])
		doc.BulkFilesBytes += n
	}
	if err := batch.Commit(); err != nil {
		return nil, err
	}
	if stream != nil {
		if err := readBack(out, stream, size); err != nil {
			return nil, err
		}
		return doc, nil
	}
	back, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("reading back %s: %w", out, err)
	}
	if !bytes.Equal(back, b) {
		return nil, fmt.Errorf("%s: the file read back differs from the package written (%d bytes, want %d)", out, len(back), len(b))
	}
	return doc, nil
}

// addStream adds to batch the file path with the bytes read from r.
func addStream(batch *safefile.Batch, path string, r io.Reader) error {
	w, err := batch.Create(path, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readBack reads the file path back and compares it with want's size
// bytes, a MiB at a time.
func readBack(path string, want io.ReaderAt, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading back %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading back %s: %w", path, err)
	}
	if st.Size() != size {
		return fmt.Errorf("%s: the file read back differs from what was written (%d bytes, want %d)", path, st.Size(), size)
	}
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); off < size; {
		n := int(min(int64(len(a)), size-off))
		if _, err := io.ReadFull(f, a[:n]); err != nil {
			return fmt.Errorf("reading back %s: %w", path, err)
		}
		if m, err := want.ReadAt(b[:n], off); m < n {
			return fmt.Errorf("reading back %s: %w", path, err)
		}
		if !bytes.Equal(a[:n], b[:n]) {
			return fmt.Errorf("%s: the file read back differs from what was written (at 0x%X)", path, off)
		}
		off += int64(n)
	}
	return nil
}
