package patch_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// The examples under examples/patches are part of the documentation: every
// one of them must apply cleanly to the demo packages, do what its header
// says, and be idempotent. New examples are picked up by the glob.

const examplesDir = "../examples/patches"

// examplePatches returns the path of every example patch.
func examplePatches(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example patches in %s (%v)", examplesDir, err)
	}
	sort.Strings(files)
	return files
}

// ---- helpers shared by the test files of this package ----

// readPkg decodes a package file and fails the test when it does not verify.
func readPkg(t testing.TB, path string) *reader.Package {
	t.Helper()
	p, err := reader.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if probs := p.Verify(); len(probs) > 0 {
		t.Fatalf("%s does not verify: %v", path, probs)
	}
	return p
}

// exportByPath returns the index of the export whose full path is path
// (case-insensitive), failing the test when there is none.
func exportByPath(t testing.TB, p *reader.Package, path string) int {
	t.Helper()
	for i := range p.Exports {
		if strings.EqualFold(p.ExportPath(i), path) {
			return i
		}
	}
	t.Fatalf("%s has no export %s", p.FileName, path)
	return -1
}

// importByPath returns the index of the import with this path and class, or -1.
func importByPath(p *reader.Package, path, class string) int {
	for i := range p.Imports {
		if strings.EqualFold(p.Path(reader.ImportRef(i)), path) && (class == "" || strings.EqualFold(p.ImportClassName(i), class)) {
			return i
		}
	}
	return -1
}

// propValue decodes property name (array index 0) of export i.
func propValue(t testing.TB, p *reader.Package, i int, name string) (reader.Value, bool) {
	t.Helper()
	l, err := p.Properties(i)
	if err != nil {
		t.Fatalf("%s: properties of %s: %v", p.FileName, p.ExportPath(i), err)
	}
	q := l.Find(p, name, 0)
	if q == nil {
		return reader.Value{}, false
	}
	v, err := p.PropertyValue(i, q)
	if err != nil {
		t.Fatalf("%s: %s property %s: %v", p.FileName, p.ExportPath(i), name, err)
	}
	return v, true
}

// mustProp is propValue for a property that must be present.
func mustProp(t testing.TB, p *reader.Package, i int, name string) reader.Value {
	t.Helper()
	v, ok := propValue(t, p, i, name)
	if !ok {
		t.Fatalf("%s: %s has no property %s", p.FileName, p.ExportPath(i), name)
	}
	return v
}

// withoutSeekPos returns export i's data with every lazy-array SeekPos
// zeroed, so data that differs only by where it is stored compares equal.
// It also checks that every SeekPos points just past its array.
func withoutSeekPos(t testing.TB, p *reader.Package, i int) []byte {
	t.Helper()
	nl, err := p.Native(i)
	if err != nil {
		t.Fatalf("%s: native data of %s: %v", p.FileName, p.ExportPath(i), err)
	}
	e := &p.Exports[i]
	d := append([]byte(nil), e.Data...)
	for _, la := range nl.Lazy {
		if la.SeekPosAt < 0 {
			continue
		}
		if want := e.SerialOffset + int32(la.End); la.SeekPos != want {
			t.Errorf("%s: %s %s SeekPos 0x%X, want 0x%X", p.FileName, p.ExportPath(i), la.Field, la.SeekPos, want)
		}
		binary.LittleEndian.PutUint32(d[la.SeekPosAt:], 0)
	}
	return d
}

// checkMipsPointAtUSize checks that every mip's SeekPos is the absolute
// offset of the mip's USize field, as the engine requires.
func checkMipsPointAtUSize(t testing.TB, p *reader.Package, i int) *reader.NativeLayout {
	t.Helper()
	nl, err := p.Native(i)
	if err != nil {
		t.Fatalf("%s: native data of %s: %v", p.FileName, p.ExportPath(i), err)
	}
	if len(nl.Mips) == 0 {
		t.Fatalf("%s: %s has no mips", p.FileName, p.ExportPath(i))
	}
	e := &p.Exports[i]
	for _, m := range nl.Mips {
		at := int(m.Lazy.SeekPos - e.SerialOffset)
		if at < 0 || at+4 > len(e.Data) || int32(binary.LittleEndian.Uint32(e.Data[at:])) != m.USize || at != m.Lazy.End {
			t.Errorf("%s: %s %s SeekPos 0x%X does not point at USize (array ends at data offset %d, export at 0x%X)",
				p.FileName, p.ExportPath(i), m.Lazy.Field, m.Lazy.SeekPos, m.Lazy.End, e.SerialOffset)
		}
	}
	return nl
}

// sameExportData checks that every export of a keeps its data in b, except
// those listed (by full path).
func sameExportData(t testing.TB, a, b *reader.Package, except ...string) {
	t.Helper()
	compareExports(t, a, b, except, func(p *reader.Package, i int) []byte { return p.Exports[i].Data })
}

// sameExportContent is sameExportData for outputs whose exports may have
// moved: lazy-array offsets are checked, then ignored.
func sameExportContent(t testing.TB, a, b *reader.Package, except ...string) {
	t.Helper()
	compareExports(t, a, b, except, func(p *reader.Package, i int) []byte { return withoutSeekPos(t, p, i) })
}

func compareExports(t testing.TB, a, b *reader.Package, except []string, data func(*reader.Package, int) []byte) {
	t.Helper()
	if len(a.Exports) != len(b.Exports) {
		t.Fatalf("export count %d → %d", len(a.Exports), len(b.Exports))
	}
	skip := map[int]bool{}
	for _, x := range except {
		skip[exportByPath(t, a, x)] = true
	}
	for i := range a.Exports {
		if da, db := data(a, i), data(b, i); !skip[i] && !bytes.Equal(da, db) {
			t.Errorf("export %d %s: data changed (%d → %d bytes)", i, a.ExportPath(i), len(da), len(db))
		}
	}
}

// diffOffsets returns every offset where a and b differ (over the longer
// length: bytes past the shorter one count as different).
func diffOffsets(a, b []byte) []int {
	var out []int
	for k := 0; k < max(len(a), len(b)); k++ {
		if k >= len(a) || k >= len(b) || a[k] != b[k] {
			out = append(out, k)
		}
	}
	return out
}

// changesOf flattens the changes of every target.
func changesOf(res *patch.Result) []patch.Change {
	var out []patch.Change
	for _, tr := range res.Targets {
		out = append(out, tr.Changes...)
	}
	return out
}

// reapply returns a copy of f whose targets read the outputs of res.
func reapply(f *patch.File, res *patch.Result) *patch.File {
	g := *f
	g.Targets = nil
	for k, t := range f.Targets {
		c := *t
		abs, _ := filepath.Abs(res.Targets[k].Output)
		if t.Container != nil {
			// The mod container is patched again, to a container of the
			// same name (its id comes from its name).
			ct := *t.Container
			ct.Container = filepath.ToSlash(abs)
			c.Container = &ct
			c.Output = filepath.Base(abs)
			g.Targets = append(g.Targets, &c)
			continue
		}
		c.File = filepath.ToSlash(abs)
		c.Output = ""
		g.Targets = append(g.Targets, &c)
	}
	return &g
}

// dirEntries lists the names in dir.
func dirEntries(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// ---- the examples ----

// exampleChecks checks the specific effect of each example, by file name.
var exampleChecks = map[string]func(t *testing.T, f *patch.File, res *patch.Result){
	"rename.yaml":              checkRenameExample,
	"add-name.yaml":            checkAddNameExample,
	"package-flags.yaml":       checkPackageFlagsExample,
	"object-flags.yaml":        checkObjectFlagsExample,
	"replace-export-data.yaml": checkReplaceDataExample,
	"replace-export-from.yaml": checkReplaceFromExample,
	"set-property.yaml":        checkSetPropertyExample,
	"retarget-import.yaml":     checkRetargetExample,
	"multi-target.yaml":        checkMultiTargetExample,
	"zen-datatable.yaml":       checkZenDataTableExample,
	"grounded-mod.yaml":        checkGroundedModExample,
	"replace-texture.yaml":     checkReplaceTextureExample,
	"replace-sound.yaml":       checkReplaceSoundExample,
	"prune-imports.yaml":       checkPruneImportsExample,
}

func TestExamples(t *testing.T) {
	for _, path := range examplePatches(t) {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := bytes.Cut(src, []byte("\n"))
			if string(first) != "# yaml-language-server: $schema=../../docs/patch.schema.json" {
				t.Errorf("first line is %q; every example starts with the schema comment for editors", first)
			}
			if !bytes.Contains(src, []byte("unrmod apply examples/patches/"+name)) {
				t.Errorf("the header comment does not show the command `unrmod apply examples/patches/%s`", name)
			}
			f, err := patch.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range f.Targets {
				if !strings.HasPrefix(tg.Output, "out/") {
					t.Errorf("target %s: output %q is not under out/ (examples write there)", tg.File, tg.Output)
				}
			}

			// A dry run writes nothing and plans what the real run does.
			dryDir := t.TempDir()
			dry, err := patch.Apply(f, patch.Options{DryRun: true, OutputDir: dryDir})
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			if ents := dirEntries(t, dryDir); len(ents) != 0 {
				t.Errorf("dry run wrote %v", ents)
			}

			out := t.TempDir()
			res, err := patch.Apply(f, patch.Options{OutputDir: out})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Targets) != len(f.Targets) {
				t.Fatalf("%d target results for %d targets", len(res.Targets), len(f.Targets))
			}
			if d, r := changesOf(dry), changesOf(res); len(d) != len(r) {
				t.Errorf("dry run planned %d changes, the real run made %d", len(d), len(r))
			} else {
				for k := range d {
					if d[k] != r[k] {
						t.Errorf("change %d: dry run %q, real run %q", k, d[k], r[k])
					}
				}
			}
			for k, tr := range res.Targets {
				if filepath.Dir(tr.Output) != out {
					t.Errorf("target %d written to %s, not into the output dir %s", k, tr.Output, out)
				}
				changed := 0
				for _, c := range tr.Changes {
					if !c.Already {
						changed++
					}
				}
				if changed == 0 || !tr.Changed {
					t.Errorf("target %s: no change is made (%d changes, Changed=%v)", tr.Input, len(tr.Changes), tr.Changed)
				}
				if len(tr.Changes) < len(f.Targets[k].Ops) {
					t.Errorf("target %s: %d changes for %d operations", tr.Input, len(tr.Changes), len(f.Targets[k].Ops))
				}
				if tr.Kind == "container" {
					checkContainerOutput(t, tr)
					continue
				}
				if tr.Kind == "zen" {
					q, _ := readZen(t, tr.Output)
					for _, pr := range q.Problems(nil) {
						t.Errorf("%s: %s", tr.Output, pr)
					}
				} else {
					q := readPkg(t, tr.Output)
					if got := q.GUID().String(); got != tr.GUID.New {
						t.Errorf("result says GUID %s, output has %s", tr.GUID.New, got)
					}
				}
				if st, err := os.Stat(tr.Output); err != nil || st.Size() != tr.Size {
					t.Errorf("result says %d bytes; output: %v %v", tr.Size, st, err)
				}
			}
			if check := exampleChecks[name]; check != nil {
				check(t, f, res)
			} else {
				t.Logf("no specific check for %s: only the generic checks ran", name)
			}

			// Applying the patch to its own output changes nothing.
			t.Run("again", func(t *testing.T) {
				again := reapply(f, res)
				out2 := t.TempDir()
				res2, err := patch.Apply(again, patch.Options{OutputDir: out2})
				if err != nil {
					t.Fatal(err)
				}
				var notAlready []string
				for _, c := range changesOf(res2) {
					if !c.Already {
						notAlready = append(notAlready, c.String())
					}
				}
				identical := true
				for k, tr := range res2.Targets {
					files := []string{tr.Output}
					if tr.Kind == "container" {
						files = containerFiles(tr.Output)
					}
					for _, f := range files {
						rel, _ := filepath.Rel(filepath.Dir(tr.Output), f)
						a, _ := os.ReadFile(filepath.Join(filepath.Dir(res.Targets[k].Output), rel))
						b, err := os.ReadFile(f)
						if err != nil || !bytes.Equal(a, b) || tr.Changed {
							identical = false
						}
					}
				}
				if len(notAlready) > 0 {
					t.Errorf("second application changes %v", notAlready)
				}
				if !identical {
					t.Errorf("second application does not give a byte-identical file")
				}
			})
		})
	}
}

// targetInput returns target k's input package.
func targetInput(t *testing.T, res *patch.Result, k int) *reader.Package {
	t.Helper()
	return readPkg(t, res.Targets[k].Input)
}

// targetOutput returns target k's output package.
func targetOutput(t *testing.T, res *patch.Result, k int) *reader.Package {
	t.Helper()
	return readPkg(t, res.Targets[k].Output)
}

func checkRenameExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	if out.FindName("Bars") < 0 || out.FindName("Stripes") >= 0 {
		t.Errorf("names after rename: Bars at %d, Stripes at %d", out.FindName("Bars"), out.FindName("Stripes"))
	}
	if len(out.Names) != len(in.Names) || out.FindName("Bars") != in.FindName("Stripes") {
		t.Errorf("rename moved the entry or changed the count: %d → %d names", len(in.Names), len(out.Names))
	}
	if out.Names[out.FindName("Bars")].Flags != in.Names[in.FindName("Stripes")].Flags {
		t.Errorf("rename changed the name's flags")
	}
	exportByPath(t, out, "UnrmodDemo.Skins.Bars")
	sameExportData(t, in, out)
	for i := range in.Exports {
		if in.Exports[i].SerialOffset != out.Exports[i].SerialOffset {
			t.Errorf("export %s moved from 0x%X to 0x%X", in.ExportPath(i), in.Exports[i].SerialOffset, out.Exports[i].SerialOffset)
		}
	}
	if w := res.Targets[0].Changes[0].Warning; !strings.Contains(w, "public") {
		t.Errorf("renaming a public object's name gives no warning about imports: %q", w)
	}
}

func checkAddNameExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	if len(out.Names) != len(in.Names)+2 {
		t.Fatalf("%d → %d names, want 2 more", len(in.Names), len(out.Names))
	}
	for k := range in.Names {
		if in.Names[k].Name != out.Names[k].Name || in.Names[k].Flags != out.Names[k].Flags {
			t.Errorf("name %d changed: %v → %v", k, in.Names[k], out.Names[k])
		}
	}
	for k, want := range []string{"DemoSkin", "DemoSkin_Alt"} {
		n := out.Names[len(in.Names)+k]
		if n.Name != want || n.Flags != reader.NewNameFlags {
			t.Errorf("appended name %d: %q flags 0x%X, want %q flags 0x%X", k, n.Name, uint32(n.Flags), want, uint32(reader.NewNameFlags))
		}
	}
	sameExportData(t, in, out)
}

// headerDiff sorts the offsets where two encodings of a package differ:
// the package flags (8..12); the GUID (v >= 68: 36..52; v < 68: the
// heritage GUIDs); the generations (v >= 68: count and entries from 52 to
// the end of a's header; v < 68: the heritage count at 36..40); and
// anything else.
type headerDiff struct {
	flags, guid, gens, other []int
}

func classifyHeaderDiff(t testing.TB, a, b []byte) headerDiff {
	t.Helper()
	pa, err := reader.Read("a", a)
	if err != nil {
		t.Fatal(err)
	}
	h := &pa.Header
	old := h.Version.File < reader.VerGUIDGenerations
	heritage := func(k int) bool {
		return k >= int(h.HeritageOffset) && k < int(h.HeritageOffset)+16*len(h.Heritage)
	}
	var d headerDiff
	for _, k := range diffOffsets(a, b) {
		switch {
		case k >= 8 && k < 12:
			d.flags = append(d.flags, k)
		case !old && k >= 36 && k < 52, old && heritage(k):
			d.guid = append(d.guid, k)
		case !old && k >= 52 && k < h.Size(), old && k >= 36 && k < 40:
			d.gens = append(d.gens, k)
		default:
			d.other = append(d.other, k)
		}
	}
	return d
}

func checkPackageFlagsExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	want := in.Header.Flags&^reader.PkgAllowDownload | reader.PkgServerSideOnly
	if out.Header.Flags != want {
		t.Errorf("flags %s, want %s", out.Header.Flags, want)
	}
	a, _ := os.ReadFile(res.Targets[0].Input)
	b, _ := os.ReadFile(res.Targets[0].Output)
	if len(a) != len(b) {
		t.Errorf("size %d → %d: a flag change must not grow the file", len(a), len(b))
	}
	d := classifyHeaderDiff(t, a, b)
	if len(d.flags) == 0 || len(d.guid) == 0 || len(d.other) > 0 {
		t.Errorf("changed bytes: flags %v, GUID %v, generations %v, elsewhere %v; want flags and GUID only", d.flags, d.guid, d.gens, d.other)
	}
	if out.GUID() == in.GUID() || len(out.Header.Generations) != 1 {
		t.Errorf("GUID %s → %s with %d generations; the default policy regenerates it with one generation",
			in.GUID(), out.GUID(), len(out.Header.Generations))
	}
	if w := res.Targets[0].GUID; w.Policy != "regenerate" || w.Old != in.GUID().String() {
		t.Errorf("GUID result %+v", w)
	}
}

func checkObjectFlagsExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	beep := exportByPath(t, out, "UnrmodDemo.Sounds.Beep")
	checker := exportByPath(t, out, "UnrmodDemo.Skins.Checker")
	for i := range in.Exports {
		want := in.Exports[i].Flags
		switch i {
		case beep:
			want &^= reader.RFLoadForServer
		case checker:
			want |= 0x1
		}
		if out.Exports[i].Flags != want {
			t.Errorf("%s flags %s, want %s", out.ExportPath(i), out.Exports[i].Flags, want)
		}
	}
	sameExportData(t, in, out)
}

func checkReplaceDataExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	pal := exportByPath(t, out, "UnrmodDemoMap.Skins.SkyPalette")
	// 00: no properties; 10: 16 colours; then a blue gradient, RGBA.
	var wantPal []byte
	wantPal = append(wantPal, 0x00, 0x10)
	for k := 0; k < 16; k++ {
		wantPal = append(wantPal, byte(16+4*k), byte(32+8*k), byte(128+8*k), 0)
	}
	if !bytes.Equal(out.Exports[pal].Data, wantPal) {
		t.Errorf("SkyPalette data %x, want %x", out.Exports[pal].Data, wantPal)
	}
	sky := exportByPath(t, out, "UnrmodDemoMap.Skins.Sky")
	file, err := os.ReadFile(filepath.Join(examplesDir, "data", "Sky-diagonal.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// The file holds the export as read from the demo map; the output holds
	// it rebased to where it now lies: equal but for the SeekPos values.
	orig := exportByPath(t, in, "UnrmodDemoMap.Skins.Sky")
	fromFile := in.Exports[orig]
	fromFile.Data = file
	tmp := *in
	tmp.Exports = append([]reader.Export(nil), in.Exports...)
	tmp.Exports[orig] = fromFile
	if !bytes.Equal(withoutSeekPos(t, out, sky), withoutSeekPos(t, &tmp, orig)) {
		t.Errorf("Sky data differs from data/Sky-diagonal.bin beyond its offsets")
	}
	nl := checkMipsPointAtUSize(t, out, sky)
	for _, m := range nl.Mips {
		pix := out.Exports[sky].Data[m.Lazy.Start:m.Lazy.End]
		for y := 0; y < int(m.VSize); y++ {
			for x := 0; x < int(m.USize); x++ {
				if got := pix[y*int(m.USize)+x]; got != byte((x+y)%16) {
					t.Fatalf("%s pixel (%d,%d) = %d, want %d", m.Lazy.Field, x, y, got, (x+y)%16)
				}
			}
		}
	}
	sameExportData(t, in, out, "UnrmodDemoMap.Skins.SkyPalette", "UnrmodDemoMap.Skins.Sky")
}

func checkReplaceFromExample(t *testing.T, f *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	srcPath := filepath.Join(examplesDir, "..", "packages", "UnrmodDemoMap.unr")
	src := readPkg(t, srcPath)
	sky := exportByPath(t, src, "UnrmodDemoMap.Skins.Sky")
	checker := exportByPath(t, out, "UnrmodDemo.Skins.Checker")
	stripes := exportByPath(t, out, "UnrmodDemo.Skins.Stripes")

	// The copy has the source's mips, with offsets for where it now lies.
	srcNL := checkMipsPointAtUSize(t, src, sky)
	for _, i := range []int{checker, stripes} {
		nl := checkMipsPointAtUSize(t, out, i)
		if len(nl.Mips) != len(srcNL.Mips) {
			t.Errorf("%s has %d mips, the source %d", out.ExportPath(i), len(nl.Mips), len(srcNL.Mips))
		}
		for k := range nl.Mips {
			a, b := nl.Mips[k], srcNL.Mips[k]
			if a.USize != b.USize || a.VSize != b.VSize ||
				!bytes.Equal(out.Exports[i].Data[a.Lazy.Start:a.Lazy.End], src.Exports[sky].Data[b.Lazy.Start:b.Lazy.End]) {
				t.Errorf("%s %s differs from the source's", out.ExportPath(i), a.Lazy.Field)
			}
		}
		// Properties: same values, the palette now imported from the map.
		for _, prop := range []string{"UBits", "VBits", "USize", "VSize", "UClamp", "VClamp"} {
			got, want := mustProp(t, out, i, prop), mustProp(t, src, sky, prop)
			if out.FormatValue(got) != src.FormatValue(want) || got.Type != want.Type {
				t.Errorf("%s %s = %s, source %s", out.ExportPath(i), prop, out.FormatValue(got), src.FormatValue(want))
			}
		}
		if pv := mustProp(t, out, i, "Palette"); out.FormatValue(pv) != "Palette'UnrmodDemoMap.Skins.SkyPalette'" {
			t.Errorf("%s Palette = %s, want an import of the map's SkyPalette", out.ExportPath(i), out.FormatValue(pv))
		}
	}
	if !bytes.Equal(withoutSeekPos(t, out, checker), withoutSeekPos(t, out, stripes)) {
		t.Errorf("Stripes is not a copy of Checker")
	}
	if importByPath(out, "UnrmodDemoMap.Skins.SkyPalette", "Palette") < 0 || importByPath(out, "UnrmodDemoMap", "Package") < 0 {
		t.Errorf("the output does not import UnrmodDemoMap.Skins.SkyPalette through its package")
	}
	if !strings.Contains(res.Targets[0].Changes[0].Warning, "UnrmodDemoMap") {
		t.Errorf("no warning about the new dependency on UnrmodDemoMap: %q", res.Targets[0].Changes[0].Warning)
	}
	sameExportData(t, in, out, "UnrmodDemo.Skins.Checker", "UnrmodDemo.Skins.Stripes")

	// The same copy verifies in the compact layout too.
	g := *f
	g.Targets = nil
	for _, tg := range f.Targets {
		c := *tg
		c.Layout = writer.Compact
		g.Targets = append(g.Targets, &c)
	}
	dir := t.TempDir()
	cres, err := patch.Apply(&g, patch.Options{OutputDir: dir})
	if err != nil {
		t.Fatalf("compact: %v", err)
	}
	cq := readPkg(t, cres.Targets[0].Output)
	checkMipsPointAtUSize(t, cq, exportByPath(t, cq, "UnrmodDemo.Skins.Checker"))
	checkMipsPointAtUSize(t, cq, exportByPath(t, cq, "UnrmodDemo.Skins.Stripes"))
	if cres.Targets[0].Layout != "compact" {
		t.Errorf("layout %q", cres.Targets[0].Layout)
	}
}

func checkSetPropertyExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	li := exportByPath(t, out, "UnrmodDemoMap.LevelInfo0")
	light := exportByPath(t, out, "UnrmodDemoMap.Light0")
	if v := mustProp(t, out, li, "Title"); v.Type != reader.PropStr || v.Str != "Demo Arena II" {
		t.Errorf("Title = %s, want \"Demo Arena II\"", out.FormatValue(v))
	}
	if v := mustProp(t, out, li, "IdealPlayerCount"); v.Type != reader.PropInt || v.Int != 12 {
		t.Errorf("IdealPlayerCount = %s, want 12", out.FormatValue(v))
	}
	if v := mustProp(t, out, li, "bHighDetailMode"); v.Type != reader.PropBool || v.Bool {
		t.Errorf("bHighDetailMode = %s, want False", out.FormatValue(v))
	}
	if v := mustProp(t, out, light, "LightHue"); v.Type != reader.PropByte || v.Byte != 170 {
		t.Errorf("LightHue = %s, want 170", out.FormatValue(v))
	}
	if v := mustProp(t, out, light, "LightRadius"); v.Type != reader.PropFloat || v.Float != 48.5 {
		t.Errorf("LightRadius = %s, want 48.5", out.FormatValue(v))
	}
	// Untouched properties keep their values and encodings.
	for _, c := range []struct {
		export string
		prop   string
	}{{"UnrmodDemoMap.LevelInfo0", "Author"}, {"UnrmodDemoMap.Light0", "LightBrightness"}, {"UnrmodDemoMap.Light0", "Tag"}} {
		a, b := exportByPath(t, in, c.export), exportByPath(t, out, c.export)
		va, vb := mustProp(t, in, a, c.prop), mustProp(t, out, b, c.prop)
		if in.FormatValue(va) != out.FormatValue(vb) {
			t.Errorf("%s %s changed: %s → %s", c.export, c.prop, in.FormatValue(va), out.FormatValue(vb))
		}
	}
	// The bool is stored as the engine stores it: info 0x53 for False.
	l, _ := out.Properties(li)
	q := l.Find(out, "bHighDetailMode", 0)
	if d := out.Exports[li].Data; d[q.Start+1] != 0x53 {
		t.Errorf("bHighDetailMode info byte 0x%02X, want 0x53", d[q.Start+1])
	}
	// The added tag's name was appended to the name table.
	if r := out.FindName("LightHue"); r < 0 || int(r) < len(in.Names) || out.Names[r].Flags != reader.NewNameFlags {
		t.Errorf("LightHue name: index %d (input had %d names)", r, len(in.Names))
	}
	// The state frames are intact.
	for _, path := range []string{"UnrmodDemoMap.LevelInfo0", "UnrmodDemoMap.Light0"} {
		a, b := in.Exports[exportByPath(t, in, path)].Data, out.Exports[exportByPath(t, out, path)].Data
		if !bytes.Equal(a[:14], b[:14]) {
			t.Errorf("%s state frame changed", path)
		}
	}
	sameExportData(t, in, out, "UnrmodDemoMap.LevelInfo0", "UnrmodDemoMap.Light0")
}

func checkRetargetExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	k := importByPath(in, "Engine.Light", "Class")
	if got := out.Path(reader.ImportRef(k)); got != "UnrmodLights.Light" {
		t.Errorf("import %d is %s, want UnrmodLights.Light", k, got)
	}
	if out.ImportClassName(k) != "Class" || out.NameOf(out.Imports[k].ClassPackage) != "Core" {
		t.Errorf("import %d class %s.%s changed", k, out.NameOf(out.Imports[k].ClassPackage), out.ImportClassName(k))
	}
	pkg := importByPath(out, "UnrmodLights", "Package")
	if pkg < 0 || out.Imports[pkg].Outer != 0 || out.NameOf(out.Imports[pkg].ClassPackage) != "Core" {
		t.Fatalf("no top-level Core.Package import of UnrmodLights")
	}
	if len(out.Imports) != len(in.Imports)+1 {
		t.Errorf("%d → %d imports, want one more (the new package)", len(in.Imports), len(out.Imports))
	}
	for j := range in.Imports {
		if j != k && in.Path(reader.ImportRef(j)) != out.Path(reader.ImportRef(j)) {
			t.Errorf("import %d changed: %s → %s", j, in.Path(reader.ImportRef(j)), out.Path(reader.ImportRef(j)))
		}
	}
	light := exportByPath(t, out, "UnrmodDemoMap.Light0")
	if out.Exports[light].Class != reader.ImportRef(k) {
		t.Errorf("Light0's class is no longer import %d", k)
	}
	sameExportData(t, in, out)
}

func checkMultiTargetExample(t *testing.T, _ *patch.File, res *patch.Result) {
	if len(res.Targets) != 2 {
		t.Fatalf("%d targets", len(res.Targets))
	}
	// Target 0: guid keep, compact layout.
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	if out.GUID() != in.GUID() {
		t.Errorf("guid: keep, but GUID %s → %s", in.GUID(), out.GUID())
	}
	gens := out.Header.Generations
	if len(gens) != len(in.Header.Generations)+1 {
		t.Fatalf("generations %v: guid keep with a new name appends one", gens)
	}
	if last := gens[len(gens)-1]; last.NameCount != int32(len(out.Names)) || last.ExportCount != int32(len(out.Exports)) {
		t.Errorf("appended generation %+v, want {%d %d}", last, len(out.Exports), len(out.Names))
	}
	if res.Targets[0].Layout != "compact" || res.Targets[0].GUID.Policy != "keep" {
		t.Errorf("target 0: layout %s, policy %s", res.Targets[0].Layout, res.Targets[0].GUID.Policy)
	}
	// Compact: names right after the header, data in export order with
	// no gaps, then imports and exports.
	h := &out.Header
	if int(h.NameOffset) != h.Size() {
		t.Errorf("compact: names at 0x%X, header ends at 0x%X", h.NameOffset, h.Size())
	}
	next := int32(-1)
	for i := range out.Exports {
		e := &out.Exports[i]
		if len(e.Data) == 0 {
			continue
		}
		if next >= 0 && e.SerialOffset != next {
			t.Errorf("compact: export %d at 0x%X, previous ends at 0x%X", i, e.SerialOffset, next)
		}
		next = e.SerialOffset + e.SerialSize
	}
	if next != h.ImportOffset || h.ImportOffset >= h.ExportOffset {
		t.Errorf("compact: data ends at 0x%X, imports at 0x%X, exports at 0x%X", next, h.ImportOffset, h.ExportOffset)
	}
	checker := exportByPath(t, out, "UnrmodDemo.Skins.Checker")
	if v := mustProp(t, out, checker, "UClamp"); v.Int != 8 {
		t.Errorf("UClamp = %d, want 8", v.Int)
	}
	checkMipsPointAtUSize(t, out, checker)
	if out.FindName("DemoSkin") < 0 {
		t.Errorf("DemoSkin not added")
	}

	// Target 1: explicit GUID, preserve layout.
	in, out = targetInput(t, res, 1), targetOutput(t, res, 1)
	if got := out.GUID().String(); got != "0123456789ABCDEF0123456789ABCDEF" {
		t.Errorf("GUID %s, want the explicit one", got)
	}
	if len(out.Header.Generations) != 1 || res.Targets[1].GUID.Policy != "explicit" {
		t.Errorf("explicit GUID: %d generations, policy %s", len(out.Header.Generations), res.Targets[1].GUID.Policy)
	}
	li := exportByPath(t, out, "UnrmodDemoMap.LevelInfo0")
	if v := mustProp(t, out, li, "Author"); v.Str != "unrmod team" {
		t.Errorf("Author = %q", v.Str)
	}
	sameExportData(t, in, out, "UnrmodDemoMap.LevelInfo0")
}

func checkZenDataTableExample(t *testing.T, _ *patch.File, res *patch.Result) {
	values := func(path string) map[string]string {
		p, _ := readZen(t, path)
		out := map[string]string{}
		for i := range p.Exports {
			ctx, err := zenprops.ContextFor(p, i)
			if err != nil {
				t.Fatal(err)
			}
			if zenprops.IsDataTable(p, nil, i) {
				tb, err := props.DecodeDataTable(p.Exports[i].Data, ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range tb.Rows {
					for _, q := range r.Properties.Properties {
						out[r.Name.Text+": "+q.Name.Text] = props.Display(q.Value, nil)
					}
				}
				continue
			}
			if l, err := props.Decode(p.Exports[i].Data, ctx); err == nil {
				for _, q := range l.Properties {
					out[p.ExportName(i)+": "+q.Name.Text] = props.Display(q.Value, nil)
				}
			}
		}
		return out
	}
	want := map[string]string{
		"Stick: MaxStackSize":                    "999",
		"Stick: Weight":                          "0.1",
		"Stick: DisplayName":                     `"Sturdy Stick"`,
		"Acorn: bStackable":                      "true",
		"Acorn: Rarity":                          "EDemoRarity::Common",
		"Default__BP_DemoPickup_C: PickupAmount": "20",
		"Default__BP_DemoPickup_C: RespawnTime":  "5",
		"Default__BP_DemoPickup_C: Tint":         "(R=1,G=1,B=0.2,A=1)",
	}
	for k, tr := range res.Targets {
		before, after := values(tr.Input), values(tr.Output)
		for key, old := range before {
			w, changed := want[key]
			switch {
			case changed && after[key] != w:
				t.Errorf("target %d: %s = %s, want %s", k, key, after[key], w)
			case !changed && after[key] != old:
				t.Errorf("target %d: %s changed from %s to %s", k, key, old, after[key])
			}
		}
	}
	// The table grew by the longer name: the store entry must follow.
	if st := res.Targets[0].Store; len(st) != 1 || st[0].Field != "ExportBundlesSize" || st[0].New != strconv.FormatInt(res.Targets[0].Size, 10) {
		t.Errorf("store changes %v", st)
	}
	if len(res.Targets[1].Store) != 0 {
		t.Errorf("the Blueprint's size did not change, yet %v", res.Targets[1].Store)
	}
}

// containerFiles lists the files of the container whose .utoc is utoc: the
// .utoc, its first .ucas and its .pak.
func containerFiles(utoc string) []string {
	base := strings.TrimSuffix(utoc, ".utoc")
	return []string{utoc, base + ".ucas", base + ".pak"}
}

// checkContainerOutput opens a container target's output and verifies it,
// its packages included.
func checkContainerOutput(t *testing.T, tr *patch.TargetResult) {
	t.Helper()
	c, err := iostore.Open(tr.Output, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := c.Verify(nil)
	if !r.OK() || r.PackagesChecked < len(tr.Container.Packages) {
		t.Errorf("%s: %v (%d packages checked)", tr.Output, r.Problems, r.PackagesChecked)
	}
	for _, f := range containerFiles(tr.Output)[1:] {
		if _, err := os.Stat(f); err != nil && (tr.Container.Mode == "mod" || !strings.HasSuffix(f, ".pak")) {
			t.Errorf("%s is missing: %v", f, err)
		}
	}
}

// checkGroundedModExample checks the mod container: the renamed name, the
// class defaults from the data file, the store entry, and that it overrides
// the game's package: the same chunk id, a _P name that sorts after the
// game's.
func checkGroundedModExample(t *testing.T, _ *patch.File, res *patch.Result) {
	tr := res.Targets[0]
	c, err := iostore.Open(tr.Output, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	base, err := iostore.Open(tr.Input, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	i, err := c.FindPackage("/Game/Items/BP_DemoPickup")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := base.Find(c.Chunks()[i].ID); !ok {
		t.Error("the mod's package chunk is not one of the game's: it overrides nothing")
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(examplesDir, "data", "BP_DemoPickup-defaults.bin"))
	cdo := -1
	for k := range p.Exports {
		if p.ExportName(k) == "Default__BP_DemoPickup_C" {
			cdo = k
		}
	}
	if cdo < 0 || !bytes.Equal(p.Exports[cdo].Data, want) {
		t.Error("the class defaults do not hold the data file's bytes")
	}
	found := false
	for _, n := range p.Names {
		found = found || n == "GoldenAcorn"
	}
	if !found {
		t.Error("GoldenAcorn is not in the name map")
	}
	h, err := c.ContainerHeader()
	if err != nil || len(h.Packages) != 1 || h.Packages[0].PackageID != p.ID() || h.Packages[0].ExportBundlesSize != uint64(p.Size()) {
		t.Errorf("container header %+v (%v)", h, err)
	}
	mod := strings.TrimSuffix(filepath.Base(tr.Output), ".utoc")
	if !strings.HasSuffix(mod, "_P") || mod <= strings.TrimSuffix(filepath.Base(tr.Input), ".utoc") {
		t.Errorf("mod %s does not win over the game's container", mod)
	}
}
