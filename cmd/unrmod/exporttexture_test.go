package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
)

// readPNG decodes a written image.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func TestExportTextureDemo(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runCLI(t, "export-texture", demoPackage, "Skins.Checker", "Texture'Stripes'", "Checker", "-o", dir, "--mips")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{"Checker.png and 4 more mips: UnrmodDemo.Skins.Checker (16×16 P8, 5 mips)", "Stripes.png and 5 more mips"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Count(stderr, "wrote") != 2 {
		t.Errorf("a texture named twice is written twice:\n%s", stderr)
	}
	p, err := reader.ReadFile(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	for name, mips := range map[string]int{"Checker": 5, "Stripes": 6} {
		i, _ := p.Lookup("Skins." + name)[0].Export()
		tex, err := texture.Read(p, i)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < mips; k++ {
			file := filepath.Join(dir, name+".png")
			if k > 0 {
				file = filepath.Join(dir, name+"_mip"+string(rune('0'+k))+".png")
			}
			got, ok := readPNG(t, file).(*image.Paletted)
			want, _ := tex.Image(k)
			if !ok || !bytes.Equal(got.Pix, want.(*image.Paletted).Pix) || len(got.Palette) != 256 {
				t.Errorf("%s: not the paletted mip %d", file, k)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, name+"_mip"+string(rune('0'+mips))+".png")); err == nil {
			t.Errorf("%s: more mip files than mips", name)
		}
	}
}

func TestExportTextureErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"not a texture", []string{demoPackage, "DemoPalette"}, 1, "UnrmodDemo.Skins.DemoPalette is a Palette"},
		{"a sound", []string{demoPackage, "Skins.Checker", "Sound'Beep'"}, 1, "UnrmodDemo.Sounds.Beep is a Sound"},
		{"unknown object", []string{demoPackage, "Chequer"}, 1, `no export "Chequer"`},
		{"no file", []string{}, 2, "missing FILE"},
		{"no output", []string{demoPackage, "Checker", "-o", ""}, 2, "missing -o DIR"},
		{"not a package", []string{"exporttexture.go", "X"}, 1, "not an Unreal package"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"export-texture"}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "-o") {
				args = append(args, "-o", dir)
			}
			_, stderr, code := runCLI(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, tc.code, tc.msg, stderr)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "Checker.png" {
		t.Errorf("written: %v; only the texture of the run that names a sound too (the others fail first)", ents)
	}
}

// TestExportTextureCorpus exports textures of real packages: a procedural
// one is refused with the reason and the others of the run are written;
// textures of the same name get their group in the file name.
func TestExportTextureCorpus(t *testing.T) {
	dir := t.TempDir()
	file := corpus.Path(t, "legacy/ut99_stock/NivenFX.utx")
	_, stderr, code := runCLI(t, "export-texture", file, "Burnup2", "stlgrate", "-o", dir)
	if code != 1 || !strings.Contains(stderr, "NivenFX.Deco.Burnup2 is a FireTexture, whose pixels the engine computes at run time") ||
		!strings.Contains(stderr, "1 of 2 textures not written") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if img := readPNG(t, filepath.Join(dir, "stlgrate.png")); img.Bounds().Dx() != 256 {
		t.Errorf("stlgrate.png is %v", img.Bounds())
	}
	// A masked texture: index 0 is transparent, the others opaque.
	pi := readPNG(t, filepath.Join(dir, "stlgrate.png")).(*image.Paletted)
	if _, _, _, a := pi.Palette[0].RGBA(); a != 0 {
		t.Errorf("masked texture: colour 0 has alpha %d", a)
	}
	if _, _, _, a := pi.Palette[1].RGBA(); a != 0xFFFF {
		t.Errorf("masked texture: colour 1 has alpha %d", a)
	}

}

// TestExportTextureFormatAndCorruption: a format unrmod does not decode is
// named, and a mip whose bytes do not match its size is reported with its
// offset; the other textures of the run are written.
func TestExportTextureFormatAndCorruption(t *testing.T) {
	dir := t.TempDir()
	file := writeOddTextures(t, dir)
	_, stderr, code := runCLI(t, "export-texture", file, "Rgb16", "Short", "Fine", "-o", dir)
	for _, want := range []string{
		"Odd.Rgb16 has format RGB16 (format 2); unrmod handles P8, DXT1, RGBA8, DXT3, DXT5, L8, G16",
		`Odd.Short" Mips[0] at 0x`, "a 4×4 RGBA8 mip takes 64 bytes, but the mip holds 60",
		"wrote " + filepath.Join(dir, "Fine.png"), "2 of 3 textures not written",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != 1 {
		t.Errorf("exit %d", code)
	}
}

// writeOddTextures writes dir/Odd.utx, a UE2 package with three textures:
// Rgb16 in a format unrmod does not decode, Short whose mip is 4 bytes too
// short, and Fine, a good 4×4 RGBA8 texture.
func writeOddTextures(t *testing.T, dir string) string {
	t.Helper()
	b := fixture.New("Odd", reader.Version{File: 128, Licensee: 29}, reader.GUID{})
	flags := reader.RFPublic | reader.RFLoadContext
	tex := b.Class("Engine", "Texture")
	mip := func(n int) []fixture.Mip { return []fixture.Mip{{USize: 4, VSize: 4, Pixels: make([]byte, n)}} }
	b.Export(tex, 0, "Rgb16", flags, b.Texture(b.Props().Byte("Format", 2).Bytes(), mip(32)))
	b.Export(tex, 0, "Short", flags, b.Texture(b.Props().Byte("Format", 5).Bytes(), mip(60)))
	b.Export(tex, 0, "Fine", flags, b.Texture(b.Props().Byte("Format", 5).Bytes(), mip(64)))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "Odd.utx")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestExportTextureAll: without OBJECT every texture that can be exported
// is written, and each one that cannot is listed with the reason; the
// command succeeds. A package without textures is an error naming it.
func TestExportTextureAll(t *testing.T) {
	odd := writeOddTextures(t, t.TempDir())
	type exportAll struct {
		name    string
		file    string
		flags   []string
		code    int
		written []string
		stderr  []string
	}
	cases := []exportAll{
		{name: "demo", file: demoPackage, written: []string{"Checker.png", "Stripes.png"},
			stderr: []string{"2 of 2 textures written, 0 skipped"}},
		{name: "demo with mips", file: demoPackage, flags: []string{"--mips"},
			written: []string{"Checker.png", "Checker_mip4.png", "Stripes.png", "Stripes_mip5.png"},
			stderr:  []string{"Checker.png and 4 more mips", "2 of 2 textures written, 0 skipped"}},
		{name: "odd formats", file: odd, written: []string{"Fine.png"}, stderr: []string{
			"skipped " + odd + ": Odd.Rgb16 has format RGB16 (format 2)",
			"skipped " + odd + `: export 1 "Odd.Short" Mips[0] at 0x`,
			"1 of 3 textures written, 2 skipped"}},
		{name: "no textures of the class", file: demoPackage, flags: []string{"--class", "FireTexture"}, code: 1,
			stderr: []string{"UnrmodDemo.u has no texture exports of class FireTexture"}},
	}
	if os.Getenv(corpus.EnvVar) != "" {
		niven := corpus.Path(t, "legacy/ut99_stock/NivenFX.utx")
		cases = append(cases, exportAll{name: "procedural", file: niven, written: []string{"stlgrate.png"}, stderr: []string{
			"skipped " + niven + ": NivenFX.Deco.Burnup2 is a FireTexture, whose pixels the engine computes at run time",
			"skipped " + niven + ": NivenFX.Water_Niv is a WetTexture",
			"1 of 7 textures written, 6 skipped"}},
			exportAll{name: "sounds only", file: corpus.Path(t, "legacy/ut99_stock/Activates.uax"), code: 1,
				stderr: []string{"Activates.uax has no texture exports"}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"export-texture", tc.file, "-o", dir}, tc.flags...)
			_, stderr, code := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, stderr)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			for _, name := range tc.written {
				readPNG(t, filepath.Join(dir, name))
			}
			ents, _ := os.ReadDir(dir)
			if tc.code == 0 && len(tc.flags) == 0 && len(ents) != len(tc.written) {
				t.Errorf("%d files written, want %d: %v", len(ents), len(tc.written), ents)
			}
		})
	}
}

func TestTextureFileNames(t *testing.T) {
	b := fixture.New("Dup", reader.Version{File: 69}, reader.GUID{})
	flags := reader.RFPublic | reader.RFLoadContext
	tex := b.Class("Engine", "Texture")
	props := b.Props().Bytes()
	one := []fixture.Mip{{USize: 1, VSize: 1, Pixels: []byte{0}}}
	b.Export(tex, b.Group("A", 0), "T", flags, b.Texture(props, one))
	b.Export(tex, b.Group("B", 0), "T", flags, b.Texture(props, one))
	b.Export(tex, 0, "U", flags, b.Texture(props, one))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("Dup.utx", data)
	if err != nil {
		t.Fatal(err)
	}
	var list []int
	for _, path := range []string{"A.T", "B.T", "U"} {
		i, _ := p.Lookup(path)[0].Export()
		list = append(list, i)
	}
	names := textureFileNames(p, list)
	if names[list[0]] != "A.T" || names[list[1]] != "B.T" || names[list[2]] != "U" {
		t.Errorf("file names %v", names)
	}
	if names := textureFileNames(p, list[:1]); names[list[0]] != "T" {
		t.Errorf("a texture whose name no other of the run has: %v", names)
	}
}

// TestExportTextureApplyRoundTrip exports a texture, stores the PNG back
// with a replace-texture patch through 'unrmod apply' and exports it
// again: the same PNG (the same palette indices and palette).
func TestExportTextureApplyRoundTrip(t *testing.T) {
	demo, err := filepath.Abs(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, object string }{{demo, "Skins.Stripes"}, {demo, "Checker"}}
	if os.Getenv(corpus.EnvVar) != "" {
		cases = append(cases, struct{ file, object string }{corpus.Path(t, "legacy/ut99_stock/Faces.utx"), "Kyla"},
			struct{ file, object string }{corpus.Path(t, "legacy-next/ue2/SmileSkins.utx"), "SPAM"})
	}
	for _, tc := range cases {
		t.Run(tc.object, func(t *testing.T) {
			dir := t.TempDir()
			if _, stderr, code := runCLI(t, "export-texture", tc.file, tc.object, "-o", filepath.Join(dir, "a")); code != 0 {
				t.Fatalf("export: %s", stderr)
			}
			name := tc.object[strings.LastIndexByte(tc.object, '.')+1:] + ".png"
			out := filepath.Join(dir, "out", filepath.Base(tc.file))
			patch := fmt.Sprintf("unrmod: 1\ntargets:\n  - file: %q\n    output: %q\n    layout: compact\n    ops:\n      - replace-texture: {object: %s, image: a/%s}\n",
				tc.file, out, tc.object, name)
			pf := filepath.Join(dir, "p.yaml")
			if err := os.WriteFile(pf, []byte(patch), 0o644); err != nil {
				t.Fatal(err)
			}
			if stdout, stderr, code := runCLI(t, "apply", pf); code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
			}
			if _, stderr, code := runCLI(t, "export-texture", out, tc.object, "-o", filepath.Join(dir, "b")); code != 0 {
				t.Fatalf("export again: %s", stderr)
			}
			a, _ := os.ReadFile(filepath.Join(dir, "a", name))
			b, _ := os.ReadFile(filepath.Join(dir, "b", name))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("the texture stored back exports to another image (%d and %d bytes)", len(a), len(b))
			}
		})
	}
}
