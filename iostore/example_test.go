package iostore_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
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
