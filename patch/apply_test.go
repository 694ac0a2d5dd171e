package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// These tests apply patches to real game files from the shared corpus
// (UNRMOD_CORPUS); they skip without it. Patches are written in memory with
// absolute paths.

const (
	ctfFace   = "legacy/ut99_stock/CTF-Face.unr"
	facesUtx  = "legacy/ut99_stock/Faces.utx"
	arenaTex  = "legacy/ut99_stock/ArenaTex.utx"
	cryptUtx  = "legacy/ut99_stock/Crypt.utx"
	bluffFX   = "legacy/ut99_stock/BluffFX.utx"
	testBox   = "legacy/ut99_mods/1HH-TestBox.unr"
	ladrArrow = "legacy/ut99_stock/LadrArrow.utx"
)

// yamlQuote quotes s as a YAML double-quoted scalar.
func yamlQuote(s string) string { return strconv.Quote(s) }

// parsePatch parses a patch given as text, as if it were the file path.
func parsePatch(t testing.TB, path, text string) *patch.File {
	t.Helper()
	f, err := patch.Parse(path, []byte(text))
	if err != nil {
		t.Fatalf("parse:\n%s\n%v", text, err)
	}
	return f
}

// applyText parses and applies a patch, writing into a fresh directory.
func applyText(t testing.TB, text string, layout ...writer.Layout) (*patch.Result, string) {
	t.Helper()
	dir := t.TempDir()
	f := parsePatch(t, filepath.Join(dir, "test.yaml"), text)
	for _, tg := range f.Targets {
		for _, l := range layout {
			tg.Layout = l
		}
	}
	out := filepath.Join(dir, "out")
	res, err := patch.Apply(f, patch.Options{OutputDir: out})
	if err != nil {
		t.Fatalf("apply:\n%s\n%v", text, err)
	}
	return res, out
}

// oneTarget is a patch with one target and the given ops (YAML, indented
// for the ops list).
func oneTarget(file, ops string) string {
	return "unrmod: 1\ntargets:\n  - file: " + yamlQuote(file) + "\n    ops:\n" + ops
}

// (a) Toggling AllowDownload on every legacy corpus file changes only the
// flags and the GUID (and generations, or heritage for v < 68).
func TestToggleAllowDownloadEveryCorpusFile(t *testing.T) {
	files := corpus.Legacy(t)
	var toggled, flagBytes, guidBytes, genBytes int
	for _, path := range files {
		rel, _ := filepath.Rel(corpus.Dir(t), path)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			in := readPkg(t, path)
			if err := writer.Writable(in.Header.Version); err != nil {
				t.Skipf("read-only version: %v", err)
			}
			verb := "set"
			if in.Header.Flags&reader.PkgAllowDownload != 0 {
				verb = "clear"
			}
			res, _ := applyText(t, oneTarget(path, "      - package-flags:\n          "+verb+": [AllowDownload]\n"))
			tr := res.Targets[0]
			if !tr.Changed || len(tr.Changes) != 1 || tr.Changes[0].Already {
				t.Fatalf("changes %v", tr.Changes)
			}
			a, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(tr.Output)
			if err != nil {
				t.Fatal(err)
			}
			out, err := writer.Check(tr.Output, b)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Header.Flags ^ in.Header.Flags; got != reader.PkgAllowDownload {
				t.Errorf("flags %s → %s: more than AllowDownload changed", in.Header.Flags, out.Header.Flags)
			}
			if out.GUID() == in.GUID() {
				t.Errorf("GUID kept (%s) under the default policy", out.GUID())
			}
			if len(a) != len(b) {
				t.Errorf("size %d → %d", len(a), len(b))
			}
			d := classifyHeaderDiff(t, a, b)
			if len(d.flags) == 0 || len(d.guid) == 0 {
				t.Errorf("flag bytes changed %v, GUID bytes changed %v", d.flags, d.guid)
			}
			if len(d.other) > 0 {
				t.Errorf("%d bytes changed outside the flags, GUID and generations/heritage, first at 0x%X", len(d.other), d.other[0])
			}
			for i := range in.Exports {
				if in.Exports[i].SerialOffset != out.Exports[i].SerialOffset || !bytes.Equal(in.Exports[i].Data, out.Exports[i].Data) {
					t.Errorf("export %s changed", in.ExportPath(i))
				}
			}
			toggled++
			flagBytes += len(d.flags)
			guidBytes += len(d.guid)
			genBytes += len(d.gens)
			t.Logf("v%s %s AllowDownload: %d flag byte(s), %d GUID byte(s), %d generation/heritage-count byte(s) changed, of %d",
				in.Header.Version, verb, len(d.flags), len(d.guid), len(d.gens), len(a))
		})
	}
	t.Logf("toggled AllowDownload on %d of %d files; bytes changed in all: %d flag, %d GUID, %d generation/heritage count, 0 elsewhere",
		toggled, len(files), flagBytes, guidBytes, genBytes)
}

// (b) Renaming a name keeps every export's data, in place.
func TestRenameCTFFace(t *testing.T) {
	path := corpus.Path(t, ctfFace)
	in := readPkg(t, path)
	from := "runeSgn2"
	if in.FindName(from) < 0 {
		from = in.NameOf(in.Exports[len(in.Exports)-1].ObjectName)
	}
	to := from + "_renamed"
	res, _ := applyText(t, oneTarget(path, "      - rename: {from: "+from+", to: "+to+"}\n"))
	out := readPkg(t, res.Targets[0].Output)
	r := in.FindName(from)
	if out.FindName(from) >= 0 || out.FindName(to) != r || len(out.Names) != len(in.Names) {
		t.Errorf("after rename: %q at %d, %q at %d (was %d), %d → %d names",
			from, out.FindName(from), to, out.FindName(to), r, len(in.Names), len(out.Names))
	}
	for k := range in.Names {
		if k != int(r) && (in.Names[k].Name != out.Names[k].Name || in.Names[k].Flags != out.Names[k].Flags) {
			t.Errorf("name %d changed: %q → %q", k, in.Names[k].Name, out.Names[k].Name)
		}
	}
	for i := range in.Exports {
		a, b := &in.Exports[i], &out.Exports[i]
		if a.SerialOffset != b.SerialOffset || !bytes.Equal(a.Data, b.Data) {
			t.Errorf("export %s moved or changed", in.ExportPath(i))
		}
	}
	for i := range in.Imports {
		ip := strings.ReplaceAll(in.Path(reader.ImportRef(i)), from, to)
		if op := out.Path(reader.ImportRef(i)); !strings.EqualFold(ip, op) {
			t.Errorf("import %d: %s, want %s", i, op, ip)
		}
	}
	if w := res.Targets[0].Changes[0].Warning; !strings.Contains(w, "import") {
		t.Logf("warning: %q", w)
	}
}

// (c) Replacing a texture with one copied from another package, in both
// layouts.
func TestCrossPackageTextureCopy(t *testing.T) {
	srcPath, dstPath := corpus.Path(t, facesUtx), corpus.Path(t, arenaTex)
	src, dst := readPkg(t, srcPath), readPkg(t, dstPath)
	const srcObj, dstObj = "Faces.ivana", "ArenaTex.GreyTrim1"
	j, i := exportByPath(t, src, srcObj), exportByPath(t, dst, dstObj)
	ops := fmt.Sprintf("      - replace-export:\n          object: %s\n          from: {file: %s, object: %s}\n", dstObj, yamlQuote(srcPath), srcObj)
	for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
		t.Run(layout.String(), func(t *testing.T) {
			res, _ := applyText(t, oneTarget(dstPath, ops), layout)
			data, err := os.ReadFile(res.Targets[0].Output)
			if err != nil {
				t.Fatal(err)
			}
			out, err := writer.Check("out", data)
			if err != nil {
				t.Fatal(err)
			}
			// Mips: as many as the source's, same pixels, offsets at USize.
			srcNL := checkMipsPointAtUSize(t, src, j)
			nl := checkMipsPointAtUSize(t, out, i)
			if len(nl.Mips) != len(srcNL.Mips) {
				t.Errorf("%d mips, source has %d", len(nl.Mips), len(srcNL.Mips))
			}
			for k := range min(len(nl.Mips), len(srcNL.Mips)) {
				a, b := nl.Mips[k], srcNL.Mips[k]
				if a.USize != b.USize || a.VSize != b.VSize || a.UBits != b.UBits ||
					!bytes.Equal(out.Exports[i].Data[a.Lazy.Start:a.Lazy.End], src.Exports[j].Data[b.Lazy.Start:b.Lazy.End]) {
					t.Errorf("mip %d differs from the source's", k)
				}
			}
			// Properties: same names, same values, object references
			// remapped to imports of the source package's objects.
			sl, err := src.Properties(j)
			if err != nil {
				t.Fatal(err)
			}
			ol, err := out.Properties(i)
			if err != nil {
				t.Fatal(err)
			}
			if len(ol.Props) != len(sl.Props) {
				t.Fatalf("%d properties, source has %d", len(ol.Props), len(sl.Props))
			}
			sawPalette := false
			for k := range sl.Props {
				sq, oq := &sl.Props[k], &ol.Props[k]
				if src.NameOf(sq.Name) != out.NameOf(oq.Name) || sq.Type != oq.Type || sq.ArrayIndex != oq.ArrayIndex {
					t.Errorf("property %d: %s %s, source %s %s", k, out.NameOf(oq.Name), oq.Type, src.NameOf(sq.Name), sq.Type)
					continue
				}
				sv, err := src.PropertyValue(j, sq)
				if err != nil {
					t.Fatal(err)
				}
				ov, err := out.PropertyValue(i, oq)
				if err != nil {
					t.Fatal(err)
				}
				want := src.FormatValue(sv)
				if sv.Type == reader.PropObject {
					// An export of the source becomes an import, whose
					// path is rooted at the source package.
					want = src.FormatValue(sv)
					if _, isExp := sv.Object.Export(); isExp {
						if ov.Object >= 0 {
							t.Errorf("property %s refers to export %d, not an import", out.NameOf(oq.Name), ov.Object)
						}
					}
				}
				if got := out.FormatValue(ov); got != want {
					t.Errorf("property %s = %s, source %s", out.NameOf(oq.Name), got, want)
				}
				if strings.EqualFold(out.NameOf(oq.Name), "Palette") {
					sawPalette = true
					k, ok := ov.Object.Import()
					if !ok || out.ImportClassName(k) != "Palette" || !strings.HasPrefix(out.Path(ov.Object), "Faces.") {
						t.Errorf("Palette = %s: want an import of the Faces palette", out.FormatValue(ov))
					}
				}
			}
			if !sawPalette {
				t.Errorf("the source texture has no Palette property")
			}
			// Every other export keeps its content.
			for k := range dst.Exports {
				if k == i {
					continue
				}
				a, b := dst.Exports[k].Data, out.Exports[k].Data
				if layout == writer.Compact {
					a, b = withoutSeekPos(t, dst, k), withoutSeekPos(t, out, k)
				} else if dst.Exports[k].SerialOffset != out.Exports[k].SerialOffset {
					t.Errorf("export %s moved in the preserve layout", dst.ExportPath(k))
				}
				if !bytes.Equal(a, b) {
					t.Errorf("export %s changed", dst.ExportPath(k))
				}
			}
			t.Logf("%s → %s (%s): %d → %d bytes, names %d → %d, imports %d → %d; %s",
				srcObj, dstObj, layout, len(dst.Exports[i].Data), len(out.Exports[i].Data),
				len(dst.Names), len(out.Names), len(dst.Imports), len(out.Imports), res.Targets[0].Changes[0].Warning)
		})
	}
}

// A texture whose lazy arrays have another layout (file version 61 has no
// SeekPos) is refused, and nothing is written.
func TestCrossVersionTextureCopyRefused(t *testing.T) {
	for _, c := range []struct{ from, obj, to, dstObj string }{
		{facesUtx, "Faces.ivana", cryptUtx, "Crypt.cRivtStl"},
		{cryptUtx, "Crypt.cRivtStl", facesUtx, "Faces.ivana"},
	} {
		t.Run(filepath.Base(c.from)+"→"+filepath.Base(c.to), func(t *testing.T) {
			srcPath, dstPath := corpus.Path(t, c.from), corpus.Path(t, c.to)
			dir := t.TempDir()
			f := parsePatch(t, filepath.Join(dir, "x.yaml"), oneTarget(dstPath,
				fmt.Sprintf("      - replace-export:\n          object: %s\n          from: {file: %s, object: %s}\n", c.dstObj, yamlQuote(srcPath), c.obj)))
			out := filepath.Join(dir, "out")
			_, err := patch.Apply(f, patch.Options{OutputDir: out})
			if err == nil {
				t.Fatalf("copy between file versions %s and %s accepted", c.from, c.to)
			}
			for _, w := range []string{"version 61/0", "version 63/0", "laid out differently"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %v", w, err)
				}
			}
			if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("output dir created after an error")
			}
			t.Logf("error: %v", err)
		})
	}
}

// (d) set-property changes only the property it names.
func TestSetPropertyCTFFace(t *testing.T) {
	path := corpus.Path(t, ctfFace)
	in := readPkg(t, path)
	li := exportByPath(t, in, "CTF-Face.LevelInfo0")
	old := mustProp(t, in, li, "Title")
	const title = "Facing Worlds (patched)"
	res, _ := applyText(t, oneTarget(path, "      - set-property: {object: LevelInfo0, property: Title, value: "+yamlQuote(title)+"}\n"))
	out := readPkg(t, res.Targets[0].Output)
	if v := mustProp(t, out, li, "Title"); v.Str != title {
		t.Errorf("Title = %q, want %q", v.Str, title)
	}
	if c := res.Targets[0].Changes[0]; c.Old != strconv.Quote(old.Str) || c.New != strconv.Quote(title) {
		t.Errorf("change %q → %q", c.Old, c.New)
	}
	il, err := in.Properties(li)
	if err != nil {
		t.Fatal(err)
	}
	ol, err := out.Properties(li)
	if err != nil {
		t.Fatal(err)
	}
	if len(il.Props) != len(ol.Props) {
		t.Fatalf("%d → %d properties", len(il.Props), len(ol.Props))
	}
	a, b := in.Exports[li].Data, out.Exports[li].Data
	if !bytes.Equal(a[:il.Start], b[:ol.Start]) {
		t.Errorf("the state frame changed")
	}
	for k := range il.Props {
		x, y := &il.Props[k], &ol.Props[k]
		if x.Name != y.Name {
			t.Fatalf("property %d: %s → %s", k, in.NameOf(x.Name), out.NameOf(y.Name))
		}
		if strings.EqualFold(in.NameOf(x.Name), "Title") {
			continue
		}
		if !bytes.Equal(a[x.Start:x.ValueStart+x.Size], b[y.Start:y.ValueStart+y.Size]) {
			t.Errorf("property %s changed", in.NameOf(x.Name))
		}
	}
	if !bytes.Equal(a[il.End:], b[ol.End:]) {
		t.Errorf("the data after the property list changed")
	}
	sameExportData(t, in, out, "CTF-Face.LevelInfo0")
	if len(in.Names) != len(out.Names) || len(in.Imports) != len(out.Imports) {
		t.Errorf("tables grew: names %d → %d, imports %d → %d", len(in.Names), len(out.Names), len(in.Imports), len(out.Imports))
	}
}

// (e) Bad patches fail before anything is written, with the position and
// words a modder understands.
func TestBadPatches(t *testing.T) {
	face := corpus.Path(t, ctfFace)
	bluff := corpus.Path(t, bluffFX)
	long := strings.Repeat("x", 64)
	head := "unrmod: 1\ntargets:\n  - file: " + yamlQuote(face) + "\n"
	cases := []struct {
		name  string
		text  string
		pos   string   // want the error to start with bad.yaml:pos
		words []string // and to contain these
	}{
		{name: "yaml syntax",
			text:  head + "    ops:\n      - rename: {from: a, to: b\n",
			pos:   "4",
			words: []string{"not valid YAML", "line 4", "expected ',' or '}'"}},
		{name: "unknown top-level key",
			text: "unrmod: 1\ntarget:\n  - file: x\n",
			pos:  "2:1", words: []string{`unknown key "target"`, `did you mean "targets"?`}},
		{name: "unknown target key",
			text: head + "    outptu: out/x.unr\n    ops:\n      - add-name: {name: Foo}\n",
			pos:  "4:5", words: []string{`unknown key "outptu"`, `did you mean "output"?`}},
		{name: "unknown op key",
			text: head + "    ops:\n      - set-property: {object: LevelInfo0, propery: Title, value: x}\n",
			pos:  "5:44", words: []string{`unknown key "propery"`, `did you mean "property"?`}},
		{name: "unknown op",
			text: head + "    ops:\n      - renam: {from: a, to: b}\n",
			pos:  "5:9", words: []string{`unknown operation "renam"`, `did you mean "rename"?`, "set-property"}},
		{name: "missing field",
			text: head + "    ops:\n      - rename:\n          from: runeSgn2\n",
			pos:  "6:11", words: []string{"rename", `missing the required key "to"`}},
		{name: "missing version",
			text: "targets:\n  - file: x\n    ops: [add-name: {name: x}]\n",
			pos:  "1:1", words: []string{`missing the required key "unrmod"`}},
		{name: "wrong version",
			text: "unrmod: 2\ntargets:\n  - file: x\n    ops: [add-name: {name: x}]\n",
			pos:  "1:9", words: []string{"version 2", "not supported"}},
		{name: "wrong type",
			text: head + "    ops:\n      - rename: {from: [runeSgn2], to: b}\n",
			pos:  "5:24", words: []string{"rename from", "text value", "not a list"}},
		{name: "wrong type for ops",
			text: head + "    ops: {rename: {from: a, to: b}}\n",
			pos:  "4:10", words: []string{"ops", "list"}},
		{name: "bad index",
			text: head + "    ops:\n      - set-property: {object: LevelInfo0, property: Title, index: -1, value: x}\n",
			pos:  "5:68", words: []string{"index", "0 or more"}},
		{name: "bad layout",
			text: head + "    layout: compressed\n    ops: [add-name: {name: x}]\n",
			pos:  "4:13", words: []string{"compressed", "preserve or compact"}},
		{name: "bad guid",
			text: head + "    guid: 1234\n    ops: [add-name: {name: x}]\n",
			pos:  "4:11", words: []string{"guid", "keep, regenerate or 32 hex digits"}},
		{name: "unknown object",
			text: head + "    ops:\n      - object-flags: {object: LevelInfo9, set: [Public]}\n",
			pos:  "5:9", words: []string{`no export "LevelInfo9"`, "close matches", "LevelInfo0"}},
		{name: "ambiguous object",
			text: "unrmod: 1\ntargets:\n  - file: " + yamlQuote(bluff) + "\n    ops:\n      - object-flags: {object: Lball, set: [Public]}\n",
			pos:  "5:9", words: []string{`"Lball" is ambiguous`, "Palette'BluffFX", "FireTexture'BluffFX", "Class'Path'"}},
		{name: "ambiguous import",
			text: head + "    ops:\n      - retarget-import: {import: Floor, package: Other}\n",
			pos:  "5:9", words: []string{`"Floor" is ambiguous`}},
		{name: "rename onto an existing name",
			text: head + "    ops:\n      - rename: {from: runeSgn2, to: Title}\n",
			pos:  "5:9", words: []string{`cannot rename "runeSgn2" to "Title"`, "already has the name"}},
		{name: "rename a missing name",
			text: head + "    ops:\n      - rename: {from: runeSgn9, to: Foo}\n",
			pos:  "5:9", words: []string{`no name "runeSgn9"`, "runeSgn2"}},
		{name: "rename None",
			text: head + "    ops:\n      - rename: {from: None, to: Nothing}\n",
			pos:  "5:9", words: []string{"None"}},
		{name: "data file missing",
			text: head + "    ops:\n      - replace-export: {object: LevelInfo0, data: {file: missing/LevelInfo0.bin}}\n",
			pos:  "5:52", words: []string{"data file", "LevelInfo0.bin", "no such file"}},
		{name: "data and from",
			text: head + "    ops:\n      - replace-export: {object: LevelInfo0, data: {hex: '00'}, from: {object: LevelInfo0}}\n",
			pos:  "5:25", words: []string{"exactly one of data", "from"}},
		{name: "bad hex",
			text: head + "    ops:\n      - replace-export: {object: LevelInfo0, data: {hex: 0g}}\n",
			pos:  "5:58", words: []string{"hex", "not valid hexadecimal"}},
		{name: "data not from this export",
			text: head + "    ops:\n      - replace-export: {object: LevelInfo0, data: {hex: '0000'}}\n",
			pos:  "5:9", words: []string{"not a valid LevelInfo"}},
		{name: "name too long",
			text: head + "    ops:\n      - add-name: {name: " + long + "}\n",
			pos:  "5:26", words: []string{"64 characters", "at most 63"}},
		{name: "rename to a long name",
			text: head + "    ops:\n      - rename: {from: runeSgn2, to: " + long + "}\n",
			pos:  "5:38", words: []string{"64 characters", "at most 63"}},
		{name: "name with a dot",
			text: head + "    ops:\n      - add-name: {name: a.b}\n",
			pos:  "5:26", words: []string{`contains '.'`}},
		{name: "retarget to a bad package name",
			text: head + "    ops:\n      - retarget-import: {import: Floor, package: My.Floors}\n",
			pos:  "5:51", words: []string{`contains '.'`}},
		{name: "name with bad characters",
			text: head + "    ops:\n      - add-name: {name: 'a b'}\n",
			pos:  "5:26", words: []string{"letters, digits"}},
		{name: "unknown flag name",
			text: head + "    ops:\n      - package-flags: {set: [AllowDownlaod]}\n",
			pos:  "5:31", words: []string{`unknown flag "AllowDownlaod"`, "AllowDownload"}},
		{name: "unknown object flag name",
			text: head + "    ops:\n      - object-flags: {object: LevelInfo0, clear: [LoadForClients]}\n",
			pos:  "5:52", words: []string{`unknown flag "LoadForClients"`, "LoadForClient"}},
		{name: "flag set and cleared",
			text: head + "    ops:\n      - package-flags: {set: [AllowDownload], clear: [1]}\n",
			pos:  "5:24", words: []string{"both set and cleared"}},
		{name: "no load flag left",
			text: head + "    ops:\n      - object-flags: {object: LevelInfo0, clear: [LoadForClient, LoadForServer, LoadForEdit]}\n",
			pos:  "5:9", words: []string{"LoadForClient", "never load"}},
		{name: "missing property without type",
			text: head + "    ops:\n      - set-property: {object: LevelInfo0, property: NoSuchProperty, value: 1}\n",
			pos:  "5:9", words: []string{"no property NoSuchProperty", "type:"}},
		{name: "wrong value for type",
			text: head + "    ops:\n      - set-property: {object: LevelInfo0, property: Title, type: int, value: x}\n",
			pos:  "5:9", words: []string{"Title", "stored as Str", "not Int"}},
		{name: "bad int value",
			text: head + "    ops:\n      - set-property: {object: LevelInfo0, property: NewInt, type: int, value: twelve}\n",
			pos:  "5:80", words: []string{"NewInt", `"twelve"`, "integer"}},
		{name: "bad type",
			text: head + "    ops:\n      - set-property: {object: LevelInfo0, property: X, type: vector, value: 1}\n",
			pos:  "5:63", words: []string{"type must be one of"}},
		{name: "empty patch",
			text: "",
			pos:  "", words: []string{"empty"}},
		{name: "second target fails",
			text: "unrmod: 1\ntargets:\n  - file: " + yamlQuote(face) + "\n    output: OUTDIR/first.unr\n    ops:\n      - add-name: {name: FirstTarget}\n" +
				"  - file: " + yamlQuote(face) + "\n    output: OUTDIR/second.unr\n    ops:\n      - object-flags: {object: NoSuchThing, set: [Public]}\n",
			pos: "10:9", words: []string{`no export "NoSuchThing"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			outDir := filepath.Join(dir, "out")
			if err := os.Mkdir(outDir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "bad.yaml")
			text := strings.ReplaceAll(c.text, "OUTDIR", filepath.ToSlash(outDir))
			f, err := patch.Parse(path, []byte(text))
			if err == nil {
				opt := patch.Options{OutputDir: outDir}
				if strings.Contains(c.text, "OUTDIR") {
					opt.OutputDir = "" // the targets say where
				}
				_, err = patch.Apply(f, opt)
			}
			if err == nil {
				t.Fatalf("no error for\n%s", text)
			}
			var pe *patch.Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *patch.Error: %v", err, err)
			}
			msg := err.Error()
			for _, w := range c.words {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not say %q:\n%s", w, msg)
				}
			}
			if ents := dirEntries(t, outDir); len(ents) != 0 {
				t.Errorf("files written despite the error: %v", ents)
			}
			want := path + ":" + c.pos + ":"
			if c.pos == "" {
				want = path + ": "
			}
			if !strings.HasPrefix(msg, want) {
				t.Errorf("error does not start with %q:\n%s", want, msg)
			}
			if pe != nil && c.pos != "" && !strings.HasPrefix(fmt.Sprintf("%d:%d", pe.Pos.Line, pe.Pos.Col), c.pos) {
				t.Errorf("Pos %s, want %s", pe.Pos, c.pos)
			}
			t.Logf("%s", msg)
		})
	}
}

// copyInto copies src into dir under its own name and returns the new path.
func copyInto(t testing.TB, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// (f) --in-place keeps the original as .bak, and applying again changes
// nothing.
func TestInPlace(t *testing.T) {
	dir := t.TempDir()
	path := copyInto(t, corpus.Path(t, testBox), dir)
	orig, _ := os.ReadFile(path)
	text := oneTarget(filepath.Base(path), "      - package-flags: {set: [ServerSideOnly], clear: [AllowDownload]}\n"+
		"      - set-property: {object: LevelInfo0, property: Title, value: TestBox (patched)}\n")
	f := parsePatch(t, filepath.Join(dir, "inplace.yaml"), text)

	res, err := patch.Apply(f, patch.Options{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Targets[0]
	if tr.Output != path || tr.Backup != path+".bak" || !tr.Changed {
		t.Errorf("output %s, backup %s, changed %v", tr.Output, tr.Backup, tr.Changed)
	}
	bak, err := os.ReadFile(path + ".bak")
	if err != nil || !bytes.Equal(bak, orig) {
		t.Fatalf("the .bak is not the original (%v)", err)
	}
	first, _ := os.ReadFile(path)
	if bytes.Equal(first, orig) {
		t.Fatal("the file was not changed")
	}
	p := readPkg(t, path)
	if v := mustProp(t, p, exportByPath(t, p, "1HH-TestBox.LevelInfo0"), "Title"); v.Str != "TestBox (patched)" {
		t.Errorf("Title = %q", v.Str)
	}

	res, err = patch.Apply(f, patch.Options{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr = res.Targets[0]
	if tr.Changed {
		t.Errorf("second in-place apply changed the file: %v", tr.Changes)
	}
	for _, c := range tr.Changes {
		if !c.Already {
			t.Errorf("second apply: %s", c)
		}
	}
	if second, _ := os.ReadFile(path); !bytes.Equal(second, first) {
		t.Errorf("second in-place apply rewrote the file")
	}
	if bak, _ := os.ReadFile(path + ".bak"); !bytes.Equal(bak, orig) {
		t.Errorf("second in-place apply replaced the .bak")
	}
	if ents := dirEntries(t, dir); len(ents) != 2 {
		t.Errorf("directory holds %v, want the package and its .bak", ents)
	}

	// A dry run in place writes nothing.
	g := parsePatch(t, filepath.Join(dir, "inplace2.yaml"), oneTarget(filepath.Base(path), "      - add-name: {name: DryRunOnly}\n"))
	if _, err := patch.Apply(g, patch.Options{InPlace: true, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, first) {
		t.Errorf("dry run changed the file")
	}
}

// (g) Windows line endings and backslash paths.
func TestWindowsPatch(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "maps", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tex"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyInto(t, corpus.Path(t, testBox), filepath.Join(dir, "maps", "src"))
	copyInto(t, corpus.Path(t, ladrArrow), filepath.Join(dir, "tex"))
	in := readPkg(t, corpus.Path(t, testBox))
	li := exportByPath(t, in, "1HH-TestBox.LevelInfo0")
	if err := os.WriteFile(filepath.Join(dir, "tex", "LevelInfo0.bin"), in.Exports[li].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"# a patch saved by a Windows editor",
		"unrmod: 1",
		"targets:",
		`  - file: maps\src\1HH-TestBox.unr`,
		`    output: 'maps\out\1HH-TestBox.unr'`,
		"    ops:",
		"      - set-property:",
		"          object: LevelInfo0",
		"          property: Title",
		"          value: Windows",
		"      - replace-export:",
		"          object: LevelInfo0",
		`          data: {file: tex\LevelInfo0.bin}`,
		"      - set-property:",
		"          object: LevelInfo0",
		"          property: Title",
		"          value: Windows",
		`  - file: "tex\\LadrArrow.utx"`,
		`    output: out\LadrArrow.utx`,
		"    ops:",
		"      - replace-export:",
		"          object: arrow_a01",
		`          from: {file: 'tex\LadrArrow.utx', object: arrow_a11}`,
		"",
	}
	text := strings.Join(lines, "\r\n")
	path := filepath.Join(dir, "windows.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := patch.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Targets[0].File != "maps/src/1HH-TestBox.unr" || f.Targets[0].Output != "maps/out/1HH-TestBox.unr" || f.Targets[1].File != "tex/LadrArrow.utx" {
		t.Errorf("paths: %q %q %q", f.Targets[0].File, f.Targets[0].Output, f.Targets[1].File)
	}
	res, err := patch.Apply(f, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := readPkg(t, filepath.Join(dir, "maps", "out", "1HH-TestBox.unr"))
	if v := mustProp(t, out, li, "Title"); v.Str != "Windows" {
		t.Errorf("Title = %q (value must not keep a \\r)", v.Str)
	}
	readPkg(t, filepath.Join(dir, "out", "LadrArrow.utx"))
	for _, tr := range res.Targets {
		if !tr.Changed {
			t.Errorf("%s not changed", tr.Input)
		}
	}

	// An error in a CRLF file still reports the right line and column.
	bad := strings.Join([]string{"unrmod: 1", "targets:", `  - file: maps\src\1HH-TestBox.unr`, "    opz: []", ""}, "\r\n")
	_, err = patch.Parse(path, []byte(bad))
	if err == nil || !strings.HasPrefix(err.Error(), path+":4:5:") {
		t.Errorf("CRLF error position: %v", err)
	}
}

// set-property before a texture's mips: the mips move within the export and
// their offsets follow, in both layouts.
func TestSetPropertyShiftsTextureMips(t *testing.T) {
	path := corpus.Path(t, arenaTex)
	in := readPkg(t, path)
	const obj = "ArenaTex.GreyTrim1"
	i := exportByPath(t, in, obj)
	inNL := checkMipsPointAtUSize(t, in, i)
	if _, ok := propValue(t, in, i, "Diffuse"); ok {
		t.Fatalf("%s already has Diffuse; pick another property to add", obj)
	}
	ops := "      - set-property: {object: " + obj + ", property: Diffuse, type: float, value: 0.75}\n" +
		"      - set-property: {object: " + obj + ", property: bMasked, type: bool, value: true}\n" +
		"      - set-property: {object: " + obj + ", property: Palette, value: ArenaTex.Palette4}\n" +
		"      - set-property: {object: " + obj + ", property: InternalTime, index: 1, value: 7}\n"
	for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
		t.Run(layout.String(), func(t *testing.T) {
			res, _ := applyText(t, oneTarget(path, ops), layout)
			for _, c := range res.Targets[0].Changes {
				if c.Already {
					t.Errorf("already: %s", c)
				}
			}
			out := readPkg(t, res.Targets[0].Output)
			nl := checkMipsPointAtUSize(t, out, i)
			if len(nl.Mips) != len(inNL.Mips) {
				t.Fatalf("%d mips, had %d", len(nl.Mips), len(inNL.Mips))
			}
			shift := nl.Mips[0].Lazy.Start - inNL.Mips[0].Lazy.Start
			if shift <= 0 {
				t.Errorf("mips moved by %d bytes within the export; adding a tag must move them", shift)
			}
			for k := range nl.Mips {
				a, b := inNL.Mips[k].Lazy, nl.Mips[k].Lazy
				if b.Start-a.Start != shift || !bytes.Equal(in.Exports[i].Data[a.Start:a.End], out.Exports[i].Data[b.Start:b.End]) {
					t.Errorf("%s moved by %d (not %d) or its pixels changed", a.Field, b.Start-a.Start, shift)
				}
			}
			for name, want := range map[string]string{"Diffuse": "0.75", "bMasked": "True", "Palette": "Palette'ArenaTex.Palette4'", "UBits": "5", "USize": "32"} {
				if got := out.FormatValue(mustProp(t, out, i, name)); got != want {
					t.Errorf("%s = %s, want %s", name, got, want)
				}
			}
			l, _ := out.Properties(i)
			if v, err := out.PropertyValue(i, l.Find(out, "InternalTime", 1)); err != nil || v.Int != 7 {
				t.Errorf("InternalTime[1] = %d (%v), want 7", v.Int, err)
			}
			if v, _ := out.PropertyValue(i, l.Find(out, "InternalTime", 0)); v.Int != 983082027 {
				t.Errorf("InternalTime[0] changed to %d", v.Int)
			}
		})
	}
}

// A real sound copied into the demo package: its FileType name is remapped
// and its lazy array rebuilt.
func TestCrossPackageSoundCopy(t *testing.T) {
	srcPath := corpus.Path(t, "legacy/ut99_stock/Activates.uax")
	demo, err := filepath.Abs(filepath.Join(examplesDir, "..", "packages", "UnrmodDemo.u"))
	if err != nil {
		t.Fatal(err)
	}
	src := readPkg(t, srcPath)
	in := readPkg(t, demo)
	j := exportByPath(t, src, "Activates.Beeps.mactiv10")
	ops := fmt.Sprintf("      - replace-export: {object: Sounds.Beep, from: {file: %s, object: Beeps.mactiv10}}\n", yamlQuote(srcPath))
	for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
		t.Run(layout.String(), func(t *testing.T) {
			res, _ := applyText(t, oneTarget(demo, ops), layout)
			out := readPkg(t, res.Targets[0].Output)
			i := exportByPath(t, out, "UnrmodDemo.Sounds.Beep")
			nl, err := out.Native(i)
			if err != nil || nl.Kind != reader.NativeSound || len(nl.Lazy) != 1 {
				t.Fatalf("native %+v: %v", nl, err)
			}
			snl, err := src.Native(j)
			if err != nil {
				t.Fatal(err)
			}
			a, b := snl.Lazy[0], nl.Lazy[0]
			if !bytes.Equal(src.Exports[j].Data[a.Start:a.End], out.Exports[i].Data[b.Start:b.End]) {
				t.Errorf("sound data differs from the source's")
			}
			if b.SeekPos != out.Exports[i].SerialOffset+int32(b.End) {
				t.Errorf("SeekPos 0x%X, want 0x%X", b.SeekPos, out.Exports[i].SerialOffset+int32(b.End))
			}
			// FileType: the name index after the property list names the
			// same text as in the source.
			srcType, _ := src.Properties(j)
			outType, _ := out.Properties(i)
			ft := func(p *reader.Package, k int, end int) string {
				d := p.Exports[k].Data[end:]
				return p.NameOf(reader.NameRef(d[0]))
			}
			if a, b := ft(src, j, srcType.End), ft(out, i, outType.End); a != b || a != "WAV" {
				t.Errorf("FileType %s, source %s", b, a)
			}
			sameExportContent(t, in, out, "UnrmodDemo.Sounds.Beep")
		})
	}
}

// Changing HasStack changes how the export's data must be read (a state
// frame first, or not); object-flags must not write a package whose data no
// longer matches its flags.
func TestObjectFlagsHasStackMismatch(t *testing.T) {
	demoMap, err := filepath.Abs(filepath.Join(examplesDir, "..", "packages", "UnrmodDemoMap.unr"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{
		"object-flags: {object: Light0, clear: [HasStack]}",
		"object-flags: {object: Skins.SkyPalette, set: [HasStack]}",
	} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(demoMap, "      - "+op+"\n"))
			out := filepath.Join(dir, "out")
			_, err := patch.Apply(f, patch.Options{OutputDir: out})
			if err == nil || !strings.Contains(err.Error(), "HasStack") {
				t.Fatalf("%s: want an error about HasStack, got %v", op, err)
			}
			if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("output written despite the error")
			}
		})
	}
}
