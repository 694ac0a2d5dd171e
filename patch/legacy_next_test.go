package patch_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// Real packages of corpus/legacy-next: a Deus Ex package (68/32) whose name
// table holds names with a zero byte inside, and UE2 (128/29) packages.
const (
	openDX      = "legacy-next/deusex/OpenDX.u"
	kfMenu      = "legacy-next/ue2/KF-Menu.ut2"
	constMeshes = "legacy-next/ue2/ConstDefaultMeshes.usx"
)

// Flag toggles on a Deus Ex package whose name table holds names with a
// zero byte inside: the output verifies, and every name entry keeps the
// bytes the engine wrote, in both layouts.
func TestDeusExFlagToggles(t *testing.T) {
	path := corpus.Path(t, openDX)
	in := readPkg(t, path)
	if in.Header.Version != (reader.Version{File: 68, Licensee: 32}) {
		t.Fatalf("%s is version %s", openDX, in.Header.Version)
	}
	tex := firstExportOfClass(t, in, "Texture")
	ops := []struct {
		name, yaml string
		check      func(t *testing.T, out *reader.Package)
	}{
		{"package-flags", "      - package-flags: {set: [ServerSideOnly]}\n", func(t *testing.T, out *reader.Package) {
			if out.Header.Flags != in.Header.Flags|reader.PkgServerSideOnly {
				t.Errorf("flags %s", out.Header.Flags)
			}
		}},
		{"object-flags", "      - object-flags: {object: " + in.ExportPath(tex) + ", set: [Transactional]}\n", func(t *testing.T, out *reader.Package) {
			for i := range in.Exports {
				want := in.Exports[i].Flags
				if i == tex {
					want |= 0x1
				}
				if out.Exports[i].Flags != want {
					t.Errorf("%s flags %s, want %s", out.ExportPath(i), out.Exports[i].Flags, want)
				}
			}
		}},
	}
	zeroNames := len(in.Warnings())
	if zeroNames == 0 {
		t.Fatalf("%s has no name storing characters after a zero", openDX)
	}
	for _, op := range ops {
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			t.Run(op.name+"/"+layout.String(), func(t *testing.T) {
				res, _ := applyText(t, oneTarget(path, op.yaml), layout)
				data, err := os.ReadFile(res.Targets[0].Output)
				if err != nil {
					t.Fatal(err)
				}
				out, err := writer.Check("out.u", data)
				if err != nil {
					t.Fatal(err)
				}
				op.check(t, out)
				if len(out.Names) != len(in.Names) || len(out.Warnings()) != zeroNames {
					t.Fatalf("%d names, %d warnings; the input has %d and %d", len(out.Names), len(out.Warnings()), len(in.Names), zeroNames)
				}
				for k := range in.Names {
					if a, b := in.Names[k].Raw(), out.Names[k].Raw(); !bytes.Equal(a, b) {
						t.Errorf("name %d entry % x, written as % x", k, a, b)
					}
				}
				sameExportContent(t, in, out)
			})
		}
	}
}

// firstExportOfClass returns the first export of the class.
func firstExportOfClass(t testing.TB, p *reader.Package, class string) int {
	t.Helper()
	for i := range p.Exports {
		if p.ClassName(i) == class {
			return i
		}
	}
	t.Fatalf("%s has no %s export", p.FileName, class)
	return -1
}

// A UE2 map and a UE2 static-mesh package, changed so that every export
// moves, written in the compact layout: the output verifies, every export
// decodes as before with the same lazy arrays holding the same bytes, and
// only the lazy-array offsets differ, each rebased to point just past its
// array. The Model's lightmaps and the static meshes' RawTriangles are the
// offsets that matter; the values the heuristic scan used to take for
// offsets (six in the map's Model, one or two per static mesh) are known
// now, and no longer stop the compact layout.
func TestUE2CompactAfterMove(t *testing.T) {
	cases := []struct {
		file    string
		changed string // the export the ops grow, early in the file
		ops     string
		kinds   map[reader.NativeKind]int // exports of each decoded UE2 kind
		lazies  int                       // lazy arrays in the package
	}{
		{kfMenu, "KF-Menu.LevelInfo0",
			"      - set-property: {object: LevelInfo0, property: Title, type: str, value: Killing Floor menu (patched)}\n" +
				"      - add-name: {name: UnrmodShift}\n",
			map[reader.NativeKind]int{reader.NativeModel: 3, reader.NativePolys: 3, reader.NativeStaticMeshInstance: 7}, 4},
		{constMeshes, "ConstDefaultMeshes.Generic.Stair",
			// Stair is the first export: the added tag moves its own
			// RawTriangles within it, and every other mesh in the file.
			"      - set-property: {object: Generic.Stair, property: UseSimpleLineCollision, type: bool, value: true}\n",
			map[reader.NativeKind]int{reader.NativeStaticMesh: 6}, 6},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := corpus.Path(t, c.file)
			in := readPkg(t, path)
			res, _ := applyText(t, oneTarget(path, c.ops), writer.Compact)
			tr := res.Targets[0]
			data, err := os.ReadFile(tr.Output)
			if err != nil {
				t.Fatal(err)
			}
			out, err := writer.Check("out", data)
			if err != nil {
				t.Fatal(err)
			}
			changed := exportByPath(t, in, c.changed)
			kinds := map[reader.NativeKind]int{}
			var lazies, withData int
			for i := range in.Exports {
				a, b := mustNative(t, in, i), mustNative(t, out, i)
				if a.Kind != b.Kind || len(a.Lazy) != len(b.Lazy) {
					t.Fatalf("%s: %s with %d lazy arrays, now %s with %d", in.ExportPath(i), a.Kind, len(a.Lazy), b.Kind, len(b.Lazy))
				}
				if a.Kind >= reader.NativeModel {
					kinds[a.Kind]++
				}
				if len(in.Exports[i].Data) > 0 {
					withData++
					if in.Exports[i].SerialOffset == out.Exports[i].SerialOffset {
						t.Errorf("%s did not move", in.ExportPath(i))
					}
				}
				for k := range a.Lazy {
					x, y := a.Lazy[k], b.Lazy[k]
					if x.Count != y.Count || !bytes.Equal(in.Exports[i].Data[x.Start:x.End], out.Exports[i].Data[y.Start:y.End]) {
						t.Errorf("%s %s: content differs", in.ExportPath(i), x.Field)
					}
					if y.SeekPos != out.Exports[i].SerialOffset+int32(y.End) || y.SeekPos == x.SeekPos {
						t.Errorf("%s %s: SeekPos 0x%X → 0x%X, array now ends at 0x%X",
							in.ExportPath(i), x.Field, x.SeekPos, y.SeekPos, out.Exports[i].SerialOffset+int32(y.End))
					}
				}
				lazies += len(a.Lazy)
				if !bytes.Equal(nativeRelative(t, in, i), nativeRelative(t, out, i)) {
					t.Errorf("%s: native data differs beyond its lazy-array offsets", in.ExportPath(i))
				}
			}
			sameExportContent(t, in, out, c.changed)
			if len(out.Exports[changed].Data) <= len(in.Exports[changed].Data) {
				t.Errorf("%s did not grow", c.changed)
			}
			for k, n := range c.kinds {
				if kinds[k] != n {
					t.Errorf("%d %s exports, want %d", kinds[k], k, n)
				}
			}
			if len(kinds) != len(c.kinds) || lazies != c.lazies {
				t.Errorf("decoded kinds %v, %d lazy arrays; want %v and %d", kinds, lazies, c.kinds, c.lazies)
			}
			rep := tr.Report
			if rep == nil || rep.MovedExports != withData || rep.Rebased != lazies {
				t.Errorf("report %+v: want %d moved exports and %d rebased offsets", rep, withData, lazies)
			}
			t.Logf("%s: %d exports moved, %d lazy-array offsets rebased, %d → %d bytes", c.file, withData, lazies, len(in.Source()), len(data))
		})
	}
}

// mustNative returns the native layout of export i, failing on an error.
func mustNative(t testing.TB, p *reader.Package, i int) *reader.NativeLayout {
	t.Helper()
	nl, err := p.Native(i)
	if err != nil {
		t.Fatalf("%s: %v", p.ExportPath(i), err)
	}
	return nl
}

// nativeRelative returns export i's data after its property list, with each
// lazy-array SeekPos made relative to the start of that native data: the
// same native content stored anywhere compares equal.
func nativeRelative(t testing.TB, p *reader.Package, i int) []byte {
	t.Helper()
	nl := mustNative(t, p, i)
	e := &p.Exports[i]
	from := 0
	if nl.Props != nil {
		from = nl.Props.End
	}
	d := append([]byte(nil), e.Data[from:]...)
	for _, la := range nl.Lazy {
		if la.SeekPosAt >= 0 {
			binary.LittleEndian.PutUint32(d[la.SeekPosAt-from:], uint32(la.SeekPos-e.SerialOffset-int32(from)))
		}
	}
	return d
}

// Bytes given as data: to a UE2 static mesh are checked beyond its lazy
// array: unrmod decodes the layout, but does not check the names and object
// references in it, so native bytes other than the export's own are refused
// (here the mesh's own bytes with its last field changed).
func TestUE2StaticMeshDataMisfit(t *testing.T) {
	path := corpus.Path(t, constMeshes)
	p := readPkg(t, path)
	floor := exportByPath(t, p, "ConstDefaultMeshes.Generic.Floor")
	own := p.Exports[floor].Data
	edited := append([]byte(nil), own...)
	edited[len(edited)-1] ^= 0x40
	_, _, err := replaceWithData(t, path, "Generic.Floor", edited)
	var me *patch.DataMisfitError
	if !errors.As(err, &me) || len(me.Misfits) != 1 || !strings.Contains(err.Error(), "the StaticMesh data there is not this export's") {
		t.Fatalf("err = %v, want a DataMisfitError about the StaticMesh data", err)
	}
	if want := len(own) - 1; me.Misfits[0].At != want {
		t.Errorf("misfit at data offset %d, want %d", me.Misfits[0].At, want)
	}
	// The mesh's own bytes, as export-data writes them, are taken.
	res, _, err := replaceWithData(t, path, "Generic.Floor", own)
	if err != nil || !res.Targets[0].Changes[0].Already {
		t.Fatalf("own data: %v", err)
	}
}

// UE2 texture copies between two UE2 (128/29) texture packages: the corpus
// has one, SmileSkins.utx (and KF-Menu.ut2 embeds no textures), so the other
// is the demo package built at 128/29. SmileSkins' textures store MipZero
// and MaxColor as Color structs, which hold no references and are copied as
// they are; their Palette becomes an import of the source package's palette.
// A copy within SmileSkins.utx is made too. Every output verifies and the
// copied texture has the source's mips and property values.
func TestUE2TextureCopy(t *testing.T) {
	smile := corpus.Path(t, "legacy-next/ue2/SmileSkins.utx")
	data, err := fixture.Demo(reader.Version{File: 128, Licensee: 29})
	if err != nil {
		t.Fatal(err)
	}
	demo := filepath.Join(t.TempDir(), "UnrmodDemo.u")
	if err := os.WriteFile(demo, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name         string
		dst, dstObj  string
		src, srcObj  string // src "" copies within dst
		colorStructs int    // Color struct properties copied
		paletteFrom  string // the package the copy's Palette is imported from; "" for an export
	}{
		{"SmileSkins into the demo", demo, "Skins.Checker", smile, "Smileys.COOL", 2, "SmileSkins"},
		{"demo into SmileSkins", smile, "Smileys.COOL", demo, "Skins.Stripes", 0, "UnrmodDemo"},
		{"within SmileSkins", smile, "Smileys.COOL", "", "Smileys.Ban", 1, ""},
	}
	for _, c := range cases {
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			t.Run(c.name+"/"+layout.String(), func(t *testing.T) {
				srcPath := c.src
				if srcPath == "" {
					srcPath = c.dst
				}
				from := "{object: " + c.srcObj + "}"
				if c.src != "" {
					from = "{file: " + yamlQuote(c.src) + ", object: " + c.srcObj + "}"
				}
				res, _ := applyText(t, oneTarget(c.dst, "      - replace-export: {object: "+c.dstObj+", from: "+from+"}\n"), layout)
				b, err := os.ReadFile(res.Targets[0].Output)
				if err != nil {
					t.Fatal(err)
				}
				out, err := writer.Check(filepath.Base(res.Targets[0].Output), b)
				if err != nil {
					t.Fatal(err)
				}
				in, src := readPkg(t, c.dst), readPkg(t, srcPath)
				i, j := exportByPath(t, out, in.Name+"."+c.dstObj), exportByPath(t, src, src.Name+"."+c.srcObj)
				srcNL, nl := checkMipsPointAtUSize(t, src, j), checkMipsPointAtUSize(t, out, i)
				if len(nl.Mips) != len(srcNL.Mips) {
					t.Fatalf("%d mips, the source has %d", len(nl.Mips), len(srcNL.Mips))
				}
				for k := range nl.Mips {
					a, b := nl.Mips[k], srcNL.Mips[k]
					if a.USize != b.USize || a.VSize != b.VSize ||
						!bytes.Equal(out.Exports[i].Data[a.Lazy.Start:a.Lazy.End], src.Exports[j].Data[b.Lazy.Start:b.Lazy.End]) {
						t.Errorf("mip %d differs from the source's", k)
					}
				}
				sl, ol := mustProps(t, src, j), mustProps(t, out, i)
				if len(ol.Props) != len(sl.Props) {
					t.Fatalf("%d properties, the source has %d", len(ol.Props), len(sl.Props))
				}
				colors := 0
				for k := range sl.Props {
					sq, oq := &sl.Props[k], &ol.Props[k]
					sv, err := src.PropertyValue(j, sq)
					if err != nil {
						t.Fatal(err)
					}
					ov, err := out.PropertyValue(i, oq)
					if err != nil {
						t.Fatal(err)
					}
					if src.NameOf(sq.Name) != out.NameOf(oq.Name) || sq.Type != oq.Type || sq.ArrayIndex != oq.ArrayIndex ||
						src.FormatValue(sv) != out.FormatValue(ov) {
						t.Errorf("property %s = %s, the source's %s = %s", out.NameOf(oq.Name), out.FormatValue(ov), src.NameOf(sq.Name), src.FormatValue(sv))
					}
					if sq.Type == reader.PropStruct && strings.EqualFold(src.NameOf(sq.StructName), "Color") {
						colors++
						if out.NameOf(oq.StructName) != "Color" || !bytes.Equal(sv.Raw, ov.Raw) {
							t.Errorf("%s: Color %x, the source's %x", out.NameOf(oq.Name), ov.Raw, sv.Raw)
						}
					}
					if strings.EqualFold(out.NameOf(oq.Name), "Palette") {
						_, imported := ov.Object.Import()
						if imported != (c.paletteFrom != "") || imported && !strings.HasPrefix(out.Path(ov.Object), c.paletteFrom+".") {
							t.Errorf("Palette = %s", out.FormatValue(ov))
						}
					}
				}
				if colors != c.colorStructs {
					t.Errorf("%d Color structs copied, want %d", colors, c.colorStructs)
				}
				sameExportContent(t, in, out, in.Name+"."+c.dstObj)
			})
		}
	}
}

// mustProps returns the property list of export i.
func mustProps(t testing.TB, p *reader.Package, i int) *reader.PropertyList {
	t.Helper()
	l, err := p.Properties(i)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Editing a property of an export whose layout unrmod does not know, when
// values in it look like absolute file offsets, is refused: the edit would
// shift them, and shifted they no longer look like offsets, so nothing
// later could catch them. The static-mesh package is given licensee 0 (a
// temporary copy), a UE2 version whose layouts unrmod does not decode; with
// its own licensee, 29, the same edit rebases RawTriangles.
func TestSetPropertyRefusedBeforeUnknownOffsets(t *testing.T) {
	data, err := os.ReadFile(corpus.Path(t, constMeshes))
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte(nil), data...)
	binary.LittleEndian.PutUint16(data[6:], 0) // the licensee version
	dir := t.TempDir()
	path := filepath.Join(dir, "ConstDefaultMeshes.usx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	op := "      - set-property: {object: Generic.Stair, property: UseSimpleLineCollision, type: bool, value: true}\n"
	f := parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(path, op))
	_, err = patch.Apply(f, patch.Options{OutputDir: filepath.Join(dir, "out")})
	if err == nil || !strings.Contains(err.Error(), "Generic.Stair: unrmod does not know the native layout of class StaticMesh") ||
		!strings.Contains(err.Error(), "look like absolute file offsets (first at data offset 0x1EF2)") {
		t.Fatalf("err = %v", err)
	}
	res, _ := applyText(t, oneTarget(corpus.Path(t, constMeshes), op))
	out := readPkg(t, res.Targets[0].Output)
	nl := mustNative(t, out, exportByPath(t, out, "ConstDefaultMeshes.Generic.Stair"))
	if len(nl.Lazy) != 1 || res.Targets[0].Report.Rebased != 1 {
		t.Errorf("%d lazy arrays, %d rebased", len(nl.Lazy), res.Targets[0].Report.Rebased)
	}
}
