package convert

import (
	"bytes"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
)

// decodePair decodes the cooked asset of the pair whose file name contains
// kind, for the release r (zero: detect).
func decodePair(t *testing.T, kind string, r uasset.Release) *uasset.Package {
	t.Helper()
	for _, pr := range pairs(t, "other/ue5_cooked_pairs") {
		if strings.Contains(filepath.Base(pr.name), kind) {
			a, err := uasset.Decode(pr.name, pr.uasset, pr.uexp, &uasset.Options{Release: r})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
	}
	t.Fatalf("no pair named like %s", kind)
	return nil
}

func TestToZenRefuses(t *testing.T) {
	corpus.Dir(t)
	r54 := uasset.Release{Major: 5, Minor: 4}
	e54 := zen.Engine{Major: 5, Minor: 4}
	cases := []struct {
		name   string
		kind   string // pair to start from
		rel    uasset.Release
		engine zen.Engine
		change func(a *uasset.Package)
		want   error
		says   string
	}{
		{"editor asset", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Summary.PackageFlags &^= uasset.PkgCooked }, ErrNotCooked, "PKG_Cooked"},
		{"import outer loop", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Imports[10].OuterIndex = -18 }, ErrUnresolvedImport, "loops"},
		{"import outer is an export", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Imports[10].OuterIndex = 1 }, ErrUnresolvedImport, "an export"},
		{"import outer outside", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Imports[10].OuterIndex = -100 }, ErrUnresolvedImport, "outside"},
		{"export outer loop", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Exports[0].OuterIndex = 1 }, ErrNotConvertible, "loops"},
		{"dependencies outside", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Exports[0].FirstExportDependency = 1 << 20 }, ErrNotConvertible, "preload dependencies"},
		{"dependency loop", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) {
			// export 0 serializes before it is created
			a.Exports[0].FirstExportDependency = int32(len(a.PreloadDependencies))
			a.Exports[0].SerializationBeforeSerializationDependencies = 0
			a.Exports[0].CreateBeforeSerializationDependencies = 0
			a.Exports[0].SerializationBeforeCreateDependencies = 1
			a.Exports[0].CreateBeforeCreateDependencies = 0
			a.PreloadDependencies = append(a.PreloadDependencies, 1)
			a.Summary.PreloadDependencyCount++
		}, ErrNotConvertible, "loop"},
		{"public export hash collision", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) {
			a.Exports[2].ObjectName = a.Exports[3].ObjectName // both public, same outer
		}, ErrNotConvertible, "also export"},
		{"names referenced from export data", "BP_Table_Lamp", r54, e54, func(a *uasset.Package) { a.Summary.NamesReferencedFromExportDataCount = 1000 }, ErrNotConvertible, "NamesReferencedFromExportDataCount"},
		{"engine the layout does not fit", "BP_Table_Lamp", uasset.Release{}, zen.Engine58, nil, ErrUnsupportedEngine, "not one UE 5.8 writes"},
		{"engine not told apart", "BP_Table_Lamp", uasset.Release{}, zen.Engine{}, nil, ErrUnsupportedEngine, "give the engine release"},
		{"engine of the other generation", "SM_Cube", uasset.Release{Major: 5, Minor: 6}, zen.Engine427, nil, ErrUnsupportedEngine, "not one UE 4.27 writes"},
		{"engine without conversion", "BP_Table_Lamp", uasset.Release{Major: 5, Minor: 2}, zen.Engine{Major: 5, Minor: 2}, nil, ErrUnsupportedEngine, "5.3 and later"},
		{"verse native import", "SM_Cube", uasset.Release{Major: 5, Minor: 6}, zen.Engine{Major: 5, Minor: 6}, func(a *uasset.Package) {
			for _, im := range a.Imports {
				if n := &a.Names[im.ObjectName.Index]; im.OuterIndex == 0 && strings.HasPrefix(n.Value, "/Script/") {
					n.Value = "/Game/_Verse/VNI/Thing"
					return
				}
			}
		}, ErrNotConvertible, "Verse"},
		{"cell exports", "SM_Cube", uasset.Release{Major: 5, Minor: 6}, zen.Engine{Major: 5, Minor: 6}, func(a *uasset.Package) { a.Summary.CellExportCount = 1 }, ErrNotConvertible, "cell"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := decodePair(t, tc.kind, tc.rel)
			if tc.change != nil {
				tc.change(a)
			}
			p, err := ToZen(a, &Options{Engine: tc.engine})
			if err == nil {
				t.Fatalf("converted (%d exports); want an error", len(p.Exports))
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), filepath.Base(a.FileName)) {
				t.Errorf("error %q; want %v saying %q and naming the file", err, tc.want, tc.says)
			}
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Errorf("error %T is not a *ue.FormatError", err)
			}
		})
	}
}

// A model changed after Decode is converted as it would be encoded.
func TestToZenChangedModel(t *testing.T) {
	a := decodePair(t, "SM_Cube", uasset.Release{Major: 5, Minor: 6})
	e := zen.Engine{Major: 5, Minor: 6}
	before, err := ToZen(a, &Options{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	grown := append(append([]byte(nil), a.Exports[0].Data...), 1, 2, 3, 4, 5)
	a.Exports[0].Data = grown
	p, err := ToZen(a, &Options{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	b := checkOutput(t, p)
	d, err := zen.DecodePackage("converted", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.Exports[0].Data, grown) {
		t.Errorf("export 0 holds %d bytes, want the %d of the changed model", len(d.Exports[0].Data), len(grown))
	}
	if got, want := d.Exports[1].SerialOffset, before.Exports[1].SerialOffset+5; len(d.Exports) > 1 && got != want {
		// before's SerialOffset is not derived until encoding: compare with its encoding.
		bb, _ := before.Encode()
		db, _ := zen.DecodePackage("before", bb, nil)
		if got != db.Exports[1].SerialOffset+5 {
			t.Errorf("export 1 at %d, want 5 bytes after where it was (%d)", got, db.Exports[1].SerialOffset)
		}
	}
	if a.Exports[0].SerialSize == int64(len(grown)) {
		t.Error("ToZen changed the asset it was given")
	}
}

// The package name comes from the summary, the caller, or the name map.
func TestPackageName(t *testing.T) {
	a := decodePair(t, "BP_Table_Lamp", uasset.Release{Major: 5, Minor: 4})
	e := zen.Engine{Major: 5, Minor: 4}
	recorded := a.Summary.PackageName
	for _, tc := range []struct {
		name, summary, given, want string
	}{
		{"recorded", recorded, "", recorded},
		{"given", recorded, "/Game/Other/Name", "/Game/Other/Name"},
		{"from the name map", "None", "", recorded}, // the name map holds the package's own name
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.Summary.PackageName = tc.summary
			a.FileName = filepath.Join(filepath.Dir(a.FileName), path.Base(recorded)+".uasset")
			p, err := ToZen(a, &Options{Engine: e, PackageName: tc.given})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.PackageName(); got != tc.want {
				t.Errorf("package %q, want %q", got, tc.want)
			}
		})
	}
	a.Summary.PackageName = "None"
	a.FileName = "Elsewhere.uasset"
	if _, err := ToZen(a, &Options{Engine: e}); !errors.Is(err, ErrNotConvertible) || !strings.Contains(err.Error(), "give the package name") {
		t.Errorf("no name to find: error %v", err)
	}
	if _, err := ToZen(a, &Options{Engine: e, PackageName: "Game/NoSlash"}); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("bad name given: error %v", err)
	}
}

func decode427(t *testing.T) *uasset.Package {
	t.Helper()
	prs := pairs(t, "other/ue4_27_cooked_pairs")
	a, err := uasset.Decode(prs[0].name, prs[0].uasset, prs[0].uexp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestToZenUE4Refuses(t *testing.T) {
	cases := []struct {
		name   string
		change func(a *uasset.Package)
		want   error
		says   string
	}{
		{"editor asset", func(a *uasset.Package) { a.Summary.PackageFlags &^= uasset.PkgFilterEditorOnly }, ErrNotCooked, "PKG_FilterEditorOnly"},
		{"export outer is an import", func(a *uasset.Package) { a.Exports[0].OuterIndex = -1 }, ErrNotConvertible, "outer is an import"},
		{"dependency loop", func(a *uasset.Package) {
			e := &a.Exports[0]
			e.FirstExportDependency = int32(len(a.PreloadDependencies))
			e.SerializationBeforeSerializationDependencies, e.CreateBeforeSerializationDependencies = 0, 0
			e.SerializationBeforeCreateDependencies, e.CreateBeforeCreateDependencies = 1, 0
			a.PreloadDependencies = append(a.PreloadDependencies, 1)
			a.Summary.PreloadDependencyCount++
		}, ErrNotConvertible, "loop"},
		{"dependency outside", func(a *uasset.Package) { a.PreloadDependencies[0] = 1 << 20 }, ErrNotConvertible, "outside"},
		{"no package name", func(a *uasset.Package) { a.FileName = "Elsewhere.uasset" }, ErrNotConvertible, "give the package name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := decode427(t)
			tc.change(a)
			_, err := ToZen(a, nil)
			if !errors.Is(err, tc.want) || err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v; want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
}

// Arcs from imported packages name their one bundle, or bundle −1 when
// they come from the base game.
func TestToZenUE4ImportedBundles(t *testing.T) {
	for _, tc := range []struct {
		base bool
		from int32
	}{{false, 0}, {true, -1}} {
		p, err := ToZen(decode427(t), &Options{ImportsFromBaseGame: tc.base})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Graph) == 0 {
			t.Fatal("no graph data")
		}
		for _, g := range p.Graph {
			for _, a := range g.Arcs {
				if a.From != tc.from || a.To != 0 {
					t.Errorf("base game %v: package %v arc %+v, want from %d to 0", tc.base, g.Package, a, tc.from)
				}
			}
		}
		checkOutput(t, p)
	}
}

func TestSourcePackageName(t *testing.T) {
	for in, want := range map[string]string{
		"/Game/Maps/Arena":           "/Game/Maps/Arena",
		"/Game/L10N/fr/Maps/Arena":   "/Game/Maps/Arena",
		"/Game/l10n/de-DE/UI/Banner": "/Game/UI/Banner",
		"/Game/L10N/fr":              "/Game/L10N/fr",
	} {
		if got := sourcePackageName(in); got != want {
			t.Errorf("sourcePackageName(%q) = %q, want %q", in, got, want)
		}
	}
}

// EncodeChecked refuses a package whose bytes would not verify.
func TestEncodeChecked(t *testing.T) {
	a := decodePair(t, "BP_Table_Lamp", uasset.Release{Major: 5, Minor: 4})
	p, err := ToZen(a, &Options{Engine: zen.Engine{Major: 5, Minor: 4}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncodeChecked("BP_Table_Lamp.uasset", p)
	if err != nil {
		t.Fatalf("a converted package is refused: %v", err)
	}
	if want, _ := p.Encode(); !bytes.Equal(b, want) {
		t.Error("EncodeChecked's bytes differ from Encode's")
	}
	p.Exports[0].PublicExportHash ^= 1 // no longer the hash of its path
	if _, err := EncodeChecked("BP_Table_Lamp.uasset", p); !errors.Is(err, ErrNotConvertible) || !strings.Contains(err.Error(), "problem") {
		t.Errorf("a package with a wrong public export hash: error %v", err)
	}
}

// A versioned asset's versions become the package's versioning info.
func TestToZenVersioned(t *testing.T) {
	a := decodePair(t, "SM_Cube", uasset.Release{Major: 5, Minor: 6})
	a.Summary.FileVersionUE4, a.Summary.FileVersionUE5, a.Summary.FileVersionLicensee = 522, 1017, 3
	key := uasset.GUID{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}
	a.Summary.CustomVersions = []uasset.CustomVersion{{Key: key, Version: 7}}
	p, err := ToZen(a, &Options{Engine: zen.Engine{Major: 5, Minor: 6}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := zen.DecodePackage("versioned", checkOutput(t, p), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := d.Versioning
	if v == nil || v.ZenVersion != 3 || v.FileVersionUE4 != 522 || v.FileVersionUE5 != 1017 || v.Licensee != 3 ||
		len(v.CustomVersions) != 1 || v.CustomVersions[0].Key != (zen.GUID{1, 2, 3, 4}) || v.CustomVersions[0].Version != 7 {
		t.Errorf("versioning %+v", v)
	}
}
