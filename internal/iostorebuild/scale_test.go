package iostorebuild

import (
	"fmt"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestManyPackages builds the scaling benchmark's containers for UE 4.27
// and 5.5 and checks that each verifies (every package decodes, checks
// against its store entry and is listed in the header), holds n packages
// and their bulk data under the expected paths, and finds each package by
// its name.
func TestManyPackages(t *testing.T) {
	for _, tc := range []struct {
		engine zen.Engine
		n      int
	}{
		{zen.Engine427, 1},
		{zen.Engine427, 120},
		{zen.Engine{Major: 5, Minor: 5}, 250},
	} {
		t.Run(fmt.Sprintf("%v/%d", tc.engine, tc.n), func(t *testing.T) {
			b, err := ManyPackages("Scale", tc.n, tc.engine)
			if err != nil {
				t.Fatal(err)
			}
			utoc, err := b.WriteFiles(t.TempDir(), "Scale")
			if err != nil {
				t.Fatal(err)
			}
			c, err := iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r := c.Verify(nil)
			if !r.OK() {
				t.Fatalf("%d problems, the first: %v", len(r.Problems), r.Problems[0])
			}
			if r.PackagesChecked != tc.n {
				t.Errorf("%d packages checked, want %d", r.PackagesChecked, tc.n)
			}
			h, err := c.ContainerHeader()
			if err != nil || len(h.Packages) != tc.n || h.Version != tc.engine.HeaderVersion() {
				t.Fatalf("header %v, %v", h, err)
			}
			bulk := 0
			for _, ch := range c.Chunks() {
				if ch.Type == iostore.ChunkBulkData {
					bulk++
				}
			}
			if want := (tc.n + ManyPackagesBulkEvery - 1) / ManyPackagesBulkEvery; bulk != want {
				t.Errorf("%d bulk chunks, want %d", bulk, want)
			}
			for _, k := range []int{0, tc.n / 2, tc.n - 1} {
				i, err := c.FindPackage(ManyPackageName(k))
				if err != nil {
					t.Fatal(err)
				}
				p, err := c.ReadPackage(i, nil)
				if err != nil || p.PackageName() != ManyPackageName(k) || p.Layout != tc.engine.Layout() {
					t.Fatalf("package %d: %v, %v", k, p, err)
				}
			}
		})
	}
}
