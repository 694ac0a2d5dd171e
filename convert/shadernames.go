package convert

import (
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore"
)

// ShaderLibraryName splits a shader library's file name as the UE 5.0–5.7
// packer does (ConvertToIoStoreShaderLibrary in IoStoreUtilities.cpp): the
// base name without folders and extension, the library is what lies
// between its first and its last "-", the format what follows the last.
// For ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode that is
// library "Global-PCD3D_SM6" and format "PCD3D_SM6": the engine names the
// ShaderCodeLibrary chunk cityhash.ShaderLibraryID(library, format) and
// hashes format into the group chunk ids (ShaderArchiveToZen). ok is
// false when the name has no library or no format.
func ShaderLibraryName(fileName string) (library, format string, ok bool) {
	base := fileName[strings.LastIndexAny(fileName, `/\`)+1:]
	if dot := strings.LastIndexByte(base, '.'); dot >= 0 {
		base = base[:dot]
	}
	first, last := strings.IndexByte(base, '-'), strings.LastIndexByte(base, '-')
	if first < 0 || last-first <= 1 || last == len(base)-1 {
		return "", "", false
	}
	return base[first+1 : last], base[last+1:], true
}

// ShaderAssetInfoName returns the path of the asset info the cooker
// writes beside a shader library file, as the packer looks for it:
// ShaderAssetInfo-<Library>-<Format>.assetinfo.json in the library's
// folder, or "" when the library's name does not split
// (ShaderLibraryName).
func ShaderAssetInfoName(libraryFile string) string {
	lib, format, ok := ShaderLibraryName(libraryFile)
	if !ok {
		return ""
	}
	dir := libraryFile[:strings.LastIndexAny(libraryFile, `/\`)+1]
	return dir + "ShaderAssetInfo-" + lib + "-" + format + ".assetinfo.json"
}

// ShaderLibraryChunkID returns the ShaderCodeLibrary chunk id of the
// library named library with format (as ShaderLibraryName splits a file
// name), as TOC version v lays it out: the hash
// cityhash.ShaderLibraryID(library, format), by which the game looks the
// library up.
func ShaderLibraryChunkID(library, format string, v iostore.TocVersion) (iostore.ChunkID, error) {
	return iostore.NewChunkID(cityhash.ShaderLibraryID(library, format), 0, iostore.ChunkShaderCodeLibrary, v)
}
