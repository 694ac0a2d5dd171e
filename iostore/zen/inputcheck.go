package zen

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// This file holds the rule every write of zen packages and containers
// follows with an input that already fails verification (docs/zen.md,
// "Damaged inputs"): the input is verified before the write and the output
// after it; a problem of the input that the output no longer has means the
// encoder recomputed a field (a name hash, a table) from damaged data, which
// would pass the damage off as valid, so the write is refused. A package
// write whose output keeps every problem of the input byte for byte goes on
// with a warning; a container write refuses any.

// ErrInputDamaged is wrapped by *InputProblemsError: the input of a write
// already fails verification, and the write refused it.
var ErrInputDamaged = errors.New("the input is damaged")

// InputProblemsError is the reason a write of a zen package or a container
// whose input already fails verification wrote nothing.
type InputProblemsError struct {
	File     string       // the input
	Part     string       // the part of File that holds the problems, if not all of it ("package /Game/Maps/Arena")
	Problems []ue.Problem // what verification finds in the input
	// Gone lists the problems of Problems that the output would no longer
	// have: the encoder rebuilt the fields that hold them from the damaged
	// data. When it is empty, the write refuses the input because it
	// rebuilds or copies the structures that hold its problems (Rebuilds).
	Gone []ue.Problem
	// Rebuilds says what the write rebuilds or copies, for the message
	// ("a container write verifies every part it copies or rebuilds").
	Rebuilds string
}

// maxProblemsShown bounds the problems an error message lists.
const maxProblemsShown = 3

// Error names the input's problems and says why nothing was written.
func (e *InputProblemsError) Error() string {
	var b strings.Builder
	b.WriteString(e.File + ": ")
	if e.Part != "" {
		b.WriteString(e.Part + ": ")
	}
	fmt.Fprintf(&b, "the input already has %s: %s", countOf(len(e.Problems), "problem"), ProblemList(e.Problems))
	if len(e.Gone) > 0 {
		which := "them"
		switch {
		case len(e.Problems) == 1:
			which = "it"
		case len(e.Gone) < len(e.Problems):
			which = fmt.Sprintf("%d of them (%s)", len(e.Gone), ProblemList(e.Gone))
		}
		fmt.Fprintf(&b, "; the output would no longer have %s: the writer rebuilds those fields from the damaged data, "+
			"so the damage would pass for valid data", which)
	} else if e.Rebuilds != "" {
		fmt.Fprintf(&b, "; %s", e.Rebuilds)
	}
	fmt.Fprintf(&b, "; nothing was written: the input is damaged, fix it or extract it again (`unrmod verify %s` lists its problems)", e.File)
	return b.String()
}

// Unwrap returns ErrInputDamaged.
func (e *InputProblemsError) Unwrap() error { return ErrInputDamaged }

// ProblemList lists the first problems, "; "-separated, and how many more
// there are.
func ProblemList(probs []ue.Problem) string {
	var s []string
	for _, q := range probs[:min(len(probs), maxProblemsShown)] {
		s = append(s, q.String())
	}
	if n := len(probs) - maxProblemsShown; n > 0 {
		s = append(s, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(s, "; ")
}

// countOf returns "1 problem", "3 problems".
func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// hexOffset matches the offsets in problem messages, which move with the
// data and tables (hashes and other values stay significant).
var hexOffset = regexp.MustCompile(`at 0x[0-9A-Fa-f]+`)

// problemKey identifies a problem across an input and its output: its
// structure and message, offsets aside.
func problemKey(q ue.Problem) string {
	return q.Struct + "\x00" + hexOffset.ReplaceAllString(q.Msg, "at 0x…")
}

// MatchProblems pairs the output's problems with the input's (see
// ue.MatchProblems), each known by its structure and message, offsets
// aside.
func MatchProblems(input, output []ue.Problem) (kept []bool, fresh []ue.Problem) {
	return ue.MatchProblems(input, output, problemKey)
}

// CheckOutputProblems applies the rule for a package write to file: input
// and output are what verification finds in the package before and after
// the write. It returns the problems the output has that the input had not
// (fresh: the write's own doing, for the caller to refuse), an
// *InputProblemsError when the output no longer has some of the input's
// problems (the encoder rebuilt them from damaged data), and otherwise the
// input's problems, which the output keeps (none for a sound input): the
// write may go on, saying that the output keeps them.
func CheckOutputProblems(file string, input, output []ue.Problem) (kept, fresh []ue.Problem, err error) {
	k, fresh := MatchProblems(input, output)
	var gone []ue.Problem
	for i, q := range input {
		if !k[i] {
			gone = append(gone, q)
		}
	}
	if len(gone) > 0 {
		return nil, fresh, &InputProblemsError{File: file, Problems: input, Gone: gone}
	}
	return input, fresh, nil
}

// EncodeChecked encodes p again for a write to file, compact laying every
// part out as the engine does (see ForgetRaw), and checks the output under
// the rule above: it decodes it, refuses an output with problems p has not,
// and returns an *InputProblemsError when the output no longer has a
// problem of p (a field rebuilt from damaged data). Otherwise it returns the
// encoded bytes and p's problems, which the output keeps byte for byte (none
// for a sound package), for the caller to warn of.
func (p *Package) EncodeChecked(file string, compact bool) (data []byte, kept []ue.Problem, err error) {
	before := p.Problems(nil)
	if compact {
		p.ForgetRaw()
	}
	data, err = p.Encode()
	if err != nil {
		return nil, nil, err
	}
	q, err := DecodePackage(file, data, &DecodeOptions{Layout: p.Layout})
	if err != nil {
		return nil, nil, fmt.Errorf("the re-encoded package does not decode, nothing was written: %w", err)
	}
	kept, fresh, err := CheckOutputProblems(file, before, q.Problems(nil))
	if len(fresh) > 0 {
		return nil, nil, fmt.Errorf("%s: the re-encoded package has problems the input has not, nothing was written: %s", file, ProblemList(fresh))
	}
	if err != nil {
		return nil, nil, err
	}
	return data, kept, nil
}

// BaseRebuilds says why a writer refuses a damaged container header it
// takes as its base.
const BaseRebuilds = "the output's store entries and versions would be taken from it"

// CheckBaseHeader returns an *InputProblemsError when the container header
// h, read from file as the base of a write, fails verification.
func CheckBaseHeader(file string, h *ContainerHeader) error {
	if probs := h.Problems(); len(probs) > 0 {
		return &InputProblemsError{File: file, Part: "container header", Problems: probs, Rebuilds: BaseRebuilds}
	}
	return nil
}
