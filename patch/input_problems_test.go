package patch_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// damagedArenaTex writes a copy of ArenaTex.utx into dir whose texture
// GreyTrim1 has its Mips[1] SeekPos 4 bytes off (the damage a tool that
// moved the data without rebasing it leaves), and returns its path, the
// original package and the texture's index.
func damagedArenaTex(t *testing.T, dir string) (string, *reader.Package, int) {
	t.Helper()
	in := readPkg(t, corpus.Path(t, arenaTex))
	i := exportByPath(t, in, "ArenaTex.GreyTrim1")
	nl, err := in.Native(i)
	if err != nil || len(nl.Lazy) < 2 {
		t.Fatalf("%s: %d lazy arrays (%v)", in.ExportPath(i), len(nl.Lazy), err)
	}
	data := append([]byte(nil), in.Source()...)
	at := int(in.Exports[i].SerialOffset) + nl.Lazy[1].SeekPosAt
	binary.LittleEndian.PutUint32(data[at:], uint32(nl.Lazy[1].SeekPos+4))
	path := filepath.Join(dir, filepath.Base(arenaTex))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := reader.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if probs := q.Verify(); len(probs) != 1 || !strings.Contains(probs[0].String(), "Mips[1]") {
		t.Fatalf("the damaged copy has problems %v, want the one in Mips[1]", probs)
	}
	return path, in, i
}

// When the input already fails verification, apply says so instead of
// blaming the patch: it goes on when the problems lie outside what the
// patch changes (and the plan says the output keeps them), and stops, with
// the input's problems, when the patch changes the structure they are in,
// when an operation runs into them, or when the layout has to move them.
func TestApplyInputThatFailsVerification(t *testing.T) {
	cases := []struct {
		name   string
		ops    string
		layout writer.Layout
		// ok: the patch applies; kept: the output still has the problem.
		ok, kept bool
		words    []string // in the error
	}{
		{name: "problem outside the patch",
			ops: "      - package-flags: {set: [ServerSideOnly]}\n" +
				"      - set-property: {object: ArenaTex.RING, property: InternalTime, value: 7}\n",
			ok: true, kept: true},
		{name: "an operation edits the damaged texture",
			ops:   "      - set-property: {object: ArenaTex.GreyTrim1, property: Diffuse, type: float, value: 0.5}\n",
			words: []string{"5:9: ", "refusing to edit data whose offsets are already wrong", "the input already has 1 problem: ", `export 18 "GreyTrim1" Mips[1] at 0x`}},
		{name: "the patch changes the damaged texture's flags",
			ops:   "      - object-flags: {object: ArenaTex.GreyTrim1, set: [Transactional]}\n",
			words: []string{"3:5: ", "the input already has 1 problem: ", `Mips[1] at 0x`, "this patch changes export ArenaTex.GreyTrim1, where it is", "nothing was written"}},
		{name: "the compact layout moves the damaged texture",
			// A longer name table moves every export after it.
			ops: "      - add-name: {name: UnrmodPatched}\n", layout: writer.Compact,
			words: []string{"3:5: ", "the input already has 1 problem: ", "Mips[1]", "refusing to rebase an inconsistent offset"}},
		{name: "the patch replaces the damaged texture with its good bytes",
			ops: "      - replace-export: {object: ArenaTex.GreyTrim1, data: {file: GreyTrim1.bin}}\n",
			ok:  true, kept: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path, orig, i := damagedArenaTex(t, dir)
			if err := os.WriteFile(filepath.Join(dir, "GreyTrim1.bin"), orig.Exports[i].Data, 0o644); err != nil {
				t.Fatal(err)
			}
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(path, c.ops))
			f.Targets[0].Layout = c.layout
			out := filepath.Join(dir, "out")
			res, err := patch.Apply(f, patch.Options{OutputDir: out})
			if !c.ok {
				if err == nil {
					t.Fatalf("applied: %v", res.Targets[0].Changes)
				}
				msg := err.Error()
				for _, w := range append([]string{filepath.Join(dir, "p.yaml:")}, c.words...) {
					if !strings.Contains(msg, w) {
						t.Errorf("error does not say %q:\n%s", w, msg)
					}
				}
				if strings.Contains(msg, "the patched package fails verification") {
					t.Errorf("the error blames the patch:\n%s", msg)
				}
				var ie *patch.InputProblemsError
				if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Part != reader.PartExportData || ie.Problems[0].Index != i {
					t.Errorf("error does not wrap an InputProblemsError with the input's problem: %#v", ie)
				}
				if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("output written despite the error")
				}
				t.Logf("%s", msg)
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			tr := res.Targets[0]
			if len(tr.InputProblems) != 1 || tr.InputProblems[0].Kept != c.kept || !strings.Contains(tr.InputProblems[0].Problem, "Mips[1]") {
				t.Errorf("input problems %+v, want the one in Mips[1], kept %v", tr.InputProblems, c.kept)
			}
			q, err := reader.ReadFile(tr.Output)
			if err != nil {
				t.Fatal(err)
			}
			probs := q.Verify()
			if c.kept != (len(probs) == 1) || len(probs) > 1 {
				t.Errorf("the output has problems %v; want the input's kept: %v", probs, c.kept)
			}
			if c.kept && (probs[0].Part != reader.PartExportData || probs[0].Index != i) {
				t.Errorf("the output's problem %v is not the input's", probs[0])
			}
		})
	}
}
