package props_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// Read a DataTable's rows and change one value: the tag's size and every
// size around it follow, and the new data reads back.
func ExampleSet() {
	data, err := os.ReadFile("../examples/packages/zen/DT_DemoItems.uasset")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zen.DecodePackage("DT_DemoItems.uasset", data, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx, err := zenprops.ContextFor(p, 0)
	if err != nil {
		log.Fatal(err)
	}
	t, err := props.DecodeDataTable(p.Exports[0].Data, ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(t.Row("Stick").Properties.Format(nil))

	out, ch, err := props.Set(p.Exports[0].Data, ctx, props.Target{Row: "Stick", Path: "DisplayName"}, props.Input{Text: "Sturdy Stick"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s → %s, %d → %d bytes\n", ch.Target, ch.Old, ch.New, len(p.Exports[0].Data), len(out))
	// Output:
	// DisplayName (StrProperty) = "Stick"
	// MaxStackSize (IntProperty) = 10
	// Weight (FloatProperty) = 0.5
	// bStackable (BoolProperty) = true
	// Rarity (EnumProperty(EDemoRarity)) = EDemoRarity::Common
	// Stick: DisplayName: "Stick" → "Sturdy Stick", 574 → 581 bytes
}

// Packages cooked without property tags cannot be read without the game's
// property schema.
func ExampleContextFor() {
	data, err := os.ReadFile("../examples/packages/zen/BP_DemoPickup.uasset")
	if err != nil {
		log.Fatal(err)
	}
	p, err := zen.DecodePackage("BP_DemoPickup.uasset", data, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx, err := zenprops.ContextFor(p, 1)
	if err != nil {
		log.Fatal(err)
	}
	l, err := props.Decode(p.Exports[1].Data, ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(l.Format(&props.FormatOptions{Object: zenprops.NewResolver(p, nil).Name}))

	p.PackageFlags |= zen.FlagUnversionedProperties
	_, err = zenprops.ContextFor(p, 1)
	fmt.Println(errors.Is(err, props.ErrUnversioned))
	// Output:
	// PickupAmount (IntProperty) = 5
	// RespawnTime (FloatProperty) = 30
	// bGlowing (BoolProperty) = false
	// PickupName (NameProperty) = Acorn
	// Tint (StructProperty(LinearColor)) = (R=1,G=0.8,B=0.2,A=1)
	// true
}
