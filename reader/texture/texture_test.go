package texture_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
)

var (
	ue1 = reader.Version{File: 69}
	ue2 = reader.Version{File: 128, Licensee: 29}
)

// readDemo reads the demo package and describes one of its textures.
func readDemo(t *testing.T, path string) *texture.Texture {
	t.Helper()
	p, err := reader.ReadFile("../../examples/packages/UnrmodDemo.u")
	if err != nil {
		t.Fatal(err)
	}
	rs := p.Lookup(path)
	if len(rs) != 1 {
		t.Fatalf("%s: %d matches", path, len(rs))
	}
	i, _ := rs[0].Export()
	tex, err := texture.Read(p, i)
	if err != nil {
		t.Fatal(err)
	}
	return tex
}

func TestReadDemo(t *testing.T) {
	tex := readDemo(t, "Skins.Checker")
	if got := tex.String(); got != "16×16 P8, 5 mips" {
		t.Errorf("String() = %q", got)
	}
	if tex.Palette == nil || len(tex.Palette.Colors) != 256 || !tex.Exact || tex.Masked {
		t.Fatalf("texture %+v", tex)
	}
	img, err := tex.Image(0)
	if err != nil {
		t.Fatal(err)
	}
	pi, ok := img.(*image.Paletted)
	if !ok || pi.Rect != image.Rect(0, 0, 16, 16) {
		t.Fatalf("mip 0 is %T %v", img, img.Bounds())
	}
	// The demo checker: 4×4 squares of palette indices 0 and 255.
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			want := byte(((x/4 + y/4) % 2) * 255)
			if got := pi.ColorIndexAt(x, y); got != want {
				t.Fatalf("pixel (%d,%d) = %d, want %d", x, y, got, want)
			}
		}
	}
	if c := pi.At(4, 0).(color.NRGBA); c != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("index 255 shows as %v, want opaque white (UE1 palette alpha is not the pixels')", c)
	}
	last, err := tex.Image(4)
	if err != nil || last.Bounds() != image.Rect(0, 0, 1, 1) {
		t.Errorf("mip 4: %v %v", last, err)
	}
	if _, err := tex.Image(5); err == nil {
		t.Errorf("mip 5 of 5 decodes")
	}
}

func TestFormatNames(t *testing.T) {
	for _, tc := range []struct {
		v      reader.Version
		code   byte
		name   string
		layout texture.Layout
		str    string
	}{
		{ue1, 0, "P8", texture.LayoutP8, "P8"},
		{ue1, 3, "BC1", texture.LayoutDXT1Opaque, "BC1"},
		{ue1, 5, "BGRA8", texture.LayoutBGRA8, "BGRA8"},
		{ue1, 6, "BC2", texture.LayoutDXT3, "BC2"},
		{ue1, 7, "BC3", texture.LayoutDXT5, "BC3"},
		{ue1, 12, "BC7", texture.LayoutUnknown, "BC7 (format 12)"},
		{ue1, 26, "BC1_PA", texture.LayoutDXT1, "BC1_PA"},
		{ue1, 44, "RGBA8", texture.LayoutRGBA8, "RGBA8"},
		{ue1, 200, "", texture.LayoutUnknown, "format 200"},
		{ue2, 3, "DXT1", texture.LayoutDXT1, "DXT1"},
		{ue2, 5, "RGBA8", texture.LayoutBGRA8, "RGBA8"},
		{ue2, 6, "NODATA", texture.LayoutUnknown, "NODATA (format 6)"},
		{ue2, 7, "DXT3", texture.LayoutDXT3, "DXT3"},
		{ue2, 8, "DXT5", texture.LayoutDXT5, "DXT5"},
		{ue2, 9, "L8", texture.LayoutL8, "L8"},
		{ue2, 10, "G16", texture.LayoutG16, "G16"},
		{ue2, 2, "RGB16", texture.LayoutUnknown, "RGB16 (format 2)"},
	} {
		f := texture.FormatOf(tc.v, tc.code)
		if f.Name() != tc.name || f.Layout() != tc.layout || f.String() != tc.str {
			t.Errorf("%v code %d: %q %v %q, want %q %v %q", tc.v, tc.code, f.Name(), f.Layout(), f, tc.name, tc.layout, tc.str)
		}
	}
	if got := strings.Join(texture.FormatOf(ue2, 0).Supported(), " "); got != "P8 DXT1 RGBA8 DXT3 DXT5 L8 G16" {
		t.Errorf("UE2 supported formats %q", got)
	}
	for _, tc := range []struct {
		l    texture.Layout
		w, h int
		n    int
	}{
		{texture.LayoutP8, 16, 8, 128}, {texture.LayoutBGRA8, 2, 2, 16}, {texture.LayoutG16, 4, 1, 8},
		{texture.LayoutDXT1, 1, 1, 8}, {texture.LayoutDXT1, 8, 4, 16}, {texture.LayoutDXT5, 2, 8, 32}, {texture.LayoutUnknown, 4, 4, -1},
	} {
		if got := tc.l.MipSize(tc.w, tc.h); got != tc.n {
			t.Errorf("%v %d×%d: %d bytes, want %d", tc.l, tc.w, tc.h, got, tc.n)
		}
	}
}

// texPackage builds a package of version v holding one Texture "T" of
// format code, with the given mips and, for P8, a grey palette "Pal" of
// palColors colours. extra adds properties.
func texPackage(t testing.TB, v reader.Version, code byte, mips []texture.Mip, palColors int, extra func(*fixture.Props)) (*reader.Package, int) {
	t.Helper()
	b := fixture.New("TexTest", v, reader.GUID{1, 2, 3, 4})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	props := b.Props()
	if palColors > 0 {
		props.Object("Palette", b.Export(b.Class("Engine", "Palette"), 0, "Pal", flags, b.Palette(palColors)))
	}
	if code != 0 {
		props.Byte("Format", code)
	}
	if extra != nil {
		extra(props)
	}
	w, h := mips[0].Width, mips[0].Height
	props.Int("USize", int32(w)).Int("VSize", int32(h)).Byte("UBits", byte(log2(w))).Byte("VBits", byte(log2(h)))
	var fm []fixture.Mip
	for _, m := range mips {
		fm = append(fm, fixture.Mip{USize: m.Width, VSize: m.Height, Pixels: m.Data})
	}
	b.Export(b.Class("Engine", "Texture"), 0, "T", flags, b.Texture(props.Bytes(), fm))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("TexTest.utx", data)
	if err != nil {
		t.Fatal(err)
	}
	return p, len(p.Exports) - 1
}

func log2(n int) int {
	k := 0
	for ; n > 1; n >>= 1 {
		k++
	}
	return k
}

// blank returns n levels of zeroed mips of layout l for a w×h texture.
func blank(l texture.Layout, w, h, n int) []texture.Mip {
	var out []texture.Mip
	for k := 0; k < n; k++ {
		mw, mh := max(1, w>>k), max(1, h>>k)
		out = append(out, texture.Mip{Width: mw, Height: mh, Data: make([]byte, l.MipSize(mw, mh))})
	}
	return out
}

// pattern is a w×h test image: colour gradients, and alpha from opaque on
// the left to transparent on the right.
func pattern(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{byte(x * 255 / max(1, w-1)), byte(y * 255 / max(1, h-1)), byte((x + y) * 255 / max(1, w+h-2)), byte(255 - x*255/max(1, w-1))})
		}
	}
	return img
}

// maxDiff returns the largest difference of any channel between a and b
// (non-premultiplied). Without alpha, only red, green and blue count, and
// only where b is at least half opaque.
func maxDiff(a image.Image, b *image.NRGBA, alpha bool) int {
	worst := 0
	r := b.Rect
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca := color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA)
			cb := b.NRGBAAt(x, y)
			if !alpha && cb.A < 128 {
				continue
			}
			d := []int{int(ca.R) - int(cb.R), int(ca.G) - int(cb.G), int(ca.B) - int(cb.B)}
			if alpha {
				d = append(d, int(ca.A)-int(cb.A))
			}
			for _, v := range d {
				worst = max(worst, v, -v)
			}
		}
	}
	return worst
}

// TestEncodeDecode encodes a test image in every format unrmod writes,
// stores it in a package and decodes every mip again.
func TestEncodeDecode(t *testing.T) {
	for _, tc := range []struct {
		v    reader.Version
		code byte
		tol  int  // largest channel difference of the first mip
		a    bool // alpha survives
	}{
		{ue1, 5, 0, true},   // BGRA8
		{ue1, 44, 0, true},  // RGBA8 (469)
		{ue2, 5, 0, true},   // RGBA8, stored B, G, R, A
		{ue1, 6, 40, true},  // BC2 (DXT3)
		{ue1, 7, 40, true},  // BC3 (DXT5)
		{ue2, 7, 40, true},  // DXT3
		{ue2, 8, 40, true},  // DXT5
		{ue1, 3, 40, false}, // BC1: opaque
		{ue2, 3, 40, false}, // DXT1: 1-bit alpha, checked below
		{ue1, 26, 40, false},
		{ue2, 9, 0, false}, // L8 (a grey image, below)
	} {
		f := texture.FormatOf(tc.v, tc.code)
		t.Run(fmt.Sprintf("%s-%s", map[bool]string{false: "UE1", true: "UE2"}[f.UE2], f), func(t *testing.T) {
			l := f.Layout()
			for _, size := range [][2]int{{16, 8}, {2, 1}, {64, 64}} {
				w, h := size[0], size[1]
				p, i := texPackage(t, tc.v, tc.code, blank(l, 8, 8, 4), 0, nil)
				tex, err := texture.Read(p, i)
				if err != nil {
					t.Fatal(err)
				}
				img := pattern(w, h)
				if l == texture.LayoutL8 {
					for k := 0; k < len(img.Pix); k += 4 {
						img.Pix[k+1], img.Pix[k+2], img.Pix[k+3] = img.Pix[k], img.Pix[k], 255
					}
				}
				enc, err := tex.Encode(img, texture.Options{Mips: texture.MipsGenerate})
				if err != nil {
					t.Fatal(err)
				}
				if len(enc.Mips) != log2(max(w, h))+1 || enc.Width != w || enc.Height != h {
					t.Fatalf("%d×%d: %v", w, h, enc)
				}
				q, j := texPackage(t, tc.v, tc.code, enc.Mips, 0, nil)
				back, err := texture.Read(q, j)
				if err != nil {
					t.Fatal(err)
				}
				for k := range back.Mips {
					got, err := back.Image(k)
					if err != nil {
						t.Fatalf("mip %d: %v", k, err)
					}
					if got.Bounds() != image.Rect(0, 0, max(1, w>>k), max(1, h>>k)) {
						t.Fatalf("mip %d is %v", k, got.Bounds())
					}
					if k > 0 {
						continue
					}
					if d := maxDiff(got, img, tc.a); d > tc.tol {
						t.Errorf("%d×%d: first mip differs by up to %d (tolerance %d)", w, h, d, tc.tol)
					}
					if l == texture.LayoutDXT1 {
						for y := 0; y < h; y++ {
							for x := 0; x < w; x++ {
								_, _, _, a := got.At(x, y).RGBA()
								if (a == 0) != (img.NRGBAAt(x, y).A < 128) {
									t.Fatalf("(%d,%d) alpha %d from %d: DXT1 keeps pixels at least half opaque", x, y, a>>8, img.NRGBAAt(x, y).A)
								}
							}
						}
					}
				}
			}
		})
	}
}

// TestEncodeG16 checks 16-bit grey (UE2 height maps): the first mip is exact.
func TestEncodeG16(t *testing.T) {
	p, i := texPackage(t, ue2, 10, blank(texture.LayoutG16, 4, 4, 3), 0, nil)
	tex, err := texture.Read(p, i)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray16(image.Rect(0, 0, 8, 4))
	for k := 0; k < 32; k++ {
		img.SetGray16(k%8, k/8, color.Gray16{Y: uint16(k * 2047)})
	}
	enc, err := tex.Encode(img, texture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(enc.Mips) != 4 || len(enc.Mips[0].Data) != 64 || enc.Mips[0].Data[2] != 0xFF || enc.Mips[0].Data[3] != 0x07 {
		t.Fatalf("G16 mips %v, first bytes % x", enc, enc.Mips[0].Data[:4])
	}
	q, j := texPackage(t, ue2, 10, enc.Mips, 0, nil)
	back, _ := texture.Read(q, j)
	got, err := back.Image(0)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := got.(*image.Gray16); !ok || !bytes.Equal(g.Pix, img.Pix) {
		t.Errorf("G16 round trip: %T differs", got)
	}
}

func TestP8(t *testing.T) {
	grey := func(masked bool, mips int) *texture.Texture {
		p, i := texPackage(t, ue1, 0, blank(texture.LayoutP8, 8, 8, mips), 256, func(pr *fixture.Props) {
			if masked {
				pr.Bool("bMasked", true)
			}
		})
		tex, err := texture.Read(p, i)
		if err != nil {
			t.Fatal(err)
		}
		return tex
	}
	t.Run("nearest", func(t *testing.T) {
		tex := grey(false, 4)
		img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
		for k := 0; k < 16; k++ {
			img.SetNRGBA(k%4, k/4, color.NRGBA{byte(k * 16), byte(k * 16), byte(k * 16), 255})
		}
		enc, err := tex.Encode(img, texture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The grey ramp has every grey: each pixel takes its own value.
		for k, ix := range enc.Mips[0].Data {
			if ix != byte(k*16) {
				t.Fatalf("pixel %d → index %d, want %d", k, ix, k*16)
			}
		}
		if len(enc.Mips) != 3 || enc.Indexed {
			t.Errorf("auto mips of a full chain: %d mips, indexed %v", len(enc.Mips), enc.Indexed)
		}
		if enc.MipZero != (color.NRGBA{120, 120, 120, 0}) || *enc.MaxColor != (color.NRGBA{240, 240, 240, 0}) {
			t.Errorf("MipZero %v MaxColor %v", enc.MipZero, *enc.MaxColor)
		}
	})
	t.Run("masked", func(t *testing.T) {
		tex := grey(true, 1)
		img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
		img.SetNRGBA(0, 0, color.NRGBA{0, 0, 0, 255})   // black, opaque: not index 0
		img.SetNRGBA(1, 0, color.NRGBA{255, 0, 0, 100}) // less than half opaque
		img.SetNRGBA(0, 1, color.NRGBA{10, 10, 10, 200})
		img.SetNRGBA(1, 1, color.NRGBA{})
		enc, err := tex.Encode(img, texture.Options{Mips: texture.MipsGenerate})
		if err != nil {
			t.Fatal(err)
		}
		if got := enc.Mips[0].Data; !bytes.Equal(got, []byte{1, 0, 10, 0}) {
			t.Errorf("masked pixels → %v, want [1 0 10 0]", got)
		}
		if len(enc.Mips) != 2 {
			t.Errorf("%d mips", len(enc.Mips))
		}
	})
	t.Run("indexed", func(t *testing.T) {
		// A paletted image in the texture's own colours keeps its indices,
		// even where two indices have the same colour.
		tex := grey(true, 1)
		pal, err := tex.RenderPalette()
		if err != nil {
			t.Fatal(err)
		}
		pal[7] = pal[8] // as if the palette had a duplicate
		tex.Palette.Colors[7] = tex.Palette.Colors[8]
		img := image.NewPaletted(image.Rect(0, 0, 2, 2), pal)
		img.Pix = []byte{0, 7, 8, 255}
		enc, err := tex.Encode(img, texture.Options{Dither: true})
		if err != nil {
			t.Fatal(err)
		}
		if !enc.Indexed || !bytes.Equal(enc.Mips[0].Data, img.Pix) {
			t.Errorf("indices %v (indexed %v), want %v", enc.Mips[0].Data, enc.Indexed, img.Pix)
		}
	})
	t.Run("dither", func(t *testing.T) {
		// Mid grey in a black-and-white palette: nearest colour makes it all
		// one colour; dithering mixes them half and half.
		p, i := texPackage(t, ue1, 0, blank(texture.LayoutP8, 8, 8, 1), 2, nil)
		tex, err := texture.Read(p, i)
		if err != nil {
			t.Fatal(err)
		}
		img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
		for k := 0; k < len(img.Pix); k += 4 {
			copy(img.Pix[k:], []byte{128, 128, 128, 255})
		}
		count := func(dither bool) int {
			enc, err := tex.Encode(img, texture.Options{Dither: dither})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, ix := range enc.Mips[0].Data {
				n += int(ix)
			}
			return n
		}
		if n := count(false); n != 0 && n != 256 {
			t.Errorf("without dithering %d of 256 pixels are white", n)
		}
		if n := count(true); n < 112 || n > 144 {
			t.Errorf("dithered, %d of 256 pixels are white; want about half", n)
		}
	})
	t.Run("new palette", func(t *testing.T) {
		tex := grey(true, 1)
		// Few colours: the palette holds exactly them, after colour 0.
		img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
		img.SetNRGBA(0, 0, color.NRGBA{200, 10, 10, 255})
		img.SetNRGBA(1, 0, color.NRGBA{10, 200, 10, 255})
		img.SetNRGBA(0, 1, color.NRGBA{10, 10, 200, 255})
		enc, err := tex.Encode(img, texture.Options{Palette: texture.PaletteNew})
		if err != nil {
			t.Fatal(err)
		}
		if len(enc.Palette) != 256 || enc.Palette[0] != tex.Palette.Colors[0] {
			t.Fatalf("new palette of %d colours, colour 0 %v", len(enc.Palette), enc.Palette[0])
		}
		pal := texture.RenderPalette(enc.Palette, true, false)
		for k, ix := range enc.Mips[0].Data {
			x, y := k%2, k/2
			if want := img.NRGBAAt(x, y); want.A == 0 && ix != 0 || want.A != 0 && pal[ix] != want {
				t.Errorf("pixel (%d,%d) → %d (%v), want %v", x, y, ix, pal[ix], want)
			}
		}
		// Many colours: median cut, every pixel close to its colour.
		big := pattern(64, 64)
		for k := 3; k < len(big.Pix); k += 4 {
			big.Pix[k] = 255
		}
		enc, err = tex.Encode(big, texture.Options{Palette: texture.PaletteNew})
		if err != nil {
			t.Fatal(err)
		}
		q, j := texPackage(t, ue1, 0, enc.Mips, 0, nil)
		_ = q
		_ = j
		img0 := &image.Paletted{Pix: enc.Mips[0].Data, Stride: 64, Rect: big.Rect, Palette: texture.RenderPalette(enc.Palette, true, false)}
		if d := maxDiff(img0, big, false); d > 48 {
			t.Errorf("median-cut palette: pixels off by up to %d", d)
		}
		again, err := tex.Encode(big, texture.Options{Palette: texture.PaletteNew})
		if err != nil || fmt.Sprint(again.Palette) != fmt.Sprint(enc.Palette) {
			t.Errorf("the new palette is not the same for the same image (%v)", err)
		}
	})
}

func TestRefusals(t *testing.T) {
	p8 := func() *texture.Texture {
		p, i := texPackage(t, ue1, 0, blank(texture.LayoutP8, 8, 8, 4), 256, nil)
		tex, err := texture.Read(p, i)
		if err != nil {
			t.Fatal(err)
		}
		return tex
	}
	for _, tc := range []struct {
		name string
		tex  func() *texture.Texture
		img  image.Image
		opt  texture.Options
		kind error
		msg  string
	}{
		{"not a power of two", p8, pattern(24, 16), texture.Options{}, texture.ErrSize, "resize the image to 16×16 or 32×16"},
		{"too large", p8, image.NewNRGBA(image.Rect(0, 0, 8192, 1)), texture.Options{}, texture.ErrSize, "1 to 4096"},
		{"empty", p8, image.NewNRGBA(image.Rect(0, 0, 0, 0)), texture.Options{}, texture.ErrSize, "0×0"},
		{"palette new on RGBA8", func() *texture.Texture {
			p, i := texPackage(t, ue2, 5, blank(texture.LayoutBGRA8, 4, 4, 1), 0, nil)
			tex, _ := texture.Read(p, i)
			return tex
		}, pattern(4, 4), texture.Options{Palette: texture.PaletteNew}, nil, "palette: new applies to P8 textures only; TexTest.T is in format RGBA8"},
		{"unknown format", func() *texture.Texture {
			p, i := texPackage(t, ue2, 2, []texture.Mip{{Width: 4, Height: 4, Data: make([]byte, 32)}}, 0, nil)
			tex, _ := texture.Read(p, i)
			return tex
		}, pattern(4, 4), texture.Options{}, texture.ErrUnsupportedFormat, "format RGB16 (format 2); unrmod handles P8, DXT1, RGBA8, DXT3, DXT5, L8, G16"},
		{"P8 without a palette", func() *texture.Texture {
			p, i := texPackage(t, ue1, 0, blank(texture.LayoutP8, 4, 4, 1), 0, nil)
			tex, _ := texture.Read(p, i)
			return tex
		}, pattern(4, 4), texture.Options{}, nil, "P8 texture without a palette"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.tex().Encode(tc.img, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("error %v is not %v", err, tc.kind)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

// TestCorruptMips checks that mips whose data does not fit their size, or
// whose indices run past the palette, are refused with the file offset.
func TestCorruptMips(t *testing.T) {
	p, i := texPackage(t, ue1, 0, []texture.Mip{{Width: 4, Height: 4, Data: make([]byte, 15)}}, 256, nil)
	tex, _ := texture.Read(p, i)
	_, err := tex.Image(0)
	var fe *reader.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, reader.ErrCorrupt) || fe.Offset != tex.Mips[0].Offset ||
		!strings.Contains(err.Error(), "a 4×4 P8 mip takes 16 bytes, but the mip holds 15") || !strings.Contains(err.Error(), "Mips[0]") {
		t.Errorf("short mip: %v", err)
	}
	p, i = texPackage(t, ue1, 0, []texture.Mip{{Width: 2, Height: 1, Data: []byte{3, 16}}}, 16, nil)
	tex, _ = texture.Read(p, i)
	_, err = tex.Image(0)
	if !errors.As(err, &fe) || fe.Offset != tex.Mips[0].Offset+1 || !strings.Contains(err.Error(), "pixel (1,0) is palette index 16, past the 16 colours of TexTest.Pal") {
		t.Errorf("index past the palette: %v", err)
	}
	p, i = texPackage(t, ue2, 8, []texture.Mip{{Width: 8, Height: 8, Data: make([]byte, 16)}}, 0, nil)
	tex, _ = texture.Read(p, i)
	if _, err = tex.Image(0); err == nil || !strings.Contains(err.Error(), "a 8×8 DXT5 mip takes 64 bytes, but the mip holds 16") {
		t.Errorf("short DXT5 mip: %v", err)
	}
}

func TestNotTexture(t *testing.T) {
	p, err := reader.ReadFile("../../examples/packages/UnrmodDemo.u")
	if err != nil {
		t.Fatal(err)
	}
	i, _ := p.Lookup("Skins.DemoPalette")[0].Export()
	if _, err := texture.Read(p, i); !errors.Is(err, texture.ErrNotTexture) || err.Error() != "../../examples/packages/UnrmodDemo.u: UnrmodDemo.Skins.DemoPalette is a Palette" {
		t.Errorf("palette read as a texture: %v", err)
	}
}

func TestDecodePNG(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, pattern(8, 4)); err != nil {
		t.Fatal(err)
	}
	img, err := texture.DecodePNG(b.Bytes())
	if err != nil || img.Bounds() != image.Rect(0, 0, 8, 4) {
		t.Fatalf("%v %v", img, err)
	}
	// A header that declares a huge image is refused before any pixel is
	// decoded: overwrite the IHDR width (and keep the CRC wrong: the size
	// check comes first).
	big := append([]byte(nil), b.Bytes()...)
	copy(big[16:20], []byte{0, 1, 0, 0}) // 65536 wide
	if _, err := texture.DecodePNG(big); !errors.Is(err, texture.ErrSize) && !strings.Contains(fmt.Sprint(err), "checksum") {
		t.Errorf("huge PNG: %v", err)
	}
	if _, err := texture.DecodePNG([]byte("GIF89a")); err == nil {
		t.Errorf("a GIF decodes as PNG")
	}
}

// TestCorpusDecode decodes every mip of every texture of the real packages.
func TestCorpusDecode(t *testing.T) {
	files := textureCorpus(t)
	formats := map[string]int{}
	var textures, mips, procedural, withTextures int
	for _, file := range files {
		p, err := reader.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		found := false
		for i := range p.Exports {
			if p.NativeKind(i) != reader.NativeTexture {
				continue
			}
			found = true
			tex, err := texture.Read(p, i)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			for k := range tex.Mips {
				img, err := tex.Image(k)
				if errors.Is(err, texture.ErrNoPixels) {
					procedural++
					break
				}
				if err != nil {
					t.Errorf("%v", err)
					break
				}
				if b := img.Bounds(); b.Dx() != tex.Mips[k].Width || b.Dy() != tex.Mips[k].Height {
					t.Errorf("%s mip %d: %v", tex.Path, k, b)
				}
				mips++
				if k == 0 {
					textures++
					formats[tex.Format.String()]++
				}
			}
		}
		if found {
			withTextures++
		}
	}
	var list []string
	for f, n := range formats {
		list = append(list, fmt.Sprintf("%s %d", f, n))
	}
	sort.Strings(list)
	t.Logf("%d files with textures: %d textures decoded (%s), %d mips; %d procedural textures hold no pixels",
		withTextures, textures, strings.Join(list, ", "), mips, procedural)
	if textures == 0 {
		t.Errorf("no texture decoded")
	}
}

// textureCorpus lists the real legacy packages: corpus.Legacy and those
// under legacy-next/ it does not list yet, once each.
func textureCorpus(t testing.TB) []string {
	t.Helper()
	files := corpus.Legacy(t)
	next, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "legacy-next", "*", "*"))
	for _, f := range next {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files
}
