package pack

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
)

// CookedAsset is a cooked asset for ConvertCooked: its .uasset or .umap
// file (the .uexp is read from beside it) and its long package name.
type CookedAsset struct {
	Path    string
	Package string
}

// CookedPackage is a cooked asset converted to the zen package the
// engine's packer makes of it, with the store entry fields the conversion
// gives.
type CookedPackage struct {
	// Data is the package chunk, checked (convert.EncodeChecked).
	Data []byte
	// Package is Data decoded.
	Package *zen.Package
	// ImportedPackages and LoadOrder are convert.Converted's: the store
	// entry's imported packages in the engine's order and, for 4.26/4.27,
	// the load order of the package's first bundle among the converted
	// packages.
	ImportedPackages []zen.PackageID
	LoadOrder        uint32
}

// ConvertOptions configure ConvertCooked.
type ConvertOptions struct {
	// Engine is the release the packages are for.
	Engine zen.Engine
	// Jobs is how many assets are read, converted and encoded at once; 0
	// means one per CPU.
	Jobs int
	// ImportsInContainer says that the packages outside the set the assets
	// depend on are packed in the same container, one export bundle each
	// (arcs from bundle 0), rather than the game's (bundle −1).
	ImportsInContainer bool
	// Progress, when not nil, is called from one goroutine at a time with
	// the number of assets done (read and converted, then encoded: each
	// asset counts twice) and the total (twice the number of assets).
	Progress func(done, total int)
}

// ConvertCooked reads cooked assets and converts them together
// (convert.ToZenSet), as the engine's packer converts the packages of one
// run: for 4.26/4.27 their export bundles and the arcs between them
// depend on each other, and a dependency on a package outside the set is
// an arc from bundle −1, which the engine writes for a package it does not
// pack (the game's, for a mod), unless ImportsInContainer. The result is in
// the order of assets.
func ConvertCooked(assets []CookedAsset, opts *ConvertOptions) ([]CookedPackage, error) {
	var o ConvertOptions
	if opts != nil {
		o = *opts
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	total := 2 * len(assets)
	var mu sync.Mutex
	done := 0
	step := func() {
		if o.Progress == nil {
			return
		}
		mu.Lock()
		done++
		o.Progress(done, total)
		mu.Unlock()
	}
	var aopts *uasset.Options
	if r := (uasset.Release{Major: o.Engine.Major, Minor: o.Engine.Minor}); r != (uasset.Release{}) {
		if _, ok := uasset.ReleaseFileVersion(r); ok {
			aopts = &uasset.Options{Release: r}
		}
	}
	in := make([]convert.Asset, len(assets))
	err := parallel(len(assets), jobs, func(i int) error {
		a, err := readCooked(assets[i].Path, aopts)
		if err != nil {
			return err
		}
		in[i] = convert.Asset{Asset: a, PackageName: assets[i].Package}
		return nil
	})
	if err != nil {
		return nil, err
	}
	conv, err := convert.ToZenSet(in, &convert.SetOptions{
		Options:  convert.Options{Engine: o.Engine, ImportsFromBaseGame: !o.ImportsInContainer},
		Jobs:     jobs,
		Progress: func(int) { step() },
	})
	if err != nil {
		return nil, err
	}
	out := make([]CookedPackage, len(assets))
	err = parallel(len(assets), jobs, func(i int) error {
		b, err := convert.EncodeChecked(assets[i].Path, conv[i].Package)
		if err != nil {
			return err
		}
		p, err := zen.DecodePackage(assets[i].Path, b, &zen.DecodeOptions{Layout: conv[i].Package.Layout})
		if err != nil {
			return err
		}
		out[i] = CookedPackage{Data: b, Package: p, ImportedPackages: conv[i].ImportedPackages, LoadOrder: conv[i].LoadOrder}
		step()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readCooked reads the cooked asset at path with the .uexp beside it.
func readCooked(path string, opts *uasset.Options) (*uasset.Package, error) {
	f, err := ufile.Open(path, nil)
	if err != nil {
		return nil, err
	}
	if f.Kind != ufile.CookedAsset {
		return nil, fmt.Errorf("%s: %s, not a cooked asset (.uasset/.umap with its .uexp)", path, f.Kind)
	}
	a, err := f.Asset(opts)
	if err != nil && opts != nil {
		// A versioned asset, or one the release hint does not fit, is
		// read as it says it is; ToZen checks the release.
		if b, err2 := f.Asset(nil); err2 == nil {
			return b, nil
		}
	}
	return a, err
}

// parallel runs f for 0..n-1 on up to jobs goroutines and returns the
// error of the lowest index that failed.
func parallel(n, jobs int, f func(i int) error) error {
	errs := make([]error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(jobs, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	return firstErr(errs)
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// IsCooked reports whether data, the contents of a .uasset or .umap, is a
// cooked asset in the legacy format (the package file tag) rather than a
// zen package.
func IsCooked(data []byte) bool { return bytes.HasPrefix(data, legacyTag) }
