package zenbuild_test

import (
	"bytes"
	"testing"

	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestBuildEveryLayout builds a package with a class, its default object
// and a subobject in every layout: each decodes in canonical form, passes
// every check, and names its objects as the spec does.
func TestBuildEveryLayout(t *testing.T) {
	for l := zen.LayoutUE4; l <= zen.LayoutUE56; l++ {
		s := zenbuild.Spec{
			Name: "/Game/Items/BP_Crate", Layout: l, Versioned: l.IsUE5(),
			Imports:          []string{"/Script/Engine.BlueprintGeneratedClass", "/Script/Engine.Actor"},
			ImportedPackages: []string{"/Game/Items/BP_Base"},
			Exports: []zenbuild.Export{
				{Name: "BP_Crate_C", Class: "/Script/Engine.BlueprintGeneratedClass", Super: "/Script/Engine.Actor", Outer: -1, Flags: zen.FlagPublic | 0x8, Data: []byte("class data")},
				{Name: "Default__BP_Crate_C", Class: "#0", Outer: -1, Flags: zen.FlagPublic | zen.FlagClassDefaultObject, Data: []byte("defaults")},
				{Name: "Mesh", Class: "/Script/Engine.Actor", Outer: 1, Data: nil},
			},
		}
		data, err := zenbuild.Encode(s)
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		p, err := zen.DecodePackage("built", data, nil)
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		if p.Layout != l || len(p.KeptRaw()) > 0 || p.PackageName() != s.Name || p.ExportPath(2) != "/Game/Items/BP_Crate.Default__BP_Crate_C:Mesh" {
			t.Errorf("%v: layout %v, kept %v, name %q, path %q", l, p.Layout, p.KeptRaw(), p.PackageName(), p.ExportPath(2))
		}
		if !bytes.Equal(p.Exports[1].Data, []byte("defaults")) || (l.IsUE5() != (p.Versioning != nil)) {
			t.Errorf("%v: data %q, versioning %+v", l, p.Exports[1].Data, p.Versioning)
		}
		for _, q := range p.Problems(nil) {
			t.Errorf("%v: %s", l, q)
		}
	}
	if _, err := zenbuild.Encode(zenbuild.Spec{Name: "Game/X", Layout: zen.LayoutUE4}); err == nil {
		t.Error("a bad package name is accepted")
	}
	blob, err := zenbuild.Blob("/Game/Maps/Empty", zen.LayoutUE54, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := zen.DecodePackage("blob", blob, nil); err != nil || p.ExportPath(0) != "/Game/Maps/Empty.Empty" || string(p.Exports[0].Data) != "payload" {
		t.Errorf("Blob: %v", err)
	}
}
