package pkgschema_test

import (
	"sync"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// BenchmarkBlueprintObject reads the default object of a Blueprint class
// whose parent is another package's Blueprint class, from a fresh context
// each time (the two definitions are read each time); the baseline reads
// an object of a native class of the same package the same way.
func BenchmarkBlueprintObject(b *testing.B) {
	m := mappings(b)
	c := openContainer(b, unversionedFiles(b)[0])
	p := c.pkgs["/Game/Fixtures/Blueprints/BP_ComponentsChild"]
	cdo, native := -1, -1
	for i := range p.Exports {
		switch c.r.ClassName(p, i) {
		case "BP_ComponentsChild_C":
			cdo = i
		case "SceneComponent":
			native = i
		}
	}
	if cdo < 0 || native < 0 {
		b.Fatal("no default object or scene component")
	}
	for _, bc := range []struct {
		name string
		i    int
	}{{"blueprint", cdo}, {"native", native}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := zenprops.DecodeExportWith(p, c.r, bc.i, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestConcurrentSchema reads the schema of a Blueprint class and decodes
// its default object from many goroutines through one context (run with
// -race).
func TestConcurrentSchema(t *testing.T) {
	m := mappings(t)
	c := openContainer(t, unversionedFiles(t)[0])
	p := c.pkgs["/Game/Fixtures/Blueprints/BP_ComponentsChild"]
	cdo := -1
	for i := range p.Exports {
		if c.r.ClassName(p, i) == "BP_ComponentsChild_C" {
			cdo = i
		}
	}
	ctx, err := zenprops.ContextWith(p, c.r, cdo, m)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ctx.Schema.Schema("BP_ComponentsChild_C"); err != nil {
				errs <- err
			}
			if _, err := props.Decode(p.Exports[cdo].Data, ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
