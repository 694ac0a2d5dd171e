package convert

import (
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
