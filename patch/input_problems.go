package patch

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/ue"
)

// InputProblem is a problem the input of a legacy target already had before
// the patch: verification finds it in the input file.
type InputProblem struct {
	Problem string `json:"problem"`
	// Kept is set when the output has the problem too: it lies outside what
	// the patch changes, and the patch leaves it as it was.
	Kept bool `json:"kept"`
}

// InputProblemsError is the reason a legacy target whose input already fails
// verification is not patched: the problems lie in what the patch changes,
// or an operation or the writer ran into them. Apply wraps it in an *Error.
// When the problems lie elsewhere, Apply goes on instead, and lists them in
// TargetResult.InputProblems.
type InputProblemsError struct {
	File     string           // the input package
	Problems []reader.Problem // what verification finds in the input
	// Changed names the parts of the package the patch changes that hold
	// some of the problems (`export CTF-Face.LevelInfo0`, `the header`),
	// and InChanged counts those problems.
	Changed   []string
	InChanged int
	// Err is the error an operation or the writer stopped with, if that is
	// what stopped the patch.
	Err error
}

// maxProblemsShown bounds the input problems an error message lists.
const maxProblemsShown = 3

// Error lists the input's problems, then says what stopped the patch.
func (e *InputProblemsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the input already has %s: %s", e.File, count(len(e.Problems), "problem"), problemList(e.Problems))
	if e.Err != nil {
		them := "them"
		if len(e.Problems) == 1 {
			them = "it"
		}
		fmt.Fprintf(&b, "; the patch ran into %s: %s", them, errorMessage(e.Err))
	}
	if len(e.Changed) > 0 {
		where := fmt.Sprintf("where %d of them are", e.InChanged)
		switch {
		case len(e.Problems) == 1:
			where = "where it is"
		case e.InChanged == len(e.Problems):
			where = "where they are"
		}
		fmt.Fprintf(&b, "; this patch changes %s, %s, so nothing was written; fix the input first "+
			"(`unrmod verify %s` lists its problems)", strings.Join(e.Changed, ", "), where, e.File)
	}
	return b.String()
}

// Unwrap returns the error that stopped the patch, if any.
func (e *InputProblemsError) Unwrap() error { return e.Err }

// errorMessage is err's message without the patch position an *Error
// starts with.
func errorMessage(err error) string {
	if pe, ok := err.(*Error); ok {
		return pe.Msg
	}
	return err.Error()
}

// count returns "1 problem", "3 problems".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// problemList lists the first problems, "; "-separated.
func problemList(probs []reader.Problem) string {
	var s []string
	for _, q := range probs[:min(len(probs), maxProblemsShown)] {
		s = append(s, q.String())
	}
	if n := len(probs) - maxProblemsShown; n > 0 {
		s = append(s, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(s, "; ")
}

// part is a structure of a package, as reader.Problem locates it.
type part struct {
	kind  string
	index int
}

// hexNumber matches the offsets in problem messages, which move with the
// data and tables.
var hexNumber = regexp.MustCompile(`0x[0-9A-Fa-f]+`)

// problemKey identifies a problem across two versions of a package: its part
// and its message, offsets aside.
func problemKey(q reader.Problem) string {
	return fmt.Sprintf("%s\x00%d\x00%s", q.Part, q.Index, hexNumber.ReplaceAllString(q.Msg, "0x…"))
}

// matchProblems pairs the output's problems with the input's (see
// ue.MatchProblems), each known by its part and message, offsets aside.
func matchProblems(input, output []reader.Problem) (kept []bool, fresh []reader.Problem) {
	return ue.MatchProblems(input, output, problemKey)
}

// changedParts returns the parts of p that operations changed, given the
// tables and header as they were before them: export entries and data
// (an export counts as a whole), names, imports, the tables holding them and,
// when the package changed, the header.
func changedParts(p *reader.Package, exports []reader.Export, names []reader.Name, imports []reader.Import, changed bool) map[part]string {
	out := map[part]string{}
	for i := range p.Exports {
		e := &p.Exports[i]
		if i < len(exports) {
			a := &exports[i]
			if a.Flags == e.Flags && a.ObjectName == e.ObjectName && a.Class == e.Class && a.Outer == e.Outer && a.Super == e.Super &&
				a.SerialOffset == e.SerialOffset && string(a.Data) == string(e.Data) {
				continue
			}
		}
		what := "export " + p.ExportPath(i)
		out[part{reader.PartExport, i}] = what
		out[part{reader.PartExportData, i}] = what
		out[part{reader.PartExports, -1}] = "the export table"
	}
	for i := range p.Names {
		if i < len(names) && names[i].Name == p.Names[i].Name && names[i].Flags == p.Names[i].Flags {
			continue
		}
		out[part{reader.PartName, i}] = fmt.Sprintf("name %d %q", i, p.Names[i].Name)
		out[part{reader.PartNames, -1}] = "the name table"
	}
	for i := range p.Imports {
		if i < len(imports) && sameImport(&imports[i], &p.Imports[i]) {
			continue
		}
		out[part{reader.PartImport, i}] = "import " + p.Path(reader.ImportRef(i))
		out[part{reader.PartImports, -1}] = "the import table"
	}
	if changed {
		out[part{reader.PartHeader, -1}] = "the header"
		out[part{reader.PartHeritage, -1}] = "the heritage table"
	}
	return out
}

// inputProblems builds the error for a target whose input has problems: the
// ones in what the patch changes (those of kept that changed holds), or,
// with cause, what stopped the patch.
func inputProblems(file string, probs []reader.Problem, touched []reader.Problem, changed map[part]string, cause error) *InputProblemsError {
	e := &InputProblemsError{File: file, Problems: probs, InChanged: len(touched), Err: cause}
	seen := map[string]bool{}
	for _, q := range touched {
		if what := changed[part{q.Part, q.Index}]; !seen[what] {
			seen[what] = true
			e.Changed = append(e.Changed, what)
		}
	}
	return e
}

func sameImport(a, b *reader.Import) bool {
	return a.ClassPackage == b.ClassPackage && a.ClassName == b.ClassName && a.Outer == b.Outer && a.ObjectName == b.ObjectName
}
