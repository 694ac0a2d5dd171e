package patch

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/writer"
)

func (op *ReplaceTexture) applyLegacy(c *legacyContext) ([]Change, error) {
	p := c.p
	r, err := c.resolve(op.Pos, op.Object, true, false)
	if err != nil {
		return nil, err
	}
	i, _ := r.Export()
	target := "export " + p.ExportPath(i)
	t, err := texture.Read(p, i)
	if err != nil {
		return nil, &Error{Pos: op.Pos, Msg: err.Error(), Err: err}
	}
	src, err := safefile.ReadRegular(c.path(op.Image), reader.MaxFileSize, "an image for a legacy texture")
	if err != nil {
		return nil, &Error{Pos: op.imagePos, Msg: "image: " + err.Error(), Err: err}
	}
	img, err := texture.DecodePNG(src)
	if err != nil {
		return nil, &Error{Pos: op.imagePos, Msg: fmt.Sprintf("image %s: %v", op.Image, err), Err: err}
	}
	enc, err := t.Encode(img, texture.Options{Palette: op.Palette, Mips: op.Mips, Dither: op.Dither})
	if err != nil {
		return nil, &Error{Pos: op.Pos, Msg: err.Error(), Err: err}
	}

	// The palette's new colours, if they change.
	var palData []byte
	var pal *reader.Export
	if op.Palette == texture.PaletteNew && !slices.Equal(enc.Palette, t.Palette.Colors) {
		if users := paletteUsers(p, t.Palette.Export, i); len(users) > 0 {
			shown := users[:min(len(users), 8)]
			more := ""
			if len(users) > len(shown) {
				more = fmt.Sprintf(" and %d more", len(users)-len(shown))
			}
			verb := "use"
			if len(users) == 1 {
				verb = "uses"
			}
			return nil, errorf(op.Pos, "%s: palette: new would change the colours of %s, which %s also %s: %s%s. "+
				"Use palette: keep to map the image to the shared colours",
				p.FileName, describe(p, reader.ExportRef(t.Palette.Export)), count(len(users), "other object"), verb,
				strings.Join(shown, ", "), more)
		}
		palData = t.Palette.Data(p, enc.Palette)
		pal = &p.Exports[t.Palette.Export]
	}

	data, dropped, err := textureData(c, t, enc)
	if err != nil {
		return nil, errorf(op.Pos, "%s: %v", p.ExportPath(i), err)
	}
	how := []string{"from " + filepath.Base(op.Image)}
	if t.Format.Layout() == texture.LayoutP8 {
		switch {
		case enc.Indexed:
			how = append(how, "its palette indices as they are")
		case op.Palette == texture.PaletteNew:
			how = append(how, "new palette")
		default:
			how = append(how, "palette kept")
		}
		if op.Dither && !enc.Indexed {
			how = append(how, "dithered")
		}
	}
	ch := Change{Op: op.Kind(), Target: target, Field: "texture", Old: t.String(),
		New: fmt.Sprintf("%s (%s)", enc, strings.Join(how, ", "))}
	e := &p.Exports[i]
	if bytes.Equal(data, e.Data) && palData == nil {
		ch.Old, ch.Already = "", true
		return []Change{ch}, nil
	}
	var warns []string
	if dropped {
		warns = append(warns, "bHasComp is cleared and the texture's S3TC copy (CompMips) dropped: the engine shows the new mips")
	}
	if t.Format.Layout() == texture.LayoutP8 && !t.Masked && !t.AlphaTexture && !isOpaque(img) {
		warns = append(warns, "the image has transparent pixels, but the texture is neither masked (bMasked) nor an alpha texture: they show their colour, opaque")
	}
	ch.Warning = strings.Join(warns, "; ")

	old, oldOwned := e.Data, c.owned[i]
	e.Data, e.SerialSize = data, int32(len(data))
	c.owned[i] = true
	if err := checkData(p, i); err != nil {
		e.Data, e.SerialSize, c.owned[i] = old, int32(len(old)), oldOwned
		return nil, errorf(op.Pos, "%s: the rebuilt texture does not parse (a bug in unrmod): %v", p.ExportPath(i), err)
	}
	changes := []Change{ch}
	if pal != nil {
		changes = append(changes, Change{Op: op.Kind(), Target: "export " + p.ExportPath(t.Palette.Export), Field: "colours",
			Old: count(len(t.Palette.Colors), "colour"), New: fmt.Sprintf("%s, made for %s", count(len(enc.Palette), "colour"), filepath.Base(op.Image))})
		pal.Data, pal.SerialSize = palData, int32(len(palData))
		c.owned[t.Palette.Export] = true
	}
	return changes, nil
}

// isOpaque reports whether every pixel of img is opaque.
func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xFFFF {
				return false
			}
		}
	}
	return true
}

// paletteUsers lists the objects other than export self whose properties
// refer to palette export pal.
func paletteUsers(p *reader.Package, pal, self int) []string {
	var out []string
	for k := range p.Exports {
		if k == self || k == pal || p.Exports[k].Class == 0 {
			continue
		}
		l, err := p.Properties(k)
		if err != nil {
			continue
		}
		for n := range l.Props {
			q := &l.Props[n]
			if q.Type != reader.PropObject {
				continue
			}
			if v, err := p.PropertyValue(k, q); err == nil && v.Object == reader.ExportRef(pal) {
				out = append(out, describe(p, reader.ExportRef(k)))
				break
			}
		}
	}
	return out
}

// textureData returns the export data of texture t holding enc: the property
// list with the size properties (and the colour summaries the engine keeps)
// set for the new mips, then the mips, laid out for the export's current
// file offset. dropped reports that bHasComp was set and is now cleared.
func textureData(c *legacyContext, t *texture.Texture, enc *texture.Encoded) (data []byte, dropped bool, err error) {
	p := c.p
	e := &p.Exports[t.Export]
	l := t.Props
	log2 := func(n int) int32 { return int32(bits.Len(uint(n)) - 1) }
	type edit struct {
		typ   reader.PropertyType
		value int32
		color *color.NRGBA
		add   bool // add the tag when the export has none
		done  bool
	}
	oldW, oldH := t.Width(), t.Height()
	resized := oldW != enc.Width || oldH != enc.Height
	mipZero := enc.MipZero
	edits := map[string]*edit{
		"usize":   {typ: reader.PropInt, value: int32(enc.Width), add: true},
		"vsize":   {typ: reader.PropInt, value: int32(enc.Height), add: true},
		"ubits":   {typ: reader.PropByte, value: log2(enc.Width), add: true},
		"vbits":   {typ: reader.PropByte, value: log2(enc.Height), add: true},
		"uclamp":  {typ: reader.PropInt, value: int32(enc.Width), add: resized},
		"vclamp":  {typ: reader.PropInt, value: int32(enc.Height), add: resized},
		"mipzero": {typ: reader.PropStruct, color: &mipZero},
	}
	if enc.MaxColor != nil {
		edits["maxcolor"] = &edit{typ: reader.PropStruct, color: enc.MaxColor}
	}
	out := append([]byte(nil), e.Data[:l.Start]...)
	end := l.Start
	for k := range l.Props {
		q := &l.Props[k]
		orig := e.Data[q.Start : q.ValueStart+q.Size]
		end = q.ValueStart + q.Size
		name := strings.ToLower(p.NameOf(q.Name))
		tag := writer.PropertyTag{Name: q.Name, Type: q.Type, StructName: q.StructName, ArrayIndex: q.ArrayIndex}
		if name == "bhascomp" && q.Type == reader.PropBool && q.Bool {
			dropped = true
			tag.Bool = false
			if out, err = writer.AppendPropertyTag(out, tag, nil); err != nil {
				return nil, false, err
			}
			continue
		}
		ed := edits[name]
		if ed == nil || q.ArrayIndex != 0 {
			out = append(out, orig...)
			continue
		}
		ed.done = true
		var value []byte
		switch {
		case ed.color != nil && q.Type == reader.PropStruct && q.Size == reader.ColorSize:
			value = reader.AppendColor(nil, p.Header.Version, *ed.color)
		case ed.color == nil && q.Type == reader.PropInt:
			value = binio.AppendI32(nil, ed.value)
		case ed.color == nil && q.Type == reader.PropByte && ed.value < 256:
			value = []byte{byte(ed.value)}
		case ed.color == nil:
			return nil, false, fmt.Errorf("%s is stored as %s, which cannot hold %d", p.NameOf(q.Name), q.Type, ed.value)
		}
		if value == nil || bytes.Equal(value, q.Value(e.Data)) {
			out = append(out, orig...)
			continue
		}
		if out, err = writer.AppendPropertyTag(out, tag, value); err != nil {
			return nil, false, err
		}
	}
	for _, name := range []string{"USize", "VSize", "UBits", "VBits", "UClamp", "VClamp"} {
		ed := edits[strings.ToLower(name)]
		if ed.done || !ed.add {
			continue
		}
		value := binio.AppendI32(nil, ed.value)
		if ed.typ == reader.PropByte {
			value = []byte{byte(ed.value)}
		}
		if out, err = writer.AppendPropertyTag(out, writer.PropertyTag{Name: c.addName(name), Type: ed.typ}, value); err != nil {
			return nil, false, err
		}
	}
	out = append(out, e.Data[end:l.End]...) // None
	return texture.AppendMips(out, p.Header.Version, int64(e.SerialOffset), enc.Mips), dropped, nil
}
