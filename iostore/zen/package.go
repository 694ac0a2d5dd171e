package zen

import (
	"fmt"
	"strings"
)

// Package is a decoded zen package: the content of one package chunk
// (ExportBundleData), which holds the package header (summary, name map,
// import and export maps, export bundles and dependency data) followed by
// the serialized data of every export. docs/zen.md describes each part.
//
// The model holds what cannot be derived; DecodePackage fills it and Encode
// computes everything else from it again: the summary's offsets and sizes,
// HeaderSize, the name hashes, each export's CookedSerialOffset and
// CookedSerialSize, the 5.0–5.2 bundle serial offsets and the 5.4+ bulk-data
// pad. Engine-written packages come out byte for byte; parts of other
// packages whose bytes are not laid out as Encode lays them out are written
// from their original bytes while that part of the model is unchanged (see
// KeptRaw).
type Package struct {
	// Layout is the package's layout, detected by DecodePackage.
	Layout Layout `json:"layout"`

	// Name is the package name, an index into Names (e.g.
	// "/Game/Data/Table_Items"). SourceName (4.26/4.27 only) differs from
	// it for localized packages.
	Name       MappedName `json:"name"`
	SourceName MappedName `json:"source_name"`
	// PackageFlags are EPackageFlags, e.g. 0x80000000 FilterEditorOnly.
	PackageFlags PackageFlags `json:"package_flags"`
	// CookedHeaderSize is the size of the legacy .uasset header the package
	// was made from; the loader uses it only to compute positions.
	CookedHeaderSize uint32 `json:"cooked_header_size"`
	// Pad is the 4.26/4.27 summary's last field, 0 in engine files.
	Pad int32 `json:"pad,omitempty"`
	// Versioning is the UE5 versioning info, nil when the package has none
	// (cooked unversioned).
	Versioning *Versioning `json:"versioning,omitempty"`

	// Names is the package's name map.
	Names []string `json:"names"`
	// BulkData is the 5.2+ bulk-data map.
	BulkData []BulkDataEntry `json:"bulk_data,omitempty"`
	// ImportedPublicExportHashes are the UE5 public export hashes that
	// package imports refer to by index.
	ImportedPublicExportHashes []uint64 `json:"imported_public_export_hashes,omitempty"`
	// Imports is the import map.
	Imports []ObjectIndex `json:"imports"`
	// Exports is the export map with each export's data.
	Exports []Export `json:"exports"`
	// CellImports and CellExports are the 5.6+ Verse cell maps.
	CellImports []ObjectIndex `json:"cell_imports,omitempty"`
	CellExports []CellExport  `json:"cell_exports,omitempty"`
	// Bundles are the export bundles (4.26–5.2; from 5.3 there is one,
	// implied); BundleEntries list each export's Create and Serialize
	// commands in load order.
	Bundles       []ExportBundle `json:"bundles,omitempty"`
	BundleEntries []BundleEntry  `json:"bundle_entries"`
	// Graph is the 4.26/4.27 graph data: for each package this one
	// depends on, the arcs from its bundles to this package's bundles.
	Graph []GraphPackage `json:"graph,omitempty"`
	// InternalArcs and ExternalArcs are the 5.0–5.2 graph data: arcs
	// between this package's bundles, and for each imported package (in
	// store-entry order) the arcs from its imports to this package's
	// bundles.
	InternalArcs []Arc           `json:"internal_arcs,omitempty"`
	ExternalArcs [][]ExternalArc `json:"external_arcs,omitempty"`
	// DependencyHeaders and DependencyEntries are the 5.3+ dependency
	// bundles: one header per export, entries in the legacy package-index
	// form (negative: import, positive: export + 1).
	DependencyHeaders []DependencyHeader `json:"dependency_headers,omitempty"`
	DependencyEntries []int32            `json:"dependency_entries,omitempty"`
	// ImportedPackages are the 5.3+ names of the packages this one imports,
	// in the order package imports index them.
	ImportedPackages []PackageName `json:"imported_packages,omitempty"`
	// Trailing holds bytes after the last export's data.
	Trailing []byte `json:"trailing,omitempty"`

	kept [secCount]*kept
	// dataless marks a package DecodePackageHeader decoded: no export
	// data, header is where it starts.
	dataless bool
	header   int
	// stream is where the export data of a package DecodePackageStream
	// decoded is read from (stream.go).
	stream *streamSource
	// hashes are the name hashes as stored (without the algorithm id),
	// hashAlgorithm the id before them, for verification.
	hashes        []uint64
	hashAlgorithm uint64
	// loose counts export-data bytes that belong to no export (between
	// exports); a package with such bytes cannot have its data moved.
	loose int
	size  int // the decoded chunk's size
}

// Versioning is FZenPackageVersioningInfo: the versions the package was
// saved with.
type Versioning struct {
	// ZenVersion is EZenPackageVersion: 0 Initial, 1 DataResourceTable, 2
	// ImportedPackageNames, 3 ExportDependencies.
	ZenVersion uint32 `json:"zen_version"`
	// FileVersionUE4 and FileVersionUE5 are the package file versions
	// (e.g. 522 and 1018).
	FileVersionUE4 int32 `json:"file_version_ue4"`
	FileVersionUE5 int32 `json:"file_version_ue5"`
	Licensee       int32 `json:"licensee"`
	// CustomVersions are the custom versions, each a GUID and a version.
	CustomVersions []CustomVersion `json:"custom_versions,omitempty"`
}

// CustomVersion is one FCustomVersion.
type CustomVersion struct {
	Key     GUID  `json:"key"`
	Version int32 `json:"version"`
}

// GUID is an FGuid as four uint32, printed as 32 hex digits in the engine's
// text order.
type GUID [4]uint32

// String formats the GUID as the engine does: 32 upper-case hex digits.
func (g GUID) String() string { return fmt.Sprintf("%08X%08X%08X%08X", g[0], g[1], g[2], g[3]) }

// MarshalText returns the String form.
func (g GUID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// BulkDataEntry is FBulkDataMapEntry (5.2+).
type BulkDataEntry struct {
	SerialOffset          int64   `json:"serial_offset"`
	DuplicateSerialOffset int64   `json:"duplicate_serial_offset"`
	SerialSize            int64   `json:"serial_size"`
	Flags                 uint32  `json:"flags"`
	CookedIndex           uint8   `json:"cooked_index"`
	Pad                   [3]byte `json:"pad"`
}

// Export is one FExportMapEntry with the export's serialized data.
type Export struct {
	// SerialOffset is CookedSerialOffset as decoded. Encode derives it: in
	// 4.26–5.2 the offset the export had in the legacy file
	// (CookedHeaderSize + the sizes of the exports before it in export-map
	// order), from 5.3 its offset from the end of the header.
	SerialOffset uint64 `json:"serial_offset"`
	// ObjectName is the export's name, an index into Names.
	ObjectName MappedName `json:"object_name"`
	// Outer, Class, Super and Template are object references.
	Outer    ObjectIndex `json:"outer"`
	Class    ObjectIndex `json:"class"`
	Super    ObjectIndex `json:"super"`
	Template ObjectIndex `json:"template"`
	// PublicExportHash identifies a public export to other packages: in
	// UE5 the hash of its package-relative path (0 when not public); in
	// 4.26/4.27 the GlobalImportIndex, a PackageImport ObjectIndex of its
	// full path (NullObject when not public).
	PublicExportHash uint64 `json:"public_export_hash"`
	// ObjectFlags are EObjectFlags.
	ObjectFlags ObjectFlags `json:"object_flags"`
	// FilterFlags is 0, 1 (not for client) or 2 (not for server).
	FilterFlags uint8 `json:"filter_flags"`
	// Pad holds the entry's 3 padding bytes, 0 in engine files.
	Pad [3]byte `json:"pad"`
	// Data is the export's serialized data (CookedSerialSize bytes).
	Data []byte `json:"-"`
	// DataOffset is where Data starts in the decoded chunk.
	DataOffset int `json:"data_offset"`
}

// CellExport is a 5.6+ FCellExportMapEntry.
type CellExport struct {
	SerialOffset     uint64     `json:"serial_offset"`
	SerialLayoutSize uint64     `json:"serial_layout_size"`
	SerialSize       uint64     `json:"serial_size"`
	CppClassInfo     MappedName `json:"cpp_class_info"`
	PublicExportHash uint64     `json:"public_export_hash"`
}

// ExportBundle is an export bundle header: the range of BundleEntries it
// runs. SerialOffset (5.0–5.2) is where the bundle's export data starts
// after the header; Encode derives it.
type ExportBundle struct {
	SerialOffset uint64 `json:"serial_offset,omitempty"`
	FirstEntry   uint32 `json:"first_entry"`
	EntryCount   uint32 `json:"entry_count"`
}

// Export bundle commands.
const (
	CommandCreate    uint32 = 0
	CommandSerialize uint32 = 1
)

// BundleEntry is FExportBundleEntry: create or serialize one export.
type BundleEntry struct {
	Export  uint32 `json:"export"`
	Command uint32 `json:"command"`
}

// GraphPackage is one package of the 4.26/4.27 graph data.
type GraphPackage struct {
	Package PackageID `json:"package"`
	Arcs    []Arc     `json:"arcs"`
}

// Arc links one export bundle to another.
type Arc struct {
	From int32 `json:"from"`
	To   int32 `json:"to"`
}

// ExternalArc is a 5.0–5.2 arc from an import to one of this package's
// export bundles.
type ExternalArc struct {
	FromImport  int32 `json:"from_import"`
	FromCommand uint8 `json:"from_command"`
	ToBundle    int32 `json:"to_bundle"`
}

// DependencyHeader is a 5.3+ FDependencyBundleHeader: where an export's
// dependencies start in DependencyEntries and how many there are of each
// kind: create-before-create, serialize-before-create,
// create-before-serialize, serialize-before-serialize.
type DependencyHeader struct {
	FirstEntry int32     `json:"first_entry"`
	Counts     [4]uint32 `json:"counts"`
}

// PackageName is a name with its FName number, as the 5.3+ imported
// package names store them.
type PackageName struct {
	Name   string `json:"name"`
	Number int32  `json:"number,omitempty"`
}

// String returns the name with the engine's "_<number-1>" suffix.
func (n PackageName) String() string { return nameWithNumber(n.Name, uint32(n.Number)) }

// nameWithNumber adds the engine's "_<number-1>" suffix for a non-zero
// number.
func nameWithNumber(s string, number uint32) string {
	if number == 0 {
		return s
	}
	return fmt.Sprintf("%s_%d", s, number-1)
}

// MappedString returns the name n refers to in the package's name map, with
// its number suffix.
func (p *Package) MappedString(n MappedName) (string, error) {
	if err := p.checkMappedName(n); err != nil {
		return "", err
	}
	return nameWithNumber(p.Names[n.Index()], n.Number), nil
}

// checkMappedName returns why MappedString fails for n, or nil.
func (p *Package) checkMappedName(n MappedName) error {
	if n.MapType() != 0 {
		return fmt.Errorf("name %d refers to name map %d, not the package's", n.Index(), n.MapType())
	}
	if int64(n.Index()) >= int64(len(p.Names)) {
		return fmt.Errorf("name index %d outside the package's %d names", n.Index(), len(p.Names))
	}
	return nil
}

// PackageName returns the package's name, e.g. "/Game/Data/Table_Items",
// or "" when Name is not a valid index.
func (p *Package) PackageName() string {
	s, err := p.MappedString(p.Name)
	if err != nil {
		return ""
	}
	return s
}

// ID returns the package id: the hash of the package name.
func (p *Package) ID() PackageID { return PackageIDFromName(p.PackageName()) }

// ExportName returns export i's object name, or "" when it is not valid.
func (p *Package) ExportName(i int) string {
	s, err := p.MappedString(p.Exports[i].ObjectName)
	if err != nil {
		return ""
	}
	return s
}

// ExportPath returns the full path of export i as the engine names it
// (UObject::GetPathName): the package name, '.', the outermost object, then
// ':' before its subobjects and '.' before theirs
// (/Game/Maps/Arena.Arena:PersistentLevel.Wall).
func (p *Package) ExportPath(i int) string {
	rel := p.RelativePath(i, ".")
	top, rest, deeper := strings.Cut(rel, ".")
	if deeper {
		return p.PackageName() + "." + top + ":" + rest
	}
	return p.PackageName() + "." + rel
}

// RelativePath returns export i's path inside its package: the names of its
// outer chain and its own, outermost first, joined with sep. A cycle or a
// broken outer stops the chain; the result is then the part found.
func (p *Package) RelativePath(i int, sep string) string {
	var parts []string
	seen := 0
	for i >= 0 && i < len(p.Exports) && seen <= len(p.Exports) {
		parts = append(parts, p.ExportName(i))
		next, ok := p.Exports[i].Outer.Export()
		if !ok {
			break
		}
		i = next
		seen++
	}
	for a, b := 0, len(parts)-1; a < b; a, b = a+1, b-1 {
		parts[a], parts[b] = parts[b], parts[a]
	}
	return strings.Join(parts, sep)
}

// StoredNameHash returns the hash stored for name i (what Problems checks
// against the name), and the hash algorithm id stored before the hashes.
// A package built in memory has none: ok is false.
func (p *Package) StoredNameHash(i int) (hash, algorithm uint64, ok bool) {
	if i < 0 || i >= len(p.hashes) {
		return 0, 0, false
	}
	return p.hashes[i], p.hashAlgorithm, true
}

// Size returns the size of the chunk the package was decoded from.
func (p *Package) Size() int { return p.size }

// HeaderSize returns where the export data starts in the decoded chunk.
func (p *Package) HeaderSize() int {
	if p.dataless {
		return p.header
	}
	end := p.size - len(p.Trailing)
	for _, e := range p.Exports {
		end -= len(e.Data)
	}
	return end - p.loose
}

// FileVersionUE5 returns the UE5 package file version the export data was
// saved with: from the versioning info when the package has it, else the
// newest version its layout allows (0 for UE 4.26/4.27).
func (p *Package) FileVersionUE5() int32 {
	if p.Versioning != nil {
		return p.Versioning.FileVersionUE5
	}
	switch p.Layout {
	case LayoutUE4:
		return 0
	case LayoutUE50:
		return Engine{5, 1}.ObjectVersionUE5()
	case LayoutUE52:
		return Engine{5, 2}.ObjectVersionUE5()
	case LayoutUE53:
		return Engine{5, 3}.ObjectVersionUE5()
	case LayoutUE54:
		return Engine{5, 5}.ObjectVersionUE5()
	}
	return Engine58.ObjectVersionUE5()
}

// packageFileTag is PACKAGE_FILE_TAG, which UE5 cooks leave after the last
// export's data (the end of the legacy .uexp), little-endian.
var packageFileTag = [4]byte{0xC1, 0x83, 0x2A, 0x9E}
