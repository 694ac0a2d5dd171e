package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// verifyCommand returns the "verify" command.
func verifyCommand() *command {
	return &command{
		name:     "verify",
		synopsis: "FILE|DIR... [--json] [--aes-key KEY] [--package PACKAGE] [--engine VERSION] [--no-check-cache]",
		summary:  "check packages and IoStore containers for problems",
		description: `Read each package and check every structural rule the engine relies on:
regions inside the file and not overlapping, references in range, names well
formed, generations consistent with the tables, property lists ending inside
their export, and lazy-array offsets pointing just past their array.

A folder is searched for the files verify reads (legacy packages by their
extensions, .utoc, .pak, .uasset, .umap and .uzenasset), all the way down.
Patterns such as Textures/*.utx are expanded by unrmod, so they work in
every shell.

A sound file prints 'ok  FILE (N names, N imports, N exports)'. A bad file
prints one 'FILE: problem' line per problem; a file that cannot be read at
all prints one line with the reason. Every file is checked even after a bad
one; the exit status is 1 when any file has a problem.

Each file is read under a shared lock (a container's .utoc and every .ucas
partition): verify waits up to 30 seconds for another unrmod run that is
writing it, saying so, rather than check a container half replaced. A file
still busy then prints 'FILE: not checked: ...' and counts as a problem.

What the engine accepts as it is but unrmod would not write itself prints
'FILE: warning: ...' lines and does not fail the file: name entries that
store characters after the zero ending the name, as Deus Ex packages hold.
The engine reads such a name up to the zero; unrmod keeps the entry's bytes.

A file that an unrmod write was interrupted in the middle of renaming into
place (a killed run, a power loss) fails with a 'commit record:' problem
that names the record (.NAME.unrmod-commit) beside it; 'unrmod recover DIR',
or any unrmod write of the file, finishes the write.

An IoStore container (a .utoc) is checked section by section: every TOC
section in bounds and consistent (chunk block ranges, block sizes within
the block size, offsets within their .ucas partition, no block shared or
unused, no duplicate chunk id, perfect-hash slots), the directory index well
formed, every block decoded and every chunk's hash compared with its chunk
meta (SHA-1 for UE 4.2x, BLAKE3-160 for UE5). Oodle blocks decode through
the game's own Oodle library (--oodle PATH, $UNRMOD_OODLE, or the one beside
the game); without it their chunks are checked structurally only, and the
container fails as not verified, saying how to give it. A missing .ucas or
AES key fails too. The
container header is decoded and checked against the chunks: its container
id is the TOC's, every package in it has its package chunk, every package
chunk has a store entry, no package is listed twice.

Every package chunk of a container that unrmod can decompress is also
decoded as a zen package and checked as below, with its store entry.

A container-header chunk saved as a file is decoded and checked on its own.
A zen package saved as a file (as 'unrmod extract' writes it), or one inside
a container named with --package, is decoded and checked: every name hash;
every export's serial offset and size, and the exports' data tiling the
export data; every export created and serialized once by the export
bundles; every object reference, dependency and arc in range; the public
export hashes against the exports' paths; and, inside a container, that
the package id is the hash of the package name and that the store entry
(export and bundle counts, chunk size, imported packages) matches.

A cooked UE4/UE5 asset (.uasset or .umap, with the .uexp beside it) is
decoded and checked as the engine reads it: the summary's offsets and
counts against its tables, every name hash, every import and export
reference in range, no outer chain that loops, the exports' data tiling the
export data up to its package tag, the preload dependencies and data
resources; and every export's tagged properties decoding to the end its
header records (not for an asset saved by the editor, whose exports may
hold editor data before their properties). It prints 'ok  FILE (UE 4.27
cooked asset: N names, N imports, N exports)'; for an unversioned cook,
the releases whose layout fits it (UE 5.2–5.5). --engine names the
release that cooked it when releases that fit write properties
differently.

Properties cooked unversioned (no tags) are checked only with --mappings,
the game's .usmap schema: every export of a zen package (with --package,
or a file) or cooked asset whose class the mappings hold must decode, and
a cooked asset's properties must end where its header records. Exports
the mappings cannot read (a class or struct they lack) are not problems.

A container that passes with every chunk's data checked (no Oodle chunk
left unchecked) is remembered in unrmod's cache folder ($` + cacheDirEnv + `, else
the user's cache folder), by its files' size, times and file numbers, so
that an 'unrmod apply' (mode: full) or 'unrmod rewrite' of it afterwards
copies its chunks without decoding them again while the files are
unchanged. Verify itself always checks everything. --no-check-cache or
` + checkCacheEnv + `=off remembers nothing.`,
		examples: []string{
			"unrmod verify Maps/CTF-Face.unr",
			"unrmod verify System/*.u Textures/*.utx",
			"unrmod verify Mods/",
			"unrmod verify --json Maps/*.unr",
			"unrmod verify Content/Paks/*.utoc",
			"unrmod verify Paks/Game.utoc --aes-key 0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
			"unrmod verify out/Maine/Content/Data/Table_Items.uasset",
			"unrmod verify Paks/Game.utoc --package /Game/Data/Table_Items",
		},
		setup: func(fset *flag.FlagSet) runner {
			asJSON := fset.Bool("json", false, "print one JSON document instead of text")
			key := addKeyFlag(fset)
			zf := addZenFlags(fset, key)
			mf := addMappingsFlag(fset)
			cf := addChecksFlag(fset)
			return func(s streams, args []string) error {
				if len(args) == 0 {
					return usagef("verify", "missing FILE")
				}
				checks := cf.cache()
				m, err := mf.load(key)
				if err != nil {
					return err
				}
				if k := recognise(args[0]).Kind; *zf.pkg != "" && (len(args) != 1 || k != ufile.Container && k != ufile.Pak) {
					return usagef("verify", "%v: give one container or pak with --package", errNotZen)
				}
				args, err = verifyTargets(args)
				if err != nil {
					return err
				}
				doc := report.Verify{OK: true, Files: []report.FileVerify{}}
				bad := 0
				var records safefile.CommitFinder // reads each folder once
				for _, file := range args {
					r, err := verifyOne(s, file, key, zf, m, checks)
					if err != nil {
						return err
					}
					if p := interruptedWrite(&records, file); p != nil && r.Kind != "commit-record" {
						r.Problems = append(r.Problems, *p)
						r.OK = false
					}
					if !*asJSON {
						writeVerifyText(s, &r)
					}
					if !r.OK {
						doc.OK = false
						bad++
					}
					doc.Files = append(doc.Files, r)
				}
				if *asJSON {
					if err := writeJSON(s.out, doc); err != nil {
						return err
					}
				}
				if bad > 0 {
					if len(args) > 1 {
						fmt.Fprintf(s.err, "unrmod: %d of %d files have problems\n", bad, len(args))
					}
					return errReported
				}
				return nil
			}
		},
	}
}

// verifyOne verifies one file under the shared locks of every file it
// reads (a container's .utoc and .ucas partitions): it waits for a run
// that replaces them, so that it never reports a container half replaced
// as corrupt. A file still busy when the wait ends is a problem of its own
// ("not checked"), not a corruption.
func verifyOne(s streams, file string, key *keyFlag, zf *zenFlags, m *usmap.Mappings, checks *checkcache.Cache) (report.FileVerify, error) {
	if safefile.IsRecord(filepath.Base(file)) {
		return verifyRecord(file), nil
	}
	f, locks, err := openRead(s, file)
	if err != nil {
		msg := "not checked: " + err.Error()
		return report.FileVerify{File: file, Problems: []report.Problem{{Message: msg, Text: msg}}}, nil
	}
	defer locks.Release()
	switch {
	case f.Kind == ufile.Container && *zf.pkg != "":
		z, err := openZenInContainer("verify", file, zf)
		if err != nil {
			return report.FileVerify{}, err
		}
		defer z.Close()
		return verifyZen(z, m), nil
	case f.Kind == ufile.Container:
		return verifyContainerFile(file, key, checks), nil
	case f.Kind == ufile.Pak && *zf.pkg != "":
		a, err := pakPackageArg(f, zf)
		if err != nil {
			return report.FileVerify{}, err
		}
		r, err := verifyAsset(a, zf, m)
		r.File = file + ":" + a.Path
		return r, err
	case f.Kind == ufile.Pak:
		return verifyPakFile(file, key), nil
	case f.Kind == ufile.ZenPackage || f.Kind == ufile.ContainerHeader:
		return verifyChunkFile(f, zf, m), nil
	case f.Kind == ufile.CookedAsset:
		return verifyAsset(f, zf, m)
	case f.Kind == ufile.ShaderLibrary:
		return verifyShaderLibrary(file), nil
	}
	return verifyFile(f), nil
}

// verifiable lists the file extensions verify looks for in a folder:
// legacy packages, containers, paks and zen packages.
var verifiable = map[string]bool{
	".u": true, ".utx": true, ".unr": true, ".uax": true, ".umx": true, ".usx": true, ".ukx": true, ".ut2": true,
	".dx": true, ".rom": true, ".upkg": true,
	".utoc": true, ".pak": true, ".uasset": true, ".umap": true, ".uzenasset": true,
	".ushaderbytecode": true, ".uzenshaderbytecode": true,
}

// verifyTargets replaces each folder among args by the files below it that
// verify reads (by extension), in path order; an empty folder is an error.
func verifyTargets(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a)
			continue
		}
		n := len(out)
		var records []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != a && safefile.IsWorkFile(d.Name()) {
				return fs.SkipDir // the staging folder of an interrupted extract
			}
			if d.Type().IsRegular() && verifiable[strings.ToLower(filepath.Ext(p))] {
				out = append(out, p)
			} else if d.Type().IsRegular() && safefile.IsRecord(d.Name()) {
				records = append(records, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		// A commit record is listed when none of the files it writes is (a
		// .utoc renamed away in the middle of the write).
		for _, rec := range records {
			c, err := safefile.ReadCommit(rec)
			if err == nil && slices.ContainsFunc(out[n:], func(p string) bool {
				return slices.ContainsFunc(c.Targets, func(t string) bool { return safefile.Identity(t) == safefile.Identity(p) })
			}) {
				continue
			}
			out = append(out, rec)
		}
		if len(out) == n {
			return nil, usagef("verify", "%s holds no package, container or pak to verify", a)
		}
	}
	return out, nil
}

// verifyFile reads and verifies one legacy package.
func verifyFile(f *ufile.File) report.FileVerify {
	p, err := readLegacy("verify", f)
	if err != nil {
		return report.FileVerify{File: f.Path, Problems: []report.Problem{packageReadProblem(err)}}
	}
	return report.VerifyPackage(f.Path, p)
}

// verifyAsset decodes and verifies a cooked asset, as the release --engine
// names when given.
func verifyAsset(f *ufile.File, zf *zenFlags, m *usmap.Mappings) (report.FileVerify, error) {
	var opts *uasset.Options
	if *zf.engine != "" {
		r, err := uasset.ParseRelease(*zf.engine)
		if err != nil {
			return report.FileVerify{}, usagef("verify", "--engine: %v", err)
		}
		opts = &uasset.Options{Release: r}
	}
	p, err := f.Asset(opts)
	if err != nil {
		return report.FileVerify{File: f.Path, Kind: "cooked-asset", Problems: []report.Problem{containerReadProblem(err)}}, nil
	}
	return report.VerifyAssetWith(f.Path, p, m), nil
}

// packageReadProblem turns the error of reading a legacy package into a
// problem without the file name, which the report names already.
func packageReadProblem(err error) report.Problem {
	var nt *ufile.NotTakenError
	if errors.As(err, &nt) {
		msg := strings.TrimPrefix(err.Error(), nt.Path+": ")
		return report.Problem{Message: msg, Text: msg}
	}
	return report.PackageReadProblem(err, reportOptions())
}

// writeVerifyText prints the result lines: "ok  FILE (...)" or one line per
// problem. They are the command's data and go to standard output.
func writeVerifyText(s streams, r *report.FileVerify) {
	for _, q := range r.Warnings {
		fmt.Fprintf(s.out, "%s: %s\n", r.File, q.Text)
	}
	if r.OK {
		if r.Container != nil {
			fmt.Fprintf(s.out, "ok  %s (%s)\n", r.File, containerSummary(r.Container))
			return
		}
		if r.Pak != nil {
			fmt.Fprintf(s.out, "ok  %s (pak version %d, %s read back)\n", r.File, r.Pak.Version, plural(r.Pak.Files, "file"))
			return
		}
		if h := r.ContainerHeader; h != nil {
			fmt.Fprintf(s.out, "ok  %s (%s)\n", r.File, h)
			return
		}
		if a := r.Asset; a != nil {
			fmt.Fprintf(s.out, "ok  %s (%s: %s, %s, %s)\n", r.File, assetWhat(a), plural(r.Names, "name"), plural(r.Imports, "import"), plural(r.Exports, "export"))
			return
		}
		if l := r.ShaderLibrary; l != nil {
			fmt.Fprintf(s.out, "ok  %s (%s shader library: %s, %s, %s)\n", r.File, l.Form, plural(l.ShaderMaps, "shader map"), plural(l.Shaders, "shader"), plural(l.Groups, "group"))
			return
		}
		if r.Kind == "zen-package" {
			fmt.Fprintf(s.out, "ok  %s (zen package %s: %s, %s, %s)\n", r.File, r.Package, plural(r.Names, "name"), plural(r.Imports, "import"), plural(r.Exports, "export"))
			return
		}
		fmt.Fprintf(s.out, "ok  %s (%s, %s, %s)\n", r.File, plural(r.Names, "name"), plural(r.Imports, "import"), plural(r.Exports, "export"))
		return
	}
	for _, q := range r.Problems {
		fmt.Fprintf(s.out, "%s: %s\n", r.File, q.Text)
	}
}

// assetWhat says what a verified asset is: "UE 4.27 cooked asset", "UE
// 5.2–5.5 cooked asset" when several releases fit an unversioned cook, or
// "UE 4.25 asset saved by the editor".
func assetWhat(a *report.AssetVerify) string {
	release := a.Release
	if n := len(a.Fitting); n > 1 {
		release = a.Fitting[0] + "–" + a.Fitting[n-1]
	}
	if a.Cooked {
		return "UE " + release + " cooked asset"
	}
	return "UE " + release + " asset saved by the editor"
}
