package convert

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// assetSource is an ImportSource made from the engine's own cooked asset:
// the script objects and the exports of the imported packages that its
// import map names, laid out as a game's global.utoc and containers hold
// them (every class with its class default object). It stands in for the
// game files the corpus does not have, so that the rest of the conversion
// can be checked against the engine's asset.
type assetSource struct {
	script *zen.ScriptObjects
	pkgs   map[string]*zen.Package
}

func (s *assetSource) ScriptObjects() *zen.ScriptObjects { return s.script }
func (s *assetSource) Package(name string) (*zen.Package, error) {
	return s.pkgs[lowerASCII(name)], nil
}

func newAssetSource(t *testing.T, a *uasset.Package) *assetSource {
	t.Helper()
	src, err := newSource(a, a.Summary.PackageName)
	if err != nil {
		t.Fatal(err)
	}
	so := &zen.ScriptObjects{}
	names := map[string]uint32{}
	name := func(text string, number int32) zen.MappedName {
		i, ok := names[text]
		if !ok {
			i = uint32(len(so.Names))
			names[text] = i
			so.Names = append(so.Names, text)
		}
		return zen.MappedName{IndexAndType: i | 2<<30, Number: uint32(number)} // the global name map
	}
	have := map[zen.ObjectIndex]bool{}
	add := func(e zen.ScriptObjectEntry) {
		if !have[e.Index] {
			have[e.Index] = true
			so.Objects = append(so.Objects, e)
		}
	}
	idx := func(path string) zen.ObjectIndex {
		return zen.ObjectIndex(cityhash.ScriptImportIndex(lowerASCII(path)))
	}
	// scriptClass adds /Script/Pkg.Class and its class default object.
	scriptClass := func(pkg, class string) zen.ObjectIndex {
		add(zen.ScriptObjectEntry{Name: name(pkg, 0), Index: idx(pkg), Outer: zen.NullObject, CDOClass: zen.NullObject})
		c := idx(pkg + "/" + class)
		add(zen.ScriptObjectEntry{Name: name(class, 0), Index: c, Outer: idx(pkg), CDOClass: zen.NullObject})
		add(zen.ScriptObjectEntry{Name: name("Default__"+class, 0), Index: idx(pkg + "/Default__" + class), Outer: idx(pkg), CDOClass: c})
		return c
	}
	pkgs := map[string]*zen.Package{}
	stub := func(pn string) *zen.Package {
		q := pkgs[lowerASCII(pn)]
		if q == nil {
			q = &zen.Package{Layout: zen.LayoutUE56, Names: []string{pn}}
			pkgs[lowerASCII(pn)] = q
		}
		return q
	}
	qname := func(q *zen.Package, text string, number int32) zen.MappedName {
		for i, n := range q.Names {
			if n == text {
				return zen.MappedName{IndexAndType: uint32(i), Number: uint32(number)}
			}
		}
		q.Names = append(q.Names, text)
		return zen.MappedName{IndexAndType: uint32(len(q.Names) - 1), Number: uint32(number)}
	}
	var classRef func(q *zen.Package, cp, cn string) zen.ObjectIndex
	exportOf := func(q *zen.Package, rel string, on string, num int32) int {
		h := cityhash.PathHash(rel)
		for i, e := range q.Exports {
			if e.PublicExportHash == h {
				return i
			}
		}
		q.Exports = append(q.Exports, zen.Export{ObjectName: qname(q, on, num), Outer: zen.NullObject, Class: zen.NullObject,
			Super: zen.NullObject, Template: zen.NullObject, PublicExportHash: h})
		return len(q.Exports) - 1
	}
	classRef = func(q *zen.Package, cp, cn string) zen.ObjectIndex {
		if strings.HasPrefix(cp, "/Script/") {
			return scriptClass(cp, cn)
		}
		exportOf(stub(cp), lowerASCII(cn), cn, 0)
		k := -1
		for i, n := range q.ImportedPackages {
			if n.Name == cp {
				k = i
			}
		}
		if k < 0 {
			q.ImportedPackages = append(q.ImportedPackages, zen.PackageName{Name: cp})
			k = len(q.ImportedPackages) - 1
		}
		q.ImportedPublicExportHashes = append(q.ImportedPublicExportHashes, cityhash.PathHash(lowerASCII(cn)))
		return zen.PackageImportUE5(uint32(k), uint32(len(q.ImportedPublicExportHashes)-1))
	}
	for i, im := range a.Imports {
		ri := src.imports[i]
		on := a.Names[im.ObjectName.Index].Value
		cp, cn := a.NameOf(im.ClassPackage), a.NameOf(im.ClassName)
		switch {
		case ri.script:
			outer := zen.NullObject
			if im.OuterIndex.IsImport() {
				outer = zen.ObjectIndex(cityhash.ScriptImportIndex(src.imports[im.OuterIndex.Import()].fullName))
			}
			e := zen.ScriptObjectEntry{Name: name(on, im.ObjectName.Number), Index: zen.ObjectIndex(cityhash.ScriptImportIndex(ri.fullName)), Outer: outer, CDOClass: zen.NullObject}
			if strings.HasPrefix(on, "Default__") {
				e.CDOClass = scriptClass(cp, cn)
			}
			add(e)
			if cp == coreUObject && cn == "Class" {
				pkg := ri.fullName[:strings.LastIndexByte(ri.fullName, '/')]
				add(zen.ScriptObjectEntry{Name: name("Default__"+on, 0), Index: idx(pkg + "/default__" + lowerASCII(on)), Outer: outer, CDOClass: e.Index})
			}
		case ri.isPackage:
			q := stub(on)
			q.Name = qname(q, on, im.ObjectName.Number)
		default:
			pn := a.NameOf(ri.fromPackage)
			q := stub(pn)
			x := exportOf(q, ri.fullName[ri.fromLen+1:], on, im.ObjectName.Number)
			if o := im.OuterIndex; o.IsImport() && !src.imports[o.Import()].isPackage {
				q.Exports[x].Outer = zen.ExportObject(exportOf(q, src.imports[o.Import()].fullName[ri.fromLen+1:], a.Names[a.Imports[o.Import()].ObjectName.Index].Value, a.Imports[o.Import()].ObjectName.Number))
			}
			q.Exports[x].Class = classRef(q, cp, cn)
		}
	}
	so.Reindex()
	return &assetSource{script: so, pkgs: pkgs}
}

// TestToLegacyUE5Pairs converts the .uzenasset of every UE5 pair in
// other/ue5_cooked_pairs (5.4, 5.5, 5.6) back into a cooked asset. The
// corpus has not these games' global.utoc or containers: without them the
// conversion is refused, naming global.utoc; with the script objects and
// imported exports the engine's own asset names (assetSource), the result
// has the engine's name, import and export maps, header size and export
// data, and converts back into the .uzenasset byte for byte.
func TestToLegacyUE5Pairs(t *testing.T) {
	for _, pr := range pairs(t, "other/ue5_cooked_pairs") {
		t.Run(filepath.Base(pr.name), func(t *testing.T) {
			// The pair's file name says the release that cooked it.
			base := filepath.Base(pr.name)
			e, err := zen.ParseEngine(base[2:strings.IndexByte(base, '_')])
			if err != nil {
				t.Fatal(err)
			}
			want, err := uasset.Decode(pr.name, pr.uasset, pr.uexp, &uasset.Options{Release: uasset.Release{Major: e.Major, Minor: e.Minor}})
			if err != nil {
				t.Fatal(err)
			}
			p, err := zen.DecodePackage(pr.name, pr.zen, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ToLegacy(p, &LegacyOptions{Engine: e})
			var un *UnresolvedImportsError
			if !errors.As(err, &un) || !un.ScriptObjects || !strings.Contains(err.Error(), "global.utoc") {
				t.Errorf("without the game's files: %v", err)
			}
			t.Logf("without the game's files: %d of %d imports cannot be named", len(un.Imports), len(p.Imports))

			a, err := ToLegacy(p, &LegacyOptions{Engine: e, Imports: newAssetSource(t, want), FileName: filepath.Base(pr.name)})
			if err != nil {
				t.Fatal(err)
			}
			_, x, got := encodeLegacy(t, a)
			compareTables(t, want, got, true)
			if got.Summary.TotalHeaderSize != want.Summary.TotalHeaderSize {
				t.Errorf("TotalHeaderSize %d, engine %d", got.Summary.TotalHeaderSize, want.Summary.TotalHeaderSize)
			}
			if !bytes.Equal(x, pr.uexp) {
				t.Errorf(".uexp: %s", firstDiff(x, pr.uexp))
			}
			d := diffAssets(want, got)
			for _, hd := range d.Header {
				if hd.Field == "guid" {
					continue // the engine's package guid: the zen package has none
				}
				t.Errorf("header %s: engine %q, converted %q", hd.Field, hd.Old, hd.New)
			}
			if d.Rest != "" {
				t.Errorf("diff: %s", d.Rest)
			}
			if _, _, err := EncodeLegacyChecked(a, p); err != nil {
				t.Errorf("back to zen: %v", err)
			}
		})
	}
}
