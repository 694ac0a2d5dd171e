package patch_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// references lists every reference a package makes to an object, by path:
// the imports themselves (path and class), each export's class, super and
// outer, its state frame's nodes, and every object property (also the zone
// of a PointRegion). rename maps an old top-level package name to the new
// one, for packages whose imports were retargeted.
func references(t testing.TB, p *reader.Package, rename map[string]string) []string {
	t.Helper()
	obj := func(r reader.ObjectRef) string {
		if r == 0 {
			return "None"
		}
		s := describe(p, r)
		for from, to := range rename {
			s = strings.Replace(s, "'"+from+".", "'"+to+".", 1)
			s = strings.Replace(s, "'"+from+"'", "'"+to+"'", 1)
		}
		return s
	}
	var out []string
	for k := range p.Imports {
		out = append(out, "import "+obj(reader.ImportRef(k)))
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		path := p.ExportPath(i)
		out = append(out, fmt.Sprintf("export %s: class %s super %s outer %s", path, obj(e.Class), obj(e.Super), obj(e.Outer)))
		if e.Class == 0 || len(e.Data) == 0 {
			continue
		}
		if e.Flags&reader.RFHasStack != 0 {
			c := binio.NewCursor(e.Data, 0)
			node, state := c.Index("node"), c.Index("state")
			out = append(out, fmt.Sprintf("export %s: state frame %s %s", path, obj(reader.ObjectRef(node)), obj(reader.ObjectRef(state))))
		}
		l, err := p.Properties(i)
		if err != nil {
			continue
		}
		for _, q := range l.Props {
			v := q.Value(e.Data)
			switch {
			case q.Type == reader.PropObject:
			case q.Type == reader.PropStruct && strings.EqualFold(p.NameOf(q.StructName), "PointRegion"):
				v = v[:len(v)-5]
			default:
				continue
			}
			x, _, err := binio.ReadIndex(v)
			if err != nil {
				t.Fatalf("%s: %s property %s: %v", p.FileName, path, p.NameOf(q.Name), err)
			}
			out = append(out, fmt.Sprintf("export %s: %s[%d] = %s", path, p.NameOf(q.Name), q.ArrayIndex, obj(reader.ObjectRef(x))))
		}
	}
	sort.Strings(out)
	return out
}

// describe is Class'Path' for any object reference.
func describe(p *reader.Package, r reader.ObjectRef) string {
	if i, ok := r.Export(); ok && i < len(p.Exports) {
		return p.ClassName(i) + "'" + p.Path(r) + "'"
	}
	if i, ok := r.Import(); ok && i < len(p.Imports) {
		return p.ImportClassName(i) + "'" + p.Path(r) + "'"
	}
	return fmt.Sprintf("<bad reference %d>", r)
}

// sameReferences checks that b refers to the same objects as a, but for
// the imports removed (given as Class'Path').
func sameReferences(t testing.TB, a, b *reader.Package, rename map[string]string, removed ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, s := range references(t, a, rename) {
		want[s] = true
	}
	for _, s := range removed {
		if !want["import "+s] {
			t.Errorf("%s has no import %s to remove", a.FileName, s)
		}
		delete(want, "import "+s)
	}
	got := references(t, b, nil)
	for _, s := range got {
		if !want[s] {
			t.Errorf("%s: unexpected %s", b.FileName, s)
		}
		delete(want, s)
	}
	for s := range want {
		t.Errorf("%s: lost %s", b.FileName, s)
	}
}

// removedImports returns what the plan says prune-imports removed.
func removedImports(res *patch.Result) []string {
	var out []string
	for _, c := range changesOf(res) {
		if c.Op == "prune-imports" && c.Field == "" && !c.Already {
			out = append(out, c.Old)
		}
	}
	return out
}

func checkPruneImportsExample(t *testing.T, _ *patch.File, res *patch.Result) {
	in, out := targetInput(t, res, 0), targetOutput(t, res, 0)
	if got := removedImports(res); len(got) != 1 || got[0] != "Engine (Core.Package, index 2)" {
		t.Errorf("removed %q", got)
	}
	if len(out.Imports) != len(in.Imports) || importByPath(out, "Engine", "Package") >= 0 || importByPath(out, "UnrmodClasses", "Package") != 2 {
		t.Errorf("imports %d → %d; Engine at %d, UnrmodClasses at %d", len(in.Imports), len(out.Imports),
			importByPath(out, "Engine", "Package"), importByPath(out, "UnrmodClasses", "Package"))
	}
	sameReferences(t, in, out, map[string]string{"Engine": "UnrmodClasses"})
	sameExportData(t, in, out)
}

// pruneFixture builds a package whose referenced imports sit past index
// 64 (two-byte indices) behind unused ones, referred to from every kind of
// site prune-imports rewrites: export classes, an object property of a
// texture (whose mips follow and must move with it), a state frame and a
// PointRegion.
func pruneFixture(t *testing.T, v reader.Version) []byte {
	t.Helper()
	b := fixture.New("PruneMe", v, reader.GUID{1, 1, 2, 3})
	flags := reader.RFPublic | reader.RFLoadContext | reader.RFStandalone
	for k := 0; k < 3; k++ {
		b.Import("Core", "Package", fmt.Sprintf("Gone%d", k), 0)
	}
	pal := b.Export(b.Class("Engine", "Palette"), 0, "Pal", flags, b.Palette(4))
	for k := 0; k < 66; k++ { // referenced, so kept in place
		r := b.Import("Engine", "Texture", fmt.Sprintf("Filler%d", k), b.Import("Core", "Package", "Fillers", 0))
		b.Export(b.Class("Engine", "Texture"), 0, fmt.Sprintf("Holder%d", k), flags,
			b.Texture(b.Props().Object("DetailTexture", r).Bytes(), []fixture.Mip{{USize: 1, VSize: 1, Pixels: []byte{1}}}))
	}
	// The last three imports are the ones the prune moves.
	rocks, pawn, zones := b.Import("Core", "Package", "Rocks", 0), b.Class("Engine", "Pawn"), b.Import("Core", "Package", "Zones", 0)
	texture := b.Class("Engine", "Texture")
	detail := b.Import("Engine", "Texture", "Rock", rocks)
	state := b.Import("Core", "State", "Dying", pawn)
	zone := b.Import("Engine", "ZoneInfo", "Zone7", zones)
	b.Export(texture, 0, "Wall", flags, b.Texture(
		b.Props().Object("Palette", pal).Object("DetailTexture", detail).Bytes(),
		[]fixture.Mip{{USize: 2, VSize: 2, Pixels: []byte{1, 2, 3, 4}}, {USize: 1, VSize: 1, Pixels: []byte{5}}}))
	// An actor: state frame (Node and StateNode name the state), then a
	// PointRegion (Zone, iLeaf, ZoneNumber).
	frame := binio.AppendIndex(nil, int32(state))
	frame = binio.AppendIndex(frame, int32(state))
	frame = binary.LittleEndian.AppendUint64(frame, 0)
	frame = binary.LittleEndian.AppendUint32(frame, 0)
	frame = binio.AppendIndex(frame, 0) // code offset
	region := binio.AppendIndex(nil, int32(zone))
	region = binary.LittleEndian.AppendUint32(region, 0xFFFFFFFF)
	region = append(region, 3)
	props, err := writer.AppendPropertyTag(nil, writer.PropertyTag{Name: b.Name("Region"), Type: reader.PropStruct, StructName: b.Name("PointRegion")}, region)
	if err != nil {
		t.Fatal(err)
	}
	props = append(props, b.Props().Int("Health", 90).Bytes()...)
	b.Export(pawn, 0, "Pawn0", reader.RFLoadContext|reader.RFHasStack, append(frame, props...))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPruneImportsRenumbers removes three unused imports at the front of
// the table, so that three referenced ones move from two-byte to one-byte
// indices: every site is rewritten, sizes and lazy-array offsets follow,
// in both layouts and in every version family.
func TestPruneImportsRenumbers(t *testing.T) {
	for _, v := range []reader.Version{{File: 61}, {File: 69}, {File: 128, Licensee: 29}} {
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			t.Run(v.String()+"/"+layout.String(), func(t *testing.T) {
				dir := t.TempDir()
				pkg := filepath.Join(dir, "PruneMe.u")
				if err := os.WriteFile(pkg, pruneFixture(t, v), 0o644); err != nil {
					t.Fatal(err)
				}
				in := readPkg(t, pkg)
				for _, path := range []string{"Rocks.Rock", "Engine.Pawn.Dying", "Zones.Zone7"} {
					if k := importByPath(in, path, ""); k < 64 {
						t.Fatalf("%s is import %d: the fixture must put it past 64", path, k)
					}
				}
				res, _ := applyText(t, oneTarget(pkg, "      - prune-imports:\n"), layout)
				out := readPkg(t, res.Targets[0].Output)
				got := removedImports(res)
				want := []string{"Gone0 (Core.Package, index 0)", "Gone1 (Core.Package, index 1)", "Gone2 (Core.Package, index 2)"}
				if strings.Join(got, "; ") != strings.Join(want, "; ") {
					t.Errorf("removed %q, want %q", got, want)
				}
				for _, path := range []string{"Rocks.Rock", "Engine.Pawn.Dying", "Zones.Zone7"} {
					if k := importByPath(out, path, ""); k < 0 || k >= 3 {
						t.Errorf("%s is import %d after the prune", path, k)
					}
				}
				sameReferences(t, in, out, nil, "Package'Gone0'", "Package'Gone1'", "Package'Gone2'")
				// The texture's mips moved within its data with the
				// shorter DetailTexture value.
				wall := exportByPath(t, out, "PruneMe.Wall")
				if v.File >= reader.VerLazySeekPos {
					checkMipsPointAtUSize(t, out, wall)
				}
				if a, b := len(in.Exports[wall].Data), len(out.Exports[wall].Data); b != a-1 {
					t.Errorf("Wall data %d → %d bytes, want one less", a, b)
				}
				sum := changesOf(res)[3]
				if sum.Field != "count" || !strings.Contains(sum.New, "3 removed, 3 renumbered") || sum.Warning != "" {
					t.Errorf("summary %q", sum)
				}
				res2, err := patch.Apply(reapply(parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(pkg, "      - prune-imports: {}\n")), res),
					patch.Options{OutputDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				if c := changesOf(res2); len(c) != 1 || !c[0].Already {
					t.Errorf("second run: %v", c)
				}
			})
		}
	}
}

// TestPruneImportsAfterRetarget: on real packages, moving the only object
// a package provided to another package, then pruning, removes exactly the
// old package's import; every other reference stays, renumbered.
func TestPruneImportsAfterRetarget(t *testing.T) {
	for _, c := range []struct {
		file, from string
		imports    []string
		removed    string // the import that goes
	}{
		{"legacy/ut99_stock/Entry.unr", "Core", []string{"Class'Core.TextBuffer'"}, "Package'Core'"},
		{"legacy/ut99_stock/Entry.unr", "Botpack", []string{"Botpack.SpectatorCam", "Botpack.UTIntro"}, "Package'Botpack'"},
		{"legacy/ut99_stock/BluffFX.utx", "Fire", []string{"Class'Fire.FireTexture'"}, "Package'Fire'"},
		{"legacy/ut99_stock/Activates.uax", "Engine", []string{"Class'Engine.Sound'"}, "Package'Engine'"},
		{"legacy/ut99_stock/Foregone.umx", "Engine", []string{"Class'Engine.Music'"}, "Package'Engine'"},
	} {
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			t.Run(filepath.Base(c.file)+"/"+c.from+"/"+layout.String(), func(t *testing.T) {
				path := corpus.Path(t, c.file)
				ops := ""
				for _, im := range c.imports {
					ops += "      - retarget-import: {import: " + yamlQuote(im) + ", package: Moved}\n"
				}
				res, _ := applyText(t, oneTarget(path, ops+"      - prune-imports: {}\n"), layout)
				in, out := readPkg(t, path), readPkg(t, res.Targets[0].Output)
				got := removedImports(res)
				if len(got) != 1 || !strings.HasPrefix(got[0], c.from+" (Core.Package, index ") {
					t.Errorf("removed %q, want only %s", got, c.removed)
				}
				if len(out.Imports) != len(in.Imports) {
					t.Errorf("%d imports → %d: the new package's import takes the old one's place", len(in.Imports), len(out.Imports))
				}
				// The old package's import is gone and the new one's took
				// its place: renamed, the references are the same.
				sameReferences(t, in, out, map[string]string{c.from: "Moved"})
				if k := importByPath(out, c.from, "Package"); k >= 0 {
					t.Errorf("%s is still import %d", c.removed, k)
				}
				sameExportContent(t, in, out)
			})
		}
	}
}

// TestPruneImportsUntouchedCorpus prunes every legacy corpus package as
// shipped. Packages that compilers and editors saved have no import
// nothing refers to, with one exception: script packages may import
// Core.Class without using its index anywhere (classes have class 0 in the
// export table). Those stay, because removing them would renumber imports
// that script bytecode names; the plan says so. Each import the plan calls
// unused is checked here: no table, property or state frame refers to it,
// and its index decodes from no byte of any export's data.
func TestPruneImportsUntouchedCorpus(t *testing.T) {
	files := corpus.Legacy(t)
	var total, unusedTotal, removedTotal int
	for _, path := range files {
		rel, _ := filepath.Rel(corpus.Dir(t), path)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			p := readPkg(t, path)
			res, err := patch.Apply(parsePatch(t, filepath.Join(t.TempDir(), "p.yaml"), oneTarget(path, "      - prune-imports: {}\n")),
				patch.Options{DryRun: true, OutputDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			total += len(p.Imports)
			removed := removedImports(res)
			removedTotal += len(removed)
			sum := changesOf(res)[len(changesOf(res))-1]
			var unused []string
			if _, after, ok := strings.Cut(sum.Warning, "unused import that nothing refers to"); ok {
				list := after[strings.Index(after, ": ")+2:]
				list, _, _ = strings.Cut(list, ";")
				unused = strings.Split(list, ", ")
			}
			for _, s := range removed {
				unused = append(unused, s[:strings.Index(s, " (")])
			}
			unusedTotal += len(unused)
			for _, s := range unused {
				k := -1
				for j := range p.Imports {
					if describe(p, reader.ImportRef(j)) == s || p.Path(reader.ImportRef(j)) == s {
						k = j
					}
				}
				if k < 0 {
					t.Fatalf("the plan names %q, which is no import", s)
				}
				checkUnreferenced(t, p, k)
			}
			want := 0
			if base := filepath.Base(path); base == "DeveloperMutator.u" || base == "EnergySword.u" {
				want = 1
			}
			if len(unused) != want || len(removed) != 0 {
				t.Errorf("unused %q, removed %q; want %d unused, none removed", unused, removed, want)
			}
		})
	}
	t.Logf("%d packages, %d imports: %d that nothing refers to (all kept: removing them would renumber imports script bytecode names), %d removed",
		len(files), total, unusedTotal, removedTotal)
}

// checkUnreferenced fails unless nothing in p refers to import k: no export
// table field, no import's outer, and no compact index anywhere in any
// export's data that decodes to it.
func checkUnreferenced(t *testing.T, p *reader.Package, k int) {
	t.Helper()
	r := reader.ImportRef(k)
	for i := range p.Imports {
		if p.Imports[i].Outer == r {
			t.Errorf("import %d %s is the outer of import %d", k, p.Path(r), i)
		}
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		if e.Class == r || e.Super == r || e.Outer == r {
			t.Errorf("export %s refers to import %d %s in the export table", p.ExportPath(i), k, p.Path(r))
		}
		for pos := range e.Data {
			if v, _, err := binio.ReadIndex(e.Data[pos:]); err == nil && reader.ObjectRef(v) == r {
				t.Errorf("export %s data offset %d holds an index of import %d %s", p.ExportPath(i), pos, k, p.Path(r))
				break
			}
		}
	}
}

// TestPruneImportsParse: no arguments, or an empty mapping.
func TestPruneImportsParse(t *testing.T) {
	for _, c := range []struct {
		ops, err string
	}{
		{"      - prune-imports: {}\n", ""},
		{"      - prune-imports:\n", ""},
		{"      - prune-imports: {all: true}\n", `takes no keys (found "all")`},
		{"      - prune-imports: yes\n", "takes no arguments"},
		{"      - prune-imports: [a]\n", "takes no arguments"},
	} {
		f, err := patch.Parse("p.yaml", []byte(doc(c.ops)))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.ops, err)
		case c.err == "" && f.Targets[0].Ops[0].Kind() != "prune-imports":
			t.Errorf("%q parses as %s", c.ops, f.Targets[0].Ops[0].Kind())
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "p.yaml:5:")):
			t.Errorf("%q: error %v, want %q at line 5", c.ops, err, c.err)
		}
	}
}
