package assetprops_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// The UE 5.8 fixture project cooked as legacy paks and as a zen container.
var (
	taggedPaks = []string{
		"pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak",
		"pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak",
	}
	taggedContainer = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	taggedGlobal    = "iostore/cue4parse_ue5_8/Tagged/global.utoc"
)

// pakAsset is a cooked asset read from a pak.
type pakAsset struct {
	name         string // PAK:PATH
	path         string // the file's path in the pak
	mount        string // the pak's mount point
	uasset, uexp []byte
}

func isHeader(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".uasset" || ext == ".umap"
}

// readPak returns every header file of the pak at the corpus path rel
// with its .uexp.
func readPak(tb testing.TB, rel string) []pakAsset {
	tb.Helper()
	return readPakFile(tb, corpus.Path(tb, rel), rel)
}

// readPakFile returns every header file of the pak at path with its
// .uexp, named rel in errors and asset names.
func readPakFile(tb testing.TB, path, rel string) []pakAsset {
	tb.Helper()
	r, err := pak.Open(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var out []pakAsset
	for _, f := range r.Files {
		if !isHeader(f.Path) {
			continue
		}
		b, err := f.ReadAll()
		if err != nil {
			tb.Fatalf("%s: %s: %v", rel, f.Path, err)
		}
		x, err := r.ReadFile(uasset.CompanionNames(f.Path).Uexp)
		if err != nil {
			tb.Fatalf("%s: %s: %v", rel, f.Path, err)
		}
		out = append(out, pakAsset{name: rel + ":" + f.Path, path: f.Path, mount: r.MountPoint, uasset: b, uexp: x})
	}
	if len(out) == 0 {
		tb.Fatalf("%s: no assets", rel)
	}
	return out
}

func decodeAsset(tb testing.TB, a pakAsset) *uasset.Package {
	tb.Helper()
	p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// describe reads every export of cooked asset p as `unrmod props --all`
// does: report.NewCookedProperties with every export listed, those whose
// data is no property list counted in Skipped.
func describe(p *uasset.Package, pkg string) (*report.Properties, error) {
	return report.NewCookedProperties(p.FileName, p, pkg, everyExport(len(p.Exports)), true, "", nil)
}

// everyExport lists the export indexes 0..n-1.
func everyExport(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

// zenDocuments reads every package of the tagged zen container with
// report.NewZenProperties, every export listed (as `unrmod props --all`
// does), by package name, its script imports named by the global
// container. edit, when not nil, changes each package first.
func zenDocuments(tb testing.TB, edit func(*zen.Package)) map[string]*report.Properties {
	tb.Helper()
	return zenDocumentsAt(tb, corpus.Path(tb, taggedGlobal), corpus.Path(tb, taggedContainer), edit)
}

// zenDocumentsAt is zenDocuments for the tagged container at path, its
// script imports named by the global container at global.
func zenDocumentsAt(tb testing.TB, global, path string, edit func(*zen.Package)) map[string]*report.Properties {
	tb.Helper()
	script, err := iostore.LoadScriptObjects(global, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := iostore.Open(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	r := c.Resolver(script)
	out := map[string]*report.Properties{}
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if edit != nil {
			edit(p)
		}
		d, err := report.NewZenProperties(taggedContainer, p, r, everyExport(len(p.Exports)), true, "", nil)
		if err != nil {
			tb.Fatal(err)
		}
		out[p.PackageName()] = d
	}
	return out
}

// TestTwinsMatchZen reads every asset of the UE 5.8 fixture project's
// tagged legacy paks (report.NewCookedProperties, what `unrmod props`
// prints for a cooked asset) and the same package of the zen container
// the project was also cooked to (report.NewZenProperties): package
// names, the numbers of exports read and skipped, export paths and
// classes, every property (name, type, array index, value, object
// references by path), every DataTable row and the text form must be
// equal. Export order may differ between the two cooks, so exports are
// matched by path.
func TestTwinsMatchZen(t *testing.T) {
	zdocs := zenDocuments(t, nil)
	for _, rel := range taggedPaks {
		for _, a := range readPak(t, rel) {
			t.Run(a.name, func(t *testing.T) {
				p := decodeAsset(t, a)
				d, err := describe(p, "")
				if err != nil {
					t.Fatal(err)
				}
				z, ok := zdocs[d.Package]
				if !ok {
					t.Fatalf("package %q is not in the zen container", d.Package)
				}
				props, rows := compareDocs(t, p, d, z)
				t.Logf("%s: %d exports, %d properties, %d rows", d.Package, len(d.Exports), props, rows)
			})
		}
	}
}

// compareDocs checks that the properties d of cooked asset p equals its zen
// twin's, export by export (matched by path: each format orders them its
// own way), and that p's exports record where their properties end; it
// returns the numbers of properties and rows compared.
func compareDocs(t *testing.T, p *uasset.Package, d, z *report.Properties) (props, rows int) {
	t.Helper()
	if d.Package != z.Package || d.Skipped != z.Skipped || len(d.Exports) != len(z.Exports) {
		t.Errorf("cooked %s: %d exports read, %d skipped; zen %s: %d read, %d skipped", d.Package, len(d.Exports), d.Skipped, z.Package, len(z.Exports), z.Skipped)
	}
	// UE5 tagged exports record where their properties end:
	// what Set keeps right when it resizes them.
	for i, e := range p.Exports {
		x, err := assetprops.DecodeExport(p, i)
		if err != nil {
			continue
		}
		if e.ScriptSerializationStartOffset != int64(x.Properties.Start) || e.ScriptSerializationEndOffset != int64(x.Properties.End) {
			t.Errorf("export %d: script serialization %d..%d, the properties %d..%d", i,
				e.ScriptSerializationStartOffset, e.ScriptSerializationEndOffset, x.Properties.Start, x.Properties.End)
		}
	}
	byPath := map[string]report.ExportProperties{}
	for _, e := range z.Exports {
		byPath[e.Path] = e
	}
	for _, e := range d.Exports {
		ze, ok := byPath[e.Path]
		if !ok {
			t.Errorf("export %s is not in the zen package", e.Path)
			continue
		}
		ze.Index = e.Index // export order is each format's own
		if !reflect.DeepEqual(e, ze) {
			t.Errorf("export %s differs:\n%s", e.Path, firstDiff(e, ze))
		}
		props += len(e.Properties)
		rows += len(e.Rows)
	}
	return props, rows
}

// firstDiff describes where the properties of two exports first differ.
func firstDiff(a, b report.ExportProperties) string {
	if a.Class != b.Class || a.NativeBytes != b.NativeBytes {
		return fmt.Sprintf("class %s/%s, native bytes %d/%d", a.Class, b.Class, a.NativeBytes, b.NativeBytes)
	}
	if s := entriesDiff("", a.Properties, b.Properties); s != "" {
		return s
	}
	if len(a.Rows) != len(b.Rows) {
		return fmt.Sprintf("%d rows, zen %d", len(a.Rows), len(b.Rows))
	}
	for i := range a.Rows {
		if a.Rows[i].Name != b.Rows[i].Name {
			return fmt.Sprintf("row %d: %s, zen %s", i, a.Rows[i].Name, b.Rows[i].Name)
		}
		if s := entriesDiff(a.Rows[i].Name+": ", a.Rows[i].Properties, b.Rows[i].Properties); s != "" {
			return s
		}
	}
	return "?"
}

func entriesDiff(at string, a, b []report.Property) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%s%d entries, zen %d", at, len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		here := at + x.Name
		if x.Name != y.Name || x.Index != y.Index || x.Type != y.Type || x.Value != y.Value || x.Problem != y.Problem {
			return fmt.Sprintf("%s: cooked %+v\n  zen %+v", here, x, y)
		}
		if s := entriesDiff(here+".", x.Fields, y.Fields); s != "" {
			return s
		}
		if s := entriesDiff(here, x.Elements, y.Elements); s != "" {
			return s
		}
	}
	return ""
}

// TestTwinsSetAlike makes the same changes to a cooked asset of the
// tagged Zlib pak (assetprops.Set) and to its zen twin (props.Set with the
// zenprops Context, as patch does for zen packages): after encoding and
// decoding the cooked asset, the two still read alike, with the new
// value.
func TestTwinsSetAlike(t *testing.T) {
	for _, c := range []struct {
		asset, pkg, export string
		target             props.Target
		value, typ, want   string
	}{
		{"DataTables/DT_AllProperties.uasset", "/Game/Fixtures/DataTables/DT_AllProperties", "DT_AllProperties",
			props.Target{Row: "Beta", Path: "Message"}, "Beta, rewritten ✓", "", `"Beta, rewritten ✓"`},
		{"DataTables/DT_AllProperties.uasset", "/Game/Fixtures/DataTables/DT_AllProperties", "DT_AllProperties",
			props.Target{Row: "Defaults", Path: "Nested.Position.Y"}, "-0.5", "", "-0.5"},
		{"Properties/DA_AllProperties.uasset", "/Game/Fixtures/Properties/DA_AllProperties", "DA_AllProperties",
			props.Target{Path: "Name"}, "Twin_New_Name", "", "Twin_New_Name"},
		{"Properties/DA_AllProperties.uasset", "/Game/Fixtures/Properties/DA_AllProperties", "DA_AllProperties",
			props.Target{Path: "HardTextureReference"}, "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties", "",
			"/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties"},
		{"Properties/DA_AllProperties.uasset", "/Game/Fixtures/Properties/DA_AllProperties", "DA_AllProperties",
			props.Target{Path: "AddedCount"}, "42", "int", "42"},
	} {
		t.Run(c.target.String(), func(t *testing.T) {
			p := decodeAsset(t, fixtureAsset(t, c.asset))
			i := -1
			for k := range p.Exports {
				if p.NameOf(p.Exports[k].ObjectName) == c.export {
					i = k
				}
			}
			ch, err := assetprops.Set(p, i, c.target, props.Input{Text: c.value, Type: c.typ})
			if err != nil || ch.New != c.want {
				t.Fatalf("cooked: %+v, %v", ch, err)
			}
			h, x, err := p.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if p, err = uasset.Decode(p.FileName, h, x, nil); err != nil {
				t.Fatal(err)
			}
			zdocs := zenDocuments(t, func(z *zen.Package) {
				if z.PackageName() != c.pkg {
					return
				}
				// (Change.Old may differ: the zen Context alone cannot
				// name another package's exports.)
				k, err := z.FindExport(c.export, nil)
				if err != nil {
					t.Fatal(err)
				}
				ctx, err := zenprops.ContextFor(z, k)
				if err != nil {
					t.Fatal(err)
				}
				data, zch, err := props.Set(z.Exports[k].Data, ctx, c.target, props.Input{Text: c.value, Type: c.typ})
				if err != nil || zch.New != ch.New {
					t.Fatalf("zen: %+v, %v; cooked %+v", zch, err, ch)
				}
				z.Exports[k].Data = data
			})
			d, err := describe(p, "")
			if err != nil {
				t.Fatal(err)
			}
			compareDocs(t, p, d, zdocs[c.pkg])
		})
	}
}
