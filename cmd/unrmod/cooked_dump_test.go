package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// dumpJSON runs dump --json with args and decodes the document into doc.
func dumpJSON(t *testing.T, doc any, args ...string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, append([]string{"dump", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("dump %v: exit %d: %s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), doc); err != nil {
		t.Fatal(err)
	}
}

// TestDumpCookedAsset dumps each cooked asset of the corpus that has a
// zen twin (the assets of the UE 5.8 fixture's tagged pak, extracted, and
// the loose pairs with their .uzenasset): export for export the path,
// serial size, XXH3 of the data and flags equal the zen package's (and
// the class, where the zen side knows the script classes); every name's
// stored hashes are the ones the engine computes (or both zero, as some
// UE 5.4 cooks store them). --names alone prints
// only the name table.
func TestDumpCookedAsset(t *testing.T) {
	type twin struct{ asset, zen, pkg string }
	var twins []twin
	_, assets := extractedAssets(t)
	for _, a := range assets {
		twins = append(twins, twin{a, corpus.Path(t, taggedTwins), assetprops.PackageNameFromPath(a)})
	}
	for _, rel := range cookedPairs {
		if strings.Contains(rel, "ue5_cooked_pairs") {
			twins = append(twins, twin{corpus.Path(t, rel+".uasset"), corpus.Path(t, rel+".uzenasset"), ""})
		}
	}
	for _, tw := range twins {
		t.Run(tw.asset[strings.LastIndexByte(tw.asset, '/')+1:], func(t *testing.T) {
			var got report.AssetDump
			dumpJSON(t, &got, tw.asset)
			var want report.ZenDump
			if tw.pkg != "" {
				dumpJSON(t, &want, tw.zen, "--package", tw.pkg, "--exports")
			} else {
				dumpJSON(t, &want, tw.zen, "--exports")
			}
			if got.Kind != "cooked-asset" || got.Names == nil || got.Imports == nil || got.Exports == nil || got.Package != want.Package {
				t.Fatalf("dump: %+v (zen package %s)", got, want.Package)
			}
			if len(*got.Exports) != len(*want.Exports) {
				t.Fatalf("%d exports, the zen twin has %d", len(*got.Exports), len(*want.Exports))
			}
			for i, e := range *got.Exports {
				z := (*want.Exports)[i]
				if e.Path != z.Path || int(e.Size) != z.Size || e.XXH3 != z.XXH3 || e.Flags.Value != z.Flags.Value ||
					(tw.pkg != "" && e.Class != z.Class) {
					t.Errorf("export %d: %+v\nzen twin: %+v", i, e, z)
				}
			}
			for _, n := range *got.Names {
				nc, c := uasset.NameHashes(n.Name)
				stored := n.NonCaseHash + " " + n.CaseHash
				if stored != "0x0000 0x0000" && stored != fmt.Sprintf("0x%04x 0x%04x", nc, c) {
					t.Errorf("name %d %q: hashes %s %s", n.Index, n.Name, n.NonCaseHash, n.CaseHash)
				}
			}
			var names report.AssetDump
			dumpJSON(t, &names, tw.asset, "--names")
			if names.Names == nil || len(*names.Names) != len(*got.Names) || names.Imports != nil || names.Exports != nil {
				t.Errorf("--names: %+v", names)
			}
		})
	}
	if _, stderr, code := runCLI(t, "dump", corpus.Path(t, "other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset"), "--class", "StaticMesh"); code == 0 || !strings.Contains(stderr, "--class") {
		t.Errorf("--class on a cooked asset: exit %d: %s", code, stderr)
	}
}
