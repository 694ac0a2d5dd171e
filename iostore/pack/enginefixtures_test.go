package pack_test

import (
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestPackCookedEngineFixtures is opt-in: it reads one engine release's
// output of the CUE4ParseFixtures project from the folder
// UNRMOD_ENGINE_FIXTURES names (not in the corpus) and skips when it is
// unset. It packs the cooked assets of the project's uncompressed and
// zlib legacy paks of each kind (tagged, unversioned properties) for the
// release its manifest.json names and compares the container with the
// engine's zlib container of the same kind, as TestPackCookedUE58 does.
func TestPackCookedEngineFixtures(t *testing.T) {
	f := corpus.EngineFixtures(t)
	e := zen.Engine{Major: f.Major, Minor: f.Minor}
	for _, kind := range []string{"Tagged", "Unversioned"} {
		t.Run(kind, func(t *testing.T) {
			var paks []string
			for _, m := range []string{"Uncompressed", "Zlib"} {
				paks = append(paks, f.Glob(t, "LegacyPak/"+kind+"/"+m+"/*.pak")...)
			}
			engine := f.Glob(t, "IoStore/"+kind+"/Zlib/*.utoc")
			chunks, entries := checkPackCooked(t, engine[0], paks, e)
			t.Logf("UE %s %s: %d chunks and %d store entries identical to the engine's %s, from %d paks", e, kind, chunks, entries, filepath.Base(engine[0]), len(paks))
			if chunks == 0 || entries == 0 {
				t.Error("nothing compared")
			}
		})
	}
}
