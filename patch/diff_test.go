package patch_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// dtVariant describes one fixture package for the diff tests: the demo
// package plus a LevelInfo0 export and a few knobs.
type dtVariant struct {
	title     string             // LevelInfo0's Title property
	infoFlags reader.ObjectFlags // LevelInfo0's object flags
	spare     string             // an unreferenced name
	score     bool               // LevelInfo0 has a Score property
	extra     bool               // an export Extra is added at the end
}

var dtFlags = reader.RFPublic | reader.RFLoadContext | reader.RFStandalone

func dtBase() dtVariant {
	return dtVariant{title: "Facing Worlds", infoFlags: dtFlags, spare: "runeSgn2"}
}

func dtBuild(t *testing.T, v dtVariant) *reader.Package {
	t.Helper()
	b := fixture.DemoBuilder(reader.Version{File: 69})
	b.Name(v.spare)
	b.Name("Score") // present in every variant: only the property differs
	b.Name("Extra")
	props := b.Props().Str("Title", v.title).Int("RecommendedEnemies", 2).Float("Brightness", 1.5).
		Bool("bLonely", true).Byte("AmbientBrightness", 4).NameValue("Tag", "LevelInfo").
		Object("Screenshot", reader.ExportRef(2))
	if v.score {
		props.Int("Score", 7)
	}
	b.Export(b.Class("Engine", "LevelInfo"), 0, "LevelInfo0", v.infoFlags, props.Bytes())
	if v.extra {
		b.Group("Extra", 0)
	}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return dtRead(t, data)
}

func dtRead(t *testing.T, data []byte) *reader.Package {
	t.Helper()
	p, err := reader.Read("UnrmodDemo.u", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dtLines runs Diff and returns its text lines.
func dtLines(t *testing.T, a, b *reader.Package) (*patch.PackageDiff, []string) {
	t.Helper()
	d := patch.Diff(a, b)
	lines := d.Lines()
	if d.Empty() != (len(lines) == 0) {
		t.Errorf("Empty() = %v with %d lines", d.Empty(), len(lines))
	}
	if got := d.String(); got != strings.Join(append(lines, ""), "\n") && !(got == "" && len(lines) == 0) {
		t.Errorf("String() = %q, lines %q", got, lines)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("JSON: %v", err)
	}
	return d, lines
}

func TestDiffSelfIsEmpty(t *testing.T) {
	check := func(t *testing.T, name string, data []byte) {
		a, err := reader.Read(name, data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := reader.Read(name, append([]byte(nil), data...))
		if err != nil {
			t.Fatal(err)
		}
		if d, lines := dtLines(t, a, b); !d.Empty() {
			t.Errorf("diff with itself:\n%s", strings.Join(lines, "\n"))
		}
	}
	for _, v := range []reader.Version{{File: 61}, {File: 64}, {File: 68}, {File: 69}, {File: 128, Licensee: 29}} {
		t.Run("demo-"+v.String(), func(t *testing.T) {
			data, err := fixture.Demo(v)
			if err != nil {
				t.Fatal(err)
			}
			check(t, fixture.DemoFile, data)
		})
	}
	for _, file := range corpus.Legacy(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, err := reader.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			check(t, file, p.Source())
		})
	}
}

func TestDiffFixturePairs(t *testing.T) {
	base := dtBuild(t, dtBase())
	spareIndex := base.FindName("runeSgn2")
	with := func(f func(v *dtVariant)) *reader.Package {
		v := dtBase()
		f(&v)
		return dtBuild(t, v)
	}
	tests := []struct {
		name string
		b    *reader.Package
		want []string
	}{
		{"property", with(func(v *dtVariant) { v.title = "Facing Worlds II" }), []string{
			`export UnrmodDemo.LevelInfo0: property Title: "Facing Worlds" → "Facing Worlds II"`,
		}},
		{"added property", with(func(v *dtVariant) { v.score = true }), []string{
			`export UnrmodDemo.LevelInfo0: property Score added: 7`,
		}},
		{"object flag", with(func(v *dtVariant) { v.infoFlags |= reader.RFTagExp }), []string{
			`export UnrmodDemo.LevelInfo0: flags Public|LoadForClient|LoadForServer|LoadForEdit|Standalone → ` +
				`Public|TagExp|LoadForClient|LoadForServer|LoadForEdit|Standalone`,
		}},
		{"name", with(func(v *dtVariant) { v.spare = "runeSgn3" }), []string{
			"name " + strconv.Itoa(int(spareIndex)) + ": runeSgn2 → runeSgn3",
		}},
		{"added export", with(func(v *dtVariant) { v.extra = true }), []string{
			"header: generations[0] " + strconv.Itoa(len(base.Exports)) + " exports, " + strconv.Itoa(len(base.Names)) + " names → " +
				strconv.Itoa(len(base.Exports)+1) + " exports, " + strconv.Itoa(len(base.Names)) + " names",
			"export UnrmodDemo.Extra added: Package, 1 bytes",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, lines := dtLines(t, base, tt.b)
			if !reflect.DeepEqual(lines, tt.want) {
				t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
			// The reverse diff has as many differences.
			if _, back := dtLines(t, tt.b, base); len(back) != len(tt.want) {
				t.Errorf("reverse diff:\n%s", strings.Join(back, "\n"))
			}
		})
	}
}

func TestDiffPropertyJSON(t *testing.T) {
	a := dtBuild(t, dtBase())
	v := dtBase()
	v.title = "Facing Worlds II"
	b := dtBuild(t, v)
	d := patch.Diff(a, b)
	if len(d.Exports) != 1 {
		t.Fatalf("exports: %+v", d.Exports)
	}
	e := d.Exports[0]
	if e.Change != patch.DiffChanged || e.Data != "" || e.NewSize != e.OldSize+3 || e.OldXXH3 == e.NewXXH3 ||
		len(e.OldXXH3) != 18 || len(e.Properties) != 1 {
		t.Errorf("export diff %+v", e)
	}
	want := patch.PropertyDiff{Change: patch.DiffChanged, Name: "Title", Old: `"Facing Worlds"`, New: `"Facing Worlds II"`,
		OldType: "Str", NewType: "Str"}
	if e.Properties[0] != want {
		t.Errorf("property diff %+v, want %+v", e.Properties[0], want)
	}
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"exports":[{`, `"change":"changed"`, `"old_xxh3":"0x`, `"properties":[{`, `"old_type":"Str"`, `"header":[]`, `"names":[]`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("JSON lacks %s:\n%s", key, js)
		}
	}
}

// TestDiffRenumberedNames builds the same values with the name table in
// another order: names and references resolve to the same text, so no
// property differs.
func TestDiffRenumberedNames(t *testing.T) {
	a := dtBuild(t, dtBase())
	b := fixture.DemoBuilder(reader.Version{File: 69})
	b.Name("AAA") // shifts every name added after it
	b.Name("runeSgn2")
	b.Name("Score")
	b.Name("Extra")
	props := b.Props().Str("Title", "Facing Worlds").Int("RecommendedEnemies", 2).Float("Brightness", 1.5).
		Bool("bLonely", true).Byte("AmbientBrightness", 4).NameValue("Tag", "LevelInfo").
		Object("Screenshot", reader.ExportRef(2))
	b.Export(b.Class("Engine", "LevelInfo"), 0, "LevelInfo0", dtFlags, props.Bytes())
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d, lines := dtLines(t, a, dtRead(t, data))
	for _, e := range d.Exports {
		if len(e.Properties) > 0 || len(e.Fields) > 0 || e.Data == patch.DataNative || e.Data == patch.DataDiffers {
			t.Errorf("export %s differs: %+v", e.Path, e)
		}
	}
	added := 0
	for _, n := range d.Names {
		if n.Change == patch.DiffAdded && n.New == "AAA" {
			added++
		} else if n.Change != patch.DiffFlags {
			t.Errorf("name difference %+v", n)
		}
	}
	if added != 1 {
		t.Errorf("AAA not reported as added:\n%s", strings.Join(lines, "\n"))
	}
}

func TestDiffPixelAndPackageFlags(t *testing.T) {
	data, err := fixture.Demo(reader.Version{File: 69})
	if err != nil {
		t.Fatal(err)
	}
	a := dtRead(t, data)
	refs := a.Lookup("Skins.Checker")
	if len(refs) != 1 {
		t.Fatalf("Checker: %v", refs)
	}
	i, _ := refs[0].Export()
	nl, err := a.Native(i)
	if err != nil || len(nl.Mips) == 0 {
		t.Fatalf("Checker native: %v", err)
	}

	t.Run("pixel", func(t *testing.T) {
		mod := append([]byte(nil), data...)
		mod[int(a.Exports[i].SerialOffset)+nl.Mips[0].Lazy.Start+5] ^= 0xFF
		_, lines := dtLines(t, a, dtRead(t, mod))
		n := len(a.Exports[i].Data) - (nl.Props.End - nl.Props.Start)
		want := []string{"export UnrmodDemo.Skins.Checker: native data differs (" + strconv.Itoa(n) + " bytes → " + strconv.Itoa(n) + " bytes)"}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("package flag", func(t *testing.T) {
		p := dtRead(t, data)
		p.Header.Flags |= reader.PkgServerSideOnly
		out, _, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
		if err != nil {
			t.Fatal(err)
		}
		_, lines := dtLines(t, a, dtRead(t, out))
		want := []string{"header: flags AllowDownload → AllowDownload|ServerSideOnly"}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("guid", func(t *testing.T) {
		p := dtRead(t, data)
		p.Header.GUID = reader.GUID{0x12345678, 1, 2, 3}
		out, _, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
		if err != nil {
			t.Fatal(err)
		}
		_, lines := dtLines(t, a, dtRead(t, out))
		want := []string{"header: GUID " + a.GUID().String() + " → 12345678000000010000000200000003"}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestDiffCompactRewrite adds a name and rewrites the package compactly, so
// every export's data moves: the diff must show the added name, the
// generation change and no content change.
func TestDiffCompactRewrite(t *testing.T) {
	check := func(t *testing.T, name string, data []byte, wantMoved bool) {
		p, err := reader.Read(name, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := writer.Writable(p.Header.Version); err != nil {
			t.Skip(err)
		}
		p.Names = append(p.Names, reader.Name{Name: "X", Flags: reader.NewNameFlags})
		if n := len(p.Header.Generations); n > 0 {
			p.Header.Generations = append([]reader.Generation(nil), p.Header.Generations...)
			p.Header.Generations[n-1].NameCount = int32(len(p.Names))
		}
		out, _, err := writer.Encode(p, writer.Options{Layout: writer.Compact})
		if err != nil {
			t.Skipf("compact layout refused: %v", err)
		}
		a, err := reader.Read(name, data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := reader.Read(name, out)
		if err != nil {
			t.Fatal(err)
		}
		d, lines := dtLines(t, a, b)
		text := strings.Join(lines, "\n")
		t.Logf("diff after adding a name and rewriting compactly:\n%s", text)
		for _, h := range d.Header {
			if !strings.HasPrefix(h.Field, "generations[") {
				t.Errorf("header difference %+v", h)
			}
		}
		if len(a.Header.Generations) > 0 && len(d.Header) != 1 {
			t.Errorf("want one generation change:\n%s", text)
		}
		if len(d.Names) != 1 || d.Names[0].Change != patch.DiffAdded || d.Names[0].New != "X" || d.Names[0].NewIndex != len(a.Names) {
			t.Errorf("names: %+v", d.Names)
		}
		if len(d.Imports) != 0 {
			t.Errorf("imports: %+v", d.Imports)
		}
		moved := 0
		for _, e := range d.Exports {
			if e.Change != patch.DiffMoved || e.Data != patch.DataMoved || len(e.Fields) > 0 || len(e.Properties) > 0 {
				t.Errorf("export %s: %+v", e.Path, e)
			}
			moved++
		}
		if wantMoved && moved == 0 {
			t.Errorf("no export reported as moved:\n%s", text)
		}
		if strings.Contains(text, "differs") || strings.Contains(text, "property") {
			t.Errorf("content differences:\n%s", text)
		}
	}
	for _, v := range []reader.Version{{File: 61}, {File: 64}, {File: 69}, {File: 128, Licensee: 29}} {
		t.Run("demo-"+v.String(), func(t *testing.T) {
			data, err := fixture.Demo(v)
			if err != nil {
				t.Fatal(err)
			}
			check(t, fixture.DemoFile, data, v.File >= reader.VerLazySeekPos)
		})
	}
	for _, file := range corpus.Legacy(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, err := reader.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			check(t, file, p.Source(), false)
		})
	}
}

// TestDiffPackageName compares a package with a copy saved under another
// file name: export paths differ only by the package name, which is not a
// difference.
func TestDiffPackageName(t *testing.T) {
	a := dtBuild(t, dtBase())
	b, err := reader.Read("Renamed.u", a.Source())
	if err != nil {
		t.Fatal(err)
	}
	if d, lines := dtLines(t, a, b); !d.Empty() {
		t.Errorf("diff:\n%s", strings.Join(lines, "\n"))
	}
}
