package uasset

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/rangeio"
	"github.com/unrmod/unrmod/ue"
)

// Package is a cooked (or editor) UE4/UE5 asset in the pak-era form: the
// header file (.uasset or .umap) and its export data (.uexp, or the rest
// of the header file for a single-file asset). It keeps every byte it
// does not model (opaque tables such as the asset registry data, padding,
// trailing data), so an unchanged Package encodes to the bytes it was
// decoded from.
type Package struct {
	// FileName is the header file's name as given to Decode; errors name it.
	FileName string
	Summary  Summary
	// Version is the object file version the header was read with: the
	// file's own, or the release's for an unversioned file.
	Version FileVersion
	// Release is the engine release: from Options, detected for an
	// unversioned file (the newest release up to 5.8 whose layout fits),
	// or the newest release up to 5.8 writing Version (a UE 6.0 cook
	// writes the versions and layout of 5.8: only Options names 6.0).
	Release Release
	// ReleaseDetected is true when Release was chosen by looking at the
	// layout of an unversioned file. Several releases may share a layout:
	// Fitting lists every release whose layout fits, oldest first (only
	// for a detected release; 6.0 follows 5.8, whose layout it writes).
	ReleaseDetected bool
	Fitting         []Release

	Names   []Name
	Imports []Import
	Exports []Export
	// DependsMap has one list per export (nil when the file has none).
	DependsMap [][]PackageIndex
	// SoftPackageReferences are the package names the package refers to
	// softly (UE4 514 and later; older files keep the table opaque).
	SoftPackageReferences []NameRef
	// PreloadDependencies is the flat list the exports' dependency counts
	// index into.
	PreloadDependencies []PackageIndex
	// DataResourceVersion and DataResources are the UE 5.2+ data resource
	// table (version 1 or 2); DataResourceVersion is 0 when absent.
	DataResourceVersion uint32
	DataResources       []DataResource

	// Split is true when the export data lives in a .uexp.
	Split bool
	// HeaderTrailer holds .uasset bytes after TotalHeaderSize in a split
	// package (normally none).
	HeaderTrailer []byte
	// ExportTrailer holds the bytes after the last export's data: in a
	// cooked .uexp the 4-byte package tag.
	ExportTrailer []byte

	layout   layout
	sections []section // header parts after the summary, in file order
	order    []int     // export indices in the order of their data
	areaLen  int       // size of the export data area as decoded
	// stream is where the export data of a package DecodeStream decoded
	// (or given by StreamExportsFrom) is read from (stream.go).
	stream  *rangeio.Exports
	bulk    offsetRule
	payload offsetRule
}

// Options tell Decode what the file does not record.
type Options struct {
	// Release is the engine release that cooked an unversioned file. When
	// zero, Decode detects it from the layout. For a versioned file it only
	// names the release (and tells 5.7 from 5.8 imports).
	Release Release
}

// Cooked reports whether the package was saved by the cooker (editor-only
// data filtered out) rather than by the editor.
func (p *Package) Cooked() bool {
	return p.Summary.PackageFlags&(PkgFilterEditorOnly|PkgCooked) != 0
}

// UnversionedProperties reports whether exports store properties without
// tags (reading them needs a schema).
func (p *Package) UnversionedProperties() bool {
	return p.Summary.PackageFlags&PkgUnversionedProperties != 0
}

// NameOf returns the text of a name reference ("Foo", "Foo_3"), or a
// placeholder when the index is out of range.
func (p *Package) NameOf(n NameRef) string {
	if n.Index < 0 || int(n.Index) >= len(p.Names) {
		return fmt.Sprintf("<name %d>", n.Index)
	}
	s := p.Names[n.Index].Value
	if n.Number > 0 {
		s = fmt.Sprintf("%s_%d", s, n.Number-1)
	}
	return s
}

// HasTailTag reports whether the export data ends with the package tag,
// as the engine writes every .uexp.
func (p *Package) HasTailTag() bool {
	t := p.ExportTrailer
	return len(t) >= 4 && t[len(t)-4] == 0xC1 && t[len(t)-3] == 0x83 && t[len(t)-2] == 0x2A && t[len(t)-1] == 0x9E
}

// Companions are the names of the files that go with a header file.
type Companions struct {
	Uexp, Ubulk, Uptnl, MUbulk string
}

// CompanionNames returns the names of the export data (.uexp), bulk data
// (.ubulk), optional payload (.uptnl) and memory-mapped bulk data
// (.m.ubulk) files of a header file named name (.uasset or .umap).
func CompanionNames(name string) Companions {
	base := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.ContainsAny(name[i:], `/\`) {
		base = name[:i]
	}
	return Companions{base + ".uexp", base + ".ubulk", base + ".uptnl", base + ".m.ubulk"}
}

type secKind uint8

const (
	secNames secKind = iota
	secImports
	secExports
	secDepends
	secSoftPackageRefs
	secPreload
	secDataResources
	// Opaque parts: only their offset is known; their bytes are the lead
	// of the section after them.
	secGatherableText
	secSoftObjectPaths
	secCellExports
	secCellImports
	secMetaData
	secSearchableNames
	secThumbnails
	secImportTypeHierarchies
	secAssetRegistry
	secWorldTileInfo
	secPayloadTOC
	secSoftPackageRefsOpaque
	secPreloadOpaque // editor packages: count −1, the offset still recorded
	numSecKinds
)

var secNamesText = [numSecKinds + 1]string{
	"name map", "import map", "export map", "depends map", "soft package references",
	"preload dependencies", "data resources", "gatherable text data", "soft object paths",
	"cell export map", "cell import map", "metadata", "searchable names", "thumbnail table",
	"import type hierarchies", "asset registry data", "world tile info", "payload TOC",
	"soft package references", "preload dependencies", "end of header",
}

func (k secKind) String() string { return secNamesText[k] }

// parsed reports whether the model holds the section's contents.
func (k secKind) parsed() bool { return k < secGatherableText }

// section is one part of the header after the summary: the opaque bytes
// before it (lead) and what it is.
type section struct {
	kind secKind
	lead []byte
}

// offsetRule says how the encoder recomputes a file offset that may point
// past the header.
type offsetRule uint8

const (
	offsetKeep       offsetRule = iota // absent, or before the data: unchanged
	offsetFromHeader                   // inside the export data: moves with the header size
	offsetFromEnd                      // at or after the end of the last export: moves with everything
)

// summaryOffset returns a pointer to the summary field holding the offset
// of section kind k, and whether it is an int64 field.
func (s *Summary) offsetField(k secKind) (*int32, *int64) {
	switch k {
	case secNames:
		return &s.NameOffset, nil
	case secImports:
		return &s.ImportOffset, nil
	case secExports:
		return &s.ExportOffset, nil
	case secDepends:
		return &s.DependsOffset, nil
	case secSoftPackageRefs, secSoftPackageRefsOpaque:
		return &s.SoftPackageReferencesOffset, nil
	case secPreload, secPreloadOpaque:
		return &s.PreloadDependencyOffset, nil
	case secDataResources:
		return &s.DataResourceOffset, nil
	case secGatherableText:
		return &s.GatherableTextDataOffset, nil
	case secSoftObjectPaths:
		return &s.SoftObjectPathsOffset, nil
	case secCellExports:
		return &s.CellExportOffset, nil
	case secCellImports:
		return &s.CellImportOffset, nil
	case secMetaData:
		return &s.MetaDataOffset, nil
	case secSearchableNames:
		return &s.SearchableNamesOffset, nil
	case secThumbnails:
		return &s.ThumbnailTableOffset, nil
	case secImportTypeHierarchies:
		return &s.ImportTypeHierarchiesOffset, nil
	case secAssetRegistry:
		return &s.AssetRegistryDataOffset, nil
	case secWorldTileInfo:
		return &s.WorldTileInfoDataOffset, nil
	case secPayloadTOC:
		return nil, &s.PayloadTOCOffset
	}
	return nil, nil
}

// Decode decodes a cooked asset: uasset is the header file (.uasset or
// .umap), uexp its export data, or nil for a single-file asset whose
// export data follows the header. name is used in errors. opts may be nil.
// The Package does not keep references to uasset or uexp.
func Decode(name string, uasset, uexp []byte, opts *Options) (*Package, error) {
	return decode(name, uasset, uexp, nil, opts)
}

// decode is Decode; with lz, the export data is the .uexp lz reads, not
// held (DecodeStream).
func decode(name string, uasset, uexp []byte, lz *lazyArea, opts *Options) (*Package, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var s Summary
	c := binio.NewCursor(uasset, 0)
	c.SetKind(ErrCorrupt)
	s.serializeVersions(&archive{c: c})
	if err := c.Err(); err != nil {
		return nil, cursorError(name, "package file summary", err)
	}
	cands, err := candidates(&s, o.Release)
	if err != nil {
		return nil, &ue.FormatError{File: name, Struct: "package file summary", Offset: 8, Msg: err.Error(), Err: err}
	}
	// One private copy that the model slices into, whichever layout fits.
	uasset = bytes.Clone(uasset)
	if uexp != nil {
		uexp = bytes.Clone(uexp)
	}
	var first error
	detect := s.Unversioned() && o.Release.IsZero()
	for i, cand := range cands {
		p, err := decodeAs(name, uasset, uexp, lz, cand, detect)
		if err == nil {
			p.Release = cand.Release
			if p.ReleaseDetected = detect; detect {
				p.Fitting = []Release{cand.Release}
				sig, _ := signature(uasset, cand)
				for _, older := range cands[i+1:] {
					// The same signature decodes the same way: no need to
					// decode again.
					if osig, ok := signature(uasset, older); ok && osig == sig {
						p.Fitting = append(p.Fitting, older.Release)
					} else if _, err := decodeAs(name, uasset, uexp, lz, older, true); err == nil {
						p.Fitting = append(p.Fitting, older.Release)
					}
				}
				slices.Reverse(p.Fitting)
				p.Fitting = append(p.Fitting, undetected(p.Fitting)...)
			}
			return p, nil
		}
		if first == nil {
			first = err
		}
	}
	if len(cands) > 1 && s.Unversioned() {
		why := first.Error()
		var fe *ue.FormatError
		if errors.As(first, &fe) {
			why = strings.TrimPrefix(why, fe.File+": ")
		}
		return nil, &ue.FormatError{File: name, Struct: "package file summary", Offset: 8,
			Msg: fmt.Sprintf("unversioned file: the layout of no release from %s to %s fits (give the release in Options); as %s: %s",
				cands[len(cands)-1].Release, cands[0].Release, cands[0].Release, why), Err: errors.Join(ErrUnsupportedVersion, first)}
	}
	return nil, first
}

// detectedLast is the newest release detection picks: the releases after
// it write the layout of one before (UE 6.0 cooks record the versions
// and tables of 5.8), so a file never tells them apart.
var detectedLast = Release{5, 8}

// newer reports whether release a is after b.
func newer(a, b Release) bool { return a.Major > b.Major || a.Major == b.Major && a.Minor > b.Minor }

// undetected returns the releases after detectedLast whose layout is that
// of a release in fits, oldest first: they fit the file as well.
func undetected(fits []Release) []Release {
	var out []Release
	for _, ri := range releases {
		if !newer(ri.Release, detectedLast) {
			continue
		}
		for _, f := range fits {
			if fi, ok := releaseVersions(f); ok && fi.FileVersion == ri.FileVersion && fi.Legacy == ri.Legacy && fi.importPackageName == ri.importPackageName {
				out = append(out, ri.Release)
				break
			}
		}
	}
	return out
}

// candidates lists the layouts to try, best first.
func candidates(s *Summary, hint Release) ([]releaseInfo, error) {
	fv := FileVersion{s.FileVersionUE4, s.FileVersionUE5}
	if !s.Unversioned() {
		if fv.UE4 < ue4Oldest || fv.UE4 > 522 || (fv.UE5 != 0 && (fv.UE5 < 1000 || fv.UE5 > ue5Newest)) || (s.LegacyFileVersion <= -8) != (fv.UE5 != 0) {
			return nil, fmt.Errorf("object versions UE4 %d / UE5 %d: %w (this package reads UE4 %d–522 and UE5 1000–%d)",
				fv.UE4, fv.UE5, ErrUnsupportedVersion, ue4Oldest, ue5Newest)
		}
	}
	if !hint.IsZero() {
		ri, ok := releaseVersions(hint)
		if !ok {
			return nil, fmt.Errorf("engine release %s: %w", hint, ErrUnsupportedVersion)
		}
		if ri.Legacy != s.LegacyFileVersion {
			return nil, fmt.Errorf("LegacyFileVersion %d is not what %s writes (%d): %w", s.LegacyFileVersion, hint, ri.Legacy, ErrUnsupportedVersion)
		}
		if !s.Unversioned() {
			ri.FileVersion = fv
		}
		return []releaseInfo{ri}, nil
	}
	var out []releaseInfo
	for i := len(releases) - 1; i >= 0; i-- {
		ri := releases[i]
		if newer(ri.Release, detectedLast) || ri.Legacy != s.LegacyFileVersion {
			continue // by hint only, or as a twin of the layout detected (undetected)
		}
		if s.Unversioned() || ri.FileVersion == fv {
			out = append(out, ri)
		}
	}
	if len(out) == 0 && !s.Unversioned() {
		// A release this table does not list (a licensee build): try both import forms.
		out = []releaseInfo{{FileVersion: fv, Legacy: s.LegacyFileVersion, Release: releaseFor(fv)},
			{FileVersion: fv, Legacy: s.LegacyFileVersion, Release: releaseFor(fv), importPackageName: true}}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("LegacyFileVersion %d: %w", s.LegacyFileVersion, ErrUnsupportedVersion)
	}
	return out, nil
}

// layoutSig is what decides how a file decodes in a layout: the bytes
// the summary takes and the size of every table entry and form.
type layoutSig struct {
	summary, imp, exp                     int
	nameHashes, softRefNames, preload, dr bool
}

// signature reads the summary in layout ri and returns its signature.
func signature(uasset []byte, ri releaseInfo) (layoutSig, bool) {
	l := layout{FileVersion: ri.FileVersion, legacy: ri.Legacy, importPackageName: ri.importPackageName}
	c := binio.NewCursor(uasset, 0)
	var s Summary
	s.serialize(&archive{c: c}, &l)
	if c.Err() != nil {
		return layoutSig{}, false
	}
	return layoutSig{c.Pos(), importSize(&l), exportSize(&l), l.UE4 >= ue4NameHashes, l.UE4 >= ue4SoftObjectPath,
		l.UE4 >= ue4PreloadDependencies, l.UE5 >= ue5DataResources}, true
}

// span is a part of the header found by decoding: [start, end).
type span struct {
	kind       secKind
	start, end int
}

// decodeAs decodes the package in one candidate layout. strict asks for
// the tight packing every cooked file has, to tell layouts apart.
func decodeAs(name string, uasset, uexp []byte, lz *lazyArea, ri releaseInfo, strict bool) (*Package, error) {
	p := &Package{FileName: name, Version: ri.FileVersion, Split: uexp != nil || lz != nil}
	p.layout = layout{FileVersion: ri.FileVersion, legacy: ri.Legacy, importPackageName: ri.importPackageName}
	l := &p.layout
	c := binio.NewCursor(uasset, 0)
	c.SetKind(ErrCorrupt)
	s := &p.Summary
	s.serialize(&archive{c: c}, l)
	if err := c.Err(); err != nil {
		return nil, cursorError(name, "package file summary", err)
	}
	sumEnd := c.Pos()
	hs := int(s.TotalHeaderSize)
	if hs < sumEnd || hs > len(uasset) {
		return nil, errorf(name, "package file summary TotalHeaderSize", -1, ErrCorrupt,
			"%d is outside the summary's end (%d) and the file's size (%d)", s.TotalHeaderSize, sumEnd, len(uasset))
	}
	header := uasset[:hs:hs]
	area := uexp
	if p.Split {
		if len(uasset) > hs {
			p.HeaderTrailer = uasset[hs:]
		}
	} else {
		area = uasset[hs:]
	}

	// Find every part of the header the summary points at.
	var spans []span
	add := func(k secKind, off int32, need bool) error {
		if off == 0 && !need {
			return nil
		}
		if off == 0 || off == -1 {
			return nil
		}
		if int(off) < sumEnd || int(off) > hs {
			return errorf(name, "package file summary "+k.String()+" offset", -1, ErrCorrupt,
				"0x%X is outside the header after the summary (0x%X..0x%X)", off, sumEnd, hs)
		}
		spans = append(spans, span{kind: k, start: int(off)})
		return nil
	}
	type entry struct {
		k   secKind
		off int32
	}
	softRefs := secSoftPackageRefs
	if l.UE4 < ue4SoftObjectPath {
		softRefs = secSoftPackageRefsOpaque
	}
	entries := []entry{{secNames, s.NameOffset}, {secImports, s.ImportOffset}, {secExports, s.ExportOffset},
		{secDepends, s.DependsOffset}, {softRefs, s.SoftPackageReferencesOffset},
		{secGatherableText, s.GatherableTextDataOffset}, {secSoftObjectPaths, s.SoftObjectPathsOffset},
		{secCellExports, s.CellExportOffset}, {secCellImports, s.CellImportOffset}, {secMetaData, s.MetaDataOffset},
		{secSearchableNames, s.SearchableNamesOffset}, {secThumbnails, s.ThumbnailTableOffset},
		{secImportTypeHierarchies, s.ImportTypeHierarchiesOffset}, {secAssetRegistry, s.AssetRegistryDataOffset},
		{secWorldTileInfo, s.WorldTileInfoDataOffset}}
	if l.UE4 >= ue4PreloadDependencies {
		k := secPreload
		if s.PreloadDependencyCount == -1 {
			k = secPreloadOpaque // what the editor writes: no table
		}
		entries = append(entries, entry{k, s.PreloadDependencyOffset})
	}
	if l.UE5 >= ue5DataResources {
		entries = append(entries, entry{secDataResources, s.DataResourceOffset})
	}
	for _, e := range entries {
		need := (e.k == secNames && s.NameCount > 0) || (e.k == secImports && s.ImportCount > 0) || (e.k == secExports && s.ExportCount > 0)
		if need && e.off == 0 {
			return nil, errorf(name, "package file summary "+e.k.String()+" offset", -1, ErrCorrupt, "0 with a count above 0")
		}
		if err := add(e.k, e.off, need); err != nil {
			return nil, err
		}
	}
	if s.PayloadTOCOffset > 0 && s.PayloadTOCOffset <= int64(hs) {
		if err := add(secPayloadTOC, int32(s.PayloadTOCOffset), false); err != nil {
			return nil, err
		}
	}

	// Decode the tables the model holds.
	hc := binio.NewCursor(header, 0)
	hc.SetKind(ErrCorrupt)
	for i := range spans {
		sp := &spans[i]
		if !sp.kind.parsed() {
			sp.end = sp.start
			continue
		}
		hc.Seek(sp.start, sp.kind.String())
		if err := p.decodeTable(hc, sp.kind); err != nil {
			return nil, err
		}
		sp.end = hc.Pos()
	}
	if s.ImportOffset == 0 && s.ImportCount == 0 {
		p.Imports = []Import{}
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.end-a.start, b.end-b.start) // empty first
	})
	pos := sumEnd
	prevParsed := true
	for _, sp := range spans {
		if sp.start < pos {
			return nil, errorf(name, sp.kind.String(), int64(sp.start), ErrCorrupt, "overlaps the part before it, which ends at 0x%X", pos)
		}
		if strict && prevParsed && sp.start != pos {
			return nil, errorf(name, sp.kind.String(), int64(sp.start), ErrCorrupt, "does not follow the part before it (which ends at 0x%X)", pos)
		}
		p.sections = append(p.sections, section{kind: sp.kind, lead: header[pos:sp.start:sp.start]})
		pos = sp.end
		prevParsed = sp.kind.parsed()
	}
	if strict && prevParsed && pos != hs && !allZero(header[pos:hs]) {
		return nil, errorf(name, "header", int64(pos), ErrCorrupt, "the last table ends before TotalHeaderSize 0x%X", hs)
	}
	p.sections = append(p.sections, section{kind: numSecKinds, lead: header[pos:hs:hs]}) // end of header

	if lz != nil {
		if err := p.splitLazy(lz, hs); err != nil {
			return nil, err
		}
	} else if err := p.splitExportData(area, hs); err != nil {
		return nil, err
	}
	exportsEnd := hs + p.areaLen - len(p.ExportTrailer)
	p.bulk = offsetRuleFor(s.BulkDataStartOffset, hs, exportsEnd)
	p.payload = offsetRuleFor(s.PayloadTOCOffset, hs, exportsEnd)
	return p, nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// offsetRuleFor says how an offset that may point past the header moves:
// one at or after the end of the last export's data (BulkDataStartOffset
// in every cooked file: where the .uexp's tag starts) keeps its distance
// from the end of the export data; one inside the export data moves with
// the header.
func offsetRuleFor(off int64, hs, exportsEnd int) offsetRule {
	switch {
	case off <= int64(hs):
		return offsetKeep
	case off >= int64(exportsEnd):
		return offsetFromEnd
	default:
		return offsetFromHeader
	}
}

func checkCount(name string, k secKind, n int32, min int, c *binio.Cursor) error {
	if n < 0 {
		return errorf(name, k.String(), c.Abs(), ErrCorrupt, "negative count %d in the summary", n)
	}
	if int64(n)*int64(min) > int64(c.Len()) {
		return errorf(name, k.String(), c.Abs(), ErrCorrupt, "count %d (from the summary) needs at least %d bytes, %d left in the header",
			n, int64(n)*int64(min), c.Len())
	}
	return nil
}

// decodeTable decodes the table of kind k at the cursor.
func (p *Package) decodeTable(c *binio.Cursor, k secKind) error {
	s, l, name := &p.Summary, &p.layout, p.FileName
	a := &archive{c: c}
	at := c.Pos()
	fail := func(i int) error {
		return cursorError(name, fmt.Sprintf("%s entry %d (table at 0x%X)", k, i, at), c.Err())
	}
	switch k {
	case secNames:
		if err := checkCount(name, k, s.NameCount, 5, c); err != nil {
			return err
		}
		p.Names = make([]Name, s.NameCount)
		for i := range p.Names {
			if p.Names[i].serialize(a, l); c.Err() != nil {
				return fail(i)
			}
		}
	case secImports:
		if err := checkCount(name, k, s.ImportCount, importSize(l), c); err != nil {
			return err
		}
		p.Imports = make([]Import, s.ImportCount)
		for i := range p.Imports {
			if p.Imports[i].serialize(a, l); c.Err() != nil {
				return fail(i)
			}
		}
	case secExports:
		if err := checkCount(name, k, s.ExportCount, exportSize(l), c); err != nil {
			return err
		}
		p.Exports = make([]Export, s.ExportCount)
		for i := range p.Exports {
			if p.Exports[i].serialize(a, l); c.Err() != nil {
				return fail(i)
			}
		}
	case secDepends:
		if err := checkCount(name, k, s.ExportCount, 4, c); err != nil {
			return err
		}
		p.DependsMap = make([][]PackageIndex, s.ExportCount)
		for i := range p.DependsMap {
			n := c.Count32("count", 4)
			d := make([]PackageIndex, n)
			for j := range d {
				d[j] = PackageIndex(c.I32("index"))
			}
			if c.Err() != nil {
				return fail(i)
			}
			p.DependsMap[i] = d
		}
	case secSoftPackageRefs:
		if err := checkCount(name, k, s.SoftPackageReferencesCount, 8, c); err != nil {
			return err
		}
		p.SoftPackageReferences = make([]NameRef, s.SoftPackageReferencesCount)
		for i := range p.SoftPackageReferences {
			a.name(&p.SoftPackageReferences[i], "package name")
		}
		if c.Err() != nil {
			return fail(0)
		}
	case secPreload:
		if err := checkCount(name, k, s.PreloadDependencyCount, 4, c); err != nil {
			return err
		}
		p.PreloadDependencies = make([]PackageIndex, s.PreloadDependencyCount)
		for i := range p.PreloadDependencies {
			p.PreloadDependencies[i] = PackageIndex(c.I32("index"))
		}
	case secDataResources:
		a.u32(&p.DataResourceVersion, "version")
		if c.Err() == nil && (p.DataResourceVersion < 1 || p.DataResourceVersion > 2) {
			return errorf(name, k.String(), int64(at), ErrUnsupportedVersion, "version %d (this package reads 1 and 2)", p.DataResourceVersion)
		}
		size := 44
		if p.DataResourceVersion >= 2 {
			size++
		}
		n := c.Count32("count", size)
		p.DataResources = make([]DataResource, n)
		for i := range p.DataResources {
			p.DataResources[i].serialize(a, p.DataResourceVersion)
		}
		if c.Err() != nil {
			return fail(0)
		}
	}
	return nil
}

// splitExportData cuts the export data area (the .uexp, or what follows
// the header in a single-file asset) into the exports' Data.
func (p *Package) splitExportData(area []byte, hs int) error {
	p.order = make([]int, len(p.Exports))
	for i := range p.order {
		p.order[i] = i
	}
	where := "export data after the header"
	if p.Split {
		where = "the .uexp"
	}
	for i := range p.Exports {
		e := &p.Exports[i]
		start := e.SerialOffset - int64(hs)
		if e.SerialSize < 0 || start < 0 || start > int64(len(area)) || e.SerialSize > int64(len(area))-start {
			return errorf(p.FileName, p.exportLabel(i), -1, ErrCorrupt,
				"data at SerialOffset 0x%X, SerialSize 0x%X is outside %s (0x%X..0x%X)", e.SerialOffset, e.SerialSize, where, hs, hs+len(area))
		}
	}
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(p.Exports[a].SerialOffset, p.Exports[b].SerialOffset) })
	pos := 0
	for _, i := range p.order {
		e := &p.Exports[i]
		start := int(e.SerialOffset) - hs
		if start < pos {
			return errorf(p.FileName, p.exportLabel(i), e.SerialOffset, ErrCorrupt, "data overlaps the export data before it (which ends at 0x%X)", hs+pos)
		}
		end := start + int(e.SerialSize)
		e.lead = area[pos:start:start]
		e.Data = area[start:end:end]
		pos = end
	}
	p.ExportTrailer = area[pos:]
	p.areaLen = len(area)
	return nil
}

// exportLabel names export i for errors: `export 3 "Default__BP_C"`.
func (p *Package) exportLabel(i int) string {
	return fmt.Sprintf("export %d %q", i, p.NameOf(p.Exports[i].ObjectName))
}
