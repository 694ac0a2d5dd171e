package props_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/zencorpus"
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

// corpusPackages returns every zen package of the corpus, decoded: the
// Grounded 4.27 packages, the UE 5.4/5.6 .uzenasset files and every
// package chunk of the decompressible UE 5.8 containers.
func corpusPackages(tb testing.TB) []corpusPackage {
	tb.Helper()
	pkgs := zencorpus.Packages(tb)
	corpusOnce.Do(func() {
		for _, zp := range pkgs {
			p, err := zen.DecodePackage(zp.Name, zp.Data, nil)
			if err != nil {
				corpusErr = err
				return
			}
			corpusPkgs = append(corpusPkgs, corpusPackage{name: zp.Name, container: zp.Container, pkg: p})
		}
	})
	if corpusErr != nil {
		tb.Fatal(corpusErr)
	}
	return corpusPkgs
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
