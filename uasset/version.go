package uasset

import (
	"fmt"
	"strconv"
	"strings"
)

// Object file versions that change the layout of the header tables
// (EUnrealEngineObjectUE4Version / EUnrealEngineObjectUE5Version; see
// docs/cooked-assets.md, "Summary fields by version").
const (
	ue4PreloadDependencies     = 507 // export dependency counts; preload dependency table
	ue4TemplateIndex           = 508 // export TemplateIndex
	ue4SearchableNames         = 510 // SearchableNamesOffset
	ue4ExportSizes64           = 511 // export SerialSize/SerialOffset as int64
	ue4SoftObjectPath          = 514 // soft package references as FNames (FStrings before)
	ue4LocalizationID          = 516 // LocalizationId (editor packages only)
	ue4PackageOwner            = 518 // PersistentGuid (editor packages only)
	ue4NonOuterPackageImport   = 520 // import PackageName (editor packages only)
	ue4NameHashes              = 504 // name map entries carry two 16-bit hashes
	ue4LoadForEditorGame       = 365 // export bNotAlwaysLoadedForEditorGame
	ue4CookedAssetsInEditor    = 485 // export bIsAsset
	ue4StringAssetReferences   = 384 // soft package references table
	ue4SerializeText           = 459 // gatherable text data
	ue4EngineVersionObject     = 336 // FEngineVersion SavedByEngineVersion
	ue4CompatibleEngineVersion = 444 // CompatibleWithEngineVersion
	ue4WorldLevelInfo          = 224 // WorldTileInfoDataOffset
	ue4ChunkIDArray            = 326 // ChunkIDs array
	ue4Oldest                  = 508 // UE 4.14, the oldest release this package reads

	ue5NamesReferencedFromExportData = 1001
	ue5PayloadTOC                    = 1002
	ue5OptionalResources             = 1003 // import bImportOptional, export bGeneratePublicHash
	ue5RemoveExportPackageGUID       = 1005
	ue5TrackExportIsInherited        = 1006
	ue5SoftObjectPathList            = 1008
	ue5DataResources                 = 1009
	ue5ScriptSerializationOffset     = 1010 // export script offsets (tagged properties only)
	ue5MetadataSerializationOffset   = 1014
	ue5VerseCells                    = 1015
	ue5PackageSavedHash              = 1016 // SavedHash replaces Guid; TotalHeaderSize moves up
	ue5ImportTypeHierarchies         = 1018
	ue5Newest                        = 1018
)

// Package flags the decoder looks at (EPackageFlags).
const (
	PkgCooked                uint32 = 0x00000200 // UE5: saved by the cooker
	PkgUnversionedProperties uint32 = 0x00002000 // properties without tags
	PkgFilterEditorOnly      uint32 = 0x80000000 // editor-only data stripped (every cook)
)

// Release is an engine release such as 4.27 or 5.4.
type Release struct{ Major, Minor int }

// String returns "4.27".
func (r Release) String() string { return fmt.Sprintf("%d.%d", r.Major, r.Minor) }

// IsZero reports whether r is the zero Release (not known).
func (r Release) IsZero() bool { return r == Release{} }

// ParseRelease parses "4.27", "5.4" or "UE5.4".
func ParseRelease(s string) (Release, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "UE"), "ue")
	a, b, ok := strings.Cut(t, ".")
	maj, err1 := strconv.Atoi(a)
	min, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Release{}, fmt.Errorf("engine release %q: want MAJOR.MINOR such as 4.27 or 5.4", s)
	}
	r := Release{maj, min}
	if _, ok := releaseVersions(r); !ok {
		return Release{}, fmt.Errorf("engine release %s: %w (this package reads 4.14–4.27, 5.0–5.8 and 6.0)", r, ErrUnsupportedVersion)
	}
	return r, nil
}

// FileVersion is the pair of object file versions a package is laid out
// by: FileVersionUE4 (e.g. 522 for 4.27 and UE5) and FileVersionUE5
// (1000 and up; 0 before UE5).
type FileVersion struct{ UE4, UE5 int32 }

// releaseInfo is one row of the release table: the file versions the
// release writes, and the LegacyFileVersion of its summaries.
type releaseInfo struct {
	Release Release
	FileVersion
	Legacy int32
	// importPackageName: cooked imports carry PackageName (seen in the UE 5.8 corpus).
	importPackageName bool
}

// releases lists the supported releases, oldest first. The UE4 numbers are
// the engine's VER_UE4_AUTOMATIC_VERSION of each release; the UE5 numbers
// are checked against the corpus where it has the release (5.4, 5.5, 5.6,
// 5.8) and taken from the public readers otherwise (docs/cooked-assets.md).
var releases = []releaseInfo{
	{Release{4, 14}, FileVersion{508, 0}, -7, false},
	{Release{4, 15}, FileVersion{510, 0}, -7, false},
	{Release{4, 16}, FileVersion{513, 0}, -7, false},
	{Release{4, 17}, FileVersion{513, 0}, -7, false},
	{Release{4, 18}, FileVersion{514, 0}, -7, false},
	{Release{4, 19}, FileVersion{516, 0}, -7, false},
	{Release{4, 20}, FileVersion{516, 0}, -7, false},
	{Release{4, 21}, FileVersion{517, 0}, -7, false},
	{Release{4, 22}, FileVersion{517, 0}, -7, false},
	{Release{4, 23}, FileVersion{517, 0}, -7, false},
	{Release{4, 24}, FileVersion{518, 0}, -7, false},
	{Release{4, 25}, FileVersion{518, 0}, -7, false},
	{Release{4, 26}, FileVersion{519, 0}, -7, false},
	{Release{4, 27}, FileVersion{522, 0}, -7, false},
	{Release{5, 0}, FileVersion{522, 1004}, -8, false},
	{Release{5, 1}, FileVersion{522, 1008}, -8, false},
	{Release{5, 2}, FileVersion{522, 1009}, -8, false},
	{Release{5, 3}, FileVersion{522, 1009}, -8, false},
	{Release{5, 4}, FileVersion{522, 1012}, -8, false},
	{Release{5, 5}, FileVersion{522, 1013}, -8, false},
	{Release{5, 6}, FileVersion{522, 1017}, -9, false},
	{Release{5, 7}, FileVersion{522, 1018}, -9, false},
	{Release{5, 8}, FileVersion{522, 1018}, -9, true},
	{Release{6, 0}, FileVersion{522, 1018}, -9, true},
}

func releaseVersions(r Release) (releaseInfo, bool) {
	for _, ri := range releases {
		if ri.Release == r {
			return ri, true
		}
	}
	return releaseInfo{}, false
}

// releaseFor returns the newest release writing exactly v (for versioned
// files, to name the release in the model).
func releaseFor(v FileVersion) Release {
	var best Release
	for _, ri := range releases {
		if ri.FileVersion == v {
			best = ri.Release
		}
	}
	return best
}

// ReleaseFileVersion returns the object file versions release r writes,
// or ok false for a release this package does not know.
func ReleaseFileVersion(r Release) (v FileVersion, ok bool) {
	ri, ok := releaseVersions(r)
	return ri.FileVersion, ok
}
