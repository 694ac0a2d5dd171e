package uasset

import (
	"fmt"

	"github.com/unrmod/unrmod/ue"
)

// Problems checks everything the engine relies on that decoding does not
// already guarantee, and returns one Problem per inconsistency (none for an
// engine-written cooked asset): the summary's counts against the tables,
// the parsed tables in the engine's order and packed tightly, the
// generation counts; every name hash (a name map stored with zero hashes
// throughout is allowed: the UE 5.4 cook writes it so); every name
// reference and object reference of the imports, exports, depends map,
// preload dependencies and data resources in range, and the outer chains
// free of loops; every export's data after the header, in export-map
// order and tiling the export data exactly, with its script serialization
// offsets inside it; the .uexp ending with the package tag, and
// BulkDataStartOffset where that tag starts; the cooked package flags
// (PKG_FilterEditorOnly, and PKG_Cooked on UE5). Its cost is linear in the
// package's size, and it does not panic on any Package Decode returns.
//
// Properties are not read here: assetprops.Problems adds the check that
// each export's tagged properties decode and end where its
// ScriptSerializationEndOffset says.
func (p *Package) Problems() []ue.Problem {
	v := &verifier{p: p}
	v.summary()
	v.tableOrder()
	v.names()
	v.imports()
	v.exports()
	v.dependencies()
	v.data()
	return v.out
}

type verifier struct {
	p   *Package
	out []ue.Problem
}

func (v *verifier) add(structure string, off int64, format string, args ...any) {
	v.out = append(v.out, ue.Problem{Struct: structure, Offset: off, Msg: fmt.Sprintf(format, args...)})
}

// cooked reports whether the engine's cooker wrote the package: its export
// data lives in a .uexp (the editor writes single files).
func (v *verifier) cooked() bool { return v.p.Split }

func (v *verifier) summary() {
	p, s := v.p, &v.p.Summary
	const where = "package file summary"
	for _, c := range []struct {
		field string
		count int32
		n     int
	}{
		{"NameCount", s.NameCount, len(p.Names)},
		{"ImportCount", s.ImportCount, len(p.Imports)},
		{"ExportCount", s.ExportCount, len(p.Exports)},
	} {
		if int(c.count) != c.n {
			v.add(where, -1, "%s %d, the table has %d entries", c.field, c.count, c.n)
		}
	}
	if p.layout.UE4 >= ue4PreloadDependencies && s.PreloadDependencyCount != -1 && int(s.PreloadDependencyCount) != len(p.PreloadDependencies) {
		v.add(where, -1, "PreloadDependencyCount %d, the table has %d entries", s.PreloadDependencyCount, len(p.PreloadDependencies))
	}
	if p.layout.UE4 >= ue4SoftObjectPath && s.SoftPackageReferencesOffset != 0 && int(s.SoftPackageReferencesCount) != len(p.SoftPackageReferences) {
		v.add(where, -1, "SoftPackageReferencesCount %d, the table has %d entries", s.SoftPackageReferencesCount, len(p.SoftPackageReferences))
	}
	if p.DependsMap != nil && len(p.DependsMap) != len(p.Exports) {
		v.add("depends map", int64(s.DependsOffset), "%d lists for %d exports; there is one per export", len(p.DependsMap), len(p.Exports))
	}
	if p.layout.UE5 >= ue5NamesReferencedFromExportData && (s.NamesReferencedFromExportDataCount < 0 || int(s.NamesReferencedFromExportDataCount) > len(p.Names)) {
		v.add(where, -1, "NamesReferencedFromExportDataCount %d is not within the %d names", s.NamesReferencedFromExportDataCount, len(p.Names))
	}
	// The engine saves one generation per save; the last one records the
	// counts of this save.
	if n := len(s.Generations); n == 0 {
		v.add(where, -1, "no generation; the engine records one per save")
	} else if g := s.Generations[n-1]; int(g.ExportCount) != len(p.Exports) || int(g.NameCount) != len(p.Names) {
		v.add(where, -1, "generation %d records %d exports and %d names, the package has %d and %d", n-1, g.ExportCount, g.NameCount, len(p.Exports), len(p.Names))
	}
	if v.cooked() {
		if s.PackageFlags&PkgFilterEditorOnly == 0 {
			v.add(where, -1, "PackageFlags 0x%08X lack PKG_FilterEditorOnly (0x%08X), which every cook sets: the engine would read editor-only fields the file does not have", s.PackageFlags, PkgFilterEditorOnly)
		}
		if p.layout.legacy <= -8 && s.PackageFlags&PkgCooked == 0 {
			v.add(where, -1, "PackageFlags 0x%08X lack PKG_Cooked (0x%08X), which every UE5 cook sets", s.PackageFlags, PkgCooked)
		}
	}
	if len(p.HeaderTrailer) > 0 {
		v.add("header", int64(s.TotalHeaderSize), "%d bytes after TotalHeaderSize belong to no part of the header", len(p.HeaderTrailer))
	}
}

// tableOrder checks the tables the model holds: in the order the engine
// writes them (names, imports, exports, depends map, soft package
// references, preload dependencies, data resources), and each directly
// after the part before it.
func (v *verifier) tableOrder() {
	last := secKind(0)
	seen := false
	prevParsed := true
	for _, sec := range v.p.sections {
		k := sec.kind
		if k == secPreloadOpaque {
			k = secPreload
		}
		if k == numSecKinds {
			if prevParsed && len(sec.lead) > 0 && !allZero(sec.lead) {
				v.add("header", int64(v.p.Summary.TotalHeaderSize)-int64(len(sec.lead)), "%d bytes between the last table and TotalHeaderSize belong to no part of the header", len(sec.lead))
			}
			break
		}
		if k.parsed() {
			if seen && k < last {
				v.add(k.String(), v.offsetOf(sec.kind), "comes after the %s; the engine writes it before", last)
			}
			if prevParsed && len(sec.lead) > 0 {
				v.add(k.String(), v.offsetOf(sec.kind), "%d bytes between it and the part before it belong to no part of the header", len(sec.lead))
			}
			last, seen = k, true
		}
		prevParsed = k.parsed()
	}
}

func (v *verifier) offsetOf(k secKind) int64 {
	s := v.p.Summary
	f32, f64 := s.offsetField(k)
	switch {
	case f32 != nil:
		return int64(*f32)
	case f64 != nil:
		return *f64
	}
	return -1
}

func (v *verifier) names() {
	p := v.p
	if p.layout.UE4 < ue4NameHashes {
		return
	}
	if p.namesUnhashed() {
		return // a map saved without hashes: the engine recomputes them
	}
	for i, n := range p.Names {
		if x, y := NameHashes(n.Value); x != n.NonCaseHash || y != n.CaseHash {
			v.add(fmt.Sprintf("name %d %q", i, n.Value), -1, "stored hashes 0x%04X 0x%04X, the name hashes to 0x%04X 0x%04X", n.NonCaseHash, n.CaseHash, x, y)
		}
	}
}

// name checks one name reference.
func (v *verifier) name(where, field string, n NameRef) {
	if n.Index < 0 || int(n.Index) >= len(v.p.Names) || n.Number < 0 {
		v.add(where, -1, "%s (name %d, number %d): not one of the %d names", field, n.Index, n.Number, len(v.p.Names))
	}
}

// ref checks one object reference: null, an import or an export in range.
func (v *verifier) ref(where, field string, x PackageIndex, allowNull, allowExport bool) bool {
	p := v.p
	switch {
	case x == 0:
		if !allowNull {
			v.add(where, -1, "%s is null", field)
			return false
		}
	case x.IsImport():
		if int64(-int64(x))-1 >= int64(len(p.Imports)) {
			v.add(where, -1, "%s %d: import %d is not one of the %d imports", field, x, -int64(x)-1, len(p.Imports))
			return false
		}
	default:
		if !allowExport || int64(x)-1 >= int64(len(p.Exports)) {
			v.add(where, -1, "%s %d: export %d is not one of the %d exports", field, x, int64(x)-1, len(p.Exports))
			return false
		}
	}
	return true
}

func (v *verifier) importWhere(i int) string {
	return fmt.Sprintf("import %d %q", i, v.p.NameOf(v.p.Imports[i].ObjectName))
}

func (v *verifier) imports() {
	p := v.p
	for i, im := range p.Imports {
		where := v.importWhere(i)
		v.name(where, "ClassPackage", im.ClassPackage)
		v.name(where, "ClassName", im.ClassName)
		v.name(where, "ObjectName", im.ObjectName)
		if p.layout.importHasPackageName() && im.PackageName != (NameRef{}) {
			v.name(where, "PackageName", im.PackageName)
		}
		if v.ref(where, "OuterIndex", im.OuterIndex, true, true) && im.OuterIndex == PackageIndex(-(i+1)) {
			v.add(where, -1, "OuterIndex %d is the import itself", im.OuterIndex)
		}
	}
	v.outerLoops()
}

func (v *verifier) exports() {
	p := v.p
	for i, e := range p.Exports {
		where := p.exportLabel(i)
		v.name(where, "ObjectName", e.ObjectName)
		self := PackageIndex(i + 1)
		v.ref(where, "ClassIndex", e.ClassIndex, true, true)
		v.ref(where, "SuperIndex", e.SuperIndex, true, true)
		v.ref(where, "TemplateIndex", e.TemplateIndex, true, true)
		v.ref(where, "OuterIndex", e.OuterIndex, true, true)
		for _, f := range []struct {
			field string
			x     PackageIndex
		}{{"ClassIndex", e.ClassIndex}, {"SuperIndex", e.SuperIndex}, {"OuterIndex", e.OuterIndex}} {
			if f.x == self {
				v.add(where, -1, "%s %d is the export itself", f.field, f.x)
			}
		}
	}
}

// outerLoops reports every object whose outer chain comes back to itself,
// once per loop, in time linear in the number of objects.
func (v *verifier) outerLoops() {
	p := v.p
	ni, ne := len(p.Imports), len(p.Exports)
	state := make([]uint8, ni+ne) // 0 unvisited, 1 on the current chain, 2 done
	slot := func(x PackageIndex) int {
		switch {
		case x.IsImport() && x.Import() < ni:
			return x.Import()
		case x.IsExport() && x.Export() < ne:
			return ni + x.Export()
		}
		return -1
	}
	outer := func(k int) PackageIndex {
		if k < ni {
			return p.Imports[k].OuterIndex
		}
		return p.Exports[k-ni].OuterIndex
	}
	var chain []int
	for start := range state {
		chain = chain[:0]
		k := start
		for k >= 0 && state[k] == 0 {
			state[k] = 1
			chain = append(chain, k)
			k = slot(outer(k))
		}
		if k >= 0 && state[k] == 1 && outer(k) != indexOfSlot(k, ni) {
			var where string
			if k < ni {
				where = v.importWhere(k)
			} else {
				where = p.exportLabel(k - ni)
			}
			v.add(where, -1, "its outer chain comes back to it; the engine follows outers to the package")
		}
		for _, c := range chain {
			state[c] = 2
		}
	}
}

// indexOfSlot is the package index of slot k (imports first).
func indexOfSlot(k, ni int) PackageIndex {
	if k < ni {
		return PackageIndex(-(k + 1))
	}
	return PackageIndex(k - ni + 1)
}

func (v *verifier) dependencies() {
	p := v.p
	for i, d := range p.DependsMap {
		for j, x := range d {
			v.ref(fmt.Sprintf("depends map list %d entry %d", i, j), "index", x, false, true)
		}
	}
	for j, x := range p.PreloadDependencies {
		v.ref(fmt.Sprintf("preload dependency %d", j), "index", x, false, true)
	}
	for _, x := range p.SoftPackageReferences {
		v.name("soft package references", "package name", x)
	}
	if p.layout.UE4 >= ue4PreloadDependencies {
		n := int64(len(p.PreloadDependencies))
		for i, e := range p.Exports {
			counts := []int32{e.SerializationBeforeSerializationDependencies, e.CreateBeforeSerializationDependencies,
				e.SerializationBeforeCreateDependencies, e.CreateBeforeCreateDependencies}
			total := int64(0)
			neg := false
			for _, c := range counts {
				total += int64(c)
				neg = neg || c < 0
			}
			switch {
			case e.FirstExportDependency == -1 && total == 0 && !neg:
			case e.FirstExportDependency < 0 || neg || int64(e.FirstExportDependency)+total > n:
				v.add(p.exportLabel(i), -1, "preload dependencies %d..%d (counts %d %d %d %d) lie outside the %d preload dependencies",
					e.FirstExportDependency, int64(e.FirstExportDependency)+total, counts[0], counts[1], counts[2], counts[3], n)
			}
		}
	}
	for k, d := range p.DataResources {
		where := fmt.Sprintf("data resource %d", k)
		v.ref(where, "OuterIndex", d.OuterIndex, false, true)
		if d.OuterIndex.IsImport() {
			v.add(where, -1, "OuterIndex %d is an import; a data resource belongs to an export", d.OuterIndex)
		}
		if d.SerialSize < 0 || d.RawSize < 0 || d.SerialOffset < -1 || d.DuplicateSerialOffset < -1 {
			v.add(where, -1, "SerialOffset %d, DuplicateSerialOffset %d, SerialSize %d, RawSize %d: negative", d.SerialOffset, d.DuplicateSerialOffset, d.SerialSize, d.RawSize)
		}
	}
}

// data checks the export data: tiled by the exports in export-map order,
// ending with the package tag, BulkDataStartOffset at that tag, and the
// script serialization offsets inside each export.
func (v *verifier) data() {
	p, s := v.p, &v.p.Summary
	hs := int64(s.TotalHeaderSize)
	for k, i := range p.order {
		if k != i {
			v.add(p.exportLabel(i), p.Exports[i].SerialOffset, "data is the %d. in the export data; the engine writes each export's data in export-map order", k+1)
			break
		}
	}
	pos := hs
	for _, i := range p.order {
		e := &p.Exports[i]
		if int64(len(e.lead)) > 0 {
			v.add(p.exportLabel(i), pos, "%d bytes before the export's data belong to no export", len(e.lead))
		}
		if e.SerialSize != int64(p.dataLen(i)) {
			v.add(p.exportLabel(i), e.SerialOffset, "SerialSize %d, the data holds %d bytes", e.SerialSize, p.dataLen(i))
		}
		pos += int64(len(e.lead) + p.dataLen(i))
		if p.layout.UE5 >= ue5ScriptSerializationOffset && !p.layout.unversionedProps {
			if a, b := e.ScriptSerializationStartOffset, e.ScriptSerializationEndOffset; a < 0 || a > b || b > e.SerialSize {
				v.add(p.exportLabel(i), -1, "script serialization %d..%d is not inside the export's %d bytes", a, b, e.SerialSize)
			}
		}
	}
	exportsEnd := pos
	if !p.HasTailTag() {
		v.add("export data", exportsEnd, "does not end with the package tag 0x%08X, which the engine checks", Tag)
	} else if extra := len(p.ExportTrailer) - 4; extra > 0 && v.cooked() {
		v.add("export data", exportsEnd, "%d bytes after the last export's data belong to no export", extra)
	}
	if v.cooked() && p.HasTailTag() {
		tag := hs + int64(p.areaLen) - 4
		if s.BulkDataStartOffset != tag {
			v.add("package file summary", -1, "BulkDataStartOffset 0x%X, the package tag that ends the export data is at 0x%X", s.BulkDataStartOffset, tag)
		}
	} else if end := hs + int64(p.areaLen); s.BulkDataStartOffset < 0 || s.BulkDataStartOffset > end {
		v.add("package file summary", -1, "BulkDataStartOffset 0x%X is outside the file (0x0..0x%X)", s.BulkDataStartOffset, end)
	}
}
