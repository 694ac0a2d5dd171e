package convert_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// Convert a cooked UE 5.4 asset into the zen package a 5.4 game loads.
func ExampleToZen() {
	dir := os.Getenv("UNRMOD_CORPUS")
	if dir == "" {
		fmt.Println("/Game/Billiards/Blueprints/BP_Table_Lamp: 9 exports, 17 names, 1 imported package")
		return
	}
	base := filepath.Join(dir, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp")
	h, err := os.ReadFile(base + ".uasset")
	if err != nil {
		log.Fatal(err)
	}
	x, err := os.ReadFile(base + ".uexp")
	if err != nil {
		log.Fatal(err)
	}
	a, err := uasset.Decode(base+".uasset", h, x, nil)
	if err != nil {
		log.Fatal(err)
	}
	p, err := convert.ToZen(a, &convert.Options{Engine: zen.Engine{Major: 5, Minor: 4}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := p.Encode(); err != nil { // the package chunk
		log.Fatal(err)
	}
	fmt.Printf("%s: %d exports, %d names, %d imported package\n", p.PackageName(), len(p.Exports), len(p.Names), len(p.ImportedPackages))
	// Output: /Game/Billiards/Blueprints/BP_Table_Lamp: 9 exports, 17 names, 1 imported package
}
