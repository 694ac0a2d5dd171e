package pack_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
)

// extractPak extracts every file of the pak at rel in the corpus into a
// new folder.
func extractPak(t *testing.T, rel string) string {
	t.Helper()
	return extractPakFile(t, corpus.Path(t, rel))
}

// extractPakFile extracts every file of the pak at path into a new folder.
func extractPakFile(t *testing.T, path string) string {
	t.Helper()
	r, err := pak.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	if _, err := r.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cookedAssets lists the cooked .uasset/.umap files under dir, relative.
func cookedAssets(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext == ".uasset" || ext == ".umap" {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readAsset(t *testing.T, path string) *uasset.Package {
	t.Helper()
	f, err := ufile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.Asset(nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// importedPackageIDs is what IoStoreUtilities writes as a 4.26/4.27 store
// entry's imported packages: the id of each package import (no outer, not
// /Script/) in import-map order.
func importedPackageIDs(a *uasset.Package) []zen.PackageID {
	var ids []zen.PackageID
	for _, im := range a.Imports {
		n := a.NameOf(im.ObjectName)
		if im.OuterIndex == 0 && !strings.HasPrefix(strings.ToLower(n), "/script/") {
			ids = append(ids, zen.PackageIDFromName(n))
		}
	}
	return ids
}

// TestPackCookedGrounded packs the cooked DataTables of a real Grounded pak
// mod into a 4.27 mod container against Grounded's container header: the
// container verifies, every store entry is what the engine writes for the
// package (its chunk's size, export and bundle counts, Grounded's load
// order, the package imports in import-map order), and every table reads
// back with the legacy asset's properties and rows.
func TestPackCookedGrounded(t *testing.T) {
	dir := extractPak(t, "other/grounded/500-CreativeUnlock_P.pak")
	baseData, err := os.ReadFile(corpus.Path(t, "other/ue4_27_global_chunks/ContainerHeader_1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := zen.DecodeContainerHeader("ContainerHeader_1.bin", baseData)
	if err != nil {
		t.Fatal(err)
	}
	e427 := zen.Engine{Major: 4, Minor: 27}
	plan, err := pack.Scan(dir, pack.TocVersionFor(e427))
	if err != nil {
		t.Fatal(err)
	}
	assets := cookedAssets(t, dir)
	if len(assets) == 0 || plan.Count(pack.Cooked) != len(assets) || plan.Count(pack.CookedExports) != len(assets) || plan.Count(pack.Loose) != 0 {
		t.Fatalf("scan: %d cooked assets, %d .uexp, %d loose; want %d, %d, 0", plan.Count(pack.Cooked), plan.Count(pack.CookedExports), plan.Count(pack.Loose), len(assets), len(assets))
	}
	utoc := filepath.Join(t.TempDir(), "z_CreativeUnlock_P.utoc")
	calls := 0
	res, err := pack.Pack(plan, utoc, &pack.Options{Engine: e427, Base: base, ConvertProgress: func(done, total int) {
		calls++
		if done != calls || total != 2*len(assets) {
			t.Errorf("progress %d of %d at call %d", done, total, calls)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packages != len(assets) || len(res.Warnings) != 0 || calls != 2*len(assets) {
		t.Fatalf("packed %d packages, warnings %v, %d progress calls; want %d, none, %d", res.Packages, res.Warnings, calls, len(assets), 2*len(assets))
	}
	if _, err := os.Stat(res.Pak); err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := c.Verify(nil); !r.OK() || r.PackagesChecked != len(assets) {
		t.Fatalf("verify: %v, %d packages checked", r.Problems, r.PackagesChecked)
	}
	h, err := c.ContainerHeader()
	if err != nil {
		t.Fatal(err)
	}
	crossArcs, inGame, split := 0, 0, 0
	for _, rel := range assets {
		a := readAsset(t, filepath.Join(dir, filepath.FromSlash(rel)))
		name, _, _ := pack.PackageName(rel)
		i, err := c.FindPackage(name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := c.ReadChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := h.PackageIndex(p.ID())
		b := base.PackageIndex(p.ID())
		if k < 0 {
			t.Fatalf("%s: no store entry", name)
		}
		got := h.Packages[k]
		// A table the game has keeps the game's load order; one it has
		// not (the mod is older than the game's current tables) has the
		// load order of the packages packed together.
		game := zen.StoreEntry{LoadOrder: got.LoadOrder, ExportCount: got.ExportCount}
		if b >= 0 {
			game = base.Packages[b]
			inGame++
		}
		want := zen.StoreEntry{PackageID: p.ID(), ExportBundlesSize: uint64(len(data)), LoadOrder: game.LoadOrder,
			ExportCount: int32(len(a.Exports)), ExportBundleCount: int32(len(p.Bundles)), ImportedPackages: importedPackageIDs(a)}
		if got.PackageID != want.PackageID || got.ExportBundlesSize != want.ExportBundlesSize || got.LoadOrder != want.LoadOrder ||
			got.ExportCount != want.ExportCount || got.ExportBundleCount != want.ExportBundleCount || !slices.Equal(got.ImportedPackages, want.ImportedPackages) {
			t.Errorf("%s: store entry\n got %+v\nwant %+v", name, got, want)
		}
		if got.ExportCount != game.ExportCount {
			t.Errorf("%s: %d exports, Grounded's package %d", name, got.ExportCount, game.ExportCount)
		}
		if got.ExportBundleCount > 1 {
			split++
		}
		for _, g := range p.Graph {
			for _, arc := range g.Arcs {
				if h.PackageIndex(g.Package) >= 0 {
					crossArcs++
					if arc.From < 0 {
						t.Errorf("%s: arc %+v from %v, a package packed with it, names no bundle", name, arc, g.Package)
					}
				} else if arc.From != -1 {
					t.Errorf("%s: arc %+v from %v, a game package, is not from bundle -1", name, arc, g.Package)
				}
			}
		}

		zp, err := report.NewZenProperties(name, p, &zen.Resolver{}, allExports(len(p.Exports)), true, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		lp, err := report.NewCookedProperties(rel, a, name, allExports(len(a.Exports)), true, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		zp.File, lp.File = "", ""
		zj, _ := json.Marshal(zp)
		lj, _ := json.Marshal(lp)
		if string(zj) != string(lj) {
			t.Errorf("%s: properties of the packed table differ from the cooked asset's (%d and %d bytes of JSON)", name, len(zj), len(lj))
		}
		if !strings.Contains(string(zj), `"rows"`) && len(a.Exports[0].Data) > 100 {
			t.Errorf("%s: no rows read", name)
		}
	}
	if split == 0 {
		// Table_CraftingRecipes and Table_Crafting_Equipment import each
		// other: the set's load order comes back to each of them.
		t.Error("no package was split into bundles by an import loop")
	}
	if inGame == 0 {
		t.Error("no table of the mod is in Grounded's container header")
	}
	if crossArcs == 0 {
		t.Error("no package of the mod depends on another: the set's arcs are not checked")
	}
}

func allExports(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

// TestPackCookedUE58 packs the cooked assets of the UE 5.8 fixture
// project's legacy paks (tagged properties) for 5.8 and compares the
// container with the engine's container of the same project: every chunk
// (package and bulk data) byte for byte, and every store entry field for
// field.
func TestPackCookedUE58(t *testing.T) {
	var paks []string
	for _, rel := range []string{
		"pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak",
		"pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak",
	} {
		paks = append(paks, corpus.Path(t, rel))
	}
	checkPackCooked(t, corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), paks, zen.Engine58)
}

// checkPackCooked packs the cooked assets of each legacy pak for e and
// compares the container with the engine's container engineUtoc: every
// chunk byte for byte, every store entry field for field. It returns the
// number of chunks and store entries found identical.
func checkPackCooked(t *testing.T, engineUtoc string, paks []string, e zen.Engine) (sameChunks, sameEntries int) {
	engineCt, err := iostore.Open(engineUtoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer engineCt.Close()
	engineHdr, err := engineCt.ContainerHeader()
	if err != nil {
		t.Fatal(err)
	}
	for _, pk := range paks {
		t.Run(filepath.Base(pk), func(t *testing.T) {
			dir := extractPakFile(t, pk)
			plan, err := pack.Scan(dir, pack.TocVersionFor(e))
			if err != nil {
				t.Fatal(err)
			}
			utoc := filepath.Join(t.TempDir(), "Fixtures_P.utoc")
			res, err := pack.Pack(plan, utoc, &pack.Options{Engine: e, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Packages == 0 || res.Packages != plan.Count(pack.Cooked) || plan.Count(pack.Package) != 0 {
				t.Fatalf("packed %d packages of %d cooked assets (%d zen packages)", res.Packages, plan.Count(pack.Cooked), plan.Count(pack.Package))
			}
			c, err := iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if r := c.Verify(nil); !r.OK() {
				t.Fatalf("verify: %v", r.Problems)
			}
			h, err := c.ContainerHeader()
			if err != nil {
				t.Fatal(err)
			}
			chunks := 0
			for _, ch := range c.Chunks() {
				if ch.ID.Type(c.Header().Version) == iostore.ChunkContainerHeader {
					continue
				}
				got, err := c.ReadChunk(ch.Index)
				if err != nil {
					t.Fatal(err)
				}
				k, ok := engineCt.Find(ch.ID)
				if !ok {
					t.Errorf("%s: chunk %v is not in the engine's container", ch.Path, ch.ID)
					continue
				}
				want, err := engineCt.ReadChunk(k)
				if err != nil {
					t.Fatal(err)
				}
				if p := engineCt.Chunks()[k].Path; p != ch.Path {
					t.Errorf("chunk %v: path %s, the engine's %s", ch.ID, ch.Path, p)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: chunk %v is %d bytes, differing from the engine's %d", ch.Path, ch.ID, len(got), len(want))
				} else {
					sameChunks++
				}
				chunks++
			}
			if chunks != res.Chunks-1 {
				t.Errorf("compared %d chunks of %d", chunks, res.Chunks-1)
			}
			if len(h.Packages) != res.Packages {
				t.Fatalf("%d store entries for %d packages", len(h.Packages), res.Packages)
			}
			for _, got := range h.Packages {
				k := engineHdr.PackageIndex(got.PackageID)
				if k < 0 {
					t.Errorf("package %v is not in the engine's container header", got.PackageID)
					continue
				}
				want := engineHdr.Packages[k]
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				if string(gj) != string(wj) {
					t.Errorf("store entry\n got %s\nwant %s", gj, wj)
				} else {
					sameEntries++
				}
			}
		})
	}
	return sameChunks, sameEntries
}
