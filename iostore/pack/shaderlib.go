package pack

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
)

// Shader libraries in a UE5 container (docs/containers.md, "Shader
// libraries"): the library header is a ShaderCodeLibrary chunk listed in
// the directory index under the pak-era file name,
// <Game>/Content/ShaderArchive-<Library>-<Format>.ushaderbytecode, and each
// group of shaders is a ShaderCode chunk without a path. extract writes the
// header to its path; pack must make it that chunk again, or the game,
// which looks the library up by its chunk id, would find a file in the
// .pak holding a header it cannot read as a pak-era library.

// ioStoreShaderLibraryVersion is the first uint32 of a library header in
// its IoStore form (FIoStoreShaderCodeArchive's version); a pak-era
// .ushaderbytecode starts with 2.
const ioStoreShaderLibraryVersion = 1

// shaderLibraryPrefix and shaderLibraryExt frame a shader library's file
// name.
const (
	shaderLibraryPrefix = "ShaderArchive-"
	shaderLibraryExt    = ".ushaderbytecode"
)

// ShaderLibraryChunkID returns the ShaderCodeLibrary chunk id of the shader
// library file named base (ShaderArchive-<Library>-<Format>.ushaderbytecode,
// case-insensitive) in a container of TOC version v, and false when base
// is not such a name. The engine's packer splits the name at its first and
// last '-' and hashes "<Library>-<Format>"
// (cityhash.ShaderLibraryID), so the id is the hash of the name between
// the prefix and the extension: ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6
// hashes "Global-PCD3D_SM6" and "PCD3D_SM6".
func ShaderLibraryChunkID(base string, v iostore.TocVersion) (iostore.ChunkID, bool) {
	lower := strings.ToLower(base)
	if !strings.HasPrefix(lower, strings.ToLower(shaderLibraryPrefix)) || !strings.HasSuffix(lower, shaderLibraryExt) {
		return iostore.ChunkID{}, false
	}
	name := base[len(shaderLibraryPrefix) : len(base)-len(shaderLibraryExt)]
	dash := strings.LastIndexByte(name, '-')
	if dash <= 0 || dash == len(name)-1 {
		return iostore.ChunkID{}, false
	}
	id, err := iostore.NewChunkID(cityhash.ShaderLibraryID(name[:dash], name[dash+1:]), 0, iostore.ChunkShaderCodeLibrary, v)
	if err != nil {
		return iostore.ChunkID{}, false
	}
	return id, true
}

// shaderLibraryChunk reports whether the file at p (rel in the folder) is a
// shader library header in its IoStore form, which becomes a
// ShaderCodeLibrary chunk of TOC version v, and returns its id. Only UE5
// containers hold shader libraries as chunks: for UE 4.26/4.27 the file
// stays a file of the .pak, as does a pak-era library (version 2).
func shaderLibraryChunk(p, rel string, v iostore.TocVersion) (iostore.ChunkID, bool, error) {
	if !v.UsesUE5ChunkTypes() {
		return iostore.ChunkID{}, false, nil
	}
	id, ok := ShaderLibraryChunkID(path.Base(rel), v)
	if !ok {
		return iostore.ChunkID{}, false, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return iostore.ChunkID{}, false, err
	}
	defer f.Close()
	var head [4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return iostore.ChunkID{}, false, fmt.Errorf("%s: a shader library shorter than the 4 bytes of its version", p)
		}
		return iostore.ChunkID{}, false, err
	}
	if binary.LittleEndian.Uint32(head[:]) != ioStoreShaderLibraryVersion {
		return iostore.ChunkID{}, false, nil
	}
	// The header is decoded whole (it is small: the shaders' code is in
	// the groups), so that a damaged one is refused here, not by the game.
	data, err := os.ReadFile(p)
	if err != nil {
		return iostore.ChunkID{}, false, err
	}
	if _, err := convert.DecodeZenShaderArchive(p, data); err != nil {
		return iostore.ChunkID{}, false, err
	}
	return id, true, nil
}
