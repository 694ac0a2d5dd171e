package pack_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/internal/shaderbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue/oodle"
)

// shaderMod is a folder as a modder's UE 5.6 cook leaves it: the corpus's
// cooked material M_Mannequin at its package path, and a pak-era shader
// library beside it with the header of the corpus's UE 5.4 library (29,285
// shaders, 988 shader maps) and code of its own, each shader stored
// Oodle-compressed through lib when that is shorter (as the cooker does),
// with the cooker's asset info giving the material three shader maps
// (one the library does not hold).
type shaderMod struct {
	dir, libRel, pkg string
	lib              *convert.ShaderArchive
	raw              [][]byte // raw[s] is shader s's uncompressed code
	maps             []convert.ShaderHash
	absent           convert.ShaderHash
}

func newShaderMod(t *testing.T, lib *oodle.Library) *shaderMod {
	t.Helper()
	dir := corpus.Dir(t)
	pairs := filepath.Join(dir, "other/ue5_cooked_pairs")
	zp, err := os.ReadFile(filepath.Join(pairs, "UE5.6_M_Mannequin.uzenasset"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := zen.DecodePackage("M_Mannequin", zp, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &shaderMod{dir: t.TempDir(), pkg: p.PackageName()}
	rel := "Demo/Content/" + strings.TrimPrefix(m.pkg, "/Game/")
	for _, ext := range []string{".uasset", ".uexp"} {
		data, err := os.ReadFile(filepath.Join(pairs, "UE5.6_M_Mannequin"+ext))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(m.dir, filepath.FromSlash(rel+ext)), data)
	}
	name := "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"
	head, err := os.ReadFile(filepath.Join(dir, "other/ue5_shader_libraries", name))
	if err != nil {
		t.Fatal(err)
	}
	if m.lib, err = convert.DecodeShaderArchive(name, head); err != nil {
		t.Fatal(err)
	}
	if m.raw, err = shaderbuild.WithCode(m.lib, func(src []byte) ([]byte, error) { return lib.Compress(nil, src, oodle.Kraken, oodle.Normal) }); err != nil {
		t.Fatal(err)
	}
	m.libRel = "Demo/Content/" + name
	writeFile(t, filepath.Join(m.dir, filepath.FromSlash(m.libRel)), m.lib.Encode())
	m.maps = []convert.ShaderHash{m.lib.ShaderMapHashes[7], m.lib.ShaderMapHashes[3], m.lib.ShaderMapHashes[500]}
	m.absent = convert.ShaderHash{0xEE, 1, 2, 3}
	type entry struct {
		ShaderMapHash string
		Assets        []string
	}
	info := struct {
		AssetInfoVersion   int
		ShaderCodeToAssets []entry
	}{AssetInfoVersion: 2}
	for _, h := range append(slices.Clone(m.maps), m.absent) {
		info.ShaderCodeToAssets = append(info.ShaderCodeToAssets, entry{h.String(), []string{m.pkg, "/Game/Elsewhere/M_Other"}})
	}
	js, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(m.dir, "Demo/Content/ShaderAssetInfo-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.assetinfo.json"), js)
	return m
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPackPakEraShaderLibrary packs a UE 5.6 mod holding a pak-era shader
// library, as the engine's packer does: the library becomes its
// ShaderCodeLibrary chunk (the header the engine makes of it, groups'
// sizes as stored) and one ShaderCode chunk per group, stored
// uncompressed in the container, each group Oodle-compressed when that
// is shorter and holding its shaders' code at the header's offsets; the
// material's store entry lists the shader maps the asset info gives it
// that the library holds, sorted; neither file goes into the .pak.
// Without the game's Oodle library the compressed shaders are refused;
// for UE 5.8 shader libraries are refused; for UE 4.27 they stay files of
// the .pak.
func TestPackPakEraShaderLibrary(t *testing.T) {
	libPath, _ := oodletest.Library(t, nil)
	lib, err := oodle.Open(libPath)
	if err != nil {
		t.Fatal(err)
	}
	m := newShaderMod(t, lib)
	v := pack.TocVersionFor(zen.Engine{Major: 5, Minor: 6})
	plan, err := pack.Scan(m.dir, v)
	if err != nil {
		t.Fatal(err)
	}
	shaders := convert.ShaderLibraryOptions{
		Decompress: lib.Decompress,
		Compress:   func(dst, src []byte) ([]byte, error) { return lib.Compress(dst, src, oodle.Mermaid, oodle.Normal) },
	}
	out := filepath.Join(t.TempDir(), "z_Shaders_P.utoc")
	res, err := pack.Pack(plan, out, &pack.Options{Engine: zen.Engine{Major: 5, Minor: 6}, Shaders: shaders, Jobs: 3,
		Writer: iostore.WriterOptions{Method: "Zlib", Verify: iostore.VerifyAll}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loose) != 0 || res.ShaderLibraries != 1 || res.Packages != 1 {
		t.Errorf("loose %v, %d shader libraries, %d packages; want none, 1, 1", res.Loose, res.ShaderLibraries, res.Packages)
	}
	// Without the game's container nothing says the game has no library
	// of this name: pack says so.
	if w := res.Warnings; len(w) != 1 || w[0].Kind != pack.UncheckedShaderLibrary || len(w[0].Packages) != 1 || w[0].Packages[0] != m.libRel {
		t.Errorf("warnings %+v, want the library packed unchecked", w)
	}
	want, err := convert.ShaderArchiveToZen(m.lib, "PCD3D_SM6", 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := c.Verify(nil); !r.OK() {
		t.Errorf("verify: %v", r.Problems)
	}
	wantID, _ := pack.ShaderLibraryChunkID(path.Base(m.libRel), v)
	groups := map[iostore.ChunkID][]byte{}
	var header []byte
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkShaderCode && ch.Type != iostore.ChunkShaderCodeLibrary {
			continue
		}
		if ch.CompressedSize != ch.Size {
			t.Errorf("%v chunk %v: %d bytes stored for %d; the engine stores shader chunks uncompressed", ch.Type, ch.ID, ch.CompressedSize, ch.Size)
		}
		data, err := c.ReadChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Type == iostore.ChunkShaderCode {
			groups[ch.ID] = data
			continue
		}
		if ch.ID != wantID || !strings.HasSuffix(m.libRel, "/"+ch.Path) {
			t.Errorf("shader library chunk %v at %q, want %v at %s", ch.ID, ch.Path, wantID, m.libRel)
		}
		header = data
	}
	z, err := convert.DecodeZenShaderArchive("packed header", header)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != len(want.Groups) {
		t.Fatalf("%d shader code chunks for %d groups", len(groups), len(want.Groups))
	}
	compressed := 0
	for g, e := range z.Groups {
		we := want.Groups[g]
		if z.GroupChunkIDs[g] != want.GroupChunkIDs[g] || e.UncompressedSize != we.UncompressedSize || e.NumShaders != we.NumShaders || e.ShaderIndicesOffset != we.ShaderIndicesOffset {
			t.Fatalf("group %d: %+v %x, the engine's header gives %+v %x", g, e, z.GroupChunkIDs[g], we, want.GroupChunkIDs[g])
		}
		data := groups[iostore.ChunkID(z.GroupChunkIDs[g])]
		if uint32(len(data)) != e.CompressedSize {
			t.Fatalf("group %d: %d bytes stored, the header says %d", g, len(data), e.CompressedSize)
		}
		if e.CompressedSize != e.UncompressedSize {
			compressed++
			raw := make([]byte, e.UncompressedSize)
			if err := lib.Decompress(raw, data); err != nil {
				t.Fatalf("group %d: %v", g, err)
			}
			data = raw
		}
		for _, s := range z.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
			off := z.Shaders[s].OffsetInGroup
			if !bytes.Equal(data[off:off+uint32(len(m.raw[s]))], m.raw[s]) {
				t.Fatalf("shader %d: not its code at %d of group %d", s, off, g)
			}
		}
	}
	z.Groups, want.Groups = nil, nil
	if !bytes.Equal(z.Encode(), want.Encode()) {
		t.Error("the packed header differs from the engine's conversion beyond the groups' stored sizes")
	}
	if compressed == 0 || compressed == len(groups) {
		t.Errorf("%d of %d groups compressed; want some of each (compressible code and noise)", compressed, len(groups))
	}
	h, err := c.ContainerHeader()
	if err != nil {
		t.Fatal(err)
	}
	wantMaps := slices.Clone(m.maps)
	slices.SortFunc(wantMaps, func(a, b convert.ShaderHash) int { return bytes.Compare(a[:], b[:]) })
	var got []convert.ShaderHash
	for _, e := range h.Packages {
		for _, b := range e.ShaderMapHashes {
			got = append(got, convert.ShaderHash(b))
		}
	}
	if !slices.Equal(got, wantMaps) {
		t.Errorf("store entry shader maps %x, want %x (sorted, without %x, which the library does not hold)", got, wantMaps, m.absent)
	}
	t.Logf("%d shaders in %d groups (%d compressed), %d shader maps for the material", len(m.raw), len(groups), compressed, len(got))

	// Without the game's Oodle library the compressed shaders cannot be
	// regrouped: refused, not put in the .pak where the game would not
	// read them.
	_, err = pack.Pack(plan, filepath.Join(t.TempDir(), "z_NoOodle_P.utoc"), &pack.Options{Engine: zen.Engine{Major: 5, Minor: 6}})
	if !errors.Is(err, convert.ErrOodleRequired) {
		t.Errorf("without Oodle: %v, want ErrOodleRequired", err)
	}
	// A library the game already holds would replace it for every
	// material of the game: refused when the game's container is given.
	libID, _ := pack.ShaderLibraryChunkID(path.Base(m.libRel), v)
	_, err = pack.Pack(plan, filepath.Join(t.TempDir(), "z_Replace_P.utoc"), &pack.Options{Engine: zen.Engine{Major: 5, Minor: 6}, Shaders: shaders,
		BaseTOC: &iostore.TOC{ChunkIDs: []iostore.ChunkID{libID}}})
	if err == nil || !strings.Contains(err.Error(), "already holds this shader library") {
		t.Errorf("a library of the game's: %v, want a refusal", err)
	}
	// A mod's Global library would replace the game's global shaders.
	global := filepath.Join(m.dir, "Demo/Content/ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode")
	if err := os.Rename(filepath.Join(m.dir, filepath.FromSlash(m.libRel)), global); err != nil {
		t.Fatal(err)
	}
	planG, err := pack.Scan(m.dir, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pack.Pack(planG, filepath.Join(t.TempDir(), "z_Global_P.utoc"), &pack.Options{Engine: zen.Engine{Major: 5, Minor: 6}, Shaders: shaders}); err == nil || !strings.Contains(err.Error(), "Global shader library") {
		t.Errorf("a mod's Global library: %v, want a refusal", err)
	}
	if _, err := pack.Pack(planG, filepath.Join(t.TempDir(), "Game-Windows.utoc"), &pack.Options{Engine: zen.Engine{Major: 5, Minor: 6}, Shaders: shaders}); err != nil {
		t.Errorf("the game's own Global library, not in a mod: %v", err)
	}
	if err := os.Rename(global, filepath.Join(m.dir, filepath.FromSlash(m.libRel))); err != nil {
		t.Fatal(err)
	}
	// UE 5.8 libraries have other hashes: refused.
	plan58, err := pack.Scan(m.dir, pack.TocVersionFor(zen.Engine{Major: 5, Minor: 8}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pack.Pack(plan58, filepath.Join(t.TempDir(), "z_58_P.utoc"), &pack.Options{Engine: zen.Engine{Major: 5, Minor: 8}, Shaders: shaders}); err == nil || !strings.Contains(err.Error(), "5.0–5.7") {
		t.Errorf("UE 5.8: %v, want a refusal", err)
	}
	// UE 4.27 reads shader libraries from the .pak.
	plan427, err := pack.Scan(m.dir, iostore.TocVersion(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plan427.Files {
		if (strings.HasSuffix(f.Path, ".ushaderbytecode") || strings.HasSuffix(f.Path, ".json")) && f.Kind != pack.Loose {
			t.Errorf("%s: a %v in a UE 4.27 container, want a loose file", f.Path, f.Kind)
		}
	}
}
