package patch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/unrmod/unrmod/reader"
)

// Kinds of difference in a PackageDiff.
const (
	DiffAdded   = "added"   // only in the new package
	DiffRemoved = "removed" // only in the old package
	DiffChanged = "changed" // in both, with different content
	DiffRenamed = "renamed" // a name whose text changed at the same index
	DiffFlags   = "flags"   // a name whose flags changed
	DiffMoved   = "moved"   // an export whose data only moved (rebased lazy-array offsets)
)

// What ExportDiff.Data says about an export's data.
const (
	// DataMoved: the data differs only in lazy-array SeekPos values, rebased
	// consistently because the data moved in the file.
	DataMoved = "moved"
	// DataNative: the bytes outside the property list (the state frame and
	// the class's native data) differ.
	DataNative = "native"
	// DataReencoded: the bytes differ but every decoded value is the same
	// (for example name or object indices renumbered).
	DataReencoded = "re-encoded"
	// DataDiffers: the data differs where unrmod does not decode it (a class
	// export, or a property list that does not parse).
	DataDiffers = "differs"
)

// PackageDiff is the semantic difference between an old package A and a new
// package B. Names and references are compared by what they resolve to in
// their own package, so renumbering alone is not a difference. Export paths
// are compared without the package name, so packages saved under different
// file names still match.
type PackageDiff struct {
	A       string       `json:"a"` // file name of the old package
	B       string       `json:"b"` // file name of the new package
	Header  []HeaderDiff `json:"header"`
	Names   []NameDiff   `json:"names"`
	Imports []ImportDiff `json:"imports"`
	Exports []ExportDiff `json:"exports"`
}

// HeaderDiff is one changed header field: "version", "flags", "guid",
// "generations[N]" (file version >= 68) or "heritage[N]" (before). An empty
// Old or New means the entry is absent on that side.
type HeaderDiff struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// NameDiff is one name table difference. Change is DiffAdded, DiffRemoved,
// DiffRenamed (same index, text changed, neither text in the other table)
// or DiffFlags. Names that only changed index are not differences.
type NameDiff struct {
	Change   string `json:"change"`
	OldIndex int    `json:"old_index"` // -1 when added
	NewIndex int    `json:"new_index"` // -1 when removed
	Old      string `json:"old,omitempty"`
	New      string `json:"new,omitempty"`
	OldFlags string `json:"old_flags,omitempty"` // DiffFlags only
	NewFlags string `json:"new_flags,omitempty"`
}

// ImportDiff is one import table difference, matched by the import's path.
// Change is DiffAdded, DiffRemoved or DiffChanged (its class changed); the
// class is written ClassPackage.ClassName.
type ImportDiff struct {
	Change   string `json:"change"`
	Path     string `json:"path"`
	OldClass string `json:"old_class,omitempty"`
	NewClass string `json:"new_class,omitempty"`
}

// ExportDiff is one export difference. Exports are matched by path (and by
// class where a path repeats). Change is DiffAdded, DiffRemoved, DiffMoved
// (the data only moved) or DiffChanged.
type ExportDiff struct {
	Change   string `json:"change"`
	Path     string `json:"path"`  // the full path in A (in B when added)
	Class    string `json:"class"` // the class name in A (in B when added)
	OldIndex int    `json:"old_index"`
	NewIndex int    `json:"new_index"`
	// Fields are changed table fields: "class", "super", "flags".
	Fields []FieldDiff `json:"fields,omitempty"`
	// Size, position and xxh3-64 of the data on each side (one side only
	// for added and removed exports; set when the data differs).
	OldSize   int    `json:"old_size"`
	NewSize   int    `json:"new_size"`
	OldOffset int32  `json:"old_offset"`
	NewOffset int32  `json:"new_offset"`
	OldXXH3   string `json:"old_xxh3,omitempty"`
	NewXXH3   string `json:"new_xxh3,omitempty"`
	// Properties are the changed tagged properties.
	Properties []PropertyDiff `json:"properties,omitempty"`
	// Data says how the data differs beyond Properties: "" (it does not),
	// DataMoved, DataNative, DataReencoded or DataDiffers.
	Data string `json:"data,omitempty"`
	// NativeOldSize and NativeNewSize are the sizes of the data outside the
	// property list when Data is DataNative.
	NativeOldSize int `json:"native_old_size,omitempty"`
	NativeNewSize int `json:"native_new_size,omitempty"`
	// Detail explains DataDiffers: why the data could not be compared value by value.
	Detail string `json:"detail,omitempty"`
}

// FieldDiff is one changed field.
type FieldDiff struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// PropertyDiff is one tagged property difference, matched by name (as the
// engine does, ignoring case) and array index. Values are formatted with
// reader.Package.FormatValue in their own package.
type PropertyDiff struct {
	Change  string `json:"change"`        // DiffAdded, DiffRemoved or DiffChanged
	Row     string `json:"row,omitempty"` // a DataTable row (zen packages); Name "(row)" for a row added or removed
	Name    string `json:"name"`
	Index   int    `json:"index"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	OldType string `json:"old_type,omitempty"`
	NewType string `json:"new_type,omitempty"`
}

// Empty reports whether the packages have no differences.
func (d *PackageDiff) Empty() bool {
	return len(d.Header) == 0 && len(d.Names) == 0 && len(d.Imports) == 0 && len(d.Exports) == 0
}

// Diff compares package a (old) with package b (new).
func Diff(a, b *reader.Package) *PackageDiff {
	d := &PackageDiff{A: a.FileName, B: b.FileName,
		Header: []HeaderDiff{}, Names: []NameDiff{}, Imports: []ImportDiff{}, Exports: []ExportDiff{}}
	d.Header = diffHeader(a, b)
	d.Names = diffNames(a, b)
	d.Imports = diffImports(a, b)
	d.Exports = diffExports(a, b)
	return d
}

// ---- header ----

func diffHeader(a, b *reader.Package) []HeaderDiff {
	out := []HeaderDiff{}
	add := func(field, old, new string) {
		if old != new {
			out = append(out, HeaderDiff{Field: field, Old: old, New: new})
		}
	}
	ha, hb := &a.Header, &b.Header
	add("version", ha.Version.String(), hb.Version.String())
	add("flags", diffFlagText(ha.Flags.Names()), diffFlagText(hb.Flags.Names()))
	add("guid", a.GUID().String(), b.GUID().String())
	gen := func(g []reader.Generation, k int) string {
		if k >= len(g) {
			return ""
		}
		return fmt.Sprintf("%d exports, %d names", g[k].ExportCount, g[k].NameCount)
	}
	for k := 0; k < max(len(ha.Generations), len(hb.Generations)); k++ {
		add(fmt.Sprintf("generations[%d]", k), gen(ha.Generations, k), gen(hb.Generations, k))
	}
	her := func(g []reader.GUID, k int) string {
		if k >= len(g) {
			return ""
		}
		return g[k].String()
	}
	for k := 0; k < max(len(ha.Heritage), len(hb.Heritage)); k++ {
		add(fmt.Sprintf("heritage[%d]", k), her(ha.Heritage, k), her(hb.Heritage, k))
	}
	return out
}

// diffFlagText joins flag names, or says "none".
func diffFlagText(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// ---- names ----

func diffNames(a, b *reader.Package) []NameDiff {
	text := func(p *reader.Package) []string {
		out := make([]string, len(p.Names))
		for i, n := range p.Names {
			out[i] = n.Name
		}
		return out
	}
	flags := func(p *reader.Package) func(int) string {
		return func(i int) string { return diffFlagText(p.Names[i].Flags.Names()) }
	}
	return diffNameLists(text(a), text(b), flags(a), flags(b))
}

// diffNameLists compares two name tables; flagsA and flagsB give a name's
// flags as text, or are nil for tables without flags.
func diffNameLists(a, b []string, flagsA, flagsB func(int) string) []NameDiff {
	out := []NameDiff{}
	inA := map[string][]int{}
	inB := map[string][]int{}
	for i, n := range a {
		inA[n] = append(inA[n], i)
	}
	for i, n := range b {
		inB[n] = append(inB[n], i)
	}
	doneA := make([]bool, len(a))
	doneB := make([]bool, len(b))
	flags := func(i, j int) {
		if flagsA == nil {
			return
		}
		if fa, fb := flagsA(i), flagsB(j); fa != fb {
			out = append(out, NameDiff{Change: DiffFlags, OldIndex: i, NewIndex: j, Old: a[i], New: b[j], OldFlags: fa, NewFlags: fb})
		}
	}
	// A name whose text changed in place, to a text the old table lacks, is
	// a rename.
	for i := 0; i < min(len(a), len(b)); i++ {
		na, nb := a[i], b[i]
		if na != nb && len(inB[na]) == 0 && len(inA[nb]) == 0 {
			out = append(out, NameDiff{Change: DiffRenamed, OldIndex: i, NewIndex: i, Old: na, New: nb})
			flags(i, i)
			doneA[i], doneB[i] = true, true
		}
	}
	// Other names pair by text, occurrence by occurrence.
	next := map[string]int{}
	for i, n := range a {
		if doneA[i] {
			continue
		}
		js := inB[n]
		k := next[n]
		for k < len(js) && doneB[js[k]] {
			k++
		}
		if k < len(js) {
			doneB[js[k]] = true
			next[n] = k + 1
			flags(i, js[k])
			continue
		}
		next[n] = k
		out = append(out, NameDiff{Change: DiffRemoved, OldIndex: i, NewIndex: -1, Old: n})
	}
	for j, n := range b {
		if !doneB[j] {
			out = append(out, NameDiff{Change: DiffAdded, OldIndex: -1, NewIndex: j, New: n})
		}
	}
	sort.SliceStable(out, func(x, y int) bool { return nameOrder(out[x]) < nameOrder(out[y]) })
	return out
}

// nameOrder sorts name differences by index, the added ones by their new index.
func nameOrder(n NameDiff) int {
	if n.Change == DiffAdded {
		return n.NewIndex
	}
	return n.OldIndex
}

// ---- imports ----

func diffImportClass(p *reader.Package, i int) string {
	return p.NameOf(p.Imports[i].ClassPackage) + "." + p.NameOf(p.Imports[i].ClassName)
}

func diffImports(a, b *reader.Package) []ImportDiff {
	out := []ImportDiff{}
	key := func(p *reader.Package) func(i int) string {
		return func(i int) string { return p.Path(reader.ImportRef(i)) }
	}
	class := func(p *reader.Package) func(i int) string {
		return func(i int) string { return diffImportClass(p, i) }
	}
	pairs, onlyA, onlyB := diffMatch(len(a.Imports), len(b.Imports), key(a), key(b), class(a), class(b))
	for _, pr := range pairs {
		if ca, cb := diffImportClass(a, pr[0]), diffImportClass(b, pr[1]); ca != cb {
			out = append(out, ImportDiff{Change: DiffChanged, Path: a.Path(reader.ImportRef(pr[0])), OldClass: ca, NewClass: cb})
		}
	}
	for _, i := range onlyA {
		out = append(out, ImportDiff{Change: DiffRemoved, Path: a.Path(reader.ImportRef(i)), OldClass: diffImportClass(a, i)})
	}
	for _, j := range onlyB {
		out = append(out, ImportDiff{Change: DiffAdded, Path: b.Path(reader.ImportRef(j)), NewClass: diffImportClass(b, j)})
	}
	return out
}

// diffMatch pairs the items of two tables that have the same key: in each
// group of equal keys, first those with the same class (in table order),
// then the rest in order. It returns the pairs in A's order and the indices
// left unpaired on each side.
func diffMatch(na, nb int, keyA, keyB, classA, classB func(int) string) (pairs [][2]int, onlyA, onlyB []int) {
	groupB := map[string][]int{}
	for j := 0; j < nb; j++ {
		k := keyB(j)
		groupB[k] = append(groupB[k], j)
	}
	groupA := map[string][]int{}
	for i := 0; i < na; i++ {
		k := keyA(i)
		groupA[k] = append(groupA[k], i)
	}
	partner := make([]int, na)
	for i := range partner {
		partner[i] = -1
	}
	usedB := make([]bool, nb)
	for k, is := range groupA {
		js := groupB[k]
		for _, i := range is {
			for _, j := range js {
				if !usedB[j] && classA(i) == classB(j) {
					partner[i], usedB[j] = j, true
					break
				}
			}
		}
		for _, i := range is {
			if partner[i] >= 0 {
				continue
			}
			for _, j := range js {
				if !usedB[j] {
					partner[i], usedB[j] = j, true
					break
				}
			}
		}
	}
	for i, j := range partner {
		if j >= 0 {
			pairs = append(pairs, [2]int{i, j})
		} else {
			onlyA = append(onlyA, i)
		}
	}
	for j, used := range usedB {
		if !used {
			onlyB = append(onlyB, j)
		}
	}
	return pairs, onlyA, onlyB
}

// ---- exports ----

// diffRelPath returns the path of export i without the package name.
func diffRelPath(p *reader.Package, i int) string {
	return strings.TrimPrefix(p.ExportPath(i), p.Name+".")
}

// diffObjectKey identifies what r refers to independently of table indices
// and of the package's own name.
func diffObjectKey(p *reader.Package, r reader.ObjectRef) string {
	if i, ok := r.Export(); ok && i < len(p.Exports) {
		return "export " + p.ClassName(i) + "'" + diffRelPath(p, i) + "'"
	}
	if i, ok := r.Import(); ok && i < len(p.Imports) {
		return "import " + diffImportClass(p, i) + "'" + p.Path(r) + "'"
	}
	if r == 0 {
		return "None"
	}
	return fmt.Sprintf("bad %d", r)
}

// diffObjectText shows a reference for a field difference.
func diffObjectText(p *reader.Package, r reader.ObjectRef) string {
	if r == 0 {
		return "None"
	}
	return p.Path(r)
}

func diffExports(a, b *reader.Package) []ExportDiff {
	out := []ExportDiff{}
	class := func(p *reader.Package) func(int) string {
		return func(i int) string {
			if p.Exports[i].Class == 0 {
				return "Class"
			}
			return diffObjectKey(p, p.Exports[i].Class)
		}
	}
	key := func(p *reader.Package) func(int) string { return func(i int) string { return diffRelPath(p, i) } }
	pairs, onlyA, onlyB := diffMatch(len(a.Exports), len(b.Exports), key(a), key(b), class(a), class(b))
	byA := map[int]ExportDiff{}
	for _, pr := range pairs {
		if d, ok := diffExport(a, pr[0], b, pr[1]); ok {
			byA[pr[0]] = d
		}
	}
	for _, i := range onlyA {
		e := &a.Exports[i]
		byA[i] = ExportDiff{Change: DiffRemoved, Path: a.ExportPath(i), Class: a.ClassName(i), OldIndex: i, NewIndex: -1,
			OldSize: len(e.Data), OldOffset: e.SerialOffset, OldXXH3: diffHash(e.Data)}
	}
	for i := range a.Exports {
		if d, ok := byA[i]; ok {
			out = append(out, d)
		}
	}
	for _, j := range onlyB {
		e := &b.Exports[j]
		out = append(out, ExportDiff{Change: DiffAdded, Path: b.ExportPath(j), Class: b.ClassName(j), OldIndex: -1, NewIndex: j,
			NewSize: len(e.Data), NewOffset: e.SerialOffset, NewXXH3: diffHash(e.Data)})
	}
	return out
}

func diffHash(b []byte) string { return fmt.Sprintf("0x%016x", xxh3.Hash(b)) }

// diffExport compares matched exports a[i] and b[j]; ok is false when they
// do not differ.
func diffExport(a *reader.Package, i int, b *reader.Package, j int) (ExportDiff, bool) {
	ea, eb := &a.Exports[i], &b.Exports[j]
	d := ExportDiff{Change: DiffChanged, Path: a.ExportPath(i), Class: a.ClassName(i), OldIndex: i, NewIndex: j,
		OldSize: len(ea.Data), NewSize: len(eb.Data), OldOffset: ea.SerialOffset, NewOffset: eb.SerialOffset}
	field := func(name, old, new string) {
		if old != new {
			d.Fields = append(d.Fields, FieldDiff{Field: name, Old: old, New: new})
		}
	}
	if ka, kb := diffObjectKey(a, ea.Class), diffObjectKey(b, eb.Class); ka != kb {
		d.Fields = append(d.Fields, FieldDiff{Field: "class", Old: diffObjectText(a, ea.Class), New: diffObjectText(b, eb.Class)})
	}
	if ka, kb := diffObjectKey(a, ea.Super), diffObjectKey(b, eb.Super); ka != kb {
		d.Fields = append(d.Fields, FieldDiff{Field: "super", Old: diffObjectText(a, ea.Super), New: diffObjectText(b, eb.Super)})
	}
	field("flags", diffFlagText(ea.Flags.Names()), diffFlagText(eb.Flags.Names()))
	if !bytes.Equal(ea.Data, eb.Data) {
		d.OldXXH3, d.NewXXH3 = diffHash(ea.Data), diffHash(eb.Data)
		diffData(a, i, b, j, &d)
	}
	if len(d.Fields) == 0 && len(d.Properties) == 0 && d.Data == "" && d.OldXXH3 == d.NewXXH3 {
		return d, false
	}
	if len(d.Fields) == 0 && len(d.Properties) == 0 && d.Data == DataMoved {
		d.Change = DiffMoved
	}
	return d, true
}

// diffSide is one export's data split for comparison: the property list,
// the rest (state frame and native data) and the lazy arrays whose SeekPos
// values may differ when the data moved.
type diffSide struct {
	p      *reader.Package
	i      int
	data   []byte
	props  *reader.PropertyList // nil when there is none or it does not parse
	err    error                // why props is nil for a non-class export
	rest   []byte               // the data outside the property list (all of it without one)
	lazies []reader.LazyArray   // lazy arrays with a SeekPos; nil when the native data does not parse
}

func newDiffSide(p *reader.Package, i int) *diffSide {
	s := &diffSide{p: p, i: i, data: p.Exports[i].Data}
	nl, err := p.Native(i)
	s.props = nl.Props
	if nl.Props == nil && p.Exports[i].Class != 0 {
		s.err = err
	}
	if p.Exports[i].Class == 0 {
		// A class's default properties end its data (after the script,
		// which is compared as bytes with the rest).
		if l, derr := p.ClassDefaults(i); derr == nil {
			s.props = l
		}
	}
	s.rest = s.data
	if s.props != nil {
		s.rest = append(append([]byte{}, s.data[:s.props.Start]...), s.data[s.props.End:]...)
	}
	if err == nil {
		s.lazies = []reader.LazyArray{}
		for _, la := range nl.Lazy {
			if la.SeekPosAt >= 0 {
				s.lazies = append(s.lazies, la)
			}
		}
	}
	return s
}

// seekAt returns where la's SeekPos sits in the data (inRest false) or in
// the rest (inRest true); lazy arrays always follow the property list.
func (s *diffSide) seekAt(la reader.LazyArray, inRest bool) int {
	if inRest && s.props != nil && la.SeekPosAt >= s.props.End {
		return la.SeekPosAt - (s.props.End - s.props.Start)
	}
	return la.SeekPosAt
}

// diffMovedOnly reports whether the two exports' data (or rests) differ
// only in lazy-array SeekPos values that point the same distance past their
// array's end (just past it, when the offsets are consistent), as when
// the data moved in the file and its offsets were rebased.
func diffMovedOnly(a, b *diffSide, inRest bool) bool {
	ra, rb := a.data, b.data
	if inRest {
		ra, rb = a.rest, b.rest
	}
	if a.lazies == nil || b.lazies == nil || len(a.lazies) != len(b.lazies) || len(a.lazies) == 0 || len(ra) != len(rb) {
		return false
	}
	ma, mb := append([]byte{}, ra...), append([]byte{}, rb...)
	offA, offB := int64(a.p.Exports[a.i].SerialOffset), int64(b.p.Exports[b.i].SerialOffset)
	for k := range a.lazies {
		la, lb := a.lazies[k], b.lazies[k]
		at, bt := a.seekAt(la, inRest), b.seekAt(lb, inRest)
		if at != bt || at < 0 || at+4 > len(ma) {
			return false
		}
		// The distance from the array's end, counted in the export's data.
		if int64(la.SeekPos)-offA-int64(la.End) != int64(lb.SeekPos)-offB-int64(lb.End) {
			return false
		}
		binary.LittleEndian.PutUint32(ma[at:], 0)
		binary.LittleEndian.PutUint32(mb[bt:], 0)
	}
	return bytes.Equal(ma, mb)
}

// diffData explains why two exports' data differ.
func diffData(a *reader.Package, i int, b *reader.Package, j int, d *ExportDiff) {
	sa, sb := newDiffSide(a, i), newDiffSide(b, j)
	if sa.props == nil || sb.props == nil {
		// No property lists to compare: the data is one block.
		if diffMovedOnly(sa, sb, false) {
			d.Data = DataMoved
			return
		}
		d.Data = DataDiffers
		var why []string
		for _, s := range []*diffSide{sa, sb} {
			if s.err != nil {
				why = append(why, s.err.Error())
			}
		}
		if len(why) == 0 && (a.Exports[i].Class == 0 || b.Exports[j].Class == 0) {
			why = append(why, "class data is not decoded")
		}
		d.Detail = strings.Join(why, "; ")
		return
	}
	d.Properties = diffProperties(sa, sb)
	restSame := bytes.Equal(sa.rest, sb.rest)
	moved := !restSame && diffMovedOnly(sa, sb, true)
	propBytesSame := bytes.Equal(sa.data[sa.props.Start:sa.props.End], sb.data[sb.props.Start:sb.props.End])
	switch {
	case !restSame && !moved:
		d.Data = DataNative
		d.NativeOldSize, d.NativeNewSize = len(sa.rest), len(sb.rest)
	case len(d.Properties) > 0:
		// The property changes explain the difference.
	case propBytesSame && moved:
		d.Data = DataMoved
	default:
		d.Data = DataReencoded
	}
}

// diffProp is one decoded property for comparison.
type diffProp struct {
	q    *reader.Property
	v    reader.Value
	err  error
	text string
}

func diffPropKey(p *reader.Package, q *reader.Property) string {
	return fmt.Sprintf("%s[%d]", strings.ToLower(p.NameOf(q.Name)), q.ArrayIndex)
}

func diffDecode(s *diffSide, q *reader.Property) diffProp {
	v, err := s.p.PropertyValue(s.i, q)
	dp := diffProp{q: q, v: v, err: err}
	if err != nil {
		dp.text = "<unreadable: " + err.Error() + ">"
	} else {
		dp.text = s.p.FormatValue(v)
	}
	return dp
}

// diffSameValue compares two decoded values, each in its own package.
func diffSameValue(sa *diffSide, x diffProp, sb *diffSide, y diffProp) bool {
	if x.q.Type != y.q.Type {
		return false
	}
	if x.err != nil || y.err != nil {
		return x.err != nil && y.err != nil && bytes.Equal(x.q.Value(sa.data), y.q.Value(sb.data))
	}
	va, vb := x.v, y.v
	switch va.Type {
	case reader.PropByte:
		return va.Byte == vb.Byte
	case reader.PropInt:
		return va.Int == vb.Int
	case reader.PropBool:
		return va.Bool == vb.Bool
	case reader.PropFloat:
		return math.Float32bits(va.Float) == math.Float32bits(vb.Float)
	case reader.PropName:
		return sa.p.NameOf(va.Name) == sb.p.NameOf(vb.Name)
	case reader.PropObject:
		return diffObjectKey(sa.p, va.Object) == diffObjectKey(sb.p, vb.Object)
	case reader.PropStr:
		return va.Str == vb.Str
	case reader.PropStruct:
		if !strings.EqualFold(sa.p.NameOf(va.StructName), sb.p.NameOf(vb.StructName)) {
			return false
		}
	}
	return bytes.Equal(va.Raw, vb.Raw)
}

func diffProperties(sa, sb *diffSide) []PropertyDiff {
	var out []PropertyDiff
	inB := map[string][]int{}
	for k := range sb.props.Props {
		key := diffPropKey(sb.p, &sb.props.Props[k])
		inB[key] = append(inB[key], k)
	}
	usedB := make([]bool, len(sb.props.Props))
	label := func(p *reader.Package, q *reader.Property) (string, int) { return p.NameOf(q.Name), q.ArrayIndex }
	for k := range sa.props.Props {
		qa := &sa.props.Props[k]
		key := diffPropKey(sa.p, qa)
		x := diffDecode(sa, qa)
		name, idx := label(sa.p, qa)
		js := inB[key]
		if len(js) == 0 {
			out = append(out, PropertyDiff{Change: DiffRemoved, Name: name, Index: idx, Old: x.text, OldType: qa.Type.String()})
			continue
		}
		inB[key] = js[1:]
		usedB[js[0]] = true
		qb := &sb.props.Props[js[0]]
		y := diffDecode(sb, qb)
		if diffSameValue(sa, x, sb, y) {
			continue
		}
		pd := PropertyDiff{Change: DiffChanged, Name: name, Index: idx, Old: x.text, New: y.text,
			OldType: qa.Type.String(), NewType: qb.Type.String()}
		if pd.Old == pd.New && pd.OldType == pd.NewType {
			// Truncated hex or a struct name differing only in case: tell
			// the values apart.
			pd.Old += " (xxh3 " + diffHash(qa.Value(sa.data)) + ")"
			pd.New += " (xxh3 " + diffHash(qb.Value(sb.data)) + ")"
		}
		out = append(out, pd)
	}
	for k := range sb.props.Props {
		if usedB[k] {
			continue
		}
		qb := &sb.props.Props[k]
		name, idx := label(sb.p, qb)
		out = append(out, PropertyDiff{Change: DiffAdded, Name: name, Index: idx, New: diffDecode(sb, qb).text, NewType: qb.Type.String()})
	}
	return out
}

// ---- text ----

// Lines returns the human form of the difference, one line per difference:
//
//	header: flags AllowDownload → AllowDownload|ServerSideOnly
//	name 12: runeSgn2 → runeSgn3
//	import Botpack.CTFGame added: Core.Class
//	export CTF-Face.LevelInfo0: property Title: "Facing Worlds" → "Facing Worlds II"
//	export CTF-Face.Skins.Red: native data differs (1034 bytes → 1034 bytes)
//
// It is empty when the packages do not differ.
func (d *PackageDiff) Lines() []string {
	var out []string
	line := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	orNone := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	for _, h := range d.Header {
		field := h.Field
		if field == "guid" {
			field = "GUID"
		}
		line("header: %s %s → %s", field, orNone(h.Old), orNone(h.New))
	}
	for _, n := range d.Names {
		switch n.Change {
		case DiffRenamed:
			line("name %d: %s → %s", n.OldIndex, n.Old, n.New)
		case DiffAdded:
			line("name %d added: %s", n.NewIndex, n.New)
		case DiffRemoved:
			line("name %d removed: %s", n.OldIndex, n.Old)
		case DiffFlags:
			at := fmt.Sprint(n.OldIndex)
			if n.NewIndex != n.OldIndex {
				at = fmt.Sprintf("%d (now %d)", n.OldIndex, n.NewIndex)
			}
			line("name %s %s: flags %s → %s", at, n.New, n.OldFlags, n.NewFlags)
		}
	}
	for _, im := range d.Imports {
		switch im.Change {
		case DiffAdded:
			line("import %s added: %s", im.Path, im.NewClass)
		case DiffRemoved:
			line("import %s removed: %s", im.Path, im.OldClass)
		default:
			line("import %s: class %s → %s", im.Path, im.OldClass, im.NewClass)
		}
	}
	for _, e := range d.Exports {
		switch e.Change {
		case DiffAdded:
			line("export %s added: %s, %d bytes", e.Path, e.Class, e.NewSize)
			continue
		case DiffRemoved:
			line("export %s removed: %s, %d bytes", e.Path, e.Class, e.OldSize)
			continue
		}
		for _, f := range e.Fields {
			line("export %s: %s %s → %s", e.Path, f.Field, f.Old, f.New)
		}
		for _, p := range e.Properties {
			name := p.Name
			if p.Index != 0 {
				name = fmt.Sprintf("%s[%d]", p.Name, p.Index)
			}
			if p.Row != "" {
				name = fmt.Sprintf("%s of row %s", name, p.Row)
				if p.Name == "(row)" {
					name = "row " + p.Row
				}
			}
			old, new := p.Old, p.New
			if p.OldType != p.NewType && p.Change == DiffChanged {
				old, new = old+" ("+p.OldType+")", new+" ("+p.NewType+")"
			}
			switch p.Change {
			case DiffAdded:
				line("export %s: property %s added: %s", e.Path, name, new)
			case DiffRemoved:
				line("export %s: property %s removed: %s", e.Path, name, old)
			default:
				line("export %s: property %s: %s → %s", e.Path, name, old, new)
			}
		}
		switch e.Data {
		case DataMoved:
			line("export %s: moved only (data at 0x%X → 0x%X, lazy-array offsets rebased)", e.Path, e.OldOffset, e.NewOffset)
		case DataNative:
			line("export %s: native data differs (%d bytes → %d bytes)", e.Path, e.NativeOldSize, e.NativeNewSize)
		case DataReencoded:
			line("export %s: re-encoded, same values (%d bytes → %d bytes)", e.Path, e.OldSize, e.NewSize)
		case DataDiffers:
			s := fmt.Sprintf("export %s: data differs (%d bytes %s → %d bytes %s)", e.Path, e.OldSize, e.OldXXH3, e.NewSize, e.NewXXH3)
			if e.Detail != "" {
				s += ": " + e.Detail
			}
			out = append(out, s)
		}
	}
	return out
}

// Format writes Lines, one per line; it writes nothing when the packages do
// not differ.
func (d *PackageDiff) Format(w io.Writer) error {
	var b strings.Builder
	for _, l := range d.Lines() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String returns the human form (see Lines).
func (d *PackageDiff) String() string {
	var b strings.Builder
	d.Format(&b)
	return b.String()
}
