package iostore_test

import (
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
)

// TestVerifyContainerHeaderAgainstChunks builds 4.27 containers whose
// container header disagrees with the chunk table in one way each and
// checks that Verify names the disagreement.
func TestVerifyContainerHeaderAgainstChunks(t *testing.T) {
	const cid = 0x0123456789abcdef
	v := iostore.VersionPartitionSize
	pkgA, pkgB := tcData(1, 3000), tcData(2, 70000)
	entry := func(pid uint64, data []byte) iostorebuild.StoreEntry427 {
		return iostorebuild.StoreEntry427{PackageID: pid, ExportBundlesSize: uint64(len(data)), ExportCount: 1, ExportBundleCount: 1}
	}
	pkgChunk := func(pid uint64, data []byte) iostorebuild.Chunk {
		id, _ := iostore.NewChunkID(pid, 0, iostore.ChunkExportBundleData, v)
		return iostorebuild.Chunk{ID: id, Path: "Maps/" + string(rune('A'+pid)) + ".uasset", Data: data}
	}
	build := func(headerID uint64, entries []iostorebuild.StoreEntry427, chunks ...iostorebuild.Chunk) *iostorebuild.Container {
		hid, _ := iostore.NewChunkID(cid, 0, iostore.ChunkContainerHeader, v)
		chunks = append(chunks, iostorebuild.Chunk{ID: hid, Data: iostorebuild.ContainerHeader427(headerID, entries), Raw: true})
		return &iostorebuild.Container{Version: v, ContainerID: cid, MountPoint: "../../../Maine/Content/", Method: "Zlib", Chunks: chunks}
	}
	bigB := entry(2, pkgB)
	bigB.ExportBundlesSize++
	tests := []struct {
		name  string
		b     *iostorebuild.Container
		words []string // every word must appear in one problem; none for a sound container
	}{
		{"sound", build(cid, []iostorebuild.StoreEntry427{entry(1, pkgA), entry(2, pkgB)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)), nil},
		{"entry without chunk", build(cid, []iostorebuild.StoreEntry427{entry(1, pkgA), entry(2, pkgB), entry(3, pkgA)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"store entry 2", "0x0000000000000003", "no package chunk"}},
		{"chunk without entry", build(cid, []iostorebuild.StoreEntry427{entry(1, pkgA)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"chunk 1", "Maps/C.uasset", "no store entry", "cannot load"}},
		{"bundle size", build(cid, []iostorebuild.StoreEntry427{entry(1, pkgA), bigB}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"store entry 1", "ExportBundlesSize 70001", "70000 bytes"}},
		{"container id", build(cid+1, []iostorebuild.StoreEntry427{entry(1, pkgA), entry(2, pkgB)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"container id 0x0123456789abcdf0", "the TOC 0x0123456789abcdef"}},
		{"duplicate entry", build(cid, []iostorebuild.StoreEntry427{entry(1, pkgA), entry(2, pkgB), entry(1, pkgA)}, pkgChunk(1, pkgA), pkgChunk(2, pkgB)),
			[]string{"store entry 2", "also store entry 0"}},
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
