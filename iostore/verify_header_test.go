package iostore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestVerifyContainerHeaderAgainstChunks builds 4.27 containers whose
// container header disagrees with the chunk table in one way each and
// checks that Verify names the disagreement.
func TestVerifyContainerHeaderAgainstChunks(t *testing.T) {
	const cid = 0x0123456789abcdef
	v := iostore.VersionPartitionSize
	// Packages B and C (ids 1 and 2 below), and D, which has no chunk.
	names := []string{"", "/Game/Maps/B", "/Game/Maps/C", "/Game/Maps/D"}
	pid := func(n uint64) uint64 { return uint64(zen.PackageIDFromName(names[n])) }
	pkgA, pkgB := tcPackage(t, v, names[1], tcData(1, 3000)), tcPackage(t, v, names[2], tcData(2, 70000))
	entry := func(n uint64, data []byte) zen.StoreEntry {
		return zen.StoreEntry{PackageID: zen.PackageID(pid(n)), ExportBundlesSize: uint64(len(data)), ExportCount: 1, ExportBundleCount: 1}
	}
	pkgChunk := func(n uint64, data []byte) iostorebuild.Chunk {
		id, _ := iostore.NewChunkID(pid(n), 0, iostore.ChunkExportBundleData, v)
		return iostorebuild.Chunk{ID: id, Path: "Maps/" + string(rune('A'+n)) + ".uasset", Data: data}
	}
	build := func(headerID uint64, entries []zen.StoreEntry, chunks ...iostorebuild.Chunk) *iostorebuild.Container {
		hid, _ := iostore.NewChunkID(cid, 0, iostore.ChunkContainerHeader, v)
		chunks = append(chunks, iostorebuild.Chunk{ID: hid, Data: iostorebuild.ContainerHeader427(headerID, entries), Raw: true})
		return &iostorebuild.Container{Version: v, ContainerID: cid, MountPoint: "../../../Maine/Content/", Method: "Zlib", Chunks: chunks}
	}
	pkgUE5 := tcPackage(t, iostore.VersionReplaceIoChunkHashWithIoHash, names[2], tcData(2, 500))
	bigB := entry(2, pkgB)
	bigB.ExportBundlesSize++
	tests := []struct {
		name  string
		b     *iostorebuild.Container
		words []string // every word must appear in one problem; none for a sound container
	}{
		{"sound", build(cid, []zen.StoreEntry{entry(1, pkgA), entry(2, pkgB)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)), nil},
		{"entry without chunk", build(cid, []zen.StoreEntry{entry(1, pkgA), entry(2, pkgB), entry(3, pkgA)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"store entry 2", zen.PackageIDFromName(names[3]).String(), "no package chunk"}},
		{"chunk without entry", build(cid, []zen.StoreEntry{entry(1, pkgA)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"chunk 1", "Maps/C.uasset", "no store entry", "cannot load"}},
		{"bundle size", build(cid, []zen.StoreEntry{entry(1, pkgA), bigB}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"store entry 1", fmt.Sprintf("ExportBundlesSize %d", len(pkgB)+1), fmt.Sprintf("%d bytes", len(pkgB))}},
		{"container id", build(cid+1, []zen.StoreEntry{entry(1, pkgA), entry(2, pkgB)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"container id 0x0123456789abcdf0", "the TOC 0x0123456789abcdef"}},
		{"duplicate entry", build(cid, []zen.StoreEntry{entry(1, pkgA), entry(2, pkgB), entry(1, pkgA)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"store entry 2", "also store entry 0"}},
		{"package of another engine", build(cid, []zen.StoreEntry{entry(1, pkgA), entry(2, pkgUE5)}, pkgChunk(1, pkgA), pkgChunk(2, pkgUE5)),
			[]string{"chunk 1", "laid out for UE 5.6+", "version -1 UE4", "UE 4.25–4.27", "UE 4.26–4.27"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tcBuildOpen(t, tt.b, "z_Mod_P", nil)
			r := c.Verify(nil)
			if tt.words == nil {
				if !r.OK() {
					t.Fatalf("problems in a sound container: %v", r.Problems)
				}
				return
			}
			for _, q := range r.Problems {
				s, all := q.String(), true
				for _, w := range tt.words {
					all = all && strings.Contains(s, w)
				}
				if all {
					return
				}
			}
			t.Errorf("no problem names %q; got %v", tt.words, r.Problems)
		})
	}
}
