package uasset_test

import (
	"fmt"
	"log"
	"os"

	"github.com/unrmod/unrmod/uasset"
)

// Decode a cooked asset and its export data, add a name, and encode both
// files again: offsets, TotalHeaderSize and the exports' SerialOffset are
// recomputed.
func ExampleDecode() {
	name := "Content/Blueprints/BP_Lamp.uasset"
	header, err := os.ReadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	exports, err := os.ReadFile(uasset.CompanionNames(name).Uexp)
	if err != nil {
		log.Fatal(err)
	}
	// An unversioned cook: say which release made it, or let Decode detect it.
	p, err := uasset.Decode(name, header, exports, &uasset.Options{Release: uasset.Release{Major: 5, Minor: 4}})
	if err != nil {
		log.Fatal(err) // e.g. "…BP_Lamp.uasset: export 3 "Lamp" at 0x…: data … is outside the .uexp"
	}
	for i, e := range p.Exports {
		fmt.Printf("export %d %s: %d bytes of data\n", i, p.NameOf(e.ObjectName), len(e.Data))
	}
	p.Names = append(p.Names, uasset.NewName("MyNewName"))
	header, exports, err = p.Encode()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(header), len(exports))
}

// The files that go with a cooked asset's header.
func ExampleCompanionNames() {
	c := uasset.CompanionNames("Game/Content/Textures/T_Rock.uasset")
	fmt.Println(c.Uexp)
	fmt.Println(c.Ubulk)
	fmt.Println(c.Uptnl)
	fmt.Println(c.MUbulk)
	// Output:
	// Game/Content/Textures/T_Rock.uexp
	// Game/Content/Textures/T_Rock.ubulk
	// Game/Content/Textures/T_Rock.uptnl
	// Game/Content/Textures/T_Rock.m.ubulk
}

// The hashes the name map stores beside each name, for a name added to a
// package.
func ExampleNameHashes() {
	nonCase, caseHash := uasset.NameHashes("BlueprintType")
	fmt.Printf("0x%04x 0x%04x\n", nonCase, caseHash)
	// Output: 0x110c 0xdf92
}
