package patch_test

import (
	"fmt"
	"log"
	"os"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
)

// Apply a patch's operations to a zen package in memory, as a container
// writer does with the packages it reads, then encode it.
func ExampleApplyZen() {
	f, err := patch.Parse("mod.yaml", []byte(`unrmod: 1
targets:
  - file: DT_DemoItems.uasset
    ops:
      - set-property: {object: DT_DemoItems, row: Stick, property: MaxStackSize, value: 999}
      - set-property: {object: DT_DemoItems, row: Acorn, property: Rarity, value: EDemoRarity::Common}
`))
	if err != nil {
		log.Fatal(err)
	}
	data, err := os.ReadFile("../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zen.DecodePackage("DT_DemoItems.uasset", data, nil)
	if err != nil {
		log.Fatal(err)
	}
	changes, err := patch.ApplyZen(p, f.Targets[0].Ops, ".")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range changes {
		fmt.Println(c)
	}
	out, err := p.Encode()
	if err != nil {
		log.Fatal(err)
	}
	q, err := zen.DecodePackage("patched", out, nil)
	fmt.Println(len(out), err, len(q.Problems(nil)))
	// Output:
	// set-property: export /Game/Data/DT_DemoItems.DT_DemoItems row Stick: MaxStackSize: 10 → 999
	// set-property: export /Game/Data/DT_DemoItems.DT_DemoItems row Acorn: Rarity: EDemoRarity::Rare → EDemoRarity::Common
	// 1346 <nil> 0
}
