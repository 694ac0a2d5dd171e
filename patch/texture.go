package patch

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/reader/texture"
)

// ReplaceTexture replaces the pixels of a Texture export of a legacy
// package with a PNG image: the image's size becomes the texture's (each
// side a power of two), its pixels are converted to the texture's format
// (P8 textures: mapped to the palette, or to a new palette that replaces
// the palette's colours), its mips are made anew, and the size properties
// and every mip offset follow. See docs/patch-format.md.
type ReplaceTexture struct {
	Pos    Pos
	Object string
	// Image is the PNG file, relative to the patch file.
	Image    string
	imagePos Pos
	Palette  texture.PaletteMode
	Mips     texture.MipMode
	Dither   bool
}

// Values of replace-texture's palette and mips keys.
var (
	texturePaletteModes = map[string]texture.PaletteMode{"keep": texture.PaletteKeep, "new": texture.PaletteNew}
	textureMipModes     = map[string]texture.MipMode{"generate": texture.MipsGenerate, "keep-count": texture.MipsKeepCount}
)

func parseReplaceTexture(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "replace-texture", []string{"object", "image", "palette", "mips", "dither"}, []string{"object", "image"})
	if err != nil {
		return nil, err
	}
	op := &ReplaceTexture{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.Image, err = ps.nonEmpty(m["image"], "image"); err != nil {
		return nil, err
	}
	op.Image, op.imagePos = slashes(op.Image), ps.pos(m["image"])
	if v, ok := m["palette"]; ok {
		s, err := ps.str(v, "palette")
		if err != nil {
			return nil, err
		}
		mode, ok := texturePaletteModes[strings.ToLower(strings.TrimSpace(s))]
		if !ok {
			return nil, ps.errf(v, "palette must be keep (map the pixels to the texture's palette) or new (build a palette for the image), not %q", s)
		}
		op.Palette = mode
	}
	if v, ok := m["mips"]; ok {
		s, err := ps.str(v, "mips")
		if err != nil {
			return nil, err
		}
		mode, ok := textureMipModes[strings.ToLower(strings.TrimSpace(s))]
		if !ok {
			return nil, ps.errf(v, "mips must be generate (every mip down to 1×1) or keep-count (as many mips as the texture has), not %q", s)
		}
		op.Mips = mode
	}
	if v, ok := m["dither"]; ok {
		switch s := strings.ToLower(strings.TrimSpace(v.Value)); {
		case v.Kind == yaml.ScalarNode && (s == "true" || s == "false"):
			op.Dither = s == "true"
		default:
			return nil, ps.errf(v, "dither must be true or false, not %s", kindName(v))
		}
	}
	return op, nil
}

// Kind implements Op.
func (op *ReplaceTexture) Kind() string { return "replace-texture" }

// Position implements Op.
func (op *ReplaceTexture) Position() Pos { return op.Pos }
