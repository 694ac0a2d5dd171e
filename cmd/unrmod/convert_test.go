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

// TestConvertPairs converts every cooked pair of the corpus: OUT is the
// engine's .uzenasset byte for byte, the asset's .ubulk lands beside OUT
// unchanged, a stale bulk file beside OUT is removed, and the JSON report
// names the package and its bulk files.
func TestConvertPairs(t *testing.T) {
	for _, rel := range cookedPairs {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			in := corpus.Path(t, rel+".uasset")
			want, err := os.ReadFile(corpus.Path(t, rel+".uzenasset"))
			if err != nil {
				t.Fatal(err)
			}
			engine := "4.27"
			if i := strings.Index(rel, "/UE"); i >= 0 {
				engine = rel[i+3 : i+6] // the pair's file name says the release that cooked it
			}
			out := filepath.Join(t.TempDir(), "Out.uasset")
			oc := uasset.CompanionNames(out)
			os.WriteFile(oc.Uptnl, []byte("stale"), 0o644)
			stdout, stderr, code := runCLI(t, "convert", in, "--to", "zen", "--engine", engine, "-o", out, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, err := os.ReadFile(out)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s: %d bytes, want the engine's %d (%v)", out, len(got), len(want), err)
			}
			var doc convertDoc
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Engine != engine || doc.Size != int64(len(want)) || !strings.HasPrefix(doc.Package, "/Game/") {
				t.Errorf("report %s (%v)", stdout, err)
			}
			if _, err := os.Stat(oc.Uptnl); err == nil {
				t.Errorf("the stale %s was left", oc.Uptnl)
			}
			ic := uasset.CompanionNames(in)
			if bulk, err := os.ReadFile(ic.Ubulk); err == nil {
				got, err := os.ReadFile(oc.Ubulk)
				if err != nil || string(got) != string(bulk) || len(doc.BulkFiles) != 1 {
					t.Errorf("bulk data: %s (%v), report %v", oc.Ubulk, err, doc.BulkFiles)
				}
			} else if len(doc.BulkFiles) != 0 {
				t.Errorf("bulk files %v reported for an asset without any", doc.BulkFiles)
			}
		})
	}
}

// TestConvertRefuses checks the refusals: exit 2 for command-line mistakes,
// 1 with the reason for inputs that cannot be converted, and no output.
func TestConvertRefuses(t *testing.T) {
	dir := t.TempDir()
	lamp := corpus.Path(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uasset")
	// An asset whose import 10 has itself as outer.
	broken, h, x := copyPair(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp", dir)
	a, err := uasset.Decode(broken, h, x, &uasset.Options{Release: uasset.Release{Major: 5, Minor: 4}})
	if err != nil {
		t.Fatal(err)
	}
	a.Imports[10].OuterIndex = -11
	h, x, err = a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(broken, h, 0o644)
	os.WriteFile(uasset.CompanionNames(broken).Uexp, x, 0o644)

	out := filepath.Join(dir, "out", "Out.uasset")
	cases := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no --to", []string{"convert", lamp, "-o", out}, 2, "missing --to zen"},
		{"a cooked asset to legacy", []string{"convert", lamp, "--to", "legacy", "-o", out}, 1, "not a zen package or a container"},
		{"unknown format", []string{"convert", lamp, "--to", "pak", "-o", out}, 2, "convert makes zen or legacy"},
		{"no -o", []string{"convert", lamp, "--to", "zen"}, 2, "missing -o"},
		{"bad engine", []string{"convert", lamp, "--to", "zen", "--engine", "9.9", "-o", out}, 2, "--engine"},
		{"engine not told", []string{"convert", lamp, "--to", "zen", "-o", out}, 1, "--engine"},
		{"zen input", []string{"convert", corpus.Path(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uzenasset"), "--to", "zen", "-o", out}, 1, "not a cooked asset"},
		{"editor asset", []string{"convert", corpus.Path(t, "other/grounded/uncooked/NewDataTable.uasset"), "--to", "zen", "--engine", "4.27", "-o", out}, 1, "cook it first"},
		{"unresolved import", []string{"convert", broken, "--to", "zen", "--engine", "5.4", "-o", out}, 1, `import 10 "/Game/Billiards/Static_meshes/SM_table_lamp"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.says) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, stderr, tc.code, tc.says)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}
