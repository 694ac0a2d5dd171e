package assetprops_test

import (
	"fmt"
	"log"
	"os"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// Read a cooked DataTable's rows, change one value and write the asset
// back.
func Example() {
	h, err := os.ReadFile("DT_Items.uasset")
	if err != nil {
		log.Fatal(err)
	}
	x, err := os.ReadFile("DT_Items.uexp")
	if err != nil {
		log.Fatal(err)
	}
	p, err := uasset.Decode("DT_Items.uasset", h, x, nil)
	if err != nil {
		log.Fatal(err)
	}
	// The properties `unrmod props` prints: the same document as for the
	// zen package cooked from the same asset.
	d, err := report.NewCookedProperties("DT_Items.uasset", p, "/Game/Data/DT_Items", []int{0}, false, "", nil)
	if err != nil {
		log.Fatal(err) // e.g. props.ErrUnversioned: the game's schema is needed
	}
	for _, r := range d.Exports[0].Rows {
		fmt.Println(r.Name, len(r.Properties))
	}
	ch, err := assetprops.Set(p, 0, props.Target{Row: "Sword", Path: "Damage"}, props.Input{Text: "75"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s → %s\n", ch.Target, ch.Old, ch.New)
	if h, x, err = p.Encode(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("DT_Items.uasset", h, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("DT_Items.uexp", x, 0o644); err != nil {
		log.Fatal(err)
	}
}
