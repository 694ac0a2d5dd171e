package convert

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// TestToLegacyUE427SplitBundles converts the Grounded tables together
// (ToZenSet), which splits the packages whose imports loop into several
// export bundles, and converts each split package back into a cooked
// asset (docs/convert.md §9.10): the asset's exports are the package's,
// EncodeLegacyChecked accepts it (it converts back into the package with
// its bundles merged), and converting the set again with that asset in
// place of the original gives the package again byte for byte, split into
// the same bundles.
func TestToLegacyUE427SplitBundles(t *testing.T) {
	in := groundedTables(t)
	so := global427(t)
	set := &SetOptions{Options: Options{ImportsFromBaseGame: true}}
	out, err := ToZenSet(in, set)
	if err != nil {
		t.Fatal(err)
	}
	split := 0
	for k, c := range out {
		if len(c.Package.Bundles) < 2 {
			continue
		}
		split++
		t.Run(c.Package.PackageName(), func(t *testing.T) {
			want, err := c.Package.Encode()
			if err != nil {
				t.Fatal(err)
			}
			p, err := zen.DecodePackage(in[k].Asset.FileName, want, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := &zen.ContainerHeader{Packages: []zen.StoreEntry{{PackageID: p.ID(), ImportedPackages: c.ImportedPackages,
				ExportCount: int32(len(p.Exports)), ExportBundleCount: int32(len(p.Bundles))}}}
			a, err := ToLegacy(p, &LegacyOptions{Engine: engine427, Imports: runSource{so, out}, ContainerHeader: h, FileName: in[k].Asset.FileName})
			if err != nil {
				t.Fatal(err)
			}
			hd, x, err := EncodeLegacyChecked(a, p)
			if err != nil {
				t.Fatal(err)
			}
			// What the merge does not cover is still compared: another
			// byte of export data, or a package's arcs from both a packed
			// bundle and −1, are refused.
			for _, edit := range []struct {
				name string
				f    func(q *zen.Package)
			}{
				{"export data", func(q *zen.Package) { q.Exports[0].Data[len(q.Exports[0].Data)-5] ^= 1 }},
				{"arcs from 0 and -1", func(q *zen.Package) {
					for i, g := range q.Graph {
						if g.Arcs[0].From >= 0 {
							q.Graph[i].Arcs = append([]zen.Arc{{From: -1, To: g.Arcs[0].To}}, g.Arcs...)
							return
						}
					}
					t.Fatal("no arc from a packed package")
				}},
			} {
				q, err := zen.DecodePackage(in[k].Asset.FileName, bytes.Clone(want), nil)
				if err != nil {
					t.Fatal(err)
				}
				edit.f(q)
				if _, _, err := EncodeLegacyChecked(a, q); !errors.Is(err, ErrNotConvertible) {
					t.Errorf("%s changed: %v, want %v", edit.name, err, ErrNotConvertible)
				}
			}
			// Streamed from the package's source, the same check.
			ps, err := zen.DecodePackageStream(in[k].Asset.FileName, bytes.NewReader(want), int64(len(want)), nil)
			if err != nil {
				t.Fatal(err)
			}
			as, err := ToLegacy(ps, &LegacyOptions{Engine: engine427, Imports: runSource{so, out}, ContainerHeader: h, FileName: in[k].Asset.FileName})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := EncodeLegacyStreamChecked(as, ps); err != nil {
				t.Fatal(err)
			}
			back, err := uasset.Decode(a.FileName, hd, x, &uasset.Options{Release: a.Release})
			if err != nil {
				t.Fatal(err)
			}
			// The exports' data in the bundles' concatenated order.
			var order []int
			for _, e := range p.BundleEntries {
				if e.Command == zen.CommandSerialize {
					order = append(order, int(e.Export))
				}
			}
			for i, e := range order {
				if !bytes.Equal(back.Exports[e].Data, p.Exports[e].Data) {
					t.Errorf("export %d (%d. serialized): data differs", e, i)
				}
			}
			// The set converted again with the asset gives the same split.
			again := slices.Clone(in)
			again[k] = Asset{Asset: back}
			out2, err := ToZenSet(again, set)
			if err != nil {
				t.Fatal(err)
			}
			got, err := out2[k].Package.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the set converted with the asset gives another package (%d bytes, %d): bundles %v, want %v; graph %v, want %v",
					len(got), len(want), out2[k].Package.Bundles, c.Package.Bundles, out2[k].Package.Graph, c.Package.Graph)
			}
		})
	}
	if split == 0 {
		t.Fatal("no package of the set is split: the rule is not exercised")
	}
}

// runSource serves the script objects and the packages converted in one
// run, as the container they are packed in would.
type runSource struct {
	s   *zen.ScriptObjects
	run []Converted
}

func (r runSource) ScriptObjects() *zen.ScriptObjects { return r.s }
func (r runSource) Package(name string) (*zen.Package, error) {
	for _, c := range r.run {
		if strings.EqualFold(c.Package.PackageName(), name) {
			return c.Package, nil
		}
	}
	return nil, nil
}

// TestMergeBundles checks the normalization the check compares against:
// one bundle holding every entry in order, arcs to bundle 0 (from 0 for a
// package of the run, −1 kept), unique and sorted; a one-bundle package
// is returned as it is.
func TestMergeBundles(t *testing.T) {
	in := groundedTables(t)
	out, err := ToZenSet(in, &SetOptions{Options: Options{ImportsFromBaseGame: true}})
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, c := range out {
		p := c.Package
		m := MergeBundles(p)
		if len(p.Bundles) < 2 {
			if m != p {
				t.Errorf("%s: a package of one bundle is not returned as it is", p.PackageName())
			}
			continue
		}
		tested++
		if len(m.Bundles) != 1 || m.Bundles[0].FirstEntry != 0 || int(m.Bundles[0].EntryCount) != len(p.BundleEntries) {
			t.Errorf("%s: merged bundles %v for %d entries", p.PackageName(), m.Bundles, len(p.BundleEntries))
		}
		if len(m.Graph) != len(p.Graph) {
			t.Fatalf("%s: %d graph packages, want %d", p.PackageName(), len(m.Graph), len(p.Graph))
		}
		for i, g := range m.Graph {
			var want []zen.Arc
			for _, a := range p.Graph[i].Arcs {
				x := zen.Arc{From: 0}
				if a.From < 0 {
					x.From = a.From
				}
				if !slices.Contains(want, x) {
					want = append(want, x)
				}
			}
			slices.SortFunc(want, func(x, y zen.Arc) int { return int(x.From - y.From) })
			if g.Package != p.Graph[i].Package || fmt.Sprint(g.Arcs) != fmt.Sprint(want) {
				t.Errorf("%s: graph %v %v, want %v %v", p.PackageName(), g.Package, g.Arcs, p.Graph[i].Package, want)
			}
		}
		// The original is left as it is.
		if len(p.Bundles) < 2 {
			t.Errorf("%s: the original's bundles were changed", p.PackageName())
		}
	}
	if tested == 0 {
		t.Fatal("no package of the set is split")
	}
}
