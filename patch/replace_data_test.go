package patch_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

const nivenFX = "legacy/ut99_stock/NivenFX.utx"

// replaceWithData applies one replace-export of object in the package at
// dst with data (written to a file beside the patch) and returns the result,
// the output directory and the error.
func replaceWithData(t *testing.T, dst, object string, data []byte) (*patch.Result, string, error) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "given.bin")
	if err := os.WriteFile(bin, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ops := fmt.Sprintf("      - replace-export: {object: %s, data: {file: given.bin}}\n", object)
	f := parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(dst, ops))
	out := filepath.Join(dir, "out")
	res, err := patch.Apply(f, patch.Options{OutputDir: out})
	return res, out, err
}

// Bytes given as data: are read with the target's name and object tables.
// The bytes of an export of another package (written against that package's
// tables) or of another export of this package must be refused, saying what
// does not fit and pointing at from:, and nothing may be written.
func TestReplaceExportDataMisfitRefused(t *testing.T) {
	cases := []struct {
		name           string
		src, srcObject string   // where the bytes come from
		dst, dstObject string   // the export they are given to
		words          []string // in the message
		misfits        []string // in the misfits listed by the error (the message shows the first few)
	}{
		{
			// Faces (version 63) and LadrArrow (68) lay texture data out
			// the same way, so the bytes parse; their tags name Faces'
			// names: read in LadrArrow, bMasked is VClamp, Palette refers
			// to a texture, VBits holds an Int.
			name: "UT99 face into a ladder arrow",
			src:  facesUtx, srcObject: "Faces.ivana",
			dst: ladrArrow, dstObject: "LadrArrow.LadrArrow.arrow_a11",
			words: []string{`at data offset 0x0: name index 10 is "VClamp" in LadrArrow.utx`, "store VClamp as an Int, not a Bool",
				"Palette refers to Texture'LadrArrow.LadrArrow.arrow_a03'", "refers to Palette objects"},
			misfits: []string{`name index 11 is "VBits" in LadrArrow.utx, whose Texture exports store VBits as a Byte, not an Int`,
				`"UBits" in LadrArrow.utx, whose Texture exports store UBits as a Byte, not a Color struct`},
		},
		{
			name: "UT99 ladder arrow into a face",
			src:  ladrArrow, srcObject: "LadrArrow.LadrArrow.arrow_a11",
			dst: facesUtx, dstObject: "Faces.ivana",
			words: []string{`name index 12 is "UClamp" in Faces.utx, whose Texture exports store UClamp as an Int, not an Object`},
		},
		{
			name: "UT99 arena texture into a NivenFX texture",
			src:  arenaTex, srcObject: "ArenaTex.RING",
			dst: nivenFX, dstObject: "NivenFX.Mask.stlgrate",
			words:   []string{`name index 9 is "VSize" in NivenFX.utx, whose Texture exports store VSize as an Int, not an Object`},
			misfits: []string{`name index 4 is "Color" in NivenFX.utx, which no Texture export of it has as a property`},
		},
		{
			// Same names, but laid out for where arrow_a12 lies, with its
			// properties: a copy, which from: {object:} makes.
			name: "another export of the same package",
			src:  ladrArrow, srcObject: "LadrArrow.LadrArrow.arrow_a12",
			dst: ladrArrow, dstObject: "LadrArrow.LadrArrow.arrow_a11",
			words: []string{"its properties are those of LadrArrow.LadrArrow.arrow_a12",
				"from: {object: LadrArrow.LadrArrow.arrow_a12}"},
		},
		{
			// A script object's data is bytes unrmod does not decode
			// (references to its outer, next field, category name ...):
			// another package's, of the same length, cannot be checked.
			name: "UT99 mutator's int variable into another package's",
			src:  "legacy/ut99_mods/DeveloperMutator.u", srcObject: "DeveloperMutator.DeveloperMutator.MutatorTakeDamage.actualDamage",
			dst: "legacy/eliotvu_tests/TestUC1.u", dstObject: "TestUC1.ExprTokens.AllCasts.localInt",
			words: []string{"at data offset 0x2: the IntProperty data there is not this export's", "cannot check the names and object references"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := readPkg(t, corpus.Path(t, c.src))
			dstPath := corpus.Path(t, c.dst)
			dst := readPkg(t, dstPath)
			j, i := exportByPath(t, src, c.srcObject), exportByPath(t, dst, c.dstObject)
			if src.ClassName(j) != dst.ClassName(i) {
				t.Fatalf("test setup: %s is a %s, %s a %s", c.srcObject, src.ClassName(j), c.dstObject, dst.ClassName(i))
			}
			_, out, err := replaceWithData(t, dstPath, c.dstObject, src.Exports[j].Data)
			if err == nil {
				t.Fatalf("the data of %s (%s) given to %s (%s) was accepted", c.srcObject, c.src, c.dstObject, c.dst)
			}
			var pe *patch.Error
			if !errors.As(err, &pe) || pe.Pos.Line != 5 {
				t.Errorf("error %T is not a *patch.Error at the operation (line 5): %v", err, err)
			}
			var me *patch.DataMisfitError
			if !errors.As(err, &me) {
				t.Fatalf("error does not wrap a *patch.DataMisfitError: %v", err)
			}
			if me.Export != dst.ExportPath(i) || len(me.Misfits) == 0 {
				t.Errorf("DataMisfitError names %q with %d misfits", me.Export, len(me.Misfits))
			}
			for _, w := range c.misfits {
				found := false
				for _, m := range me.Misfits {
					found = found || strings.Contains(m.Msg, w)
				}
				if !found {
					t.Errorf("no misfit says %q: %v", w, me.Misfits)
				}
			}
			words := c.words
			if c.src == c.dst {
				words = append(words, fmt.Sprintf("laid out for 0x%X, where that export lies", src.Exports[j].SerialOffset))
			}
			msg := err.Error()
			for _, w := range append([]string{c.dst, "export " + dst.ExportPath(i) + " (" + dst.ClassName(i) + "): the given data does not fit it: at data offset 0x", "from:"}, words...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not say %q:\n%s", w, msg)
				}
			}
			if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("output written despite the refusal")
			}
			t.Logf("%s", msg)
		})
	}
}

// Legitimate data: the export's own bytes, as `unrmod export-data` writes
// them, given back as they are, edited without moving anything, or laid
// out for another offset (exported before an earlier patch moved the
// export), must still be accepted, and the output must verify.
func TestReplaceExportDataOwnBytesAccepted(t *testing.T) {
	type edit struct {
		name    string
		already bool  // the edit changes nothing: the op is already in effect
		shift   int32 // how far from the export the data is laid out
		apply   func(t *testing.T, p *reader.Package, i int, d []byte) []byte
	}
	mips := func(t *testing.T, p *reader.Package, i int) *reader.NativeLayout {
		t.Helper()
		nl, err := p.Native(i)
		if err != nil || len(nl.Mips) == 0 {
			t.Fatalf("%s: %v", p.ExportPath(i), err)
		}
		return nl
	}
	edits := []edit{
		{name: "own bytes", already: true, apply: func(_ *testing.T, _ *reader.Package, _ int, d []byte) []byte { return d }},
		{name: "pixels edited", apply: func(t *testing.T, p *reader.Package, i int, d []byte) []byte {
			m := mips(t, p, i).Mips[0].Lazy
			for k := m.Start; k < m.End; k += 7 {
				d[k] ^= 0x0F
			}
			return d
		}},
		{name: "int property edited", apply: func(t *testing.T, p *reader.Package, i int, d []byte) []byte {
			l, _ := p.Properties(i)
			q := l.Find(p, "InternalTime", 0)
			if q == nil || q.Size != 4 {
				t.Fatalf("%s has no 4-byte InternalTime", p.ExportPath(i))
			}
			binary.LittleEndian.PutUint32(d[q.ValueStart:], 12345)
			return d
		}},
		{name: "palette pointed at another palette", apply: func(t *testing.T, p *reader.Package, i int, d []byte) []byte {
			l, _ := p.Properties(i)
			q := l.Find(p, "Palette", 0)
			if q == nil || q.Size != 1 {
				t.Fatalf("%s has no 1-byte Palette reference", p.ExportPath(i))
			}
			cur := mustProp(t, p, i, "Palette").Object
			for k := range min(len(p.Exports), 63) {
				if r := reader.ExportRef(k); p.ClassName(k) == "Palette" && r != cur {
					d[q.ValueStart] = byte(r) // a compact index below 64
					return d
				}
			}
			t.Fatalf("%s has no other palette", p.FileName)
			return nil
		}},
		{name: "laid out 0x1000 bytes further, pixels edited", shift: 0x1000, apply: func(t *testing.T, p *reader.Package, i int, d []byte) []byte {
			nl := mips(t, p, i)
			for _, la := range nl.Lazy {
				binary.LittleEndian.PutUint32(d[la.SeekPosAt:], uint32(la.SeekPos+0x1000))
			}
			d[nl.Mips[0].Lazy.Start] ^= 0xFF
			return d
		}},
		{name: "palette colours edited", apply: func(t *testing.T, p *reader.Package, i int, d []byte) []byte {
			l, _ := p.Properties(i)
			for k := l.End + 2; k < len(d); k += 4 { // after the count: RGBA
				d[k] = 255 - d[k]
			}
			return d
		}},
	}
	all := []string{"own bytes", "pixels edited", "int property edited", "palette pointed at another palette", "laid out 0x1000 bytes further, pixels edited"}
	for _, target := range []struct {
		file, class, object string
		edits               []string
	}{
		{ladrArrow, "Texture", "LadrArrow.LadrArrow.arrow_a11", all},
		{facesUtx, "Texture", "Faces.ivana", all},
		// Its mips hold no pixels; the sparks after them are bytes unrmod
		// does not decode, kept as they are.
		{nivenFX, "FireTexture", "NivenFX.Deco.Bl_Smoke", []string{"own bytes", "int property edited", "palette pointed at another palette"}},
		{ladrArrow, "Palette", "LadrArrow.LadrArrow.Palette13", []string{"own bytes", "palette colours edited"}},
		{"legacy/ut99_mods/DeveloperMutator.u", "Function", "DeveloperMutator.DeveloperMutator.PreventDeath", []string{"own bytes"}},
	} {
		path := corpus.Path(t, target.file)
		in := readPkg(t, path)
		i := exportOfClass(t, in, target.class, target.object)
		for _, e := range edits {
			if !slices.Contains(target.edits, e.name) {
				continue
			}
			spec := target.class + "'" + target.object + "'"
			t.Run(filepath.Base(target.file)+"/"+spec+"/"+e.name, func(t *testing.T) {
				data := e.apply(t, in, i, append([]byte(nil), in.Exports[i].Data...))
				res, _, err := replaceWithData(t, path, spec, data)
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				tr := res.Targets[0]
				if len(tr.Changes) != 1 || tr.Changes[0].Already != e.already || tr.Changed == e.already {
					t.Fatalf("changes %v (changed %v), want already %v", tr.Changes, tr.Changed, e.already)
				}
				b, err := os.ReadFile(tr.Output)
				if err != nil {
					t.Fatal(err)
				}
				out, err := writer.Check(tr.Output, b)
				if err != nil {
					t.Fatalf("output does not verify: %v", err)
				}
				if nl, _ := out.Native(i); len(nl.Mips) > 0 {
					checkMipsPointAtUSize(t, out, i)
				}
				// The output holds the given bytes, rebased where they lie.
				want := *in
				want.Exports = append([]reader.Export(nil), in.Exports...)
				want.Exports[i].Data = data
				want.Exports[i].SerialOffset += e.shift
				if got, w := withoutSeekPos(t, out, i), withoutSeekPos(t, &want, i); !bytes.Equal(got, w) {
					t.Errorf("output data differs from the given data at data offset %d", diffOffsets(got, w)[0])
				}
				for k := range in.Exports {
					if k != i && !bytes.Equal(in.Exports[k].Data, out.Exports[k].Data) {
						t.Errorf("export %s changed", in.ExportPath(k))
					}
				}
			})
		}
	}
}

// exportOfClass returns the index of the export of this class and full path.
func exportOfClass(t testing.TB, p *reader.Package, class, path string) int {
	t.Helper()
	for i := range p.Exports {
		if strings.EqualFold(p.ExportPath(i), path) && strings.EqualFold(p.ClassName(i), class) {
			return i
		}
	}
	t.Fatalf("%s has no %s %s", p.FileName, class, path)
	return -1
}
