package convert

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// fixturePackage reads a package of the UE 5.8 fixture container.
func fixturePackage(t testing.TB, name string) (*zen.Package, *ContainerSource) {
	t.Helper()
	ct, src := fixtureSet(t)
	i, err := ct.FindPackage(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ct.ReadPackage(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, src
}

// noPackages names script objects only.
type noPackages struct{ s *zen.ScriptObjects }

func (n noPackages) ScriptObjects() *zen.ScriptObjects  { return n.s }
func (noPackages) Package(string) (*zen.Package, error) { return nil, nil }

func TestToLegacyRefuses(t *testing.T) {
	da, src := fixturePackage(t, "/Game/Fixtures/Properties/DA_AllProperties")
	e58 := zen.Engine58
	cases := []struct {
		name   string
		change func(p *zen.Package)
		opts   LegacyOptions
		want   error
		says   string
	}{
		{"no import source", nil, LegacyOptions{Engine: e58}, ErrUnresolvedImport, "global.utoc"},
		{"imported packages missing", nil, LegacyOptions{Engine: e58, Imports: noPackages{src.ScriptObjects()}}, ErrUnresolvedImport, "/Game/Fixtures/DataTables/DT_AllProperties"},
		{"engine not given", nil, LegacyOptions{Imports: src}, ErrUnsupportedEngine, "give the engine release"},
		{"engine of another layout", nil, LegacyOptions{Engine: zen.Engine{Major: 5, Minor: 4}, Imports: src}, ErrUnsupportedEngine, "layout"},
		{"UE4 package of a release not given", func(p *zen.Package) { p.Layout = zen.LayoutUE4 }, LegacyOptions{Engine: e58, Imports: src}, ErrUnsupportedEngine, "layout"},
		{"5.2 package", func(p *zen.Package) { p.Layout = zen.LayoutUE52 }, LegacyOptions{Imports: src}, ErrUnsupportedEngine, "5.3 and later"},
		{"not cooked", func(p *zen.Package) { p.PackageFlags &^= 0x200 }, LegacyOptions{Engine: e58, Imports: src}, ErrNotCooked, "PKG_Cooked"},
		{"Verse cells", func(p *zen.Package) { p.CellImports = []zen.ObjectIndex{1} }, LegacyOptions{Engine: e58, Imports: src}, ErrNotConvertible, "Verse"},
		{"imported packages without null imports", func(p *zen.Package) { p.Imports[5] = zen.ObjectIndex(0x43fa87edf197ca86) }, LegacyOptions{Engine: e58, Imports: src}, ErrNotConvertible, "null imports"},
		{"unknown script import", func(p *zen.Package) { p.Imports[0] ^= 1 }, LegacyOptions{Engine: e58, Imports: src}, ErrUnresolvedImport, "not among"},
		{"public hash not exported", func(p *zen.Package) { p.ImportedPublicExportHashes[0] ^= 1 }, LegacyOptions{Engine: e58, Imports: src}, ErrUnresolvedImport, "no export with public hash"},
		{"export refers outside", func(p *zen.Package) { p.Exports[0].Class = zen.ExportObject(99) }, LegacyOptions{Engine: e58, Imports: src}, ErrNotConvertible, "ClassIndex"},
		{"dependency headers missing", func(p *zen.Package) { p.DependencyHeaders = nil }, LegacyOptions{Engine: e58, Imports: src}, ErrNotConvertible, "dependency headers"},
		{"dependency outside", func(p *zen.Package) { p.DependencyEntries[0] = -100 }, LegacyOptions{Engine: e58, Imports: src}, ErrNotConvertible, "outside"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := da
			if tc.change != nil {
				b, err := da.Encode()
				if err != nil {
					t.Fatal(err)
				}
				if p, err = zen.DecodePackage("DA_AllProperties", b, nil); err != nil {
					t.Fatal(err)
				}
				tc.change(p)
			}
			_, err := ToLegacy(p, &tc.opts)
			var fe *ue.FormatError
			if !errors.Is(err, tc.want) || !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v; want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
	if _, err := ToLegacy(nil, nil); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("nil package: %v", err)
	}
}

// FuzzToLegacy converts whatever zen.DecodePackage accepts, its imports
// named by the UE 5.8 fixture container set: ToLegacy refuses it with a
// *ue.FormatError or returns an asset that encodes and decodes again.
// Seeds: packages of the fixture container.
func FuzzToLegacy(f *testing.F) {
	var src ImportSource
	if os.Getenv(corpus.EnvVar) != "" {
		ct, s := fixtureSet(f)
		src = s
		for k, i := range packageChunks(f, ct) {
			if k%8 != 0 {
				continue
			}
			b, err := ct.ReadChunk(i)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzbound.Check(t, time.Now(), len(b))
		p, err := zen.DecodePackage("fuzz", b, nil)
		if err != nil {
			return
		}
		a, err := ToLegacy(p, &LegacyOptions{Engine: zen.Engine58, Imports: src})
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
