package texture

import (
	"encoding/binary"
	"image"
	"image/color"
)

// S3TC (DXT, BC1-3) block coding: every 4×4 block of pixels is stored in 8
// (DXT1) or 16 (DXT3, DXT5) bytes. Blocks are stored row by row; the blocks
// of a mip whose side is less than 4 hold the pixels at the block's top
// left. docs/textures.md describes the block layouts.

// expand565 returns the 8-bit colour of a 5:6:5 value.
func expand565(v uint16) color.NRGBA {
	r, g, b := byte(v>>11&31), byte(v>>5&63), byte(v&31)
	return color.NRGBA{r<<3 | r>>2, g<<2 | g>>4, b<<3 | b>>2, 255}
}

// colorTable returns the four colours of a BC1 colour block. In the
// three-colour mode (c0 <= c1, allowed only when fourMode is false) the
// fourth entry is black, transparent unless opaque is set.
func colorTable(c0, c1 uint16, fourMode, opaque bool) [4]color.NRGBA {
	a, b := expand565(c0), expand565(c1)
	var t [4]color.NRGBA
	t[0], t[1] = a, b
	mix := func(x, y byte, wx, wy, d int) byte { return byte((int(x)*wx + int(y)*wy + d/2) / d) }
	if fourMode || c0 > c1 {
		t[2] = color.NRGBA{mix(a.R, b.R, 2, 1, 3), mix(a.G, b.G, 2, 1, 3), mix(a.B, b.B, 2, 1, 3), 255}
		t[3] = color.NRGBA{mix(a.R, b.R, 1, 2, 3), mix(a.G, b.G, 1, 2, 3), mix(a.B, b.B, 1, 2, 3), 255}
		return t
	}
	t[2] = color.NRGBA{mix(a.R, b.R, 1, 1, 2), mix(a.G, b.G, 1, 1, 2), mix(a.B, b.B, 1, 1, 2), 255}
	if opaque {
		t[3] = color.NRGBA{0, 0, 0, 255}
	}
	return t
}

// alphaTable returns the eight alphas of a DXT5 alpha block.
func alphaTable(a0, a1 byte) [8]byte {
	var t [8]byte
	t[0], t[1] = a0, a1
	if a0 > a1 {
		for k := 1; k < 7; k++ {
			t[k+1] = byte((int(a0)*(7-k) + int(a1)*k + 3) / 7)
		}
		return t
	}
	for k := 1; k < 5; k++ {
		t[k+1] = byte((int(a0)*(5-k) + int(a1)*k + 2) / 5)
	}
	t[6], t[7] = 0, 255
	return t
}

// decodeBlocks fills img (whose size matches data, see Layout.MipSize)
// from S3TC blocks of layout l.
func decodeBlocks(img *image.NRGBA, data []byte, l Layout) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	bs := l.blockBytes()
	n := 0
	for by := 0; by < h; by += 4 {
		for bx := 0; bx < w; bx += 4 {
			blk := data[n : n+bs]
			n += bs
			var alpha [16]byte
			for k := range alpha {
				alpha[k] = 255
			}
			col := blk
			switch l {
			case LayoutDXT3:
				for k := 0; k < 16; k++ {
					a := blk[k/2] >> (4 * (k % 2)) & 15
					alpha[k] = a<<4 | a
				}
				col = blk[8:]
			case LayoutDXT5:
				t := alphaTable(blk[0], blk[1])
				bits := uint64(0)
				for k := 0; k < 6; k++ {
					bits |= uint64(blk[2+k]) << (8 * k)
				}
				for k := 0; k < 16; k++ {
					alpha[k] = t[bits>>(3*k)&7]
				}
				col = blk[8:]
			}
			c0, c1 := binary.LittleEndian.Uint16(col), binary.LittleEndian.Uint16(col[2:])
			tbl := colorTable(c0, c1, l == LayoutDXT3 || l == LayoutDXT5, l == LayoutDXT1Opaque)
			idx := binary.LittleEndian.Uint32(col[4:])
			for k := 0; k < 16; k++ {
				x, y := bx+k%4, by+k/4
				if x >= w || y >= h {
					continue
				}
				c := tbl[idx>>(2*k)&3]
				if c.A == 255 {
					c.A = alpha[k]
				}
				o := img.PixOffset(x, y)
				img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = c.R, c.G, c.B, c.A
			}
		}
	}
}

// encodeBlocks encodes img in S3TC blocks of layout l. The encoder fits
// each block's colours to the segment between its extreme colours along
// their main axis; it is simple and fast, not the best DXT compressor, and
// what it stores decodes exactly as Image decodes it.
func encodeBlocks(img *image.NRGBA, l Layout) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := make([]byte, 0, l.MipSize(w, h))
	for by := 0; by < h; by += 4 {
		for bx := 0; bx < w; bx += 4 {
			var px [16]color.NRGBA
			var valid [16]bool
			for k := 0; k < 16; k++ {
				x, y := bx+k%4, by+k/4
				if x < w && y < h {
					o := img.PixOffset(x, y)
					px[k] = color.NRGBA{img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3]}
					valid[k] = true
				}
			}
			switch l {
			case LayoutDXT3:
				var a [8]byte
				for k := 0; k < 16; k++ {
					v := (int(px[k].A)*15 + 127) / 255
					a[k/2] |= byte(v) << (4 * (k % 2))
				}
				out = append(out, a[:]...)
				out = appendColorBlock(out, px, valid, true, false)
			case LayoutDXT5:
				out = appendAlphaBlock(out, px, valid)
				out = appendColorBlock(out, px, valid, true, false)
			default:
				out = appendColorBlock(out, px, valid, false, l == LayoutDXT1)
			}
		}
	}
	return out
}

// to565 rounds an 8-bit colour to 5:6:5.
func to565(c [3]float64) uint16 {
	q := func(v float64, max int) uint16 {
		x := int(v*float64(max)/255 + 0.5)
		return uint16(min(max, x))
	}
	return q(c[0], 31)<<11 | q(c[1], 63)<<5 | q(c[2], 31)
}

// colorDist is the squared distance between two colours' RGB.
func colorDist(a, b color.NRGBA) int {
	dr, dg, db := int(a.R)-int(b.R), int(a.G)-int(b.G), int(a.B)-int(b.B)
	return dr*dr + dg*dg + db*db
}

// appendColorBlock appends a BC1 colour block for px. fourMode forces the
// four-colour mode (DXT3 and DXT5 blocks); punch selects the three-colour
// mode for blocks with transparent pixels (alpha below 128), which then
// decode as transparent black.
func appendColorBlock(out []byte, px [16]color.NRGBA, valid [16]bool, fourMode, punch bool) []byte {
	transparent := [16]bool{}
	anyTransparent := false
	var pts [][3]float64
	for k := range px {
		if !valid[k] {
			continue
		}
		if punch && px[k].A < 128 {
			transparent[k], anyTransparent = true, true
			continue
		}
		pts = append(pts, [3]float64{float64(px[k].R), float64(px[k].G), float64(px[k].B)})
	}
	var c0, c1 uint16
	if len(pts) > 0 {
		lo, hi := endpoints(pts)
		c0, c1 = to565(hi), to565(lo)
	}
	threeMode := punch && anyTransparent
	// The order of the endpoints selects the mode. Equal endpoints read as
	// the three-colour mode in a DXT1 block; its first three entries are
	// then the same colour, so the pixels lose nothing.
	if threeMode && c0 > c1 || !threeMode && c0 < c1 {
		c0, c1 = c1, c0
	}
	tbl := colorTable(c0, c1, fourMode, !punch)
	var idx uint32
	for k := 15; k >= 0; k-- {
		idx <<= 2
		if !valid[k] {
			continue
		}
		if transparent[k] {
			idx |= 3
			continue
		}
		best, bestD := 0, -1
		for j, c := range tbl {
			if c.A != 255 || (threeMode && j == 3) {
				continue
			}
			if d := colorDist(px[k], c); bestD < 0 || d < bestD {
				best, bestD = j, d
			}
		}
		idx |= uint32(best)
	}
	out = binary.LittleEndian.AppendUint16(out, c0)
	out = binary.LittleEndian.AppendUint16(out, c1)
	return binary.LittleEndian.AppendUint32(out, idx)
}

// endpoints returns the extreme points of pts along their main axis (found
// by power iteration on the covariance matrix), the lower one first.
func endpoints(pts [][3]float64) (lo, hi [3]float64) {
	var mean [3]float64
	for _, p := range pts {
		for c := range 3 {
			mean[c] += p[c]
		}
	}
	for c := range 3 {
		mean[c] /= float64(len(pts))
	}
	var cov [3][3]float64
	for _, p := range pts {
		for i := range 3 {
			for j := range 3 {
				cov[i][j] += (p[i] - mean[i]) * (p[j] - mean[j])
			}
		}
	}
	// Start from the covariance column of the channel that varies most: it
	// leans towards the main axis unless every channel is constant.
	c := 0
	for i := 1; i < 3; i++ {
		if cov[i][i] > cov[c][c] {
			c = i
		}
	}
	axis := [3]float64{cov[0][c], cov[1][c], cov[2][c]}
	for range 8 {
		var next [3]float64
		for i := range 3 {
			for j := range 3 {
				next[i] += cov[i][j] * axis[j]
			}
		}
		m := max(abs(next[0]), abs(next[1]), abs(next[2]))
		if m == 0 {
			break
		}
		for i := range 3 {
			axis[i] = next[i] / m
		}
	}
	minT, maxT := 0.0, 0.0
	for k, p := range pts {
		t := (p[0]-mean[0])*axis[0] + (p[1]-mean[1])*axis[1] + (p[2]-mean[2])*axis[2]
		if k == 0 || t < minT {
			minT, lo = t, p
		}
		if k == 0 || t > maxT {
			maxT, hi = t, p
		}
	}
	return lo, hi
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// appendAlphaBlock appends a DXT5 alpha block: the extreme alphas as
// endpoints, eight interpolated values, each pixel's nearest.
func appendAlphaBlock(out []byte, px [16]color.NRGBA, valid [16]bool) []byte {
	lo, hi := byte(255), byte(0)
	for k := range px {
		if valid[k] {
			lo, hi = min(lo, px[k].A), max(hi, px[k].A)
		}
	}
	if lo > hi {
		lo, hi = 255, 255
	}
	a0, a1 := hi, lo
	if a0 == a1 {
		// Equal endpoints select the six-value mode; index 0 is a0.
		out = append(out, a0, a1)
		return append(out, 0, 0, 0, 0, 0, 0)
	}
	t := alphaTable(a0, a1)
	var bits uint64
	for k := 15; k >= 0; k-- {
		bits <<= 3
		if !valid[k] {
			continue
		}
		best, bestD := 0, 256
		for j, v := range t {
			d := int(px[k].A) - int(v)
			if d < 0 {
				d = -d
			}
			if d < bestD {
				best, bestD = j, d
			}
		}
		bits |= uint64(best)
	}
	out = append(out, a0, a1)
	for k := 0; k < 6; k++ {
		out = append(out, byte(bits>>(8*k)))
	}
	return out
}
