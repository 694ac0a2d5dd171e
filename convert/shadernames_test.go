package convert

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
)

// TestShaderLibraryName splits library file names as the packer does:
// between the first and the last "-" the library, after the last the
// format; folders (either slash) and the extension are dropped; names
// without a library or a format are refused.
func TestShaderLibraryName(t *testing.T) {
	for _, tc := range []struct {
		file, lib, format, info string
		ok                      bool
	}{
		{"ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode", "Global-PCD3D_SM6", "PCD3D_SM6",
			"ShaderAssetInfo-Global-PCD3D_SM6-PCD3D_SM6.assetinfo.json", true},
		{"Game/Content/ShaderArchive-My-Game-SF_VULKAN_SM6.ushaderbytecode", "My-Game", "SF_VULKAN_SM6",
			"Game/Content/ShaderAssetInfo-My-Game-SF_VULKAN_SM6.assetinfo.json", true},
		{`C:\Cooked\ShaderArchive-Lib-PCD3D_SM5`, "Lib", "PCD3D_SM5", `C:\Cooked\ShaderAssetInfo-Lib-PCD3D_SM5.assetinfo.json`, true},
		{"ShaderArchive.ushaderbytecode", "", "", "", false},
		{"ShaderArchive-PCD3D_SM6.ushaderbytecode", "", "", "", false},
		{"ShaderArchive--PCD3D_SM6.ushaderbytecode", "", "", "", false},
		{"ShaderArchive-Lib-.ushaderbytecode", "", "", "", false},
		{"dir-with-dashes/ShaderArchive.ushaderbytecode", "", "", "", false},
	} {
		lib, format, ok := ShaderLibraryName(tc.file)
		if lib != tc.lib || format != tc.format || ok != tc.ok {
			t.Errorf("%s: %q %q %v", tc.file, lib, format, ok)
		}
		if got := ShaderAssetInfoName(tc.file); got != tc.info {
			t.Errorf("%s: asset info %q", tc.file, got)
		}
	}
}

// TestShaderLibraryNameCorpus checks the split on engine files: the
// corpus library pair gives the format its groups are named with (the
// converted header's group chunk ids are the engine's), and the names of
// the libraries a UE 5 game ships hash to ShaderCodeLibrary chunks its
// container holds.
func TestShaderLibraryNameCorpus(t *testing.T) {
	for _, pr := range shaderPairs(t) {
		_, format, ok := ShaderLibraryName(pr[0])
		a, err := DecodeShaderArchive(pr[0], read(t, pr[0]))
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		z, err := ShaderArchiveToZen(a, format, 0)
		if err != nil {
			t.Fatal(err)
		}
		engine, err := DecodeZenShaderArchive(pr[1], read(t, pr[1]))
		if err != nil {
			t.Fatal(err)
		}
		same := len(z.GroupChunkIDs) == len(engine.GroupChunkIDs)
		for g := range z.GroupChunkIDs {
			same = same && z.GroupChunkIDs[g] == engine.GroupChunkIDs[g]
		}
		if !same {
			t.Errorf("%s: format %q from the name does not give the engine's group chunk ids", filepath.Base(pr[0]), format)
		}
	}
	utoc := corpus.Path(t, "iostore/game_WayOfTheNinja_ue5/WayOfTheNinja-Windows.utoc")
	data, err := os.ReadFile(utoc)
	if err != nil {
		t.Fatal(err)
	}
	toc, err := iostore.DecodeTOC(utoc, data)
	if err != nil {
		t.Fatal(err)
	}
	libs := map[uint64]bool{}
	for _, id := range toc.ChunkIDs {
		if id.Type(toc.Header.Version) == iostore.ChunkShaderCodeLibrary {
			libs[id.Value()] = true
		}
	}
	for _, name := range []string{
		"ShaderArchive-WayOfTheNinja-PCD3D_SM6-PCD3D_SM6.ushaderbytecode",
		"ShaderArchive-WayOfTheNinja-PCD3D_SM5-PCD3D_SM5.ushaderbytecode",
		"ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode",
		"ShaderArchive-Global-PCD3D_SM5-PCD3D_SM5.ushaderbytecode",
	} {
		lib, format, ok := ShaderLibraryName(name)
		if id := cityhash.ShaderLibraryID(lib, format); !ok || !libs[id] {
			t.Errorf("%s: library %q format %q: chunk id 0x%016x is not one of the container's %d shader libraries", name, lib, format, id, len(libs))
		}
	}
}

// TestZenShaderLibraryChunkIDs names a library after one of a UE 5 game's
// and checks its ShaderCodeLibrary chunk id, laid out for the container's
// TOC version, is one the container holds byte for byte; its group chunk
// ids are ShaderCode ids of that version, and each group's load order is
// its smallest shader index.
func TestZenShaderLibraryChunkIDs(t *testing.T) {
	utoc := corpus.Path(t, "iostore/game_WayOfTheNinja_ue5/WayOfTheNinja-Windows.utoc")
	data, err := os.ReadFile(utoc)
	if err != nil {
		t.Fatal(err)
	}
	toc, err := iostore.DecodeTOC(utoc, data)
	if err != nil {
		t.Fatal(err)
	}
	file := runMini(t, 5)
	l, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), "Cooked/ShaderArchive-WayOfTheNinja-PCD3D_SM6-PCD3D_SM6.ushaderbytecode", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.LibraryChunkID(toc.Header.Version)
	if err != nil || !slices.Contains(toc.ChunkIDs, id) {
		t.Errorf("library chunk id %v (%v) is not in the container", id, err)
	}
	for g, e := range l.Zen.Groups {
		if l.GroupChunkID(g).Type(toc.Header.Version) != iostore.ChunkShaderCode {
			t.Errorf("group %d: chunk id %v is not a ShaderCode id", g, l.GroupChunkID(g))
		}
		low := uint32(1<<32 - 1)
		for _, s := range l.Zen.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
			low = min(low, s)
		}
		if l.GroupLoadOrder(g) != low {
			t.Errorf("group %d: load order %d, smallest shader %d", g, l.GroupLoadOrder(g), low)
		}
	}
	noName, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), "lib.bin", "PCD3D_SM6", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noName.LibraryChunkID(toc.Header.Version); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("library chunk id without a library name: %v", err)
	}
	if _, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), "lib.bin", "", nil); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("no format and no name: %v", err)
	}
}
