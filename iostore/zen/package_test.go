package zen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zencorpus"
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
	// containerHeader is the header of the package's container, or nil.
	containerHeader *zen.ContainerHeader
}

var (
	corpusPkgOnce sync.Once
	corpusPkgs    []corpusPackage
	corpusPkgErr  error
)

// corpusPackages returns every zen package of the corpus: the Grounded 4.27
// packages, the UE 5.4/5.6 .uzenasset files and every package chunk of the
// decompressible UE 5.8 containers.
func corpusPackages(tb testing.TB) []corpusPackage {
	tb.Helper()
	dir := corpus.Dir(tb)
	corpusPkgOnce.Do(func() { corpusPkgs, corpusPkgErr = loadCorpusPackages(dir, zencorpus.Containers) })
	if corpusPkgErr != nil {
		tb.Fatal(corpusPkgErr)
	}
	return corpusPkgs
}

// loadCorpusPackages reads the loose packages and those of the given
// containers; entry and header are set for package chunks.
func loadCorpusPackages(dir string, containers []string) ([]corpusPackage, error) {
	pkgs, err := zencorpus.Load(dir, containers)
	if err != nil {
		return nil, err
	}
	out := make([]corpusPackage, 0, len(pkgs))
	for _, zp := range pkgs {
		cp := corpusPackage{name: zp.Name, data: zp.Data, container: zp.Container}
		if zp.Header != nil {
			cp.entry, cp.header, cp.containerHeader = zp.Entry, zp.Header.Version, zp.Header
		}
		out = append(out, cp)
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
		opts := &zen.VerifyOptions{Entry: cp.entry, Header: cp.containerHeader}
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
	e, err := zencorpus.GroundedEntry(path)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
