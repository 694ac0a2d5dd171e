package patch_test

import (
	"errors"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// structPackages writes two packages of version v into dir: StructSrc, whose
// palette Pal carries the struct properties props builds, and StructDst, whose
// palette Pal has none. StructSrc also has a public palette Other to refer to.
func structPackages(t *testing.T, dir string, v reader.Version, props func(b *fixture.Builder, other reader.ObjectRef) []byte) (src, dst string) {
	t.Helper()
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	b := fixture.New("StructSrc", v, fixture.DemoGUID)
	pal := b.Class("Engine", "Palette")
	other := b.Export(pal, 0, "Other", flags, b.Palette(2))
	b.Export(pal, 0, "Pal", flags, append(props(b, other), b.Palette(2)[1:]...))
	d := fixture.New("StructDst", v, fixture.DemoGUID)
	d.Export(d.Class("Engine", "Palette"), 0, "Pal", flags, d.Palette(4))
	src, dst = filepath.Join(dir, "StructSrc.utx"), filepath.Join(dir, "StructDst.utx")
	for path, bl := range map[string]*fixture.Builder{src: b, dst: d} {
		data, err := bl.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src, dst
}

func f32(v float32) []byte { return binio.AppendU32(nil, math.Float32bits(v)) }

// UE2 stores most structs as tag lists (Vector, Rotator and Color stay
// binary): a copy re-encodes their tags with the target's names, nested
// structs and object references included, and copies binary structs that
// hold no references as they are.
func TestCopyUE2TaggedStructs(t *testing.T) {
	dir := t.TempDir()
	v := reader.Version{File: 128, Licensee: 29}
	src, dst := structPackages(t, dir, v, func(b *fixture.Builder, other reader.ObjectRef) []byte {
		rng := func(lo, hi float32) []byte { return b.Props().Float("Min", lo).Float("Max", hi).Bytes() }
		region := b.Props().Object("Zone", other).Int("iLeaf", -1).Byte("ZoneNumber", 3).Bytes()
		return b.Props().
			Struct("Tint", "Color", reader.AppendColor(nil, v, color.NRGBA{R: 1, G: 2, B: 3, A: 255})).
			Struct("Span", "Range", rng(1.5, 2.5)).
			Struct("Spread", "RangeVector", b.Props().Struct("X", "Range", rng(-1, 1)).Struct("Z", "Range", rng(0, 8)).Bytes()).
			Struct("Where", "PointRegion", region).
			Bytes()
	})
	res, _ := applyText(t, oneTarget(dst, "      - replace-export: {object: Pal, from: {file: "+yamlQuote(src)+", object: Pal}}\n"))
	data, err := os.ReadFile(res.Targets[0].Output)
	if err != nil {
		t.Fatal(err)
	}
	out, err := writer.Check("StructDst.utx", data)
	if err != nil {
		t.Fatal(err)
	}
	i := exportByPath(t, out, "StructDst.Pal")
	// Each struct, written as the engine would format its members.
	want := map[string]string{
		"Tint":   "(R=1,G=2,B=3,A=255)",
		"Span":   "(Min=1.5,Max=2.5)",
		"Spread": "(X=(Min=-1,Max=1),Z=(Min=0,Max=8))",
		"Where":  "(Zone=Palette'StructSrc.Other',iLeaf=-1,ZoneNumber=3)",
	}
	l := mustProps(t, out, i)
	if len(l.Props) != len(want) {
		t.Fatalf("%d properties, want %d", len(l.Props), len(want))
	}
	for k := range l.Props {
		q := &l.Props[k]
		name := out.NameOf(q.Name)
		if got := formatStruct(t, out, q.StructName, q.Value(out.Exports[i].Data)); got != want[name] {
			t.Errorf("%s = %s, want %s", name, got, want[name])
		}
	}
	if w := res.Targets[0].Changes[0].Warning; !strings.Contains(w, "StructSrc.Other") {
		t.Errorf("warning %q does not name the imported palette", w)
	}
}

// formatStruct formats a struct value: binary Colors as the reader does,
// tag lists member by member, recursively.
func formatStruct(t *testing.T, p *reader.Package, sn reader.NameRef, value []byte) string {
	t.Helper()
	if p.NameOf(sn) == "Color" {
		return p.FormatValue(reader.Value{Type: reader.PropStruct, StructName: sn, Raw: value})
	}
	l, err := p.StructTags(value)
	if err != nil {
		t.Fatalf("%s value: %v", p.NameOf(sn), err)
	}
	var parts []string
	for k := range l.Props {
		q := &l.Props[k]
		v := q.Value(value)
		var s string
		switch q.Type {
		case reader.PropStruct:
			s = formatStruct(t, p, q.StructName, v)
		case reader.PropFloat:
			s = p.FormatValue(reader.Value{Type: q.Type, Float: math.Float32frombits(binio.NewCursor(v, 0).U32("float"))})
		case reader.PropInt:
			s = p.FormatValue(reader.Value{Type: q.Type, Int: binio.NewCursor(v, 0).I32("int")})
		case reader.PropByte:
			s = p.FormatValue(reader.Value{Type: q.Type, Byte: v[0]})
		case reader.PropObject:
			s = p.FormatValue(reader.Value{Type: q.Type, Object: reader.ObjectRef(binio.NewCursor(v, 0).Index("object"))})
		default:
			t.Fatalf("member %s of type %s", p.NameOf(q.Name), q.Type)
		}
		parts = append(parts, p.NameOf(q.Name)+"="+s)
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// Struct values a copy cannot carry over are refused, naming the property.
func TestCopyStructRefusals(t *testing.T) {
	ue1, ue2 := reader.Version{File: 69}, reader.Version{File: 128, Licensee: 29}
	cases := []struct {
		name  string
		v     reader.Version
		props func(b *fixture.Builder, other reader.ObjectRef) []byte
		want  string
	}{
		{"UE1 PointRegion holds an object reference in binary form", ue1, func(b *fixture.Builder, other reader.ObjectRef) []byte {
			return b.Props().Struct("Where", "PointRegion", append(binio.AppendIndex(nil, int32(other)), 0, 0, 0, 0, 1)).Bytes()
		}, "struct property Where (PointRegion) may hold references unrmod cannot remap"},
		{"UE1 Range of the wrong size", ue1, func(b *fixture.Builder, _ reader.ObjectRef) []byte {
			return b.Props().Struct("Span", "Range", f32(1)).Bytes()
		}, "struct property Span (Range) has 4 bytes; a Range has 8"},
		{"UE2 Color of the wrong size", ue2, func(b *fixture.Builder, _ reader.ObjectRef) []byte {
			return b.Props().Struct("Tint", "Color", []byte{1, 2, 3, 4, 5}).Bytes()
		}, "struct property Tint (Color) has 5 bytes; a Color has 4"},
		{"UE2 struct that is no tag list", ue2, func(b *fixture.Builder, _ reader.ObjectRef) []byte {
			return b.Props().Struct("Span", "Range", append(f32(1), f32(2)...)).Bytes()
		}, "struct property Span (Range) is no tag list unrmod can remap"},
		{"UE2 struct holding an array", ue2, func(b *fixture.Builder, _ reader.ObjectRef) []byte {
			return b.Props().Struct("Odd", "OddStruct", b.Props().Array("Items", []byte{0}).Bytes()).Bytes()
		}, "property Items is of type Array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := structPackages(t, dir, c.v, c.props)
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(dst, "      - replace-export: {object: Pal, from: {file: "+yamlQuote(src)+", object: Pal}}\n"))
			_, err := patch.Apply(f, patch.Options{OutputDir: filepath.Join(dir, "out")})
			var pe *patch.Error
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "cannot copy StructSrc.Pal") {
				t.Fatalf("err = %v, want a *patch.Error saying %q", err, c.want)
			}
		})
	}
}
