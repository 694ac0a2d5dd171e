package pack_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zenbuild"
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

// TestPackLocalized packs UE 4.27 localized packages as the engine's packer
// writes them (built with the project's builder: their public exports carry
// their source package's GlobalImportIndex): the container verifies, and
// the culture package map maps each source package packed with them to its
// localized variants; a localized package without its source gets none.
func TestPackLocalized(t *testing.T) {
	const source = "/Game/Sounds/Intro"
	spec := func(name string) zenbuild.Spec {
		return zenbuild.Spec{Name: name, Layout: zen.LayoutUE4, Imports: []string{"/Script/Engine.SoundWave"},
			Exports: []zenbuild.Export{{Name: "Intro", Class: "/Script/Engine.SoundWave", Outer: -1, Flags: zen.FlagPublic | 0x2, Data: []byte{1, 2, 3, 4}}}}
	}
	id := zen.PackageIDFromName
	for _, tc := range []struct {
		name     string
		packages []string
	}{
		{"with the source", []string{source, "/Game/L10N/fr/Sounds/Intro", "/Game/L10N/de/Sounds/Intro"}},
		{"without the source", []string{"/Game/L10N/fr/Sounds/Intro"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "in")
			for _, name := range tc.packages {
				data, err := zenbuild.Encode(spec(name))
				if err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(dir, "Demo", "Content", filepath.FromSlash(strings.TrimPrefix(name, "/Game/"))+".uasset")
				os.MkdirAll(filepath.Dir(f), 0o755)
				if err := os.WriteFile(f, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			plan, err := pack.Scan(dir, iostore.VersionPartitionSize)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, "out", "z_Loc_P.utoc")
			if _, err := pack.Pack(plan, out, &pack.Options{Engine: zen.Engine{Major: 4, Minor: 27}, Writer: iostore.WriterOptions{Method: "Zlib"}}); err != nil {
				t.Fatal(err)
			}
			c, err := iostore.Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if r := c.Verify(nil); !r.OK() || r.PackagesChecked != len(tc.packages) {
				t.Errorf("verify: %v, %d packages checked", r.Problems, r.PackagesChecked)
			}
			h, err := c.ContainerHeader()
			if err != nil {
				t.Fatal(err)
			}
			pairs := map[string][]zen.LocalizedPair{}
			for _, cu := range h.Cultures {
				pairs[cu.Culture] = cu.Packages
			}
			want := map[string][]zen.LocalizedPair{}
			if slices.Contains(tc.packages, source) {
				for _, name := range tc.packages {
					if _, culture, ok := zen.LocalizedSource(name); ok {
						want[culture] = append(want[culture], zen.LocalizedPair{SourcePackageID: id(source), LocalizedPackageID: id(name)})
					}
				}
			}
			if !reflect.DeepEqual(pairs, want) {
				t.Errorf("culture package map %v, want %v", pairs, want)
			}
		})
	}
}
