package texture

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/png"
	"math/bits"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
)

// PaletteMode says where the colours of a P8 texture's new pixels come from.
type PaletteMode int

// Palette modes.
const (
	// PaletteKeep maps every pixel to the nearest colour of the texture's
	// palette, which is left as it is.
	PaletteKeep PaletteMode = iota
	// PaletteNew builds a new palette for the image (median cut) that
	// replaces the palette's colours, keeping its number of colours (and,
	// for masked textures, colour 0).
	PaletteNew
)

func (m PaletteMode) String() string {
	if m == PaletteNew {
		return "new"
	}
	return "keep"
}

// MipMode says how many mips Encode makes.
type MipMode int

// Mip modes.
const (
	// MipsAuto is MipsGenerate for a texture whose mips now go down to 1×1
	// and MipsKeepCount otherwise (fonts, sprites and other textures with
	// one mip keep one).
	MipsAuto MipMode = iota
	// MipsGenerate makes every mip down to 1×1.
	MipsGenerate
	// MipsKeepCount makes as many mips as the texture has now (no more
	// than the new size allows).
	MipsKeepCount
)

func (m MipMode) String() string {
	switch m {
	case MipsGenerate:
		return "generate"
	case MipsKeepCount:
		return "keep-count"
	}
	return "auto"
}

// Options control Encode.
type Options struct {
	Palette PaletteMode
	Mips    MipMode
	// Dither diffuses the error of P8 colour matching over neighbouring
	// pixels (Floyd–Steinberg).
	Dither bool
}

// Encoded is a texture's new content, as Encode makes it.
type Encoded struct {
	Width, Height int
	Format        Format
	// Mips are the new mips, largest first (Offset and Field are unset).
	Mips []Mip
	// Palette is what a P8 texture's palette stores: its colours as they
	// are (PaletteKeep) or the new colours (PaletteNew); nil for other
	// formats.
	Palette []color.NRGBA
	// Indexed reports that the first mip took the image's own palette
	// indices: the image is paletted with the texture's colours.
	Indexed bool
	// MipZero is the average colour of the first mip, as the engine keeps
	// it in the MipZero property (P8: over the stored palette colours).
	MipZero color.NRGBA
	// MaxColor is, for P8 textures, the largest value of each channel over
	// every mip's stored colours (the MaxColor property); nil otherwise.
	MaxColor *color.NRGBA
}

// String describes the result: "128×128 P8, 8 mips".
func (enc *Encoded) String() string {
	return fmt.Sprintf("%d×%d %s, %s", enc.Width, enc.Height, enc.Format, plural(len(enc.Mips), "mip"))
}

// CheckSize returns an error wrapping ErrSize unless w and h are powers of
// two from 1 to MaxSize, as the engine requires of texture sides.
func CheckSize(w, h int) error {
	pow2 := func(n int) bool { return n > 0 && n&(n-1) == 0 }
	switch {
	case w <= 0 || h <= 0 || w > MaxSize || h > MaxSize:
		return kindErrorf(ErrSize, "%d×%d: each side must be 1 to %d pixels", w, h, MaxSize)
	case !pow2(w) || !pow2(h):
		return kindErrorf(ErrSize, "%d×%d: the engine needs each side to be a power of two (1, 2, 4, ... %d); resize the image to %d×%d or %d×%d",
			w, h, MaxSize, floorPow2(w), floorPow2(h), min(MaxSize, ceilPow2(w)), min(MaxSize, ceilPow2(h)))
	}
	return nil
}

func floorPow2(n int) int { return 1 << (bits.Len(uint(n)) - 1) }

func ceilPow2(n int) int {
	if n&(n-1) == 0 {
		return n
	}
	return 1 << bits.Len(uint(n))
}

// DecodePNG decodes a PNG image after checking, from its header alone,
// that its size is one a texture can have (CheckSize): an image too large
// is refused before its pixels take any memory.
func DecodePNG(data []byte) (image.Image, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if err := CheckSize(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	return png.Decode(bytes.NewReader(data))
}

// mipCount returns the number of mips of a full chain for a w×h texture.
func mipCount(w, h int) int { return bits.Len(uint(max(w, h))) }

// Encode makes the mips of t's format from img, whose size becomes the
// texture's: each side a power of two (CheckSize). The first mip is the
// image; each of the others halves the one before (a 2×2 box filter, as
// the engine makes mips), each side down to 1. P8 pixels take the nearest
// palette colour (the palette kept, or a new one; see PaletteMode); in a
// masked texture, pixels less than half opaque take index 0 and the others
// never do. DXT formats are encoded with a simple block encoder. t is not
// modified.
func (t *Texture) Encode(img image.Image, opt Options) (*Encoded, error) {
	l, err := t.checkFormat()
	if err != nil {
		return nil, err
	}
	if !t.Exact {
		return nil, kindErrorf(ErrUnsupportedFormat, "%s: %s is a %s, which stores more than its mips after them; unrmod rebuilds Texture exports only",
			t.Package.FileName, t.Path, t.Class)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if err := CheckSize(w, h); err != nil {
		return nil, err
	}
	if opt.Palette == PaletteNew && l != LayoutP8 {
		return nil, fmt.Errorf("%s: palette: new applies to P8 textures only; %s is in format %s", t.Package.FileName, t.Path, t.Format)
	}
	n := mipCount(w, h)
	keep := max(1, min(len(t.Mips), n))
	switch opt.Mips {
	case MipsKeepCount:
		n = keep
	case MipsAuto:
		if last := len(t.Mips) - 1; last < 0 || t.Mips[last].Width != 1 || t.Mips[last].Height != 1 {
			n = keep
		}
	}
	enc := &Encoded{Width: w, Height: h, Format: t.Format}
	if l == LayoutG16 {
		enc.Mips = encodeG16(img, n)
		enc.MipZero = averageGray16(enc.Mips[0].Data)
		return enc, nil
	}
	src := toNRGBA(img)
	prep := func(m *image.NRGBA) {}
	if l == LayoutP8 {
		switch {
		case t.Masked:
			prep = thresholdAlpha
		case !t.AlphaTexture:
			prep = opaque
		}
	}
	if l == LayoutL8 {
		prep = opaque
	}
	prep(src)
	levels := make([]*image.NRGBA, n)
	levels[0] = src
	for k := 1; k < n; k++ {
		levels[k] = half(levels[k-1])
		prep(levels[k])
	}
	if l == LayoutP8 {
		if err := t.encodeP8(enc, img, levels, opt); err != nil {
			return nil, err
		}
		return enc, nil
	}
	for _, m := range levels {
		mw, mh := m.Rect.Dx(), m.Rect.Dy()
		var data []byte
		switch l {
		case LayoutRGBA8:
			data = append([]byte(nil), m.Pix...)
		case LayoutBGRA8:
			data = append([]byte(nil), m.Pix...)
			for k := 0; k < len(data); k += 4 {
				data[k], data[k+2] = data[k+2], data[k]
			}
		case LayoutL8:
			data = make([]byte, mw*mh)
			for k := range data {
				p := m.Pix[4*k : 4*k+4]
				data[k] = color.GrayModel.Convert(color.NRGBA{p[0], p[1], p[2], 255}).(color.Gray).Y
			}
		default:
			data = encodeBlocks(m, l)
		}
		enc.Mips = append(enc.Mips, Mip{Width: mw, Height: mh, Data: data})
	}
	// The engine's MipZero is the average of what the first mip shows.
	first, err := (&Texture{Package: t.Package, Path: t.Path, Format: t.Format, Exact: true, Mips: enc.Mips[:1]}).Image(0)
	if err != nil {
		return nil, err
	}
	enc.MipZero = average(toNRGBA(first))
	return enc, nil
}

// encodeP8 quantises the levels to the kept or a new palette.
func (t *Texture) encodeP8(enc *Encoded, img image.Image, levels []*image.NRGBA, opt Options) error {
	if t.Palette == nil {
		_, err := t.RenderPalette()
		return err
	}
	stored := t.Palette.Colors
	if opt.Palette == PaletteNew {
		stored = newPalette(levels[0], stored, t.Masked, t.AlphaTexture)
	}
	enc.Palette = stored
	pal := RenderPalette(stored, t.Masked, t.AlphaTexture)
	m := newMatcher(pal, t.Masked, t.AlphaTexture)
	for k, lv := range levels {
		var data []byte
		if k == 0 {
			if p, ok := img.(*image.Paletted); ok && samePalette(p, pal, t.Masked) {
				data = pixels(p)
				enc.Indexed = true
			}
		}
		if data == nil {
			data = m.quantize(lv, t.Masked, opt.Dither)
		}
		enc.Mips = append(enc.Mips, Mip{Width: lv.Rect.Dx(), Height: lv.Rect.Dy(), Data: data})
	}
	var sum [4]int
	for _, ix := range enc.Mips[0].Data {
		c := stored[ix]
		sum[0], sum[1], sum[2], sum[3] = sum[0]+int(c.R), sum[1]+int(c.G), sum[2]+int(c.B), sum[3]+int(c.A)
	}
	np := len(enc.Mips[0].Data)
	enc.MipZero = color.NRGBA{byte(sum[0] / np), byte(sum[1] / np), byte(sum[2] / np), byte(sum[3] / np)}
	var mc color.NRGBA
	for _, mip := range enc.Mips {
		for _, ix := range mip.Data {
			c := stored[ix]
			mc = color.NRGBA{max(mc.R, c.R), max(mc.G, c.G), max(mc.B, c.B), max(mc.A, c.A)}
		}
	}
	enc.MaxColor = &mc
	return nil
}

// samePalette reports whether every colour p uses is the texture's colour
// of the same index (index 0 of a masked texture need only be transparent).
func samePalette(p *image.Paletted, pal color.Palette, masked bool) bool {
	if len(p.Palette) > len(pal) {
		for _, ix := range pixels(p) {
			if int(ix) >= len(pal) {
				return false
			}
		}
	}
	for k, c := range p.Palette {
		if k >= len(pal) {
			break
		}
		got := color.NRGBAModel.Convert(c).(color.NRGBA)
		want := pal[k].(color.NRGBA)
		if masked && k == 0 {
			if got.A != 0 {
				return false
			}
			continue
		}
		if got != want {
			return false
		}
	}
	return true
}

// pixels returns the palette indices of p, row by row.
func pixels(p *image.Paletted) []byte {
	w, h := p.Rect.Dx(), p.Rect.Dy()
	out := make([]byte, 0, w*h)
	for y := 0; y < h; y++ {
		o := p.PixOffset(p.Rect.Min.X, p.Rect.Min.Y+y)
		out = append(out, p.Pix[o:o+w]...)
	}
	return out
}

// toNRGBA returns a copy of img as non-premultiplied 8-bit RGBA, with its
// top-left corner at (0, 0).
func toNRGBA(img image.Image) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	stddraw.Draw(out, out.Rect, img, b.Min, stddraw.Src)
	return out
}

// half returns the next mip of src: each side halved (down to 1), each
// pixel the average of the 2×2 (or 2×1) pixels it covers, its colour
// weighted by their alpha so that transparent pixels do not darken it. The
// sums are exact and rounded once: two opaque pixels of four make alpha 128,
// at least half opaque, as the engine counts masked mips.
func half(src *image.NRGBA) *image.NRGBA {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	w, h := max(1, sw/2), max(1, sh/2)
	fx, fy := sw/w, sh/h // 1 or 2
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var sum [3]int
			alpha, n := 0, 0
			for dy := 0; dy < fy; dy++ {
				for dx := 0; dx < fx; dx++ {
					p := src.Pix[src.PixOffset(x*fx+dx, y*fy+dy):]
					a := int(p[3])
					for c := 0; c < 3; c++ {
						sum[c] += int(p[c]) * a
					}
					alpha += a
					n++
				}
			}
			o := out.PixOffset(x, y)
			if alpha > 0 {
				for c := 0; c < 3; c++ {
					out.Pix[o+c] = byte((sum[c] + alpha/2) / alpha)
				}
			}
			out.Pix[o+3] = byte((alpha + n/2) / n)
		}
	}
	return out
}

// half16 is half for 16-bit grey.
func half16(src *image.Gray16) *image.Gray16 {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	w, h := max(1, sw/2), max(1, sh/2)
	fx, fy := sw/w, sh/h
	out := image.NewGray16(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			sum, n := 0, 0
			for dy := 0; dy < fy; dy++ {
				for dx := 0; dx < fx; dx++ {
					sum += int(src.Gray16At(x*fx+dx, y*fy+dy).Y)
					n++
				}
			}
			out.SetGray16(x, y, color.Gray16{Y: uint16((sum + n/2) / n)})
		}
	}
	return out
}

// thresholdAlpha makes pixels at least half opaque opaque and the others
// transparent black: a masked texture has no other alpha.
func thresholdAlpha(m *image.NRGBA) {
	for k := 0; k < len(m.Pix); k += 4 {
		if m.Pix[k+3] >= 128 {
			m.Pix[k+3] = 255
		} else {
			m.Pix[k], m.Pix[k+1], m.Pix[k+2], m.Pix[k+3] = 0, 0, 0, 0
		}
	}
}

// opaque drops the alpha channel.
func opaque(m *image.NRGBA) {
	for k := 3; k < len(m.Pix); k += 4 {
		m.Pix[k] = 255
	}
}

// average returns the mean colour of m (truncated, as the engine does).
func average(m *image.NRGBA) color.NRGBA {
	var sum [4]int
	for k, v := range m.Pix {
		sum[k%4] += int(v)
	}
	n := max(1, len(m.Pix)/4)
	return color.NRGBA{byte(sum[0] / n), byte(sum[1] / n), byte(sum[2] / n), byte(sum[3] / n)}
}

// encodeG16 makes n levels of 16-bit grey from img, ignoring its alpha.
func encodeG16(img image.Image, n int) []Mip {
	b := img.Bounds()
	g := image.NewGray16(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := color.NRGBA64Model.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
			c.A = 0xFFFF
			g.SetGray16(x, y, color.Gray16Model.Convert(c).(color.Gray16))
		}
	}
	var out []Mip
	for k := 0; k < n; k++ {
		if k > 0 {
			g = half16(g)
		}
		w, h := g.Rect.Dx(), g.Rect.Dy()
		data := make([]byte, 2*w*h)
		for j := 0; j < w*h; j++ {
			data[2*j], data[2*j+1] = g.Pix[2*j+1], g.Pix[2*j]
		}
		out = append(out, Mip{Width: w, Height: h, Data: data})
	}
	return out
}

// averageGray16 returns the mean of little-endian 16-bit grey values as an
// 8-bit colour.
func averageGray16(data []byte) color.NRGBA {
	var sum int
	for k := 0; k+1 < len(data); k += 2 {
		sum += int(data[k+1]) // the high byte
	}
	v := byte(sum / max(1, len(data)/2))
	return color.NRGBA{v, v, v, 255}
}

// AppendMips appends a Texture's Mips array, as the engine serialises it,
// to dst, the export's data so far: the mip count, then per mip its pixels
// as a lazy array (from file version 62 preceded by the absolute offset
// just past them, computed for export data starting at file offset base),
// its size and the base-2 logarithms of its size.
func AppendMips(dst []byte, v reader.Version, base int64, mips []Mip) []byte {
	dst = binio.AppendIndex(dst, int32(len(mips)))
	for _, m := range mips {
		if v.File >= reader.VerLazySeekPos {
			end := base + int64(len(dst)) + 4 + int64(binio.IndexLen(int32(len(m.Data)))) + int64(len(m.Data))
			dst = binio.AppendI32(dst, int32(end))
		}
		dst = binio.AppendIndex(dst, int32(len(m.Data)))
		dst = append(dst, m.Data...)
		dst = binio.AppendI32(dst, int32(m.Width))
		dst = binio.AppendI32(dst, int32(m.Height))
		dst = append(dst, byte(bits.Len(uint(m.Width))-1), byte(bits.Len(uint(m.Height))-1))
	}
	return dst
}
