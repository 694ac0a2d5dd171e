package convert

import (
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/uasset"
)

// groundedTables reads the cooked DataTables of a real Grounded (UE 4.27)
// pak mod, several of which import each other.
func groundedTables(t *testing.T) []Asset {
	t.Helper()
	r, err := pak.Open(corpus.Path(t, "other/grounded/500-CreativeUnlock_P.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var in []Asset
	for _, f := range r.Files {
		if path.Ext(f.Path) != ".uasset" {
			continue
		}
		h, err := f.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		x, err := r.ReadFile(strings.TrimSuffix(f.Path, ".uasset") + ".uexp")
		if err != nil {
			t.Fatal(err)
		}
		a, err := uasset.Decode(f.Path, h, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, Asset{Asset: a})
	}
	if len(in) < 2 {
		t.Fatalf("%d cooked assets in the Grounded pak mod", len(in))
	}
	return in
}

// TestToZenSetUE4 converts the Grounded tables together and checks, from
// the legacy assets alone, what the set decides: every preload dependency
// on an export of another package of the set is an arc from the bundle
// that export's node landed in to the bundle of the dependent node; every
// dependency on a package outside it an arc from bundle −1; bundles
// partition the load order; the imported packages are the import map's
// packages in order; and the packages whose imports loop are split.
func TestToZenSetUE4(t *testing.T) {
	in := groundedTables(t)
	calls := 0
	out, err := ToZenSet(in, &SetOptions{Options: Options{ImportsFromBaseGame: true}, Jobs: 3, Progress: func(done int) {
		if calls++; done != calls {
			t.Errorf("progress %d at call %d", done, calls)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != len(in) {
		t.Errorf("%d progress calls for %d assets", calls, len(in))
	}
	type ref struct {
		pkg    int
		export int
	}
	public := map[uint64]ref{}
	byID := map[zen.PackageID]int{}
	for k, c := range out {
		checkOutput(t, c.Package)
		byID[c.Package.ID()] = k
		for e, x := range c.Package.Exports {
			if x.PublicExportHash != uint64(zen.NullObject) {
				public[x.PublicExportHash] = ref{k, e}
			}
		}
	}
	bundleOf := func(p *zen.Package, export int, cmd uint32) int32 {
		for b, bd := range p.Bundles {
			for _, e := range p.BundleEntries[bd.FirstEntry : bd.FirstEntry+bd.EntryCount] {
				if int(e.Export) == export && e.Command == cmd {
					return int32(b)
				}
			}
		}
		t.Fatalf("%s: export %d command %d is in no bundle", p.PackageName(), export, cmd)
		return 0
	}
	split, inSet := 0, 0
	orders := map[uint32]bool{}
	for k, c := range out {
		a, p := in[k].Asset, c.Package
		if orders[c.LoadOrder] {
			t.Errorf("%s: load order %d is another package's", p.PackageName(), c.LoadOrder)
		}
		orders[c.LoadOrder] = true
		if len(p.Bundles) > 1 {
			split++
		}
		n := uint32(0)
		for _, b := range p.Bundles {
			if b.FirstEntry != n {
				t.Errorf("%s: bundles do not follow each other", p.PackageName())
			}
			n += b.EntryCount
		}
		if int(n) != len(p.BundleEntries) || len(p.BundleEntries) != 2*len(a.Exports) {
			t.Errorf("%s: bundles hold %d of %d entries for %d exports", p.PackageName(), n, len(p.BundleEntries), len(a.Exports))
		}
		var want []zen.PackageID
		for _, im := range a.Imports {
			if n := a.NameOf(im.ObjectName); im.OuterIndex == 0 && !strings.HasPrefix(n, "/Script/") {
				want = append(want, zen.PackageIDFromName(n))
			}
		}
		if !slices.Equal(c.ImportedPackages, want) {
			t.Errorf("%s: imported packages %v, want %v", p.PackageName(), c.ImportedPackages, want)
		}
		arcs := map[zen.PackageID][]zen.Arc{}
		for _, g := range p.Graph {
			arcs[g.Package] = g.Arcs
		}
		for i, le := range a.Exports {
			if le.FirstExportDependency < 0 {
				continue
			}
			at := int(le.FirstExportDependency)
			for _, r := range []struct {
				n        int32
				from, to uint32
			}{
				{le.SerializationBeforeSerializationDependencies, zen.CommandSerialize, zen.CommandSerialize},
				{le.CreateBeforeSerializationDependencies, zen.CommandCreate, zen.CommandSerialize},
				{le.SerializationBeforeCreateDependencies, zen.CommandSerialize, zen.CommandCreate},
				{le.CreateBeforeCreateDependencies, zen.CommandCreate, zen.CommandCreate},
			} {
				for _, d := range a.PreloadDependencies[at : at+int(r.n)] {
					if !d.IsImport() || p.Imports[d.Import()].Kind() != zen.KindPackageImport {
						continue
					}
					to := bundleOf(p, i, r.to)
					h := cityhash.PackageImportIndex(fullImportName(a, d.Import()))
					if x, ok := public[h]; ok {
						inSet++
						q := out[x.pkg].Package
						arc := zen.Arc{From: bundleOf(q, x.export, r.from), To: to}
						if !slices.Contains(arcs[q.ID()], arc) {
							t.Errorf("%s: export %d waits for %s export %d: no arc %+v in %v", p.PackageName(), i, q.PackageName(), x.export, arc, arcs[q.ID()])
						}
						continue
					}
					id := zen.PackageIDFromName(a.NameOf(a.Imports[outermost(a, d.Import())].ObjectName))
					if _, packed := byID[id]; packed {
						continue // a non-public object of a packed package
					}
					if g := arcs[id]; len(g) == 0 || g[0].From != -1 {
						t.Errorf("%s: export %d waits for %v outside the set: arcs %v, want from bundle -1", p.PackageName(), i, id, g)
					}
				}
				at += int(r.n)
			}
		}
	}
	if split == 0 || inSet == 0 {
		t.Errorf("%d packages split, %d dependencies within the set: the set's rules are not exercised", split, inSet)
	}

	// Converting a package of the set alone gives it one bundle and arcs
	// from bundle −1 for every package it depends on.
	for k, c := range out {
		if len(c.Package.Bundles) < 2 {
			continue
		}
		alone, err := ToZenSet(in[k:k+1], &SetOptions{Options: Options{ImportsFromBaseGame: true}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(alone[0].Package.Bundles); n != 1 {
			t.Errorf("%s alone: %d bundles", c.Package.PackageName(), n)
		}
	}
}

func outermost(a *uasset.Package, i int) int {
	for n := 0; a.Imports[i].OuterIndex != 0 && n < len(a.Imports); n++ {
		i = a.Imports[i].OuterIndex.Import()
	}
	return i
}

func fullImportName(a *uasset.Package, i int) string {
	var parts []string
	for n := 0; n <= len(a.Imports); n++ {
		im := a.Imports[i]
		parts = append([]string{a.NameOf(im.ObjectName)}, parts...)
		if im.OuterIndex == 0 {
			break
		}
		i = im.OuterIndex.Import()
	}
	return strings.ToLower(strings.Join(parts, "/"))
}

func TestToZenSetRefuses(t *testing.T) {
	in := groundedTables(t)
	_, err := ToZenSet([]Asset{in[0], in[1], {Asset: in[0].Asset, PackageName: ""}}, nil)
	if !errors.Is(err, ErrNotConvertible) || !strings.Contains(err.Error(), "one package cannot be converted twice") {
		t.Errorf("one package twice: %v", err)
	}
	_, err = ToZenSet([]Asset{in[0], {Asset: in[1].Asset, PackageName: "no/slash"}}, nil)
	if !errors.Is(err, ErrNotConvertible) {
		t.Errorf("bad package name: %v", err)
	}
	if out, err := ToZenSet(nil, nil); err != nil || len(out) != 0 {
		t.Errorf("empty set: %v, %v", out, err)
	}
}
