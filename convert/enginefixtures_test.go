package convert

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
)

// The tests below are opt-in: they read one engine release's output of the
// CUE4ParseFixtures project from the folder UNRMOD_ENGINE_FIXTURES names
// (not in the corpus; the UE 5.8 output is, and the tests above read it)
// and skip when it is unset. The release is the one its manifest.json
// names; the containers and paks compressed with Oodle are left out (no
// Oodle codec is loaded).

// fixturesEngine is the fixture project's engine release.
func fixturesEngine(f corpus.Fixtures) zen.Engine { return zen.Engine{Major: f.Major, Minor: f.Minor} }

// readableFixtureContainers returns the fixture project's containers of
// kind (Tagged, Unversioned) whose blocks can be read.
func readableFixtureContainers(t *testing.T, f corpus.Fixtures, kind string) []string {
	var out []string
	for _, u := range f.Glob(t, "IoStore/"+kind+"/*/*.utoc") {
		if m := filepath.Base(filepath.Dir(u)); m == "Uncompressed" || m == "Zlib" {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no uncompressed or zlib %s container in %s", kind, f.Dir)
	}
	return out
}

// TestEngineFixturesToZen converts every cooked asset of the fixture
// project's legacy paks for its release and compares each with the
// engine's package chunk in the containers of the same kind.
func TestEngineFixturesToZen(t *testing.T) {
	f := corpus.EngineFixtures(t)
	e := fixturesEngine(f)
	var paks []string
	for _, pk := range f.Glob(t, "LegacyPak/*/*/*.pak") {
		if m := filepath.Base(filepath.Dir(pk)); m == "Uncompressed" || m == "Zlib" {
			paks = append(paks, pk)
		}
	}
	compared, identical := checkToZenFixtures(t, paks, filepath.Join(f.Dir, "IoStore"), &Options{Engine: e})
	t.Logf("UE %s: %d of %d comparisons of a conversion with the engine's package chunk byte-identical", e, identical, compared)
	if compared == 0 {
		t.Error("nothing compared")
	}
}

// TestEngineFixturesToLegacy converts every package of the fixture
// project's readable containers into a cooked asset and back (which must
// give the engine's chunk), and the packages the project also cooked into
// its uncompressed legacy pak of the same kind are compared with the
// engine's cooked asset.
func TestEngineFixturesToLegacy(t *testing.T) {
	f := corpus.EngineFixtures(t)
	e := fixturesEngine(f)
	for _, kind := range []string{"Tagged", "Unversioned"} {
		for _, utoc := range readableFixtureContainers(t, f, kind) {
			set, err := OpenContainerSet(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			if set.Global == "" {
				t.Fatalf("%s: no global.utoc beside it or above", utoc)
			}
			rel, _ := filepath.Rel(f.Dir, utoc)
			t.Run(filepath.ToSlash(rel), func(t *testing.T) {
				ct := set.Containers[0]
				total, identical, refused := checkLegacyRoundTrip(t, ct, set.Source, e)
				t.Logf("UE %s %s: %d packages, %d identical after zen → legacy → zen, %d refused", e, rel, total, identical, refused)
				for _, pk := range f.Glob(t, "LegacyPak/"+kind+"/*/*.pak") {
					if !strings.Contains(filepath.Base(filepath.Dir(pk)), "Uncompressed") {
						continue
					}
					r, err := pak.Open(pk, nil)
					if err != nil {
						t.Fatal(err)
					}
					r.Close()
					n, same := checkLegacyOracle(t, ct, set.Source, pk, e)
					t.Logf("UE %s %s: %d of %d converted assets match the engine's cooked asset in %s", e, rel, same, n, filepath.Base(pk))
				}
			})
		}
	}
}
