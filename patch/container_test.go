package patch_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/ue"
)

// copyContainer copies a container's .utoc and .ucas files into dir and
// returns the copy's .utoc.
func copyContainer(t *testing.T, utoc, dir string) string {
	t.Helper()
	return zencorpus.CopyContainer(t, utoc, dir, "")
}

// applyYAML parses and applies a patch written into dir.
func applyYAML(t *testing.T, dir, text string, opt patch.Options) (*patch.Result, error) {
	t.Helper()
	p := filepath.Join(dir, "patch.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := patch.ParseFile(p)
	if err != nil {
		return nil, err
	}
	return patch.Apply(f, opt)
}

// readPackage returns the decoded package name of container utoc.
func readPackage(t *testing.T, utoc string, key *ue.Key, name string) (*zen.Package, *iostore.Container) {
	t.Helper()
	c, err := iostore.Open(utoc, &iostore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	i, err := c.FindPackage(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

// TestContainerModDemo patches a package of the demo 4.27 container (the
// layout of a Grounded container) into a mod container: a rename and a
// replaced export in one package. The mod container must verify, hold
// the patched package with its store entry, and come with a .pak that
// mounts it; the base container must be untouched.
func TestContainerModDemo(t *testing.T) {
	dir := t.TempDir()
	base := copyContainer(t, "../examples/containers/UnrmodDemo427_P.utoc", dir)
	before, _ := os.ReadFile(base)
	orig, _ := readPackage(t, base, nil, "/Game/Items/BP_DemoPickup")
	// New data for the pickup's defaults: its own data, so it decodes.
	k := -1
	for i := range orig.Exports {
		if strings.HasPrefix(orig.ExportName(i), "Default__") {
			k = i
		}
	}
	if k < 0 {
		t.Fatal("no class defaults export")
	}
	data := append([]byte(nil), orig.Exports[k].Data...)
	os.WriteFile(filepath.Join(dir, "cdo.bin"), data, 0o644)
	res, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: UnrmodDemo427_P.utoc
    output: mods/z_DemoMod_P
    packages:
      - package: /Game/Items/BP_DemoPickup
        ops:
          - rename: {from: RespawnTime, to: RespawnDelay}
          - replace-export: {object: `+orig.ExportName(k)+`, data: {file: cdo.bin}}
`, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Targets[0]
	if tr.Kind != "container" || tr.Container.Mode != "mod" || len(tr.Container.Packages) != 1 || !tr.Changed {
		t.Fatalf("result %+v", tr)
	}
	utoc := filepath.Join(dir, "mods", "z_DemoMod_P.utoc")
	if tr.Output != utoc {
		t.Errorf("output %s, want %s", tr.Output, utoc)
	}
	p, c := readPackage(t, utoc, nil, "/Game/Items/BP_DemoPickup")
	if r := c.Verify(nil); !r.OK() || r.PackagesChecked != 1 {
		t.Fatalf("mod container: %v (%d packages checked)", r.Problems, r.PackagesChecked)
	}
	found := false
	for _, n := range p.Names {
		found = found || n == "RespawnDelay"
	}
	if !found || len(c.Chunks()) != 2 {
		t.Errorf("renamed name found %v, %d chunks (want the package and the header)", found, len(c.Chunks()))
	}
	if c.Header().ContainerID != zen.ContainerIDFromName("z_DemoMod_P") || c.Header().Version != iostore.VersionPartitionSize {
		t.Errorf("container id %v, version %d", c.Header().ContainerID, c.Header().Version)
	}
	h, err := c.ContainerHeader()
	if err != nil || h.Version != zen.HeaderUE4 || len(h.Packages) != 1 || h.Packages[0].PackageID != p.ID() || h.Packages[0].ExportBundlesSize != uint64(p.Size()) {
		t.Fatalf("container header %+v (%v)", h, err)
	}
	pk, err := pak.Open(filepath.Join(dir, "mods", "z_DemoMod_P.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if pk.Footer.Version != pak.VersionFnv64BugFix || len(pk.Files) != 0 {
		t.Errorf("companion pak: version %d, %d files", pk.Footer.Version, len(pk.Files))
	}
	pk.Close()
	// The mod wins: _P and a name that sorts after the base's.
	if !strings.HasSuffix("z_DemoMod_P", "_P") || !(filepath.Join(dir, "mods", "z_DemoMod_P.pak") > filepath.Join(dir, "UnrmodDemo427_P.pak")) {
		t.Error("the mod's pak does not sort after the base's")
	}
	if after, _ := os.ReadFile(base); !bytes.Equal(before, after) {
		t.Error("the base container changed")
	}
}

// TestContainerModCorpus patches a package of each decodable UE 5.8 corpus
// container (and the Oodle one, whose bulk data is copied block for block)
// into a mod container.
func TestContainerModCorpus(t *testing.T) {
	root := corpus.Dir(t)
	for _, rel := range []string{
		"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
		"iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			dir := t.TempDir()
			base := copyContainer(t, filepath.Join(root, rel), dir)
			c, err := iostore.Open(base, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The first package with bulk data.
			var name string
			for _, ch := range c.Chunks() {
				if ch.Type == iostore.ChunkBulkData {
					for _, x := range c.Chunks() {
						if x.Type == iostore.ChunkExportBundleData && x.ID.Value() == ch.ID.Value() {
							name, _ = c.OutputPath(x.Index)
						}
					}
				}
				if name != "" {
					break
				}
			}
			c.Close()
			res, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: `+filepath.Base(base)+`
    output: mods/Mod_P
    packages:
      - package: `+name+`
        ops:
          - add-name: {name: UnrmodAddedName}
`, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Targets[0].Container
			q, mc := readPackage(t, filepath.Join(dir, "mods", "Mod_P.utoc"), nil, name)
			if rep := mc.Verify(nil); !rep.OK() || rep.PackagesChecked != 1 {
				t.Fatalf("mod container: %v", rep.Problems)
			}
			if q.Names[len(q.Names)-1] != "UnrmodAddedName" && !containsName(q.Names, "UnrmodAddedName") {
				t.Error("the added name is missing")
			}
			if r.Copied == 0 || len(mc.Chunks()) != 2+r.Copied {
				t.Errorf("%d chunks, %d copied; want the package, its bulk data and the header", len(mc.Chunks()), r.Copied)
			}
			bh, _ := c.ContainerHeader()
			mh, err := mc.ContainerHeader()
			if err != nil || mh.Version != zen.HeaderSoftPackageReferencesOffset || len(mh.Packages) != 1 {
				t.Fatalf("mod header %+v, %v (base version %v)", mh, err, bh)
			}
		})
	}
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// TestContainerFull writes the demo container again with a changed
// package, a replaced file and a removed one, in both layouts.
func TestContainerFull(t *testing.T) {
	for _, layout := range []string{"preserve", "compact"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			base := copyContainer(t, "../examples/containers/UnrmodDemo427_P.utoc", dir)
			c, _ := iostore.Open(base, nil)
			i, _ := c.FindPackage("BP_DemoPickup")
			pickup, _ := c.ReadChunk(i)
			c.Close()
			os.WriteFile(filepath.Join(dir, "pickup.uasset"), pickup, 0o644)
			res, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: UnrmodDemo427_P.utoc
    output: full/UnrmodDemo427_P.utoc
    mode: full
    layout: `+layout+`
    packages:
      - package: DT_DemoItems
        ops:
          - rename: {from: Pebble, to: Boulder}
    files:
      - replace-file: {path: UnrmodDemo/Content/Items/BP_DemoPickup.uasset, with: pickup.uasset}
      - remove-file: {path: UnrmodDemo/Content/Maps/DemoArena.ubulk}
`, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Targets[0].Container.Files); n != 2 {
				t.Errorf("%d file changes", n)
			}
			p, c2 := readPackage(t, filepath.Join(dir, "full", "UnrmodDemo427_P.utoc"), nil, "DT_DemoItems")
			if rep := c2.Verify(nil); !rep.OK() || rep.PackagesChecked != 3 {
				t.Fatalf("%v, %d packages", rep.Problems, rep.PackagesChecked)
			}
			if !containsName(p.Names, "Boulder") || len(c2.Chunks()) != 4 {
				t.Errorf("rename missing or %d chunks (want 4)", len(c2.Chunks()))
			}
			if c2.Header().ContainerID != zen.ContainerIDFromName("UnrmodDemo427_P") {
				t.Error("full mode changed the container id")
			}
		})
	}
}

// TestContainerRefusals checks what a container target refuses, and that
// a refused or dry run writes nothing.
func TestContainerRefusals(t *testing.T) {
	dir := t.TempDir()
	copyContainer(t, "../examples/containers/UnrmodDemo427_P.utoc", dir)
	head := "unrmod: 1\ntargets:\n  - container: UnrmodDemo427_P.utoc\n"
	for _, tt := range []struct{ name, body, want string }{
		{"no _P", "    output: mods/MyMod\n    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n", "must end in _P"},
		{"remove in mod", "    files:\n      - remove-file: {path: UnrmodDemo/Content/Maps/DemoArena.ubulk}\n", "needs mode: full"},
		{"escaping path", "    mode: full\n    files:\n      - add-file: {path: ../../Windows/x.uasset, from: a}\n", "leaves the game's root"},
		{"layout in mod", "    layout: compact\n    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n", "layout applies to mode: full"},
		{"unknown package", "    output: mods/z_P\n    packages:\n      - package: /Game/Nope\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n", "Nope"},
		{"add existing", "    output: mods/z_P\n    files:\n      - add-file: {path: UnrmodDemo/Content/Data/DT_DemoItems.uasset, from: patch.yaml}\n", "already in the container"},
		{"add not package", "    output: mods/z_P\n    files:\n      - add-file: {path: UnrmodDemo/Config/Game.ini, from: patch.yaml}\n", "not package data"},
		{"path mismatch", "    output: mods/z_P\n    files:\n      - replace-file: {path: UnrmodDemo/Content/Data/DT_DemoItems.uasset, with: pickup.uasset}\n", "must agree"},
		{"typo", "    output: mods/z_P\n    files:\n      - replace-fil: {path: a, with: b}\n", `did you mean "replace-file"`},
		{"duplicate", "    output: mods/z_P\n    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n      - package: /Game/Data/DT_DemoItems\n        ops:\n          - rename: {from: Stick, to: Twig}\n", "changed twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := iostore.Open(filepath.Join(dir, "UnrmodDemo427_P.utoc"), nil)
			i, _ := c.FindPackage("BP_DemoPickup")
			pickup, _ := c.ReadChunk(i)
			c.Close()
			os.WriteFile(filepath.Join(dir, "pickup.uasset"), pickup, 0o644)
			_, err := applyYAML(t, dir, head+tt.body, patch.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "mods")); err == nil {
				t.Error("a refused patch created the output folder")
			}
		})
	}
	// A dry run writes nothing.
	res, err := applyYAML(t, dir, head+"    output: mods/z_Mod_P\n    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n", patch.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Targets[0].Container; r.Chunks != 2 || r.Packages[0].NewHash == r.Packages[0].OldHash {
		t.Errorf("dry-run plan %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "mods")); err == nil {
		t.Error("a dry run wrote the output")
	}
}
