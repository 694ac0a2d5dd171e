package iostore

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
)

// ChunkID is FIoChunkId: the 12 raw bytes that address a chunk. Bytes 0-7
// hold a uint64 (a package id, the container id, a hash), bytes 8-9 the
// chunk index (little-endian in 4.2x, big-endian in UE5), byte 10 is 0 or,
// since about 5.4, a cooked index for bulk data, and byte 11 the chunk type,
// whose numbering depends on the TOC version (see ChunkTypeOf). The bytes
// are kept as stored so that a container writes back unchanged.
type ChunkID [12]byte

// NewChunkID lays out a chunk id the way TOC version v stores it.
func NewChunkID(id uint64, index uint16, t ChunkType, v TocVersion) (ChunkID, error) {
	var c ChunkID
	raw, ok := t.Raw(v)
	if !ok {
		return c, fmt.Errorf("chunk type %s does not exist in TOC version %d (%s)", t, v, v.Engines())
	}
	binary.LittleEndian.PutUint64(c[0:], id)
	if v.UsesUE5ChunkTypes() {
		binary.BigEndian.PutUint16(c[8:], index)
	} else {
		binary.LittleEndian.PutUint16(c[8:], index)
	}
	c[11] = raw
	return c, nil
}

// Value returns the uint64 in bytes 0-7: the package id for package and
// bulk-data chunks, the container id for the container header.
func (c ChunkID) Value() uint64 { return binary.LittleEndian.Uint64(c[0:]) }

// PackageID returns bytes 0-7 as the package id they are in package and
// bulk-data chunk ids.
func (c ChunkID) PackageID() zen.PackageID { return zen.PackageID(c.Value()) }

// Index returns the chunk index (bytes 8-9) as TOC version v stores it.
func (c ChunkID) Index(v TocVersion) uint16 {
	if v.UsesUE5ChunkTypes() {
		return binary.BigEndian.Uint16(c[8:])
	}
	return binary.LittleEndian.Uint16(c[8:])
}

// TypeByte returns the raw chunk-type byte (byte 11).
func (c ChunkID) TypeByte() uint8 { return c[11] }

// Type returns the chunk type under TOC version v's numbering.
func (c ChunkID) Type(v TocVersion) ChunkType { return ChunkTypeOf(c[11], v) }

// String returns "0x" and the 12 bytes as 24 hex digits in file order
// (the digits are the form retoc and CUE4Parse print).
func (c ChunkID) String() string { return "0x" + c.Hex() }

// Hex returns the 12 bytes as 24 hex digits in file order, without "0x": the
// form unrmod uses in file names.
func (c ChunkID) Hex() string { return hex.EncodeToString(c[:]) }

// MarshalText returns the String form, for JSON and YAML.
func (c ChunkID) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText accepts what ParseChunkID accepts.
func (c *ChunkID) UnmarshalText(b []byte) error {
	id, err := ParseChunkID(string(b))
	*c = id
	return err
}

// ParseChunkID parses 24 hex digits, with or without "0x", as printed by
// String and Hex.
func ParseChunkID(s string) (ChunkID, error) {
	var c ChunkID
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 24 {
		return c, fmt.Errorf("chunk id %q: want 24 hex digits", s)
	}
	if _, err := hex.Decode(c[:], []byte(s)); err != nil {
		return c, fmt.Errorf("chunk id %q: %v", s, err)
	}
	return c, nil
}

// ChunkType is EIoChunkType, independent of how a TOC version numbers it.
type ChunkType uint8

// The chunk types of both generations. The numbering here is unrmod's own;
// ChunkTypeOf and ChunkType.Raw convert from and to a TOC's byte.
const (
	ChunkInvalid ChunkType = iota
	ChunkExportBundleData
	ChunkBulkData
	ChunkOptionalBulkData
	ChunkMemoryMappedBulkData
	ChunkScriptObjects
	ChunkContainerHeader
	ChunkExternalFile
	ChunkShaderCodeLibrary
	ChunkShaderCode
	ChunkPackageStoreEntry
	ChunkDerivedData
	ChunkEditorDerivedData
	ChunkPackageResource
	// 4.2x only.
	ChunkInstallManifest
	ChunkLoaderGlobalMeta
	ChunkLoaderInitialLoadMeta
	ChunkLoaderGlobalNames
	ChunkLoaderGlobalNameHashes
	// ChunkUnknown is a type byte outside the version's table.
	ChunkUnknown
)

var chunkTypeNames = [...]string{
	"Invalid", "ExportBundleData", "BulkData", "OptionalBulkData", "MemoryMappedBulkData",
	"ScriptObjects", "ContainerHeader", "ExternalFile", "ShaderCodeLibrary", "ShaderCode",
	"PackageStoreEntry", "DerivedData", "EditorDerivedData", "PackageResource",
	"InstallManifest", "LoaderGlobalMeta", "LoaderInitialLoadMeta", "LoaderGlobalNames",
	"LoaderGlobalNameHashes", "Unknown",
}

// String returns the engine's name, e.g. "ExportBundleData".
func (t ChunkType) String() string {
	if int(t) < len(chunkTypeNames) {
		return chunkTypeNames[t]
	}
	return "Unknown"
}

// ue4ChunkTypes maps the 4.25-4.27 type bytes ([E4.27] IoDispatcher.h);
// 11 and 12 are shader types in some licensee builds (per retoc).
var ue4ChunkTypes = [...]ChunkType{
	ChunkInvalid, ChunkInstallManifest, ChunkExportBundleData, ChunkBulkData,
	ChunkOptionalBulkData, ChunkMemoryMappedBulkData, ChunkLoaderGlobalMeta,
	ChunkLoaderInitialLoadMeta, ChunkLoaderGlobalNames, ChunkLoaderGlobalNameHashes,
	ChunkContainerHeader, ChunkShaderCodeLibrary, ChunkShaderCode,
}

// ue5ChunkTypes maps the UE5 type bytes ([E5.0] IoDispatcher.h, IoChunkId.h).
var ue5ChunkTypes = [...]ChunkType{
	ChunkInvalid, ChunkExportBundleData, ChunkBulkData, ChunkOptionalBulkData,
	ChunkMemoryMappedBulkData, ChunkScriptObjects, ChunkContainerHeader,
	ChunkExternalFile, ChunkShaderCodeLibrary, ChunkShaderCode,
	ChunkPackageStoreEntry, ChunkDerivedData, ChunkEditorDerivedData,
	ChunkPackageResource,
}

func chunkTable(v TocVersion) []ChunkType {
	if v.UsesUE5ChunkTypes() {
		return ue5ChunkTypes[:]
	}
	return ue4ChunkTypes[:]
}

// ChunkTypeOf returns the chunk type that byte b means in TOC version v.
func ChunkTypeOf(b uint8, v TocVersion) ChunkType {
	if t := chunkTable(v); int(b) < len(t) {
		return t[b]
	}
	return ChunkUnknown
}

// Raw returns the byte TOC version v uses for t, and false when the type
// does not exist in that version's table.
func (t ChunkType) Raw(v TocVersion) (uint8, bool) {
	for b, x := range chunkTable(v) {
		if x == t {
			return uint8(b), true
		}
	}
	return 0, false
}
