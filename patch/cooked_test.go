package patch_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// Cooked assets of the corpus, extracted from their paks.
const (
	ue58TaggedPak = "pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"
	groundedPak   = "other/grounded/500-CreativeUnlock_P.pak"

	ue58Table    = "CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset"
	ue58Data     = "CUE4ParseFixtures/Content/Fixtures/Properties/DA_AllProperties.uasset"
	ue58Texture  = "CUE4ParseFixtures/Content/Fixtures/Textures/T_Streaming.uasset"
	groundedTool = "Maine/Content/Blueprints/Items/CraftingTables/Table_Crafting_Tools.uasset"
)

// extractPak extracts the corpus pak rel into a temporary folder (as
// unrmod extract does: under its mount point) and returns the folder.
func extractPak(t *testing.T, rel string) string {
	t.Helper()
	r, err := pak.Open(corpus.Path(t, rel), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	if _, err := r.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readCooked decodes the cooked asset at path with its .uexp.
func readCooked(t *testing.T, path string) *uasset.Package {
	t.Helper()
	h, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x, err := os.ReadFile(uasset.CompanionNames(path).Uexp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := uasset.Decode(path, h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// cookedProblems is what verify finds in p: its structure and properties.
func cookedProblems(p *uasset.Package) []string {
	var out []string
	for _, x := range append(p.Problems(), assetprops.Problems(p)...) {
		out = append(out, x.String())
	}
	return out
}

// cookedCase is a patch of one extracted corpus asset.
type cookedCase struct {
	name  string
	pak   string
	asset string // the header file's path in the pak
	ops   string // the target's ops, as YAML lines
	extra string // more keys of the target (e.g. "    layout: compact\n")
	// want are texts the changed export's properties show afterwards
	// (report.NewCookedProperties), changed the exports whose data
	// changes.
	want    []string
	changed []int
}

// applyCooked applies c's ops to its asset, extracted, and returns the
// result, the input's path and the output's.
func applyCooked(t *testing.T, c cookedCase) (*patch.Result, string, string, error) {
	t.Helper()
	dir := extractPak(t, c.pak)
	in := filepath.Join(dir, filepath.FromSlash(c.asset))
	// The output keeps the asset's path under its Content folder, which
	// a UE4 cook's package name is known by.
	out := filepath.Join(t.TempDir(), filepath.FromSlash(c.asset))
	text := "unrmod: 1\ntargets:\n  - file: " + in + "\n    output: " + out + "\n" + c.extra + "    ops:\n" + c.ops
	res, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), text), patch.Options{})
	return res, in, out, err
}

// checkCookedOutput checks an output against its input: it verifies as
// cleanly as the input, only the exports in changed have other data, the
// properties show want, and the patch applied to the output is already in
// effect.
func checkCookedOutput(t *testing.T, c cookedCase, in, out string) {
	t.Helper()
	a, b := readCooked(t, in), readCooked(t, out)
	if got, had := cookedProblems(b), cookedProblems(a); strings.Join(got, "\n") != strings.Join(had, "\n") {
		t.Errorf("output problems:\n%s\ninput's:\n%s", strings.Join(got, "\n"), strings.Join(had, "\n"))
	}
	if len(a.Exports) != len(b.Exports) {
		t.Fatalf("%d exports, want %d", len(b.Exports), len(a.Exports))
	}
	var changed []int
	for i := range a.Exports {
		if !bytes.Equal(a.Exports[i].Data, b.Exports[i].Data) {
			changed = append(changed, i)
		}
	}
	if !equalInts(changed, c.changed) {
		t.Errorf("exports with other data: %v, want %v", changed, c.changed)
	}
	list := c.changed
	if len(list) == 0 {
		for i := range b.Exports {
			list = append(list, i)
		}
	}
	pr, err := report.NewCookedProperties(out, b, "", list, false, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, e := range pr.Exports {
		text.WriteString(e.Text)
	}
	for _, w := range c.want {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the properties do not show %q:\n%s", w, text.String())
		}
	}
	// Once more, on the output: every operation is already in effect.
	again := filepath.Join(t.TempDir(), filepath.FromSlash(c.asset))
	text2 := "unrmod: 1\ntargets:\n  - file: " + out + "\n    output: " + again + "\n    ops:\n" + c.ops
	res, err := patch.Apply(parsePatch(t, filepath.Join(t.TempDir(), "p.yaml"), text2), patch.Options{})
	if err != nil {
		t.Fatalf("again: %v", err)
	}
	tr := res.Targets[0]
	if tr.Changed || !strings.Contains(tr.Summary(), "already in effect") {
		t.Errorf("again: %s", tr.Summary())
	}
	for _, ch := range tr.Changes {
		if !ch.Already {
			t.Errorf("again: %s is not already in effect", ch)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCookedSetProperty sets properties of real cooked assets (a UE 5.8
// DataTable and data asset, a UE 4.27 Grounded DataTable): rows, struct
// members, array elements, values that resize the export. The output
// shows each value, keeps every other export byte for byte, verifies, and
// the patch applied to it again changes nothing.
func TestCookedSetProperty(t *testing.T) {
	for _, c := range []cookedCase{
		{name: "ue58 table row", pak: ue58TaggedPak, asset: ue58Table, changed: []int{0},
			ops: `      - set-property: {object: DT_AllProperties, row: Alpha, property: Message, value: "A longer message than before"}
      - set-property: {object: DT_AllProperties, row: Beta, property: "Nested.Samples[1]", value: "7.5"}
      - set-property: {object: DT_AllProperties, row: Alpha, property: Nested.Position.X, value: "9"}
      - set-property: {object: DT_AllProperties, row: Beta, property: "Values[3]", value: "-5"}
`,
			want: []string{`"A longer message than before"`, "[1] = 7.5", "(X=9,Y=-2.5,Z=3.75)", "[3] = -5"}},
		{name: "ue58 data asset", pak: ue58TaggedPak, asset: ue58Data, changed: []int{1},
			ops: `      - set-property: {object: /Game/Fixtures/Properties/DA_AllProperties.DA_AllProperties, property: Integer, value: "42"}
      - set-property: {object: DA_AllProperties, property: String, value: "short"}
`,
			want: []string{"Integer (IntProperty) = 42", `String (StrProperty) = "short"`}},
		{name: "grounded 4.27 table row", pak: groundedPak, asset: groundedTool, changed: []int{0},
			ops: `      - set-property: {object: Table_Crafting_Tools, row: Axe, property: "Requirements[0].ItemCount", value: "1"}
      - set-property: {object: Table_Crafting_Tools, row: Axe, property: CraftedItemCount, value: "2"}
`,
			want: []string{"ItemCount (IntProperty) = 1", "CraftedItemCount (IntProperty) = 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, in, out, err := applyCooked(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if tr := res.Targets[0]; tr.Kind != "cooked" || !tr.Changed {
				t.Fatalf("%s", tr.Summary())
			}
			checkCookedOutput(t, c, in, out)
		})
	}
}

// TestCookedNames adds and renames names of real cooked assets: a renamed
// row name shows as the row's new name, an added name is in the name map,
// and renames the engine would not follow are refused with the reason.
func TestCookedNames(t *testing.T) {
	for _, c := range []struct {
		cookedCase
		names   []string // names the output has
		refused string   // the error, for a refused change
	}{
		{cookedCase: cookedCase{name: "add-name ue58", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - add-name: {name: Fixture_Added_Name}\n"}, names: []string{"Fixture_Added_Name"}},
		{cookedCase: cookedCase{name: "add-name grounded", pak: groundedPak, asset: groundedTool,
			ops: "      - add-name: {name: Added_For_Mod}\n"}, names: []string{"Added_For_Mod"}},
		{cookedCase: cookedCase{name: "rename row", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - rename: {from: Alpha, to: Gamma}\n", want: []string{"Row Gamma"}}, names: []string{"Gamma"}},
		{cookedCase: cookedCase{name: "rename row grounded", pak: groundedPak, asset: groundedTool,
			ops: "      - rename: {from: Axe, to: Axe_Modded}\n", want: []string{"Row Axe_Modded"}}, names: []string{"Axe_Modded"}},
		{cookedCase: cookedCase{name: "property type", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - rename: {from: IntProperty, to: FloatProperty2}\n"}, refused: "is a type in the property tags"},
		{cookedCase: cookedCase{name: "none", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - rename: {from: None, to: Nothing}\n"}, refused: "cannot rename None"},
		{cookedCase: cookedCase{name: "public export", pak: groundedPak, asset: groundedTool,
			ops: "      - rename: {from: Table_Crafting_Tools, to: Table_Other}\n"}, refused: "public export"},
		{cookedCase: cookedCase{name: "merge", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - rename: {from: Alpha, to: Beta}\n"}, refused: "would merge the two"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, in, out, err := applyCooked(t, c.cookedCase)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("got %v, want an error saying %q", err, c.refused)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was written", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			q := readCooked(t, out)
			for _, want := range c.names {
				found := false
				for _, n := range q.Names {
					found = found || n.Value == want
				}
				if !found {
					t.Errorf("the output has no name %q", want)
				}
			}
			checkCookedOutput(t, c.cookedCase, in, out)
		})
	}
}

// TestCookedFlags changes the package and object flags of real cooked
// assets: the output has the new flags and otherwise the same bytes, and
// flags that decide how the file or its data is read are refused.
func TestCookedFlags(t *testing.T) {
	for _, c := range []struct {
		cookedCase
		pkgFlags, objFlags uint32 // the output's package flags and export 0's object flags must have these set
		refused            string
	}{
		{cookedCase: cookedCase{name: "package ue58", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - package-flags: {set: [ServerSideOnly]}\n"}, pkgFlags: 0x4},
		{cookedCase: cookedCase{name: "package grounded", pak: groundedPak, asset: groundedTool,
			ops: "      - package-flags: {set: [ServerSideOnly, 0x8000]}\n"}, pkgFlags: 0x8004},
		{cookedCase: cookedCase{name: "object ue58", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - object-flags: {object: DT_AllProperties, set: [Transactional]}\n"}, objFlags: 0x8},
		{cookedCase: cookedCase{name: "object grounded", pak: groundedPak, asset: groundedTool,
			ops: "      - object-flags: {object: /Game/Blueprints/Items/CraftingTables/Table_Crafting_Tools.Table_Crafting_Tools, set: [Transactional]}\n"}, objFlags: 0x8},
		{cookedCase: cookedCase{name: "unversioned", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - package-flags: {set: [UnversionedProperties]}\n"}, refused: "UnversionedProperties says how"},
		{cookedCase: cookedCase{name: "filter editor only", pak: groundedPak, asset: groundedTool,
			ops: "      - package-flags: {clear: [FilterEditorOnly]}\n"}, refused: "FilterEditorOnly says which fields"},
		{cookedCase: cookedCase{name: "public", pak: ue58TaggedPak, asset: ue58Table,
			ops: "      - object-flags: {object: DT_AllProperties, clear: [Public]}\n"}, refused: "Public says whether"},
		{cookedCase: cookedCase{name: "compact layout", pak: ue58TaggedPak, asset: ue58Table, extra: "    layout: compact\n",
			ops: "      - package-flags: {set: [ServerSideOnly]}\n"}, refused: "layout: compact: a cooked asset is always written"},
		{cookedCase: cookedCase{name: "class default object", pak: groundedPak, asset: groundedTool,
			ops: "      - object-flags: {object: Table_Crafting_Tools, set: [ClassDefaultObject]}\n"}, refused: "ClassDefaultObject decides"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, in, out, err := applyCooked(t, c.cookedCase)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("got %v, want an error saying %q", err, c.refused)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was written", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			a, q := readCooked(t, in), readCooked(t, out)
			if got := q.Summary.PackageFlags; got != a.Summary.PackageFlags|c.pkgFlags {
				t.Errorf("package flags %#x, want %#x", got, a.Summary.PackageFlags|c.pkgFlags)
			}
			if got := q.Exports[0].ObjectFlags; got != a.Exports[0].ObjectFlags|c.objFlags {
				t.Errorf("object flags %#x, want %#x", got, a.Exports[0].ObjectFlags|c.objFlags)
			}
			checkCookedOutput(t, c.cookedCase, in, out)
		})
	}
}

// TestCookedCompanionsCopied patches a texture whose mips are in a
// .ubulk: the output has its .uexp and a copy of the .ubulk beside it,
// and a dry run writes nothing.
func TestCookedCompanionsCopied(t *testing.T) {
	c := cookedCase{pak: ue58TaggedPak, asset: ue58Texture,
		ops: "      - package-flags: {set: [ServerSideOnly]}\n"}
	dir := extractPak(t, c.pak)
	in := filepath.Join(dir, filepath.FromSlash(c.asset))
	outDir := t.TempDir()
	out := filepath.Join(outDir, filepath.Base(in))
	text := "unrmod: 1\ntargets:\n  - file: " + in + "\n    output: " + out + "\n    ops:\n" + c.ops
	for _, dry := range []bool{true, false} {
		if _, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), text), patch.Options{DryRun: dry}); err != nil {
			t.Fatal(err)
		}
		names, _ := filepath.Glob(filepath.Join(outDir, "*"))
		if dry && len(names) != 0 {
			t.Fatalf("a dry run wrote %v", names)
		}
	}
	want, err := os.ReadFile(uasset.CompanionNames(in).Ubulk)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(uasset.CompanionNames(out).Ubulk)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the .ubulk beside the output: %v (%d bytes, want %d)", err, len(got), len(want))
	}
	if p := readCooked(t, out); p.Summary.PackageFlags&0x4 == 0 {
		t.Errorf("package flags %#x: ServerSideOnly not set", p.Summary.PackageFlags)
	}
}

// TestCookedReplaceExport replaces an export's data of real cooked assets
// with data changed elsewhere (written to a file, as export-data writes
// an export): the output holds exactly those bytes, shows the changed
// values, verifies (a UE 5.8 export's script serialization range follows
// the new data), and the patch applied to it again changes nothing. Data
// that is not a property list of the asset, and a copy from an export of
// another class, are refused.
func TestCookedReplaceExport(t *testing.T) {
	type edit struct {
		row, path, value string
	}
	for _, c := range []struct {
		cookedCase
		export  int
		edits   []edit // how the new data differs from the old
		data    []byte // else: these bytes
		from    string // else: copy from this export
		refused string
	}{
		{cookedCase: cookedCase{name: "ue58 data asset", pak: ue58TaggedPak, asset: ue58Data, changed: []int{1},
			want: []string{"Integer (IntProperty) = 42", `String (StrProperty) = "a longer string than the one it replaces"`}},
			export: 1, edits: []edit{{"", "Integer", "42"}, {"", "String", "a longer string than the one it replaces"}}},
		{cookedCase: cookedCase{name: "ue58 table", pak: ue58TaggedPak, asset: ue58Table, changed: []int{0},
			want: []string{`"x"`}}, export: 0, edits: []edit{{"Alpha", "Message", "x"}}},
		{cookedCase: cookedCase{name: "grounded table", pak: groundedPak, asset: groundedTool, changed: []int{0},
			want: []string{"CraftedItemCount (IntProperty) = 5"}}, export: 0, edits: []edit{{"Axe", "CraftedItemCount", "5"}}},
		{cookedCase: cookedCase{name: "not properties", pak: ue58TaggedPak, asset: ue58Data},
			export: 1, data: bytes.Repeat([]byte{0xFF}, 64), refused: "the new data does not fit this export"},
		{cookedCase: cookedCase{name: "other class", pak: ue58TaggedPak, asset: ue58Data},
			export: 1, from: "InlineFixture", refused: "differ in class"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "export.bin")
			if c.from != "" {
				c.ops = "      - replace-export: {object: " + c.name + ", from: {object: " + c.from + "}}\n"
			} else {
				c.ops = "      - replace-export: {object: " + c.name + ", data: {file: " + src + "}}\n"
			}
			// Find the export's name and make its new data.
			probe := extractPak(t, c.pak)
			p := readCooked(t, filepath.Join(probe, filepath.FromSlash(c.asset)))
			obj := p.NameOf(p.Exports[c.export].ObjectName)
			c.ops = strings.Replace(c.ops, "object: "+c.name, "object: "+obj, 1)
			data := c.data
			if data == nil && c.from == "" {
				for _, e := range c.edits {
					if _, err := assetprops.Set(p, c.export, props.Target{Row: e.row, Path: e.path}, props.Input{Text: e.value}); err != nil {
						t.Fatal(err)
					}
				}
				data = p.Exports[c.export].Data
			}
			if err := os.WriteFile(src, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, in, out, err := applyCooked(t, c.cookedCase)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("got %v, want an error saying %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q := readCooked(t, out); !bytes.Equal(q.Exports[c.export].Data, data) {
				t.Errorf("the output's export %d has other data than given", c.export)
			}
			checkCookedOutput(t, c.cookedCase, in, out)
		})
	}
}

// TestCookedInPlace patches a cooked asset over itself: the .uasset and
// the .uexp are both kept as .bak with their original bytes, the .ubulk
// stays as it was, and a second run leaves everything as it is.
func TestCookedInPlace(t *testing.T) {
	dir := extractPak(t, ue58TaggedPak)
	in := filepath.Join(dir, filepath.FromSlash(ue58Texture))
	names := uasset.CompanionNames(in)
	orig := map[string][]byte{}
	for _, f := range []string{in, names.Uexp, names.Ubulk} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		orig[f] = b
	}
	text := "unrmod: 1\ntargets:\n  - file: " + in + "\n    ops:\n      - package-flags: {set: [ServerSideOnly]}\n"
	for run := 0; run < 2; run++ {
		res, err := patch.Apply(parsePatch(t, filepath.Join(dir, "p.yaml"), text), patch.Options{InPlace: true})
		if err != nil {
			t.Fatal(err)
		}
		if tr := res.Targets[0]; tr.Changed != (run == 0) {
			t.Fatalf("run %d: %s", run, tr.Summary())
		}
		for _, f := range []string{in, names.Uexp} {
			if b, err := os.ReadFile(f + ".bak"); err != nil || !bytes.Equal(b, orig[f]) {
				t.Errorf("run %d: %s.bak: %v, or other bytes than the original", run, f, err)
			}
		}
		if b, err := os.ReadFile(names.Ubulk); err != nil || !bytes.Equal(b, orig[names.Ubulk]) {
			t.Errorf("run %d: the .ubulk changed (%v)", run, err)
		}
		q := readCooked(t, in)
		if q.Summary.PackageFlags&0x4 == 0 {
			t.Errorf("run %d: package flags %#x", run, q.Summary.PackageFlags)
		}
		if pr := cookedProblems(q); len(pr) > 0 {
			t.Errorf("run %d: %v", run, pr)
		}
	}
}

// TestCookedBlueprintRename renames a component of each cooked Blueprint
// of the corpus (a name X whose X_GEN_VARIABLE template is one of the
// asset's exports): the output verifies as the input does, diff shows exactly that
// rename, and the new name is stored as the map stores its names (UE5
// cooks store none of their hashes).
func TestCookedBlueprintRename(t *testing.T) {
	dir := corpus.Dir(t)
	var assets []string
	for _, d := range []string{"other/ue5_cooked_pairs", "other/ue4_27_cooked_pairs"} {
		m, _ := filepath.Glob(filepath.Join(dir, d, "*.uasset"))
		assets = append(assets, m...)
	}
	n := 0
	for _, in := range assets {
		p := readCooked(t, in)
		r := assetprops.NewResolver(p, report.CookedPackageName(in, p))
		from := ""
		for _, nm := range p.Names {
			for i := range p.Exports {
				if path := r.ExportPath(i); from == "" && strings.HasSuffix(path, ":"+nm.Value+"_GEN_VARIABLE") {
					from = nm.Value
				}
			}
		}
		if from == "" {
			continue // not a Blueprint with components
		}
		n++
		t.Run(filepath.Base(in), func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(tmp, filepath.Base(in))
			text := "unrmod: 1\ntargets:\n  - file: " + in + "\n    output: " + out + "\n    ops:\n      - rename: {from: " + from + ", to: " + from + "Renamed}\n"
			res, err := patch.Apply(parsePatch(t, filepath.Join(tmp, "p.yaml"), text), patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tr := res.Targets[0]; !tr.Changed || len(tr.Changes) != 1 {
				t.Fatalf("result: %s", tr.Summary())
			}
			a, b := readCooked(t, in), readCooked(t, out)
			if got, had := cookedProblems(b), cookedProblems(a); strings.Join(got, "\n") != strings.Join(had, "\n") {
				t.Errorf("output problems:\n%s\ninput's:\n%s", strings.Join(got, "\n"), strings.Join(had, "\n"))
			}
			d := patch.DiffAsset(in, a, report.CookedPackageName(in, a), out, b, report.CookedPackageName(out, b))
			if len(d.Header) != 0 || len(d.Imports) != 0 || len(d.Exports) != 0 || len(d.Names) != 1 ||
				d.Names[0].Old != from || d.Names[0].New != from+"Renamed" {
				var buf bytes.Buffer
				d.Format(&buf)
				t.Errorf("diff is not exactly the rename:\n%s", buf.String())
			}
			zero := true
			for _, nm := range a.Names {
				zero = zero && nm.NonCaseHash == 0 && nm.CaseHash == 0
			}
			for _, nm := range b.Names {
				if nm.Value == from+"Renamed" && zero != (nm.NonCaseHash == 0 && nm.CaseHash == 0) {
					t.Errorf("the new name's hashes are 0x%04X 0x%04X in a map whose names have hashes: %v", nm.NonCaseHash, nm.CaseHash, !zero)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no cooked Blueprint with components in the corpus")
	}
}
