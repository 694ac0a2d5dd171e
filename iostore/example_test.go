package iostore_test

import (
	"fmt"
	"log"
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
