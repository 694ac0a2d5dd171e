package convert

import (
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/uasset"
)

// TestClasses4GeneratedClass gives a package import whose class its hash
// does not keep, a Blueprint's generated class sorted before the native
// classes the package imports, the class the cooker gave it. Both
// BlueprintGeneratedClass and Class fit where the cooker's sort put it and
// end in "Class"; only the first can be the class of a package's object
// (Grounded's EQ_StaticObstacleTargetLocation imports
// EnvQueryContext_TargetLocation_C so, and was refused for want of an
// "Object" name before).
func TestClasses4GeneratedClass(t *testing.T) {
	so, err := iostore.LoadScriptObjectsFrom(corpus.Path(t, "other/ue4_27_global_chunks"), nil)
	if err != nil {
		t.Fatal(err)
	}
	n4 := newNames4([]string{"/Game/AI/Ctx", "/Script/AIModule", "/Script/CoreUObject", "/Script/Engine",
		"BlueprintGeneratedClass", "Class", "Ctx_C", "EnvQuery", "Package"})
	b := &legacyBuilder{legacy: []legacyImport{
		{object: plain("Ctx_C"), outer: uasset.PackageIndex(-3)},
		{object: plain("EnvQuery"), classPackage: plain(coreUObject), className: plain("Class"), outer: uasset.PackageIndex(-4), script: true},
		{object: plain("/Game/AI/Ctx"), classPackage: plain(coreUObject), className: plain("Package")},
		{object: plain("/Script/AIModule"), classPackage: plain(coreUObject), className: plain("Package"), script: true},
	}}
	if err := b.classes4(so, n4); err != nil {
		t.Fatal(err)
	}
	if got := b.legacy[0]; got.classPackage.text != "/Script/Engine" || got.className.text != "BlueprintGeneratedClass" || got.unknownClass {
		t.Errorf("Ctx_C's class: %s.%s (unknown %v), want /Script/Engine.BlueprintGeneratedClass", got.classPackage.text, got.className.text, got.unknownClass)
	}
}
