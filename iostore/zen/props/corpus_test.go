package props_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// corpusPackage is a zen package of the corpus: a loose file or a package
// chunk of a container.
type corpusPackage struct {
	name      string // file name, or container:path
	container string // "" for loose files
	pkg       *zen.Package
}

var (
	corpusOnce sync.Once
	corpusPkgs []corpusPackage
	corpusErr  error
)

// corpusContainers are the corpus containers whose package chunks can be
// decompressed (the Oodle ones cannot), as package zen's tests read them.
var corpusContainers = []string{
	"iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc",
	"iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc",
	"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase.utoc",
	"iostore/cue4parse_ue5_8/Patch/CUE4ParseFixtures-PatchBase_0_P.utoc",
}

// corpusPackages returns every zen package of the corpus, decoded: the
// Grounded 4.27 packages, the UE 5.4/5.6 .uzenasset files and every
// package chunk of the decompressible UE 5.8 containers.
func corpusPackages(tb testing.TB) []corpusPackage {
	tb.Helper()
	dir := corpus.Dir(tb)
	corpusOnce.Do(func() { corpusPkgs, corpusErr = loadCorpusPackages(dir) })
	if corpusErr != nil {
		tb.Fatal(corpusErr)
	}
	return corpusPkgs
}

func loadCorpusPackages(dir string) ([]corpusPackage, error) {
	var out []corpusPackage
	add := func(name, container string, data []byte) error {
		p, err := zen.DecodePackage(name, data, nil)
		if err != nil {
			return err
		}
		out = append(out, corpusPackage{name: name, container: container, pkg: p})
		return nil
	}
	for _, pattern := range []string{"other/grounded/zen_ue4_27/*.uasset", "other/ue5_cooked_pairs/*.uzenasset"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := add(filepath.Base(f), "", data); err != nil {
				return nil, err
			}
		}
	}
	for _, rel := range corpusContainers {
		c, err := iostore.Open(filepath.Join(dir, rel), nil)
		if err != nil {
			return nil, err
		}
		for i, ch := range c.Chunks() {
			if ch.Type != iostore.ChunkExportBundleData {
				continue
			}
			data, err := c.ReadChunk(i)
			if err != nil {
				c.Close()
				return nil, err
			}
			if err := add(filepath.Base(rel)+":"+ch.Path, rel, data); err != nil {
				c.Close()
				return nil, err
			}
		}
		c.Close()
	}
	return out, nil
}

// findPackage returns the corpus package with the given package name in the
// given container ("" for loose files).
func findPackage(tb testing.TB, container, name string) *zen.Package {
	tb.Helper()
	for _, cp := range corpusPackages(tb) {
		if cp.container == container && cp.pkg.PackageName() == name {
			return cp.pkg
		}
	}
	tb.Fatalf("no package %s in %q", name, container)
	return nil
}

const (
	taggedZlib  = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	unversioned = "iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
)

// structClasses are the classes whose objects are classes, structs,
// functions or enums: their data is the object's property list followed by
// the type's own serialization.
var structClasses = func() map[zen.ObjectIndex]string {
	m := map[zen.ObjectIndex]string{}
	for _, path := range []string{
		"/Script/CoreUObject.Class", "/Script/CoreUObject.ScriptStruct", "/Script/CoreUObject.Function",
		"/Script/CoreUObject.DelegateFunction", "/Script/CoreUObject.SparseDelegateFunction", "/Script/CoreUObject.Enum",
		"/Script/Engine.BlueprintGeneratedClass", "/Script/Engine.AnimBlueprintGeneratedClass",
		"/Script/UMG.WidgetBlueprintGeneratedClass", "/Script/Engine.UserDefinedStruct", "/Script/Engine.UserDefinedEnum",
	} {
		m[zen.ObjectIndex(cityhash.ScriptImportIndex(path))] = path[strings.LastIndexByte(path, '.')+1:]
	}
	return m
}()

// customClasses are the classes in the corpus whose Serialize writes its
// own format without calling UObject::Serialize first: their data has no
// property list.
var customClasses = func() map[zen.ObjectIndex]string {
	m := map[zen.ObjectIndex]string{}
	for _, path := range []string{"/Script/ControlRig.RigHierarchy", "/Script/RigVM.RigVM", "/Script/NNE.NNEModelData"} {
		m[zen.ObjectIndex(cityhash.ScriptImportIndex(path))] = path
	}
	return m
}()

// isStructExport reports whether export i is a class, struct, function or
// enum (by its class), or the class of another export.
func isStructExport(p *zen.Package, i int) bool {
	if _, ok := structClasses[p.Exports[i].Class]; ok {
		return true
	}
	for _, e := range p.Exports {
		if x, ok := e.Class.Export(); ok && x == i && e.Class.Kind() == zen.KindExport {
			return true
		}
	}
	return false
}
