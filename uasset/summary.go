package uasset

import (
	"errors"
	"fmt"
)

// Tag is the package file tag that starts a .uasset/.umap and ends its
// .uexp: 0x9E2A83C1, stored little-endian.
const Tag uint32 = 0x9E2A83C1

// GUID is a 16-byte FGuid as stored (four little-endian uint32s).
type GUID [16]byte

// String prints the GUID as 32 hex digits in the engine's text order.
func (g GUID) String() string {
	var s string
	for i := 0; i < 16; i += 4 {
		s += fmt.Sprintf("%08X", uint32(g[i])|uint32(g[i+1])<<8|uint32(g[i+2])<<16|uint32(g[i+3])<<24)
	}
	return s
}

// CustomVersion is one entry of the summary's custom version container
// (the "optimized" form of LegacyFileVersion −5 and later).
type CustomVersion struct {
	Key     GUID
	Version int32
}

// Generation is one entry of the summary's generation list.
type Generation struct{ ExportCount, NameCount int32 }

// EngineVersion is an FEngineVersion: 4.27.2-18319896+++UE4+Release-4.27.
type EngineVersion struct {
	Major, Minor, Patch uint16
	Changelist          uint32
	Branch              string
	branchRaw           rawString
}

func (e *EngineVersion) serialize(a *archive, what string) {
	a.u16(&e.Major, what+" major")
	a.u16(&e.Minor, what+" minor")
	a.u16(&e.Patch, what+" patch")
	a.u32(&e.Changelist, what+" changelist")
	a.fstring(&e.Branch, &e.branchRaw, what+" branch")
}

// String returns "MAJOR.MINOR.PATCH-CHANGELIST+BRANCH".
func (e EngineVersion) String() string {
	return fmt.Sprintf("%d.%d.%d-%d+%s", e.Major, e.Minor, e.Patch, e.Changelist, e.Branch)
}

// Summary is the FPackageFileSummary at the start of the .uasset, field
// for field. Which fields a file holds depends on its LegacyFileVersion and
// object file versions (docs/cooked-assets.md, "Summary fields by
// version"); absent fields are zero. The counts and offsets of the tables
// the model holds (names, imports, exports, depends map, soft package
// references, preload dependencies, data resources), TotalHeaderSize and
// every offset into the header are recomputed by the encoder; the
// decoded values stay here for reference.
type Summary struct {
	Tag                                                     uint32
	LegacyFileVersion                                       int32 // −7 (UE4), −8 (UE 5.0–5.5), −9 (UE 5.6 and later)
	LegacyUE3Version                                        int32 // absent when LegacyFileVersion is −4
	FileVersionUE4                                          int32 // 0 in unversioned (cooked) files
	FileVersionUE5                                          int32 // LegacyFileVersion −8 and later
	FileVersionLicensee                                     int32
	SavedHash                                               [20]byte // UE5 1016+: replaces Guid
	CustomVersions                                          []CustomVersion
	TotalHeaderSize                                         int32  // size of the header: where the .uexp's data starts in the SerialOffset numbering
	PackageName                                             string // the FolderName FString; "None" in UE4 cooks
	PackageFlags                                            uint32
	NameCount, NameOffset                                   int32
	SoftObjectPathsCount, SoftObjectPathsOffset             int32  // UE5 1008+
	LocalizationID                                          string // UE4 516+, editor packages only
	GatherableTextDataCount, GatherableTextDataOffset       int32
	ExportCount, ExportOffset                               int32
	ImportCount, ImportOffset                               int32
	CellExportCount, CellExportOffset                       int32 // UE5 1015+
	CellImportCount, CellImportOffset                       int32 // UE5 1015+
	MetaDataOffset                                          int32 // UE5 1014+
	DependsOffset                                           int32
	SoftPackageReferencesCount, SoftPackageReferencesOffset int32
	SearchableNamesOffset                                   int32 // UE4 510+
	ThumbnailTableOffset                                    int32
	ImportTypeHierarchiesCount, ImportTypeHierarchiesOffset int32 // UE5 1018+
	GUID                                                    GUID  // before UE5 1016
	PersistentGUID                                          GUID  // UE4 518+, editor packages only
	OwnerPersistentGUID                                     GUID  // UE4 518–519, editor packages only
	Generations                                             []Generation
	SavedByEngineVersion                                    EngineVersion
	CompatibleWithEngineVersion                             EngineVersion
	CompressionFlags                                        uint32
	PackageSource                                           uint32
	AdditionalPackagesToCook                                []string
	AssetRegistryDataOffset                                 int32
	BulkDataStartOffset                                     int64
	WorldTileInfoDataOffset                                 int32
	ChunkIDs                                                []int32
	PreloadDependencyCount, PreloadDependencyOffset         int32
	NamesReferencedFromExportDataCount                      int32 // UE5 1001+
	PayloadTOCOffset                                        int64 // UE5 1002+
	DataResourceOffset                                      int32 // UE5 1009+

	packageNameRaw, localizationIDRaw rawString
	additionalRaw                     []rawString
}

// layout is what the encoding of the header depends on.
type layout struct {
	FileVersion
	legacy            int32
	editorFiltered    bool // PKG_FilterEditorOnly: editor-only fields absent
	unversionedProps  bool // PKG_UnversionedProperties: no script serialization offsets
	importPackageName bool // imports carry PackageName even when cooked (UE 5.8)
}

func (l layout) importHasPackageName() bool {
	return l.importPackageName || (l.UE4 >= ue4NonOuterPackageImport && !l.editorFiltered)
}

// errBadLegacyVersion marks a LegacyFileVersion this package cannot read.
var errBadLegacyVersion = errors.New("legacy file version")

// serializeVersions reads or writes the summary up to and including the
// licensee version: the part every release lays out the same way.
func (s *Summary) serializeVersions(a *archive) {
	a.u32(&s.Tag, "tag")
	if a.reading() && !a.failed() && s.Tag != Tag {
		a.c.FailAt(0, "tag", fmt.Errorf("0x%08X is not the package file tag 0x%08X (not a .uasset/.umap): %w", s.Tag, Tag, ErrCorrupt))
		return
	}
	a.i32(&s.LegacyFileVersion, "LegacyFileVersion")
	if a.reading() && !a.failed() && (s.LegacyFileVersion > -7 || s.LegacyFileVersion < -9) {
		a.c.FailAt(4, "LegacyFileVersion", fmt.Errorf("%d is not −7 (UE4), −8 or −9 (UE5): %w", s.LegacyFileVersion, ErrUnsupportedVersion))
		return
	}
	a.i32(&s.LegacyUE3Version, "LegacyUE3Version")
	a.i32(&s.FileVersionUE4, "FileVersionUE4")
	if s.LegacyFileVersion <= -8 {
		a.i32(&s.FileVersionUE5, "FileVersionUE5")
	}
	a.i32(&s.FileVersionLicensee, "FileVersionLicenseeUE")
}

// Unversioned reports whether the file records no object versions (as
// cooks usually do): its layout comes from a release hint or detection.
func (s *Summary) Unversioned() bool {
	return s.FileVersionUE4 == 0 && s.FileVersionUE5 == 0 && s.FileVersionLicensee == 0
}

// serialize reads or writes the whole summary in layout l; l's
// editorFiltered is set from the package flags on the way.
func (s *Summary) serialize(a *archive, l *layout) {
	s.serializeVersions(a)
	if a.failed() {
		return
	}
	if l.UE5 >= ue5PackageSavedHash {
		a.bytes(s.SavedHash[:], "SavedHash")
		a.i32(&s.TotalHeaderSize, "TotalHeaderSize")
	}
	n := a.count(len(s.CustomVersions), 20, "custom version count")
	if a.reading() {
		s.CustomVersions = make([]CustomVersion, n)
	}
	for i := range s.CustomVersions {
		a.bytes(s.CustomVersions[i].Key[:], "custom version key")
		a.i32(&s.CustomVersions[i].Version, "custom version")
	}
	if l.UE5 < ue5PackageSavedHash {
		a.i32(&s.TotalHeaderSize, "TotalHeaderSize")
	}
	a.fstring(&s.PackageName, &s.packageNameRaw, "PackageName")
	a.u32(&s.PackageFlags, "PackageFlags")
	l.editorFiltered = s.PackageFlags&PkgFilterEditorOnly != 0
	l.unversionedProps = s.PackageFlags&PkgUnversionedProperties != 0
	a.i32(&s.NameCount, "NameCount")
	a.i32(&s.NameOffset, "NameOffset")
	if l.UE5 >= ue5SoftObjectPathList {
		a.i32(&s.SoftObjectPathsCount, "SoftObjectPathsCount")
		a.i32(&s.SoftObjectPathsOffset, "SoftObjectPathsOffset")
	}
	if !l.editorFiltered && l.UE4 >= ue4LocalizationID {
		a.fstring(&s.LocalizationID, &s.localizationIDRaw, "LocalizationId")
	}
	if l.UE4 >= ue4SerializeText {
		a.i32(&s.GatherableTextDataCount, "GatherableTextDataCount")
		a.i32(&s.GatherableTextDataOffset, "GatherableTextDataOffset")
	}
	a.i32(&s.ExportCount, "ExportCount")
	a.i32(&s.ExportOffset, "ExportOffset")
	a.i32(&s.ImportCount, "ImportCount")
	a.i32(&s.ImportOffset, "ImportOffset")
	if l.UE5 >= ue5VerseCells {
		a.i32(&s.CellExportCount, "CellExportCount")
		a.i32(&s.CellExportOffset, "CellExportOffset")
		a.i32(&s.CellImportCount, "CellImportCount")
		a.i32(&s.CellImportOffset, "CellImportOffset")
	}
	if l.UE5 >= ue5MetadataSerializationOffset {
		a.i32(&s.MetaDataOffset, "MetaDataOffset")
	}
	a.i32(&s.DependsOffset, "DependsOffset")
	if l.UE4 >= ue4StringAssetReferences {
		a.i32(&s.SoftPackageReferencesCount, "SoftPackageReferencesCount")
		a.i32(&s.SoftPackageReferencesOffset, "SoftPackageReferencesOffset")
	}
	if l.UE4 >= ue4SearchableNames {
		a.i32(&s.SearchableNamesOffset, "SearchableNamesOffset")
	}
	a.i32(&s.ThumbnailTableOffset, "ThumbnailTableOffset")
	if l.UE5 >= ue5ImportTypeHierarchies {
		a.i32(&s.ImportTypeHierarchiesCount, "ImportTypeHierarchiesCount")
		a.i32(&s.ImportTypeHierarchiesOffset, "ImportTypeHierarchiesOffset")
	}
	if l.UE5 < ue5PackageSavedHash {
		a.bytes(s.GUID[:], "Guid")
	}
	if !l.editorFiltered && l.UE4 >= ue4PackageOwner {
		a.bytes(s.PersistentGUID[:], "PersistentGuid")
		if l.UE4 < ue4NonOuterPackageImport {
			a.bytes(s.OwnerPersistentGUID[:], "OwnerPersistentGuid")
		}
	}
	n = a.count(len(s.Generations), 8, "generation count")
	if a.reading() {
		s.Generations = make([]Generation, n)
	}
	for i := range s.Generations {
		a.i32(&s.Generations[i].ExportCount, "generation export count")
		a.i32(&s.Generations[i].NameCount, "generation name count")
	}
	s.SavedByEngineVersion.serialize(a, "SavedByEngineVersion")
	s.CompatibleWithEngineVersion.serialize(a, "CompatibleWithEngineVersion")
	a.u32(&s.CompressionFlags, "CompressionFlags")
	var chunks int32
	at := 0
	if a.reading() {
		at = a.c.Pos()
	}
	a.i32(&chunks, "compressed chunk count")
	if a.reading() && !a.failed() && chunks != 0 {
		a.c.FailAt(at, "compressed chunk count", fmt.Errorf("%d compressed chunks: package-level compression (UE3) is not a cooked UE4/UE5 asset: %w", chunks, ErrUnsupportedVersion))
		return
	}
	a.u32(&s.PackageSource, "PackageSource")
	n = a.count(len(s.AdditionalPackagesToCook), 4, "AdditionalPackagesToCook count")
	if a.reading() {
		s.AdditionalPackagesToCook = make([]string, n)
		s.additionalRaw = make([]rawString, n)
	} else if len(s.additionalRaw) != len(s.AdditionalPackagesToCook) {
		s.additionalRaw = make([]rawString, len(s.AdditionalPackagesToCook))
	}
	for i := range s.AdditionalPackagesToCook {
		a.fstring(&s.AdditionalPackagesToCook[i], &s.additionalRaw[i], "AdditionalPackagesToCook")
	}
	a.i32(&s.AssetRegistryDataOffset, "AssetRegistryDataOffset")
	a.i64(&s.BulkDataStartOffset, "BulkDataStartOffset")
	if l.UE4 >= ue4WorldLevelInfo {
		a.i32(&s.WorldTileInfoDataOffset, "WorldTileInfoDataOffset")
	}
	n = a.count(len(s.ChunkIDs), 4, "ChunkIDs count")
	if a.reading() {
		s.ChunkIDs = make([]int32, n)
	}
	for i := range s.ChunkIDs {
		a.i32(&s.ChunkIDs[i], "ChunkID")
	}
	if l.UE4 >= ue4PreloadDependencies {
		a.i32(&s.PreloadDependencyCount, "PreloadDependencyCount")
		a.i32(&s.PreloadDependencyOffset, "PreloadDependencyOffset")
	}
	if l.UE5 >= ue5NamesReferencedFromExportData {
		a.i32(&s.NamesReferencedFromExportDataCount, "NamesReferencedFromExportDataCount")
	}
	if l.UE5 >= ue5PayloadTOC {
		a.i64(&s.PayloadTOCOffset, "PayloadTocOffset")
	}
	if l.UE5 >= ue5DataResources {
		a.i32(&s.DataResourceOffset, "DataResourceOffset")
	}
}
