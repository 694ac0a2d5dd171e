package patch_test

import (
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/patch"
)

// TestContainerModPerfectHash checks that a mod container has the
// perfect-hash seeds every engine-written UE5 container has, with every
// chunk found by the engine's lookup, and that a 4.27 one has none (its
// TOC version has no place for them).
func TestContainerModPerfectHash(t *testing.T) {
	root := corpus.Dir(t)
	for _, tc := range []struct {
		base, pkg string
		seeds     bool
	}{
		{filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), "", true},
		{"../examples/containers/UnrmodDemo427_P.utoc", "/Game/Items/BP_DemoPickup", false},
	} {
		t.Run(filepath.Base(tc.base), func(t *testing.T) {
			dir := t.TempDir()
			base := copyContainer(t, tc.base, dir)
			name := tc.pkg
			if name == "" {
				c, err := iostore.Open(base, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range c.Chunks() {
					if ch.Type == iostore.ChunkExportBundleData {
						name, _ = c.OutputPath(ch.Index)
						break
					}
				}
				c.Close()
			}
			if _, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: `+filepath.Base(base)+`
    output: mods/z_Mod_P
    packages:
      - package: `+name+`
        ops:
          - add-name: {name: UnrmodAddedName}
`, patch.Options{}); err != nil {
				t.Fatal(err)
			}
			mc, err := iostore.Open(filepath.Join(dir, "mods", "z_Mod_P.utoc"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer mc.Close()
			toc := mc.TOC()
			if got := len(toc.PerfectHashSeeds) > 0; got != tc.seeds {
				t.Fatalf("%d perfect-hash seeds, want seeds: %v", len(toc.PerfectHashSeeds), tc.seeds)
			}
			for i, id := range toc.ChunkIDs {
				if k, ok := toc.LookupPerfectHash(id); tc.seeds && (!ok || k != i) {
					t.Errorf("chunk %v: the engine's lookup finds %d (%v), want %d", id, k, ok, i)
				}
			}
			if r := mc.Verify(nil); !r.OK() {
				t.Errorf("verify: %v", r.Problems)
			}
		})
	}
}
