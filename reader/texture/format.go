package texture

import (
	"fmt"

	"github.com/unrmod/unrmod/reader"
)

// Layout is how a mip's bytes encode its pixels, whatever number the engine
// gives the format (UE1 and UE2 number their formats differently; see
// docs/textures.md).
type Layout int

// Pixel layouts unrmod decodes and encodes.
const (
	// LayoutUnknown is a format unrmod does not decode.
	LayoutUnknown Layout = iota
	// LayoutP8 is one byte per pixel, an index into the texture's palette.
	LayoutP8
	// LayoutBGRA8 is four bytes per pixel: blue, green, red, alpha.
	LayoutBGRA8
	// LayoutRGBA8 is four bytes per pixel: red, green, blue, alpha.
	LayoutRGBA8
	// LayoutDXT1 is S3TC/BC1: 8 bytes per 4×4 block; a block in its
	// three-colour mode marks pixels transparent (1-bit alpha).
	LayoutDXT1
	// LayoutDXT1Opaque is BC1 read as the UT 469 engine reads its format 3:
	// the three-colour mode's fourth entry is opaque black.
	LayoutDXT1Opaque
	// LayoutDXT3 is S3TC/BC2: 16 bytes per block, 4-bit explicit alpha.
	LayoutDXT3
	// LayoutDXT5 is S3TC/BC3: 16 bytes per block, interpolated alpha.
	LayoutDXT5
	// LayoutL8 is one byte of luminance per pixel.
	LayoutL8
	// LayoutG16 is a little-endian 16-bit grey value per pixel (UE2 terrain
	// height maps).
	LayoutG16
)

var layoutNames = [...]string{"unknown", "P8", "BGRA8", "RGBA8", "DXT1", "DXT1 (opaque)", "DXT3", "DXT5", "L8", "G16"}

func (l Layout) String() string {
	if l >= 0 && int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// blockBytes returns the bytes of one 4×4 block of a block-compressed
// layout, or 0 for layouts stored pixel by pixel.
func (l Layout) blockBytes() int {
	switch l {
	case LayoutDXT1, LayoutDXT1Opaque:
		return 8
	case LayoutDXT3, LayoutDXT5:
		return 16
	}
	return 0
}

// pixelBytes returns the bytes per pixel of an uncompressed layout.
func (l Layout) pixelBytes() int {
	switch l {
	case LayoutP8, LayoutL8:
		return 1
	case LayoutG16:
		return 2
	case LayoutBGRA8, LayoutRGBA8:
		return 4
	}
	return 0
}

// MipSize returns the number of bytes a w×h mip of layout l holds:
// block-compressed layouts round each side up to whole 4×4 blocks. It
// returns -1 for LayoutUnknown.
func (l Layout) MipSize(w, h int) int {
	if b := l.blockBytes(); b > 0 {
		return ((w + 3) / 4) * ((h + 3) / 4) * b
	}
	if b := l.pixelBytes(); b > 0 {
		return w * h * b
	}
	return -1
}

// Format is the value of a texture's Format property, read for the engine
// generation of its package.
type Format struct {
	Code byte // the stored value
	UE2  bool // the package is an Unreal Engine 2 package (file version 100 and up)
}

// FormatOf returns what format code means in a package of version v.
func FormatOf(v reader.Version, code byte) Format {
	return Format{Code: code, UE2: v.File >= reader.VerUE2}
}

// The engines' names for their format codes. UE1 names are those of UT 469
// (OldUnreal), which renamed the older ones (docs/textures.md lists both).
var (
	ue1FormatNames = []string{"P8", "BGRA8_LM", "R5G6B5", "BC1", "RGB8", "BGRA8", "BC2", "BC3", "BC4", "BC4_S",
		"BC5", "BC5_S", "BC7", "BC6H_S", "BC6H", "RGBA16", "RGBA16_S", "RGBA32", "RGBA32_S", "NODATA",
		"UNCOMPRESSED", "UNCOMPRESSED_LOW", "UNCOMPRESSED_HIGH", "COMPRESSED", "COMPRESSED_LOW", "COMPRESSED_HIGH",
		"BC1_PA", "R8", "R8_S", "R16", "R16_S", "R32", "R32_S", "RG8", "RG8_S", "RG16", "RG16_S", "RG32", "RG32_S",
		"RGB8_S", "RGB16", "RGB16_S", "RGB32", "RGB32_S", "RGBA8", "RGBA8_S"}
	ue2FormatNames = []string{"P8", "RGBA7", "RGB16", "DXT1", "RGB8", "RGBA8", "NODATA", "DXT3", "DXT5", "L8", "G16", "RRRGGGBBB"}

	ue1Layouts = map[byte]Layout{0: LayoutP8, 3: LayoutDXT1Opaque, 5: LayoutBGRA8, 6: LayoutDXT3, 7: LayoutDXT5,
		26: LayoutDXT1, 44: LayoutRGBA8}
	ue2Layouts = map[byte]Layout{0: LayoutP8, 3: LayoutDXT1, 5: LayoutBGRA8, 7: LayoutDXT3, 8: LayoutDXT5,
		9: LayoutL8, 10: LayoutG16}
)

// Name returns the engine's name for the format ("P8", "DXT1", "BC1", ...),
// or "" when the code is past the engine's list.
func (f Format) Name() string {
	names := ue1FormatNames
	if f.UE2 {
		names = ue2FormatNames
	}
	if int(f.Code) < len(names) {
		return names[f.Code]
	}
	return ""
}

// String returns the name and, for formats unrmod does not decode, the code:
// "P8", "BC7 (format 12)", "format 200".
func (f Format) String() string {
	n := f.Name()
	switch {
	case n == "":
		return fmt.Sprintf("format %d", f.Code)
	case f.Layout() == LayoutUnknown:
		return fmt.Sprintf("%s (format %d)", n, f.Code)
	}
	return n
}

// Layout returns how the format's mips are laid out, or LayoutUnknown.
func (f Format) Layout() Layout {
	if f.UE2 {
		return ue2Layouts[f.Code]
	}
	return ue1Layouts[f.Code]
}

// Supported lists the formats unrmod decodes and encodes for the engine
// generation of f, by name.
func (f Format) Supported() []string {
	var out []string
	names, layouts := ue1FormatNames, ue1Layouts
	if f.UE2 {
		names, layouts = ue2FormatNames, ue2Layouts
	}
	for code := range names {
		if layouts[byte(code)] != LayoutUnknown {
			out = append(out, names[code])
		}
	}
	return out
}
