package cityhash_test

import (
	"fmt"

	"github.com/unrmod/unrmod/cityhash"
)

// The identity hashes of IoStore containers and zen packages.
func Example() {
	fmt.Printf("package id     0x%016x\n", cityhash.PackageID("/Game/Data/DT_DemoItems"))
	fmt.Printf("container id   0x%016x\n", cityhash.ContainerID("UnrmodDemo427_P"))
	fmt.Printf("name hash      0x%016x\n", cityhash.NameHash("MaxStackSize"))
	fmt.Printf("script import  0x%016x\n", cityhash.ScriptImportIndex("/Script/Engine.DataTable"))
	fmt.Printf("4.27 import    0x%016x\n", cityhash.PackageImportIndex("/Game/Data/DT_DemoItems.DT_DemoItems"))
	fmt.Printf("UE5 public     0x%016x\n", cityhash.PublicExportHash("DT_DemoItems"))
	// Output:
	// package id     0x4d3e311070a6e048
	// container id   0x86cbd89c1680a9c6
	// name hash      0x206201232ada4963
	// script import  0x71e24a29987bd1ed
	// 4.27 import    0xbfc2ea3232301d57
	// UE5 public     0x0f02f1a874260655
}
