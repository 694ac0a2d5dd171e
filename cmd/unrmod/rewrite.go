package main

import (
	"bytes"
	"flag"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/writer"
)

// rewriteCommand returns the "rewrite" command.
func rewriteCommand() *command {
	return &command{
		name:     "rewrite",
		synopsis: "IN -o OUT [--layout preserve|compact] [--aes-key KEY] [--oodle PATH] [--no-check-cache] [--json]",
		summary:  "decode a package or container and write it again, unchanged, to a new file",
		description: `Decode IN and encode the unchanged model to OUT. The output is read back and
verified before it atomically replaces OUT; IN is never modified, and OUT
may not be IN.

The preserve layout keeps every structure at its offset, so an unchanged
package is written byte for byte. The compact layout lays the file out as
the engine saves it (header, names, export data, imports, exports),
rebasing the lazy-array offsets inside moved export data and dropping dead
bytes between structures.

A summary line says how many bytes were written, how many exports moved,
how many offsets were rebased, which tables moved, how many dead bytes were
dropped, and whether OUT is byte-identical to IN.

A zen package saved as a file is decoded and encoded again the same way:
preserve writes parts that are not laid out as the engine lays them out
from their original bytes, so an unchanged package comes out byte for byte;
compact lays every part out as the engine does.

A cooked UE4/UE5 asset (.uasset or .umap with its .uexp beside it) is
decoded and encoded again in its own layout (preserve only): OUT and the
.uexp beside it are written, and the .ubulk, .uptnl and .m.ubulk beside
IN are copied unchanged beside OUT, all as one commit (a bulk file beside
OUT that IN has not is removed with it). The output must decode again
with no problem the input has not before anything is replaced; an
unchanged asset comes out byte for byte.

An IoStore container (IN.utoc with its .ucas partitions) is written to
OUT.utoc and its .ucas files (OUT may be given with or without .utoc). The
container keeps its id, TOC version, block size, key GUID, partitions and
perfect hash. No file of OUT (.utoc, each .ucas partition) may be a file of
IN: not through a symbolic or hard link, and not by a name that differs
from IN's only in the case of its extension (X.UTOC for X.utoc, whose .ucas
is X.ucas); such an OUT is refused, naming both files. Preserve copies the .ucas bytes as they are and re-encodes
the TOC: the output is byte-identical. Compact lays the chunks out again one
after another, copying each chunk's stored blocks as they are (Oodle blocks
too: nothing is decompressed or recompressed). The output is checked before
it replaces anything: every chunk against its hash, Oodle ones through the
game's Oodle library (--oodle PATH, $UNRMOD_OODLE, or the one beside the
game), or, without it, structurally only, as the summary says. The companion .pak is not written: copy it beside the
output under the same base name if the game should mount it. An encrypted
container needs --aes-key; the output is encrypted with the same key.

` + checksHelp + `

The summary (and source_check in --json) says whether the input was
checked, checked and remembered, or copied on the strength of a remembered
check.`,
		examples: []string{
			"unrmod rewrite Maps/CTF-Face.unr -o /tmp/CTF-Face.unr",
			"unrmod rewrite --layout compact System/MyMod.u -o Compact/MyMod.u",
			"unrmod rewrite out/Maine/Content/Data/Table_Items.uasset -o /tmp/Table_Items.uasset",
			"unrmod rewrite --layout compact Paks/pakchunk0-WindowsNoEditor.utoc -o /tmp/pakchunk0-WindowsNoEditor",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the package to `OUT` (required; must not be IN)")
			layout := fs.String("layout", "preserve", "`LAYOUT` of the output: preserve or compact")
			asJSON := fs.Bool("json", false, "print the report as one JSON document")
			key := addKeyFlag(fs)
			cf := addChecksFlag(fs)
			zf := &zenFlags{pkg: new(string), global: new(string),
				engine: fs.String("engine", "", "read a zen package as engine `VERSION` writes it ("+zen.EngineNames()+") when the bytes do not tell")}
			return func(s streams, args []string) error {
				in, err := oneArg("rewrite", args, "IN")
				if err != nil {
					return err
				}
				if *out == "" {
					return usagef("rewrite", "missing -o OUT")
				}
				if *out == "-" {
					return usagef("rewrite", "rewrite writes a file, not standard output: give -o a path")
				}
				f := recognise(in)
				if f.Kind == ufile.CookedAsset {
					if *layout != "preserve" {
						return usagef("rewrite", "--layout: a cooked asset is written in the layout it was read in (preserve)")
					}
					uses := assetRewriteUses(f, *out)
					locks, err := checkAndLock(s, uses...)
					if err != nil {
						return err
					}
					defer locks.Release()
					doc, err := rewriteAsset(s.sess, f, *out)
					if err != nil {
						return err
					}
					warnInputProblems(s, doc.Output, doc.InputProblems)
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					_, err = fmt.Fprintln(s.out, doc.summary())
					return err
				}
				uses := []safefile.Use{{Path: in}, {Path: *out, Write: true}}
				if f.Kind == ufile.Container {
					uses = append(iostore.ContainerUses(in, false, true, "input container"),
						iostore.ContainerUses(iostore.TocPath(*out), true, false, "output container")...)
					if err := safefile.CheckUses(uses...); err != nil {
						return err
					}
				}
				locks, err := s.sess.Lock(uses...)
				if err != nil {
					return err
				}
				defer locks.Release()
				if f.Kind == ufile.Container {
					cl, err := iostore.ParseRewriteLayout(*layout)
					if err != nil {
						return usagef("rewrite", "--layout: %v", err)
					}
					doc, err := rewriteContainer(s, in, *out, cl, key, cf.cache())
					if err != nil {
						return err
					}
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					_, err = fmt.Fprintln(s.out, doc.summary())
					return err
				}
				lay, err := writer.ParseLayout(*layout)
				if err != nil {
					return usagef("rewrite", "--layout: %v", err)
				}
				if safefile.SameFile(in, *out) {
					return usagef("rewrite", "output %s is the input file; rewrite never modifies its input", *out)
				}
				if f.Kind == ufile.ZenPackage {
					doc, err := rewriteZen(s.sess, f, *out, lay, zf)
					if err != nil {
						return err
					}
					warnInputProblems(s, doc.Output, doc.InputProblems)
					if *asJSON {
						return writeJSON(s.out, doc)
					}
					_, err = fmt.Fprintln(s.out, doc.summary())
					return err
				}
				rep, err := rewrite(s.sess, f, *out, lay)
				if err != nil {
					return err
				}
				doc := rewriteDoc{
					Input:        in,
					Output:       *out,
					Layout:       rep.Layout.String(),
					Size:         rep.Size,
					MovedExports: rep.MovedExports,
					Rebased:      rep.Rebased,
					MovedTables:  append([]string{}, rep.MovedTables...),
					DroppedBytes: rep.DroppedBytes,
					Identical:    rep.Identical,
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

// rewrite re-encodes in to out with the given layout.
func rewrite(sess *safefile.Session, in *ufile.File, out string, layout writer.Layout) (*writer.Report, error) {
	p, err := readLegacy("rewrite", in)
	if err != nil {
		return nil, err
	}
	data, rep, err := writer.EncodeChecked(out, p, writer.Options{Layout: layout})
	if err != nil {
		return nil, err
	}
	return rep, sess.WriteFile(out, data, 0o644)
}

// rewriteDoc is the output of "unrmod rewrite".
type rewriteDoc struct {
	Input        string   `json:"input"`
	Output       string   `json:"output"`
	Layout       string   `json:"layout"`
	Size         int64    `json:"size"`
	MovedExports int      `json:"moved_exports"`
	Rebased      int      `json:"rebased_offsets"`
	MovedTables  []string `json:"moved_tables"`
	DroppedBytes int64    `json:"dropped_bytes"`
	Identical    bool     `json:"identical"`
	// InputProblems lists what verification finds wrong in a zen input:
	// the output keeps each of them byte for byte (a write that would
	// rebuild one is refused).
	InputProblems []string `json:"input_problems,omitempty"`
	// Companions are the bulk data files (.ubulk, .uptnl, .m.ubulk)
	// copied unchanged beside a cooked asset's output.
	Companions []string `json:"companions,omitempty"`
}

// warnInputProblems says on standard error that the output written to out
// keeps the input's problems.
func warnInputProblems(s streams, out string, probs []string) {
	if len(probs) == 0 {
		return
	}
	them := "them"
	if len(probs) == 1 {
		them = "it"
	}
	fmt.Fprintf(s.err, "unrmod: warning: the input already has %s; the output keeps %s byte for byte, so `unrmod verify` rejects %s too:\n",
		plural(len(probs), "problem"), them, out)
	for _, q := range probs {
		fmt.Fprintf(s.err, "  %s\n", q)
	}
}

// summary returns the one-line text report.
func (d *rewriteDoc) summary() string {
	tables := "none"
	if len(d.MovedTables) > 0 {
		tables = strings.Join(d.MovedTables, ",")
	}
	same := "differs from the input"
	if d.Identical {
		same = "byte-identical to the input"
	}
	return fmt.Sprintf("wrote %d bytes to %s (layout %s): %d moved exports, %d rebased offsets, moved tables: %s, %d dropped dead bytes; %s",
		d.Size, d.Output, d.Layout, d.MovedExports, d.Rebased, tables, d.DroppedBytes, same)
}

// rewriteZen decodes a zen package file and writes it again to out, after
// checking that the output decodes with no problem the input did not have.
func rewriteZen(sess *safefile.Session, cf *ufile.File, out string, layout writer.Layout, zf *zenFlags) (*rewriteDoc, error) {
	z, err := openZenFile("rewrite", cf.Path, cf.Data, zf)
	if err != nil {
		return nil, err
	}
	p := z.pkg
	raw := p.KeptRaw()
	data, kept, err := p.EncodeChecked(cf.Path, layout == writer.Compact)
	if err != nil {
		return nil, err
	}
	if err := sess.WriteFile(out, data, 0o644); err != nil {
		return nil, err
	}
	doc := &rewriteDoc{Input: cf.Path, Output: out, Layout: layout.String(), Size: int64(len(data)), MovedTables: []string{},
		Identical: bytes.Equal(data, cf.Data)}
	for _, q := range kept {
		doc.InputProblems = append(doc.InputProblems, q.String())
	}
	if layout == writer.Compact {
		doc.MovedTables = append(doc.MovedTables, raw...)
		doc.DroppedBytes = int64(len(cf.Data) - len(data))
	}
	return doc, nil
}
