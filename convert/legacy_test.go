package convert

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
)

// fixtureSet opens the UE 5.8 fixture project's tagged zlib container and
// the script objects of its global.utoc.
func fixtureSet(t testing.TB) (*iostore.Container, *ContainerSource) {
	t.Helper()
	dir := corpus.Dir(t)
	utocs, _ := filepath.Glob(filepath.Join(dir, "iostore/cue4parse_ue5_8/Tagged/Zlib/*.utoc"))
	if len(utocs) != 1 {
		t.Fatalf("want one container in iostore/cue4parse_ue5_8/Tagged/Zlib, found %d", len(utocs))
	}
	ct, err := iostore.Open(utocs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ct.Close() })
	script, err := iostore.LoadScriptObjects(filepath.Join(dir, "iostore/cue4parse_ue5_8/Tagged/global.utoc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ct, NewContainerSource(script, ct)
}

// packageChunks lists the container's package chunks.
func packageChunks(t testing.TB, ct *iostore.Container) []int {
	var out []int
	for i, c := range ct.Chunks() {
		if c.Type == iostore.ChunkExportBundleData {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		t.Fatal("the container holds no packages")
	}
	return out
}

// encodeLegacy encodes a converted asset and decodes it again as a reader
// of the release would, checking it verifies clean.
func encodeLegacy(t testing.TB, a *uasset.Package) (h, x []byte, back *uasset.Package) {
	t.Helper()
	h, x, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err = uasset.Decode(a.FileName, h, x, &uasset.Options{Release: a.Release})
	if err != nil {
		t.Fatalf("the converted asset does not decode: %v", err)
	}
	for _, pr := range back.Problems() {
		t.Errorf("converted asset: %v", pr)
	}
	h2, x2, err := back.Encode()
	if err != nil || !bytes.Equal(h, h2) || !bytes.Equal(x, x2) {
		t.Errorf("the converted asset does not re-encode identically (%v)", err)
	}
	return h, x, back
}

// TestToLegacyRoundTrip converts every package of the UE 5.8 fixture
// container into a cooked asset and back into a zen package: the result is
// the engine's package chunk byte for byte.
func TestToLegacyRoundTrip(t *testing.T) {
	ct, src := fixtureSet(t)
	checkLegacyRoundTrip(t, ct, src, zen.Engine58)
}

// checkLegacyRoundTrip converts every package of ct into a cooked asset
// for engine and back into a zen package, which must be the container's
// package chunk byte for byte. It returns the number of packages, those
// that came back identical and those refused for imports of packages
// outside the container set.
func checkLegacyRoundTrip(t *testing.T, ct *iostore.Container, src ImportSource, engine zen.Engine) (total, identical, refused int) {
	converted := 0
	defer func() {
		t.Logf("%d packages converted and back, %d of them identical, %d refused for imports of packages outside the container set", converted, identical, refused)
		if converted == 0 {
			t.Error("no package converted")
		}
	}()
	for _, i := range packageChunks(t, ct) {
		name := ct.PackageName(i)
		total++
		t.Run(path.Base(name), func(t *testing.T) {
			want, err := ct.ReadChunk(i)
			if err != nil {
				t.Fatal(err)
			}
			p, err := zen.DecodePackage(name, want, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := ToLegacy(p, &LegacyOptions{Engine: engine, Imports: src})
			var un *UnresolvedImportsError
			if errors.As(err, &un) && len(un.Packages) > 0 && !un.ScriptObjects {
				// Engine content the fixture project did not cook into
				// its container: the refusal names each package, none of
				// which the container set holds.
				for _, n := range un.Packages {
					if q, _ := src.Package(n); q != nil || !strings.Contains(err.Error(), n) {
						t.Errorf("refused for %s, which the container holds or the error does not name: %v", n, err)
					}
				}
				refused++
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			converted++
			_, _, back := encodeLegacy(t, a)
			z, err := ToZen(back, &Options{Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			got, err := z.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("zen → legacy → zen: %s", firstDiff(got, want))
			} else {
				identical++
			}
		})
	}
	return total, identical, refused
}

// TestToLegacyUE58Oracle converts the packages the fixture project also
// cooked into a legacy pak and compares each with the engine's own cooked
// asset: no semantic difference (patch.DiffAsset, through diffAssets) but the custom versions
// an unversioned zen package drops, the same name map in the same order,
// the same import and export maps field for field, the same header size
// and export data, the same bytes but where the engine wrote what the zen
// package does not keep.
func TestToLegacyUE58Oracle(t *testing.T) {
	ct, src := fixtureSet(t)
	paks, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "pak/cue4parse_ue5_8/LegacyPak/Tagged/*/*.pak"))
	var pk string
	for _, p := range paks {
		if strings.Contains(p, "Uncompressed") {
			pk = p
		}
	}
	if pk == "" {
		t.Fatal("no uncompressed tagged legacy pak of the UE 5.8 fixture project")
	}
	checkLegacyOracle(t, ct, src, pk, zen.Engine58)
}

// checkLegacyOracle converts the package of ct of each cooked asset of
// the legacy pak pk into a cooked asset for engine and compares it with
// the engine's asset. It returns the number of assets compared and the
// number of them with no difference found.
func checkLegacyOracle(t *testing.T, ct *iostore.Container, src ImportSource, pk string, engine zen.Engine) (n, same int) {
	r, err := pak.Open(pk, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sameTables := 0
	defer func() { t.Logf("%d of %d assets have the engine's header tables byte for byte", sameTables, n) }()
	for _, f := range r.Files {
		ext := path.Ext(f.Path)
		if ext != ".uasset" && ext != ".umap" {
			continue
		}
		n++
		ok := t.Run(path.Base(f.Path), func(t *testing.T) {
			af, err := ufile.PakAsset(&r.Reader, f.Path)
			if err != nil {
				t.Fatal(err)
			}
			uexp, err := r.ReadFile(strings.TrimSuffix(f.Path, ext) + ".uexp")
			if err != nil {
				t.Fatal(err)
			}
			// The engine's asset is read as the release that cooked it,
			// which its versions may not tell apart from an earlier one
			// (UE 6.0 cooks record the versions of 5.8).
			want, err := uasset.Decode(f.Path, af.Data, uexp, &uasset.Options{Release: uasset.Release{Major: engine.Major, Minor: engine.Minor}})
			if err != nil {
				t.Fatal(err)
			}
			ci, ok := ct.PackageChunk(zen.PackageIDFromName(want.Summary.PackageName))
			if !ok {
				t.Fatalf("the container has no package %s", want.Summary.PackageName)
			}
			p, err := ct.ReadPackage(ci, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := ToLegacy(p, &LegacyOptions{Engine: engine, Imports: src, FileName: path.Base(f.Path)})
			if err != nil {
				t.Fatal(err)
			}
			h, x, got := encodeLegacy(t, a)
			d := diffAssets(want, got)
			for _, hd := range d.Header {
				if hd.Field == "version" && len(want.Summary.CustomVersions) > 0 {
					continue // the custom versions of an unversioned asset: the zen package has none
				}
				t.Errorf("header %s: engine %q, converted %q", hd.Field, hd.Old, hd.New)
			}
			if d.Rest != "" {
				t.Errorf("diff: %s", d.Rest)
			}
			compareTables(t, want, got, false)
			if got.Summary.TotalHeaderSize != want.Summary.TotalHeaderSize {
				t.Errorf("TotalHeaderSize %d, engine %d", got.Summary.TotalHeaderSize, want.Summary.TotalHeaderSize)
			}
			if !bytes.Equal(x, uexp) {
				t.Errorf(".uexp: %s", firstDiff(x, uexp))
			}
			// The header's bytes: equal from the name map on, but for the
			// preload dependencies on script objects the packer dropped.
			if len(h) == len(af.Data) && want.Summary.PreloadDependencyCount == got.Summary.PreloadDependencyCount {
				if o := int(want.Summary.NameOffset); !bytes.Equal(h[o:], af.Data[o:]) {
					t.Errorf("header tables: %s", firstDiff(h[o:], af.Data[o:]))
				}
				sameTables++
			}
			t.Logf("preload dependencies: %d, engine %d", got.Summary.PreloadDependencyCount, want.Summary.PreloadDependencyCount)
		})
		if ok {
			same++
		}
	}
	if n == 0 {
		t.Fatal("no cooked assets in the legacy pak")
	}
	return n, same
}

// compareTables compares the names, imports and exports field for field
// (the preload dependency ranges aside). loose is for cooks whose
// unknowable parts differ: the names after those the export data refers to
// are compared as a set (up to 5.4 the cooker lists them in the order it
// met them) and by text (the 5.4 pair stores zero name hashes), the import
// map by what it names, and bNotAlwaysLoadedForEditorGame and the counts of the
// dependencies on script objects are not compared.
func compareTables(t *testing.T, want, got *uasset.Package, loose bool) {
	t.Helper()
	wn, gn := fmt.Sprint(want.Names), fmt.Sprint(got.Names)
	if n := int(want.Summary.NamesReferencedFromExportDataCount); loose && n <= len(want.Names) && n <= len(got.Names) {
		sorted := func(ns []uasset.Name) string {
			out := make([]string, len(ns))
			for i, x := range ns {
				out[i] = x.Value
			}
			slices.Sort(out)
			return fmt.Sprint(out)
		}
		texts := func(ns []uasset.Name) string {
			out := make([]string, len(ns))
			for i, x := range ns {
				out[i] = x.Value
			}
			return fmt.Sprint(out)
		}
		wn, gn = texts(want.Names[:n])+sorted(want.Names[n:]), texts(got.Names[:n])+sorted(got.Names[n:])
	}
	if wn != gn {
		t.Errorf("name map:\n got %v\nwant %v", got.Names, want.Names)
	}
	if want.Summary.NamesReferencedFromExportDataCount != got.Summary.NamesReferencedFromExportDataCount {
		t.Errorf("NamesReferencedFromExportDataCount %d, engine %d", got.Summary.NamesReferencedFromExportDataCount, want.Summary.NamesReferencedFromExportDataCount)
	}
	if loose {
		for i := range min(len(want.Imports), len(got.Imports)) {
			w, g := want.Imports[i], got.Imports[i]
			if want.NameOf(w.ObjectName) != got.NameOf(g.ObjectName) || want.NameOf(w.ClassName) != got.NameOf(g.ClassName) ||
				want.NameOf(w.ClassPackage) != got.NameOf(g.ClassPackage) || w.OuterIndex != g.OuterIndex || w.Optional != g.Optional {
				t.Errorf("import %d: got %s.%s %s outer %d, want %s.%s %s outer %d", i, got.NameOf(g.ClassPackage), got.NameOf(g.ClassName), got.NameOf(g.ObjectName), g.OuterIndex,
					want.NameOf(w.ClassPackage), want.NameOf(w.ClassName), want.NameOf(w.ObjectName), w.OuterIndex)
			}
		}
		if len(want.Imports) != len(got.Imports) {
			t.Errorf("%d imports, engine %d", len(got.Imports), len(want.Imports))
		}
	} else if fmt.Sprint(want.Imports) != fmt.Sprint(got.Imports) {
		t.Errorf("import map:\n got %v\nwant %v", got.Imports, want.Imports)
	}
	for i := range min(len(want.Exports), len(got.Exports)) {
		w, g := want.Exports[i], got.Exports[i]
		w.Data, g.Data = nil, nil
		w.FirstExportDependency, g.FirstExportDependency = 0, 0
		w.SerializationBeforeSerializationDependencies, g.SerializationBeforeSerializationDependencies = 0, 0
		w.CreateBeforeSerializationDependencies, g.CreateBeforeSerializationDependencies = 0, 0
		if loose {
			if want.NameOf(w.ObjectName) == got.NameOf(g.ObjectName) {
				w.ObjectName = g.ObjectName
			}
			w.NotAlwaysLoadedForEditorGame = g.NotAlwaysLoadedForEditorGame
			w.SerializationBeforeCreateDependencies, g.SerializationBeforeCreateDependencies = 0, 0
			w.CreateBeforeCreateDependencies, g.CreateBeforeCreateDependencies = 0, 0
		}
		if fmt.Sprintf("%+v", w) != fmt.Sprintf("%+v", g) {
			t.Errorf("export %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if len(want.Exports) != len(got.Exports) {
		t.Errorf("%d exports, engine %d", len(got.Exports), len(want.Exports))
	}
	if fmt.Sprint(want.DataResources) != fmt.Sprint(got.DataResources) {
		t.Errorf("data resources:\n got %v\nwant %v", got.DataResources, want.DataResources)
	}
}
