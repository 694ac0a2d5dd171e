package iostore

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/unrmod/unrmod/iostore/zen"
)

// This file reads the zen packages a container holds: finding a package's
// chunk by name, id or path, decoding it, and the container's store
// entries for naming what packages import.

// PackageChunk returns the index of the package chunk (ExportBundleData,
// chunk index 0) of the package with id.
func (c *Container) PackageChunk(id zen.PackageID) (int, bool) {
	cid, err := NewChunkID(uint64(id), 0, ChunkExportBundleData, c.toc.Header.Version)
	if err != nil {
		return 0, false
	}
	return c.Find(cid)
}

// FindPackage returns the package chunk a user names: a long package name
// (/Game/Data/Table_Items), the chunk's path as ls shows it and extract
// writes it (UnrmodDemo/Content/Data/Table_Items.uasset, '\' accepted),
// that path without the extension, or the file name alone (Table_Items, with
// or without .uasset) when one package has it. Paths compare
// case-insensitively.
func (c *Container) FindPackage(name string) (int, error) {
	name = strings.ReplaceAll(strings.TrimSpace(name), `\`, "/")
	if strings.HasPrefix(name, "/") && zen.CheckPackageName(name) == nil {
		if i, ok := c.PackageChunk(zen.PackageIDFromName(name)); ok {
			return i, nil
		}
	}
	want := strings.ToLower(strings.TrimPrefix(name, "/"))
	c.pathsOnce.Do(func() { c.paths = c.packagePaths() })
	// The first package chunk whose path is the name; else the one whose
	// file name it is.
	if i, ok := c.paths.find(c.paths.byPath, want, func(i int) bool {
		shown, _ := c.OutputPath(i)
		for _, p := range []string{strings.ToLower(shown), strings.ToLower(c.chunks[i].Path)} {
			if p == want || trimExt(p) == want {
				return true
			}
		}
		return false
	}); ok {
		return i, nil
	}
	var base []string
	var baseIndex int
	if !strings.Contains(want, "/") {
		for _, i := range c.paths.candidates(c.paths.byBase, want) {
			shown, _ := c.OutputPath(i)
			if b := strings.ToLower(path.Base(shown)); b == want || trimExt(b) == want {
				base, baseIndex = append(base, shown), i
			}
		}
	}
	switch {
	case len(base) == 1:
		return baseIndex, nil
	case len(base) > 1:
		return 0, fmt.Errorf("%s: package %q is ambiguous: %s; give its path", c.file, name, strings.Join(base, ", "))
	}
	var close []string
	for i := range c.chunks {
		ch := &c.chunks[i]
		if len(close) == 8 {
			break
		}
		if ch.Type != ChunkExportBundleData || ch.Path == "" {
			continue
		}
		if shown, err := c.OutputPath(i); err == nil && strings.Contains(strings.ToLower(shown), strings.ToLower(path.Base(want))) {
			close = append(close, shown)
		}
	}
	msg := fmt.Sprintf("%s: no package %q (give a package name such as /Game/Data/Table_Items, a path 'unrmod ls' shows, or a file name that is unique)", c.file, name)
	if len(close) > 0 {
		msg += "; close matches: " + strings.Join(close, ", ")
	}
	return 0, fmt.Errorf("%s", msg)
}

// packagePaths finds package chunks by path for FindPackage, which would
// otherwise compute the path of every chunk for every name: a patch that
// names many packages of a container of many would cost their product.
// Keys are lower-case paths without their extension, so that each name
// has two candidate keys (itself, and itself without an extension);
// FindPackage checks each candidate against its rule.
type packagePaths struct {
	byPath map[string][]int // the shown path and the directory-index path
	byBase map[string][]int // the file name
}

// packagePaths indexes the package chunks that have a path.
func (c *Container) packagePaths() *packagePaths {
	x := &packagePaths{byPath: map[string][]int{}, byBase: map[string][]int{}}
	for i := range c.chunks {
		ch := &c.chunks[i]
		if ch.Type != ChunkExportBundleData || ch.Path == "" {
			continue
		}
		shown, err := c.OutputPath(i)
		if err != nil {
			continue
		}
		s, p := trimExt(strings.ToLower(shown)), trimExt(strings.ToLower(ch.Path))
		x.byPath[s] = append(x.byPath[s], i)
		if p != s {
			x.byPath[p] = append(x.byPath[p], i)
		}
		b := trimExt(strings.ToLower(path.Base(shown)))
		x.byBase[b] = append(x.byBase[b], i)
	}
	return x
}

// candidates returns the chunks of m that name may match, in chunk order:
// those keyed by name and by name without its extension.
func (x *packagePaths) candidates(m map[string][]int, name string) []int {
	a, b := m[name], m[trimExt(name)]
	if trimExt(name) == name {
		return a
	}
	out := make([]int, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// find returns the first candidate chunk of name in m that match accepts.
func (x *packagePaths) find(m map[string][]int, name string, match func(int) bool) (int, bool) {
	for _, i := range x.candidates(m, name) {
		if match(i) {
			return i, true
		}
	}
	return 0, false
}

// trimExt drops the extension of a slash-separated path's last element.
func trimExt(p string) string { return strings.TrimSuffix(p, path.Ext(p)) }

// ReadPackage reads and decodes the package in chunk i.
func (c *Container) ReadPackage(i int, opts *zen.DecodeOptions) (*zen.Package, error) {
	if i < 0 || i >= len(c.chunks) {
		return nil, fmt.Errorf("%s: chunk %d out of range (%d chunks)", c.file, i, len(c.chunks))
	}
	if err := c.checkReadable(i, zen.MaxPackageSize, "a zen package"); err != nil {
		return nil, err
	}
	data, err := c.ReadChunk(i)
	if err != nil {
		return nil, err
	}
	return zen.DecodePackage(c.PackageName(i), data, opts)
}

// PackageName returns how errors and reports name the package in chunk i:
// the container's file, ':' and the chunk's path as ls shows it (or its id
// when it has no path).
func (c *Container) PackageName(i int) string {
	if p, err := c.OutputPath(i); err == nil && c.chunks[i].Path != "" {
		return c.file + ":" + p
	}
	return c.file + ":" + c.chunks[i].ID.String()
}

// ContainerHeader reads and decodes the container's header chunk; it
// returns nil and no error when the container has none (global containers).
func (c *Container) ContainerHeader() (*zen.ContainerHeader, error) {
	k, ok := c.ContainerHeaderChunk()
	if !ok {
		return nil, nil
	}
	if err := c.checkReadable(k, zen.MaxContainerHeaderSize, "a container header"); err != nil {
		return nil, err
	}
	data, err := c.ReadChunk(k)
	if err != nil {
		return nil, err
	}
	return zen.DecodeContainerHeader(c.file, data)
}

// Resolver returns a zen.Resolver for the packages of c: store entries from
// its container header, imported packages read (once each) from c when it
// holds them, script imports named by script (nil: left as hashes).
// Packages that cannot be read are left unresolved.
func (c *Container) Resolver(script *zen.ScriptObjects) *zen.Resolver {
	var once sync.Once
	var index *zen.StoreIndex
	var mu sync.Mutex
	cache := map[zen.PackageID]*zen.Package{}
	return &zen.Resolver{
		Script: script,
		Entry: func(id zen.PackageID) *zen.StoreEntry {
			once.Do(func() {
				header, _ := c.ContainerHeader()
				index = header.Index() // read once, found in constant time
			})
			return index.Entry(id)
		},
		Package: func(id zen.PackageID) *zen.Package {
			mu.Lock()
			defer mu.Unlock()
			if p, ok := cache[id]; ok {
				return p
			}
			var p *zen.Package
			if i, ok := c.PackageChunk(id); ok {
				p, _ = c.ReadPackage(i, nil)
			}
			cache[id] = p
			return p
		},
	}
}
