package assetprops_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/usmap"
)

// blueprintObject says whether export i of p is an object of a Blueprint
// class: its class is a class p defines, or one another game package
// defines.
func blueprintObject(p *zen.Package, r *zen.Resolver, i int) bool {
	c := p.Exports[i].Class
	if c.Kind() == zen.KindExport {
		return true
	}
	path := r.Object(p, c)
	return strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "/Script/") && strings.HasSuffix(path, "_C")
}

// TestUnversionedBlueprintObjects reads every object of a Blueprint class
// in the fixture project's unversioned containers — a class the mappings
// lack, whose schema the package (and for a Blueprint parent, the parent's
// package) defines: each decodes, encodes back to its bytes (with the
// header as read and as the engine builds it) and reads as its tagged
// twin does.
func TestUnversionedBlueprintObjects(t *testing.T) {
	tagged := zenDocuments(t, nil)
	script, err := iostore.LoadScriptObjects(corpus.Path(t, taggedGlobal), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := fixtureMappings(t)["CUE4ParseFixtures-Brotli.usmap"]
	for _, file := range corpusGlob(t, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc") {
		c, err := iostore.Open(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := c.Resolver(script)
		n := 0
		for k, ch := range c.Chunks() {
			if ch.Type != iostore.ChunkExportBundleData {
				continue
			}
			p, err := c.ReadPackage(k, nil)
			if err != nil {
				t.Fatal(err)
			}
			var list []int
			for i := range p.Exports {
				if !blueprintObject(p, r, i) {
					continue
				}
				list = append(list, i)
				path := p.ExportPath(i)
				if m.Struct(r.ClassName(p, i)) != nil {
					t.Fatalf("%s: the mappings hold its class %s", path, r.ClassName(p, i))
				}
				x, err := zenprops.DecodeExportWith(p, r, i, m)
				if err != nil {
					t.Errorf("%s: %v", path, err)
					continue
				}
				data := p.Exports[i].Data
				if b, err := props.Encode(x.Properties, x.Context); err != nil || string(b) != string(data) {
					t.Errorf("%s: encodes to %d bytes of %d (%v)", path, len(b), len(data), err)
				}
				x.Properties.Header = nil
				if b, err := props.Encode(x.Properties, x.Context); err != nil || string(b) != string(data) {
					t.Errorf("%s: a header built anew differs (%v)", path, err)
				}
				n++
			}
			if len(list) == 0 {
				continue
			}
			got, err := report.NewZenProperties(taggedContainer, p, r, list, false, "", m)
			if err != nil {
				t.Fatal(err)
			}
			want := tagged[p.PackageName()]
			for _, g := range got.Exports {
				found := false
				for _, w := range want.Exports {
					if w.Path == g.Path {
						found = true
						g.Index = w.Index
						if a, b := exportJSON(t, w), exportJSON(t, g); a != b {
							t.Errorf("%s differs from its tagged twin:\n%s\n%s", g.Path, a, b)
						}
					}
				}
				if !found {
					t.Errorf("%s has no tagged twin", g.Path)
				}
			}
		}
		if n < 3 {
			t.Errorf("%s: %d Blueprint objects", filepath.Base(file), n)
		}
		t.Logf("%s: %d objects of Blueprint classes read, encode back and read as their tagged twins", filepath.Base(file), n)
	}
}

// TestUnversionedBlueprintAssets converts the fixture's unversioned
// Blueprint packages into cooked assets and reads their class default
// objects with assetprops: a class whose super is native reads from the
// asset alone; one whose super is another asset's Blueprint class is
// refused, naming that asset's package, until a schema source with a
// loader of that asset is given.
func TestUnversionedBlueprintAssets(t *testing.T) {
	tagged := zenDocuments(t, nil)
	script, err := iostore.LoadScriptObjects(corpus.Path(t, taggedGlobal), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := fixtureMappings(t)["CUE4ParseFixtures-Zstandard.usmap"]
	c, err := iostore.Open(corpusGlob(t, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc")[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	engine, err := zen.ParseEngine("5.8")
	if err != nil {
		t.Fatal(err)
	}
	assets := map[string]*uasset.Package{}
	for _, name := range []string{"BP_Fixture", "BP_Components", "BP_ComponentsChild"} {
		i, err := c.FindPackage("/Game/Fixtures/Blueprints/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := convert.ToLegacy(p, &convert.LegacyOptions{Engine: engine, Imports: convert.NewContainerSource(script, c)})
		if err != nil {
			t.Fatal(err)
		}
		if !a.UnversionedProperties() {
			t.Fatalf("%s: the asset is not unversioned", name)
		}
		assets[a.Summary.PackageName] = a
	}
	cdo := func(a *uasset.Package) int {
		for i := range a.Exports {
			if strings.HasPrefix(a.NameOf(a.Exports[i].ObjectName), "Default__") {
				return i
			}
		}
		t.Fatalf("%s has no class default object", a.FileName)
		return -1
	}
	check := func(a *uasset.Package, i int, x *props.Export) {
		t.Helper()
		if b, err := props.Encode(x.Properties, x.Context); err != nil || string(b) != string(a.Exports[i].Data) {
			t.Errorf("%s: encodes to %d bytes of %d (%v)", a.FileName, len(b), len(a.Exports[i].Data), err)
		}
	}
	for _, name := range []string{"/Game/Fixtures/Blueprints/BP_Fixture", "/Game/Fixtures/Blueprints/BP_Components"} {
		a := assets[name]
		i := cdo(a)
		x, err := assetprops.DecodeExportWith(a, i, m)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		check(a, i, x)
		d, err := report.NewCookedProperties(a.FileName, a, "", []int{i}, false, "", m)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tagged[name].Exports {
			if w.Path == d.Exports[0].Path {
				d.Exports[0].Index = w.Index
				if a, b := exportJSON(t, w), exportJSON(t, d.Exports[0]); a != b {
					t.Errorf("%s differs from its tagged twin:\n%s\n%s", w.Path, a, b)
				}
			}
		}
	}
	child := assets["/Game/Fixtures/Blueprints/BP_ComponentsChild"]
	i := cdo(child)
	_, err = assetprops.DecodeExportWith(child, i, m)
	if !errors.Is(err, usmap.ErrMissing) || !strings.Contains(err.Error(), "package /Game/Fixtures/Blueprints/BP_Components,") {
		t.Errorf("the child without its parent's asset: %v", err)
	}
	load := func(name string) (*uasset.Package, error) { return assets[name], nil }
	withParent := m.With(assetprops.SchemaSource(child, m, load))
	x, err := assetprops.DecodeExportWith(child, i, withParent)
	if err != nil {
		t.Fatalf("the child with its parent's asset: %v", err)
	}
	check(child, i, x)
	if slots, err := x.Context.Schema.Schema("BP_ComponentsChild_C"); err != nil || slots[0].Property.Name != "FixtureMesh" {
		t.Errorf("the child's schema: %v", err)
	}
}
