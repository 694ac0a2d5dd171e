package patch_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/damage"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/ue"
)

// problemStrings returns the problems as text.
func problemStrings(probs []ue.Problem) []string {
	var out []string
	for _, q := range probs {
		out = append(out, q.String())
	}
	return out
}

// checkRefused checks that err refuses a damaged input: a *patch.Error
// wrapping a *zen.InputProblemsError (zen.ErrInputDamaged) for input that
// names the problem, and that nothing was written into out.
func checkRefused(t *testing.T, err error, input, problem, out string) {
	t.Helper()
	var ie *zen.InputProblemsError
	var pe *patch.Error
	if !errors.As(err, &pe) || !errors.As(err, &ie) || !errors.Is(err, zen.ErrInputDamaged) || ie.File != input ||
		!strings.Contains(err.Error(), problem) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("%v, want a refusal of %s as damaged, naming %q", err, input, problem)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("%d files written", len(entries))
	}
}

// TestApplyDamagedZenFile applies a patch that adds a name to zen package
// files damaged in a name hash, a name's text and a field of the export
// map, in both layouts. Adding a name re-encodes the name map, hashes
// included, so a damaged name or hash would come out valid: refused. The
// export-map damage lies outside what the patch changes: the preserve
// layout keeps the export map as it was and goes on, listing the problem
// as kept (the output has it, byte for byte); compact derives the serial
// offsets again (refused) but keeps a public export hash (goes on).
// Undamaged, both layouts apply as before.
func TestApplyDamagedZenFile(t *testing.T) {
	files := []struct {
		name         string
		path         func(t *testing.T) string
		compactField bool // compact goes on with the export-map damage
	}{
		{"4.27 demo", func(*testing.T) string { return "../examples/packages/zen/BP_DemoPickup.uasset" }, false},
		{"UE5.4 corpus", func(t *testing.T) string {
			return corpus.Path(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uzenasset")
		}, true},
	}
	for _, f := range files {
		for _, k := range append([]damage.Kind{""}, damage.Kinds...) {
			for _, layout := range []string{"preserve", "compact"} {
				name := f.name + "/" + string(k) + "/" + layout
				if k == "" {
					name = f.name + "/undamaged/" + layout
				}
				t.Run(name, func(t *testing.T) {
					src := f.path(t)
					data, err := os.ReadFile(src)
					if err != nil {
						t.Fatal(err)
					}
					if k != "" {
						if data, err = damage.Package(src, data, k); err != nil {
							t.Fatal(err)
						}
					}
					dir := t.TempDir()
					in := filepath.Join(dir, filepath.Base(src))
					if err := os.WriteFile(in, data, 0o644); err != nil {
						t.Fatal(err)
					}
					p, err := zen.DecodePackage(in, data, nil)
					if err != nil {
						t.Fatal(err)
					}
					inProbs := problemStrings(p.Problems(nil))
					if (len(inProbs) == 0) != (k == "") {
						t.Fatalf("input problems %q", inProbs)
					}
					out := filepath.Join(dir, "out")
					res, err := applyYAML(t, dir, "unrmod: 1\ntargets:\n  - file: "+filepath.Base(src)+"\n    layout: "+layout+
						"\n    output: out/"+filepath.Base(src)+"\n    ops:\n      - add-name: {name: UnrmodAddedName}\n", patch.Options{})
					goesOn := k == "" || k == damage.ExportField && (layout == "preserve" || f.compactField)
					if !goesOn {
						checkRefused(t, err, in, inProbs[0], out)
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					var kept []string
					for _, q := range res.Targets[0].InputProblems {
						if !q.Kept {
							t.Errorf("input problem %q not kept", q.Problem)
						}
						kept = append(kept, q.Problem)
					}
					if !slices.Equal(kept, inProbs) {
						t.Errorf("listed as kept: %q, want the input's problems %q", kept, inProbs)
					}
					q, _ := readZen(t, filepath.Join(out, filepath.Base(src)))
					if got := problemStrings(q.Problems(nil)); !slices.Equal(got, inProbs) {
						t.Errorf("the output's problems %q, want the input's %q", got, inProbs)
					}
					if !slices.Contains(q.Names, "UnrmodAddedName") {
						t.Error("the name was not added")
					}
				})
			}
		}
	}
}

// TestApplyDamagedContainer applies patches to the demo 4.27 container
// with BP_DemoPickup damaged: its package chunk (name hash, name, export
// map field, under a chunk hash of the damaged bytes) or its chunk id in
// the .utoc. A patch of the damaged package is refused in both modes. A
// patch of another package is refused in full mode, which copies the
// damaged package into a container that would verify only in part; a mod
// holds only the packages it changes, so it goes on, unless the TOC or
// container header is damaged (the chunk id). Undamaged, all apply.
func TestApplyDamagedContainer(t *testing.T) {
	for _, k := range append([]damage.Kind{"", damage.ChunkIDKind}, damage.Kinds...) {
		for _, mode := range []string{"mod", "full"} {
			for _, pkg := range []string{"BP_DemoPickup", "DT_DemoItems"} {
				name := string(k) + "/" + mode + "/" + pkg
				if k == "" {
					name = "undamaged/" + mode + "/" + pkg
				}
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					in, err := damage.Container(dir, "Demo_P", k, "BP_DemoPickup.uasset")
					if err != nil {
						t.Fatal(err)
					}
					c, err := iostore.Open(in, nil)
					if err != nil {
						t.Fatal(err)
					}
					r := c.Verify(nil)
					c.Close()
					if r.OK() != (k == "") {
						t.Fatalf("verify of the input: %v", r.Problems)
					}
					op := "rename: {from: Pebble, to: Boulder}"
					if pkg == "BP_DemoPickup" {
						op = "add-name: {name: UnrmodAddedName}"
					}
					out := filepath.Join(dir, "out")
					_, err = applyYAML(t, dir, "unrmod: 1\ntargets:\n  - container: Demo_P.utoc\n    output: out/Out_P.utoc\n    mode: "+mode+
						"\n    packages:\n      - package: "+pkg+"\n        ops:\n          - "+op+"\n", patch.Options{})
					goesOn := k == "" || mode == "mod" && pkg != "BP_DemoPickup" && k != damage.ChunkIDKind
					if !goesOn {
						checkRefused(t, err, in, "", out)
						named := false
						for _, q := range r.Problems {
							named = named || strings.Contains(err.Error(), q.Msg)
						}
						if !named {
							t.Errorf("the refusal names none of the input's problems %v: %v", r.Problems, err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					c2, err := iostore.Open(filepath.Join(out, "Out_P.utoc"), nil)
					if err != nil {
						t.Fatal(err)
					}
					defer c2.Close()
					if r := c2.Verify(nil); !r.OK() {
						t.Errorf("the output does not verify: %v", r.Problems)
					}
				})
			}
		}
	}
}
