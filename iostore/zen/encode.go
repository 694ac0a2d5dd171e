package zen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// This file encodes zen packages: the package's parts in file order, each
// canonical unless the part is kept raw (decode.go), with every offset,
// size and hash derived from what is written.

// Encode returns the package chunk. An unchanged decoded package comes out
// byte for byte as it went in. Encode refuses, with a *ue.FormatError
// wrapping ErrNotEncodable, what its layout cannot hold (names too long,
// counts beyond the format's int32 fields), export data it cannot place
// (an export with data but no Serialize entry, a bundle entry for an export
// that does not exist) and export data that would move when bytes between
// exports belong to no export.
func (p *Package) Encode() ([]byte, error) { return p.AppendBinary(nil) }

// AppendBinary appends the package chunk to dst (encoding.BinaryAppender).
func (p *Package) AppendBinary(dst []byte) ([]byte, error) { return p.encode(dst, nil) }

// MarshalBinary returns Encode's result (encoding.BinaryMarshaler).
func (p *Package) MarshalBinary() ([]byte, error) { return p.Encode() }

func pkgEncodeError(structure, format string, args ...any) error {
	return encodeError(structure, format, args...)
}

// dataPlan is where the export data goes: the exports in the order their
// data is written, each export's offset in the data part and its
// CookedSerialOffset, and the 5.0–5.2 bundle offsets. The plan holds no
// bytes: appendData writes them.
type dataPlan struct {
	order         []int    // the exports with data, in the order it is written
	at            []uint64 // per export: offset of its data from the header end
	serialOffsets []uint64 // per export: the CookedSerialOffset to store
	bundleOffsets []uint64
	size          int    // the data part's size, trailing bytes included
	raw           []byte // the data part as kept, when isRaw
	isRaw         bool
	headerOnly    bool // appendData appends nothing (EncodeStream)
}

// appendData appends the data part the plan describes.
func (pl *dataPlan) appendData(dst []byte, p *Package) []byte {
	if pl.headerOnly {
		return dst
	}
	if pl.isRaw {
		return append(dst, pl.raw...)
	}
	for _, i := range pl.order {
		dst = append(dst, p.Exports[i].Data...)
	}
	return append(dst, p.Trailing...)
}

// planData lays out the export data: in 4.26–5.2 in the order the bundles
// serialize the exports (the order the loader reads them in), from 5.3 in
// export-map order; then the trailing bytes. CookedSerialOffset is, up to
// 5.2, the export's offset in the legacy file (CookedHeaderSize plus the
// sizes of the exports before it in export-map order), from 5.3 its offset
// from the header end. A kept export-data part keeps the offsets as
// decoded.
func (p *Package) planData() (*dataPlan, error) {
	n := len(p.Exports)
	pl := &dataPlan{at: make([]uint64, n), serialOffsets: make([]uint64, n), order: make([]int, 0, n)}
	place := func(i int) {
		pl.at[i] = uint64(pl.size)
		pl.order = append(pl.order, i)
		pl.size += p.dataLen(i)
	}
	if p.Layout.hasGraphData() {
		done := make([]bool, n)
		for b, bd := range p.Bundles {
			if uint64(bd.FirstEntry)+uint64(bd.EntryCount) > uint64(len(p.BundleEntries)) {
				return nil, pkgEncodeError(fmt.Sprintf("export bundle %d", b), "entries %d..%d lie outside the %d bundle entries",
					bd.FirstEntry, uint64(bd.FirstEntry)+uint64(bd.EntryCount), len(p.BundleEntries))
			}
			pl.bundleOffsets = append(pl.bundleOffsets, uint64(pl.size))
			for _, en := range p.BundleEntries[bd.FirstEntry : bd.FirstEntry+bd.EntryCount] {
				if en.Command != CommandSerialize {
					continue
				}
				if int64(en.Export) >= int64(n) || done[en.Export] {
					return nil, pkgEncodeError(fmt.Sprintf("export bundle %d", b),
						"serializes export %d, which is not one of the %d exports or is serialized twice", en.Export, n)
				}
				done[en.Export] = true
				place(int(en.Export))
			}
		}
		for i := range n {
			if !done[i] && p.dataLen(i) > 0 {
				return nil, pkgEncodeError(fmt.Sprintf("export %d", i), "has %d bytes of data but no Serialize entry in the export bundles", p.dataLen(i))
			}
		}
	} else {
		for i := range p.Exports {
			place(i)
		}
	}
	pl.size += p.trailingLen()
	if p.Layout.hasDependencies() {
		copy(pl.serialOffsets, pl.at)
	} else {
		off := uint64(p.CookedHeaderSize)
		for i := range p.Exports {
			pl.serialOffsets[i] = off
			off += uint64(p.dataLen(i))
		}
	}
	if k := p.kept[secData]; k != nil {
		if bytes.Equal(pl.appendData(make([]byte, 0, pl.size), p), k.canon) {
			pl.raw, pl.isRaw = k.raw, true
			for i := range p.Exports {
				pl.serialOffsets[i] = p.Exports[i].SerialOffset
			}
			for b := range pl.bundleOffsets {
				pl.bundleOffsets[b] = p.Bundles[b].SerialOffset
			}
		} else if p.loose > 0 {
			return nil, pkgEncodeError("export data", "%d bytes between the exports' data belong to no export; unrmod cannot move the data without losing them", p.loose)
		}
	}
	return pl, nil
}

// checkModel refuses what the layout cannot hold.
func (p *Package) checkModel() error {
	if p.Layout == LayoutUnknown || p.Layout > layoutLast {
		return pkgEncodeError("package", "unknown layout %d", p.Layout)
	}
	if err := checkNames(p.Names, ""); err != nil {
		return err
	}
	l := p.Layout
	switch {
	case !l.IsUE5() && p.Versioning != nil:
		return pkgEncodeError("versioning info", "the %v layout has no versioning info", l)
	case l.IsUE5() && (p.SourceName != MappedName{} || p.Pad != 0 || len(p.Graph) > 0):
		return pkgEncodeError("package summary", "the %v layout has no source name, summary pad or 4.26/4.27 graph data", l)
	case !l.IsUE5() && (len(p.ImportedPublicExportHashes) > 0 || len(p.InternalArcs) > 0 || len(p.ExternalArcs) > 0):
		return pkgEncodeError("package", "the %v layout has no imported public export hashes or UE5 graph data", l)
	case !l.hasBulkDataMap() && len(p.BulkData) > 0:
		return pkgEncodeError("bulk-data map", "the %v layout has no bulk-data map", l)
	case !l.hasCells() && (len(p.CellImports) > 0 || len(p.CellExports) > 0):
		return pkgEncodeError("cell maps", "the %v layout has no cell maps", l)
	case l.hasDependencies() && (len(p.Bundles) > 0 || len(p.InternalArcs) > 0 || len(p.ExternalArcs) > 0):
		return pkgEncodeError("export bundles", "the %v layout has one implied export bundle and no graph data", l)
	case !l.hasDependencies() && (len(p.DependencyHeaders) > 0 || len(p.DependencyEntries) > 0 || len(p.ImportedPackages) > 0):
		return pkgEncodeError("dependency bundles", "the %v layout has no dependency bundles or imported package names", l)
	}
	if total := p.expectedSize(); total > math.MaxInt32 {
		return pkgEncodeError("package", "%d bytes exceed what the format's int32 offsets can address", total)
	}
	for i, ip := range p.ImportedPackages {
		if nameLength(ip.Name) > MaxNameLength {
			return pkgEncodeError(fmt.Sprintf("imported package name %d", i), "%d characters exceed the 15-bit length of a name header", nameLength(ip.Name))
		}
	}
	return nil
}

// expectedSize bounds the encoded size from above, for checks and capacity.
func (p *Package) expectedSize() int64 {
	n := int64(256 + len(p.Trailing))
	for _, s := range p.Names {
		n += 4 + 8 + 2*int64(len(s))
	}
	for _, e := range p.Exports {
		n += exportEntrySize + 2*bundleEntrySize + depHeaderSize + int64(len(e.Data))
	}
	n += 8*int64(len(p.Imports)+len(p.ImportedPublicExportHashes)+len(p.CellImports)) + 4*int64(len(p.DependencyEntries))
	n += bulkDataEntrySize*int64(len(p.BulkData)) + cellExportEntrySize*int64(len(p.CellExports)) + 8*int64(len(p.InternalArcs))
	for _, g := range p.Graph {
		n += 12 + 8*int64(len(g.Arcs))
	}
	for _, a := range p.ExternalArcs {
		n += 4 + externalArcSize*int64(len(a))
	}
	for _, ip := range p.ImportedPackages {
		n += 16 + 2*int64(len(ip.Name))
	}
	if p.Versioning != nil {
		n += 20 + 20*int64(len(p.Versioning.CustomVersions))
	}
	for _, k := range p.kept {
		if k != nil {
			n += int64(len(k.raw))
		}
	}
	return n
}

// encode appends the package to dst. When canon is not nil it receives
// each part's canonical bytes and nothing kept is used (decoding).
func (p *Package) encode(dst []byte, canon *[secCount][]byte) ([]byte, error) {
	if p.dataless {
		return nil, pkgEncodeError("package", "decoded without its export data (DecodePackageHeader): decode the whole package to encode it")
	}
	return p.encodeParts(dst, canon, false)
}

// encodeParts is encode; with headerOnly it appends the header only, the
// export data taking the sizes dataLen gives (EncodeStream).
func (p *Package) encodeParts(dst []byte, canon *[secCount][]byte, headerOnly bool) ([]byte, error) {
	if err := p.checkModel(); err != nil {
		return nil, err
	}
	pl, err := p.planData()
	if err != nil {
		return nil, err
	}
	if canon != nil {
		pl.raw, pl.isRaw = nil, false
	}
	pl.headerOnly = headerOnly
	le := binary.LittleEndian
	l := p.Layout
	base := len(dst)
	dst = slices.Grow(dst[:base], int(min(p.expectedSize(), math.MaxInt32)))
	var pos [secCount]int // each part's start, relative to base
	sizes := map[section]int{}
	for _, s := range l.sections() {
		start := len(dst)
		pos[s] = start - base
		switch s {
		case secSummary:
			dst = append(dst, make([]byte, l.summarySize())...)
		case secVersioning:
			if v := p.Versioning; v != nil {
				dst = le.AppendUint32(dst, v.ZenVersion)
				dst = le.AppendUint32(dst, uint32(v.FileVersionUE4))
				dst = le.AppendUint32(dst, uint32(v.FileVersionUE5))
				dst = le.AppendUint32(dst, uint32(v.Licensee))
				dst = le.AppendUint32(dst, uint32(len(v.CustomVersions)))
				for _, cv := range v.CustomVersions {
					for _, x := range cv.Key {
						dst = le.AppendUint32(dst, x)
					}
					dst = le.AppendUint32(dst, uint32(cv.Version))
				}
			}
		case secCellOffsets:
			dst = append(dst, make([]byte, 8)...) // filled below
		case secNames:
			if l.IsUE5() {
				if dst, err = appendNameBatch(dst, p.Names, "", "name map"); err != nil {
					return nil, err
				}
			} else {
				dst = appendNameBlob(dst, p.Names, start)
				sizes[secNames] = len(dst) - start
				for (len(dst)-base)%8 != 0 {
					dst = append(dst, 0)
				}
			}
		case secNameHashes:
			dst = appendNameHashes(dst, p.Names)
			sizes[secNameHashes] = len(dst) - start
		case secBulkData:
			if l.hasBulkDataPad() {
				pad := (8 - (len(dst)-base+8)%8) % 8
				dst = le.AppendUint64(dst, uint64(pad))
				dst = append(dst, make([]byte, pad)...)
			}
			dst = le.AppendUint64(dst, uint64(bulkDataEntrySize*len(p.BulkData)))
			for _, e := range p.BulkData {
				dst = le.AppendUint64(dst, uint64(e.SerialOffset))
				dst = le.AppendUint64(dst, uint64(e.DuplicateSerialOffset))
				dst = le.AppendUint64(dst, uint64(e.SerialSize))
				dst = le.AppendUint32(dst, e.Flags)
				dst = append(dst, e.CookedIndex)
				dst = append(dst, e.Pad[:]...)
			}
		case secPublicHashes:
			for _, h := range p.ImportedPublicExportHashes {
				dst = le.AppendUint64(dst, h)
			}
		case secImports:
			dst = appendObjectIndices(dst, p.Imports)
		case secExports:
			for i, e := range p.Exports {
				dst = le.AppendUint64(dst, pl.serialOffsets[i])
				dst = le.AppendUint64(dst, uint64(p.dataLen(i)))
				dst = appendMappedName(dst, e.ObjectName)
				dst = appendObjectIndices(dst, []ObjectIndex{e.Outer, e.Class, e.Super, e.Template})
				dst = le.AppendUint64(dst, e.PublicExportHash)
				dst = le.AppendUint32(dst, uint32(e.ObjectFlags))
				dst = append(dst, e.FilterFlags)
				dst = append(dst, e.Pad[:]...)
			}
		case secCellImports:
			dst = appendObjectIndices(dst, p.CellImports)
		case secCellExports:
			for _, e := range p.CellExports {
				dst = le.AppendUint64(dst, e.SerialOffset)
				dst = le.AppendUint64(dst, e.SerialLayoutSize)
				dst = le.AppendUint64(dst, e.SerialSize)
				dst = appendMappedName(dst, e.CppClassInfo)
				dst = le.AppendUint64(dst, e.PublicExportHash)
			}
		case secBundles:
			if !l.IsUE5() {
				for _, b := range p.Bundles {
					dst = le.AppendUint32(dst, b.FirstEntry)
					dst = le.AppendUint32(dst, b.EntryCount)
				}
			}
			for _, e := range p.BundleEntries {
				dst = le.AppendUint32(dst, e.Export)
				dst = le.AppendUint32(dst, e.Command)
			}
		case secGraph:
			dst = p.appendGraph(dst, pl)
		case secDepHeaders:
			for _, h := range p.DependencyHeaders {
				dst = le.AppendUint32(dst, uint32(h.FirstEntry))
				for _, n := range h.Counts {
					dst = le.AppendUint32(dst, n)
				}
			}
		case secDepEntries:
			for _, e := range p.DependencyEntries {
				dst = le.AppendUint32(dst, uint32(e))
			}
		case secImportedNames:
			names := make([]string, len(p.ImportedPackages))
			for i, ip := range p.ImportedPackages {
				names[i] = ip.Name
			}
			if dst, err = appendNameBatch(dst, names, "", "imported package names"); err != nil {
				return nil, err
			}
			for _, ip := range p.ImportedPackages {
				dst = le.AppendUint32(dst, uint32(ip.Number))
			}
		case secData:
			dst = pl.appendData(dst, p)
			if canon != nil {
				canon[s] = dst[start:]
			}
			continue
		}
		if canon != nil {
			canon[s] = bytes.Clone(dst[start:])
		} else if k := p.kept[s]; k != nil && s != secSummary && s != secCellOffsets && bytes.Equal(dst[start:], k.canon) {
			dst = append(dst[:start], k.raw...)
			if s == secNames || s == secNameHashes {
				sizes[s] = k.size
			}
		}
	}
	if n := len(dst) - base + headerOnlyData(pl); n > math.MaxInt32 {
		return nil, pkgEncodeError("package", "%d bytes exceed what the format's int32 offsets can address", n)
	}
	headerEnd := pos[secData]
	out := dst[base:]
	put := func(off int, v int) { le.PutUint32(out[off:], uint32(v)) }
	if l.IsUE5() {
		if p.Versioning != nil {
			put(0, 1)
		}
		put(4, headerEnd)
		le.PutUint32(out[8:], p.Name.IndexAndType)
		le.PutUint32(out[12:], p.Name.Number)
		le.PutUint32(out[16:], uint32(p.PackageFlags))
		le.PutUint32(out[20:], p.CookedHeaderSize)
		put(24, pos[secPublicHashes])
		put(28, pos[secImports])
		put(32, pos[secExports])
		put(36, pos[secBundles])
		if l.hasGraphData() {
			put(40, pos[secGraph])
		} else {
			put(40, pos[secDepHeaders])
			put(44, pos[secDepEntries])
			put(48, pos[secImportedNames])
		}
		if l.hasCells() {
			put(pos[secCellOffsets], pos[secCellImports])
			put(pos[secCellOffsets]+4, pos[secCellExports])
		}
	} else {
		appendMappedName(out[:0], p.Name)
		appendMappedName(out[8:8], p.SourceName)
		le.PutUint32(out[16:], uint32(p.PackageFlags))
		le.PutUint32(out[20:], p.CookedHeaderSize)
		put(24, pos[secNames])
		put(28, sizes[secNames])
		put(32, pos[secNameHashes])
		put(36, sizes[secNameHashes])
		put(40, pos[secImports])
		put(44, pos[secExports])
		put(48, pos[secBundles])
		put(52, pos[secGraph])
		put(56, headerEnd-pos[secGraph])
		put(60, int(p.Pad))
	}
	if canon != nil {
		canon[secSummary] = bytes.Clone(out[:l.summarySize()])
		if l.hasCells() {
			canon[secCellOffsets] = bytes.Clone(out[pos[secCellOffsets] : pos[secCellOffsets]+8])
		}
	}
	return dst, nil
}

// appendGraph appends the 4.26/4.27 or 5.0–5.2 graph data.
func (p *Package) appendGraph(dst []byte, pl *dataPlan) []byte {
	le := binary.LittleEndian
	if !p.Layout.IsUE5() {
		dst = le.AppendUint32(dst, uint32(len(p.Graph)))
		for _, g := range p.Graph {
			dst = le.AppendUint64(dst, uint64(g.Package))
			dst = le.AppendUint32(dst, uint32(len(g.Arcs)))
			for _, a := range g.Arcs {
				dst = le.AppendUint32(dst, uint32(a.From))
				dst = le.AppendUint32(dst, uint32(a.To))
			}
		}
		return dst
	}
	for b, bd := range p.Bundles {
		dst = le.AppendUint64(dst, pl.bundleOffsets[b])
		dst = le.AppendUint32(dst, bd.FirstEntry)
		dst = le.AppendUint32(dst, bd.EntryCount)
	}
	dst = le.AppendUint32(dst, uint32(len(p.InternalArcs)))
	for _, a := range p.InternalArcs {
		dst = le.AppendUint32(dst, uint32(a.From))
		dst = le.AppendUint32(dst, uint32(a.To))
	}
	for _, arcs := range p.ExternalArcs {
		dst = le.AppendUint32(dst, uint32(len(arcs)))
		for _, a := range arcs {
			dst = le.AppendUint32(dst, uint32(a.FromImport))
			dst = append(dst, a.FromCommand)
			dst = le.AppendUint32(dst, uint32(a.ToBundle))
		}
	}
	return dst
}

func appendObjectIndices(dst []byte, xs []ObjectIndex) []byte {
	for _, x := range xs {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(x))
	}
	return dst
}
