package pack_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// Pack a folder of zen packages, laid out like the game's root, into a UE
// 4.27 container with its .pak.
func ExamplePack() {
	dir, err := os.MkdirTemp("", "unrmod-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A package cooked for UE 4.27, at the path of its name /Game/Data/DT_DemoItems.
	data, err := os.ReadFile("../../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		log.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	os.MkdirAll(filepath.Join(root, "UnrmodDemo", "Content", "Data"), 0o755)
	os.WriteFile(filepath.Join(root, "UnrmodDemo", "Content", "Data", "DT_DemoItems.uasset"), data, 0o644)

	plan, err := pack.Scan(root, iostore.VersionPartitionSize)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range plan.Files {
		fmt.Println(f.Kind, f.Package, f.ID)
	}
	res, err := pack.Pack(plan, filepath.Join(dir, "z_Demo_P.utoc"), &pack.Options{
		Engine: zen.Engine{Major: 4, Minor: 27},
		Writer: iostore.WriterOptions{Method: "Zlib"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Packages, res.Chunks, filepath.Base(res.Pak))
	// Output:
	// package /Game/Data/DT_DemoItems 0x48e0a67010313e4d00000002
	// 1 2 z_Demo_P.pak
}
