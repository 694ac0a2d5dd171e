package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
	"github.com/unrmod/unrmod/writer"
)

// ---- helpers ----

// writePNG encodes img as dir/name and returns the file's path.
func writePNG(t testing.TB, dir, name string, img image.Image) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readTexture describes the texture at path (a full path) in p.
func readTexture(t testing.TB, p *reader.Package, path string) *texture.Texture {
	t.Helper()
	tex, err := texture.Read(p, exportByPath(t, p, path))
	if err != nil {
		t.Fatal(err)
	}
	return tex
}

// mipImage decodes mip k of tex.
func mipImage(t testing.TB, tex *texture.Texture, k int) image.Image {
	t.Helper()
	img, err := tex.Image(k)
	if err != nil {
		t.Fatalf("%s mip %d: %v", tex.Path, k, err)
	}
	return img
}

// resample returns p scaled by num/den (1/2 or 2/1) by taking the nearest
// source pixel: a paletted image of the same palette.
func resample(p *image.Paletted, num, den int) *image.Paletted {
	b := p.Bounds()
	out := image.NewPaletted(image.Rect(0, 0, max(1, b.Dx()*num/den), max(1, b.Dy()*num/den)), p.Palette)
	for y := 0; y < out.Rect.Dy(); y++ {
		for x := 0; x < out.Rect.Dx(); x++ {
			out.SetColorIndex(x, y, p.ColorIndexAt(b.Min.X+x*den/num, b.Min.Y+y*den/num))
		}
	}
	return out
}

// asNRGBA returns img as a non-paletted image.
func asNRGBA(img image.Image) *image.NRGBA {
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out
}

// samePixels reports the first pixel where a and b look different (both
// converted to non-premultiplied colour; transparent pixels compare equal).
func samePixels(a, b image.Image) error {
	if a.Bounds().Size() != b.Bounds().Size() {
		return fmt.Errorf("size %v, want %v", a.Bounds().Size(), b.Bounds().Size())
	}
	ba, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ba.Dy(); y++ {
		for x := 0; x < ba.Dx(); x++ {
			ca := color.NRGBAModel.Convert(a.At(ba.Min.X+x, ba.Min.Y+y)).(color.NRGBA)
			cb := color.NRGBAModel.Convert(b.At(bb.Min.X+x, bb.Min.Y+y)).(color.NRGBA)
			if ca.A == 0 && cb.A == 0 {
				continue
			}
			if ca != cb {
				return fmt.Errorf("pixel (%d,%d) is %v, want %v", x, y, ca, cb)
			}
		}
	}
	return nil
}

// texOp is one replace-texture operation of a generated patch.
type texOp struct {
	object, image string
	extra         string // more keys, e.g. ", palette: new"
}

// texturePatch returns a patch with one target that writes output.
func texturePatch(file, output string, layout writer.Layout, ops []texOp) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unrmod: 1\ntargets:\n  - file: %s\n    output: %s\n    layout: %s\n    ops:\n", yamlQuote(file), yamlQuote(output), layout)
	for _, op := range ops {
		fmt.Fprintf(&b, "      - replace-texture: {object: %s, image: %s%s}\n", yamlQuote(op.object), yamlQuote(op.image), op.extra)
	}
	return b.String()
}

// ---- real packages ----

// TestReplaceTextureCorpus exports every texture of every real package
// that has textures and stores images back with replace-texture, in both
// layouts: the same image (P8 keeps its exact palette indices), the image
// at half and at double size (paletted: exact indices, resampled), the
// image as RGBA (mapped to the palette: the same colours), and, where a
// texture has its palette to itself, the image with palette: new (the same
// colours from a rebuilt palette). Every output verifies (lazy-array
// offsets included), and every mip of every replaced texture decodes to the
// size its properties say.
func TestReplaceTextureCorpus(t *testing.T) {
	files := textureCorpus(t)
	type variant struct {
		name   string
		make   func(p *image.Paletted) image.Image
		extra  string
		exact  bool // P8 indices of the first mip are the image's
		scale  [2]int
		ownPal bool // only textures whose palette no other object uses
	}
	variants := []variant{
		{name: "same", make: func(p *image.Paletted) image.Image { return p }, exact: true, scale: [2]int{1, 1}},
		{name: "half", make: func(p *image.Paletted) image.Image { return resample(p, 1, 2) }, exact: true, scale: [2]int{1, 2}},
		{name: "double", make: func(p *image.Paletted) image.Image { return resample(p, 2, 1) }, exact: true, scale: [2]int{2, 1}},
		{name: "rgba-dither", make: func(p *image.Paletted) image.Image { return asNRGBA(p) }, extra: ", dither: true", scale: [2]int{1, 1}},
		{name: "new-palette", make: func(p *image.Paletted) image.Image { return asNRGBA(p) }, extra: ", palette: new, mips: keep-count",
			scale: [2]int{1, 1}, ownPal: true},
	}
	stats := map[string]int{}
	formats := map[string]int{}
	var filesDone []string
	for _, file := range files {
		rel, _ := filepath.Rel(corpus.Dir(t), file)
		in, err := reader.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		// The textures with pixels, exported as the command does.
		type tex struct {
			path   string
			spec   string
			img    *image.Paletted
			mips   int
			owned  bool
			format string
		}
		var list []tex
		for i := range in.Exports {
			if in.NativeKind(i) != reader.NativeTexture {
				continue
			}
			tx, err := texture.Read(in, i)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			img, err := tx.Image(0)
			if errors.Is(err, texture.ErrNoPixels) {
				stats["procedural textures skipped"]++
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			pi, ok := img.(*image.Paletted)
			if !ok {
				t.Fatalf("%s: %s is %s; the corpus holds P8 textures only, extend this test", rel, tx.Path, tx.Format)
			}
			owned := tx.Palette != nil && len(paletteUsersOf(in, tx.Palette.Export)) == 1
			list = append(list, tex{tx.Path, tx.Class + "'" + tx.Path + "'", pi, len(tx.Mips), owned, tx.Format.String()})
		}
		if len(list) == 0 {
			continue
		}
		if err := writer.Writable(in.Header.Version); err != nil {
			t.Logf("%s: %d textures, not written: %v", rel, len(list), err)
			stats["textures in read-only packages"] += len(list)
			continue
		}
		filesDone = append(filesDone, rel)
		for _, tx := range list {
			formats[tx.format]++
		}
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			dir := t.TempDir()
			for _, v := range variants {
				var ops []texOp
				var used []tex
				for k, tx := range list {
					if v.ownPal && !tx.owned {
						continue
					}
					used = append(used, tx)
					png := writePNG(t, dir, fmt.Sprintf("%s-%d.png", v.name, k), v.make(tx.img))
					ops = append(ops, texOp{tx.spec, png, v.extra})
				}
				if len(ops) == 0 {
					continue
				}
				for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
					// The package name is the file's: keep it.
					out := filepath.Join(dir, fmt.Sprintf("%s-%s", v.name, layout), filepath.Base(file))
					f := parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(file, out, layout, ops))
					if _, err := patch.Apply(f, patch.Options{}); err != nil {
						t.Fatalf("%s, %s layout: %v", v.name, layout, err)
					}
					q := readPkg(t, out) // fails on any verification problem
					for _, tx := range used {
						got := readTexture(t, q, tx.path)
						w, h := tx.img.Rect.Dx()*v.scale[0]/v.scale[1], tx.img.Rect.Dy()*v.scale[0]/v.scale[1]
						if got.Width() != max(1, w) || got.Height() != max(1, h) {
							t.Fatalf("%s %s: %d×%d, want %d×%d", v.name, tx.path, got.Width(), got.Height(), w, h)
						}
						checkSizeProps(t, q, got)
						for k := range got.Mips {
							mipImage(t, got, k)
						}
						first := mipImage(t, got, 0).(*image.Paletted)
						want := v.make(tx.img)
						if v.exact {
							if !bytes.Equal(first.Pix, want.(*image.Paletted).Pix) {
								t.Errorf("%s %s: palette indices differ", v.name, tx.path)
							}
						} else if err := samePixels(first, want); err != nil {
							t.Errorf("%s %s: %v", v.name, tx.path, err)
						}
						if v.scale == [2]int{1, 1} && len(got.Mips) != tx.mips {
							t.Errorf("%s %s: %d mips, had %d", v.name, tx.path, len(got.Mips), tx.mips)
						}
						stats[fmt.Sprintf("%s/%s", v.name, layout)]++
					}
				}
			}
		})
	}
	var keys []string
	for k, n := range stats {
		keys = append(keys, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(keys)
	var fl []string
	for f, n := range formats {
		fl = append(fl, fmt.Sprintf("%s %d", f, n))
	}
	t.Logf("%d files (%s); textures by format: %s; replaced per variant/layout: %s",
		len(filesDone), strings.Join(filesDone, ", "), strings.Join(fl, ", "), strings.Join(keys, "; "))
	if len(filesDone) == 0 || stats["same/preserve"] == 0 || stats["new-palette/compact"] == 0 {
		t.Errorf("nothing was replaced: %v", stats)
	}
}

// paletteUsersOf lists the exports whose properties refer to palette pal.
func paletteUsersOf(p *reader.Package, pal int) []int {
	var out []int
	for k := range p.Exports {
		l, err := p.Properties(k)
		if err != nil {
			continue
		}
		for n := range l.Props {
			if q := &l.Props[n]; q.Type == reader.PropObject {
				if v, err := p.PropertyValue(k, q); err == nil && v.Object == reader.ExportRef(pal) {
					out = append(out, k)
					break
				}
			}
		}
	}
	return out
}

// checkSizeProps checks that a texture's size properties describe its
// first mip.
func checkSizeProps(t testing.TB, p *reader.Package, tex *texture.Texture) {
	t.Helper()
	want := map[string]int{"USize": tex.Width(), "VSize": tex.Height(), "UClamp": tex.Width(), "VClamp": tex.Height()}
	for _, n := range []string{"UBits", "VBits"} {
		size := tex.Width()
		if n == "VBits" {
			size = tex.Height()
		}
		bits := 0
		for size > 1 {
			size >>= 1
			bits++
		}
		want[n] = bits
	}
	for name, w := range want {
		v, ok := propValue(t, p, tex.Export, name)
		if !ok {
			if strings.HasSuffix(name, "Clamp") {
				continue
			}
			t.Errorf("%s has no %s", tex.Path, name)
			continue
		}
		got := int(v.Int)
		if v.Type == reader.PropByte {
			got = int(v.Byte)
		}
		if got != w {
			t.Errorf("%s %s = %d, want %d", tex.Path, name, got, w)
		}
	}
}

// ---- the demo package and synthetic packages ----

const demoPkg = "../examples/packages/UnrmodDemo.u"

// gradient is a w×h opaque colour gradient.
func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{byte(x * 255 / max(1, w-1)), byte(y * 255 / max(1, h-1)), 128, 255})
		}
	}
	return img
}

func TestReplaceTextureDemo(t *testing.T) {
	demo, err := filepath.Abs(demoPkg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	img := writePNG(t, dir, "grad.png", gradient(64, 64))
	for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
		t.Run(layout.String(), func(t *testing.T) {
			out := filepath.Join(dir, layout.String(), "UnrmodDemo.u")
			text := texturePatch(demo, out, layout, []texOp{{"Skins.Stripes", img, ", dither: true"}})
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), text)
			res, err := patch.Apply(f, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Targets[0].Changes
			want := "replace-texture: export UnrmodDemo.Skins.Stripes texture: 32×32 P8, 6 mips → 64×64 P8, 7 mips (from grad.png, palette kept, dithered)"
			if len(ch) != 1 || ch[0].String() != want {
				t.Errorf("changes %q,\nwant %q", ch, want)
			}
			in, q := readPkg(t, demo), readPkg(t, out)
			tex := readTexture(t, q, "UnrmodDemo.Skins.Stripes")
			if tex.String() != "64×64 P8, 7 mips" {
				t.Errorf("output texture %s", tex)
			}
			checkSizeProps(t, q, tex)
			checkMipsPointAtUSize(t, q, tex.Export)
			sameExportContent(t, in, q, "UnrmodDemo.Skins.Stripes")
			// The grey palette: the gradient's grey levels.
			first := mipImage(t, tex, 0)
			if c := color.GrayModel.Convert(first.At(63, 63)).(color.Gray); c.Y < 160 {
				t.Errorf("bottom-right pixel %v; want light grey", first.At(63, 63))
			}
			// Applying the patch to its output changes nothing.
			again := parsePatch(t, filepath.Join(dir, "p2.yaml"), texturePatch(out, out+".again", layout, []texOp{{"Skins.Stripes", img, ", dither: true"}}))
			res2, err := patch.Apply(again, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c := res2.Targets[0].Changes; len(c) != 1 || !c[0].Already || res2.Targets[0].Changed {
				t.Errorf("second run: %v", c)
			}
		})
	}
}

// tempPackage writes a package built by b into dir and returns its path.
func tempPackage(t testing.TB, dir, name string, b *fixture.Builder) string {
	t.Helper()
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// formatPackage builds a package of version v with one 8×8 texture "T" of
// format code, 4 mips of zero bytes of layout l.
func formatPackage(v reader.Version, code byte, l texture.Layout, class string) *fixture.Builder {
	b := fixture.New("Fmt", v, reader.GUID{7, 7, 7, 7})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	var mips []fixture.Mip
	for s := 8; s >= 1; s /= 2 {
		mips = append(mips, fixture.Mip{USize: s, VSize: s, Pixels: make([]byte, max(0, l.MipSize(s, s)))})
	}
	props := b.Props().Byte("Format", code).Int("USize", 8).Int("VSize", 8).Byte("UBits", 3).Byte("VBits", 3).
		Int("UClamp", 8).Int("VClamp", 8).Bytes()
	b.Export(b.Class("Engine", class), 0, "T", flags, b.Texture(props, mips))
	return b
}

// TestReplaceTextureFormats replaces textures of every format unrmod
// encodes, in UE1 and UE2 packages and both layouts, with an image of
// another size.
func TestReplaceTextureFormats(t *testing.T) {
	ue1, ue2 := reader.Version{File: 69}, reader.Version{File: 128, Licensee: 29}
	src := image.NewNRGBA(image.Rect(0, 0, 16, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 16; x++ {
			src.SetNRGBA(x, y, color.NRGBA{byte(16 * x), byte(60 * y), 200, byte(255 - 16*x)})
		}
	}
	for _, tc := range []struct {
		v    reader.Version
		code byte
		tol  int
	}{
		// DXT blocks hold four colours on a line: the test image's blocks
		// spread in two directions, so they lose up to about 50.
		{ue1, 5, 0}, {ue1, 44, 0}, {ue1, 3, 64}, {ue1, 6, 64}, {ue1, 7, 64}, {ue1, 26, 64},
		{ue2, 3, 64}, {ue2, 5, 0}, {ue2, 7, 64}, {ue2, 8, 64}, {ue2, 9, 0}, {ue2, 10, 1},
	} {
		f := texture.FormatOf(tc.v, tc.code)
		t.Run(fmt.Sprintf("%d-%s", tc.v.File, f), func(t *testing.T) {
			dir := t.TempDir()
			in := tempPackage(t, dir, "Fmt.utx", formatPackage(tc.v, tc.code, f.Layout(), "Texture"))
			img := writePNG(t, dir, "src.png", src)
			for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
				out := filepath.Join(dir, layout.String(), "Fmt.utx")
				fp := parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(in, out, layout, []texOp{{"T", img, ""}}))
				res, err := patch.Apply(fp, patch.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Targets[0].Changes[0].String(); !strings.Contains(got, "8×8 "+f.String()+", 4 mips → 16×4 "+f.String()+", 5 mips") {
					t.Errorf("change %q", got)
				}
				tex := readTexture(t, readPkg(t, out), "Fmt.T")
				for k := range tex.Mips {
					mipImage(t, tex, k)
				}
				got := asNRGBA(mipImage(t, tex, 0))
				want := src
				switch f.Layout() {
				case texture.LayoutL8, texture.LayoutG16:
					want = asNRGBA(asGray(src))
				case texture.LayoutDXT1Opaque:
					want = opaqueCopy(src)
				}
				if d := worstDiff(got, want, f.Layout() == texture.LayoutDXT1); d > tc.tol {
					t.Errorf("%s: first mip off by %d (tolerance %d)", layout, d, tc.tol)
				}
			}
		})
	}
}

func asGray(img image.Image) image.Image {
	g := image.NewGray(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			g.SetGray(x, y, color.GrayModel.Convert(color.NRGBA{c.R, c.G, c.B, 255}).(color.Gray))
		}
	}
	return g
}

func opaqueCopy(img *image.NRGBA) *image.NRGBA {
	out := asNRGBA(img)
	for k := 3; k < len(out.Pix); k += 4 {
		out.Pix[k] = 255
	}
	return out
}

// worstDiff is the largest channel difference between a and b; with
// punch, pixels of b less than half opaque must be transparent in a, and
// only the colour of the others counts.
func worstDiff(a, b *image.NRGBA, punch bool) int {
	worst := 0
	for k := 0; k < len(a.Pix); k += 4 {
		n := 4
		if punch {
			if (b.Pix[k+3] < 128) != (a.Pix[k+3] == 0) {
				return 255
			}
			if b.Pix[k+3] < 128 {
				continue
			}
			n = 3
		}
		for c := 0; c < n; c++ {
			d := int(a.Pix[k+c]) - int(b.Pix[k+c])
			worst = max(worst, d, -d)
		}
	}
	return worst
}

// TestReplaceTextureRefusals checks every refusal: the error names the
// problem and its place in the patch, and nothing is written.
func TestReplaceTextureRefusals(t *testing.T) {
	dir := t.TempDir()
	demo, _ := filepath.Abs(demoPkg)
	ue2 := reader.Version{File: 128, Licensee: 29}
	rgb16 := tempPackage(t, dir, "Rgb16.utx", formatPackage(ue2, 2, texture.LayoutUnknown, "Texture"))
	rgba8 := tempPackage(t, dir, "Rgba8.utx", formatPackage(ue2, 5, texture.LayoutBGRA8, "Texture"))
	fire := tempPackage(t, dir, "Fire.utx", formatPackage(reader.Version{File: 69}, 0, texture.LayoutP8, "FireTexture"))
	imported := func() string {
		b := fixture.New("Imp", reader.Version{File: 69}, reader.GUID{1, 1, 1, 1})
		pal := b.Import("Engine", "Palette", "SharedPal", b.Import("Core", "Package", "OtherPkg", 0))
		props := b.Props().Object("Palette", pal).Int("USize", 1).Int("VSize", 1).Bytes()
		b.Export(b.Class("Engine", "Texture"), 0, "T", reader.RFPublic|reader.RFLoadContext, b.Texture(props, []fixture.Mip{{USize: 1, VSize: 1, Pixels: []byte{0}}}))
		return tempPackage(t, dir, "Imp.utx", b)
	}()
	okPNG := writePNG(t, dir, "ok.png", gradient(8, 8))
	npot := writePNG(t, dir, "npot.png", gradient(24, 16))
	huge := func() string {
		// A valid PNG header declaring 8192×8192 (the pixel data is a few
		// bytes): refused from the header.
		var b bytes.Buffer
		png.Encode(&b, gradient(1, 1))
		data := b.Bytes()
		copy(data[16:24], []byte{0, 0, 0x20, 0, 0, 0, 0x20, 0})
		crc := crc32IEEE(data[12:29])
		copy(data[29:33], []byte{byte(crc >> 24), byte(crc >> 16), byte(crc >> 8), byte(crc)})
		path := filepath.Join(dir, "huge.png")
		os.WriteFile(path, data, 0o644)
		return path
	}()
	notPNG := filepath.Join(dir, "note.txt")
	os.WriteFile(notPNG, []byte("hello, this is text, not an image"), 0o644)
	truncated := func() string {
		var b bytes.Buffer
		png.Encode(&b, gradient(16, 16))
		path := filepath.Join(dir, "cut.png")
		os.WriteFile(path, b.Bytes()[:60], 0o644)
		return path
	}()
	for _, tc := range []struct {
		name  string
		file  string
		op    texOp
		line  int // 7: the operation; the image's position is on the same line
		msg   string
		errIs error
	}{
		{"not a power of two", demo, texOp{"Skins.Stripes", npot, ""}, 7,
			"24×16: the engine needs each side to be a power of two (1, 2, 4, ... 4096); resize the image to 16×16 or 32×16", texture.ErrSize},
		{"larger than the limit", demo, texOp{"Skins.Stripes", huge, ""}, 7, "8192×8192: each side must be 1 to 4096 pixels", texture.ErrSize},
		{"unknown format", rgb16, texOp{"T", okPNG, ""}, 7, "Rgb16.T has format RGB16 (format 2); unrmod handles P8, DXT1, RGBA8, DXT3, DXT5, L8, G16", texture.ErrUnsupportedFormat},
		{"not a texture", demo, texOp{"Skins.DemoPalette", okPNG, ""}, 7, "UnrmodDemo.Skins.DemoPalette is a Palette", texture.ErrNotTexture},
		{"a sound", demo, texOp{"Sound'Beep'", okPNG, ""}, 7, "UnrmodDemo.Sounds.Beep is a Sound", texture.ErrNotTexture},
		{"palette shared", demo, texOp{"Skins.Checker", okPNG, ", palette: new"}, 7,
			"palette: new would change the colours of Palette'UnrmodDemo.Skins.DemoPalette', which 1 other object also uses: Texture'UnrmodDemo.Skins.Stripes'", nil},
		{"texture subclass", fire, texOp{"T", okPNG, ""}, 7, "Fire.T is a FireTexture, which stores more than its mips after them", texture.ErrUnsupportedFormat},
		{"palette new on RGBA8", rgba8, texOp{"T", okPNG, ", palette: new"}, 7, "palette: new applies to P8 textures only; Rgba8.T is in format RGBA8", nil},
		{"palette in another package", imported, texOp{"T", okPNG, ""}, 7, "the palette of Imp.T, OtherPkg.SharedPal, lives in package OtherPkg", nil},
		{"not a PNG", demo, texOp{"Skins.Stripes", notPNG, ""}, 7, "image " + notPNG + ": png: invalid format: not a PNG file", nil},
		{"corrupt PNG", demo, texOp{"Skins.Stripes", truncated, ""}, 7, "image " + truncated + ": png: invalid format: not enough pixel data", nil},
		{"missing image", demo, texOp{"Skins.Stripes", filepath.Join(dir, "nope.png"), ""}, 7, "no such file", nil},
		{"unknown object", demo, texOp{"Skins.Stripe", okPNG, ""}, 7, `no export "Skins.Stripe"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out", tc.name, filepath.Base(tc.file))
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(tc.file, out, writer.Preserve, []texOp{tc.op}))
			_, err := patch.Apply(f, patch.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.Pos.Line != tc.line {
				t.Errorf("error at %v, want line %d: %v", pe, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q\ndoes not say %q", err, tc.msg)
			}
			if tc.errIs != nil && !errors.Is(err, tc.errIs) {
				t.Errorf("error is not %v", tc.errIs)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

func TestParseReplaceTexture(t *testing.T) {
	for _, tc := range []struct {
		op, msg string
	}{
		{"replace-texture: {object: X}", `replace-texture is missing the required key "image"`},
		{"replace-texture: {object: X, image: a.png, palette: fresh}", "palette must be keep (map the pixels to the texture's palette) or new"},
		{"replace-texture: {object: X, image: a.png, mips: all}", "mips must be generate (every mip down to 1×1) or keep-count"},
		{"replace-texture: {object: X, image: a.png, dither: maybe}", `dither must be true or false, not the value "maybe"`},
		{"replace-texture: {object: X, image: a.png, pallete: new}", `unknown key "pallete" in replace-texture (did you mean "palette"?)`},
		{"replace-texture: {object: X, image: ''}", "image is empty"},
	} {
		_, err := patch.Parse("p.yaml", []byte(doc("      - "+tc.op+"\n")))
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "p.yaml:5:") {
			t.Errorf("%s: %v, want %q at line 5", tc.op, err, tc.msg)
		}
	}
	f, err := patch.Parse("p.yaml", []byte(doc("      - replace-texture: {object: X, image: 'dir\\a.png', palette: New, mips: keep-count, dither: true}\n")))
	if err != nil {
		t.Fatal(err)
	}
	op := f.Targets[0].Ops[0].(*patch.ReplaceTexture)
	if op.Image != "dir/a.png" || op.Palette != texture.PaletteNew || op.Mips != texture.MipsKeepCount || !op.Dither {
		t.Errorf("parsed %+v", op)
	}
}

// TestReplaceTextureCompMips replaces a texture with an S3TC copy
// (bHasComp): the copy is dropped, bHasComp cleared, and the plan says so.
func TestReplaceTextureCompMips(t *testing.T) {
	dir := t.TempDir()
	b := fixture.New("Comp", reader.Version{File: 69}, reader.GUID{3, 3, 3, 3})
	flags := reader.RFPublic | reader.RFLoadContext
	pal := b.Export(b.Class("Engine", "Palette"), 0, "Pal", flags, b.Palette(256))
	props := b.Props().Object("Palette", pal).Bool("bHasComp", true).Int("USize", 4).Int("VSize", 4).
		Byte("UBits", 2).Byte("VBits", 2).Bytes()
	b.Export(b.Class("Engine", "Texture"), 0, "T", flags, b.CompTexture(props,
		[]fixture.Mip{{USize: 4, VSize: 4, Pixels: make([]byte, 16)}}, []fixture.Mip{{USize: 4, VSize: 4, Pixels: make([]byte, 8)}}))
	in := tempPackage(t, dir, "Comp.utx", b)
	if tex := readTexture(t, readPkg(t, in), "Comp.T"); tex.CompMips != 1 {
		t.Fatalf("the input has %d CompMips", tex.CompMips)
	}
	out := filepath.Join(dir, "out", "Comp.utx")
	f := parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(in, out, writer.Compact, []texOp{{"T", writePNG(t, dir, "g.png", gradient(8, 8)), ""}}))
	res, err := patch.Apply(f, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Targets[0].Changes[0].Warning; !strings.Contains(w, "bHasComp is cleared") {
		t.Errorf("warning %q", w)
	}
	q := readPkg(t, out)
	tex := readTexture(t, q, "Comp.T")
	if v, _ := propValue(t, q, tex.Export, "bHasComp"); tex.CompMips != 0 || v.Bool {
		t.Errorf("output: %d CompMips, bHasComp %v", tex.CompMips, v.Bool)
	}
	if tex.String() != "8×8 P8, 1 mip" {
		t.Errorf("output texture %s (one mip kept: the texture had one)", tex)
	}
}

// TestReplaceTextureTransparentWarning: transparent pixels given to an
// opaque P8 texture are shown opaque, and the plan warns.
func TestReplaceTextureTransparentWarning(t *testing.T) {
	dir := t.TempDir()
	demo, _ := filepath.Abs(demoPkg)
	img := gradient(16, 16)
	img.SetNRGBA(3, 3, color.NRGBA{})
	f := parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(demo, filepath.Join(dir, "o", "UnrmodDemo.u"), writer.Preserve,
		[]texOp{{"Checker", writePNG(t, dir, "a.png", img), ""}}))
	res, err := patch.Apply(f, patch.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Targets[0].Changes[0].Warning; !strings.Contains(w, "neither masked (bMasked) nor an alpha texture") {
		t.Errorf("warning %q", w)
	}
}

// crc32IEEE is the PNG chunk checksum.
func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// checkReplaceTextureExample checks examples/patches/replace-texture.yaml:
// Skins.Stripes holds the 64×64 rings picture in the grey palette, with 7
// mips and its size properties; the map's Sky holds the sky picture in a
// new 16-colour palette; nothing else changed.
func checkReplaceTextureExample(t *testing.T, _ *patch.File, res *patch.Result) {
	want := [][]string{
		{"replace-texture: export UnrmodDemo.Skins.Stripes texture: 32×32 P8, 6 mips → 64×64 P8, 7 mips (from Rings-64.png, palette kept, dithered)"},
		{"replace-texture: export UnrmodDemoMap.Skins.Sky texture: 8×8 P8, 4 mips → 16×16 P8, 5 mips (from Sky-16.png, new palette)",
			"replace-texture: export UnrmodDemoMap.Skins.SkyPalette colours: 16 colours → 16 colours, made for Sky-16.png"},
	}
	for k, w := range want {
		var got []string
		for _, c := range res.Targets[k].Changes {
			got = append(got, c.String())
		}
		if strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("target %d changes %q, want %q", k, got, w)
		}
	}
	picture := func(name string) image.Image {
		data, err := os.ReadFile(filepath.Join(examplesDir, "data", name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}

	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	sameExportContent(t, in, out, "UnrmodDemo.Skins.Stripes")
	tex := readTexture(t, out, "UnrmodDemo.Skins.Stripes")
	if tex.String() != "64×64 P8, 7 mips" {
		t.Errorf("Stripes is %s", tex)
	}
	checkSizeProps(t, out, tex)
	checkMipsPointAtUSize(t, out, tex.Export)
	// Dithered greys: each 8×8 block is about as light as the picture
	// there (error diffusion keeps each channel's mean, not the lightness,
	// so colours the greys cannot show shift it a little).
	src, got := picture("Rings-64.png"), mipImage(t, tex, 0)
	levels := map[uint8]bool{}
	for by := 0; by < 64; by += 8 {
		for bx := 0; bx < 64; bx += 8 {
			var a, b int
			for y := by; y < by+8; y++ {
				for x := bx; x < bx+8; x++ {
					g := color.GrayModel.Convert(got.At(x, y)).(color.Gray).Y
					levels[g] = true
					a += int(g)
					b += int(color.GrayModel.Convert(src.At(x, y)).(color.Gray).Y)
				}
			}
			if d := (a - b) / 64; d < -24 || d > 24 {
				t.Errorf("block (%d,%d): mean grey %d, the picture's %d", bx, by, a/64, b/64)
			}
		}
	}
	if len(levels) < 32 {
		t.Errorf("only %d grey levels", len(levels))
	}

	in, out = targetInput(t, res, 1), targetOutput(t, res, 1)
	sameExportContent(t, in, out, "UnrmodDemoMap.Skins.Sky", "UnrmodDemoMap.Skins.SkyPalette")
	sky := readTexture(t, out, "UnrmodDemoMap.Skins.Sky")
	if sky.String() != "16×16 P8, 5 mips" || len(sky.Palette.Colors) != 16 {
		t.Errorf("Sky is %s with %d colours", sky, len(sky.Palette.Colors))
	}
	checkSizeProps(t, out, sky)
	// 16 colours for a picture of more: every pixel near its colour.
	src, got = picture("Sky-16.png"), mipImage(t, sky, 0)
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			a := color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA)
			b := color.NRGBAModel.Convert(src.At(x, y)).(color.NRGBA)
			for _, d := range []int{int(a.R) - int(b.R), int(a.G) - int(b.G), int(a.B) - int(b.B)} {
				if d < -24 || d > 24 {
					t.Fatalf("Sky pixel (%d,%d) is %v, the picture's %v", x, y, a, b)
				}
			}
		}
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
