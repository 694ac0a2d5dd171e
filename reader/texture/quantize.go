package texture

import (
	"cmp"
	"image"
	"image/color"
	"slices"

	"github.com/soniakeys/quant/median"
)

// matcher finds the nearest palette colour. The squared differences of
// red, green and blue weigh 3, 6 and 1, as the eye's sensitivity (Rec. 601
// luma: 0.299, 0.587, 0.114; docs/textures.md), so that the nearest grey
// of a colour is about as light; when the palette's alpha is the pixels'
// alpha, alpha counts as much as green.
type matcher struct {
	pal   []color.NRGBA
	first int // the first index an opaque pixel may take (1 in a masked texture)
	alpha bool
	cache map[uint32]byte
}

func newMatcher(pal color.Palette, masked, alpha bool) *matcher {
	m := &matcher{alpha: alpha, cache: map[uint32]byte{}}
	for _, c := range pal {
		m.pal = append(m.pal, c.(color.NRGBA))
	}
	if masked && len(m.pal) > 1 {
		m.first = 1
	}
	return m
}

// Weights of the colour distance.
const (
	weightR = 3
	weightG = 6
	weightB = 1
	weightA = 6
)

// nearest returns the index of the colour nearest to c.
func (m *matcher) nearest(c color.NRGBA) byte {
	if !m.alpha {
		c.A = 255
	}
	key := uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A)
	if ix, ok := m.cache[key]; ok {
		return ix
	}
	best, bestD := m.first, -1
	for k := m.first; k < len(m.pal); k++ {
		p := m.pal[k]
		dr, dg, db := int(c.R)-int(p.R), int(c.G)-int(p.G), int(c.B)-int(p.B)
		d := weightR*dr*dr + weightG*dg*dg + weightB*db*db
		if m.alpha {
			da := int(c.A) - int(p.A)
			d += weightA * da * da
		}
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	m.cache[key] = byte(best)
	return byte(best)
}

// quantize returns the palette indices of img. In a masked texture,
// transparent pixels (thresholdAlpha made every pixel either) take index 0.
// With dither, each pixel's matching error is spread over its unvisited
// neighbours (Floyd–Steinberg: 7/16 right, 3/16 below left, 5/16 below,
// 1/16 below right); transparent pixels neither take nor spread error.
func (m *matcher) quantize(img *image.NRGBA, masked, dither bool) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := make([]byte, w*h)
	if !dither {
		for k := range out {
			p := img.Pix[4*k : 4*k+4]
			if masked && p[3] == 0 {
				continue
			}
			out[k] = m.nearest(color.NRGBA{p[0], p[1], p[2], p[3]})
		}
		return out
	}
	channels := 3
	if m.alpha {
		channels = 4
	}
	// Error rows with one guard entry on each side.
	cur := make([][4]float32, w+2)
	next := make([][4]float32, w+2)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			k := y*w + x
			p := img.Pix[4*k : 4*k+4]
			if masked && p[3] == 0 {
				continue
			}
			// The wanted colour, clamped: error a palette cannot give back
			// (a hue missing from it) must not build up.
			var want [4]float32
			var c [4]byte
			for ch := 0; ch < 4; ch++ {
				want[ch] = float32(p[ch])
				if ch < channels {
					want[ch] = min(255, max(0, want[ch]+cur[x+1][ch]))
				}
				c[ch] = byte(want[ch] + 0.5)
			}
			ix := m.nearest(color.NRGBA{c[0], c[1], c[2], c[3]})
			out[k] = ix
			got := m.pal[ix]
			g := [4]float32{float32(got.R), float32(got.G), float32(got.B), float32(got.A)}
			for ch := 0; ch < channels; ch++ {
				e := want[ch] - g[ch]
				cur[x+2][ch] += e * 7 / 16
				next[x][ch] += e * 3 / 16
				next[x+1][ch] += e * 5 / 16
				next[x+2][ch] += e * 1 / 16
			}
		}
		cur, next = next, cur
		clear(next)
	}
	return out
}

// newPalette returns the colours of a new palette for img, the first mip
// (already masked or made opaque as the texture requires), with as many
// colours as old. A masked texture keeps colour 0 (its transparent index).
// An image with no more colours than the palette has room for gets exactly
// those colours; any other is reduced by median cut. Colours left over are
// black. The alpha of each colour is the mean alpha of the pixels nearest to
// it in an alpha texture, and otherwise the alpha most of the old colours
// have (UE1 palettes store 0 or 255 there).
func newPalette(img *image.NRGBA, old []color.NRGBA, masked, alpha bool) []color.NRGBA {
	first := 0
	if masked && len(old) > 1 {
		first = 1
	}
	room := len(old) - first
	// The pixels that need a colour.
	var px []color.NRGBA
	for k := 0; k < len(img.Pix); k += 4 {
		p := img.Pix[k : k+4]
		if masked && p[3] == 0 {
			continue
		}
		c := color.NRGBA{p[0], p[1], p[2], p[3]}
		if !alpha {
			c.A = 255
		}
		px = append(px, c)
	}
	distinct := map[color.NRGBA]bool{}
	for _, c := range px {
		if distinct[c] = true; len(distinct) > room {
			break
		}
	}
	var colors []color.NRGBA
	if len(distinct) <= room {
		for c := range distinct {
			colors = append(colors, c)
		}
		slices.SortFunc(colors, func(a, b color.NRGBA) int {
			return cmp.Compare(uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A),
				uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A))
		})
	} else {
		row := image.NewNRGBA(image.Rect(0, 0, len(px), 1))
		for k, c := range px {
			row.Pix[4*k], row.Pix[4*k+1], row.Pix[4*k+2], row.Pix[4*k+3] = c.R, c.G, c.B, 255
		}
		for _, c := range median.Quantizer(room).Quantize(make(color.Palette, 0, room), row) {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			n.A = 255
			colors = append(colors, n)
		}
		if alpha {
			// Median cut places colours by red, green and blue: give each
			// the mean alpha of the pixels it stands for.
			m := newMatcher(toPalette(colors), false, false)
			sum, count := make([]int, len(colors)), make([]int, len(colors))
			for _, c := range px {
				ix := m.nearest(c)
				sum[ix] += int(c.A)
				count[ix]++
			}
			for k := range colors {
				if count[k] > 0 {
					colors[k].A = byte(sum[k] / count[k])
				}
			}
		}
	}
	fill := commonAlpha(old)
	out := make([]color.NRGBA, len(old))
	for k := range out {
		out[k] = color.NRGBA{0, 0, 0, fill}
	}
	if first == 1 {
		out[0] = old[0]
	}
	for k, c := range colors {
		if !alpha {
			c.A = fill
		}
		out[first+k] = c
	}
	return out
}

func toPalette(colors []color.NRGBA) color.Palette {
	out := make(color.Palette, len(colors))
	for k, c := range colors {
		out[k] = c
	}
	return out
}

// commonAlpha returns the alpha value most colours have (the lowest of
// equally common ones).
func commonAlpha(colors []color.NRGBA) byte {
	var n [256]int
	for _, c := range colors {
		n[c.A]++
	}
	best := 0
	for a := range n {
		if n[a] > n[best] {
			best = a
		}
	}
	return byte(best)
}
