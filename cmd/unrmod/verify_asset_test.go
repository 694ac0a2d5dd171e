package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
)

// cookedPairs are the engine-written cooked assets of the corpus, each a
// .uasset with its .uexp.
var cookedPairs = []string{
	"other/ue4_27_cooked_pairs/TestModUI",
	"other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp",
	"other/ue5_cooked_pairs/UE5.5_BP_ThirdPersonCharacter",
	"other/ue5_cooked_pairs/UE5.6_M_Mannequin",
	"other/ue5_cooked_pairs/UE5.6_SM_Cube",
}

// copyPair copies a cooked pair into dir and returns the .uasset's path
// there and the bytes of its .uasset and .uexp.
func copyPair(t *testing.T, rel, dir string) (string, []byte, []byte) {
	t.Helper()
	var data [2][]byte
	for i, ext := range []string{".uasset", ".uexp"} {
		b, err := os.ReadFile(corpus.Path(t, rel+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(rel)+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
		data[i] = b
	}
	return filepath.Join(dir, filepath.Base(rel)+".uasset"), data[0], data[1]
}

// TestVerifyCookedAsset verifies each cooked pair of the corpus: it is
// sound, in text (one 'ok' line naming the releases that fit it and its
// table counts, as the uasset package decodes them) and in JSON (kind
// cooked-asset with its summary). A copy whose .uexp no longer ends with
// the package tag fails, naming the export data; a folder of pairs and
// their zen twins verifies every package in it.
func TestVerifyCookedAsset(t *testing.T) {
	for _, rel := range cookedPairs {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			dir := t.TempDir()
			asset, h, x := copyPair(t, rel, dir)
			p, err := uasset.Decode(asset, h, x, nil)
			if err != nil {
				t.Fatal(err)
			}
			release := p.Release.String()
			if n := len(p.Fitting); p.ReleaseDetected && n > 1 {
				release = p.Fitting[0].String() + "–" + p.Fitting[n-1].String()
			}
			want := fmt.Sprintf("ok  %s (UE %s cooked asset: %s, %s, %s)\n", asset, release,
				plural(len(p.Names), "name"), plural(len(p.Imports), "import"), plural(len(p.Exports), "export"))
			stdout, stderr, code := runCLI(t, "verify", asset)
			if code != 0 || stdout != want {
				t.Errorf("verify: exit %d\nstdout: %q\nwant:   %q\nstderr: %s", code, stdout, want, stderr)
			}

			stdout, stderr, code = runCLI(t, "verify", "--json", asset)
			var doc report.Verify
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
				t.Fatalf("verify --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
			}
			if len(doc.Files) != 1 {
				t.Fatalf("verify --json: %d files", len(doc.Files))
			}
			f := doc.Files[0]
			if !doc.OK || !f.OK || f.Kind != "cooked-asset" || f.Asset == nil || !f.Asset.Cooked ||
				f.Asset.Release != p.Release.String() || f.Names != len(p.Names) || f.Imports != len(p.Imports) || f.Exports != len(p.Exports) {
				t.Errorf("verify --json: %s", stdout)
			}

			// The export data no longer ends with the package tag.
			x[len(x)-1] ^= 0xFF
			if err := os.WriteFile(strings.TrimSuffix(asset, ".uasset")+".uexp", x, 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, _, code = runCLI(t, "verify", asset)
			if code != 1 || !strings.HasPrefix(stdout, asset+": export data") || !strings.Contains(stdout, "package tag") {
				t.Errorf("damaged: exit %d\n%s", code, stdout)
			}
			stdout, _, code = runCLI(t, "verify", "--json", asset)
			doc = report.Verify{}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 || doc.OK || len(doc.Files) != 1 {
				t.Fatalf("damaged --json: exit %d, %v\n%s", code, err, stdout)
			}
			if q := doc.Files[0].Problems; len(q) == 0 || q[0].Struct != "export data" || q[0].Offset == nil || !strings.Contains(q[0].Message, "package tag") {
				t.Errorf("damaged --json: %s", stdout)
			}
		})
	}
	t.Run("folder", func(t *testing.T) {
		dir := corpus.Path(t, "other/ue5_cooked_pairs")
		stdout, stderr, code := runCLI(t, "verify", dir)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		for _, rel := range cookedPairs {
			if !strings.HasPrefix(rel, "other/ue5_cooked_pairs/") {
				continue
			}
			for _, f := range []string{corpus.Path(t, rel+".uasset"), corpus.Path(t, rel+".uzenasset")} {
				if !strings.Contains(stdout, "ok  "+f+" (") {
					t.Errorf("%s is not verified:\n%s", f, stdout)
				}
			}
		}
	})
}

// TestVerifyCookedAssetEngine reads an unversioned cook as the release
// --engine names, and refuses a release the asset reader does not know as
// a usage error.
func TestVerifyCookedAssetEngine(t *testing.T) {
	asset := corpus.Path(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uasset")
	stdout, stderr, code := runCLI(t, "verify", "--json", "--engine", "5.4", asset)
	var doc report.Verify
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if a := doc.Files[0].Asset; a == nil || a.Release != "5.4" || a.ReleaseDetected {
		t.Errorf("--engine 5.4: %s", stdout)
	}
	if _, stderr, code := runCLI(t, "verify", "--engine", "3.1", asset); code != 2 || !strings.Contains(stderr, "--engine") {
		t.Errorf("--engine 3.1: exit %d\n%s", code, stderr)
	}
}
