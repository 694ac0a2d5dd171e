package reader_test

import (
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
)

func TestClassLineage(t *testing.T) {
	for _, c := range []struct {
		file, object string
		want         string
		ue2          bool
	}{
		{"legacy/ut99_stock/BluffFX.utx", "FireTexture'DevGarbage.Lball'", "FireTexture FractalTexture Texture Bitmap Object", false},
		{"legacy/ut99_stock/BluffFX.utx", "Palette'DevGarbage.Lball'", "Palette Object", false},
		{"legacy/ut99_stock/CTF-Face.unr", "LevelInfo0", "LevelInfo ZoneInfo Info Actor Object", false},
		{"legacy/ut99_stock/Engine.u", "Pawn", "Class State Struct Field Object", false},
		{"legacy-next/ue2/SmileSkins.utx", "", "Texture BitmapMaterial RenderedMaterial Material Object", true},
	} {
		p, err := reader.ReadFile(corpus.Path(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		i := -1
		if c.object == "" {
			for k := range p.Exports {
				if p.ClassName(k) == "Texture" {
					i = k
					break
				}
			}
		} else {
			cl, path, _ := strings.Cut(strings.TrimSuffix(c.object, "'"), "'")
			if path == "" {
				cl, path = "", c.object
			}
			for _, r := range p.Lookup(path) {
				if k, ok := r.Export(); ok && (cl == "" || p.ClassName(k) == cl) {
					i = k
				}
			}
		}
		if i < 0 {
			t.Fatalf("%s: no %s", c.file, c.object)
		}
		if got := strings.Join(p.ClassLineage(i), " "); got != c.want {
			t.Errorf("%s %s: lineage %q, want %q", c.file, c.object, got, c.want)
		}
		for _, cl := range strings.Fields(c.want) {
			if !p.IsA(i, strings.ToLower(cl)) {
				t.Errorf("%s is not a %s", p.ExportPath(i), cl)
			}
		}
		if p.IsA(i, "Sound") {
			t.Errorf("%s is a Sound", p.ExportPath(i))
		}
	}
	if reader.StockParent("WetTexture", false) != "WaterTexture" || reader.StockParent("Texture", true) != "BitmapMaterial" ||
		reader.StockParent("Texture", false) != "Bitmap" || reader.StockParent("MyWeapon", false) != "" {
		t.Error("StockParent")
	}
}
