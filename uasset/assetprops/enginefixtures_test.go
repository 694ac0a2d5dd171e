package assetprops_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/usmap"
)

// TestUnversionedEngineFixtures is opt-in: it reads one engine release's
// output of the CUE4ParseFixtures project from the folder
// UNRMOD_ENGINE_FIXTURES names (not in the corpus) and skips when it is
// unset. Every package of the project's readable unversioned containers
// and every asset of its readable unversioned legacy paks is read with
// each of its mappings and must give the document of the tagged zen twin
// (compareDocuments), as TestUnversionedContainersMatchTagged and
// TestUnversionedPakMatchesTagged check for the corpus's 5.8 project.
func TestUnversionedEngineFixtures(t *testing.T) {
	f := corpus.EngineFixtures(t)
	readable := func(pattern string) []string {
		var out []string
		for _, p := range f.Glob(t, pattern) {
			if m := filepath.Base(filepath.Dir(p)); m == "Uncompressed" || m == "Zlib" {
				out = append(out, p)
			}
		}
		return out
	}
	global := filepath.Join(f.Dir, "IoStore/Tagged/global.utoc")
	tagged := zenDocumentsAt(t, global, readable("IoStore/Tagged/*/*.utoc")[0], nil)
	maps := map[string]*usmap.Mappings{}
	for _, file := range f.Glob(t, "Mappings/*.usmap") {
		m, err := usmap.Open(file, nil)
		if errors.Is(err, usmap.ErrOodleUnavailable) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		maps[filepath.Base(file)] = m
	}
	if len(maps) == 0 {
		t.Fatal("no mappings decode")
	}
	var same, missing, docs int
	for _, file := range readable("IoStore/Unversioned/*/*.utoc") {
		for mname, m := range maps {
			d, dec := unversionedZenDocumentsAt(t, global, file, m)
			s, n := compareDocuments(t, filepath.Base(file)+" with "+mname, tagged, d, dec)
			same, missing, docs = same+s, missing+n, docs+len(d)
		}
	}
	for _, file := range readable("LegacyPak/Unversioned/*/*.pak") {
		rel, _ := filepath.Rel(f.Dir, file)
		assets := readPakFile(t, file, filepath.ToSlash(rel))
		for mname, m := range maps {
			d := map[string]*report.Properties{}
			dec := map[string]func(string) error{}
			for _, a := range assets {
				p, err := uasset.Decode(a.name, a.uasset, a.uexp, &uasset.Options{Release: uasset.Release{Major: f.Major, Minor: f.Minor}})
				if err != nil {
					t.Fatal(err)
				}
				doc, err := report.NewCookedProperties(p.FileName, p, "", everyExport(len(p.Exports)), true, "", m)
				if err != nil {
					t.Fatalf("%s: %v", a.name, err)
				}
				d[doc.Package] = doc
				r := assetprops.NewResolver(p, doc.Package)
				dec[doc.Package] = func(path string) error {
					for i := range p.Exports {
						if r.ExportPath(i) == path {
							_, err := assetprops.DecodeExportWith(p, i, m)
							return err
						}
					}
					return errors.New("no export " + path)
				}
			}
			s, n := compareDocuments(t, filepath.Base(file)+" with "+mname, tagged, d, dec)
			same, missing, docs = same+s, missing+n, docs+len(d)
		}
	}
	t.Logf("UE %d.%d: %d package documents read with %d mappings: %d exports the same as the tagged twin's, %d refused for what the mappings lack", f.Major, f.Minor, docs, len(maps), same, missing)
}
