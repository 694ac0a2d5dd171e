package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/uasset"
)

// TestRewriteCookedAsset rewrites every cooked asset of the corpus (the
// loose pairs, and the assets of the UE 5.8 fixture's tagged pak after
// extract): the .uasset, the .uexp and each bulk file beside it come out
// byte for byte, and the report says so. A stale .ubulk beside the output
// of an asset that has none is removed with the commit; an output that is
// the input is refused and nothing is written.
func TestRewriteCookedAsset(t *testing.T) {
	var assets []string
	for _, rel := range cookedPairs {
		assets = append(assets, corpus.Path(t, rel+".uasset"))
	}
	_, extracted := extractedAssets(t)
	assets = append(assets, extracted...)
	for _, in := range assets {
		t.Run(filepath.Base(in), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, filepath.Base(in))
			oc := uasset.CompanionNames(out)
			os.WriteFile(oc.Ubulk, []byte("stale"), 0o644)
			stdout, stderr, code := runCLI(t, "rewrite", in, "-o", out, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc rewriteDoc
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !doc.Identical {
				t.Errorf("report %s (%v)", stdout, err)
			}
			ic := uasset.CompanionNames(in)
			n := 0
			for _, pair := range [][2]string{{in, out}, {ic.Uexp, oc.Uexp}, {ic.Ubulk, oc.Ubulk}, {ic.Uptnl, oc.Uptnl}, {ic.MUbulk, oc.MUbulk}} {
				want, werr := os.ReadFile(pair[0])
				got, gerr := os.ReadFile(pair[1])
				switch {
				case werr != nil && gerr == nil:
					t.Errorf("%s was written (or left), but %s does not exist", pair[1], pair[0])
				case werr == nil && (gerr != nil || string(got) != string(want)):
					t.Errorf("%s differs from %s (%v)", pair[1], pair[0], gerr)
				case werr == nil:
					n++
				}
			}
			entries, _ := os.ReadDir(dir)
			if n < 2 || len(entries) != n {
				t.Errorf("%d files compared; the output folder holds %d", n, len(entries))
			}
		})
	}
	in := corpus.Path(t, "other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset")
	dir := t.TempDir()
	for _, f := range []string{in, uasset.CompanionNames(in).Uexp} {
		data, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
	}
	own := filepath.Join(dir, filepath.Base(in))
	if _, stderr, code := runCLI(t, "rewrite", own, "-o", own); code == 0 || !strings.Contains(stderr, filepath.Base(in)) {
		t.Errorf("rewrite onto itself: exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the folder holds %d files after a refused rewrite", len(entries))
	}
}
