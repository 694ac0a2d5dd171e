package patch

import (
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// TestContextLookup checks that the context's indexed lookup finds what
// Package.Lookup finds, for every path suffix of every object of the demo
// packages, in any case, and after names are added and objects renamed.
func TestContextLookup(t *testing.T) {
	for _, build := range []func(reader.Version) ([]byte, error){fixture.Demo, fixture.DemoMap} {
		data, err := build(reader.Version{File: 69})
		if err != nil {
			t.Fatal(err)
		}
		p, err := reader.Read("Demo.u", data)
		if err != nil {
			t.Fatal(err)
		}
		c := &legacyContext{p: p}
		check := func() {
			t.Helper()
			var paths []string
			for i := range p.Exports {
				paths = append(paths, p.ExportPath(i))
			}
			for i := range p.Imports {
				paths = append(paths, p.Path(reader.ImportRef(i)))
			}
			for _, full := range paths {
				parts := strings.Split(full, ".")
				for k := range parts {
					for _, q := range []string{strings.Join(parts[k:], "."), strings.ToUpper(strings.Join(parts[k:], "."))} {
						if got, want := c.lookup(q), p.Lookup(q); !slices.Equal(got, want) {
							t.Errorf("lookup(%q) = %v, Package.Lookup = %v", q, got, want)
						}
					}
				}
			}
		}
		check()
		// Add an import, and rename an export's name, as operations do.
		p.Imports = append(p.Imports, reader.Import{ClassPackage: c.addName("Core"), ClassName: c.addName("Package"), ObjectName: c.addName("Added")})
		check()
		c.setName(p.Exports[len(p.Exports)-1].ObjectName, "Renamed")
		c.objects = nil // as the operation loop does after a rename
		check()
	}
}
