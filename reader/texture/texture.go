// Package texture decodes and encodes the pixels of legacy Unreal textures
// (Texture exports of UE1 and UE2 packages, file versions 61 to 129): their
// mips, in the P8 (palette), BGRA8/RGBA8, DXT1/3/5, L8 and G16 formats,
// and the colours of the Palette export a P8 texture refers to.
//
// Read describes one Texture export of a reader.Package and Image decodes
// one of its mips. Encode turns an image into a full set of mips in the
// texture's own format (quantising to its palette, or to a new one, for P8
// textures) for a patch to store; AppendMips lays them out as the engine
// does. The formats, the palette conventions and the mip rules are
// described in docs/textures.md.
package texture

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
)

// Errors wrapped by the errors of this package, for callers that branch on
// the kind of failure. Corrupt data is reported as a *reader.FormatError
// wrapping reader.ErrCorrupt.
var (
	// ErrNotTexture: the export is not of class Texture or a subclass.
	ErrNotTexture = errors.New("not a texture")
	// ErrUnsupportedFormat: the texture's format is one unrmod does not
	// decode or encode.
	ErrUnsupportedFormat = errors.New("unsupported texture format")
	// ErrNoPixels: the texture stores no pixels (procedural textures such as
	// FireTexture compute theirs at run time).
	ErrNoPixels = errors.New("texture stores no pixels")
	// ErrSize: an image size unrmod refuses (not a power of two, or larger
	// than MaxSize).
	ErrSize = errors.New("unsupported texture size")
)

// kindError is an error of one of the kinds above, with its own message.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// kindErrorf returns an error of kind whose message is the formatted text.
func kindErrorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// MaxSize is the longest side, in pixels, of a texture unrmod decodes or
// encodes. It bounds the memory an image takes before any pixel is read.
const MaxSize = 4096

// Texture describes one Texture export and its mips, as stored.
type Texture struct {
	Package *reader.Package
	Export  int
	Path    string // the export's full path
	Class   string // Texture, FireTexture, ...
	// Exact reports whether the class is Texture itself, whose data ends
	// after its mips; subclasses store more after them.
	Exact  bool
	Format Format
	// Masked is the bMasked property: palette index 0 is transparent.
	Masked bool
	// AlphaTexture is the bAlphaTexture property: the palette's alpha
	// channel is the pixels' alpha.
	AlphaTexture bool
	// PaletteRef is the Palette property (0 when the texture has none).
	PaletteRef reader.ObjectRef
	// Palette is the palette export's colours as stored, when PaletteRef is
	// an export of this package; nil otherwise.
	Palette *Palette
	// Mips are the mip levels, largest first (the Mips array; S3TC
	// CompMips are not included).
	Mips []Mip
	// CompMips is the number of mips in the CompMips array that follows
	// Mips when bHasComp is set (UT 436's S3TC copies); unrmod does not
	// decode them.
	CompMips int
	// Props is the export's property list.
	Props *reader.PropertyList

	paletteErr error // why Palette is nil for a texture that names one
}

// Mip is one stored mip level.
type Mip struct {
	Width, Height int
	// Data is the mip's bytes, a slice of the export's data.
	Data []byte
	// Offset is the absolute file offset of Data (for messages).
	Offset int64
	// Field names the lazy array for messages: Mips[0], Mips[1], ...
	Field string
}

// Read describes export i of p as a texture. It fails with ErrNotTexture
// (wrapped) for exports of other classes, and with a *reader.FormatError
// when the data does not parse.
func Read(p *reader.Package, i int) (*Texture, error) {
	if i < 0 || i >= len(p.Exports) {
		return nil, fmt.Errorf("%s: no export %d (%d exports)", p.FileName, i, len(p.Exports))
	}
	if p.NativeKind(i) != reader.NativeTexture {
		return nil, kindErrorf(ErrNotTexture, "%s: %s is a %s", p.FileName, p.ExportPath(i), p.ClassName(i))
	}
	nl, err := p.Native(i)
	if err != nil {
		return nil, err
	}
	e := &p.Exports[i]
	t := &Texture{Package: p, Export: i, Path: p.ExportPath(i), Class: p.ClassName(i), Exact: nl.End >= 0,
		Format: FormatOf(p.Header.Version, 0), CompMips: nl.CompMips, Props: nl.Props}
	for k := range nl.Props.Props {
		q := &nl.Props.Props[k]
		if q.ArrayIndex != 0 {
			continue
		}
		v, err := p.PropertyValue(i, q)
		if err != nil {
			return nil, err
		}
		switch name := strings.ToLower(p.NameOf(q.Name)); {
		case name == "format" && v.Type == reader.PropByte:
			t.Format.Code = v.Byte
		case name == "bmasked" && v.Type == reader.PropBool:
			t.Masked = v.Bool
		case name == "balphatexture" && v.Type == reader.PropBool:
			t.AlphaTexture = v.Bool
		case name == "palette" && v.Type == reader.PropObject:
			t.PaletteRef = v.Object
		}
	}
	for k, m := range nl.Mips[:len(nl.Mips)-nl.CompMips] {
		t.Mips = append(t.Mips, Mip{Width: int(m.USize), Height: int(m.VSize), Data: e.Data[m.Lazy.Start:m.Lazy.End],
			Offset: int64(e.SerialOffset) + int64(m.Lazy.Start), Field: fmt.Sprintf("Mips[%d]", k)})
	}
	if t.PaletteRef != 0 {
		if pi, ok := t.PaletteRef.Export(); ok {
			t.Palette, t.paletteErr = ReadPalette(p, pi)
		} else {
			ii, _ := t.PaletteRef.Import()
			t.paletteErr = fmt.Errorf("%s: the palette of %s, %s, lives in package %s, not in this file",
				p.FileName, t.Path, p.Path(t.PaletteRef), topPackage(p, reader.ImportRef(ii)))
		}
	}
	return t, nil
}

// topPackage returns the outermost package of import r.
func topPackage(p *reader.Package, r reader.ObjectRef) string {
	for k := 0; k < reader.MaxOuterDepth; k++ {
		i, ok := r.Import()
		if !ok || p.Imports[i].Outer == 0 {
			break
		}
		r = p.Imports[i].Outer
	}
	return p.ObjectName(r)
}

// Width returns the width of the first mip (0 when there is none).
func (t *Texture) Width() int {
	if len(t.Mips) == 0 {
		return 0
	}
	return t.Mips[0].Width
}

// Height returns the height of the first mip (0 when there is none).
func (t *Texture) Height() int {
	if len(t.Mips) == 0 {
		return 0
	}
	return t.Mips[0].Height
}

// String describes the texture: "64×64 P8, 7 mips, masked".
func (t *Texture) String() string {
	s := fmt.Sprintf("%d×%d %s, %s", t.Width(), t.Height(), t.Format, plural(len(t.Mips), "mip"))
	if t.Masked {
		s += ", masked"
	}
	if t.AlphaTexture {
		s += ", alpha"
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// RenderPalette returns the palette of a P8 texture as its pixels look: the
// stored colours, opaque unless the texture is an alpha texture (whose
// palette alpha is the pixels' alpha), and index 0 transparent in a masked
// texture. UE1 palettes store arbitrary alpha values (often 0), which the
// engine ignores for other textures.
func RenderPalette(stored []color.NRGBA, masked, alpha bool) color.Palette {
	out := make(color.Palette, len(stored))
	for k, c := range stored {
		if !alpha {
			c.A = 255
		}
		if masked && k == 0 {
			c.A = 0
		}
		out[k] = c
	}
	return out
}

// RenderPalette returns the texture's palette as its pixels look (see the
// function RenderPalette), or an error when the texture has no palette
// unrmod can read.
func (t *Texture) RenderPalette() (color.Palette, error) {
	if t.Palette == nil {
		if t.paletteErr != nil {
			return nil, t.paletteErr
		}
		return nil, fmt.Errorf("%s: %s is a P8 texture without a palette", t.Package.FileName, t.Path)
	}
	return RenderPalette(t.Palette.Colors, t.Masked, t.AlphaTexture), nil
}

// checkFormat returns the texture's layout, or an error naming a format
// unrmod does not handle.
func (t *Texture) checkFormat() (Layout, error) {
	l := t.Format.Layout()
	if l == LayoutUnknown {
		return l, kindErrorf(ErrUnsupportedFormat, "%s: %s has format %s; unrmod handles %s", t.Package.FileName, t.Path,
			t.Format, strings.Join(t.Format.Supported(), ", "))
	}
	return l, nil
}

// mipErr reports corrupt mip data as a *reader.FormatError.
func (t *Texture) mipErr(m *Mip, format string, args ...any) error {
	return &reader.FormatError{File: t.Package.FileName, Struct: fmt.Sprintf("export %d %q %s", t.Export, t.Path, m.Field),
		Offset: m.Offset, Msg: fmt.Sprintf(format, args...), Err: reader.ErrCorrupt}
}

// Image decodes mip level k: an *image.Paletted for P8 textures (with the
// palette as rendered, see RenderPalette), an *image.Gray or *image.Gray16
// for L8 and G16, and an *image.NRGBA otherwise. It fails on unsupported
// formats, on mips whose size does not match their data and on palette
// indices past the palette.
func (t *Texture) Image(k int) (image.Image, error) {
	if k < 0 || k >= len(t.Mips) {
		return nil, fmt.Errorf("%s: %s has %s, no mip %d", t.Package.FileName, t.Path, plural(len(t.Mips), "mip"), k)
	}
	l, err := t.checkFormat()
	if err != nil {
		return nil, err
	}
	m := &t.Mips[k]
	if len(m.Data) == 0 && !t.Exact {
		return nil, kindErrorf(ErrNoPixels, "%s: %s is a %s, whose pixels the engine computes at run time",
			t.Package.FileName, t.Path, t.Class)
	}
	w, h := m.Width, m.Height
	if w <= 0 || h <= 0 || w > MaxSize || h > MaxSize {
		return nil, t.mipErr(m, "mip size %d×%d is outside 1..%d", w, h, MaxSize)
	}
	if want := l.MipSize(w, h); len(m.Data) != want {
		return nil, t.mipErr(m, "a %d×%d %s mip takes %d bytes, but the mip holds %d", w, h, t.Format, want, len(m.Data))
	}
	r := image.Rect(0, 0, w, h)
	switch l {
	case LayoutP8:
		pal, err := t.RenderPalette()
		if err != nil {
			return nil, err
		}
		for n, ix := range m.Data {
			if int(ix) >= len(pal) {
				return nil, &reader.FormatError{File: t.Package.FileName, Struct: fmt.Sprintf("export %d %q %s", t.Export, t.Path, m.Field),
					Offset: m.Offset + int64(n), Err: reader.ErrCorrupt,
					Msg: fmt.Sprintf("pixel (%d,%d) is palette index %d, past the %d colours of %s", n%w, n/w, ix, len(pal),
						t.Package.ExportPath(t.Palette.Export))}
			}
		}
		return &image.Paletted{Pix: append([]byte(nil), m.Data...), Stride: w, Rect: r, Palette: pal}, nil
	case LayoutL8:
		return &image.Gray{Pix: append([]byte(nil), m.Data...), Stride: w, Rect: r}, nil
	case LayoutG16:
		img := image.NewGray16(r)
		for n := 0; n < w*h; n++ {
			// Gray16 is big-endian; G16 mips are little-endian.
			img.Pix[2*n], img.Pix[2*n+1] = m.Data[2*n+1], m.Data[2*n]
		}
		return img, nil
	case LayoutBGRA8, LayoutRGBA8:
		img := image.NewNRGBA(r)
		copy(img.Pix, m.Data)
		if l == LayoutBGRA8 {
			for n := 0; n < len(img.Pix); n += 4 {
				img.Pix[n], img.Pix[n+2] = img.Pix[n+2], img.Pix[n]
			}
		}
		return img, nil
	}
	img := image.NewNRGBA(r)
	decodeBlocks(img, m.Data, l)
	return img, nil
}

// Palette is the colour table of a Palette export.
type Palette struct {
	Export int
	// Colors are the stored colours (R, G, B, A).
	Colors []color.NRGBA
	// at is the data offset of the colour count.
	at int
}

// ReadPalette decodes the colours of Palette export i: after its property
// list, a count and that many R, G, B, A quadruples, ending the data.
func ReadPalette(p *reader.Package, i int) (*Palette, error) {
	if !strings.EqualFold(p.ClassName(i), "Palette") {
		return nil, fmt.Errorf("%s: %s is a %s, not a Palette", p.FileName, p.ExportPath(i), p.ClassName(i))
	}
	l, err := p.Properties(i)
	if err != nil {
		return nil, err
	}
	e := &p.Exports[i]
	c := binio.NewCursor(e.Data, int64(e.SerialOffset))
	c.Seek(l.End, "palette colours")
	n := c.Count("colour count", 4)
	pl := &Palette{Export: i, at: l.End, Colors: make([]color.NRGBA, 0, n)}
	for k := 0; k < n && c.Err() == nil; k++ {
		b := c.Bytes(4, "colour")
		if c.Err() == nil {
			pl.Colors = append(pl.Colors, color.NRGBA{b[0], b[1], b[2], b[3]})
		}
	}
	if err := c.Err(); err != nil {
		what, off, msg, _ := binio.Describe(err)
		return nil, &reader.FormatError{File: p.FileName, Struct: fmt.Sprintf("export %d %q palette", i, p.ExportPath(i)),
			Offset: off, Msg: what + ": " + msg, Err: err}
	}
	if c.Len() != 0 {
		return nil, &reader.FormatError{File: p.FileName, Struct: fmt.Sprintf("export %d %q palette", i, p.ExportPath(i)),
			Offset: c.Abs(), Msg: fmt.Sprintf("%d bytes follow the %d colours", c.Len(), n), Err: reader.ErrCorrupt}
	}
	if n == 0 || n > 256 {
		return nil, &reader.FormatError{File: p.FileName, Struct: fmt.Sprintf("export %d %q palette", i, p.ExportPath(i)),
			Offset: int64(e.SerialOffset) + int64(l.End), Msg: fmt.Sprintf("%d colours; a palette has 1 to 256", n), Err: reader.ErrCorrupt}
	}
	return pl, nil
}

// Data returns the palette export's data with its colours replaced by
// colors (any number from 1 to 256): the property list is kept as it is.
func (pl *Palette) Data(p *reader.Package, colors []color.NRGBA) []byte {
	old := p.Exports[pl.Export].Data
	d := append(make([]byte, 0, pl.at+5+4*len(colors)), old[:pl.at]...)
	d = binio.AppendIndex(d, int32(len(colors)))
	for _, c := range colors {
		d = append(d, c.R, c.G, c.B, c.A)
	}
	return d
}
