package zen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// corpusPackage is a zen package of the corpus: a loose file or a package
// chunk of a container, with the store entry its container lists for it.
type corpusPackage struct {
	name      string
	data      []byte
	container string // "" for loose files
	entry     *zen.StoreEntry
	header    zen.HeaderVersion
}

var (
	corpusPkgOnce sync.Once
	corpusPkgs    []corpusPackage
	corpusPkgErr  error
)

// zenCorpusContainers are the corpus containers whose package chunks can be
// decompressed (the Oodle ones cannot).
var zenCorpusContainers = []string{
	"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
	"iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc",
	"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase.utoc",
	"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase_0_P.utoc",
}

// corpusPackages returns every zen package of the corpus: the Grounded 4.27
// packages, the UE 5.4/5.6 .uzenasset files and every package chunk of the
// decompressible UE 5.8 containers.
func corpusPackages(tb testing.TB) []corpusPackage {
	tb.Helper()
	dir := corpus.Dir(tb)
	corpusPkgOnce.Do(func() { corpusPkgs, corpusPkgErr = loadCorpusPackages(dir, zenCorpusContainers) })
	if corpusPkgErr != nil {
		tb.Fatal(corpusPkgErr)
	}
	return corpusPkgs
}

func loadCorpusPackages(dir string, containers []string) ([]corpusPackage, error) {
	var out []corpusPackage
	for _, pattern := range []string{"other/grounded/zen_ue4_27/*.uasset", "other/ue5_cooked_pairs/*.uzenasset"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, corpusPackage{name: filepath.Base(f), data: data})
		}
	}
	for _, rel := range containers {
		c, err := iostore.Open(filepath.Join(dir, rel), nil)
		if err != nil {
			return nil, err
		}
		k, _ := c.ContainerHeaderChunk()
		hb, err := c.ReadChunk(k)
		if err != nil {
			return nil, err
		}
		h, err := zen.DecodeContainerHeader(rel, hb)
		if err != nil {
			return nil, err
		}
		for i, ch := range c.Chunks() {
			if ch.Type != iostore.ChunkExportBundleData {
				continue
			}
			data, err := c.ReadChunk(i)
			if err != nil {
				return nil, err
			}
			cp := corpusPackage{name: filepath.Base(rel) + ":" + ch.Path, data: data, container: rel, header: h.Version}
			if n := h.PackageIndex(ch.ID.PackageID()); n >= 0 {
				cp.entry = &h.Packages[n]
			}
			out = append(out, cp)
		}
		c.Close()
	}
	return out, nil
}

// TestCorpusPackagesRoundTrip decodes every zen package of the corpus,
// checks that its parts are all in the encoder's canonical layout (so that
// the encoder, not kept bytes, reproduces them) and encodes it back byte for
// byte.
func TestCorpusPackagesRoundTrip(t *testing.T) {
	layouts := map[zen.Layout]int{}
	for _, cp := range corpusPackages(t) {
		p, err := zen.DecodePackage(cp.name, cp.data, nil)
		if err != nil {
			t.Errorf("%s: %v", cp.name, err)
			continue
		}
		layouts[p.Layout]++
		if k := p.KeptRaw(); len(k) > 0 {
			t.Errorf("%s (%v): parts not in canonical layout: %s", cp.name, p.Layout, strings.Join(k, ", "))
		}
		out, err := p.Encode()
		if err != nil || !bytes.Equal(out, cp.data) {
			t.Errorf("%s: encode: %v (%d bytes, want %d)", cp.name, err, len(out), len(cp.data))
		}
	}
	t.Logf("layouts: %v", layouts)
}

// TestCorpusPackagesVerify runs every check on every corpus package, with
// its container's store entry and chunk id where it has them, and counts
// the hashes that recompute to the stored values.
func TestCorpusPackagesVerify(t *testing.T) {
	var names, public, ids, imported int
	for _, cp := range corpusPackages(t) {
		p, err := zen.DecodePackage(cp.name, cp.data, nil)
		if err != nil {
			t.Errorf("%s: %v", cp.name, err)
			continue
		}
		opts := &zen.VerifyOptions{Entry: cp.entry}
		if cp.entry != nil {
			opts.ChunkPackageID = cp.entry.PackageID
			ids++
			imported += len(cp.entry.ImportedPackages)
		}
		for _, q := range p.Problems(opts) {
			t.Errorf("%s: %s", cp.name, q)
		}
		names += len(p.Names)
		for _, e := range p.Exports {
			if e.PublicExportHash != 0 && zen.ObjectIndex(e.PublicExportHash) != zen.NullObject {
				public++
			}
		}
	}
	t.Logf("recomputed %d name hashes, %d public export hashes, %d package ids, %d imported package names", names, public, ids, imported)
	if names == 0 || public == 0 || ids == 0 {
		t.Error("nothing checked")
	}
}

// TestGroundedStoreEntries checks the Grounded 4.27 packages against the
// store entries recorded beside them (.metadata.json), as a container
// would list them.
func TestGroundedStoreEntries(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "other/grounded/zen_ue4_27/*.uasset"))
	if len(files) == 0 {
		t.Fatal("no Grounded packages in the corpus")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e := groundedEntry(t, strings.TrimSuffix(f, ".uasset")+".metadata.json")
		p, err := zen.DecodePackage(filepath.Base(f), data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Layout != zen.LayoutUE4 {
			t.Errorf("%s: layout %v", f, p.Layout)
		}
		e.PackageID = p.ID()
		for _, q := range p.Problems(&zen.VerifyOptions{Entry: e}) {
			t.Errorf("%s: %s", filepath.Base(f), q)
		}
		if len(p.Exports) != int(e.ExportCount) || len(p.Bundles) != int(e.ExportBundleCount) || uint64(len(data)) != e.ExportBundlesSize {
			t.Errorf("%s: %d exports, %d bundles, %d bytes; store entry %+v", filepath.Base(f), len(p.Exports), len(p.Bundles), len(data), e)
		}
	}
}

// groundedEntry reads the store entry of a .metadata.json file.
func groundedEntry(t *testing.T, path string) *zen.StoreEntry {
	t.Helper()
	js, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		StoreEntry struct {
			ExportBundlesSize uint64   `json:"export_bundles_size"`
			LoadOrder         uint32   `json:"load_order"`
			ExportCount       int32    `json:"export_count"`
			ExportBundleCount int32    `json:"export_bundle_count"`
			ImportedPackages  []uint64 `json:"imported_packages"`
		} `json:"store_entry"`
	}
	if err := json.Unmarshal(js, &meta); err != nil {
		t.Fatal(err)
	}
	m := meta.StoreEntry
	e := &zen.StoreEntry{ExportBundlesSize: m.ExportBundlesSize, LoadOrder: m.LoadOrder, ExportCount: m.ExportCount, ExportBundleCount: m.ExportBundleCount}
	for _, id := range m.ImportedPackages {
		e.ImportedPackages = append(e.ImportedPackages, zen.PackageID(id))
	}
	return e
}
