package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
	"github.com/unrmod/unrmod/writer"
)

// FuzzReplaceTexture stores arbitrary PNG bytes in textures of every kind
// unrmod writes (P8 with a shared or an own palette, masked, BGRA8, DXT5,
// G16; UE1 and UE2) with every option, as a dry run: nothing may panic, an
// image whose header declares more than texture.MaxSize pixels a side must
// be refused for its size (before its pixels are decoded), every error must
// be a *patch.Error, and what applies must verify (Apply checks the output
// in memory).
//
//	go test ./patch -run '^$' -fuzz FuzzReplaceTexture -fuzztime 60s
func FuzzReplaceTexture(f *testing.F) {
	dir := f.TempDir()
	demo, err := filepath.Abs(demoPkg)
	if err != nil {
		f.Fatal(err)
	}
	targets := []struct{ file, object string }{
		{demo, "Skins.Stripes"}, // P8, palette shared with Checker
		{fuzzPackage(f, dir, "P8.utx", reader.Version{File: 69}, 0, true), "T"},
		{fuzzPackage(f, dir, "P8ue2.utx", reader.Version{File: 128, Licensee: 29}, 0, true), "T"},
		{fuzzPackage(f, dir, "Bgra.utx", reader.Version{File: 69}, 5, false), "T"},
		{fuzzPackage(f, dir, "Dxt5.utx", reader.Version{File: 128, Licensee: 29}, 8, false), "T"},
		{fuzzPackage(f, dir, "G16.utx", reader.Version{File: 128, Licensee: 29}, 10, false), "T"},
		{fuzzPackage(f, dir, "Dxt1.utx", reader.Version{File: 61}, 3, false), "T"},
	}

	// Seeds: the demo textures as export-texture writes them, real ones
	// when the corpus is there, and generated images of every colour model.
	addImage := func(img image.Image, sel byte) {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes(), sel)
	}
	for _, file := range []string{demoPkg, "../examples/packages/UnrmodDemoMap.unr"} {
		exportAll(f, file, 4, addImage)
	}
	if os.Getenv(corpus.EnvVar) != "" {
		for _, rel := range []string{"legacy/ut99_stock/Faces.utx", "legacy/ut99_stock/LadrArrow.utx", "legacy-next/ue2/SmileSkins.utx"} {
			exportAll(f, corpus.Path(f, rel), 2, addImage)
		}
	}
	grad := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for k := 0; k < 64; k++ {
		grad.SetNRGBA(k%8, k/8, color.NRGBA{byte(k * 4), byte(255 - k*4), 99, byte(k * 4)})
	}
	for sel := byte(0); sel < 7; sel++ {
		addImage(grad, sel|0x70)
		addImage(grad, sel|0x40)
	}
	addImage(image.NewGray16(image.Rect(0, 0, 2, 4)), 5)
	addImage(image.NewGray(image.Rect(0, 0, 1, 1)), 1)
	addImage(image.NewPaletted(image.Rect(0, 0, 4, 2), color.Palette{color.Black, color.White}), 2)
	addImage(image.NewRGBA64(image.Rect(0, 0, 16, 1)), 4)
	addImage(image.NewNRGBA(image.Rect(0, 0, 24, 16)), 0)
	addImage(image.NewCMYK(image.Rect(0, 0, 2, 2)), 3)
	var huge bytes.Buffer
	png.Encode(&huge, image.NewGray(image.Rect(0, 0, 1, 1)))
	h := huge.Bytes()
	copy(h[16:24], []byte{0, 0, 0x20, 0, 0, 0, 0x20, 0}) // 8192×8192, and the IHDR checksum to match
	crc := crc32IEEE(h[12:29])
	copy(h[29:33], []byte{byte(crc >> 24), byte(crc >> 16), byte(crc >> 8), byte(crc)})
	f.Add(h, byte(0))
	f.Add(h, byte(4))
	f.Add([]byte("\x89PNG\r\n\x1a\n"), byte(1))

	f.Fuzz(func(t *testing.T, data []byte, sel byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		tg := targets[int(sel&0x0F)%len(targets)]
		extra := ""
		if sel&0x10 != 0 {
			extra += ", palette: new"
		}
		if sel&0x20 != 0 {
			extra += ", mips: keep-count"
		} else if sel&0x80 != 0 {
			extra += ", mips: generate"
		}
		if sel&0x40 != 0 {
			extra += ", dither: true"
		}
		// Each worker runs the inputs one after the other: one file will do.
		work := dir
		img := filepath.Join(work, "in.png")
		if err := os.WriteFile(img, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(work, "out", filepath.Base(tg.file))
		text := texturePatch(tg.file, out, writer.Layout(sel>>7), []texOp{{tg.object, img, extra}})
		pf, err := patch.Parse(filepath.Join(work, "p.yaml"), []byte(text))
		if err != nil {
			t.Fatalf("the generated patch does not parse: %v\n%s", err, text)
		}
		res, err := patch.Apply(pf, patch.Options{DryRun: true})
		cfg, cfgErr := png.DecodeConfig(bytes.NewReader(data))
		tooBig := cfgErr == nil && (cfg.Width > texture.MaxSize || cfg.Height > texture.MaxSize)
		if err != nil {
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.Pos.Line != 7 {
				t.Fatalf("error %T without the operation's position: %v", err, err)
			}
			if tooBig && !errors.Is(err, texture.ErrSize) {
				t.Fatalf("a %d×%d image is not refused for its size: %v", cfg.Width, cfg.Height, err)
			}
			return
		}
		if cfgErr != nil || tooBig {
			t.Fatalf("applied an image whose header does not decode or is too large (%v, %d×%d)", cfgErr, cfg.Width, cfg.Height)
		}
		if ch := res.Targets[0].Changes; len(ch) == 0 || ch[0].Op != "replace-texture" ||
			!ch[0].Already && !strings.Contains(ch[0].New, fmt.Sprintf("%d×%d", cfg.Width, cfg.Height)) {
			t.Fatalf("changes %v for a %d×%d image", ch, cfg.Width, cfg.Height)
		}
	})
}

// fuzzPackage writes a package with one 4×4 texture "T" of format code
// (with a palette of its own when withPalette) into dir.
func fuzzPackage(tb testing.TB, dir, name string, v reader.Version, code byte, withPalette bool) string {
	tb.Helper()
	b := fixture.New(strings.TrimSuffix(name, filepath.Ext(name)), v, reader.GUID{9, 9, 9, 9})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	props := b.Props()
	if withPalette {
		props.Object("Palette", b.Export(b.Class("Engine", "Palette"), 0, "Pal", flags, b.Palette(256))).Bool("bMasked", true)
	}
	l := texture.FormatOf(v, code).Layout()
	props.Byte("Format", code).Int("USize", 4).Int("VSize", 4).Byte("UBits", 2).Byte("VBits", 2)
	var mips []fixture.Mip
	for s := 4; s >= 1; s /= 2 {
		mips = append(mips, fixture.Mip{USize: s, VSize: s, Pixels: make([]byte, l.MipSize(s, s))})
	}
	b.Export(b.Class("Engine", "Texture"), 0, "T", flags, b.Texture(props.Bytes(), mips))
	return tempPackage(tb, dir, name, b)
}

// exportAll passes the first mip of up to n textures of file to add, as
// export-texture writes them, with a selector for each target kind.
func exportAll(tb testing.TB, file string, n int, add func(image.Image, byte)) {
	tb.Helper()
	p, err := reader.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range p.Exports {
		if n == 0 {
			return
		}
		tex, err := texture.Read(p, i)
		if err != nil {
			continue
		}
		img, err := tex.Image(0)
		if err != nil {
			continue
		}
		add(img, byte(n))
		n--
	}
}
