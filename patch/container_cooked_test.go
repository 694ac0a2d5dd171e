package patch_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/ufile"
)

// extractPakTo extracts the corpus pak rel into dir.
func extractPakTo(t *testing.T, rel, dir string) {
	t.Helper()
	r, err := pak.Open(corpus.Path(t, rel), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
}

// TestContainerReplaceFileCooked replaces a package of the engine's UE 5.8
// fixture container with the cooked asset the same project cooked for its
// legacy pak: the patch converts it, and the mod container's chunk and
// store entry are the engine's own, byte for byte and field for field.
func TestContainerReplaceFileCooked(t *testing.T) {
	dir := t.TempDir()
	utoc := copyContainer(t, corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), dir)
	extractPakTo(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak", filepath.Join(dir, "cooked"))
	const path = "CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset"
	res, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: `+filepath.Base(utoc)+`
    output: mods/z_Fixtures_P
    files:
      - replace-file: {path: `+path+`, with: cooked/`+path+`}
`, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Targets[0].Container.Notes, "\n"); !strings.Contains(notes, "converted the cooked asset") {
		t.Errorf("notes %q", notes)
	}
	orig, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	p, c := readPackage(t, filepath.Join(dir, "mods", "z_Fixtures_P.utoc"), nil, "/Game/Fixtures/DataTables/DT_AllProperties")
	if r := c.Verify(nil); !r.OK() {
		t.Fatalf("mod container: %v", r.Problems)
	}
	i, _ := c.PackageChunk(p.ID())
	got, _ := c.ReadChunk(i)
	k, ok := orig.PackageChunk(p.ID())
	if !ok {
		t.Fatal("the engine's container lost the package")
	}
	want, _ := orig.ReadChunk(k)
	if !bytes.Equal(got, want) {
		t.Errorf("converted package: %d bytes, differing from the engine's %d", len(got), len(want))
	}
	gh, _ := c.ContainerHeader()
	oh, _ := orig.ContainerHeader()
	ge, oe := gh.Packages[gh.PackageIndex(p.ID())], oh.Packages[oh.PackageIndex(p.ID())]
	if !slices.Equal(ge.ImportedPackages, oe.ImportedPackages) || ge.ExportCount != oe.ExportCount || len(ge.ShaderMapHashes) != len(oe.ShaderMapHashes) {
		t.Errorf("store entry %+v, the engine's %+v", ge, oe)
	}
}

// TestContainerAddFileCooked adds a cooked UE 4.27 DataTable of a real
// Grounded pak mod to a mod of the demo 4.27 container: the patch converts
// it as a package of the game's (arcs from bundle −1) and its store entry
// lists its package imports in import-map order.
func TestContainerAddFileCooked(t *testing.T) {
	dir := t.TempDir()
	copyContainer(t, "../examples/containers/UnrmodDemo427_P.utoc", dir)
	extractPakTo(t, "other/grounded/500-CreativeUnlock_P.pak", filepath.Join(dir, "cooked"))
	src := filepath.Join(dir, "cooked", "Maine", "Content", "Blueprints", "Items", "CraftingTables", "Table_Crafting_Tools.uasset")
	const path = "UnrmodDemo/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uasset"
	const name = "/Game/Blueprints/Items/CraftingTables/Table_Crafting_Tools"
	_, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: UnrmodDemo427_P.utoc
    output: mods/z_Tools_P
    files:
      - add-file: {path: `+path+`, from: cooked/Maine/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uasset}
`, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, c := readPackage(t, filepath.Join(dir, "mods", "z_Tools_P.utoc"), nil, name)
	if r := c.Verify(nil); !r.OK() {
		t.Fatalf("mod container: %v", r.Problems)
	}
	f, err := ufile.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.Asset(nil)
	if err != nil {
		t.Fatal(err)
	}
	zp, err := convert.ToZen(a, &convert.Options{Engine: zen.Engine{Major: 4, Minor: 27}, PackageName: name, ImportsFromBaseGame: true})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := zp.Encode()
	i, _ := c.PackageChunk(p.ID())
	if got, _ := c.ReadChunk(i); !bytes.Equal(got, want) {
		t.Errorf("added package: %d bytes, want the conversion's %d", len(got), len(want))
	}
	arcs := 0
	for _, g := range p.Graph {
		for _, arc := range g.Arcs {
			arcs++
			if arc.From != -1 {
				t.Errorf("arc %+v from game package %v", arc, g.Package)
			}
		}
	}
	var imported []zen.PackageID
	for _, im := range a.Imports {
		if n := a.NameOf(im.ObjectName); im.OuterIndex == 0 && !strings.HasPrefix(n, "/Script/") {
			imported = append(imported, zen.PackageIDFromName(n))
		}
	}
	h, _ := c.ContainerHeader()
	e := h.Packages[h.PackageIndex(p.ID())]
	if arcs == 0 || len(imported) < 2 || !slices.Equal(e.ImportedPackages, imported) || e.ExportBundlesSize != uint64(len(want)) {
		t.Errorf("%d arcs; store entry %+v, want imported packages %v", arcs, e, imported)
	}
}
