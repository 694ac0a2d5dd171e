package convert

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
)

// ErrNoPackages means ConvertAll found no package to convert: the
// container holds none, or none matches the filter.
var ErrNoPackages = errors.New("no package to convert")

// ConvertAllOptions configures ContainerSet.ConvertAll.
type ConvertAllOptions struct {
	// Engine is the release the packages were cooked by (see
	// LegacyOptions.Engine).
	Engine zen.Engine
	// Filter selects packages by their output path (the path
	// iostore.Container.OutputPath gives the package chunk, e.g.
	// "Game/Content/Maps/Arena.umap"); nil selects every package.
	Filter func(outPath string) bool
	// Workers is the number of packages converted at once; 0 means
	// GOMAXPROCS.
	Workers int
	// Progress, when set, is called with the packages done so far and
	// the total, after each package. Calls are serialized.
	Progress func(done, total int)
	// Session, when set, locks the output folder for the run and tracks
	// the temporary files (an interrupt removes them).
	Session *safefile.Session
}

// PackageConversion is what ConvertAll did with one package.
type PackageConversion struct {
	// Path is the asset's path relative to the output folder,
	// '/'-separated: the package chunk's output path.
	Path string
	// Package is the long package name (empty when the package did not
	// decode) and PackageID its id.
	Package   string
	PackageID zen.PackageID
	// Files are the files written, relative to the output folder: the
	// asset, its .uexp and its bulk data files.
	Files []string
	// Size is the bytes written.
	Size int64
	// Err is why the package was refused; nil when it converted.
	Err error
}

// ConvertAllResult says what ConvertAll did, package by package in the
// container's TOC order.
type ConvertAllResult struct {
	Converted []PackageConversion
	Refused   []PackageConversion
}

// ConvertAll converts every package of the set's first container (its
// ExportBundleData chunks) into the cooked asset ToLegacy makes, written
// under dir at the package chunk's output path (as iostore's Extract
// writes the zen package) with its .uexp and bulk data files, converting
// opts.Workers packages at once.
//
// A package that cannot be converted (imports no container of the set
// names, a package that does not decode) is refused: it is listed in
// Refused with the reason, and the others go on. An error that concerns
// every package (ErrUnsupportedEngine, for an engine to give) or the
// writing itself stops the run, and nothing is written.
//
// Every asset is verified before it is written (EncodeLegacyChecked).
// Nothing is written outside dir: paths are checked and a symbolic link
// on the way is refused. All files are written under temporary names and
// renamed together once every package is done; each is then read back
// and compared with what was written. A failed run removes the folders
// it created.
//
// The set's containers and Source are safe for concurrent use; ConvertAll
// reads them from several goroutines.
func (s *ContainerSet) ConvertAll(dir string, opts *ConvertAllOptions) (_ *ConvertAllResult, err error) {
	var o ConvertAllOptions
	if opts != nil {
		o = *opts
	}
	c := s.Containers[0]
	type job struct {
		chunk int
		out   string // output path of the asset
	}
	var jobs []job
	seen := map[string]string{} // folded file name → path
	res := &ConvertAllResult{}
	var early []PackageConversion // refused before converting, by TOC order
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		p, err := c.OutputPath(i)
		if err == nil && ch.Path == "" {
			err = fmt.Errorf("%s: the package chunk has no path in the directory index, so no asset path", c.PackageName(i))
		}
		if o.Filter != nil && (err != nil || !o.Filter(p)) {
			continue
		}
		if err == nil {
			err = checkAssetPath(dir, p)
		}
		if err == nil {
			for _, f := range companionPaths(p) {
				k := safefile.FoldName(f)
				if other, dup := seen[k]; dup {
					err = fmt.Errorf("%s: the output %s of package chunk %d is also the output %s of another package", c.File(), f, i, other)
					break
				}
				seen[k] = f
			}
		}
		if err != nil {
			early = append(early, PackageConversion{Path: p, PackageID: ch.ID.PackageID(), Err: err})
			continue
		}
		jobs = append(jobs, job{i, p})
	}
	if len(jobs) == 0 && len(early) == 0 {
		return nil, fmt.Errorf("%s: %w", c.File(), ErrNoPackages)
	}
	if o.Session != nil {
		locks, err := o.Session.Lock(safefile.Use{Path: dir, Write: true})
		if err != nil {
			return nil, err
		}
		defer locks.Release()
	}
	var paths []string
	for _, j := range jobs {
		paths = append(paths, companionPaths(j.out)...)
	}
	created := safefile.NewDirs(dir, paths)
	batch := &safefile.Batch{Session: o.Session}
	defer func() {
		if err != nil {
			batch.Abort()
			safefile.RemoveDirs(created)
		}
	}()

	type written struct {
		rel  string
		sum  [32]byte
		size int
	}
	results := make([]PackageConversion, len(jobs))
	sums := make([][]written, len(jobs))
	var (
		mu       sync.Mutex
		firstErr error
		failed   atomic.Bool
		done     int
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		failed.Store(true)
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				if failed.Load() {
					continue
				}
				j := jobs[n]
				r := &results[n]
				r.Path = j.out
				r.PackageID = c.Chunks()[j.chunk].ID.PackageID()
				files, err := s.convertOne(c, j.chunk, j.out, o.Engine, r)
				switch {
				case errors.Is(err, ErrUnsupportedEngine):
					fail(err)
				case err != nil:
					r.Err = err
				default:
					for _, f := range files {
						if err := batch.Add(filepath.Join(dir, filepath.FromSlash(f.rel)), f.data, 0o644); err != nil {
							fail(err)
							break
						}
						r.Files = append(r.Files, f.rel)
						r.Size += int64(len(f.data))
						sums[n] = append(sums[n], written{f.rel, sha256.Sum256(f.data), len(f.data)})
					}
					for _, b := range companionPaths(j.out)[2:] {
						if !slices.Contains(r.Files, b) {
							batch.Remove(filepath.Join(dir, filepath.FromSlash(b))) // no stale bulk data beside the new asset
						}
					}
				}
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(jobs))
					mu.Unlock()
				}
			}
		}()
	}
	for n := range jobs {
		next <- n
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := batch.Commit(); err != nil {
		return nil, err
	}
	for _, ws := range sums {
		for _, w := range ws {
			name := filepath.Join(dir, filepath.FromSlash(w.rel))
			back, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("reading back %s: %w", name, err)
			}
			if sha256.Sum256(back) != w.sum {
				return nil, fmt.Errorf("%s: the file read back differs from what was written (%d bytes, want %d)", name, len(back), w.size)
			}
		}
	}
	all := append(results, early...)
	slices.SortStableFunc(all, func(a, b PackageConversion) int { return cmpPath(a.Path, b.Path) })
	for _, r := range all {
		if r.Err != nil {
			res.Refused = append(res.Refused, r)
		} else {
			res.Converted = append(res.Converted, r)
		}
	}
	return res, nil
}

func cmpPath(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// outFile is one file of a converted package.
type outFile struct {
	rel  string
	data []byte
}

// convertOne converts package chunk i of c into the files of the asset at
// out, filling r's package name.
func (s *ContainerSet) convertOne(c *iostore.Container, i int, out string, engine zen.Engine, r *PackageConversion) ([]outFile, error) {
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		return nil, err
	}
	r.Package = p.PackageName()
	r.PackageID = p.ID()
	bulk, err := bulkOf(c, p)
	if err != nil {
		return nil, err
	}
	a, err := ToLegacy(p, &LegacyOptions{Engine: engine, Imports: s.Source, FileName: path.Base(out)})
	if err != nil {
		return nil, err
	}
	head, uexp, err := EncodeLegacyChecked(a, p)
	if err != nil {
		return nil, err
	}
	names := companionPaths(out)
	files := []outFile{{names[0], head}, {names[1], uexp}}
	for k, b := range [][]byte{bulk.Ubulk, bulk.Uptnl, bulk.MUbulk} {
		if b != nil {
			files = append(files, outFile{names[2+k], b})
		}
	}
	return files, nil
}

// companionPaths returns the '/'-separated paths of the asset at p: the
// asset, its .uexp, .ubulk, .uptnl and .m.ubulk.
func companionPaths(p string) []string {
	n := uasset.CompanionNames(p)
	return []string{p, n.Uexp, n.Ubulk, n.Uptnl, n.MUbulk}
}

// checkAssetPath refuses an output path that would leave dir: one that is
// not a plain relative path, or has a symbolic link on the way (which
// safefile.Batch would write through).
func checkAssetPath(dir, p string) error {
	for _, f := range companionPaths(p) {
		if err := safefile.CheckRelPath(f); err != nil {
			return fmt.Errorf("output path %q: %v; refusing to write outside %s", f, err, dir)
		}
		if err := safefile.CheckNameLengths(f); err != nil {
			return fmt.Errorf("output path %q: %v", f, err)
		}
	}
	for q := p; q != "."; q = path.Dir(q) {
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(q)))
		if err != nil {
			continue
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("output path %q: %s is a symbolic link; refusing to write through it", p, q)
		}
	}
	for _, f := range companionPaths(p)[1:] {
		if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f))); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("output path %q: %s is a symbolic link; refusing to write through it", p, f)
		}
	}
	return nil
}
