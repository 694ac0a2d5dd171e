package main

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
	"github.com/unrmod/unrmod/safefile"
)

// exportTextureCommand returns the "export-texture" command.
func exportTextureCommand() *command {
	return &command{
		name:     "export-texture",
		synopsis: "FILE [OBJECT...] -o DIR [--mips] [--class CLASS]",
		summary:  "write textures of a legacy package as PNG images",
		description: `Write each texture OBJECT of the legacy package FILE to DIR as NAME.png (NAME
is the texture's object name; textures of the same name are told apart by
their group: Group.NAME.png). With --mips every mip is written too, as
NAME_mip1.png, NAME_mip2.png, ... DIR is created if needed; files are
written atomically. A line per texture goes to standard error.

OBJECT is the export's full path, any dotted suffix of it that is unique, or
either in the form Class'Path', compared case-insensitively; 'unrmod dump
--exports FILE' lists the paths. When a path names a texture and another
object (a FireTexture and its Palette often share a name), the texture is
taken; --class picks the class for every OBJECT.

Without OBJECT every texture of FILE (Texture and its subclasses; with
--class only that class) is exported: the ones unrmod cannot export are
skipped, each listed with the reason, and the others are written.

P8 textures become paletted PNGs with the texture's palette, index 0
transparent in masked textures (bMasked); the palette's alpha is kept only
for alpha textures (bAlphaTexture). BGRA8 and RGBA8 textures (and the DXT1,
DXT3 and DXT5 formats of UE2 and of UT 469) become RGBA PNGs; L8 and G16
(UE2) become grey PNGs. Textures in other formats, procedural textures
(FireTexture, WetTexture, ...) and mips whose data does not match their size
are refused, each with the reason; the others are still written.

The PNG, edited or not, is what a replace-texture patch takes as its image;
an unedited one gives back the same pixels (P8: the same palette indices).`,
		examples: []string{
			"unrmod export-texture Textures/Faces.utx Kyla GORN -o faces/",
			"unrmod export-texture Textures/NivenFX.utx -o niven/",
			"unrmod export-texture examples/packages/UnrmodDemo.u Skins.Checker \"Texture'Skins.Stripes'\" -o out/ --mips",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the images into directory `DIR` (required)")
			mips := fs.Bool("mips", false, "write every mip, not only the first")
			classFlag := fs.String("class", "", "only consider exports of class `CLASS`")
			return func(s streams, args []string) error {
				switch {
				case len(args) == 0:
					return usagef("export-texture", "missing FILE")
				case *out == "":
					return usagef("export-texture", "missing -o DIR")
				}
				file := args[0]
				p, err := readLegacy("export-texture", recognise(file))
				if err != nil {
					return err
				}
				if len(args) == 1 {
					return exportAllTextures(s, file, p, *out, *classFlag, *mips)
				}
				// Resolve every object first: a typo stops before anything is written.
				var list []int
				seen := map[int]bool{}
				for _, spec := range args[1:] {
					if strings.TrimSpace(spec) == "" {
						return usagef("export-texture", "an OBJECT is empty")
					}
					class, path := *classFlag, spec
					if q := strings.IndexByte(spec, '\''); q > 0 && strings.HasSuffix(spec, "'") && len(spec) > q+1 {
						class, path = spec[:q], spec[q+1:len(spec)-1]
					}
					i, err := findTexture(file, p, path, class)
					if err != nil {
						return err
					}
					if !seen[i] {
						seen[i] = true
						list = append(list, i)
					}
				}
				if err := os.MkdirAll(*out, 0o755); err != nil {
					return err
				}
				names := textureFileNames(p, list)
				failed := 0
				for _, i := range list {
					err := writeTexture(s, p, i, filepath.Join(*out, names[i]), *mips)
					if err != nil {
						fmt.Fprintf(s.err, "unrmod: %v\n", err)
						failed++
					}
				}
				if failed > 0 {
					fmt.Fprintf(s.err, "unrmod: %d of %d textures not written\n", failed, len(list))
					return errReported
				}
				return nil
			}
		},
	}
}

// exportAllTextures writes every texture export of p (of class class
// when it is not empty) into dir. A texture that cannot be decoded
// (procedural, a format unrmod does not decode, a damaged mip) is skipped
// and listed with the reason; a texture that decodes but cannot be
// written is a failure.
func exportAllTextures(s streams, file string, p *reader.Package, dir, class string, mips bool) error {
	var list []int
	for i := range p.Exports {
		if p.NativeKind(i) != reader.NativeTexture {
			continue
		}
		if class != "" && !strings.EqualFold(p.ClassName(i), class) {
			continue
		}
		list = append(list, i)
	}
	if len(list) == 0 {
		if class != "" {
			return fmt.Errorf("%s has no texture exports of class %s", file, class)
		}
		return fmt.Errorf("%s has no texture exports", file)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := textureFileNames(p, list)
	var skipped []string
	written, failed := 0, 0
	for _, i := range list {
		files, t, err := encodeTexture(p, i, mips)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		if err := writeTextureFiles(s, filepath.Join(dir, names[i]), files, t); err != nil {
			fmt.Fprintf(s.err, "unrmod: %v\n", err)
			failed++
			continue
		}
		written++
	}
	for _, why := range skipped {
		fmt.Fprintf(s.err, "skipped %s\n", why)
	}
	fmt.Fprintf(s.err, "%d of %d textures written, %d skipped\n", written, len(list), len(skipped))
	if failed > 0 {
		fmt.Fprintf(s.err, "unrmod: %d of %d textures could not be written\n", failed, len(list))
		return errReported
	}
	return nil
}

// findTexture is findExport preferring textures: a path that names one
// texture and other objects names the texture.
func findTexture(file string, p *reader.Package, object, class string) (int, error) {
	if class == "" {
		var tex []int
		for _, r := range p.Lookup(object) {
			if i, ok := r.Export(); ok && p.NativeKind(i) == reader.NativeTexture {
				tex = append(tex, i)
			}
		}
		if len(tex) == 1 {
			return tex[0], nil
		}
	}
	return findExport(file, p, object, class)
}

// textureFileNames gives each export its file name without extension: the
// object name, or, for exports that share it, the path below the package.
func textureFileNames(p *reader.Package, list []int) map[int]string {
	byName := map[string]int{}
	for _, i := range list {
		byName[strings.ToLower(p.NameOf(p.Exports[i].ObjectName))]++
	}
	out := map[int]string{}
	for _, i := range list {
		name := p.NameOf(p.Exports[i].ObjectName)
		if byName[strings.ToLower(name)] > 1 {
			name = strings.TrimPrefix(p.ExportPath(i), p.Name+".")
		}
		out[i] = name
	}
	return out
}

// writeTexture writes export i's first mip (and with all, every mip) to
// base.png, base_mip1.png, ...
func writeTexture(s streams, p *reader.Package, i int, base string, all bool) error {
	files, t, err := encodeTexture(p, i, all)
	if err != nil {
		return err
	}
	return writeTextureFiles(s, base, files, t)
}

// encodeTexture decodes export i's first mip (and with all, every mip)
// and encodes each as a PNG file. An error means the texture cannot be
// exported (procedural, a format unrmod does not decode, a damaged mip).
func encodeTexture(p *reader.Package, i int, all bool) ([][]byte, *texture.Texture, error) {
	t, err := texture.Read(p, i)
	if err != nil {
		return nil, nil, err
	}
	n := 1
	if all {
		n = len(t.Mips)
	}
	if len(t.Mips) == 0 {
		return nil, nil, fmt.Errorf("%s: %s has no mips", p.FileName, t.Path)
	}
	// Decode every mip before writing any.
	var files [][]byte
	for k := 0; k < n; k++ {
		img, err := t.Image(k)
		if err != nil {
			return nil, nil, err
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return nil, nil, fmt.Errorf("%s: %s mip %d: %v", p.FileName, t.Path, k, err)
		}
		files = append(files, b.Bytes())
	}
	return files, t, nil
}

// writeTextureFiles writes the PNG files of encodeTexture to base.png,
// base_mip1.png, ... and says so on standard error.
func writeTextureFiles(s streams, base string, files [][]byte, t *texture.Texture) error {
	for k, data := range files {
		name := base + ".png"
		if k > 0 {
			name = fmt.Sprintf("%s_mip%d.png", base, k)
		}
		if err := safefile.WriteFile(name, data, 0o644); err != nil {
			return err
		}
	}
	extra := ""
	if n := len(files); n > 1 {
		extra = fmt.Sprintf(" and %d more mips", n-1)
	}
	fmt.Fprintf(s.err, "wrote %s%s: %s (%s)\n", base+".png", extra, t.Path, t)
	return nil
}
