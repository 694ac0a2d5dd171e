package zen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/rangeio"
)

// This file decodes zen packages (docs/zen.md, "Zen packages").

// Sizes of the fixed package structures, in bytes.
const (
	exportEntrySize     = 72
	cellExportEntrySize = 40
	bundleEntrySize     = 8
	ue4BundleHeaderSize = 8
	ue5BundleHeaderSize = 16
	depHeaderSize       = 20
	bulkDataEntrySize   = 32
	externalArcSize     = 9
)

// A package's parts, in file order. A part whose bytes do not match its
// canonical encoding keeps its raw bytes (kept), as container headers do.
type section int

const (
	secSummary section = iota
	secVersioning
	secCellOffsets
	secNames
	secNameHashes // 4.26/4.27: the hashes blob
	secBulkData
	secPublicHashes
	secImports
	secExports
	secCellImports
	secCellExports
	secBundles // 4.26/4.27: headers and entries; UE5: the entries
	secGraph
	secDepHeaders
	secDepEntries
	secImportedNames
	secData // export data and trailing bytes
	secCount
)

var sectionNames = [secCount]string{
	"summary", "versioning info", "cell map offsets", "name map", "name hashes", "bulk-data map",
	"imported public export hashes", "import map", "export map", "cell import map", "cell export map",
	"export bundles", "graph data", "dependency bundle headers", "dependency bundle entries",
	"imported package names", "export data",
}

// sections returns the parts a layout has, in file order.
func (l Layout) sections() []section {
	if !l.IsUE5() {
		return []section{secSummary, secNames, secNameHashes, secImports, secExports, secBundles, secGraph, secData}
	}
	s := []section{secSummary, secVersioning}
	if l.hasCells() {
		s = append(s, secCellOffsets)
	}
	s = append(s, secNames)
	if l.hasBulkDataMap() {
		s = append(s, secBulkData)
	}
	s = append(s, secPublicHashes, secImports, secExports)
	if l.hasCells() {
		s = append(s, secCellImports, secCellExports)
	}
	s = append(s, secBundles)
	if l.hasGraphData() {
		s = append(s, secGraph)
	} else {
		s = append(s, secDepHeaders, secDepEntries, secImportedNames)
	}
	return append(s, secData)
}

// kept holds a part's original bytes and the canonical encoding of the
// decoded model part; Encode writes raw while the model still encodes to
// canon.
type kept struct {
	canon, raw []byte
	size       int // the summary's size field for the part, where it has one
}

// KeptRaw names the parts of the package whose bytes are not laid out the
// way Encode lays out the model (stale hashes, gaps, an unusual export
// order). Encode writes their original bytes while the model part is
// unchanged. Engine-written packages have none.
func (p *Package) KeptRaw() []string {
	var out []string
	for s, k := range p.kept {
		if k != nil {
			out = append(out, sectionNames[s])
		}
	}
	return out
}

// ForgetRaw drops the original bytes of the parts KeptRaw names, so that
// Encode lays every part out as the engine does (what `unrmod rewrite
// --layout compact` writes). Encode then refuses a package whose export
// data has bytes that belong to no export, since they would be lost.
func (p *Package) ForgetRaw() {
	for s := range p.kept {
		if s != int(secData) || p.loose == 0 {
			p.kept[s] = nil
		}
	}
}

// DecodeOptions control DecodePackage.
type DecodeOptions struct {
	// Layout, when not LayoutUnknown, is the layout to decode with instead
	// of the one detected from the data (from a container's version or a
	// user's --engine).
	Layout Layout
}

// packageError builds the *ue.FormatError of a package problem.
func packageError(file, structure string, off int64, format string, args ...any) error {
	return errorf(file, structure, off, ErrCorrupt, format, args...)
}

// DecodePackage decodes a zen package chunk (the uncompressed bytes of an
// ExportBundleData chunk, or a file extract wrote). name identifies it in
// errors. The layout is detected from the data unless opts gives one.
// Every count and offset is checked against the data before anything is
// allocated; errors are *ue.FormatError values wrapping ErrCorrupt. The
// returned package does not refer to data.
func DecodePackage(name string, data []byte, opts *DecodeOptions) (*Package, error) {
	l, err := decodeLayout(name, data, opts)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: name, data: data, total: len(data), c: binio.NewCursor(data, 0), p: &Package{Layout: l, size: len(data)}}
	return d.decode()
}

// decode decodes d.data, the whole package or (header only) its header.
func (d *decoder) decode() (*Package, error) {
	name, l := d.file, d.p.Layout
	d.c.SetKind(ErrCorrupt)
	var err error
	if l.IsUE5() {
		err = d.decodeUE5()
	} else {
		err = d.decodeUE4()
	}
	if err == nil {
		err = d.c.Err()
	}
	if err != nil {
		return nil, cursorError(name, "", err)
	}
	if err := d.mapData(); err != nil {
		return nil, err
	}
	if err := d.checkPaths(); err != nil {
		return nil, err
	}
	if d.headerOnly {
		d.p.dataless, d.p.header = true, d.headerEnd
		return d.p, nil
	}
	if err := d.keep(); err != nil {
		return nil, err
	}
	return d.p, nil
}

// headerPrefix is how much DecodePackageHeader reads before it knows where
// the header ends.
const headerPrefix = 64 << 10

// DecodePackageHeader decodes the header of the size-byte zen package read
// from r (a file pack stores, or a chunk), without its export data: it
// reads the header's bytes only, checks every part of the header as
// DecodePackage does and the export data's place against size, and returns
// a package whose exports have no Data and which has no Trailing bytes.
// Such a package gives its name, ids, store entry and export map, as a
// writer storing the package's bytes unchanged needs, in memory that
// follows the header, not the package; Encode refuses it
// (ErrNotEncodable): DecodePackage decodes a package to change it.
func DecodePackageHeader(name string, r io.ReaderAt, size int64, opts *DecodeOptions) (*Package, error) {
	p, _, err := decodeHeader(name, r, size, opts, false)
	return p, err
}

// decodeHeader is DecodePackageHeader; it also returns the header's bytes,
// and with stream set keeps the exports' sizes (see DecodePackageStream).
func decodeHeader(name string, r io.ReaderAt, size int64, opts *DecodeOptions, stream bool) (*Package, []byte, error) {
	if size < 0 || size > math.MaxInt32 {
		return nil, nil, errorf(name, "package summary", 0, ErrCorrupt, "%d bytes: a package chunk is under 2 GiB", size)
	}
	// The header ends where the 4.26/4.27 summary's graph data ends, or at
	// the UE5 summary's header size: read what either says, within size.
	first := make([]byte, min(size, headerPrefix))
	if err := readAt(name, r, first, 0); err != nil {
		return nil, nil, err
	}
	end := len(first)
	if len(first) >= 64 {
		if e := i32at(first, 52) + i32at(first, 56); e > int64(end) && e <= size {
			end = int(e)
		}
		if e := int64(binary.LittleEndian.Uint32(first[4:])); e > int64(end) && e <= size {
			end = int(e)
		}
	}
	data := first
	if end > len(first) {
		data = make([]byte, end)
		copy(data, first)
		if err := readAt(name, r, data[len(first):], int64(len(first))); err != nil {
			return nil, nil, err
		}
	}
	l, err := decodeLayout(name, data, opts)
	if err != nil {
		return nil, nil, err
	}
	d := &decoder{file: name, data: data, total: int(size), headerOnly: true, stream: stream, c: binio.NewCursor(data, 0), p: &Package{Layout: l, size: int(size)}}
	p, err := d.decode()
	if err != nil {
		return nil, nil, err
	}
	return p, data[:d.headerEnd], nil
}

// readAt fills b from r at off.
func readAt(name string, r io.ReaderAt, b []byte, off int64) error {
	if err := rangeio.ReadFull(r, b, off); err != nil {
		return fmt.Errorf("%s: read %d bytes at 0x%X: %w", name, len(b), off, err)
	}
	return nil
}

// decoder holds the state of one DecodePackage call.
type decoder struct {
	file string
	data []byte
	c    *binio.Cursor
	p    *Package
	// spans are the parts' byte ranges in data.
	spans [secCount][2]int
	// headerEnd is where the export data starts.
	headerEnd int
	// total is the package's size: len(data), or more when data is the
	// header only (headerOnly: the export data is checked against total
	// and not kept).
	total      int
	headerOnly bool
	// stream keeps what DecodePackageStream needs to copy the export data
	// from the source (stream.go).
	stream bool
	// namesSize and hashesSize are the 4.26/4.27 summary's sizes of the
	// name blob and hash list, kept for parts written raw.
	namesSize, hashesSize int
}

func (d *decoder) fail(structure string, off int, format string, args ...any) error {
	return packageError(d.file, structure, int64(off), format, args...)
}

// region checks that the part s lies at [start, end) inside the data and
// after the previous part, records it and seeks the cursor to start.
func (d *decoder) region(s section, start, end int, prev int) error {
	if start < prev || end < start || end > len(d.data) {
		return d.fail(sectionNames[s], start, "%s at 0x%X..0x%X does not fit between 0x%X and the end of the %d-byte package",
			sectionNames[s], start, end, prev, len(d.data))
	}
	d.spans[s] = [2]int{start, end}
	d.c.Seek(start, sectionNames[s])
	return nil
}

func mappedName(c *binio.Cursor, what string) MappedName {
	return MappedName{IndexAndType: c.U32(what), Number: c.U32(what)}
}

func objectIndices(c *binio.Cursor, n int, what string) []ObjectIndex {
	if n == 0 || c.Err() != nil {
		return nil
	}
	b := c.Bytes(8*n, what)
	if b == nil {
		return nil
	}
	out := make([]ObjectIndex, n)
	for i := range out {
		out[i] = ObjectIndex(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func (d *decoder) decodeUE4() error {
	c, p := d.c, d.p
	if len(d.data) < 64 {
		return d.fail("package summary", 0, "%d bytes, shorter than the 64-byte summary", len(d.data))
	}
	p.Name = mappedName(c, "package name")
	p.SourceName = mappedName(c, "source package name")
	p.PackageFlags = PackageFlags(c.U32("package flags"))
	p.CookedHeaderSize = c.U32("cooked header size")
	namesOff, namesSize := int(c.I32("name map offset")), int(c.I32("name map size"))
	hashesOff, hashesSize := int(c.I32("name hashes offset")), int(c.I32("name hashes size"))
	importsOff, exportsOff := int(c.I32("import map offset")), int(c.I32("export map offset"))
	bundlesOff := int(c.I32("export bundles offset"))
	graphOff, graphSize := int(c.I32("graph data offset")), int(c.I32("graph data size"))
	p.Pad = c.I32("summary pad")
	d.spans[secSummary] = [2]int{0, 64}

	end := graphOff + graphSize
	if graphSize < 0 || end < graphOff {
		return d.fail("package summary", 52, "graph data size %d is negative", graphSize)
	}
	// The names blob may be followed by a pad to 8; the hashes by the
	// import map. Each part runs to the next part's offset.
	if namesOff != 64 {
		return d.fail("package summary", 24, "name map at 0x%X; it follows the 64-byte summary", namesOff)
	}
	if err := d.region(secNames, namesOff, hashesOff, 64); err != nil {
		return err
	}
	d.namesSize, d.hashesSize = namesSize, hashesSize
	if namesSize < 0 || namesSize > hashesOff-namesOff {
		return d.fail("name map", 28, "name map size %d does not fit before the name hashes at 0x%X", namesSize, hashesOff)
	}
	blob := c.Bytes(namesSize, "name map")
	p.Names = decodeNameBlob(c, blob, namesOff)
	if err := d.region(secNameHashes, hashesOff, importsOff, hashesOff); err != nil {
		return err
	}
	if hashesSize < 8 || hashesSize%8 != 0 || hashesSize > importsOff-hashesOff || (hashesSize-8)/8 != len(p.Names) {
		return d.fail("name hashes", 36, "%d bytes of name hashes for %d names (want the algorithm id and one hash each, %d bytes)",
			hashesSize, len(p.Names), 8+8*len(p.Names))
	}
	p.hashAlgorithm = c.U64("name hash algorithm id")
	p.hashes = make([]uint64, len(p.Names))
	for i := range p.hashes {
		p.hashes[i] = c.U64("name hash")
	}
	if err := d.region(secImports, importsOff, exportsOff, importsOff); err != nil {
		return err
	}
	p.Imports = objectIndices(c, (exportsOff-importsOff)/8, "import map")
	if err := d.region(secExports, exportsOff, bundlesOff, exportsOff); err != nil {
		return err
	}
	p.Exports = d.exports((bundlesOff - exportsOff) / exportEntrySize)
	if err := d.region(secBundles, bundlesOff, graphOff, bundlesOff); err != nil {
		return err
	}
	if err := d.bundlesUE4(graphOff - bundlesOff); err != nil {
		return err
	}
	if err := d.region(secGraph, graphOff, end, graphOff); err != nil {
		return err
	}
	n := c.Count32("graph data package count", 12)
	for range n {
		g := GraphPackage{Package: PackageID(c.U64("graph data package id"))}
		arcs := c.Count32("graph data arc count", 8)
		for range arcs {
			g.Arcs = append(g.Arcs, Arc{c.I32("graph data arc"), c.I32("graph data arc")})
		}
		p.Graph = append(p.Graph, g)
	}
	if c.Err() == nil && c.Pos() != end {
		return d.fail("graph data", c.Pos(), "%d bytes after the last package of the graph data", end-c.Pos())
	}
	d.headerEnd = end
	return nil
}

// MaxPathTextRatio bounds the export paths of a package: all of them
// together, in characters, may be at most this many times the package's
// size (plus 64 KiB). The engine sets no limit on an object path, but every
// listing of a package prints each export's path, and deep outer chains of
// long names make those paths grow with the square of the package: 275 KB
// of 250 nested 1000-character names hold 31 MB of paths. Cooked packages
// hold less path text than bytes (of the 202 corpus packages, at most 0.64
// characters a byte), so the bound refuses only such constructions.
const MaxPathTextRatio = 8

// checkPaths refuses a package whose export paths (the package name and
// each export's outer chain of names) total more than MaxPathTextRatio
// times its size, and one whose outer chain loops (the engine would never
// finish naming the object). Each length is found once, from the outer's,
// so the check is linear in the export map. A chain that leaves the export
// map ends there, as in RelativePath.
func (d *decoder) checkPaths() error {
	p := d.p
	n := len(p.Exports)
	if n == 0 {
		return nil
	}
	const (
		todo = iota
		pending
		done
	)
	state := make([]uint8, n)
	length := make([]int, n)
	root := utf8.RuneCountInString(p.PackageName()) + 1
	limit := MaxPathTextRatio*d.total + 64<<10
	total := 0
	var chain []int
	for i := range p.Exports {
		for j := i; state[j] != done; {
			if state[j] == pending {
				return d.fail("export map", d.spans[secExports][0]+j*exportEntrySize,
					"export %d's outer chain loops back to it", j)
			}
			state[j] = pending
			chain = append(chain, j)
			o, ok := p.Exports[j].Outer.Export()
			if !ok || o >= n {
				break
			}
			j = o
		}
		for k := len(chain) - 1; k >= 0; k-- {
			j := chain[k]
			l := root
			if o, ok := p.Exports[j].Outer.Export(); ok && o < n {
				l = length[o] + 1 // done: the chain is filled in from its root
			}
			length[j], state[j] = l+utf8.RuneCountInString(p.ExportName(j)), done
			if total += length[j]; total > limit {
				return d.fail("export map", d.spans[secExports][0]+j*exportEntrySize,
					"the export paths up to export %d (%d outers deep) already total %d characters, over %d times the %d-byte package: unrmod refuses packages whose listings grow with the square of their size",
					j, len(chain)-1-k, total, MaxPathTextRatio, d.total)
			}
		}
		chain = chain[:0]
	}
	return nil
}

// exports reads n export map entries at the cursor.
func (d *decoder) exports(n int) []Export {
	c := d.c
	if n == 0 || c.Err() != nil || n*exportEntrySize > c.Len() {
		return nil
	}
	out := make([]Export, n)
	for i := range out {
		e := &out[i]
		e.SerialOffset = c.U64("export serial offset")
		size := c.U64("export serial size")
		e.ObjectName = mappedName(c, "export object name")
		e.Outer = ObjectIndex(c.U64("export outer"))
		e.Class = ObjectIndex(c.U64("export class"))
		e.Super = ObjectIndex(c.U64("export super"))
		e.Template = ObjectIndex(c.U64("export template"))
		e.PublicExportHash = c.U64("export public hash")
		e.ObjectFlags = ObjectFlags(c.U32("export object flags"))
		e.FilterFlags = c.U8("export filter flags")
		copy(e.Pad[:], c.Bytes(3, "export pad"))
		if size > uint64(d.total) {
			c.Fail("export serial size", fmt.Errorf("export %d: serial size %d exceeds the %d-byte package", i, size, d.total))
			return nil
		}
		e.DataOffset = int(size) // the size, until mapData places the data
	}
	return out
}

// bundlesUE4 reads the 4.26/4.27 export bundles: headers {FirstEntry,
// EntryCount} then the entries. Their count is in the store entry, not the
// package; it is the one k for which k headers and their entries fill the
// region exactly (each header's entries start where the previous ones end,
// so no smaller k can).
func (d *decoder) bundlesUE4(size int) error {
	c, p := d.c, d.p
	at := c.Pos()
	total := 0
	for k := 0; ; k++ {
		if ue4BundleHeaderSize*k+bundleEntrySize*total == size {
			break
		}
		if ue4BundleHeaderSize*(k+1)+bundleEntrySize*total > size {
			return d.fail("export bundles", at, "the %d bytes of export bundles are not whole bundle headers and entries", size)
		}
		b := ExportBundle{FirstEntry: c.U32("export bundle header"), EntryCount: c.U32("export bundle header")}
		if int(b.FirstEntry) != total || int64(b.EntryCount) > int64(size) {
			return d.fail(fmt.Sprintf("export bundle %d", k), at+ue4BundleHeaderSize*k,
				"starts at entry %d with %d entries; bundles follow each other from entry 0 (%d so far)", b.FirstEntry, b.EntryCount, total)
		}
		total += int(b.EntryCount)
		p.Bundles = append(p.Bundles, b)
	}
	p.BundleEntries = d.bundleEntries(total)
	return nil
}

func (d *decoder) bundleEntries(n int) []BundleEntry {
	c := d.c
	if n == 0 || c.Err() != nil || n*bundleEntrySize > c.Len() {
		return nil
	}
	out := make([]BundleEntry, n)
	for i := range out {
		out[i] = BundleEntry{Export: c.U32("export bundle entry"), Command: c.U32("export bundle entry")}
	}
	return out
}

func (d *decoder) decodeUE5() error {
	c, p, l := d.c, d.p, d.p.Layout
	size := l.summarySize()
	if len(d.data) < size {
		return d.fail("package summary", 0, "%d bytes, shorter than the %d-byte summary", len(d.data), size)
	}
	versioned := c.U32("versioning flag")
	headerSize := int(c.U32("header size"))
	p.Name = mappedName(c, "package name")
	p.PackageFlags = PackageFlags(c.U32("package flags"))
	p.CookedHeaderSize = c.U32("cooked header size")
	hashesOff, importsOff := int(c.I32("imported public export hashes offset")), int(c.I32("import map offset"))
	exportsOff, entriesOff := int(c.I32("export map offset")), int(c.I32("export bundle entries offset"))
	var graphOff, depHeadersOff, depEntriesOff, namesOff int
	if l.hasGraphData() {
		graphOff = int(c.I32("graph data offset"))
	} else {
		depHeadersOff = int(c.I32("dependency bundle headers offset"))
		depEntriesOff = int(c.I32("dependency bundle entries offset"))
		namesOff = int(c.I32("imported package names offset"))
	}
	d.spans[secSummary] = [2]int{0, size}
	if versioned > 1 {
		return d.fail("package summary", 0, "versioning flag %d is neither 0 nor 1", versioned)
	}
	if headerSize < size || headerSize > len(d.data) {
		return d.fail("package summary", 4, "header size %d lies outside the %d-byte package", headerSize, len(d.data))
	}

	at := c.Pos()
	if versioned == 1 {
		v := &Versioning{ZenVersion: c.U32("zen version"), FileVersionUE4: c.I32("UE4 file version"),
			FileVersionUE5: c.I32("UE5 file version"), Licensee: c.I32("licensee version")}
		n := c.Count32("custom versions", 20)
		for range n {
			var cv CustomVersion
			for k := range cv.Key {
				cv.Key[k] = c.U32("custom version")
			}
			cv.Version = c.I32("custom version")
			v.CustomVersions = append(v.CustomVersions, cv)
		}
		p.Versioning = v
	}
	d.spans[secVersioning] = [2]int{at, c.Pos()}
	cellImportsOff, cellExportsOff := entriesOff, entriesOff
	if l.hasCells() {
		at = c.Pos()
		cellImportsOff, cellExportsOff = int(c.I32("cell import map offset")), int(c.I32("cell export map offset"))
		d.spans[secCellOffsets] = [2]int{at, c.Pos()}
	}
	if c.Err() != nil {
		return nil
	}
	at = c.Pos()
	var hashes []uint64
	p.Names, hashes, p.hashAlgorithm = decodeNameBatch(c, "name map")
	p.hashes = hashes
	d.spans[secNames] = [2]int{at, c.Pos()}
	if c.Err() != nil {
		return nil
	}
	if l.hasBulkDataMap() {
		at = c.Pos()
		if l.hasBulkDataPad() {
			pad := c.U64("bulk-data map pad size")
			if pad > 7 {
				return d.fail("bulk-data map", at, "pad size %d; the pad only aligns to 8", pad)
			}
			c.Bytes(int(pad), "bulk-data map pad")
		}
		mapSize := c.I64("bulk-data map size")
		if c.Err() == nil && (mapSize < 0 || mapSize%bulkDataEntrySize != 0 || mapSize > int64(c.Len())) {
			return d.fail("bulk-data map", c.Pos()-8, "size %d is not whole 32-byte entries within the %d bytes left", mapSize, c.Len())
		}
		p.BulkData = make([]BulkDataEntry, mapSize/bulkDataEntrySize)
		for i := range p.BulkData {
			e := &p.BulkData[i]
			e.SerialOffset, e.DuplicateSerialOffset, e.SerialSize = c.I64("bulk-data entry"), c.I64("bulk-data entry"), c.I64("bulk-data entry")
			e.Flags, e.CookedIndex = c.U32("bulk-data entry"), c.U8("bulk-data entry")
			copy(e.Pad[:], c.Bytes(3, "bulk-data entry"))
		}
		d.spans[secBulkData] = [2]int{at, c.Pos()}
	}
	if c.Err() != nil {
		return nil
	}
	// The parts before the public export hashes run to its offset: any
	// bytes in between belong to the last of them.
	last := secNames
	if l.hasBulkDataMap() {
		last = secBulkData
	}
	if hashesOff < c.Pos() {
		return d.fail("package summary", 24, "imported public export hashes at 0x%X overlap the %s ending at 0x%X", hashesOff, sectionNames[last], c.Pos())
	}
	d.spans[last][1] = hashesOff

	// The parts located by the summary's offsets.
	graphEnd := graphOff
	if !l.hasGraphData() {
		graphEnd = depHeadersOff
	}
	type part struct {
		s          section
		start, end int
	}
	parts := []part{{secPublicHashes, hashesOff, importsOff}, {secImports, importsOff, exportsOff}, {secExports, exportsOff, cellImportsOff}}
	if l.hasCells() {
		parts = append(parts, part{secCellImports, cellImportsOff, cellExportsOff}, part{secCellExports, cellExportsOff, entriesOff})
	}
	parts = append(parts, part{secBundles, entriesOff, graphEnd})
	if l.hasGraphData() {
		parts = append(parts, part{secGraph, graphOff, headerSize})
	} else {
		parts = append(parts, part{secDepHeaders, depHeadersOff, depEntriesOff}, part{secDepEntries, depEntriesOff, namesOff},
			part{secImportedNames, namesOff, headerSize})
	}
	prev := hashesOff
	for _, pt := range parts {
		if err := d.region(pt.s, pt.start, pt.end, prev); err != nil {
			return err
		}
		prev = pt.end
		n := pt.end - pt.start
		switch pt.s {
		case secPublicHashes:
			if n > 0 {
				b := c.Bytes(n/8*8, "imported public export hashes")
				p.ImportedPublicExportHashes = make([]uint64, n/8)
				for i := range p.ImportedPublicExportHashes {
					p.ImportedPublicExportHashes[i] = binary.LittleEndian.Uint64(b[8*i:])
				}
			}
		case secImports:
			p.Imports = objectIndices(c, n/8, "import map")
		case secExports:
			p.Exports = d.exports(n / exportEntrySize)
		case secCellImports:
			p.CellImports = objectIndices(c, n/8, "cell import map")
		case secCellExports:
			for range n / cellExportEntrySize {
				p.CellExports = append(p.CellExports, CellExport{c.U64("cell export"), c.U64("cell export"), c.U64("cell export"),
					mappedName(c, "cell export"), c.U64("cell export")})
			}
		case secBundles:
			p.BundleEntries = d.bundleEntries(n / bundleEntrySize)
		case secGraph:
			if err := d.graphUE5(pt.end); err != nil {
				return err
			}
		case secDepHeaders:
			for range n / depHeaderSize {
				h := DependencyHeader{FirstEntry: c.I32("dependency bundle header")}
				for k := range h.Counts {
					h.Counts[k] = c.U32("dependency bundle header")
				}
				p.DependencyHeaders = append(p.DependencyHeaders, h)
			}
		case secDepEntries:
			for range n / 4 {
				p.DependencyEntries = append(p.DependencyEntries, c.I32("dependency bundle entry"))
			}
		case secImportedNames:
			names, _, _ := decodeNameBatch(c, "imported package names")
			if c.Err() == nil && len(names)*4 > c.Len() {
				return d.fail("imported package names", c.Pos(), "%d names need %d bytes of numbers, %d left", len(names), 4*len(names), c.Len())
			}
			for _, s := range names {
				p.ImportedPackages = append(p.ImportedPackages, PackageName{Name: s})
			}
			for i := range p.ImportedPackages {
				p.ImportedPackages[i].Number = c.I32("imported package name number")
			}
		}
		if c.Err() != nil {
			return nil
		}
	}
	d.headerEnd = headerSize
	return nil
}

// graphUE5 reads the 5.0–5.2 graph data up to end: the export bundle
// headers (their count is in the store entry; here it is the number of
// headers whose entries, following each other from entry 0, cover every
// bundle entry), the internal arcs, then one arc list per imported package
// up to end.
func (d *decoder) graphUE5(end int) error {
	c, p := d.c, d.p
	total := 0
	for total < len(p.BundleEntries) {
		at := c.Pos()
		b := ExportBundle{SerialOffset: c.U64("export bundle header"), FirstEntry: c.U32("export bundle header"), EntryCount: c.U32("export bundle header")}
		if c.Err() != nil {
			return nil
		}
		if int(b.FirstEntry) != total || b.EntryCount == 0 || int64(b.EntryCount) > int64(len(p.BundleEntries)-total) {
			return d.fail(fmt.Sprintf("export bundle %d", len(p.Bundles)), at,
				"starts at entry %d with %d entries; bundles follow each other over the %d entries (%d so far)",
				b.FirstEntry, b.EntryCount, len(p.BundleEntries), total)
		}
		total += int(b.EntryCount)
		p.Bundles = append(p.Bundles, b)
	}
	n := c.Count32("internal arc count", 8)
	for range n {
		p.InternalArcs = append(p.InternalArcs, Arc{c.I32("internal arc"), c.I32("internal arc")})
	}
	for c.Err() == nil && c.Pos() < end {
		n := c.Count32("external arc count", externalArcSize)
		arcs := make([]ExternalArc, 0, n)
		for range n {
			arcs = append(arcs, ExternalArc{c.I32("external arc"), c.U8("external arc"), c.I32("external arc")})
		}
		p.ExternalArcs = append(p.ExternalArcs, arcs)
	}
	if c.Err() == nil && c.Pos() != end {
		return d.fail("graph data", c.Pos(), "the external arcs run %d bytes past the header end at 0x%X", c.Pos()-end, end)
	}
	return nil
}

// mapData attributes the export data to the exports, as the loader reads
// it: in 4.26–5.2 bundle after bundle, each bundle's Serialize entries in
// order (4.26/4.27 from the header end, 5.0–5.2 from each bundle's serial
// offset); from 5.3 at HeaderSize + each export's serial offset.
func (d *decoder) mapData() error {
	p := d.p
	start := d.headerEnd
	d.spans[secData] = [2]int{start, d.total}
	sizes := make([]int, len(p.Exports))
	for i := range p.Exports {
		sizes[i], p.Exports[i].DataOffset = p.Exports[i].DataOffset, -1
	}
	place := func(i, at int) error {
		e := &p.Exports[i]
		if e.DataOffset >= 0 {
			return d.fail(fmt.Sprintf("export %d", i), start, "is serialized twice by the export bundles")
		}
		if at < start || at > d.total || sizes[i] > d.total-at {
			return d.fail(fmt.Sprintf("export %d", i), at, "%d bytes of data at 0x%X run past the end of the %d-byte package",
				sizes[i], at, d.total)
		}
		e.DataOffset = at
		if !d.headerOnly {
			e.Data = bytes.Clone(d.data[at : at+sizes[i]])
		}
		return nil
	}
	serialized := func(b ExportBundle, at int) (int, error) {
		for _, en := range p.BundleEntries[b.FirstEntry : b.FirstEntry+b.EntryCount] {
			if en.Command != CommandSerialize {
				continue
			}
			if int64(en.Export) >= int64(len(p.Exports)) {
				return 0, d.fail("export bundle entries", d.spans[secBundles][0], "entry for export %d of %d", en.Export, len(p.Exports))
			}
			if err := place(int(en.Export), at); err != nil {
				return 0, err
			}
			at += sizes[en.Export]
		}
		return at, nil
	}
	var err error
	switch {
	case !p.Layout.IsUE5():
		at := start
		for _, b := range p.Bundles {
			if at, err = serialized(b, at); err != nil {
				return err
			}
		}
	case p.Layout.hasGraphData():
		for _, b := range p.Bundles {
			if b.SerialOffset > uint64(d.total) {
				return d.fail("export bundle", start, "serial offset %d lies outside the %d-byte package", b.SerialOffset, d.total)
			}
			if _, err = serialized(b, start+int(b.SerialOffset)); err != nil {
				return err
			}
		}
	default:
		for i := range p.Exports {
			off := p.Exports[i].SerialOffset
			if off > uint64(d.total) {
				return d.fail(fmt.Sprintf("export %d", i), d.spans[secExports][0]+i*exportEntrySize,
					"serial offset %d lies outside the %d-byte package", off, d.total)
			}
			if err := place(i, start+int(off)); err != nil {
				return err
			}
		}
	}
	// Exports that are never serialized must be empty; the rest must not
	// overlap. What lies between exports is loose, what follows them
	// trailing.
	type span struct{ at, end, i int }
	var spans []span
	for i := range p.Exports {
		e := &p.Exports[i]
		if e.DataOffset < 0 {
			if sizes[i] != 0 {
				return d.fail(fmt.Sprintf("export %d", i), d.spans[secExports][0]+i*exportEntrySize,
					"has %d bytes of data but no Serialize entry in the export bundles", sizes[i])
			}
			e.DataOffset = start
			continue
		}
		spans = append(spans, span{e.DataOffset, e.DataOffset + sizes[i], i})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.at - b.at })
	end := start
	for _, s := range spans {
		if s.at < end {
			return d.fail(fmt.Sprintf("export %d", s.i), s.at, "its data overlaps another export's, which ends at 0x%X", end)
		}
		p.loose += s.at - end
		end = s.end
	}
	if end < d.total && !d.headerOnly {
		p.Trailing = bytes.Clone(d.data[end:])
	}
	if d.stream {
		p.stream = &streamSource{Exports: rangeio.Exports{Sizes: sizes}, dataEnd: end}
	}
	return nil
}

// keep compares every part with its canonical encoding and keeps the
// original bytes of those that differ. It then checks that the package
// encodes back to data: what DecodePackage returns always does.
func (d *decoder) keep() error {
	p := d.p
	if d.canonical() {
		return nil
	}
	var canon [secCount][]byte
	out, err := p.encode(nil, &canon)
	if err != nil {
		return packageError(d.file, "package", -1, "the decoded package cannot be encoded again: %v", err)
	}
	if bytes.Equal(out, d.data) {
		return nil
	}
	for _, s := range p.Layout.sections() {
		raw := d.data[d.spans[s][0]:d.spans[s][1]]
		if !bytes.Equal(canon[s], raw) {
			k := &kept{canon: canon[s], raw: bytes.Clone(raw)}
			switch s {
			case secNames:
				k.size = d.namesSize
			case secNameHashes:
				k.size = d.hashesSize
			}
			p.kept[s] = k
		}
	}
	if out, err = p.encode(nil, nil); err != nil || !bytes.Equal(out, d.data) {
		at := 0
		for at < len(out) && at < len(d.data) && out[at] == d.data[at] {
			at++
		}
		return packageError(d.file, "package", int64(at), "its parts are not laid out in a way unrmod can reproduce (first difference at 0x%X)", at)
	}
	return nil
}

// canonical reports whether the package encodes back to d.data as it is,
// as keep's first comparison finds for every package the engine wrote,
// without encoding and comparing its export data: the header is encoded
// and compared, and the data part is the one encode writes when every
// export's data lies where the plan puts it, one after another from the
// header's end, and the trailing bytes fill the rest. mapData copied each
// export's Data from its DataOffset and Trailing from the end, so the
// bytes then agree by construction.
func (d *decoder) canonical() bool {
	p := d.p
	hdr, pl, err := p.encodeHeader()
	if err != nil || pl.isRaw || d.headerEnd+pl.size != d.total || !bytes.Equal(hdr, d.data[:d.headerEnd]) {
		return false
	}
	for _, i := range pl.order {
		e := &p.Exports[i]
		if len(e.Data) > 0 && e.DataOffset != d.headerEnd+int(pl.at[i]) {
			return false
		}
	}
	// The exports' data then spans headerEnd to total minus the trailing
	// bytes, which mapData took from there.
	return true
}

// decodeLayout returns the layout a package is decoded with: opts's, or the
// one detected from data.
func decodeLayout(name string, data []byte, opts *DecodeOptions) (Layout, error) {
	l := LayoutUnknown
	if opts != nil {
		l = opts.Layout
	}
	if l == LayoutUnknown {
		var err error
		if l, err = DetectLayout(data); err != nil {
			return 0, errorf(name, "package summary", 0, ErrCorrupt, "%v", err)
		}
	}
	if l > layoutLast {
		return 0, errorf(name, "package summary", 0, ErrUnsupportedVersion, "unknown layout %d", l)
	}
	return l, nil
}
