package convert

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

var engine427 = zen.Engine{Major: 4, Minor: 27}

// scriptSource serves script objects only, as the corpus's 4.27 global
// chunks give them.
type scriptSource struct{ s *zen.ScriptObjects }

func (s scriptSource) ScriptObjects() *zen.ScriptObjects    { return s.s }
func (s scriptSource) Package(string) (*zen.Package, error) { return nil, nil }
func global427(t *testing.T) *zen.ScriptObjects {
	t.Helper()
	so, err := iostore.LoadScriptObjectsFrom(corpus.Path(t, "other/ue4_27_global_chunks"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return so
}

func containerHeader427(t *testing.T) *zen.ContainerHeader {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Path(t, "other/ue4_27_global_chunks"), "ContainerHeader_1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := zen.DecodeContainerHeader("ContainerHeader_1.bin", data)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// zen427 returns the 4.26/4.27 zen packages under dir, judged by their
// layout.
func zen427(t *testing.T, dir string, ext string) map[string]*zen.Package {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpus.Path(t, dir), "*"+ext))
	out := map[string]*zen.Package{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := zen.DecodePackage(f, data, nil)
		if err != nil || p.Layout != zen.LayoutUE4 {
			continue
		}
		out[f] = p
	}
	if len(out) == 0 {
		t.Fatalf("no 4.26/4.27 zen packages in %s", dir)
	}
	return out
}

// TestToLegacyUE427Pair converts the engine's 4.27 zen package of the
// cooked pair back into a cooked asset: it decodes clean, converts back
// into the .uzenasset byte for byte, and differs from the engine's own
// asset only where docs/convert.md §9.10 says the zen package cannot tell.
func TestToLegacyUE427Pair(t *testing.T) {
	so := global427(t)
	for _, pr := range pairs(t, "other/ue4_27_cooked_pairs") {
		t.Run(filepath.Base(pr.name), func(t *testing.T) {
			p, err := zen.DecodePackage(pr.name, pr.zen, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := ToLegacy(p, &LegacyOptions{Engine: engine427, Imports: scriptSource{so}})
			if err != nil {
				t.Fatal(err)
			}
			h, x, err := EncodeLegacyChecked(a, p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := uasset.Decode(pr.name, pr.uasset, pr.uexp, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := uasset.Decode(a.FileName, h, x, &uasset.Options{Release: a.Release})
			if err != nil {
				t.Fatal(err)
			}
			if len(h) != len(pr.uasset) || !reflect.DeepEqual(x, pr.uexp) {
				t.Errorf("header %d bytes (engine %d), .uexp equal %v", len(h), len(pr.uasset), reflect.DeepEqual(x, pr.uexp))
			}
			// The names and the export data are the engine's.
			for i := range want.Names {
				if want.Names[i].Value != got.Names[i].Value {
					t.Fatalf("name %d %q, engine %q", i, got.Names[i].Value, want.Names[i].Value)
				}
			}
			// Every import is named as the engine's: path and outer; the
			// classes a hash does not keep are counted.
			classes := 0
			for i, w := range want.Imports {
				g := got.Imports[i]
				if want.NameOf(w.ObjectName) != got.NameOf(g.ObjectName) || w.OuterIndex != g.OuterIndex {
					t.Errorf("import %d: %s (outer %d), engine %s (outer %d)", i, got.NameOf(g.ObjectName), g.OuterIndex, want.NameOf(w.ObjectName), w.OuterIndex)
				}
				if want.NameOf(w.ClassName) != got.NameOf(g.ClassName) || want.NameOf(w.ClassPackage) != got.NameOf(g.ClassPackage) {
					classes++
					if got.NameOf(g.ClassName) != unknownClass {
						t.Errorf("import %d %s: class %s.%s, engine %s.%s", i, got.NameOf(g.ObjectName), got.NameOf(g.ClassPackage), got.NameOf(g.ClassName),
							want.NameOf(w.ClassPackage), want.NameOf(w.ClassName))
					}
				}
			}
			if classes > 6 {
				t.Errorf("%d import classes unknown, want at most the 6 subobjects of other packages' objects", classes)
			}
			for i, w := range want.Exports {
				g := got.Exports[i]
				if w.ClassIndex != g.ClassIndex || w.SuperIndex != g.SuperIndex || w.TemplateIndex != g.TemplateIndex || w.OuterIndex != g.OuterIndex ||
					w.SerialOffset != g.SerialOffset || w.SerialSize != g.SerialSize || w.ObjectFlags != g.ObjectFlags {
					t.Errorf("export %d differs from the engine's", i)
				}
			}
			// From its own names alone (no script objects) the package
			// converts too: the same paths and outers, fewer classes.
			if b, err := ToLegacy(p, &LegacyOptions{Engine: engine427}); err != nil {
				t.Errorf("from its names alone: %v", err)
			} else if _, _, err := EncodeLegacyChecked(b, p); err != nil {
				t.Errorf("from its names alone: %v", err)
			} else {
				wrong := 0
				for i, w := range want.Imports {
					g := b.Imports[i]
					if want.NameOf(w.ObjectName) != b.NameOf(g.ObjectName) || w.OuterIndex != g.OuterIndex {
						t.Errorf("from its names alone, import %d: %s (outer %d), engine %s", i, b.NameOf(g.ObjectName), g.OuterIndex, want.NameOf(w.ObjectName))
					}
					if want.NameOf(w.ClassName) != b.NameOf(g.ClassName) {
						wrong++
					}
				}
				if wrong > 16 {
					t.Errorf("from its names alone: %d of %d import classes differ from the engine's, 16 did", wrong, len(want.Imports))
				}
			}
			d := diffAssets(want, got)
			for _, hd := range d.Header {
				switch hd.Field {
				case "guid": // the package guid of the editor's save
				default:
					t.Errorf("summary field %s: engine %s, converted %s", hd.Field, hd.Old, hd.New)
				}
			}
			t.Logf("DiffAsset: %+v; %s; %d import classes unknown; %d preload dependencies (engine %d)",
				d.Header, d.Rest, classes, len(got.PreloadDependencies), len(want.PreloadDependencies))
		})
	}
}

// TestToLegacyUE427Grounded converts Grounded's 4.27 zen packages (a
// Blueprint, a texture, a DataTable) with the corpus's 4.27 global chunks
// and container header: each decodes clean, converts back byte for byte,
// and its properties are the zen package's.
func TestToLegacyUE427Grounded(t *testing.T) {
	so := global427(t)
	ch := containerHeader427(t)
	for f, p := range zen427(t, "other/grounded/zen_ue4_27", ".uasset") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, err := ToLegacy(p, &LegacyOptions{Engine: engine427, Imports: scriptSource{so}, ContainerHeader: ch})
			if err != nil {
				t.Fatal(err)
			}
			h, x, err := EncodeLegacyChecked(a, p)
			if err != nil {
				t.Fatal(err)
			}
			// Without the container header the package names its imported
			// packages from its names alone (the cooker's sorted order),
			// the same.
			if b, err := ToLegacy(p, &LegacyOptions{Engine: engine427, Imports: scriptSource{so}}); err != nil {
				t.Errorf("without the container header: %v", err)
			} else if h2, _, err := b.Encode(); err != nil || !reflect.DeepEqual(h, h2) {
				t.Errorf("without the container header the asset differs (%v)", err)
			}
			got, err := uasset.Decode(a.FileName, h, x, &uasset.Options{Release: a.Release})
			if err != nil {
				t.Fatal(err)
			}
			if pr := got.Problems(); len(pr) > 0 {
				t.Fatalf("problems: %v", pr)
			}
			if int(got.Summary.TotalHeaderSize) != int(p.CookedHeaderSize) {
				t.Errorf("header size %d, package records %d", got.Summary.TotalHeaderSize, p.CookedHeaderSize)
			}
			for i, im := range got.Imports {
				if got.NameOf(im.ClassName) == unknownClass {
					t.Errorf("import %d %s: class unknown", i, got.NameOf(im.ObjectName))
				}
			}
			list := make([]int, len(p.Exports))
			for i := range list {
				list[i] = i
			}
			zt, lt, err := propsTexts(f, p, &zen.Resolver{Script: so}, a.FileName, got, list)
			if err != nil {
				t.Fatal(err)
			}
			if len(zt) == 0 || len(zt) != len(lt) {
				t.Fatalf("%d exports with properties, zen %d", len(lt), len(zt))
			}
			for i := range zt {
				if zt[i] != lt[i] {
					t.Errorf("export %d properties differ:\nzen    %s\nlegacy %s", i, zt[i], lt[i])
				}
			}
		})
	}
}

// TestToLegacyUE427Refuses shows the refusals of 4.27 packages: imports
// that nothing at hand names are listed with what would name them.
func TestToLegacyUE427Refuses(t *testing.T) {
	so := global427(t)
	prs := pairs(t, "other/ue4_27_cooked_pairs")
	load := func() *zen.Package {
		p, err := zen.DecodePackage(prs[0].name, prs[0].zen, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		edit func(p *zen.Package)
		opts LegacyOptions
		want error
		msg  []string
	}{
		{"a script import no name makes, no script objects", func(p *zen.Package) {
			for i, x := range p.Imports {
				if x.Kind() == zen.KindScriptImport {
					p.Imports[i] = zen.ObjectIndex(uint64(x) ^ 1)
					return
				}
			}
		}, LegacyOptions{Engine: engine427}, ErrUnresolvedImport, []string{"global.utoc"}},
		{"a package import no name makes", func(p *zen.Package) {
			for i, x := range p.Imports {
				if x.Kind() == zen.KindPackageImport {
					p.Imports[i] = zen.ObjectIndex(uint64(x) ^ 1)
					return
				}
			}
		}, LegacyOptions{Engine: engine427, Imports: scriptSource{so}}, ErrUnresolvedImport, []string{"import 0:", "/Game/_AssemblyStorm/Common/Logger/LOG_Lib", "containers holding"}},
		{"an imported package's name missing", func(p *zen.Package) {
			for i, s := range p.Names {
				if s == "/Game/_ModHub/IHubPageWidget" {
					p.Names[i] = "Renamed"
				}
			}
		}, LegacyOptions{Engine: engine427, Imports: scriptSource{so}}, ErrUnresolvedImport, []string{"container header"}},
		{"a store entry of another import count", nil, LegacyOptions{Engine: engine427, Imports: scriptSource{so},
			ContainerHeader: &zen.ContainerHeader{Packages: []zen.StoreEntry{{PackageID: zen.PackageIDFromName("/Game/_AssemblyStorm/TestMod/TestModUI"), ImportedPackages: []zen.PackageID{1}}}}},
			ErrNotConvertible, []string{"lists 1 imported packages"}},
		{"a store entry naming a package the names do not", nil, LegacyOptions{Engine: engine427, Imports: scriptSource{so},
			ContainerHeader: &zen.ContainerHeader{Packages: []zen.StoreEntry{{PackageID: zen.PackageIDFromName("/Game/_AssemblyStorm/TestMod/TestModUI"), ImportedPackages: make([]zen.PackageID, 9)}}}},
			ErrUnresolvedImport, []string{"imported package 0x0000000000000000"}},
		{"a header smaller than the tables", func(p *zen.Package) { p.CookedHeaderSize = 1000 }, LegacyOptions{Engine: engine427, Imports: scriptSource{so}},
			ErrNotConvertible, []string{"more than the 1000"}},
		{"a second bundle over the first's entries", func(p *zen.Package) {
			p.Bundles = append(p.Bundles, zen.ExportBundle{FirstEntry: 0, EntryCount: 1})
		}, LegacyOptions{Engine: engine427, Imports: scriptSource{so}}, ErrNotConvertible, []string{"export bundle 1", "do not follow"}},
		{"bundles missing entries", func(p *zen.Package) {
			p.Bundles[0].EntryCount--
		}, LegacyOptions{Engine: engine427, Imports: scriptSource{so}}, ErrNotConvertible, []string{"the bundles hold"}},
		{"no release given", nil, LegacyOptions{Imports: scriptSource{so}}, ErrUnsupportedEngine, []string{"give the engine release"}},
		{"5.3 release given", nil, LegacyOptions{Engine: zen.Engine{Major: 5, Minor: 3}, Imports: scriptSource{so}}, ErrUnsupportedEngine, []string{"layout"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := load()
			if c.edit != nil {
				c.edit(p)
			}
			_, err := ToLegacy(p, &c.opts)
			if !errors.Is(err, c.want) {
				t.Fatalf("%v, want %v", err, c.want)
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%v does not say %q", err, m)
				}
			}
		})
	}
}

// FuzzToLegacyUE427 converts damaged 4.27 zen packages (seeds: the
// corpus's 4.27 packages): a refusal is a *ue.FormatError, never a panic
// or a hang, and what converts encodes.
func FuzzToLegacyUE427(f *testing.F) {
	var src ImportSource
	var ch *zen.ContainerHeader
	if os.Getenv(corpus.EnvVar) != "" {
		so, err := iostore.LoadScriptObjectsFrom(corpus.Path(f, "other/ue4_27_global_chunks"), nil)
		if err != nil {
			f.Fatal(err)
		}
		src = scriptSource{so}
		if data, err := os.ReadFile(filepath.Join(corpus.Path(f, "other/ue4_27_global_chunks"), "ContainerHeader_1.bin")); err == nil {
			ch, _ = zen.DecodeContainerHeader("ContainerHeader_1.bin", data)
		}
		// The small packages: the 4.27 pair's (95 KB) makes each run slow.
		for _, g := range []string{"other/grounded/zen_ue4_27/*.uasset"} {
			files, _ := filepath.Glob(filepath.Join(corpus.Dir(f), g))
			for _, file := range files {
				if b, err := os.ReadFile(file); err == nil {
					f.Add(b)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzbound.Check(t, time.Now(), len(b))
		p, err := zen.DecodePackage("fuzz", b, &zen.DecodeOptions{Layout: zen.LayoutUE4})
		if err != nil {
			return
		}
		a, err := ToLegacy(p, &LegacyOptions{Engine: engine427, Imports: src, ContainerHeader: ch})
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *ue.FormatError: %v", err)
			}
			return
		}
		if _, _, err := a.Encode(); err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("encoding the asset: %v", err)
			}
		}
	})
}

// BenchmarkToLegacyUE427 converts the corpus's 4.27 zen packages (the
// pair's and Grounded's: decode, ToLegacy naming imports from the global
// chunks and the package's names, encode) beside the baseline of decoding
// and encoding the same zen packages. MB/s counts the zen packages' bytes.
func BenchmarkToLegacyUE427(b *testing.B) {
	so, err := iostore.LoadScriptObjectsFrom(corpus.Path(b, "other/ue4_27_global_chunks"), nil)
	if err != nil {
		b.Fatal(err)
	}
	var set [][]byte
	var in int64
	for _, g := range []string{"other/grounded/zen_ue4_27/*.uasset", "other/ue4_27_cooked_pairs/*.uzenasset"} {
		files, _ := filepath.Glob(filepath.Join(corpus.Dir(b), g))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			set = append(set, data)
			in += int64(len(data))
		}
	}
	run := func(b *testing.B, one func(data []byte) error) {
		b.SetBytes(in)
		b.ReportAllocs()
		for b.Loop() {
			for _, data := range set {
				if err := one(data); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("to-legacy", func(b *testing.B) {
		run(b, func(data []byte) error {
			p, err := zen.DecodePackage("bench", data, nil)
			if err != nil {
				return err
			}
			a, err := ToLegacy(p, &LegacyOptions{Engine: engine427, Imports: scriptSource{so}})
			if err != nil {
				return err
			}
			_, _, err = a.Encode()
			return err
		})
	})
	b.Run("baseline-zen-decode-encode", func(b *testing.B) {
		run(b, func(data []byte) error {
			p, err := zen.DecodePackage("bench", data, nil)
			if err != nil {
				return err
			}
			_, err = p.Encode()
			return err
		})
	})
}
