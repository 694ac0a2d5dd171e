package convert

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// ContainerSource is the ImportSource of a game's container set: the
// script objects of its global.utoc and the packages of its containers,
// decoded when first asked for. It is safe for concurrent use.
type ContainerSource struct {
	script     *zen.ScriptObjects
	containers []*iostore.Container

	mu    sync.Mutex
	cache map[zen.PackageID]*zen.Package

	classesOnce sync.Once
	classes     map[zen.ObjectIndex]bool

	headersOnce sync.Once
	headers     []*zen.ContainerHeader
}

// importedPackages returns the imported packages the store entry of
// package id lists in the first container header that holds it (4.26/4.27
// store entries list them in import-map order).
func (s *ContainerSource) importedPackages(id zen.PackageID) ([]zen.PackageID, bool) {
	s.headersOnce.Do(func() {
		for _, c := range s.containers {
			if h, err := c.ContainerHeader(); err == nil && h != nil {
				s.headers = append(s.headers, h)
			}
		}
	})
	for _, h := range s.headers {
		if ids, ok := storeImports(h, id); ok {
			return ids, true
		}
	}
	return nil, false
}

// storeImports returns the imported packages of package id's store entry
// in h.
func storeImports(h *zen.ContainerHeader, id zen.PackageID) ([]zen.PackageID, bool) {
	for _, se := range h.Packages {
		if se.PackageID == id {
			return se.ImportedPackages, true
		}
	}
	return nil, false
}

func (s *ContainerSource) scriptClasses() map[zen.ObjectIndex]bool {
	s.classesOnce.Do(func() { s.classes = scriptClasses(s.script) })
	return s.classes
}

// NewContainerSource returns the source of script objects script (nil:
// none) and the packages of containers, searched in order. The
// containers stay the caller's to close.
func NewContainerSource(script *zen.ScriptObjects, containers ...*iostore.Container) *ContainerSource {
	return &ContainerSource{script: script, containers: containers, cache: map[zen.PackageID]*zen.Package{}}
}

// ScriptObjects returns the script objects given to NewContainerSource.
func (s *ContainerSource) ScriptObjects() *zen.ScriptObjects { return s.script }

// Package returns the package named name from the first container that
// holds it, or nil when none does.
func (s *ContainerSource) Package(name string) (*zen.Package, error) {
	id := zen.PackageIDFromName(name)
	s.mu.Lock()
	p, ok := s.cache[id]
	s.mu.Unlock()
	if ok {
		return p, nil
	}
	for _, c := range s.containers {
		i, ok := c.PackageChunk(id)
		if !ok {
			continue
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.cache[id] = p
		s.mu.Unlock()
		return p, nil
	}
	return nil, nil
}

// ContainerSet is a game's containers opened together: every .utoc in a
// folder, with the script objects of the global.utoc there or in the
// folder above (where a game's Paks folder keeps it when its containers
// sit in subfolders).
type ContainerSet struct {
	// Containers are the opened containers, the one asked for first.
	Containers []*iostore.Container
	// Global is the global.utoc whose script objects were read, or "".
	Global string
	// Source names imports from the set.
	Source *ContainerSource
}

// OpenContainerSet opens utoc and every other .utoc beside it, and reads
// the script objects of the global.utoc beside it or in the folder above.
// Containers that do not open (an encrypted one without its key) are
// left out; the one asked for must open. Close the set when done.
func OpenContainerSet(utoc string, opts *iostore.Options) (*ContainerSet, error) {
	first, err := iostore.Open(utoc, opts)
	if err != nil {
		return nil, err
	}
	set := &ContainerSet{Containers: []*iostore.Container{first}}
	dir := filepath.Dir(utoc)
	others, _ := filepath.Glob(filepath.Join(dir, "*.utoc"))
	for _, o := range others {
		if sameName(o, utoc) || strings.EqualFold(filepath.Base(o), "global.utoc") {
			continue
		}
		if c, err := iostore.Open(o, opts); err == nil {
			set.Containers = append(set.Containers, c)
		}
	}
	var script *zen.ScriptObjects
	for _, g := range []string{filepath.Join(dir, "global.utoc"), filepath.Join(filepath.Dir(dir), "global.utoc")} {
		if _, err := os.Stat(g); err != nil {
			continue
		}
		if script, err = iostore.LoadScriptObjects(g, opts); err != nil {
			set.Close()
			return nil, err
		}
		set.Global = g
		break
	}
	set.Source = NewContainerSource(script, set.Containers...)
	return set, nil
}

func sameName(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// Close closes the set's containers.
func (s *ContainerSet) Close() error {
	var first error
	for _, c := range s.Containers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Bulk are a package's bulk data files: its bulk-data chunks as the
// cooked asset's .ubulk, .uptnl and .m.ubulk hold them (nil: none).
type Bulk struct {
	Ubulk, Uptnl, MUbulk []byte
}

// Package returns the package a user names (as iostore's FindPackage
// takes it) from the set's first container, with its bulk data chunks.
func (s *ContainerSet) Package(name string) (*zen.Package, *Bulk, error) {
	c := s.Containers[0]
	i, err := c.FindPackage(name)
	if err != nil {
		return nil, nil, err
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		return nil, nil, err
	}
	b, err := bulkOf(c, p)
	if err != nil {
		return nil, nil, err
	}
	return p, b, nil
}

// bulkOf reads package p's bulk data chunks from c.
func bulkOf(c *iostore.Container, p *zen.Package) (*Bulk, error) {
	b := &Bulk{}
	for _, k := range []struct {
		t   iostore.ChunkType
		dst *[]byte
	}{{iostore.ChunkBulkData, &b.Ubulk}, {iostore.ChunkOptionalBulkData, &b.Uptnl}, {iostore.ChunkMemoryMappedBulkData, &b.MUbulk}} {
		id, err := iostore.NewChunkID(uint64(p.ID()), 0, k.t, c.Header().Version)
		if err != nil {
			continue // a chunk type the container's version does not have
		}
		if j, ok := c.Find(id); ok {
			if *k.dst, err = c.ReadChunk(j); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}
