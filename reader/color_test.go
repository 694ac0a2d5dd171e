package reader_test

import (
	"image/color"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/texture"
)

// colorProp returns the value of the Color property name of export i as
// StructFields decodes it (what props and diff show), and whether the
// export has it.
func colorProp(t *testing.T, p *reader.Package, i int, name string) (color.NRGBA, bool) {
	t.Helper()
	l, err := p.Properties(i)
	if err != nil {
		t.Fatal(err)
	}
	for k := range l.Props {
		q := &l.Props[k]
		if !strings.EqualFold(p.NameOf(q.Name), name) || q.ArrayIndex != 0 {
			continue
		}
		v, err := p.PropertyValue(i, q)
		if err != nil {
			t.Fatal(err)
		}
		fields, ok := p.StructFields(v)
		if !ok || len(fields) != 4 {
			t.Fatalf("%s %s: %d members (%v)", p.ExportPath(i), name, len(fields), ok)
		}
		var c color.NRGBA
		for _, f := range fields {
			switch f.Name {
			case "R":
				c.R = f.Value.Byte
			case "G":
				c.G = f.Value.Byte
			case "B":
				c.B = f.Value.Byte
			case "A":
				c.A = f.Value.Byte
			}
		}
		if got, want := p.FormatFields(fields), p.FormatValue(v); got != want || !strings.HasPrefix(got, "(R=") {
			t.Errorf("%s %s shows as %s and %s; want R, G, B, A", p.ExportPath(i), name, got, want)
		}
		return c, true
	}
	return color.NRGBA{}, false
}

// TestColorByteOrder reads Color properties of real packages the right way
// round: UE1 stores a Color R, G, B, A and UE2 B, G, R, A.
//
// The evidence: TestUC2.u (UE2) was compiled from defaultproperties that
// say Color=(B=20,G=40,R=80,A=160); and the engine keeps, for every P8
// texture, MipZero (the average of the first mip's palette colours) and
// MaxColor (the largest of each channel over every mip), while palettes
// store their colours R, G, B, A in both engines: the textures' pixels say
// which way round their MipZero and MaxColor are.
func TestColorByteOrder(t *testing.T) {
	t.Run("TestUC2 defaults", func(t *testing.T) {
		p := readCorpus(t, "legacy/ue2/TestUC2.u")
		i := exportIndex(t, p, "TestUC2.DefaultProperties")
		l, err := p.ClassDefaults(i)
		if err != nil {
			t.Fatal(err)
		}
		for k := range l.Props {
			q := &l.Props[k]
			if p.NameOf(q.Name) != "Color" {
				continue
			}
			v, err := p.PropertyValue(i, q)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := p.FormatValue(v), "(R=80,G=40,B=20,A=160)"; got != want {
				t.Errorf("Color = %s, want %s", got, want)
			}
			return
		}
		t.Fatal("no Color default")
	})
	for _, c := range []struct {
		file string
		bgra bool
		// mipZeroSlack is how far MipZero may be from the average: UE1
		// rounds it differently.
		mipZeroSlack int
	}{
		{"legacy-next/ue2/SmileSkins.utx", true, 0},
		{"legacy/ut99_stock/Faces.utx", false, 1},
		{"legacy/ut99_stock/Crypt.utx", false, 1},
	} {
		t.Run(c.file, func(t *testing.T) {
			p := readCorpus(t, c.file)
			if p.Header.Version.ColorBGRA() != c.bgra {
				t.Fatalf("version %s: ColorBGRA %v", p.Header.Version, !c.bgra)
			}
			checked, telling := 0, 0
			for i := range p.Exports {
				if p.NativeKind(i) != reader.NativeTexture {
					continue
				}
				tx, err := texture.Read(p, i)
				if err != nil {
					t.Fatal(err)
				}
				if tx.Palette == nil || len(tx.Mips) == 0 || len(tx.Mips[0].Data) == 0 {
					continue
				}
				var sum [4]int
				var most color.NRGBA
				for k, m := range tx.Mips {
					for _, ix := range m.Data {
						pc := tx.Palette.Colors[ix]
						if k == 0 {
							sum[0], sum[1], sum[2], sum[3] = sum[0]+int(pc.R), sum[1]+int(pc.G), sum[2]+int(pc.B), sum[3]+int(pc.A)
						}
						most = color.NRGBA{max(most.R, pc.R), max(most.G, pc.G), max(most.B, pc.B), max(most.A, pc.A)}
					}
				}
				n := len(tx.Mips[0].Data)
				avg := [4]int{sum[0] / n, sum[1] / n, sum[2] / n, sum[3] / n}
				if mz, ok := colorProp(t, p, i, "MipZero"); ok {
					got := [4]int{int(mz.R), int(mz.G), int(mz.B), int(mz.A)}
					for ch := range got {
						if d := got[ch] - avg[ch]; d < -c.mipZeroSlack || d > c.mipZeroSlack {
							t.Errorf("%s: MipZero %v, the first mip's average colour is %v", tx.Path, got, avg)
							break
						}
					}
					if d := avg[0] - avg[2]; d > 2 || d < -2 {
						telling++ // red and blue differ: a swap would show
					}
					checked++
				}
				if mc, ok := colorProp(t, p, i, "MaxColor"); ok && mc != most {
					t.Errorf("%s: MaxColor %v, the mips' largest channels are %v", tx.Path, mc, most)
				}
			}
			if checked == 0 || telling == 0 {
				t.Errorf("%d textures checked, %d with red and blue apart", checked, telling)
			}
		})
	}
}

// readCorpus reads the corpus file rel.
func readCorpus(t *testing.T, rel string) *reader.Package {
	t.Helper()
	p, err := reader.ReadFile(corpus.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
