package pack_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestPackLoadOrderWarning packs the demo packages: for UE 4.27 without a
// base container header, every store entry gets load order 0 and Pack
// returns one NoLoadOrder warning naming them; with the game's container
// header as the base, the entries take its load orders and there is no
// warning; UE5 store entries have no load order, so no warning either.
func TestPackLoadOrderWarning(t *testing.T) {
	const demo = "../../examples/containers/UnrmodDemo427_P.utoc"
	c, err := iostore.Open(demo, nil)
	if err != nil {
		t.Fatal(err)
	}
	base, err := c.ContainerHeader()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	e427, e56 := zen.Engine{Major: 4, Minor: 27}, zen.Engine{Major: 5, Minor: 6}
	for _, tt := range []struct {
		name   string
		engine zen.Engine
		base   *zen.ContainerHeader
		warn   bool
	}{
		{"4.27 without base", e427, nil, true},
		{"4.27 with base", e427, base, false},
		{"5.6 without base", e56, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			loose := filepath.Join(dir, "loose")
			l := zen.LayoutUE4
			if tt.engine.Major == 5 {
				l = zen.LayoutUE56
			}
			var names []string
			for _, spec := range iostorebuild.DemoPackages(l) {
				if strings.HasPrefix(spec.Name, "/Game/Maps/") {
					continue // it has bulk data
				}
				data, err := zenbuild.Encode(spec)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(loose, "UnrmodDemo", "Content", filepath.FromSlash(strings.TrimPrefix(spec.Name, "/Game/"))+".uasset")
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				names = append(names, spec.Name)
			}
			plan, err := pack.Scan(loose, pack.TocVersionFor(tt.engine))
			if err != nil {
				t.Fatal(err)
			}
			utoc := filepath.Join(dir, "out", "z_Demo_P.utoc")
			res, err := pack.Pack(plan, utoc, &pack.Options{Engine: tt.engine, Base: tt.base, NoPak: true})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.warn {
				if len(res.Warnings) != 0 {
					t.Errorf("warnings %v", res.Warnings)
				}
				return
			}
			if len(res.Warnings) != 1 {
				t.Fatalf("warnings %v, want one", res.Warnings)
			}
			w := res.Warnings[0]
			slices.Sort(names)
			got := slices.Sorted(slices.Values(w.Packages))
			if w.Kind != pack.NoLoadOrder || w.BaseGiven || w.Of != len(names) || !slices.Equal(got, names) ||
				!strings.Contains(w.String(), "load order 0") {
				t.Errorf("warning kind %d, base given %v, %d of %d packages %v: %s; want NoLoadOrder for %v", w.Kind, w.BaseGiven, len(w.Packages), w.Of, w.Packages, w, names)
			}
		})
	}
}

// TestTocVersionFor pins the TOC version each release's packer writes, as
// the table of ue.Releases gives it.
func TestTocVersionFor(t *testing.T) {
	for _, tc := range []struct {
		e    zen.Engine
		want iostore.TocVersion
	}{
		{zen.Engine426, iostore.VersionDirectoryIndex},
		{zen.Engine427, iostore.VersionPartitionSize},
		{zen.Engine50, iostore.VersionPerfectHashWithOverflow},
		{zen.Engine{Major: 5, Minor: 3}, iostore.VersionPerfectHashWithOverflow},
		{zen.Engine{Major: 5, Minor: 4}, iostore.VersionOnDemandMetaData},
		{zen.Engine{Major: 5, Minor: 5}, iostore.VersionReplaceIoChunkHashWithIoHash},
		{zen.Engine58, iostore.VersionReplaceIoChunkHashWithIoHash},
	} {
		if got := pack.TocVersionFor(tc.e); got != tc.want {
			t.Errorf("TocVersionFor(%v) = %v, want %v", tc.e, got, tc.want)
		}
	}
	if got, want := pack.TocVersions(), "4.26: 2, 4.27: 3, 5.0-5.3: 5, 5.4: 6, 5.5-5.8: 8, 6.0: 10"; got != want {
		t.Errorf("TocVersions() = %q, want %q", got, want)
	}
}
