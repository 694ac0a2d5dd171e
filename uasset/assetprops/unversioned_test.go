package assetprops_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/usmap"
)

// corpusGlob returns the corpus files matching pattern, failing when
// there are none.
func corpusGlob(tb testing.TB, pattern string) []string {
	tb.Helper()
	m, err := filepath.Glob(filepath.Join(corpus.Dir(tb), filepath.FromSlash(pattern)))
	if err != nil || len(m) == 0 {
		tb.Fatalf("no corpus files match %s", pattern)
	}
	sort.Strings(m)
	return m
}

// fixtureMappings returns the fixture project's mappings that decode
// without the game's Oodle library, by file name; the Oodle one must ask
// for it.
func fixtureMappings(tb testing.TB) map[string]*usmap.Mappings {
	tb.Helper()
	out := map[string]*usmap.Mappings{}
	for _, f := range corpusGlob(tb, "mappings/cue4parse_ue5_8/*.usmap") {
		m, err := usmap.Open(f, nil)
		if errors.Is(err, usmap.ErrOodleUnavailable) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = m
	}
	if len(out) < 3 {
		tb.Fatalf("%d mappings decode; want the uncompressed, Zstandard and Brotli ones", len(out))
	}
	return out
}

// unversionedZenDocuments reads every package of an unversioned
// container as `unrmod props --json --mappings` does.
func unversionedZenDocuments(tb testing.TB, file string, m *usmap.Mappings) (map[string]*report.Properties, map[string]func(string) error) {
	tb.Helper()
	return unversionedZenDocumentsAt(tb, corpus.Path(tb, taggedGlobal), file, m)
}

// unversionedZenDocumentsAt is unversionedZenDocuments with the script
// imports named by the global container at global.
func unversionedZenDocumentsAt(tb testing.TB, global, file string, m *usmap.Mappings) (map[string]*report.Properties, map[string]func(string) error) {
	tb.Helper()
	script, err := iostore.LoadScriptObjects(global, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := iostore.Open(file, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	r := c.Resolver(script)
	docs := map[string]*report.Properties{}
	decoders := map[string]func(string) error{}
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			tb.Fatal(err)
		}
		d, err := report.NewZenProperties(taggedContainer, p, r, everyExport(len(p.Exports)), true, "", m)
		if err != nil {
			tb.Fatalf("%s: %s: %v", file, p.PackageName(), err)
		}
		docs[p.PackageName()] = d
		decoders[p.PackageName()] = func(path string) error {
			for i := range p.Exports {
				if p.ExportPath(i) == path {
					_, err := zenprops.DecodeExportWith(p, r, i, m)
					return err
				}
			}
			return errors.New("no export " + path)
		}
	}
	return docs, decoders
}

// Where the unversioned document may differ from the tagged one, because
// what tells them apart is not in the unversioned package nor in the
// mappings:
//   - a TEnumAsByte of a namespaced enum (a ByteProperty) and an enum
//     class (an EnumProperty) look the same in the mappings, and dumpers
//     strip the "Enum::" of enumerator names, so the type is compared as
//     "an enum E" and values without the prefix;
//   - property names are FNames, which compare case-insensitively; the
//     mappings may spell one differently from the package ("Min", "min");
//   - a weak object reference is an ObjectProperty in tags;
//   - native_bytes, the size of the class's own data after the
//     properties: that data holds property lists of its own in some
//     classes, tagged in one package and unversioned in the other;
//   - a property bag's value, a property list of a struct made at run time
//     from the bag's descriptors (not in the mappings), kept as its bytes:
//     tagged in one package, unversioned in the other;
//   - the mappings have one kind, MulticastDelegateProperty, for inline and
//     sparse multicast delegates.
var enumType = regexp.MustCompile(`^(?:ByteProperty|EnumProperty)\((\w+)\)$`)

// propertyBag matches the type of a property bag property.
var propertyBag = regexp.MustCompile(`^StructProperty\(\w*PropertyBag\)$`)

// - LightingGuid, which the editor makes anew for a texture.
func normalize(v any, enum string) any {
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["name"].(string); ok && n == "LightingGuid" {
			delete(x, "value")
		}
		if t, ok := x["type"].(string); ok && propertyBag.MatchString(t) {
			for _, f := range x["fields"].([]any) {
				if f := f.(map[string]any); f["name"] == "Value" {
					delete(f, "value")
				}
			}
		}
		out := map[string]any{}
		e := ""
		if t, ok := x["type"].(string); ok {
			if m := enumType.FindStringSubmatch(t); m != nil {
				x["type"], e = "enum "+m[1], m[1]
			}
			if t == "WeakObjectProperty" {
				x["type"] = "ObjectProperty"
			}
			if strings.HasPrefix(t, "Multicast") && strings.HasSuffix(t, "DelegateProperty") {
				x["type"] = "MulticastDelegateProperty"
			}
		}
		for k, val := range x {
			switch k {
			case "native_bytes", "file":
				continue
			case "name":
				val = strings.ToLower(val.(string))
			case "value":
				if s, ok := val.(string); ok && e != "" {
					val = strings.TrimPrefix(s, e+"::")
				}
			}
			out[k] = normalize(val, e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i], enum)
		}
		return out
	}
	return v
}

func exportJSON(tb testing.TB, e report.ExportProperties) string {
	b, err := json.Marshal(e)
	if err != nil {
		tb.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatal(err)
	}
	n, _ := json.Marshal(normalize(v, ""))
	return string(n)
}

// compareDocuments checks every export of every tagged package against
// the unversioned one: equal documents, or an export whose class (or a
// struct it holds) is missing from the mappings. No export may be refused
// for a native struct or a Text: unrmod reads every one the fixtures hold.
func compareDocuments(t *testing.T, name string, tagged, unversioned map[string]*report.Properties, decode map[string]func(string) error) (same, missing int) {
	t.Helper()
	reasons := map[string]int{}
	for pkg, got := range unversioned {
		want, ok := tagged[pkg]
		if !ok {
			t.Errorf("%s: package %s has no tagged twin", name, pkg)
			continue
		}
		byPath := map[string]report.ExportProperties{}
		for _, e := range got.Exports {
			byPath[e.Path] = e
		}
		for _, w := range want.Exports {
			g, ok := byPath[w.Path]
			g.Index = w.Index // export order is each format's own
			if !ok {
				err := decode[pkg](w.Path)
				if !errors.Is(err, usmap.ErrMissing) {
					t.Errorf("%s: %s export %d (%s) is refused though its class is in the mappings: %v", name, pkg, w.Index, w.Path, err)
				}
				reasons[err.Error()]++
				missing++
				continue
			}
			if a, b := exportJSON(t, w), exportJSON(t, g); a != b {
				t.Errorf("%s: %s export %d (%s) differs:\n tagged      %.600s\n unversioned %.600s", name, pkg, w.Index, w.Path, a, b)
				continue
			}
			same++
		}
	}
	t.Logf("%s: %d exports read the same, %d need what the mappings lack", name, same, missing)
	for r, n := range reasons {
		t.Logf("%s: %d refused: %s", name, n, r)
	}
	if same == 0 {
		t.Errorf("%s: no export reads the same", name)
	}
	return same, missing
}

// TestUnversionedContainersMatchTagged reads every package of the fixture
// project's unversioned containers with each of its mappings and checks
// that it gives the document of the tagged twin.
func TestUnversionedContainersMatchTagged(t *testing.T) {
	tagged := zenDocuments(t, nil)
	maps := fixtureMappings(t)
	for _, file := range corpusGlob(t, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc") {
		for mname, m := range maps {
			docs, dec := unversionedZenDocuments(t, file, m)
			compareDocuments(t, filepath.Base(file)+" with "+mname, tagged, docs, dec)
		}
	}
}

// TestUnversionedPakMatchesTagged reads every asset of the fixture
// project's unversioned legacy pak with each of its mappings and checks
// that it gives the document of the tagged zen twin.
func TestUnversionedPakMatchesTagged(t *testing.T) {
	tagged := zenDocuments(t, nil)
	maps := fixtureMappings(t)
	for _, file := range corpusGlob(t, "pak/cue4parse_ue5_8/LegacyPak/Unversioned/*/*.pak") {
		rel, _ := filepath.Rel(corpus.Dir(t), file)
		assets := readPak(t, filepath.ToSlash(rel))
		for mname, m := range maps {
			docs := map[string]*report.Properties{}
			dec := map[string]func(string) error{}
			for _, a := range assets {
				p := decodeAsset(t, a)
				d, err := report.NewCookedProperties(p.FileName, p, "", everyExport(len(p.Exports)), true, "", m)
				if err != nil {
					t.Fatalf("%s: %v", a.name, err)
				}
				docs[d.Package] = d
				r := assetprops.NewResolver(p, d.Package)
				dec[d.Package] = func(path string) error {
					for i := range p.Exports {
						if r.ExportPath(i) == path {
							_, err := assetprops.DecodeExportWith(p, i, m)
							return err
						}
					}
					return errors.New("no export " + path)
				}
			}
			compareDocuments(t, filepath.Base(file)+" with "+mname, tagged, docs, dec)
		}
	}
}

// unversionedExports returns the export data of every export of the
// unversioned containers that reads as properties with m, with its
// Context, and how many exports were read.
func unversionedExports(tb testing.TB, m *usmap.Mappings) []*props.Export {
	tb.Helper()
	var out []*props.Export
	for _, file := range corpusGlob(tb, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc") {
		eachExport(tb, file, m, func(p *zen.Package, j int, x *props.Export) {
			x.Rest = p.Exports[j].Data // the whole data, for the callers
			out = append(out, x)
		})
	}
	return out
}

// eachExport calls f with every export of the container file that reads
// as properties with m (nil: tagged properties).
func eachExport(tb testing.TB, file string, m *usmap.Mappings, f func(p *zen.Package, j int, x *props.Export)) {
	tb.Helper()
	script, err := iostore.LoadScriptObjects(corpus.Path(tb, taggedGlobal), nil)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := iostore.Open(file, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	r := c.Resolver(script)
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			tb.Fatal(err)
		}
		for j := range p.Exports {
			if x, err := zenprops.DecodeExportWith(p, r, j, m); err == nil {
				f(p, j, x)
			}
		}
	}
}

// TestUnversionedReencode checks that every export of the unversioned
// containers that reads as properties encodes back to its bytes.
func TestUnversionedReencode(t *testing.T) {
	m := fixtureMappings(t)["CUE4ParseFixtures-Zstandard.usmap"]
	xs := unversionedExports(t, m)
	rows := 0
	for _, x := range xs {
		var b []byte
		var err error
		if x.Table != nil {
			b, err = props.EncodeTable(x.Table, x.Context)
			rows += len(x.Table.Rows)
		} else {
			b, err = props.Encode(x.Properties, x.Context)
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != string(x.Rest) {
			t.Errorf("%s: re-encoded %d bytes differ from the %d read", x.Context.Class, len(b), len(x.Rest))
		}
		// A header built anew, as the engine's builder makes it, is the
		// one read.
		if x.Table == nil {
			x.Properties.Header = nil
			if b, err := props.Encode(x.Properties, x.Context); err != nil || string(b) != string(x.Rest) {
				t.Errorf("%s: a rebuilt header differs from the one read (%v)", x.Context.Class, err)
			}
		}
	}
	if len(xs) < 400 || rows == 0 {
		t.Errorf("%d exports and %d rows re-encoded", len(xs), rows)
	}
	t.Logf("%d exports (%d DataTable rows) encode to their bytes", len(xs), rows)
}

// BenchmarkUnversionedDecode decodes every unversioned export that reads
// as properties; the tagged twins' decode is the baseline.
func BenchmarkUnversionedDecode(b *testing.B) {
	m := fixtureMappings(b)["CUE4ParseFixtures-Zstandard.usmap"]
	run := func(b *testing.B, xs []*props.Export) {
		n := 0
		for _, x := range xs {
			n += len(x.Rest)
		}
		b.SetBytes(int64(n))
		for b.Loop() {
			for _, x := range xs {
				var err error
				if x.Table != nil {
					_, err = props.DecodeDataTable(x.Rest, x.Context)
				} else {
					_, err = props.Decode(x.Rest, x.Context)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("unversioned", func(b *testing.B) { run(b, unversionedExports(b, m)) })
	b.Run("tagged", func(b *testing.B) {
		var tagged []*props.Export
		eachExport(b, corpus.Path(b, taggedContainer), nil, func(p *zen.Package, j int, x *props.Export) {
			x.Rest = p.Exports[j].Data
			tagged = append(tagged, x)
		})
		run(b, tagged)
	})
}

// FuzzUnversioned checks that unversioned data decodes without panics and
// that what decodes encodes back to the same bytes. Seeds are the
// unversioned exports of the fixture containers.
func FuzzUnversioned(f *testing.F) {
	if os.Getenv(corpus.EnvVar) == "" {
		f.Skip("UNRMOD_CORPUS is not set")
	}
	m := fixtureMappings(f)["CUE4ParseFixtures-Zstandard.usmap"]
	xs := unversionedExports(f, m)
	names := xs[0].Context.Names
	for _, x := range xs {
		if len(x.Context.Names) > len(names) {
			names = x.Context.Names
		}
		if len(x.Rest) < 4096 {
			f.Add(x.Rest, x.Context.Class, x.Table != nil)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, class string, table bool) {
		ctx := &props.Context{Names: names, FileVersionUE5: 1018, Object: true, Schema: m, Class: class,
			ObjectName: func(int32) string { return "/Script/CUE4ParseFixtures.FixtureTableRow" }}
		if table {
			tb, err := props.DecodeDataTable(data, ctx)
			if err != nil {
				return
			}
			b, err := props.EncodeTable(tb, ctx)
			if err != nil || string(b) != string(data) {
				t.Fatalf("decode then encode: %v, %d bytes of %d", err, len(b), len(data))
			}
			return
		}
		l, err := props.Decode(data, ctx)
		if err != nil {
			return
		}
		b, err := props.Encode(l, ctx)
		if err != nil || string(b) != string(data) {
			t.Fatalf("decode then encode: %v, %d bytes of %d", err, len(b), len(data))
		}
	})
}

// TestUnversionedSet sets values of the unversioned DataTable of the
// fixture project: a value stored as zero (a zero-mask bit, no bytes), a
// value stored, an enum and a member of a nested struct. Each change must
// read back, with every other value as it was, and the header rewritten
// where a zero becomes a value.
func TestUnversionedSet(t *testing.T) {
	m := fixtureMappings(t)["CUE4ParseFixtures-Brotli.usmap"]
	script, err := iostore.LoadScriptObjects(corpus.Path(t, taggedGlobal), nil)
	if err != nil {
		t.Fatal(err)
	}
	file := corpusGlob(t, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc")[0]
	c, err := iostore.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	i, err := c.FindPackage("/Game/Fixtures/DataTables/DT_AllProperties")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Resolver(script)
	for _, tc := range []struct {
		row, path, value, want string
		zero                   bool // the value was stored as zero
	}{
		{"Defaults", "Number", "42", "42", true},
		{"Defaults", "Kind", "Beta", "EFixtureEnum::Beta", true},
		{"Defaults", "Nested.Marker", "-5", "-5", true},
		{"Defaults", "Nested.Position.Y", "2.5", "2.5", true},
		{"Defaults", "Nested.bEnabled", "true", "true", true},
		{"Alpha", "Number", "7", "7", false},
		{"Alpha", "Message", "changed", `"changed"`, false},
		{"Beta", "Kind", "EFixtureEnum::Alpha", "EFixtureEnum::Alpha", false},
		{"Beta", "Values[1]", "9", "9", false},
	} {
		t.Run(tc.row+"/"+tc.path, func(t *testing.T) {
			ctx, err := zenprops.ContextWith(p, r, 0, m)
			if err != nil {
				t.Fatal(err)
			}
			data := p.Exports[0].Data
			before, err := props.DecodeDataTable(data, ctx)
			if err != nil {
				t.Fatal(err)
			}
			out, ch, err := props.Set(data, ctx, props.Target{Row: tc.row, Path: tc.path}, props.Input{Text: tc.value})
			if err != nil {
				t.Fatal(err)
			}
			if ch.New != tc.want || ch.Already {
				t.Errorf("change %+v, want new %s", ch, tc.want)
			}
			after, err := props.DecodeDataTable(out, ctx)
			if err != nil {
				t.Fatal(err)
			}
			for k := range after.Rows {
				b, a := before.Rows[k].Properties.String(), after.Rows[k].Properties.String()
				if after.Rows[k].Name.Text != tc.row && a != b {
					t.Errorf("row %s changed:\n%s\n%s", after.Rows[k].Name.Text, b, a)
				}
			}
			row := after.Row(tc.row)
			top, _, nested := strings.Cut(tc.path, ".")
			top, _, _ = strings.Cut(top, "[")
			leaf := row.Properties.Find(top, 0)
			if leaf == nil || leaf.Zero {
				t.Fatalf("%s is not stored after the change", tc.path)
			}
			if got := row.Properties.String(); !strings.Contains(got, tc.want) {
				t.Errorf("row %s reads:\n%s", tc.row, got)
			}
			hb, ha := before.Row(tc.row).Properties.Header.Bytes, row.Properties.Header.Bytes
			if !nested && tc.zero == (string(hb) == string(ha)) {
				t.Errorf("header %x → %x; a zero value set must rewrite it, another must not", hb, ha)
			}
			if b, err := props.EncodeTable(after, ctx); err != nil || string(b) != string(out) {
				t.Errorf("the changed table does not re-encode to its bytes: %v", err)
			}
		})
	}
}

// TestUnversionedSetAbsent sets properties of an unversioned texture: one
// absent from its list (left at the class default) is added at its slot,
// one stored is changed; both read back.
func TestUnversionedSetAbsent(t *testing.T) {
	m := fixtureMappings(t)["CUE4ParseFixtures-Uncompressed.usmap"]
	script, err := iostore.LoadScriptObjects(corpus.Path(t, taggedGlobal), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(corpusGlob(t, "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc")[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	i, err := c.FindPackage("/Game/Fixtures/Textures/T_BGRA8")
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := zenprops.ContextWith(p, c.Resolver(script), 0, m)
	if err != nil {
		t.Fatal(err)
	}
	data := p.Exports[0].Data
	before, err := props.Decode(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.Find("LODBias", 0) != nil || before.Find("NeverStream", 0) == nil {
		t.Fatalf("the texture's list changed:\n%s", before)
	}
	out, _, err := props.Set(data, ctx, props.Target{Path: "LODBias"}, props.Input{Text: "3"})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err = props.Set(out, ctx, props.Target{Path: "NeverStream"}, props.Input{Text: "false"})
	if err != nil {
		t.Fatal(err)
	}
	after, err := props.Decode(out, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if x := after.Find("LODBias", 0); x == nil || x.Value.String() != "3" {
		t.Errorf("LODBias: %v", x)
	}
	if x := after.Find("NeverStream", 0); x == nil || x.Value.String() != "false" {
		t.Errorf("NeverStream: %v", x)
	}
	if len(after.Properties) != len(before.Properties)+1 || string(after.Rest) != string(before.Rest) {
		t.Errorf("%d properties and %d bytes after them; were %d and %d", len(after.Properties), len(after.Rest), len(before.Properties), len(before.Rest))
	}
	for k, q := range after.Properties[1:] {
		if q.Slot <= after.Properties[k].Slot {
			t.Errorf("properties out of schema order at %s", q.Name.Text)
		}
	}
}
