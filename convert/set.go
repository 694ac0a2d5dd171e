package convert

import (
	"cmp"

	"runtime"
	"slices"
	"sync"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// Asset is one cooked asset of a set ToZenSet converts together.
type Asset struct {
	// Asset is the decoded cooked asset (.uasset/.umap with its .uexp).
	Asset *uasset.Package
	// PackageName is its long package name, e.g. "/Game/Data/DT_Items";
	// when empty it is taken from the asset as Options.PackageName says.
	PackageName string
}

// Converted is one package ToZenSet made, with what the container's store
// entry for it holds beyond the package itself.
type Converted struct {
	Package *zen.Package
	// ImportedPackages are the ids of the packages it imports, in the
	// order the engine's store entry lists them: for 4.26/4.27 one per
	// package in the import map, in import-map order (duplicates kept,
	// as IoStoreUtilities adds them); for UE5 the package's imported
	// packages.
	ImportedPackages []zen.PackageID
	// LoadOrder is, for 4.26/4.27, the place of the package's first export
	// bundle in the set's load order, which the engine writes in the store
	// entry; 0 for UE5, whose store entries have none.
	LoadOrder uint32
}

// SetOptions configure ToZenSet.
type SetOptions struct {
	// Engine and ImportsFromBaseGame are as for ToZen; ImportsFromBaseGame
	// applies to the packages outside the set (inside it the arcs name
	// the bundles the set's load order gives). PackageName is not used:
	// each Asset carries its own.
	Options
	// Jobs is how many assets are converted at once; 0 means one per CPU.
	Jobs int
	// Progress, when not nil, is called after each asset is converted,
	// with how many are done, from one goroutine at a time.
	Progress func(done int)
}

// ToZenSet converts cooked assets together, as the engine's packer
// converts the packages of one run. For UE 5.3 and later each package is
// its own (ToZen). For 4.26/4.27 the packages of a set depend on each
// other: the load order of every export of the set is computed at once
// (IoStoreUtilities' FExportGraph::ComputeLoadOrder), a package gets a new
// export bundle each time that order comes back to it after another
// package's exports, and a dependency on another package of the set is an
// arc from the bundle its export landed in (docs/convert.md §3.4–3.5).
// Dependencies on packages outside the set are arcs from bundle −1 (with
// ImportsFromBaseGame, as the engine writes for them) or 0.
//
// The result is in the order of assets. Two assets of one package name are
// refused, as are the refusals of ToZen and a loop of dependencies across
// packages, which no load order satisfies.
func ToZenSet(assets []Asset, opts *SetOptions) ([]Converted, error) {
	var o SetOptions
	if opts != nil {
		o = *opts
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	res := make([]prepared, len(assets))
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	work := make(chan int)
	for w := 0; w < min(jobs, max(len(assets), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				res[i].ue5, res[i].ue4, res[i].err = prepare(assets[i], o.Options)
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range assets {
		work <- i
	}
	close(work)
	wg.Wait()

	out := make([]Converted, len(assets))
	var ue4 []*ue4Package
	var at []int
	seen := map[zen.PackageID]int{}
	for i, r := range res {
		if r.err != nil {
			return nil, r.err
		}
		var id zen.PackageID
		if r.ue5 != nil {
			id = r.ue5.ID()
			out[i].Package = r.ue5
			for _, n := range r.ue5.ImportedPackages {
				out[i].ImportedPackages = append(out[i].ImportedPackages, zen.PackageIDFromName(n.String()))
			}
		} else {
			id = r.ue4.id
			ue4 = append(ue4, r.ue4)
			at = append(at, i)
		}
		if j, dup := seen[id]; dup {
			return nil, errorf(assets[i].Asset.FileName, "package name", ErrNotConvertible,
				"it is package %s, as is %s: one package cannot be converted twice", packageNameOf(r), assets[j].Asset.FileName)
		}
		seen[id] = i
	}
	if len(ue4) > 0 {
		conv, err := setUE4(ue4, o.Options)
		if err != nil {
			return nil, err
		}
		for k, c := range conv {
			out[at[k]] = c
		}
	}
	return out, nil
}

// prepared is an asset of a set after its own part of the conversion.
type prepared struct {
	ue5 *zen.Package // a UE5 package, whole
	ue4 *ue4Package  // or a 4.26/4.27 package before the set's graph
	err error
}

func packageNameOf(r prepared) string {
	if r.ue5 != nil {
		return r.ue5.PackageName()
	}
	return r.ue4.s.name
}

// prepare converts one asset of a set: a UE5 package whole, a 4.26/4.27
// package up to its set-wide graph.
func prepare(in Asset, o Options) (*zen.Package, *ue4Package, error) {
	o.PackageName = in.PackageName
	s, engine, err := sourceOf(in.Asset, &o)
	if err != nil {
		return nil, nil, err
	}
	if engine.Layout() == zen.LayoutUE4 {
		u, err := s.prepareUE4()
		return nil, u, err
	}
	p, err := s.toUE5(engine)
	return p, nil, err
}

// ue4Package is a 4.26/4.27 package of a set before its export graph is
// sorted with the others'.
type ue4Package struct {
	s        *source
	p        *zen.Package
	id       zen.PackageID
	g        *graph          // the internal arcs, local node numbers
	deps     []importDep     // dependencies on other packages' objects, in the packer's order
	imported []zen.PackageID // package imports, in import-map order
}

// importDep is a preload dependency of node to on an object of another
// package: its from phase, the import's global index and its package.
type importDep struct {
	to    int
	from  uint32
	index zen.ObjectIndex
	pkg   zen.PackageID
}

// setUE4 sorts the export graphs of a set of 4.26/4.27 packages together
// and gives each its bundles and graph data (IoStoreUtilities'
// AddPreloadDependencies, ComputeLoadOrder and BuildBundles).
func setUE4(pkgs []*ue4Package, o Options) ([]Converted, error) {
	// The packer holds its packages sorted by id; nodes are numbered per
	// package from base.
	order := make([]int, len(pkgs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(pkgs[a].id, pkgs[b].id) })
	byID := make(map[zen.PackageID]int, len(pkgs))
	base := make([]int, len(pkgs))
	total := 0
	type exportRef struct{ pkg, export int }
	public := map[zen.ObjectIndex]exportRef{}
	for _, k := range order {
		u := pkgs[k]
		byID[u.id] = k
		base[k] = total
		total += len(u.g.in)
		for e, x := range u.p.Exports {
			if x.PublicExportHash != uint64(zen.NullObject) {
				public[zen.ObjectIndex(x.PublicExportHash)] = exportRef{k, e}
			}
		}
	}
	owner := make([]int, total) // node → package
	for k, u := range pkgs {
		for v := range u.g.in {
			owner[base[k]+v] = k
		}
	}
	edges := make([][]int, total)
	in := make([]int, total)
	external := make([][]int, total)           // node → the other packages' nodes it waits for
	baseGame := make([][]zen.PackageID, total) // node → packages outside the set it waits for
	for _, k := range order {
		u := pkgs[k]
		for v, ws := range u.g.edges {
			for _, w := range ws {
				edges[base[k]+v] = append(edges[base[k]+v], base[k]+w)
				in[base[k]+w]++
			}
		}
		outside := map[zen.PackageID]bool{}
		for _, d := range u.deps {
			to := base[k] + d.to
			if ref, ok := public[d.index]; ok && ref.pkg != k {
				from := base[ref.pkg] + node(ref.export, d.from)
				edges[from] = append(edges[from], to)
				in[to]++
				external[to] = append(external[to], from)
				continue
			}
			if !outside[d.pkg] {
				outside[d.pkg] = true
				baseGame[to] = append(baseGame[to], d.pkg)
			}
		}
	}

	// The packages in import order: a depth-first walk from each package
	// (in id order) to the packages importing it (in id order), reversed.
	importers := make([][]int, len(pkgs))
	for k, u := range pkgs {
		for _, id := range u.imported {
			if j, ok := byID[id]; ok {
				importers[j] = append(importers[j], k)
			}
		}
	}
	for j := range importers {
		slices.SortStableFunc(importers[j], func(a, b int) int { return cmp.Compare(pkgs[a].id, pkgs[b].id) })
	}
	var sorted []int
	mark := make([]uint8, len(pkgs)) // 1 visiting, 2 done
	var visit func(k int)
	visit = func(k int) {
		if mark[k] != 0 {
			return
		}
		mark[k] = 1
		for _, j := range importers[k] {
			visit(j)
		}
		mark[k] = 2
		sorted = append(sorted, k)
	}
	for _, k := range order {
		visit(k)
	}
	slices.Reverse(sorted)

	// The load order: each package in turn gives every node of its own that
	// waits for nothing, lowest export index and Create first, until all
	// are given.
	ready := make([]*nodeQueue, len(pkgs))
	for k := range pkgs {
		ready[k] = &nodeQueue{byIndex: true}
	}
	for v := 0; v < total; v++ {
		if in[v] == 0 {
			ready[owner[v]].push(v)
		}
	}
	loadOrder := make([]int, 0, total)
	for len(loadOrder) < total {
		before := len(loadOrder)
		for _, k := range sorted {
			for ready[k].Len() > 0 {
				v := ready[k].pop()
				loadOrder = append(loadOrder, v)
				for _, w := range edges[v] {
					if in[w]--; in[w] == 0 {
						ready[owner[w]].push(w)
					}
				}
			}
		}
		if len(loadOrder) == before {
			return nil, errorf(pkgs[owner[firstWaiting(in)]].s.file, "preload dependencies", ErrNotConvertible,
				"the exports' dependencies form a loop (within the package or across the %d packages converted together): no load order satisfies them", len(pkgs))
		}
	}

	// BuildBundles: a new bundle each time the order moves to another
	// package; arcs from the bundles the dependencies landed in.
	bundleOf := make([]int32, total)
	first := make([]uint32, len(pkgs))
	arcs := make([]map[zen.PackageID][]zen.Arc, len(pkgs))
	last := -1
	var counter uint32
	for _, v := range loadOrder {
		k := owner[v]
		u := pkgs[k]
		p := u.p
		if k != last {
			if len(p.Bundles) == 0 {
				first[k] = counter
			}
			p.Bundles = append(p.Bundles, zen.ExportBundle{FirstEntry: uint32(len(p.BundleEntries))})
			counter++
			last = k
		}
		b := int32(len(p.Bundles) - 1)
		bundleOf[v] = b
		addArc := func(id zen.PackageID, from int32) {
			if arcs[k] == nil {
				arcs[k] = map[zen.PackageID][]zen.Arc{}
			}
			a := zen.Arc{From: from, To: b}
			if !slices.Contains(arcs[k][id], a) {
				arcs[k][id] = append(arcs[k][id], a)
			}
		}
		for _, w := range external[v] {
			addArc(pkgs[owner[w]].id, bundleOf[w])
		}
		for _, id := range baseGame[v] {
			addArc(id, o.importedBundleOf(id))
		}
		local := v - base[k]
		p.BundleEntries = append(p.BundleEntries, zen.BundleEntry{Export: uint32(local / 2), Command: uint32(local % 2)})
		p.Bundles[b].EntryCount++
	}

	out := make([]Converted, len(pkgs))
	for k, u := range pkgs {
		p := u.p
		for id, as := range arcs[k] {
			slices.SortFunc(as, func(x, y zen.Arc) int {
				if c := cmp.Compare(x.From, y.From); c != 0 {
					return c
				}
				return cmp.Compare(x.To, y.To)
			})
			p.Graph = append(p.Graph, zen.GraphPackage{Package: id, Arcs: as})
		}
		slices.SortFunc(p.Graph, func(x, y zen.GraphPackage) int { return cmp.Compare(x.Package, y.Package) })
		out[k] = Converted{Package: p, ImportedPackages: u.imported, LoadOrder: first[k]}
	}
	return out, nil
}

// firstWaiting returns the first node still waiting for another.
func firstWaiting(in []int) int {
	for v, n := range in {
		if n > 0 {
			return v
		}
	}
	return 0
}

// sourceOf checks a and prepares it for conversion as ToZen does,
// returning the target engine.
func sourceOf(a *uasset.Package, o *Options) (*source, zen.Engine, error) {
	if a == nil {
		return nil, zen.Engine{}, errorf("", "asset", ErrNotConvertible, "no asset given")
	}
	if !cooked(a) {
		flag := "PKG_Cooked"
		if !ue5(a) {
			flag = "PKG_FilterEditorOnly"
		}
		return nil, zen.Engine{}, errorf(a.FileName, "package file summary", ErrNotCooked,
			"package flags 0x%08X lack %s: an editor asset holds editor-only data a game cannot load; cook it first", a.Summary.PackageFlags, flag)
	}
	engine, err := TargetEngine(a, o.Engine)
	if err != nil {
		return nil, zen.Engine{}, err
	}
	l := engine.Layout()
	if l != zen.LayoutUE4 && l < zen.LayoutUE53 {
		return nil, zen.Engine{}, errorf(a.FileName, "package", ErrUnsupportedEngine,
			"converting to UE %s zen packages (layout %v) is not done: this package converts to 4.26, 4.27 and 5.3 and later", engine, l)
	}
	if a, err = settled(a); err != nil {
		return nil, zen.Engine{}, err
	}
	name, err := packageName(a, o.PackageName)
	if err != nil {
		return nil, zen.Engine{}, err
	}
	s, err := newSource(a, name)
	if err != nil {
		return nil, zen.Engine{}, err
	}
	return s, engine, nil
}
