package pack_test

import (
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestPackWritesAsEngine packs extracted containers with default options
// and checks what the engine's packer would have written: perfect-hash
// seeds in every UE5 container (every chunk found by the engine's lookup)
// and none in a 4.27 one, whose TOC has no place for them; the global
// container with the invalid id the engine gives it.
func TestPackWritesAsEngine(t *testing.T) {
	dir := corpus.Dir(t)
	for _, tc := range []struct {
		rel    string
		engine zen.Engine
		name   string // the output's name; "" keeps the source's
		seeds  bool
		noHash bool // Options.NoPerfectHash
	}{
		{"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc", zen.Engine{Major: 5, Minor: 8}, "", true, false},
		{"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc", zen.Engine{Major: 5, Minor: 8}, "", false, true},
		{"iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc", zen.Engine{Major: 5, Minor: 8}, "z_Mod_P.utoc", true, false},
		{"iostore/cue4parse_ue5_8/Tagged/global.utoc", zen.Engine{Major: 5, Minor: 8}, "", true, false},
		{"../../examples/containers/UnrmodDemo427_P.utoc", zen.Engine{Major: 4, Minor: 27}, "", false, false},
	} {
		t.Run(filepath.Base(tc.rel), func(t *testing.T) {
			tmp := t.TempDir()
			path := tc.rel
			if !filepath.IsAbs(path) && path[0] != '.' {
				path = filepath.Join(dir, tc.rel)
			}
			src := extractAll(t, path, filepath.Join(tmp, "ex"))
			plan, err := pack.Scan(filepath.Join(tmp, "ex"), src.Header().Version)
			if err != nil {
				t.Fatal(err)
			}
			name := tc.name
			if name == "" {
				name = filepath.Base(tc.rel)
			}
			out := filepath.Join(tmp, "out", name)
			if _, err := pack.Pack(plan, out, &pack.Options{Engine: tc.engine, NoPerfectHash: tc.noHash, Writer: iostore.WriterOptions{Method: "Zlib"}}); err != nil {
				t.Fatal(err)
			}
			c, err := iostore.Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			toc := c.TOC()
			if got := len(toc.PerfectHashSeeds) > 0; got != tc.seeds {
				t.Errorf("%d perfect-hash seeds, want seeds: %v", len(toc.PerfectHashSeeds), tc.seeds)
			}
			if tc.seeds {
				for i, id := range toc.ChunkIDs {
					if k, ok := toc.LookupPerfectHash(id); !ok || k != i {
						t.Errorf("chunk %v: the engine's lookup finds %d (%v), want %d", id, k, ok, i)
					}
				}
			}
			if filepath.Base(tc.rel) == "global.utoc" {
				if got, want := c.Header().ContainerID, src.Header().ContainerID; got != want || want != iostore.GlobalContainerID {
					t.Errorf("global container id %v, the engine's %v", got, want)
				}
			}
			if r := c.Verify(nil); !r.OK() {
				t.Errorf("verify: %v", r.Problems)
			}
		})
	}
}
