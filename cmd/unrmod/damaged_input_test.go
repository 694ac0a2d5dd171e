package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/damage"
)

// verifyProblems runs verify on file and returns its problem lines without
// the file name, and whether verify accepted it.
func verifyProblems(t *testing.T, file string) ([]string, bool) {
	t.Helper()
	stdout, _, code := runCLI(t, "verify", file)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if rest, ok := strings.CutPrefix(l, file+": "); ok {
			out = append(out, rest)
		}
	}
	return out, code == 0
}

// outcome is what a write does with a damaged input: refuse it, or write
// an output that keeps its problems and warn.
type outcome string

const (
	refuse outcome = "refuse"
	warn   outcome = "warn"
)

// checkWrite runs a write (args) of input to output and checks it against
// the rule for damaged inputs: undamaged (want ""), it succeeds without a
// warning and its output verifies; refused, it exits 1 naming the input
// and its problem, saying nothing was written and leaving no output;
// warned, it exits 0, says on standard error and in --json that the output
// keeps the problems, and the output has exactly the input's problems.
func checkWrite(t *testing.T, want outcome, input, output string, args ...string) {
	t.Helper()
	inProbs, inOK := verifyProblems(t, input)
	if inOK != (want == "") {
		t.Fatalf("verify of the input: ok %v, problems %q", inOK, inProbs)
	}
	stdout, stderr, code := runCLI(t, args...)
	switch want {
	case "":
		if code != 0 || strings.Contains(stderr, "warning") {
			t.Fatalf("exit %d on a sound input\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		if probs, ok := verifyProblems(t, output); !ok {
			t.Errorf("the output does not verify: %q", probs)
		}
	case refuse:
		if code != 1 || !strings.Contains(stderr, input+": ") || !strings.Contains(stderr, "the input already has") ||
			!strings.Contains(stderr, inProbs[0]) || !strings.Contains(stderr, "nothing was written") {
			t.Errorf("exit %d, want 1 and a refusal naming %s and its problem %q\nstdout: %s\nstderr: %s", code, input, inProbs[0], stdout, stderr)
		}
		if m, _ := filepath.Glob(strings.TrimSuffix(output, filepath.Ext(output)) + "*"); len(m) > 0 {
			t.Errorf("left behind: %v", m)
		}
	case warn:
		if code != 0 || !strings.Contains(stderr, "warning: the input already has") || !strings.Contains(stderr, "the output keeps") ||
			!strings.Contains(stderr, inProbs[0]) {
			t.Fatalf("exit %d, want 0 and a warning that the output keeps %q\nstdout: %s\nstderr: %s", code, inProbs[0], stdout, stderr)
		}
		outProbs, _ := verifyProblems(t, output)
		if !slices.Equal(outProbs, inProbs) {
			t.Errorf("the output's problems %q, want the input's %q", outProbs, inProbs)
		}
		// --json lists them too.
		os.Remove(output)
		stdout, _, code = runCLI(t, append(args, "--json")...)
		var doc struct {
			InputProblems []string `json:"input_problems"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.InputProblems) != len(inProbs) {
			t.Errorf("--json: exit %d, input_problems %q (%v), want %d\n%s", code, doc.InputProblems, err, len(inProbs), stdout)
		}
	}
}

// TestRewriteDamagedZen rewrites zen package files damaged in a name hash, a
// name's text and a field of the export map, in both layouts. The preserve
// layout copies the package byte for byte and keeps the problem: it warns.
// The compact layout re-encodes the name map (the hashes from the names)
// and derives the serial offsets, so the damage would come out valid: it
// refuses; a damaged public export hash it writes as it was, and warns.
// Undamaged, both layouts write as before, without a warning.
func TestRewriteDamagedZen(t *testing.T) {
	files := []struct {
		name string
		path func(t *testing.T) string
		// compactField is what compact does with the export-map damage.
		compactField outcome
	}{
		{"4.27 demo", func(*testing.T) string { return "../../examples/packages/zen/BP_DemoPickup.uasset" }, refuse},
		{"UE5.4 corpus", func(t *testing.T) string {
			return corpus.Path(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uzenasset")
		}, warn},
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
					out := filepath.Join(dir, "out", filepath.Base(src))
					var want outcome
					switch {
					case k == "":
					case layout == "preserve":
						want = warn
					case k == damage.ExportField:
						want = f.compactField
					default:
						want = refuse
					}
					checkWrite(t, want, in, out, "rewrite", in, "-o", out, "--layout", layout)
					if layout == "preserve" && want != refuse {
						if got, _ := os.ReadFile(out); !bytes.Equal(got, data) {
							t.Error("the preserve layout did not write the input byte for byte")
						}
					}
				})
			}
		}
	}
}

// TestRewriteDamagedContainer rewrites the demo 4.27 container with one
// package chunk damaged (under a chunk hash of the damaged bytes, so that
// only the package checks see it) or with the chunk id of a package
// damaged in the .utoc, in both layouts: every write refuses, naming the
// problem, since a container write rebuilds the TOC (compact) or copies
// chunks it does not check again (preserve). Undamaged, both write.
func TestRewriteDamagedContainer(t *testing.T) {
	for _, k := range append([]damage.Kind{"", damage.ChunkIDKind}, damage.Kinds...) {
		for _, layout := range []string{"preserve", "compact"} {
			name := string(k) + "/" + layout
			if k == "" {
				name = "undamaged/" + layout
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				in, err := damage.Container(dir, "Demo_P", k, "BP_DemoPickup.uasset")
				if err != nil {
					t.Fatal(err)
				}
				want := refuse
				if k == "" {
					want = ""
				}
				out := filepath.Join(dir, "out", "Out_P.utoc")
				checkWrite(t, want, in, out, "rewrite", in, "-o", out, "--layout", layout)
			})
		}
	}
}

// TestPackDamagedBase packs the demo's loose packages with --base naming
// the demo container undamaged, with a package chunk damaged (pack reads
// no package of the base: it goes on) and with a package's chunk id
// damaged in the .utoc, which the container header no longer matches:
// pack refuses the base, naming it and the problem.
func TestPackDamagedBase(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	for rel, src := range map[string]string{
		"UnrmodDemo/Content/Data/DT_DemoItems.uasset":   "../../examples/packages/zen/DT_DemoItems.uasset",
		"UnrmodDemo/Content/Items/BP_DemoPickup.uasset": "../../examples/packages/zen/BP_DemoPickup.uasset",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(loose, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		kind   damage.Kind
		refuse bool
	}{{"", false}, {damage.NameHash, false}, {damage.ChunkIDKind, true}} {
		t.Run("base "+string(tt.kind), func(t *testing.T) {
			bdir := t.TempDir()
			base, err := damage.Container(bdir, "Base_P", tt.kind, "BP_DemoPickup.uasset")
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(bdir, "out", "z_Demo_P")
			stdout, stderr, code := runCLI(t, "pack", loose, "-o", out, "--base", base)
			if !tt.refuse {
				if code != 0 {
					t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
				}
				return
			}
			if code != 1 || !strings.Contains(stderr, base+": container header: the input already has") || !strings.Contains(stderr, "nothing was written") {
				t.Errorf("exit %d, want a refusal of the damaged base\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if m, _ := filepath.Glob(out + "*"); len(m) > 0 {
				t.Errorf("left behind: %v", m)
			}
		})
	}
}
