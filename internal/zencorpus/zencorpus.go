// Package zencorpus lists the zen packages of the shared corpus for tests:
// the Grounded 4.27 packages with the store entries recorded beside them,
// the UE 5.4/5.6 .uzenasset files and every package chunk of the corpus
// containers whose chunks decompress (the Oodle ones do not).
package zencorpus

import (
	"encoding/json"
	"fmt"
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

// Package is one zen package of the corpus.
type Package struct {
	Name      string // the file's name, or CONTAINER:PATH for a package chunk
	Path      string // the file, for a loose package; "" for a package chunk
	Data      []byte
	Container string // the container, relative to the corpus root; "" for a loose package
	// Entry is the package's store entry: its container's, or for a
	// Grounded package the one recorded beside it; nil when unknown.
	Entry *zen.StoreEntry
	// Header is the header of the package's container, or nil.
	Header *zen.ContainerHeader
}

// Containers are the corpus containers whose package chunks decompress.
var Containers = []string{
	"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
	"iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc",
	"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase.utoc",
	"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase_0_P.utoc",
}

var (
	once sync.Once
	all  []Package
	err  error
)

// Packages returns every zen package of the corpus, loose packages first,
// read once per test binary. It skips the test when UNRMOD_CORPUS is unset.
func Packages(tb testing.TB) []Package {
	tb.Helper()
	dir := corpus.Dir(tb)
	once.Do(func() { all, err = Load(dir, Containers) })
	if err != nil {
		tb.Fatal(err)
	}
	return all
}

// Load reads the loose zen packages under the corpus root dir and the
// package chunks of the given containers.
func Load(dir string, containers []string) ([]Package, error) {
	var out []Package
	for _, pattern := range []string{"other/grounded/zen_ue4_27/*.uasset", "other/ue5_cooked_pairs/*.uzenasset"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			p := Package{Name: filepath.Base(f), Path: f, Data: data}
			if meta := strings.TrimSuffix(f, ".uasset") + ".metadata.json"; strings.HasSuffix(f, ".uasset") {
				if p.Entry, err = GroundedEntry(meta); err != nil {
					return nil, err
				}
			}
			out = append(out, p)
		}
	}
	for _, rel := range containers {
		pkgs, err := loadContainer(dir, rel)
		if err != nil {
			return nil, err
		}
		out = append(out, pkgs...)
	}
	return out, nil
}

func loadContainer(dir, rel string) ([]Package, error) {
	c, err := iostore.Open(filepath.Join(dir, rel), nil)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	h, err := c.ContainerHeader()
	if err != nil {
		return nil, err
	}
	index := h.Index()
	var out []Package
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		data, err := c.ReadChunk(i)
		if err != nil {
			return nil, err
		}
		p := Package{Name: filepath.Base(rel) + ":" + ch.Path, Data: data, Container: rel, Header: h}
		p.Entry = index.Entry(ch.ID.PackageID())
		out = append(out, p)
	}
	return out, nil
}

// GroundedEntry reads the store entry recorded beside a Grounded package
// (NAME.metadata.json), with the package id left zero.
func GroundedEntry(path string) (*zen.StoreEntry, error) {
	js, err := os.ReadFile(path)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	m := meta.StoreEntry
	e := &zen.StoreEntry{ExportBundlesSize: m.ExportBundlesSize, LoadOrder: m.LoadOrder, ExportCount: m.ExportCount, ExportBundleCount: m.ExportBundleCount}
	for _, id := range m.ImportedPackages {
		e.ImportedPackages = append(e.ImportedPackages, zen.PackageID(id))
	}
	return e, nil
}
