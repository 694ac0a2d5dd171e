package zen_test

import (
	"bytes"
	"fmt"
	"log"
	"os"

	"github.com/unrmod/unrmod/iostore/zen"
)

// Decode a zen package saved as a file, look at its exports and encode it
// back: an unchanged package gives exactly its bytes.
func ExampleDecodePackage() {
	data, err := os.ReadFile("../../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zen.DecodePackage("DT_DemoItems.uasset", data, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.PackageName(), p.ID(), p.Layout)
	r := &zen.Resolver{} // no global script objects: names come from the package
	for i, e := range p.Exports {
		fmt.Printf("%s (%s): %d bytes, %v\n", p.ExportPath(i), r.ClassName(p, i), len(e.Data), e.ObjectFlags)
	}
	out, err := p.Encode()
	fmt.Println(bytes.Equal(out, data), err)
	// Output:
	// /Game/Data/DT_DemoItems 0x4d3e311070a6e048 UE 4.26–4.27
	// /Game/Data/DT_DemoItems.DT_DemoItems (DataTable): 574 bytes, Public|Standalone|Transactional
	// true <nil>
}

// Problems lists what verify reports; a package read from a container is
// checked against its chunk id (and its store entry) too.
func ExamplePackage_Problems() {
	data, err := os.ReadFile("../../examples/packages/zen/BP_DemoPickup.uasset")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zen.DecodePackage("BP_DemoPickup.uasset", data, nil)
	if err != nil {
		log.Fatal(err)
	}
	opts := &zen.VerifyOptions{ChunkPackageID: p.ID()}
	fmt.Println(len(p.Problems(opts)), "problems")
	// Renaming the package's name in the model alone breaks the stored
	// name hash (the encoder would recompute it), the exports' identity
	// hashes and the package id its chunk is known by.
	p.Names[p.Name.Index()] = "/Game/Items/BP_OtherPickup"
	for _, q := range p.Problems(opts) {
		fmt.Println(q)
	}
	// Output:
	// 0 problems
	// name 0 "/Game/Items/BP_OtherPickup": stored hash 0x5f0e74f9a0a37b87, the name hashes to 0x43777f7b90bb26e0
	// export 0 "BP_DemoPickup_C": public export hash 0xacc2beb53aac5039, its path /Game/Items/BP_OtherPickup.BP_DemoPickup_C hashes to 0xa624f79ae7bc07cc
	// export 1 "Default__BP_DemoPickup_C": public export hash 0xa2cc809256a7b9e5, its path /Game/Items/BP_OtherPickup.Default__BP_DemoPickup_C hashes to 0x82b4577a0a16dc73
	// package summary: package name "/Game/Items/BP_OtherPickup" hashes to 0xd2c06334e8131513, but the chunk id says 0xc7a0969a282d0444
}

// FindExport names exports the way patches do: by full path, path inside
// the package, name, or Class'Path'.
func ExamplePackage_FindExport() {
	data, err := os.ReadFile("../../examples/packages/zen/BP_DemoPickup.uasset")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zen.DecodePackage("BP_DemoPickup.uasset", data, nil)
	if err != nil {
		log.Fatal(err)
	}
	i, err := p.FindExport("Default__BP_DemoPickup_C", nil)
	fmt.Println(i, err)
	_, err = p.FindExport("Default__BP_Demo", nil)
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// no export "Default__BP_Demo"; close matches: BP_DemoPickup_C'/Game/Items/BP_DemoPickup.Default__BP_DemoPickup_C'
}

// The ids a container and its packages are known by.
func ExamplePackageIDFromName() {
	fmt.Println(zen.PackageIDFromName("/Game/Data/DT_DemoItems"))
	fmt.Println(zen.ScriptObject("/Script/Engine.DataTable"))
	// Output:
	// 0x4d3e311070a6e048
	// 0x71e24a29987bd1ed
}
