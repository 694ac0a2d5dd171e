package reader

import "image/color"

// ColorSize is the size of a Color struct property value: four bytes.
const ColorSize = 4

// DecodeColor decodes the value of a Color struct property of a package of
// version v: four bytes, R, G, B, A in UE1 and B, G, R, A in UE2 (see
// Version.ColorBGRA). ok is false when b is not four bytes long.
func DecodeColor(v Version, b []byte) (c color.NRGBA, ok bool) {
	if len(b) != ColorSize {
		return c, false
	}
	if v.ColorBGRA() {
		return color.NRGBA{R: b[2], G: b[1], B: b[0], A: b[3]}, true
	}
	return color.NRGBA{R: b[0], G: b[1], B: b[2], A: b[3]}, true
}

// AppendColor appends c as the value of a Color struct property of a
// package of version v, in the byte order DecodeColor reads.
func AppendColor(dst []byte, v Version, c color.NRGBA) []byte {
	if v.ColorBGRA() {
		return append(dst, c.B, c.G, c.R, c.A)
	}
	return append(dst, c.R, c.G, c.B, c.A)
}
