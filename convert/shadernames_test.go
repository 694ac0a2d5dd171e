package convert

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/zencorpus"
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
// the libraries the corpus's containers list (by kind) hash to the ids of
// their ShaderCodeLibrary chunks.
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
	for _, l := range zencorpus.ShaderLibraries(t) {
		lib, format, ok := ShaderLibraryName(l.Name)
		if id := cityhash.ShaderLibraryID(lib, format); !ok || id != l.ID.Value() {
			t.Errorf("%s: %s: library %q format %q: chunk id 0x%016x, the engine's %v", l.Container, l.Name, lib, format, id, l.ID)
		}
	}
}

// TestZenShaderLibraryChunkIDs names a library after one a corpus
// container lists and checks its ShaderCodeLibrary chunk id, laid out for
// the container's TOC version, is that chunk's id byte for byte; its group chunk
// ids are ShaderCode ids of that version, and each group's load order is
// its smallest shader index.
func TestZenShaderLibraryChunkIDs(t *testing.T) {
	engine := zencorpus.ShaderLibraries(t)[0]
	file := runMini(t, 5)
	l, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), "Cooked/"+engine.Name, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := l.LibraryChunkID(engine.Version)
	if err != nil || id != engine.ID {
		t.Errorf("library chunk id %v (%v), the engine's %v in %s", id, err, engine.ID, engine.Container)
	}
	for g, e := range l.Zen.Groups {
		if l.GroupChunkID(g).Type(engine.Version) != iostore.ChunkShaderCode {
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
	if _, err := noName.LibraryChunkID(engine.Version); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("library chunk id without a library name: %v", err)
	}
	if _, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), "lib.bin", "", nil); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("no format and no name: %v", err)
	}
}
