package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// TestCookedAssetRefused gives real cooked assets (a UE 4.27 and a UE 5.6
// .uasset, each with its .uexp) to every command that reads a package
// file but does not take cooked assets yet (info, dump, props, rewrite,
// verify, diff, export-data and apply do): each recognises the file as a cooked
// asset and refuses it, saying so, instead of calling it no legacy package.
// Nothing is written.
func TestCookedAssetRefused(t *testing.T) {
	for _, rel := range []string{"other/ue4_27_cooked_pairs/TestModUI.uasset", "other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset"} {
		dir := t.TempDir()
		name := filepath.Base(rel)
		for _, f := range []string{rel, strings.TrimSuffix(rel, ".uasset") + ".uexp"} {
			data, err := os.ReadFile(corpus.Path(t, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		asset := filepath.Join(dir, name)
		out := filepath.Join(dir, "out")
		for _, c := range []struct {
			args []string
			by   string
		}{
			{[]string{"export-texture", asset, "-o", out}, "unrmod export-texture"},
			{[]string{"export-sound", asset, "x", "-o", out}, "unrmod export-sound"},
		} {
			t.Run(name+"/"+c.args[0], func(t *testing.T) {
				stdout, stderr, code := runCLI(t, c.args...)
				want := name + ": a UE"
				tail := "cooked assets are recognised, but " + c.by + " does not take them yet"
				if got := stdout + stderr; code == 0 || !strings.Contains(got, want) || !strings.Contains(got, tail) {
					t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant %q … %q", code, stdout, stderr, want, tail)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was written", out)
				}
			})
		}
	}
}
