package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
)

func recoverCommand() *command {
	return &command{
		name:     "recover",
		synopsis: "FILE|DIR...",
		summary:  "finish a write that a killed unrmod run left half done",
		description: `Finish the writes of several files (a container's .utoc, .ucas and .pak,
the outputs of a patch) that an unrmod run killed during their renames
left half done. Such a write leaves a commit record beside the files
(.NAME.unrmod-commit), which 'unrmod verify' reports; every unrmod run that
writes one of the files finishes it first, and recover does only that.

A FILE finishes the writes that write it; a DIR those recorded in it. The
new files, complete and synced before the first rename, are renamed into
place, the originals kept during the write are removed, and so are the
records. Each write finished is printed on stderr; a write that cannot be
finished (a new file removed since) is an error that names the record and
changes nothing.`,
		examples: []string{
			"unrmod recover Content/Paks",
			"unrmod recover Content/Paks/z_MyMod_P.utoc",
		},
		setup: func(fs *flag.FlagSet) runner {
			return func(s streams, args []string) error {
				if len(args) == 0 {
					return usagef("recover", "missing FILE or DIR")
				}
				for _, a := range args {
					recs, err := s.sess.Recover(a)
					if err != nil {
						return err
					}
					if len(recs) == 0 {
						fmt.Fprintf(s.out, "%s: no interrupted unrmod write to finish\n", a)
					}
				}
				return nil
			}
		},
	}
}

// interruptedWrite returns the problem of file when a commit record beside
// it says that an unrmod write of it was interrupted, or nil.
func interruptedWrite(finder *safefile.CommitFinder, file string) *report.Problem {
	recs, err := finder.Find(file)
	if err != nil {
		return &report.Problem{Struct: "commit record", Message: err.Error(), Text: "commit record: " + err.Error()}
	}
	if len(recs) == 0 {
		return nil
	}
	return recordProblem(recs[0])
}

// recordProblem describes an interrupted write.
func recordProblem(c *safefile.Commit) *report.Problem {
	var names []string
	for _, t := range c.Targets {
		names = append(names, filepath.Base(t))
	}
	msg := fmt.Sprintf("an unrmod write of %s was interrupted while it renamed them into place (recorded in %s); they may be a mix of old and new files: run 'unrmod recover %s' (or any unrmod write of them) to finish it",
		strings.Join(names, ", "), filepath.Base(c.Record), filepath.Dir(c.Record))
	return &report.Problem{Struct: "commit record", Message: msg, Text: "commit record: " + msg}
}

// verifyRecord reports a commit record given to verify (or found in a
// folder beside none of the files it writes).
func verifyRecord(file string) report.FileVerify {
	r := report.FileVerify{File: file, Kind: "commit-record", Problems: []report.Problem{}}
	c, err := safefile.ReadCommit(file)
	if err != nil {
		r.Problems = append(r.Problems, report.Problem{Struct: "commit record", Message: err.Error(), Text: "commit record: " + err.Error()})
		return r
	}
	r.Problems = append(r.Problems, *recordProblem(c))
	return r
}
