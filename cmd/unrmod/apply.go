package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/ue"
)

// applyCommand returns the "apply" command.
func applyCommand() *command {
	return &command{
		name:     "apply",
		synopsis: "PATCH.yaml [--dry-run] [--in-place] [--output-dir DIR] [--force] [--oodle PATH] [--no-check-cache] [--json]",
		summary:  "apply a YAML patch: rename names, set flags and properties, replace exports",
		description: `Read PATCH.yaml, apply every operation of every target to the decoded
packages, encode and verify each result, and only then write them all:
every output is written atomically, or none is. Inputs are never modified
unless --in-place is given (each original is kept as FILE.bak; the file
keeps its mode, and a symbolic link is written through).

Every file the patch reads or writes is locked for the whole run: a second
run that needs one of them waits up to 30 seconds for the first, then
fails naming the file. An output may not be another output, an input or
the patch file (compared as files, through links); for a container, each
.ucas partition and .pak of the output is compared with the input's, and
an output named as the input with its extension in other capitals is the
input container. An output replaces an
existing file only when that file is the target's earlier output (the same
package or container), or with --force; an output that already holds the
result is not written again ("already written"), so running a patch again,
after a run that was stopped midway too, tells what was written.

Outputs go where each target's "output:" says, or to patched/<name> beside
the patch file, or into --output-dir. Paths in the patch are relative to
the patch file; Windows separators and line endings are accepted.

The plan lists each operation and what it changes (old → new); operations
already in effect are reported, not errors, so applying a patch twice gives
the same file. A changed legacy package gets a new GUID derived from its
content (unless the target says guid: keep or gives one): clients that
cached the old file must get the new one.

A legacy input is verified first. When it already fails verification, the
error says so ("the input already has N problems: ...") rather than
blaming the patch, and the patch goes on only when those problems lie
outside what it changes; the plan then warns that the output keeps them.

A target may be a zen package saved as a file (a .uasset 'unrmod extract'
wrote from a UE 4.26/4.27 or UE5 container): rename, add-name,
package-flags, object-flags, replace-export (data:, or from: another
export of the package) and set-property apply, with set-property reaching
struct members (property: Position.X), array elements (Values[2]) and
DataTable rows (row: Stick). Every hash, offset and size that depends on
a change is recomputed; the plan lists the store-entry fields the
package's container header must change with it.

A target may also be an IoStore container (container: Paks/X.utoc, with
aes-key: when it is encrypted): its packages get the operations above by
name (packages:), and files: replace, add or remove whole chunks. mode: mod
(the default) writes output: NAME_P.utoc/.ucas/.pak, a small container
holding only the changed packages with their bulk data and a container
header for them, which the game prefers to its own; mode: full writes the
whole container again. The plan lists each package's old and new size and
hash and its store-entry changes; --dry-run writes nothing. A container
with Oodle blocks is read (and, with compression: oodle or keep, written)
through the game's own Oodle library: --oodle PATH, UNRMOD_OODLE, or the
one found beside the game (Binaries/Win64/oo2core_9_win64.dll).

A target may be a pak of cooked assets too (container: Paks/X.pak): its
assets (.uasset with .uexp) get the cooked-asset operations; mode: mod
writes output: NAME_P.pak holding only the changed assets, mode: full the
whole pak again with every other file copied as stored.

Mode: full copies every chunk of the game container the patch does not
change, checking each against its hash as it is copied.

` + checksHelp + `

The plan's notes (and source_check in --json) say when a remembered check
was used.

The patch format is described in docs/patch-format.md; a JSON Schema for
editors is in docs/patch.schema.json.`,
		examples: []string{
			"unrmod apply examples/patches/package-flags.yaml --dry-run",
			"unrmod apply mymod.yaml --output-dir build/",
			"unrmod apply fix-download.yaml --in-place",
			"unrmod apply examples/patches/zen-datatable.yaml",
			"unrmod apply examples/patches/grounded-mod.yaml --dry-run",
		},
		setup: func(fs *flag.FlagSet) runner {
			dry := fs.Bool("dry-run", false, "print the plan and verify the outputs, but write nothing")
			inPlace := fs.Bool("in-place", false, "overwrite each input, keeping the original as FILE.bak")
			outDir := fs.String("output-dir", "", "write every output into `DIR` under its input's name")
			force := fs.Bool("force", false, "let outputs replace existing files that are not this patch's earlier outputs")
			asJSON := fs.Bool("json", false, "print the plan and result as one JSON document")
			oodleLib := addOodleFlag(fs)
			cf := addChecksFlag(fs)
			return func(s streams, args []string) error {
				path, err := oneArg("apply", args, "PATCH.yaml")
				if err != nil {
					return err
				}
				if *inPlace && *outDir != "" {
					return usagef("apply", "--in-place and --output-dir exclude each other")
				}
				f, err := patch.ParseFile(path)
				if err != nil {
					return applyFailure(s, *asJSON, path, err)
				}
				// The Oodle library, when the patch changes containers: given,
				// or beside the game of the first one.
				var codecs *ue.Codecs
				for _, t := range f.Targets {
					if t.Container != nil {
						near := filepath.FromSlash(t.Container.Container)
						if !filepath.IsAbs(near) {
							near = filepath.Join(filepath.Dir(path), near)
						}
						if codecs, err = oodleLib.codecs(near); err != nil {
							return applyFailure(s, *asJSON, path, err)
						}
						break
					}
				}
				res, err := patch.Apply(f, patch.Options{DryRun: *dry, InPlace: *inPlace, OutputDir: *outDir, Force: *force, Session: s.sess, Codecs: codecs, Checks: cf.cache()})
				if err != nil {
					return applyFailure(s, *asJSON, path, err)
				}
				for _, t := range res.Targets {
					warnKeptProblems(s, t)
				}
				if *asJSON {
					return writeJSON(s.out, res)
				}
				printPlan(s.out, res)
				return nil
			}
		},
	}
}

// applyErrorDoc is what apply --json prints when the patch fails: where,
// and why. Nothing was written.
type applyErrorDoc struct {
	Patch string `json:"patch"`
	OK    bool   `json:"ok"`
	Error struct {
		Message string `json:"message"`
		File    string `json:"file,omitempty"`
		Line    int    `json:"line,omitempty"`
		Column  int    `json:"column,omitempty"`
	} `json:"error"`
}

// applyFailure reports a failed apply: as a JSON document on standard
// output with --json (exit status 1), else as the usual error line.
func applyFailure(s streams, asJSON bool, path string, err error) error {
	if !asJSON {
		return err
	}
	doc := applyErrorDoc{Patch: path}
	doc.Error.Message = errText(err)
	var pe *patch.Error
	if errors.As(err, &pe) {
		doc.Error.Message = reword(err, pe.Msg)
		doc.Error.File, doc.Error.Line, doc.Error.Column = pe.Pos.File, pe.Pos.Line, pe.Pos.Col
	}
	if werr := writeJSON(s.out, doc); werr != nil {
		return werr
	}
	fmt.Fprintf(s.err, "unrmod: %s\n", errText(err))
	return errReported
}

// printPlan prints each target's changes and a summary line.
func printPlan(w io.Writer, res *patch.Result) {
	for _, t := range res.Targets {
		fmt.Fprintf(w, "%s\n", t.Input)
		changes := t.Changes
		if t.Kind == "container" || t.Kind == "pak" {
			changes = nil // listed per package in the summary
		}
		for _, c := range changes {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(c.String(), "\n", "\n  "))
		}
		for _, d := range t.Data {
			fmt.Fprintf(w, "  data: %s\n", d)
		}
		for _, sc := range t.Store {
			fmt.Fprintf(w, "  store entry: %s (the container header must say so)\n", sc)
		}
		printInputProblems(w, t.InputProblems)
		if t.Changed && t.Kind == "legacy" {
			switch {
			case t.GUID.New != t.GUID.Old:
				fmt.Fprintf(w, "  guid: %s → %s (%s; clients cache packages by GUID)\n", t.GUID.Old, t.GUID.New, t.GUID.Policy)
			default:
				fmt.Fprintf(w, "  guid: kept %s (%d generations)\n", t.GUID.New, t.GUID.Generations)
			}
		}
		verb := "wrote"
		switch {
		case t.AlreadyWritten && t.Output == t.Input:
			verb = "already written by an earlier run, left as it is"
		case t.AlreadyWritten:
			verb = "already written by an earlier run (the output holds this result), left as it is"
		case res.DryRun:
			verb = "would write (dry run)"
		case !t.Changed && t.Output == t.Input:
			verb = "left unchanged"
		}
		fmt.Fprintf(w, "  %s: %s\n", verb, t.Summary())
		if t.Backup != "" && t.Changed && !res.DryRun {
			fmt.Fprintf(w, "  original kept as %s\n", t.Backup)
		}
	}
}

// warnKeptProblems says on standard error that a target's output keeps
// problems its input already had (the plan and --json list them).
func warnKeptProblems(s streams, t *patch.TargetResult) {
	n := 0
	for _, q := range t.InputProblems {
		if q.Kept {
			n++
		}
	}
	if n > 0 {
		them := "them"
		if n == 1 {
			them = "it"
		}
		fmt.Fprintf(s.err, "unrmod: warning: %s: the input already has %s; the output keeps %s byte for byte, so `unrmod verify` rejects %s too\n",
			t.Input, plural(n, "problem"), them, t.Output)
	}
}

// printInputProblems says what the input already had wrong: the problems the
// output keeps (outside what the patch changes) and those it no longer has.
func printInputProblems(w io.Writer, probs []patch.InputProblem) {
	var kept, gone []string
	for _, q := range probs {
		if q.Kept {
			kept = append(kept, q.Problem)
		} else {
			gone = append(gone, q.Problem)
		}
	}
	if len(kept) > 0 {
		them := "them"
		if len(kept) == 1 {
			them = "it"
		}
		fmt.Fprintf(w, "  warning: the input already has %s, outside what this patch changes; the output keeps %s:\n",
			plural(len(kept), "problem"), them)
		for _, q := range kept {
			fmt.Fprintf(w, "    %s\n", q)
		}
	}
	if len(gone) > 0 {
		fmt.Fprintf(w, "  note: the input had %s that the output no longer has:\n", plural(len(gone), "problem"))
		for _, q := range gone {
			fmt.Fprintf(w, "    %s\n", q)
		}
	}
}
