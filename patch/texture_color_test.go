package patch_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
	"github.com/unrmod/unrmod/writer"
)

// TestReplaceTextureUnchangedImage stores every texture of a real UE2
// texture package back from the PNG it exports to: the package comes out
// byte for byte as it was. MipZero and MaxColor are recomputed from the
// pixels, so they must be written in the byte order of the package's
// version (UE2 Color values are B, G, R, A).
func TestReplaceTextureUnchangedImage(t *testing.T) {
	for _, rel := range []string{"legacy-next/ue2/SmileSkins.utx"} {
		t.Run(rel, func(t *testing.T) {
			file := corpus.Path(t, rel)
			in := readPkg(t, file)
			before, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var ops []texOp
			for i := range in.Exports {
				if in.NativeKind(i) != reader.NativeTexture {
					continue
				}
				tx, err := texture.Read(in, i)
				if err != nil {
					t.Fatal(err)
				}
				png := writePNG(t, dir, fmt.Sprintf("%d.png", i), mipImage(t, tx, 0))
				ops = append(ops, texOp{tx.Class + "'" + tx.Path + "'", png, ""})
			}
			out := filepath.Join(dir, "out", filepath.Base(file))
			if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(file, out, writer.Preserve, ops)), patch.Options{}); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				q := readPkg(t, out)
				for i := range in.Exports {
					if !bytes.Equal(in.Exports[i].Data, q.Exports[i].Data) {
						t.Errorf("%d textures stored back unchanged: export %s differs", len(ops), in.ExportPath(i))
					}
				}
				t.Fatalf("the package changed (%d and %d bytes)", len(before), len(after))
			}
		})
	}
}

// TestReplaceTextureMipZero stores a one-colour image in a texture of a UE1
// and a UE2 package: MipZero and MaxColor read back as that colour, red as
// red and blue as blue.
func TestReplaceTextureMipZero(t *testing.T) {
	for _, c := range []struct{ file, object string }{
		{"legacy-next/ue2/SmileSkins.utx", "Texture'SmileSkins.Smileys.17_TONGUE2'"},
		{"legacy/ut99_stock/Faces.utx", "Texture'Faces.Kyla'"},
	} {
		t.Run(c.file, func(t *testing.T) {
			file := corpus.Path(t, c.file)
			in := readPkg(t, file)
			tx := readTexture(t, in, strings.TrimSuffix(c.object[strings.IndexByte(c.object, '\'')+1:], "'"))
			// The palette colour whose red and blue are furthest apart.
			var want color.NRGBA
			for _, pc := range tx.Palette.Colors[1:] {
				if abs(int(pc.R)-int(pc.B)) > abs(int(want.R)-int(want.B)) {
					want = pc
				}
			}
			if abs(int(want.R)-int(want.B)) < 32 {
				t.Fatalf("%s: no palette colour with red and blue apart", tx.Path)
			}
			img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
			for k := 0; k < len(img.Pix); k += 4 {
				img.Pix[k], img.Pix[k+1], img.Pix[k+2], img.Pix[k+3] = want.R, want.G, want.B, 255
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "out", filepath.Base(file))
			ops := []texOp{{c.object, writePNG(t, dir, "one.png", img), ""}}
			if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), texturePatch(file, out, writer.Preserve, ops)), patch.Options{}); err != nil {
				t.Fatal(err)
			}
			q := readPkg(t, out)
			i := exportByPath(t, q, tx.Path)
			stored := readTexture(t, q, tx.Path).Palette.Colors[mipImage(t, readTexture(t, q, tx.Path), 0).(*image.Paletted).Pix[0]]
			exp := fmt.Sprintf("(R=%d,G=%d,B=%d,A=%d)", stored.R, stored.G, stored.B, stored.A)
			for _, name := range []string{"MipZero", "MaxColor"} {
				v, ok := propValue(t, q, i, name)
				if !ok {
					t.Fatalf("%s has no %s", tx.Path, name)
				}
				if got := q.FormatValue(v); got != exp {
					t.Errorf("%s %s = %s, want %s", tx.Path, name, got, exp)
				}
			}
			// diff shows the new value the same way.
			shown := map[string]string{}
			for _, e := range patch.Diff(in, q).Exports {
				for _, pd := range e.Properties {
					if e.Path == tx.Path {
						shown[pd.Name] = pd.New
					}
				}
			}
			if shown["MipZero"] != exp {
				t.Errorf("diff shows MipZero as %q, want %s (all: %v)", shown["MipZero"], exp, shown)
			}
		})
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
