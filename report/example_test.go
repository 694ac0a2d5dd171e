package report_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
)

// A program shows a legacy package's header with the data `unrmod info
// --json` prints.
func ExampleNewPackageInfo() {
	p, err := reader.ReadFile("../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		fmt.Println(err)
		return
	}
	info := report.NewPackageInfo("UnrmodDemoMap.unr", p)
	fmt.Println(info.Package, info.Version.Engine, info.Flags.Names, info.Exports.Count)
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(info.Names)
	// Output:
	// UnrmodDemoMap Unreal Engine 1 [AllowDownload] 5
	// {"count":27,"offset":64}
}

// A dump holds only the tables asked for.
func ExampleNewPackageDump() {
	p, err := reader.ReadFile("../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := report.NewPackageDump("UnrmodDemoMap.unr", p, report.Tables{Exports: true})
	fmt.Println(d.Names == nil, d.Imports == nil)
	e := (*d.Exports)[0]
	fmt.Println(e.Class, e.Path, e.Flags.Value)
	// Output:
	// true true
	// Package UnrmodDemoMap.Skins 0x00070004
}

// A GUI lists a container's chunks and shows its summary with the data
// `unrmod ls --json` and `unrmod info --json` print.
func ExampleNewContainerList() {
	c, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	info := report.NewContainerInfo("UnrmodDemo427_P.utoc", c, nil)
	fmt.Println(info.TocVersion.Name, info.ContainerID, info.Flags.Names, info.ContainerHeader.Chunk)
	ls := report.NewContainerList("UnrmodDemo427_P.utoc", c)
	ch := ls.Chunks[0]
	fmt.Println(ch.ChunkID, ch.Type, ch.Size, ch.Path)
	// Output:
	// PartitionSize 0x86cbd89c1680a9c6 [Compressed Indexed] 4
	// 0x9863134f24658d2000000002 ExportBundleData 6995 UnrmodDemo/Content/Maps/DemoArena.umap
}

// The container header of a container, summarized as `unrmod info` shows a
// container-header chunk saved as a file.
func ExampleNewContainerHeaderInfo() {
	c, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	k, _ := c.ContainerHeaderChunk()
	data, err := c.ReadChunk(k)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := zen.DecodeContainerHeader(c.File(), data)
	if err != nil {
		fmt.Println(err)
		return
	}
	info := report.NewContainerHeaderInfo("ContainerHeader.bin", len(data), h)
	fmt.Println(info.Kind, info.VersionName, info.Packages)
	dump := report.NewContainerHeaderDump("ContainerHeader.bin", h)
	fmt.Println(dump.Packages[0].PackageID)
	// Output:
	// container-header UE4 3
	// 0x208d65244f136398
}

// A zen package's summary and export table, as `unrmod info --json` and
// `unrmod dump --exports --json` print them.
func ExampleNewZenDump() {
	data, err := os.ReadFile("../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := zen.DecodePackage("DT_DemoItems.uasset", data, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	info := report.NewZenInfo("DT_DemoItems.uasset", len(data), p)
	fmt.Println(info.Package, info.PackageID, info.Flags.Value)
	d := report.NewZenDump("DT_DemoItems.uasset", p, nil, report.Tables{Exports: true})
	fmt.Println(d.Names == nil, len(*d.Exports) == info.Exports)
	// Output:
	// /Game/Data/DT_DemoItems 0x4d3e311070a6e048 0x80000000
	// true true
}

// Verify a legacy package as `unrmod verify --json` reports it.
func ExampleVerifyPackageFile() {
	r := report.VerifyPackageFile("../examples/packages/UnrmodDemo.u", nil)
	fmt.Println(r.OK, len(r.Problems), r.Exports > 0)
	r = report.VerifyPackageFile("../examples/packages/missing.u", nil)
	fmt.Println(r.OK, len(r.Problems))
	// Output:
	// true 0 true
	// false 1
}
