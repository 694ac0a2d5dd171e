package pkgschema_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/props/pkgschema"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

const (
	taggedContainer = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	taggedGlobal    = "iostore/cue4parse_ue5_8/Tagged/global.utoc"
	unversionedGlob = "iostore/cue4parse_ue5_8/Unversioned/*/*.utoc"
	fixtureMappings = "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Zstandard.usmap"
)

// definition is a type a package of the fixture project defines.
type definition struct {
	pkg    *zen.Package
	r      *zen.Resolver
	export int
	class  string
}

// container is an opened fixture container with its packages.
type container struct {
	c    *iostore.Container
	r    *zen.Resolver
	pkgs map[string]*zen.Package
}

func openContainer(tb testing.TB, file string) *container {
	tb.Helper()
	script, err := iostore.LoadScriptObjects(corpus.Path(tb, taggedGlobal), nil)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := iostore.Open(file, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	out := &container{c: c, r: c.Resolver(script), pkgs: map[string]*zen.Package{}}
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		p, err := c.ReadPackage(i, nil)
		if err != nil {
			tb.Fatal(err)
		}
		out.pkgs[p.PackageName()] = p
	}
	return out
}

// definitions returns the exports of c that define a class, struct or
// enum of their own (Blueprint classes, user-defined structs and enums).
func (c *container) definitions() []definition {
	var out []definition
	for _, p := range c.pkgs {
		for i := range p.Exports {
			switch class := c.r.ClassName(p, i); {
			case strings.HasSuffix(class, "BlueprintGeneratedClass"), class == "UserDefinedStruct", class == "UserDefinedEnum":
				out = append(out, definition{p, c.r, i, class})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].pkg.ExportPath(out[i].export) < out[j].pkg.ExportPath(out[j].export)
	})
	return out
}

func unversionedFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(corpus.Dir(tb), filepath.FromSlash(unversionedGlob)))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no corpus files match %s", unversionedGlob)
	}
	return files
}

func mappings(tb testing.TB) *usmap.Mappings {
	tb.Helper()
	m, err := usmap.Open(corpus.Path(tb, fixtureMappings), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// schemaOf reads the schema (or the enum) a definition gives.
func schemaOf(t *testing.T, d definition, m *usmap.Mappings) (*usmap.Struct, *usmap.Enum) {
	t.Helper()
	src := zenprops.SchemaSource(d.pkg, d.r, m)
	name := d.pkg.ExportName(d.export)
	if d.class == "UserDefinedEnum" {
		e, err := src.Enum(name)
		if err != nil || e == nil {
			t.Fatalf("%s: enum %v, %v", d.pkg.ExportPath(d.export), e, err)
		}
		return nil, e
	}
	s, err := src.Struct(name)
	if err != nil || s == nil {
		t.Fatalf("%s: struct %v, %v", d.pkg.ExportPath(d.export), s, err)
	}
	return s, nil
}

// TestDefinitionsMatchTagged reads every Blueprint class, user-defined
// struct and user-defined enum of the fixture project's unversioned
// containers and checks each against the one its tagged twin defines: the
// same properties, in the same order, with the same types, and the same
// super; every property of a user-defined struct's default instance, as
// the tagged twin's tags name and type it, is in the schema.
func TestDefinitionsMatchTagged(t *testing.T) {
	m := mappings(t)
	tagged := openContainer(t, corpus.Path(t, taggedContainer))
	want := map[string]definition{}
	for _, d := range tagged.definitions() {
		want[d.pkg.ExportPath(d.export)] = d
	}
	for _, file := range unversionedFiles(t) {
		c := openContainer(t, file)
		defs := c.definitions()
		kinds := map[string]int{}
		for _, d := range defs {
			path := d.pkg.ExportPath(d.export)
			kinds[d.class]++
			w, ok := want[path]
			if !ok {
				t.Errorf("%s: %s has no tagged twin", filepath.Base(file), path)
				continue
			}
			gs, ge := schemaOf(t, d, m)
			ws, we := schemaOf(t, w, nil)
			if !reflect.DeepEqual(gs, ws) || !reflect.DeepEqual(ge, we) {
				t.Errorf("%s: %s: the unversioned package defines\n%+v %+v\nthe tagged one\n%+v %+v", filepath.Base(file), path, gs, ge, ws, we)
			}
			if gs != nil && d.class == "UserDefinedStruct" {
				checkDefaultInstance(t, d, w, m)
			}
		}
		if kinds["BlueprintGeneratedClass"] < 3 || kinds["UserDefinedStruct"] == 0 || kinds["UserDefinedEnum"] == 0 {
			t.Errorf("%s: definitions %v", filepath.Base(file), kinds)
		}
	}
}

// defaultInstance decodes the default instance a user-defined struct
// export holds after its definition, the script sizes and its struct
// flags.
func defaultInstance(t *testing.T, d definition, ctx *props.Context) *props.List {
	t.Helper()
	data := d.pkg.Exports[d.export].Data
	l, err := props.Decode(data, ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := pkgschema.Options{Names: d.pkg.Names}
	st, err := pkgschema.DecodeStruct(data, l.TailEnd, &o)
	if err != nil {
		t.Fatal(err)
	}
	sub := *ctx
	sub.Object, sub.Class = false, d.pkg.ExportName(d.export)
	at := st.End + 12 // bytecode size, stored script size (0), struct flags
	inst, err := props.Decode(data[at:], &sub)
	if err != nil {
		t.Fatalf("%s default instance: %v", d.pkg.ExportPath(d.export), err)
	}
	return inst
}

// checkDefaultInstance reads the default instance of the unversioned
// user-defined struct d with the schema its package gives and compares it
// with the tagged twin w's.
func checkDefaultInstance(t *testing.T, d, w definition, m *usmap.Mappings) {
	t.Helper()
	uctx, err := zenprops.ContextWith(d.pkg, d.r, d.export, m)
	if err != nil {
		t.Fatal(err)
	}
	tctx, err := zenprops.ContextWith(w.pkg, w.r, w.export, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, want := defaultInstance(t, d, uctx), defaultInstance(t, w, tctx)
	n := 0
	for _, p := range want.Properties {
		q := got.Find(p.Name.Text, p.ArrayIndex)
		if q == nil {
			t.Errorf("%s: %s is not in the unversioned default instance", d.pkg.ExportPath(d.export), p.Name.Text)
			continue
		}
		if q.Type.String() != p.Type.String() || q.Value.String() != p.Value.String() {
			t.Errorf("%s: %s reads %s %s, tagged %s %s", d.pkg.ExportPath(d.export), p.Name.Text, q.Type, q.Value, p.Type, p.Value)
		}
		n++
	}
	for _, q := range got.Properties {
		if want.Find(q.Name.Text, q.ArrayIndex) == nil && !q.Zero {
			t.Errorf("%s: %s = %s is only in the unversioned default instance", d.pkg.ExportPath(d.export), q.Name.Text, q.Value)
		}
	}
	if n == 0 {
		t.Errorf("%s: the tagged default instance has no properties", d.pkg.ExportPath(d.export))
	}
}

// TestSuperInAnotherPackage reads a Blueprint class whose super is a
// Blueprint class of another package: with the container at hand the
// schema is the child's, then the parent's, then the native chain; without
// it the error names the package that would give it.
func TestSuperInAnotherPackage(t *testing.T) {
	m := mappings(t)
	c := openContainer(t, unversionedFiles(t)[0])
	child := c.pkgs["/Game/Fixtures/Blueprints/BP_ComponentsChild"]
	if child == nil {
		t.Fatal("no BP_ComponentsChild package")
	}
	actor, err := m.Schema("Actor")
	if err != nil {
		t.Fatal(err)
	}
	slots, err := m.With(zenprops.SchemaSource(child, c.r, m)).Schema("BP_ComponentsChild_C")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range slots[:2] {
		names = append(names, s.Owner.Name+"."+s.Property.Name)
	}
	if len(slots) != len(actor)+2 || strings.Join(names, " ") != "BP_Components_C.FixtureMesh BP_Components_C.FixtureRoot" {
		t.Errorf("%d slots (Actor has %d), first %v", len(slots), len(actor), names)
	}

	// An object of a class another package defines: the class is found
	// through the import, before any definition names it.
	parent, err := zenprops.SchemaSource(child, c.r, m).Struct("BP_Components_C")
	if err != nil || parent == nil || parent.Super != "Actor" || parent.PropertyCount != 2 {
		t.Errorf("the imported class BP_Components_C: %+v, %v", parent, err)
	}

	alone := &zen.Resolver{Script: c.r.Script}
	_, err = m.With(zenprops.SchemaSource(child, alone, m)).Schema("BP_ComponentsChild_C")
	if !errors.Is(err, usmap.ErrMissing) || !strings.Contains(err.Error(), "package /Game/Fixtures/Blueprints/BP_Components,") {
		t.Errorf("without the parent's package: %v", err)
	}
	// Native classes the package does not define stay refused.
	cr := c.pkgs["/Game/Fixtures/ControlRig/CR_Fixture"]
	if cr == nil {
		t.Fatal("no CR_Fixture package")
	}
	for i := range cr.Exports {
		if c.r.ClassName(cr, i) != "ControlRigGraph" {
			continue
		}
		_, err := zenprops.DecodeExportWith(cr, c.r, i, m)
		if !errors.Is(err, usmap.ErrMissing) {
			t.Errorf("%s (ControlRigGraph): %v", cr.ExportPath(i), err)
		}
	}
}

// TestDamagedDefinition damages the definition of a Blueprint class:
// reading an object of the class fails with a FormatError that says where,
// never a panic.
func TestDamagedDefinition(t *testing.T) {
	m := mappings(t)
	c := openContainer(t, unversionedFiles(t)[0])
	orig := c.pkgs["/Game/Fixtures/Blueprints/BP_Components"]
	class, cdo := -1, -1
	for i := range orig.Exports {
		switch orig.ExportName(i) {
		case "BP_Components_C":
			class = i
		case "Default__BP_Components_C":
			cdo = i
		}
	}
	if class < 0 || cdo < 0 {
		t.Fatal("no BP_Components_C or its CDO")
	}
	data := orig.Exports[class].Data
	// BP_Components_C: its list and tail end at 10, then the super (10),
	// the children (14), the property count (18) and the first
	// definition: type (22), name (30), array size (38).
	put := func(at int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte {
			b[at], b[at+1], b[at+2], b[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			return b
		}
	}
	cut := func(n int) func([]byte) []byte { return func(b []byte) []byte { return b[:n] } }
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		at     int64
	}{
		{"cut in a definition", cut(100), 18}, // the count is checked first
		{"cut in the first", cut(40), 18},
		{"cut at the count", cut(20), 18},
		{"cut at the super", cut(12), 10},
		{"huge property count", put(18, 0x7FFFFFFF), 18},
		{"huge children count", put(14, 0x40000000), 14},
		{"type name outside the names", put(22, 1000), 22},
		{"type that is no property type", put(22, 4), 22},
		{"zero array size", put(38, 0), -1},
		{"huge array size", put(38, 1<<30), -1},
		{"super outside the imports", put(10, 0x80000000), 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := *orig
			p.Exports = append([]zen.Export(nil), orig.Exports...)
			p.Exports[class].Data = tc.damage(append([]byte(nil), data...))
			_, err := zenprops.DecodeExportWith(&p, c.r, cdo, m)
			// The error of the class's definition, inside the CDO's.
			var fe *ue.FormatError
			for e := err; e != nil; e = errors.Unwrap(e) {
				if x, ok := e.(*ue.FormatError); ok && strings.Contains(x.Struct, "BP_Components_C") {
					fe = x
				}
			}
			switch {
			case fe == nil || !errors.Is(err, ue.ErrCorrupt) && !errors.Is(err, pkgschema.ErrUnknownField):
				t.Errorf("%v: want the definition's FormatError", err)
			case tc.at >= 0 && fe.Offset != tc.at:
				t.Errorf("%v: want it at 0x%X", err, tc.at)
			case tc.at < 0 && (fe.Offset < 22 || fe.Offset >= 116):
				t.Errorf("%v: want it in the definitions (0x16..0x74)", err)
			}
		})
	}
}
