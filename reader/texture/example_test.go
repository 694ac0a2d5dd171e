package texture_test

import (
	"fmt"
	"image"
	"image/color"
	"log"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
)

// Read a texture of a package, decode its first mip, and make new mips for
// it from another image, as a patch would store them.
func ExampleRead() {
	p, err := reader.ReadFile("../../examples/packages/UnrmodDemo.u")
	if err != nil {
		log.Fatal(err)
	}
	i, _ := p.Lookup("Skins.Checker")[0].Export()
	tex, err := texture.Read(p, i)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tex.Path, tex)

	img, err := tex.Image(0) // an *image.Paletted with the texture's palette
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds(), img.(*image.Paletted).ColorIndexAt(4, 0))

	// A 32×32 red-to-blue gradient, mapped to the (grey) palette.
	grad := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			grad.SetNRGBA(x, y, color.NRGBA{byte(255 - 8*x), 0, byte(8 * x), 255})
		}
	}
	enc, err := tex.Encode(grad, texture.Options{Mips: texture.MipsGenerate, Dither: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(enc)
	// Output:
	// UnrmodDemo.Skins.Checker 16×16 P8, 5 mips
	// (0,0)-(16,16) 255
	// 32×32 P8, 6 mips
}
