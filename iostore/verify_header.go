package iostore

import (
	"sort"

	"github.com/unrmod/unrmod/iostore/zen"
)

// verifyHeaderChunk reads and decodes the container-header chunk for
// Verify: nil and no error when there is none or it cannot be read (the
// data checks report why), an error when it does not decode.
func (c *Container) verifyHeaderChunk() (*zen.ContainerHeader, error) {
	k, ok := c.ContainerHeaderChunk()
	if !ok || c.undecodable(k) != "" || !c.blocksPlaced(k) || c.checkReadable(k, zen.MaxContainerHeaderSize, "a container header") != nil {
		return nil, nil
	}
	data, err := c.ReadChunk(k)
	if err != nil {
		return nil, nil
	}
	return zen.DecodeContainerHeader(c.file, data)
}

// verifyContainerHeader decodes the container-header chunk and checks it
// against the TOC: its container id is the TOC's, every package in the
// store has its package chunk in this container and every package chunk has
// a store entry (what the loader needs to find and size it), no package is
// listed twice, and in 4.2x headers each entry's ExportBundlesSize is its
// package chunk's size. It does nothing when the container has no header
// chunk (global containers) or the chunk cannot be read; reading problems
// are reported by the data checks.
func (c *Container) verifyContainerHeader(add func(string, int64, string, ...any), h *zen.ContainerHeader, err error) {
	k, ok := c.ContainerHeaderChunk()
	if !ok {
		return
	}
	structure := c.chunkStruct(k)
	if err != nil {
		add(structure, -1, "container header does not decode: %s", formatMsg(err))
		return
	}
	if h == nil {
		return
	}
	for _, q := range h.Problems() {
		add(structure, -1, "container header %s", q.String())
	}
	if h.ContainerID != c.toc.Header.ContainerID {
		add(structure, -1, "container header says container id %v, the TOC %v", h.ContainerID, c.toc.Header.ContainerID)
	}
	v := c.toc.Header.Version
	listed := make(map[zen.PackageID]bool, len(h.Packages)+len(h.OptionalSegmentPackages))
	for _, e := range h.OptionalSegmentPackages {
		listed[e.PackageID] = true
	}
	for n, e := range h.Packages {
		listed[e.PackageID] = true
		id, err := NewChunkID(uint64(e.PackageID), 0, ChunkExportBundleData, v)
		if err != nil {
			continue
		}
		i, ok := c.Find(id)
		if !ok {
			add(structure, -1, "store entry %d (package %v) has no package chunk %v in this container", n, e.PackageID, id)
			continue
		}
		if h.Version == zen.HeaderUE4 && !h.CompactStoreEntries && e.ExportBundlesSize != c.chunks[i].Size {
			add(structure, -1, "store entry %d (package %v): ExportBundlesSize %d, its package chunk %d is %d bytes",
				n, e.PackageID, e.ExportBundlesSize, i, c.chunks[i].Size)
		}
	}
	var orphans []int
	for i := range c.chunks {
		ch := &c.chunks[i]
		if ch.Type == ChunkExportBundleData && ch.ID.Index(v) == 0 && !listed[ch.ID.PackageID()] {
			orphans = append(orphans, i)
		}
	}
	sort.Ints(orphans)
	for _, i := range orphans {
		add(c.chunkStruct(i), -1, "package %v has no store entry in the container header: the engine cannot load it", c.chunks[i].ID.PackageID())
	}
}
