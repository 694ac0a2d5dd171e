package iostore_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// List a container's chunks, then read one of its zen packages by name.
func ExampleOpen() {
	c, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, ch := range c.Chunks() {
		fmt.Println(strings.TrimSpace(fmt.Sprint(ch.ID, " ", ch.Type, " ", ch.Size, " ", ch.Path)))
	}
	i, err := c.FindPackage("/Game/Data/DT_DemoItems")
	if err != nil {
		log.Fatal(err)
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.PackageName(), len(p.Exports), "export")
	r := c.Verify(nil)
	fmt.Println(r.OK(), r.HashesChecked, r.PackagesChecked)
	// Output:
	// 0x9863134f24658d2000000002 ExportBundleData 6995 Maps/DemoArena.umap
	// 0x9863134f24658d2000000003 BulkData 150000 Maps/DemoArena.ubulk
	// 0x44042d289a96a0c700000002 ExportBundleData 1658 Items/BP_DemoPickup.uasset
	// 0x48e0a67010313e4d00000002 ExportBundleData 1346 Data/DT_DemoItems.uasset
	// 0xc6a980169cd8cb860000000a ContainerHeader 164
	// /Game/Data/DT_DemoItems 1 export
	// true 5 3
}

// Write a container: one chunk from data, compressed with Zlib on all
// cores, and one copied block for block from another container.
func ExampleNewWriter() {
	dir, err := os.MkdirTemp("", "unrmod-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()

	w, err := iostore.NewWriter(filepath.Join(dir, "z_Example_P.utoc"), &iostore.WriterOptions{
		Version: iostore.VersionPartitionSize, // UE 4.27
		Method:  "Zlib",
	})
	if err != nil {
		log.Fatal(err)
	}
	id, _ := iostore.NewChunkID(0x1234, 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
	if err := w.AddChunk(id, "UnrmodDemo/Content/Extra.ubulk", strings.NewReader(strings.Repeat("unrmod ", 20000))); err != nil {
		w.Abort()
		log.Fatal(err)
	}
	i, _ := src.FindPackage("DT_DemoItems")
	if err := w.CopyChunk(src, i, "UnrmodDemo/Content/Data/DT_DemoItems.uasset"); err != nil {
		w.Abort()
		log.Fatal(err)
	}
	if err := w.Close(); err != nil { // read back and verified before it is renamed into place
		log.Fatal(err)
	}

	c, err := iostore.Open(filepath.Join(dir, "z_Example_P.utoc"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println(c.MountPoint())
	for _, ch := range c.Chunks() {
		fmt.Println(ch.Type, ch.Size, ch.Path)
	}
	// Output:
	// ../../../UnrmodDemo/Content/
	// BulkData 140000 Extra.ubulk
	// ExportBundleData 1346 Data/DT_DemoItems.uasset
}

// Write a container again without changes: the preserve layout gives the
// same bytes.
func ExampleRewrite() {
	dir, err := os.MkdirTemp("", "unrmod-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	out := filepath.Join(dir, "UnrmodDemo427_P.utoc")
	res, err := iostore.Rewrite(src, out, nil, &iostore.RewriteOptions{Layout: iostore.Preserve})
	if err != nil {
		log.Fatal(err)
	}
	a, _ := os.ReadFile("../examples/containers/UnrmodDemo427_P.utoc")
	b, _ := os.ReadFile(out)
	fmt.Println(res.Chunks, res.Copied, bytes.Equal(a, b))
	// Output:
	// 5 5 true
}

// Decode a .utoc and write it again: an unchanged TOC comes out byte for
// byte; counts follow the slices, so edits need no header bookkeeping.
func ExampleTOC_AppendBinary() {
	data, err := os.ReadFile("../examples/containers/UnrmodDemo427_P.utoc")
	if err != nil {
		log.Fatal(err)
	}
	t, err := iostore.DecodeTOC("UnrmodDemo427_P.utoc", data)
	if err != nil {
		log.Fatal(err)
	}
	out, err := t.AppendBinary(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(t.ChunkIDs), "chunks,", len(out), "bytes, identical:", bytes.Equal(out, data))

	// Drop the last chunk (the blocks stay where they are).
	n := len(t.ChunkIDs) - 1
	t.ChunkIDs, t.OffsetLengths, t.Metas = t.ChunkIDs[:n], t.OffsetLengths[:n], t.Metas[:n]
	out, err = t.AppendBinary(nil)
	if err != nil {
		log.Fatal(err)
	}
	d, err := iostore.DecodeTOC("Edited.utoc", out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Header.TocEntryCount, "chunks,", len(out), "bytes")

	// A model the format cannot hold is refused, naming the field.
	t.Blocks[0].Method = 9
	_, err = t.AppendBinary(nil)
	fmt.Println(errors.Is(err, iostore.ErrNotEncodable), err)
	// Output:
	// 5 chunks, 808 bytes, identical: true
	// 4 chunks, 753 bytes
	// true UnrmodDemo427_P.utoc: compression block 0: method index 9, but the TOC names 1 methods
}

// Build a directory index the way the engine's writer does, from full
// paths: the mount point is their common directory.
func ExampleNewDirectoryIndex() {
	paths := []string{
		"../../../Maine/Content/Maps/Arena.umap",
		"../../../Maine/Content/Items/Sword.uasset",
		"../../../Maine/Content/Items/Shield.uasset",
	}
	mount := iostore.CommonMountPoint(paths)
	var files []iostore.IndexedFile
	for chunk, p := range paths {
		files = append(files, iostore.IndexedFile{Path: p[len(mount):], Chunk: uint32(chunk)})
	}
	x, err := iostore.NewDirectoryIndex(mount, files)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(x.MountPoint, x.StringTable, x.Size, "bytes")
	for _, f := range x.Files {
		fmt.Println(f.Chunk, f.Path)
	}
	index, err := x.AppendBinary(nil) // the TOC's DirectoryIndex (pad and encrypt it for an encrypted container)
	fmt.Println(len(index), err)

	_, err = iostore.NewDirectoryIndex(mount, []iostore.IndexedFile{{Path: "Maps/../../Secret.uasset"}})
	fmt.Println(err)
	// Output:
	// ../../../Maine/Content/ [Maps Arena.umap Items Sword.uasset Shield.uasset] 193 bytes
	// 2 Items/Shield.uasset
	// 1 Items/Sword.uasset
	// 0 Maps/Arena.umap
	// 193 <nil>
	// directory index file 0 ("Maps/../../Secret.uasset"): path component ".."
}

// Compute the engine's perfect-hash tables for a set of chunk ids: slot
// tells where each chunk must go in the TOC.
func ExampleBuildPerfectHash() {
	v := iostore.VersionReplaceIoChunkHashWithIoHash
	var ids []iostore.ChunkID
	for _, name := range []string{"/Game/Maps/Arena", "/Game/Items/Sword", "/Game/Items/Shield", "/Game/Data/Items"} {
		id, err := iostore.NewChunkID(uint64(zen.PackageIDFromName(name)), 0, iostore.ChunkExportBundleData, v)
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, id)
	}
	seeds, overflow, slot, err := iostore.BuildPerfectHash(ids)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("seeds", seeds, "overflow", overflow, "slots", slot)

	// Four slots are few: a hash modulo 4 depends only on the seed modulo 4,
	// so three ids sharing a bucket find no seed and overflow, as they would
	// in the engine. The lookup finds them through the overflow list.
	t := &iostore.TOC{
		Header:   iostore.Header{Version: v},
		ChunkIDs: make([]iostore.ChunkID, len(ids)), PerfectHashSeeds: seeds, ChunksWithoutPerfectHash: overflow,
	}
	for i, s := range slot {
		t.ChunkIDs[s] = ids[i]
	}
	for _, id := range ids {
		k, ok := t.LookupPerfectHash(id)
		fmt.Println(id, k, ok)
	}
	// Output:
	// seeds [-1 -5] overflow [1 2 3] slots [1 2 3 0]
	// 0x3c97dbbfc27ed59500000001 1 true
	// 0xddbd0d1594decf4e00000001 2 true
	// 0x44feb197810cf74b00000001 3 true
	// 0x3a381aafa1bef7fb00000001 0 true
}

// Give a TOC the engine's perfect hash: its chunks move to their slots,
// and the directory index is built again with the new chunk indices, as the
// engine builds it after the move.
func ExampleTOC_ApplyPerfectHash() {
	v := iostore.VersionReplaceIoChunkHashWithIoHash
	t := &iostore.TOC{Header: iostore.Header{
		Version: v, CompressionBlockSize: 0x10000, PartitionCount: 1, PartitionSize: math.MaxUint64, ContainerFlags: iostore.FlagIndexed,
	}}
	var files []iostore.IndexedFile
	for i, name := range []string{"/Game/Maps/Arena", "/Game/Items/Sword", "/Game/Items/Shield"} {
		id, err := iostore.NewChunkID(uint64(zen.PackageIDFromName(name)), 0, iostore.ChunkExportBundleData, v)
		if err != nil {
			log.Fatal(err)
		}
		t.ChunkIDs = append(t.ChunkIDs, id)
		t.OffsetLengths = append(t.OffsetLengths, iostore.OffsetLength{Offset: uint64(i) << 16, Length: 100})
		t.Metas = append(t.Metas, iostore.ChunkMeta{})
		files = append(files, iostore.IndexedFile{Path: strings.TrimPrefix(name, "/Game/") + ".uasset", Chunk: uint32(i)})
	}
	perm, err := t.ApplyPerfectHash()
	if err != nil {
		log.Fatal(err)
	}
	for i := range files {
		files[i].Chunk = uint32(perm[files[i].Chunk])
	}
	x, err := iostore.NewDirectoryIndex("../../../Game/Content/", files)
	if err != nil {
		log.Fatal(err)
	}
	if t.DirectoryIndex, err = x.AppendBinary(nil); err != nil {
		log.Fatal(err)
	}
	utoc, err := t.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	d, err := iostore.DecodeTOC("Game.utoc", utoc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("moved:", perm, "seeds:", d.PerfectHashSeeds, len(utoc), "bytes")
	for _, f := range x.Files {
		k, ok := d.LookupPerfectHash(d.ChunkIDs[f.Chunk])
		fmt.Println(f.Path, f.Chunk, k, ok, d.OffsetLengths[k].Offset>>16)
	}
	// Output:
	// moved: [1 0 2] seeds: [0 23] 484 bytes
	// Maps/Arena.uasset 1 1 true 0
	// Items/Shield.uasset 2 2 true 2
	// Items/Sword.uasset 0 0 true 1
}
