package zen

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// This file decodes and encodes the container-header chunk (the package
// store of one container): docs/iostore.md §5. Every multi-byte value is
// little-endian.

// HeaderSignature is the uint32 that starts every UE5 container header
// (bytes "nCoI"). UE 4.25–4.27 headers have no signature.
const HeaderSignature uint32 = 0x496F436E

// MaxContainerHeaderSize is the size of the largest container header unrmod
// reads: a few dozen bytes per package, so even a container of a million
// packages stays far below it.
const MaxContainerHeaderSize = 128 << 20

// MaxPackageSize is the size of the largest zen package: its offsets are
// 32-bit.
const MaxPackageSize = 1<<32 - 1

// HeaderVersion is EIoContainerHeaderVersion, plus
// HeaderUE4 for the un-versioned UE 4.25–4.27 layout.
type HeaderVersion int32

// Container-header versions, with the engine releases that write them.
const (
	// HeaderUE4 is the UE 4.25–4.27 layout: no signature or version
	// field, 32-byte store entries (16 in some licensee builds), a
	// container name batch and a culture package map.
	HeaderUE4 HeaderVersion = -1
	// HeaderInitial (0) is the UE 5.0 pre-release layout.
	HeaderInitial HeaderVersion = 0
	// HeaderLocalizedPackages (1), UE 5.0, adds the localized
	// package list.
	HeaderLocalizedPackages HeaderVersion = 1
	// HeaderOptionalSegmentPackages (2), UE 5.1–5.2, drops the
	// package count and adds the optional segment's packages and entries.
	HeaderOptionalSegmentPackages HeaderVersion = 2
	// HeaderNoExportInfo (3), UE 5.3–5.4, drops ExportCount and
	// ExportBundleCount from the store entries (16 bytes each).
	HeaderNoExportInfo HeaderVersion = 3
	// HeaderSoftPackageReferences (4), UE 5.5, adds the soft package
	// references after the redirects.
	HeaderSoftPackageReferences HeaderVersion = 4
	// HeaderSoftPackageReferencesOffset (5), UE 5.6–5.8, puts an
	// offset and size in front of the soft package references so loaders can
	// skip them.
	HeaderSoftPackageReferencesOffset HeaderVersion = 5

	// HeaderLatest is the newest version this package knows.
	HeaderLatest = HeaderSoftPackageReferencesOffset
)

var containerHeaderVersionNames = [...]string{
	"UE4", "Initial", "LocalizedPackages", "OptionalSegmentPackages",
	"NoExportInfo", "SoftPackageReferences", "SoftPackageReferencesOffset",
}

// Known reports whether v is a version this package can decode and encode.
func (v HeaderVersion) Known() bool {
	return v >= HeaderUE4 && v <= HeaderLatest
}

// String returns the engine's name of the version, e.g.
// "SoftPackageReferencesOffset", "UE4" for the un-versioned layout.
func (v HeaderVersion) String() string {
	if !v.Known() {
		return fmt.Sprintf("HeaderVersion(%d)", int32(v))
	}
	return containerHeaderVersionNames[v+1]
}

// Engine returns the engine releases known to write v (the rows of
// ue.Releases), e.g. "5.6–5.8", or "" for an unknown version.
func (v HeaderVersion) Engine() string {
	if !v.Known() {
		return ""
	}
	if v == HeaderInitial {
		return "5.0 pre-release"
	}
	var rs []ue.Release
	for _, row := range ue.Releases() {
		if row.ContainerHeaderVersion == int8(v) {
			rs = append(rs, row.Release)
		}
	}
	return ue.Span(rs, "–")
}

// NewestEngine returns the newest release unrmod knows the zen formats of
// that writes v, or the zero Engine when there is none.
func (v HeaderVersion) NewestEngine() Engine {
	var e Engine
	for _, x := range Engines() {
		if x.HeaderVersion() == v {
			e = x
		}
	}
	return e
}

// Layout differences: one predicate each, named after what changed.

func (v HeaderVersion) hasSignature() bool       { return v >= HeaderInitial }
func (v HeaderVersion) hasNameBlobs() bool       { return v < HeaderInitial }
func (v HeaderVersion) hasNameBatch() bool       { return v >= HeaderInitial }
func (v HeaderVersion) hasCultureMap() bool      { return v < HeaderInitial }
func (v HeaderVersion) hasRedirectNames() bool   { return v >= HeaderInitial }
func (v HeaderVersion) hasBundleSizeLoad() bool  { return v < HeaderInitial }
func (v HeaderVersion) hasShaderMapHashes() bool { return v >= HeaderInitial }
func (v HeaderVersion) hasLocalized() bool       { return v >= HeaderLocalizedPackages }
func (v HeaderVersion) hasPackageCount() bool {
	return v < HeaderOptionalSegmentPackages
}
func (v HeaderVersion) hasOptionalSegment() bool {
	return v >= HeaderOptionalSegmentPackages
}
func (v HeaderVersion) hasExportInfo() bool { return v < HeaderNoExportInfo }
func (v HeaderVersion) hasSoftRefs() bool   { return v >= HeaderSoftPackageReferences }
func (v HeaderVersion) hasSoftRefsOffset() bool {
	return v >= HeaderSoftPackageReferencesOffset
}

// Errors. Decoding and encoding return *ue.FormatError values whose Struct
// starts with "container header " and whose Offset is within the chunk (-1
// for encoding problems, which have no offset). They wrap ErrCorrupt,
// ErrUnsupportedVersion (a signature with an unknown version) or
// ErrNotEncodable.

// chError builds the *ue.FormatError of a container-header problem.
func chError(file, structure string, off int64, cause error, format string, args ...any) error {
	return errorf(file, "container header "+structure, off, cause, format, args...)
}

// The model.

// ContainerHeader is a decoded container-header chunk. It holds everything
// the chunk holds, so that Encode reproduces an unchanged header byte for
// byte; parts whose bytes were not in the layout Encode produces (see
// KeptRaw) are written from their original bytes as long as that part of the
// model is unchanged.
type ContainerHeader struct {
	Version HeaderVersion `json:"version"`
	// ContainerID equals the TOC's ContainerId (cityhash.ContainerID of the
	// container's base name).
	ContainerID ContainerID `json:"container_id"`
	// Packages are the package ids with their store entries, in file order.
	Packages []StoreEntry `json:"packages"`
	// OptionalSegmentPackages are the optional segment's packages (version 2+).
	OptionalSegmentPackages []StoreEntry `json:"optional_segment_packages,omitempty"`
	// CompactStoreEntries selects the 16-byte UE4 store entry of some
	// licensee builds (no ExportBundlesSize, LoadOrder); UE4 only.
	CompactStoreEntries bool `json:"compact_store_entries,omitempty"`
	// ShaderMapHashSize is the size of one shader map hash: 20 (SHA-1, UE
	// 5.0–5.7) or 8 (UE 5.8, same header version). Decode sets it when the
	// header holds shader map hashes and leaves 0 otherwise; Encode treats 0
	// as 20.
	ShaderMapHashSize int `json:"shader_map_hash_size,omitempty"`
	// Names is the container-local name map referenced by the FMappedNames
	// below (UE4: the Names batch, normally empty; UE5: RedirectsNameMap).
	// Encode writes their hashes with cityhash.NameHash.
	Names []string `json:"names,omitempty"`
	// LocalizedPackages lists the packages that have localized variants
	// (version 1+).
	LocalizedPackages []LocalizedPackage `json:"localized_packages,omitempty"`
	// Cultures is the UE4 culture package map, in file order.
	Cultures []Culture `json:"cultures,omitempty"`
	// Redirects are the package redirects (SourceName is UE5 only).
	Redirects []Redirect `json:"redirects,omitempty"`
	// SoftReferences are the soft package references (version 4+); nil when
	// the header says it has none.
	SoftReferences *SoftReferences `json:"soft_references,omitempty"`
	// Trailing holds any bytes after the last structure (e.g. padding to 16).
	Trailing []byte `json:"trailing,omitempty"`

	kept [chSectionCount]*chKept
}

// StoreEntry is one package's entry in the package store (FFilePackageStoreEntry).
// Fields the header version does not store are zero.
type StoreEntry struct {
	PackageID PackageID `json:"package_id"`
	// ExportBundlesSize is the package chunk's size (UE4, standard entry only).
	ExportBundlesSize uint64 `json:"export_bundles_size,omitempty"`
	// LoadOrder is the UE4 load order (standard entry only).
	LoadOrder uint32 `json:"load_order,omitempty"`
	// ExportCount and ExportBundleCount must equal the package's export and
	// export-bundle counts (UE4 and versions below NoExportInfo).
	ExportCount       int32 `json:"export_count,omitempty"`
	ExportBundleCount int32 `json:"export_bundle_count,omitempty"`
	// ImportedPackages are the ids of the packages this one imports, in the
	// order the package's import map refers to them (UE5).
	ImportedPackages []PackageID `json:"imported_packages,omitempty"`
	// ShaderMapHashes are the package's shader map hashes (UE5), each
	// ShaderMapHashSize bytes.
	ShaderMapHashes [][]byte `json:"shader_map_hashes,omitempty"`
}

// LocalizedPackage names a package with localized variants.
type LocalizedPackage struct {
	SourcePackageID PackageID  `json:"source_package_id"`
	SourceName      MappedName `json:"source_name"`
}

// Culture is one UE4 culture with its (source, localized)
// package id pairs.
type Culture struct {
	Culture  string          `json:"culture"`
	Packages []LocalizedPair `json:"packages"`
}

// LocalizedPair maps a source package to its localized
// variant (UE4 culture map).
type LocalizedPair struct {
	SourcePackageID    PackageID `json:"source_package_id"`
	LocalizedPackageID PackageID `json:"localized_package_id"`
}

// Redirect redirects a package id to another; SourceName is
// stored from version 0 on.
type Redirect struct {
	SourcePackageID PackageID  `json:"source_package_id"`
	TargetPackageID PackageID  `json:"target_package_id"`
	SourceName      MappedName `json:"source_name"`
}

// SoftReferences are the soft package references of versions
// 4 and 5: the referenced package ids, and for each package of Packages the
// indices into PackageIDs of the packages it references softly.
type SoftReferences struct {
	PackageIDs []PackageID `json:"package_ids"`
	Indices    [][]uint32  `json:"indices"`
}

// Sections: the parts of the header, in file order. A part whose bytes do not
// match its canonical encoding keeps its raw bytes (chKept).

type chSection int

const (
	chPreamble chSection = iota // signature, version, container id
	chPackageCount
	chNameBlobs // UE4 Names + NameHashes
	chPackages
	chOptionalPackages
	chNameBatch // UE5 RedirectsNameMap
	chLocalized
	chCultures
	chRedirects
	chSoftReferences
	chSectionCount
)

var chSectionNames = [chSectionCount]string{
	"preamble", "package count", "names and name hashes", "packages", "optional segment packages",
	"redirects name map", "localized packages", "culture package map", "package redirects",
	"soft package references",
}

// chKept holds a part's original bytes and the canonical encoding of the
// decoded model part; Encode writes raw while the model still encodes to canon.
type chKept struct{ canon, raw []byte }

func (v HeaderVersion) sections() []chSection {
	s := []chSection{chPreamble}
	if v.hasPackageCount() {
		s = append(s, chPackageCount)
	}
	if v.hasNameBlobs() {
		s = append(s, chNameBlobs)
	}
	s = append(s, chPackages)
	if v.hasOptionalSegment() {
		s = append(s, chOptionalPackages)
	}
	if v.hasNameBatch() {
		s = append(s, chNameBatch)
	}
	if v.hasLocalized() {
		s = append(s, chLocalized)
	}
	if v.hasCultureMap() {
		s = append(s, chCultures)
	}
	s = append(s, chRedirects)
	if v.hasSoftRefs() {
		s = append(s, chSoftReferences)
	}
	return s
}

// KeptRaw names the parts of the header whose bytes are not laid out the way
// Encode lays out the model (e.g. stale name hashes, unused array offsets,
// gaps). Encode writes their original bytes while the model part is
// unchanged. Engine-written headers have none.
func (h *ContainerHeader) KeptRaw() []string {
	var out []string
	for s, k := range h.kept {
		if k != nil {
			out = append(out, chSectionNames[s])
		}
	}
	return out
}

// Store-entry layouts.

type chEntryLayout struct {
	size       int
	bundleSize int // offset of ExportBundlesSize; -1 if absent
	loadOrder  int // offset of LoadOrder (a zero pad follows); -1 if absent
	exportInfo int // offset of ExportCount, ExportBundleCount at +4; -1 if absent
	imported   int // offset of the ImportedPackages view
	shaders    int // offset of the ShaderMapHashes view; -1 if absent
}

func (h *ContainerHeader) entryLayout() chEntryLayout {
	v := h.Version
	full := v.hasBundleSizeLoad() && !h.CompactStoreEntries
	l := chEntryLayout{bundleSize: -1, exportInfo: -1, loadOrder: -1, shaders: -1}
	if full {
		l.bundleSize, l.size = l.size, l.size+8 // uint64 ExportBundlesSize
	}
	if v.hasExportInfo() {
		l.exportInfo, l.size = l.size, l.size+8 // int32 ExportCount, int32 ExportBundleCount
	}
	if full {
		l.loadOrder, l.size = l.size, l.size+8 // uint32 LoadOrder, uint32 pad
	}
	l.imported, l.size = l.size, l.size+8
	if v.hasShaderMapHashes() {
		l.shaders, l.size = l.size, l.size+8
	}
	return l
}

func (h *ContainerHeader) shaderHashSize() int {
	if h.ShaderMapHashSize == 0 {
		return 20
	}
	return h.ShaderMapHashSize
}

// Decoding.

// chFail records a container-header problem at position at of the chunk.
func chFail(c *binio.Cursor, at int, structure, format string, args ...any) {
	c.FailAt(at, structure, fmt.Errorf(format, args...))
}

func chIDs(c *binio.Cursor, structure string) []PackageID {
	n := c.Count32(structure, 8)
	if c.Err() != nil || n == 0 {
		return nil
	}
	b := c.Bytes(8*n, structure)
	out := make([]PackageID, n)
	for i := range out {
		out[i] = PackageID(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func chMappedName(c *binio.Cursor, structure string) MappedName {
	return MappedName{IndexAndType: c.U32(structure), Number: c.U32(structure)}
}

// DecodeContainerHeader decodes a container-header chunk (the uncompressed,
// decrypted bytes of the chunk of type ContainerHeader). name identifies the
// source in error messages. It detects the layout from the data: with the
// "nCoI" signature the version field selects it, without it the UE4 layout
// applies. Errors are *ue.FormatError values (Struct "container header ...",
// Offset within data) wrapping ErrCorrupt or
// ErrUnsupportedVersion.
func DecodeContainerHeader(name string, data []byte) (*ContainerHeader, error) {
	c := binio.NewCursor(data, 0)
	c.SetKind(ErrCorrupt)
	h := &ContainerHeader{Version: HeaderUE4}
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == HeaderSignature {
		c.Seek(4, "signature")
		h.Version = HeaderVersion(c.I32("version"))
		if c.Err() != nil {
			return nil, cursorError(name, "container header ", c.Err())
		}
		if !h.Version.Known() || !h.Version.hasSignature() {
			return nil, chError(name, "version", 4, ErrUnsupportedVersion,
				"version %d is not one of the known versions 0..%d (UE 5.0–5.8); a newer engine may need a newer unrmod",
				int32(h.Version), int32(HeaderLatest))
		}
		c.Seek(0, "signature")
	}
	sections := h.Version.sections()
	var spans [chSectionCount][2]int
	for _, s := range sections {
		start := c.Pos()
		h.decodeSection(c, data, s)
		if c.Err() != nil {
			return nil, cursorError(name, "container header ", c.Err())
		}
		spans[s] = [2]int{start, c.Pos()}
	}
	if c.Pos() < len(data) {
		h.Trailing = bytes.Clone(data[c.Pos():])
	}
	for _, s := range sections {
		start, end := spans[s][0], spans[s][1]
		canon, err := h.encodeSection(make([]byte, 0, end-start), s, start)
		if err != nil {
			// Decoding only builds encodable models; report rather than panic.
			return nil, chError(name, chSectionNames[s], int64(start), ErrCorrupt,
				"decoded part cannot be encoded again: %v", err)
		}
		if !bytes.Equal(canon, data[start:end]) {
			h.kept[s] = &chKept{canon: canon, raw: bytes.Clone(data[start:end])}
		}
	}
	return h, nil
}

func (h *ContainerHeader) decodeSection(c *binio.Cursor, data []byte, s chSection) {
	switch s {
	case chPreamble:
		if h.Version.hasSignature() {
			c.U32("signature")
			c.U32("version")
		}
		h.ContainerID = ContainerID(c.U64("container id"))
	case chPackageCount:
		c.U32("package count") // Encode writes len(Packages); a different value is kept raw
	case chNameBlobs:
		at := c.Pos()
		names := c.Bytes(c.Count32("names", 1), "names")
		c.Bytes(c.Count32("name hashes", 1), "name hashes") // rebuilt from Names; a different list is kept raw
		if c.Err() == nil {
			h.Names = decodeNameBlob(c, names, at+4)
		}
	case chPackages:
		h.Packages = h.decodePackages(c, "")
	case chOptionalPackages:
		h.OptionalSegmentPackages = h.decodePackages(c, "optional segment ")
	case chNameBatch:
		h.Names, _, _ = decodeNameBatch(c, "redirects name map")
	case chLocalized:
		n := c.Count32("localized packages", 16)
		if n > 0 {
			h.LocalizedPackages = make([]LocalizedPackage, n)
			for i := range h.LocalizedPackages {
				e := &h.LocalizedPackages[i]
				e.SourcePackageID = PackageID(c.U64("localized package"))
				e.SourceName = chMappedName(c, "localized package")
			}
		}
	case chCultures:
		h.Cultures = chDecodeCultures(c)
	case chRedirects:
		size := 16
		if h.Version.hasRedirectNames() {
			size = 24
		}
		n := c.Count32("package redirects", size)
		if n > 0 {
			h.Redirects = make([]Redirect, n)
			for i := range h.Redirects {
				e := &h.Redirects[i]
				e.SourcePackageID = PackageID(c.U64("package redirect"))
				e.TargetPackageID = PackageID(c.U64("package redirect"))
				if h.Version.hasRedirectNames() {
					e.SourceName = chMappedName(c, "package redirect")
				}
			}
		}
	case chSoftReferences:
		h.decodeSoftReferences(c, data)
	}
}

// decodePackages reads a PackageIds array and the StoreEntries blob after it.
func (h *ContainerHeader) decodePackages(c *binio.Cursor, prefix string) []StoreEntry {
	ids := chIDs(c, prefix+"package ids")
	blobAt := c.Pos() + 4
	blob := c.Bytes(c.Count32(prefix+"store entries", 1), prefix+"store entries")
	if c.Err() != nil {
		return nil
	}
	if h.Version.hasBundleSizeLoad() {
		// Standard 32-byte entries, or the 16-byte licensee variant: take the
		// one the blob is laid out for (iostore.md §5.1).
		h.CompactStoreEntries = false
		std := chEntriesPacked(blob, len(ids), h.entryLayout(), 0)
		h.CompactStoreEntries = true
		compact := chEntriesPacked(blob, len(ids), h.entryLayout(), 0)
		h.CompactStoreEntries = compact && !std || len(blob) < 32*len(ids)
	}
	l := h.entryLayout()
	if int64(len(ids))*int64(l.size) > int64(len(blob)) {
		chFail(c, blobAt, prefix+"store entries", "%d entries of %d bytes need %d bytes, the blob has %d", len(ids), l.size, len(ids)*l.size, len(blob))
		return nil
	}
	fixedEnd := len(ids) * l.size

	// Shader map hashes are 20 bytes, except in UE 5.8, which shrank them to
	// 8 without a version bump: take 8 when the blob is laid out for it.
	hashSize := 20
	if l.shaders >= 0 && chEntriesPacked(blob, len(ids), l, 8) && !chEntriesPacked(blob, len(ids), l, 20) {
		hashSize = 8
	}

	// Check every view before allocating anything: inside the array area
	// and not overlapping another, so the arrays total at most the blob.
	views := make([]chView, 0, len(ids))
	hasHashes := false
	var importCount int
	for i := range ids {
		place := chPlace{prefix: prefix, entry: i, id: ids[i]}
		place.what = "imported packages"
		v, ok := chReadView(c, blob, blobAt, i*l.size+l.imported, fixedEnd, 8, place)
		if !ok {
			return nil
		}
		if v.num > 0 {
			views = append(views, v)
			importCount += v.num
		}
		if l.shaders >= 0 {
			place.what = "shader map hashes"
			v, ok := chReadView(c, blob, blobAt, i*l.size+l.shaders, fixedEnd, hashSize, place)
			if !ok {
				return nil
			}
			if v.num > 0 {
				views = append(views, v)
				hasHashes = true
			}
		}
	}
	if !chViewsDisjoint(c, views, blobAt, prefix+"store entries") {
		return nil
	}
	if hasHashes {
		if h.ShaderMapHashSize != 0 && h.ShaderMapHashSize != hashSize {
			chFail(c, blobAt, prefix+"store entries", "shader map hashes are %d bytes here but %d bytes in the other segment", hashSize, h.ShaderMapHashSize)
			return nil
		}
		h.ShaderMapHashSize = hashSize
	}

	if len(ids) == 0 {
		return nil
	}
	entries := make([]StoreEntry, len(ids))
	imports := make([]PackageID, importCount) // one backing array; each entry gets a capped slice
	for i := range entries {
		e := &entries[i]
		e.PackageID = ids[i]
		base := blob[i*l.size:]
		if l.bundleSize >= 0 {
			e.ExportBundlesSize = binary.LittleEndian.Uint64(base[l.bundleSize:])
			e.LoadOrder = binary.LittleEndian.Uint32(base[l.loadOrder:])
		}
		if l.exportInfo >= 0 {
			e.ExportCount = int32(binary.LittleEndian.Uint32(base[l.exportInfo:]))
			e.ExportBundleCount = int32(binary.LittleEndian.Uint32(base[l.exportInfo+4:]))
		}
		if l.imported >= 0 {
			if v := chViewAt(blob, i*l.size+l.imported); v.num > 0 {
				e.ImportedPackages, imports = imports[:v.num:v.num], imports[v.num:]
				for k := range e.ImportedPackages {
					e.ImportedPackages[k] = PackageID(binary.LittleEndian.Uint64(blob[v.start+8*k:]))
				}
			}
		}
		if l.shaders >= 0 {
			if v := chViewAt(blob, i*l.size+l.shaders); v.num > 0 {
				all := bytes.Clone(blob[v.start : v.start+hashSize*v.num])
				e.ShaderMapHashes = make([][]byte, v.num)
				for k := range e.ShaderMapHashes {
					e.ShaderMapHashes[k] = all[hashSize*k : hashSize*(k+1) : hashSize*(k+1)]
				}
			}
		}
	}
	return entries
}

// chEntriesPacked reports whether blob holds n entries of layout l followed
// by their arrays packed in entry order, exactly filling the blob.
func chEntriesPacked(blob []byte, n int, l chEntryLayout, hashSize int) bool {
	if int64(n)*int64(l.size) > int64(len(blob)) {
		return false
	}
	next := int64(n * l.size)
	for i := range n {
		for _, f := range []int{l.imported, l.shaders} {
			if f < 0 {
				continue
			}
			p := i*l.size + f
			num := int64(binary.LittleEndian.Uint32(blob[p:]))
			off := int64(binary.LittleEndian.Uint32(blob[p+4:]))
			if num == 0 {
				continue
			}
			if int64(p)+off != next {
				return false
			}
			size := int64(8)
			if f == l.shaders {
				size = int64(hashSize)
			}
			next += num * size
		}
	}
	return next == int64(len(blob))
}

// chView is an array view {ArrayNum, OffsetToDataFromThis} resolved to a
// position in its blob; end is start + num × element size.
type chView struct{ num, start, end int }

func chViewAt(blob []byte, p int) chView {
	num := int(binary.LittleEndian.Uint32(blob[p:]))
	if num == 0 {
		return chView{}
	}
	start := p + int(binary.LittleEndian.Uint32(blob[p+4:]))
	return chView{num: num, start: start}
}

// chPlace names the owner of an array view in error messages.
type chPlace struct {
	what, prefix string // e.g. "imported packages", "optional segment "
	entry        int
	id           PackageID
}

// String names the place for messages.
func (p chPlace) String() string {
	if p.prefix == "soft" {
		return fmt.Sprintf("soft package references of package %d (%v)", p.entry, p.id)
	}
	return fmt.Sprintf("%s of %sstore entry %d (package %v)", p.what, p.prefix, p.entry, p.id)
}

func (p chPlace) entryString() string {
	return fmt.Sprintf("%sstore entry %d (package %v)", p.prefix, p.entry, p.id)
}

// chReadView reads the view at p and checks that its num elements of size
// bytes lie in blob[fixedEnd:].
func chReadView(c *binio.Cursor, blob []byte, blobAt, p, fixedEnd, size int, place chPlace) (chView, bool) {
	num := int64(binary.LittleEndian.Uint32(blob[p:]))
	off := int64(binary.LittleEndian.Uint32(blob[p+4:]))
	if num == 0 {
		return chView{}, true
	}
	start := int64(p) + off
	if end := start + num*int64(size); start < int64(fixedEnd) || end > int64(len(blob)) {
		chFail(c, blobAt+p, place.String(), "%d elements of %d bytes at offset +0x%X from the view lie outside the array area 0x%X..0x%X of the blob",
			num, size, off, fixedEnd, len(blob))
		return chView{}, false
	}
	return chView{num: int(num), start: int(start), end: int(start + num*int64(size))}, true
}

// chViewsDisjoint fails when two arrays share bytes: the engine never writes
// that, and refusing it bounds what decoding allocates by the input size.
func chViewsDisjoint(c *binio.Cursor, views []chView, blobAt int, structure string) bool {
	slices.SortFunc(views, func(a, b chView) int { return a.start - b.start })
	for i := 1; i < len(views); i++ {
		if views[i].start < views[i-1].end {
			chFail(c, blobAt+views[i].start, structure, "arrays at blob offsets 0x%X and 0x%X overlap", views[i-1].start, views[i].start)
			return false
		}
	}
	return true
}

func chDecodeCultures(c *binio.Cursor) []Culture {
	n := c.Count32("culture package map", 8) // FString length + pair count at least
	if c.Err() != nil || n == 0 {
		return nil
	}
	out := make([]Culture, n)
	for i := range out {
		what := fmt.Sprintf("culture %d", i)
		out[i].Culture = c.FString32(what + " name")
		m := c.Count32(what+" packages", 16)
		if c.Err() != nil {
			return nil
		}
		if m > 0 {
			out[i].Packages = make([]LocalizedPair, m)
			for k := range out[i].Packages {
				out[i].Packages[k] = LocalizedPair{PackageID(c.U64(what)), PackageID(c.U64(what))}
			}
		}
	}
	return out
}

// decodeSoftReferences reads version 4's inline soft references or version
// 5's {offset, size} followed by the block.
func (h *ContainerHeader) decodeSoftReferences(c *binio.Cursor, data []byte) {
	if !h.Version.hasSoftRefsOffset() {
		h.SoftReferences = h.decodeSoftReferenceBlock(c)
		return
	}
	at := c.Pos()
	off := int64(c.U64("soft package references offset"))
	size := int64(c.U64("soft package references size"))
	if c.Err() != nil || size == 0 {
		return
	}
	if size < 0 || size > int64(c.Len()) {
		chFail(c, at, "soft package references", "size %d does not fit in the %d bytes after it", size, c.Len())
		return
	}
	if off < 0 || off > int64(len(data)) || size > int64(len(data))-off {
		chFail(c, at, "soft package references", "offset 0x%X and size %d lie outside the chunk (0x%X bytes)", off, size, len(data))
		return
	}
	// Loaders read the block at Offset; the engine writes it right here.
	sub := binio.NewCursor(data[:off+size], 0)
	sub.SetKind(ErrCorrupt)
	sub.Seek(int(off), "soft package references")
	h.SoftReferences = h.decodeSoftReferenceBlock(sub)
	if err := sub.Err(); err != nil {
		c.Propagate(err)
		return
	}
	c.Bytes(int(size), "soft package references")
}

func (h *ContainerHeader) decodeSoftReferenceBlock(c *binio.Cursor) *SoftReferences {
	if c.U32("soft package references flag") == 0 || c.Err() != nil {
		return nil
	}
	ids := chIDs(c, "soft package reference ids")
	at := c.Pos() + 4
	blob := c.Bytes(c.Count32("soft package reference indices", 1), "soft package reference indices")
	if c.Err() != nil {
		return nil
	}
	n := len(h.Packages)
	if int64(n)*8 > int64(len(blob)) {
		chFail(c, at, "soft package reference indices", "%d packages need %d bytes of views, the blob has %d", n, 8*n, len(blob))
		return nil
	}
	views := make([]chView, n)
	var used []chView
	for i := range views {
		v, ok := chReadView(c, blob, at, 8*i, 8*n, 4, chPlace{prefix: "soft", entry: i, id: h.Packages[i].PackageID})
		if !ok {
			return nil
		}
		views[i] = v
		if v.num > 0 {
			used = append(used, v)
		}
	}
	if !chViewsDisjoint(c, used, at, "soft package reference indices") {
		return nil
	}
	refs := &SoftReferences{PackageIDs: ids}
	if n > 0 {
		refs.Indices = make([][]uint32, n)
	}
	for i, v := range views {
		if v.num == 0 {
			continue
		}
		idx := make([]uint32, v.num)
		for k := range idx {
			idx[k] = binary.LittleEndian.Uint32(blob[v.start+4*k:])
		}
		refs.Indices[i] = idx
	}
	return refs
}

// Encoding.

// Encode writes the header in its version's layout. An unchanged decoded
// header comes out byte for byte as it went in. Encode refuses, with a
// *ue.FormatError wrapping ErrNotEncodable, fields the
// version cannot store (e.g. ExportCount in version 3+, redirect names in
// UE4), counts beyond the format's limits and shader map hashes of the wrong
// size.
func (h *ContainerHeader) Encode() ([]byte, error) {
	if !h.Version.Known() {
		return nil, chEncodeError("version", "unknown version %d", int32(h.Version))
	}
	if err := h.checkModel(); err != nil {
		return nil, err
	}
	dst := make([]byte, 0, h.encodedSizeHint())
	for _, s := range h.Version.sections() {
		start := len(dst)
		var err error
		dst, err = h.encodeSection(dst, s, start)
		if err != nil {
			return nil, err
		}
		if k := h.kept[s]; k != nil && bytes.Equal(dst[start:], k.canon) {
			dst = append(dst[:start], k.raw...)
		}
	}
	return append(dst, h.Trailing...), nil
}

func (h *ContainerHeader) encodedSizeHint() int {
	n := 64 + len(h.Trailing)
	l := h.entryLayout()
	for _, seg := range [][]StoreEntry{h.Packages, h.OptionalSegmentPackages} {
		for _, e := range seg {
			n += 8 + l.size + 8*len(e.ImportedPackages) + h.shaderHashSize()*len(e.ShaderMapHashes)
		}
	}
	return n + 24*len(h.Redirects) + 16*len(h.LocalizedPackages)
}

func chEncodeError(structure, format string, args ...any) error {
	return encodeError("container header "+structure, format, args...)
}

func chCount(structure string, n int) (uint32, error) {
	if n > math.MaxInt32 {
		return 0, chEncodeError(structure, "%d elements exceed the format's int32 count", n)
	}
	return uint32(n), nil
}

// encodeSection appends part s in its canonical layout; at is the offset in
// the chunk where the part starts (used by the soft references offset).
func (h *ContainerHeader) encodeSection(dst []byte, s chSection, at int) ([]byte, error) {
	v := h.Version
	le := binary.LittleEndian
	switch s {
	case chPreamble:
		if v.hasSignature() {
			dst = le.AppendUint32(dst, HeaderSignature)
			dst = le.AppendUint32(dst, uint32(v))
		}
		return le.AppendUint64(dst, uint64(h.ContainerID)), nil
	case chPackageCount:
		n, err := chCount("package count", len(h.Packages))
		return le.AppendUint32(dst, n), err
	case chNameBlobs:
		return appendNameBlobs(dst, h.Names)
	case chPackages:
		return h.appendPackages(dst, h.Packages, "")
	case chOptionalPackages:
		return h.appendPackages(dst, h.OptionalSegmentPackages, "optional segment ")
	case chNameBatch:
		return appendNameBatch(dst, h.Names, "container header ", "redirects name map")
	case chLocalized:
		n, err := chCount("localized packages", len(h.LocalizedPackages))
		if err != nil {
			return nil, err
		}
		dst = le.AppendUint32(dst, n)
		for _, e := range h.LocalizedPackages {
			dst = le.AppendUint64(dst, uint64(e.SourcePackageID))
			dst = appendMappedName(dst, e.SourceName)
		}
		return dst, nil
	case chCultures:
		return h.appendCultures(dst)
	case chRedirects:
		n, err := chCount("package redirects", len(h.Redirects))
		if err != nil {
			return nil, err
		}
		dst = le.AppendUint32(dst, n)
		for i, e := range h.Redirects {
			dst = le.AppendUint64(dst, uint64(e.SourcePackageID))
			dst = le.AppendUint64(dst, uint64(e.TargetPackageID))
			if v.hasRedirectNames() {
				dst = appendMappedName(dst, e.SourceName)
			} else if e.SourceName != (MappedName{}) {
				return nil, chEncodeError(fmt.Sprintf("package redirect %d", i), "version %v stores no source name", v)
			}
		}
		return dst, err
	case chSoftReferences:
		return h.appendSoftReferences(dst, at)
	}
	return nil, chEncodeError(chSectionNames[s], "no encoder") // unreachable
}

func (h *ContainerHeader) checkModel() error {
	v := h.Version
	if !v.hasLocalized() && len(h.LocalizedPackages) > 0 {
		return chEncodeError("localized packages", "version %v has no localized package list", v)
	}
	if !v.hasCultureMap() && len(h.Cultures) > 0 {
		return chEncodeError("culture package map", "version %v has no culture package map (use LocalizedPackages)", v)
	}
	if !v.hasOptionalSegment() && len(h.OptionalSegmentPackages) > 0 {
		return chEncodeError("optional segment packages", "version %v has no optional segment", v)
	}
	if !v.hasSoftRefs() && h.SoftReferences != nil {
		return chEncodeError("soft package references", "version %v has no soft package references", v)
	}
	if !v.hasBundleSizeLoad() && h.CompactStoreEntries {
		return chEncodeError("store entries", "compact store entries exist only in the UE4 layout")
	}
	if hs := h.ShaderMapHashSize; hs != 0 && hs != 20 && hs != 8 {
		return chEncodeError("store entries", "shader map hash size %d is neither 20 nor 8", hs)
	}
	return nil
}

func (h *ContainerHeader) appendPackages(dst []byte, entries []StoreEntry, prefix string) ([]byte, error) {
	le := binary.LittleEndian
	l := h.entryLayout()
	hashSize := h.shaderHashSize()
	n, err := chCount(prefix+"package ids", len(entries))
	if err != nil {
		return nil, err
	}
	size := int64(len(entries)) * int64(l.size)
	for i, e := range entries {
		where := chPlace{prefix: prefix, entry: i, id: e.PackageID}
		switch {
		case l.bundleSize < 0 && (e.ExportBundlesSize != 0 || e.LoadOrder != 0):
			return nil, chEncodeError(where.entryString(), "this layout stores no ExportBundlesSize or LoadOrder")
		case l.exportInfo < 0 && (e.ExportCount != 0 || e.ExportBundleCount != 0):
			return nil, chEncodeError(where.entryString(), "version %v stores no ExportCount or ExportBundleCount", h.Version)
		case l.shaders < 0 && len(e.ShaderMapHashes) > 0:
			return nil, chEncodeError(where.entryString(), "version %v stores no shader map hashes", h.Version)
		case len(e.ImportedPackages) > math.MaxUint32 || len(e.ShaderMapHashes) > math.MaxUint32:
			return nil, chEncodeError(where.entryString(), "too many array elements")
		}
		for k, sh := range e.ShaderMapHashes {
			if len(sh) != hashSize {
				return nil, chEncodeError(where.entryString(), "shader map hash %d has %d bytes, ShaderMapHashSize is %d", k, len(sh), hashSize)
			}
		}
		size += 8*int64(len(e.ImportedPackages)) + int64(hashSize)*int64(len(e.ShaderMapHashes))
	}
	if size > math.MaxInt32 {
		return nil, chEncodeError(prefix+"store entries", "%d bytes exceed the format's int32 size", size)
	}
	dst = le.AppendUint32(dst, n)
	for _, e := range entries {
		dst = le.AppendUint64(dst, uint64(e.PackageID))
	}
	dst = le.AppendUint32(dst, uint32(size))
	blobAt := len(dst)
	dst = append(dst, make([]byte, len(entries)*l.size)...)
	view := func(entryAt, field, num int) {
		if num == 0 {
			return // {0, 0}
		}
		p := entryAt + field
		le.PutUint32(dst[p:], uint32(num))
		le.PutUint32(dst[p+4:], uint32(len(dst)-p))
	}
	for i, e := range entries {
		entryAt := blobAt + i*l.size
		if l.bundleSize >= 0 {
			le.PutUint64(dst[entryAt+l.bundleSize:], e.ExportBundlesSize)
			le.PutUint32(dst[entryAt+l.loadOrder:], e.LoadOrder)
		}
		if l.exportInfo >= 0 {
			le.PutUint32(dst[entryAt+l.exportInfo:], uint32(e.ExportCount))
			le.PutUint32(dst[entryAt+l.exportInfo+4:], uint32(e.ExportBundleCount))
		}
		view(entryAt, l.imported, len(e.ImportedPackages))
		for _, id := range e.ImportedPackages {
			dst = le.AppendUint64(dst, uint64(id))
		}
		if l.shaders >= 0 {
			view(entryAt, l.shaders, len(e.ShaderMapHashes))
			for _, sh := range e.ShaderMapHashes {
				dst = append(dst, sh...)
			}
		}
	}
	return dst, nil
}

func (h *ContainerHeader) appendCultures(dst []byte) ([]byte, error) {
	le := binary.LittleEndian
	n, err := chCount("culture package map", len(h.Cultures))
	if err != nil {
		return nil, err
	}
	dst = le.AppendUint32(dst, n)
	for i, c := range h.Cultures {
		if len(c.Culture) > math.MaxInt32/2-1 {
			return nil, chEncodeError(fmt.Sprintf("culture %d", i), "name too long")
		}
		dst = binio.AppendFString32(dst, c.Culture)
		m, err := chCount(fmt.Sprintf("culture %d packages", i), len(c.Packages))
		if err != nil {
			return nil, err
		}
		dst = le.AppendUint32(dst, m)
		for _, p := range c.Packages {
			dst = le.AppendUint64(dst, uint64(p.SourcePackageID))
			dst = le.AppendUint64(dst, uint64(p.LocalizedPackageID))
		}
	}
	return dst, nil
}

// appendSoftReferences writes version 4's flag and arrays, or version 5's
// {offset, size} followed by that block (offset counted from the chunk start).
func (h *ContainerHeader) appendSoftReferences(dst []byte, at int) ([]byte, error) {
	le := binary.LittleEndian
	infoAt := len(dst)
	if h.Version.hasSoftRefsOffset() {
		dst = append(dst, make([]byte, 16)...)
	}
	blockAt := len(dst)
	refs := h.SoftReferences
	if refs == nil {
		dst = le.AppendUint32(dst, 0)
	} else {
		if len(refs.Indices) != len(h.Packages) {
			return nil, chEncodeError("soft package references",
				"%d index lists for %d packages; there must be one per package", len(refs.Indices), len(h.Packages))
		}
		dst = le.AppendUint32(dst, 1)
		n, err := chCount("soft package reference ids", len(refs.PackageIDs))
		if err != nil {
			return nil, err
		}
		dst = le.AppendUint32(dst, n)
		for _, id := range refs.PackageIDs {
			dst = le.AppendUint64(dst, uint64(id))
		}
		size := 8 * int64(len(refs.Indices))
		for _, idx := range refs.Indices {
			size += 4 * int64(len(idx))
		}
		if size > math.MaxInt32 {
			return nil, chEncodeError("soft package reference indices", "%d bytes exceed the format's int32 size", size)
		}
		dst = le.AppendUint32(dst, uint32(size))
		viewsAt := len(dst)
		dst = append(dst, make([]byte, 8*len(refs.Indices))...)
		for i, idx := range refs.Indices {
			if len(idx) == 0 {
				continue
			}
			p := viewsAt + 8*i
			le.PutUint32(dst[p:], uint32(len(idx)))
			le.PutUint32(dst[p+4:], uint32(len(dst)-p))
			for _, x := range idx {
				dst = le.AppendUint32(dst, x)
			}
		}
	}
	if h.Version.hasSoftRefsOffset() {
		le.PutUint64(dst[infoAt:], uint64(at+(blockAt-infoAt)))
		le.PutUint64(dst[infoAt+8:], uint64(len(dst)-blockAt))
	}
	return dst, nil
}

// Problems reports inconsistencies inside a decoded container header that
// its layout does not rule out: a package listed twice, a package importing
// itself, negative export counts. An engine-written header has none. Offsets are -1: the entries are checked
// as decoded.
func (h *ContainerHeader) Problems() []ue.Problem {
	var out []ue.Problem
	add := func(structure, format string, args ...any) {
		out = append(out, ue.Problem{Struct: structure, Offset: -1, Msg: fmt.Sprintf(format, args...)})
	}
	seen := make(map[PackageID]string, len(h.Packages)+len(h.OptionalSegmentPackages))
	for _, seg := range []struct {
		what    string
		entries []StoreEntry
	}{{"store entry", h.Packages}, {"optional segment store entry", h.OptionalSegmentPackages}} {
		for n, e := range seg.entries {
			where := fmt.Sprintf("%s %d (package %v)", seg.what, n, e.PackageID)
			if prev, dup := seen[e.PackageID]; dup {
				add(where, "the package is also %s", prev)
				continue
			}
			seen[e.PackageID] = fmt.Sprintf("%s %d", seg.what, n)
			for _, imp := range e.ImportedPackages {
				if imp == e.PackageID {
					add(where, "the package imports itself")
					break
				}
			}
			if e.ExportCount < 0 || e.ExportBundleCount < 0 {
				add(where, "negative export count %d or export bundle count %d", e.ExportCount, e.ExportBundleCount)
			}
		}
	}
	return out
}

// Queries.

// PackageIndex returns the index in Packages of the first package with id,
// or -1. It searches the entries one by one: a caller that looks up many
// packages (one per package of a container) builds a StoreIndex once
// instead, with Index.
func (h *ContainerHeader) PackageIndex(id PackageID) int {
	return slices.IndexFunc(h.Packages, func(e StoreEntry) bool { return e.PackageID == id })
}

// StoreIndex finds the store entries of a container header by package id
// in constant time, as PackageIndex finds them by searching: the first
// entry of Packages with the id. It is built by ContainerHeader.Index and
// sees Packages as it was then: entries appended afterwards are not found,
// and changing an entry's PackageID needs another index. A nil
// *StoreIndex finds nothing. It is safe for concurrent lookups.
type StoreIndex struct {
	entries []StoreEntry
	// at maps ids to entries, unless the entries are in strictly
	// ascending id order, as the engine writes them: they are then
	// searched, and a container of many packages needs no map.
	at     map[PackageID]int
	sorted bool
}

// Index returns a StoreIndex of h.Packages, built in one pass over them
// (a map of one int per package, unless they are sorted by id); nil for a
// nil h.
func (h *ContainerHeader) Index() *StoreIndex {
	if h == nil {
		return nil
	}
	x := &StoreIndex{entries: h.Packages, sorted: true}
	for i := 1; i < len(h.Packages); i++ {
		if h.Packages[i].PackageID <= h.Packages[i-1].PackageID {
			x.sorted = false
			break
		}
	}
	if x.sorted {
		return x
	}
	x.at = make(map[PackageID]int, len(h.Packages))
	for i := range h.Packages {
		id := h.Packages[i].PackageID
		if _, dup := x.at[id]; !dup {
			x.at[id] = i
		}
	}
	return x
}

// Find returns the index in Packages of the first package with id, or -1:
// what PackageIndex returns.
func (x *StoreIndex) Find(id PackageID) int {
	if x == nil {
		return -1
	}
	if x.sorted {
		if i, ok := slices.BinarySearchFunc(x.entries, id, func(e StoreEntry, id PackageID) int { return cmp.Compare(e.PackageID, id) }); ok {
			return i
		}
		return -1
	}
	if i, ok := x.at[id]; ok {
		return i
	}
	return -1
}

// Entry returns the first store entry of the package with id (a pointer
// into the header's Packages), or nil.
func (x *StoreIndex) Entry(id PackageID) *StoreEntry {
	if i := x.Find(id); i >= 0 {
		return &x.entries[i]
	}
	return nil
}

// Len returns how many packages the index finds: the distinct package ids
// of Packages.
func (x *StoreIndex) Len() int {
	switch {
	case x == nil:
		return 0
	case x.sorted:
		return len(x.entries)
	}
	return len(x.at)
}

// Name resolves a container-local FMappedName against Names, adding the
// engine's "_<number-1>" suffix for a non-zero number.
func (h *ContainerHeader) Name(n MappedName) (string, error) {
	idx := n.IndexAndType & 0x3FFFFFFF
	if int64(idx) >= int64(len(h.Names)) {
		return "", fmt.Errorf("name index %d outside the container's %d names", idx, len(h.Names))
	}
	if n.Number == 0 {
		return h.Names[idx], nil
	}
	return fmt.Sprintf("%s_%d", h.Names[idx], n.Number-1), nil
}

// HeaderSummary is what `unrmod info` prints about a container
// header; ids are fixed-width hex strings.
type HeaderSummary struct {
	Version                 string   `json:"version"`        // e.g. "SoftPackageReferencesOffset"
	VersionNumber           int      `json:"version_number"` // -1 for the UE4 layout
	Engine                  string   `json:"engine"`         // e.g. "5.6–5.8"
	ContainerID             string   `json:"container_id"`   // e.g. "0x8e31e2f0b7de84f2"
	Packages                int      `json:"packages"`
	OptionalSegmentPackages int      `json:"optional_segment_packages"`
	ImportedPackageRefs     int      `json:"imported_package_refs"`
	ShaderMapHashes         int      `json:"shader_map_hashes"`
	Names                   int      `json:"names"`
	LocalizedPackages       int      `json:"localized_packages"` // UE5 list, or UE4 pairs over all cultures
	Cultures                int      `json:"cultures"`
	Redirects               int      `json:"redirects"`
	SoftReferencedPackages  int      `json:"soft_referenced_packages"`
	TrailingBytes           int      `json:"trailing_bytes"`
	KeptRaw                 []string `json:"kept_raw,omitempty"`
}

// Summary returns the header's counts for display.
func (h *ContainerHeader) Summary() HeaderSummary {
	s := HeaderSummary{
		Version:                 h.Version.String(),
		VersionNumber:           int(h.Version),
		Engine:                  h.Version.Engine(),
		ContainerID:             h.ContainerID.String(),
		Packages:                len(h.Packages),
		OptionalSegmentPackages: len(h.OptionalSegmentPackages),
		Names:                   len(h.Names),
		LocalizedPackages:       len(h.LocalizedPackages),
		Cultures:                len(h.Cultures),
		Redirects:               len(h.Redirects),
		TrailingBytes:           len(h.Trailing),
		KeptRaw:                 h.KeptRaw(),
	}
	for _, seg := range [][]StoreEntry{h.Packages, h.OptionalSegmentPackages} {
		for _, e := range seg {
			s.ImportedPackageRefs += len(e.ImportedPackages)
			s.ShaderMapHashes += len(e.ShaderMapHashes)
		}
	}
	for _, c := range h.Cultures {
		s.LocalizedPackages += len(c.Packages)
	}
	if h.SoftReferences != nil {
		s.SoftReferencedPackages = len(h.SoftReferences.PackageIDs)
	}
	return s
}

// String renders the summary on one line.
func (s HeaderSummary) String() string {
	v := s.Version
	if s.VersionNumber >= 0 {
		v = fmt.Sprintf("%d %s", s.VersionNumber, s.Version)
	}
	out := fmt.Sprintf("container header %s (UE %s), container %s: %d packages", v, s.Engine, s.ContainerID, s.Packages)
	if s.OptionalSegmentPackages > 0 {
		out += fmt.Sprintf(" + %d optional", s.OptionalSegmentPackages)
	}
	out += fmt.Sprintf(", %d imports, %d localized, %d redirects", s.ImportedPackageRefs, s.LocalizedPackages, s.Redirects)
	if s.SoftReferencedPackages > 0 {
		out += fmt.Sprintf(", %d soft-referenced packages", s.SoftReferencedPackages)
	}
	return out
}

// StoreEntrySize returns the size in bytes of one fixed store entry in the
// header's layout: 32 (or 16 with CompactStoreEntries) for 4.2x, 24 for
// versions 0-2, 16 from version 3 (NoExportInfo) on.
func (h *ContainerHeader) StoreEntrySize() int { return h.entryLayout().size }
