package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

const (
	taggedPak   = "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"
	taggedTwins = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
)

// extractedAssets extracts the UE 5.8 fixture's tagged pak into a temp
// dir with unrmod extract and returns the paths of its header files.
func extractedAssets(t *testing.T) (dir string, assets []string) {
	t.Helper()
	dir = t.TempDir()
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, taggedPak), "-o", dir); code != 0 {
		t.Fatal(stderr)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".uasset") || strings.HasSuffix(p, ".umap")) {
			assets = append(assets, p)
		}
		return err
	})
	if len(assets) == 0 {
		t.Fatal("the pak has no assets")
	}
	return dir, assets
}

// propsJSON runs props --json with args and returns the document without
// its "file".
func propsJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := runCLI(t, append([]string{"props", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("props %v: exit %d: %s", args, code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "file")
	return doc
}

// TestPropsCookedAsset prints the properties of every asset of the UE 5.8
// fixture's tagged pak, extracted, and of the same package in the zen
// container the project was also cooked to: the documents (package,
// exports, classes, properties, rows) are equal. One export named by its
// name gives that export alone; an unversioned cook is refused as such.
func TestPropsCookedAsset(t *testing.T) {
	_, assets := extractedAssets(t)
	twins := corpus.Path(t, taggedTwins)
	for _, a := range assets {
		pkg := assetprops.PackageNameFromPath(a)
		t.Run(pkg, func(t *testing.T) {
			got := propsJSON(t, a)
			want := propsJSON(t, twins, "--package", pkg)
			if got["package"] != pkg {
				t.Errorf("package %v, want %s", got["package"], pkg)
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.MarshalIndent(got, "", " ")
				w, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("cooked asset:\n%s\nzen twin:\n%s", g, w)
			}
		})
	}
	dt := ""
	for _, a := range assets {
		if strings.HasSuffix(a, "DT_AllProperties.uasset") {
			dt = a
		}
	}
	stdout, stderr, code := runCLI(t, "props", dt, "DT_AllProperties", "--row", "Alpha")
	if code != 0 || !strings.Contains(stdout, "export 0 /Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties (class DataTable)") {
		t.Errorf("props OBJECT --row: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "props", dt, "NoSuchExport"); code == 0 || !strings.Contains(stderr, "NoSuchExport") {
		t.Errorf("an unknown OBJECT: exit %d: %s", code, stderr)
	}
	for _, rel := range []string{"other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset", "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uasset"} {
		_, stderr, code := runCLI(t, "props", corpus.Path(t, rel))
		if code == 0 || !strings.Contains(stderr, "unversioned properties") || !strings.Contains(stderr, filepath.Base(rel)) {
			t.Errorf("%s: exit %d: %s", rel, code, stderr)
		}
	}
}
