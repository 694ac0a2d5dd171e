package texture

import (
	"image"
	"image/color"
	"testing"
)

// TestDecodeBlocks decodes hand-made blocks.
func TestDecodeBlocks(t *testing.T) {
	red, blue := []byte{0x00, 0xF8}, []byte{0x1F, 0x00} // 5:6:5, little-endian
	for _, tc := range []struct {
		name string
		l    Layout
		blk  []byte
		want [4]color.NRGBA // pixels 0, 1, 2 and 15
	}{
		{"four colours", LayoutDXT1, cat(red, blue, []byte{0b11_10_01_00, 0, 0, 0b11_000000}),
			[4]color.NRGBA{{255, 0, 0, 255}, {0, 0, 255, 255}, {170, 0, 85, 255}, {85, 0, 170, 255}}},
		{"three colours and transparent", LayoutDXT1, cat(blue, red, []byte{0b11_10_01_00, 0, 0, 0b11_000000}),
			[4]color.NRGBA{{0, 0, 255, 255}, {255, 0, 0, 255}, {128, 0, 128, 255}, {0, 0, 0, 0}}},
		{"three colours, opaque black (UT 469 BC1)", LayoutDXT1Opaque, cat(blue, red, []byte{0b11_10_01_00, 0, 0, 0b11_000000}),
			[4]color.NRGBA{{0, 0, 255, 255}, {255, 0, 0, 255}, {128, 0, 128, 255}, {0, 0, 0, 255}}},
		{"DXT3: explicit alpha, always four colours", LayoutDXT3,
			cat([]byte{0xF0, 0x08, 0, 0, 0, 0, 0, 0x10}, blue, red, []byte{0b11_10_01_00, 0, 0, 0b11_000000}),
			[4]color.NRGBA{{0, 0, 255, 0}, {255, 0, 0, 255}, {85, 0, 170, 136}, {170, 0, 85, 17}}},
		{"DXT5: eight alphas", LayoutDXT5,
			cat([]byte{255, 0, 0b10_001_000, 0, 0, 0, 0, 0b111_00000}, red, blue, []byte{0, 0, 0, 0}),
			[4]color.NRGBA{{255, 0, 0, 255}, {255, 0, 0, 0}, {255, 0, 0, 219}, {255, 0, 0, 36}}},
		{"DXT5: six alphas, 0 and 255", LayoutDXT5,
			cat([]byte{0, 100, 0b10_111_110, 0, 0, 0, 0, 0}, red, blue, []byte{0, 0, 0, 0}),
			[4]color.NRGBA{{255, 0, 0, 0}, {255, 0, 0, 255}, {255, 0, 0, 20}, {255, 0, 0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
			decodeBlocks(img, tc.blk, tc.l)
			for k, at := range []int{0, 1, 2, 15} {
				if got := img.NRGBAAt(at%4, at/4); got != tc.want[k] {
					t.Errorf("pixel %d = %v, want %v", at, got, tc.want[k])
				}
			}
		})
	}
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestEncodeBlocksExact checks that colours a block can hold come back as
// they were: two colours of 5:6:5 precision, and DXT5 alpha extremes.
func TestEncodeBlocksExact(t *testing.T) {
	a, b := color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 0, 255, 255}
	for _, l := range []Layout{LayoutDXT1, LayoutDXT1Opaque, LayoutDXT3, LayoutDXT5} {
		img := image.NewNRGBA(image.Rect(0, 0, 8, 4))
		for k := 0; k < 32; k++ {
			c := a
			if (k/8+k%8)%3 == 0 {
				c = b
			}
			if l == LayoutDXT5 || l == LayoutDXT3 {
				c.A = byte(k%2) * 255
			}
			img.SetNRGBA(k%8, k/8, c)
		}
		data := encodeBlocks(img, l)
		if len(data) != l.MipSize(8, 4) {
			t.Fatalf("%v: %d bytes", l, len(data))
		}
		back := image.NewNRGBA(img.Rect)
		decodeBlocks(back, data, l)
		for k := 0; k < 32; k++ {
			if got, want := back.NRGBAAt(k%8, k/8), img.NRGBAAt(k%8, k/8); got != want {
				t.Errorf("%v: pixel %d = %v, want %v", l, k, got, want)
			}
		}
	}
	// A block of one colour, and a mip smaller than a block.
	img := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img.SetNRGBA(0, 0, color.NRGBA{0, 255, 0, 255})
	img.SetNRGBA(1, 0, color.NRGBA{0, 255, 0, 255})
	for _, l := range []Layout{LayoutDXT1, LayoutDXT5} {
		back := image.NewNRGBA(img.Rect)
		decodeBlocks(back, encodeBlocks(img, l), l)
		if back.NRGBAAt(1, 0) != (color.NRGBA{0, 255, 0, 255}) {
			t.Errorf("%v: one-colour block decodes to %v", l, back.NRGBAAt(1, 0))
		}
	}
}

// TestHalf checks the mip filter: each pixel the alpha-weighted average of
// the pixels it covers, sides halving down to 1.
func TestHalf(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	px := []color.NRGBA{
		{200, 0, 0, 255}, {100, 0, 0, 255}, {0, 80, 0, 255}, {255, 255, 255, 0},
		{0, 0, 0, 255}, {100, 0, 0, 255}, {0, 40, 0, 255}, {255, 255, 255, 0},
	}
	for k, c := range px {
		src.SetNRGBA(k%4, k/4, c)
	}
	h := half(src)
	if h.Rect != image.Rect(0, 0, 2, 1) {
		t.Fatalf("half of 4×2 is %v", h.Rect)
	}
	// Left: four opaque pixels. Right: two opaque and two transparent
	// ones, whose white must not leak into the colour.
	if got := h.NRGBAAt(0, 0); got != (color.NRGBA{100, 0, 0, 255}) {
		t.Errorf("left pixel %v", got)
	}
	if got := h.NRGBAAt(1, 0); got != (color.NRGBA{0, 60, 0, 128}) {
		t.Errorf("right pixel %v, want green 60, half opaque (128: two of four opaque pixels make a masked mip pixel opaque)", got)
	}
	if q := half(half(h)); q.Rect != image.Rect(0, 0, 1, 1) {
		t.Errorf("a 1×1 mip halves to %v", q.Rect)
	}
}
