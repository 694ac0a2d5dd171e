package pack_test

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestShaderLibraryChunkIDEngine derives the id of every shader library
// chunk of the corpus's engine-written containers from the file name the
// directory index gives it: the ids must be the ones the engine wrote.
func TestShaderLibraryChunkIDEngine(t *testing.T) {
	libs := zencorpus.ShaderLibraries(t)
	for _, l := range libs {
		if got, ok := pack.ShaderLibraryChunkID(l.Name, l.Version); !ok || got != l.ID {
			t.Errorf("%s: %s: id %v (%v) from the name, the engine wrote %v", l.Container, l.Name, got, ok, l.ID)
		}
	}
	t.Logf("%d shader library chunk ids derived from their names", len(libs))
	for _, bad := range []string{"ShaderArchive-.ushaderbytecode", "ShaderArchive-Global.ushaderbytecode", "ShaderArchive-Global-.ushaderbytecode", "Global-PCD3D_SM5.ushaderbytecode", "ShaderArchive-Global-PCD3D_SM5.uasset"} {
		if id, ok := pack.ShaderLibraryChunkID(bad, iostore.TocVersion(8)); ok {
			t.Errorf("%s: id %v, want no shader library name", bad, id)
		}
	}
}

// TestPackExtractedShaderLibrary adds a UE5 shader library as extract
// writes it (the header at its path, groups as chunks/ShaderCode/<id>.bin)
// to an extracted container, packs it with Zlib and extracts the result:
// the header must be the ShaderCodeLibrary chunk again, at its path and
// under the id the engine gives it, the groups ShaderCode chunks, both
// stored uncompressed as the engine stores them, and every file must come
// back byte for byte. Any library of a UE 4.27 container stays a file of
// the .pak.
func TestPackExtractedShaderLibrary(t *testing.T) {
	dir := corpus.Dir(t)
	header, err := os.ReadFile(filepath.Join(dir, "other/ue5_shader_libraries/ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.uzenshaderbytecode"))
	if err != nil {
		t.Fatal(err)
	}
	z, err := convert.DecodeZenShaderArchive("header", header)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	src := extractAll(t, filepath.Join(dir, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), a)
	v := src.TOC().Header.Version
	lib := "CUE4ParseFixtures/Content/ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"
	write := func(rel string, data []byte) {
		p := filepath.Join(a, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lib, header)
	groups := map[iostore.ChunkID]bool{}
	for g := range 3 {
		id := iostore.ChunkID(z.GroupChunkIDs[g])
		groups[id] = true
		// Compressible bytes: a writer that compressed them would shrink them.
		write("chunks/ShaderCode/"+id.String()[2:]+".bin", bytes.Repeat([]byte{byte(g), 1, 2, 3}, int(z.Groups[g].CompressedSize)/4+1))
	}
	plan, err := pack.Scan(a, v)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out", "CUE4ParseFixtures-Minimal-Zlib-Windows.utoc") // the extracted header's container
	res, err := pack.Pack(plan, out, &pack.Options{Engine: zen.Engine{Major: 5, Minor: 8}, Writer: iostore.WriterOptions{Method: "Zlib", Verify: iostore.VerifyAll}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loose) != 0 || res.ShaderLibraries != 1 {
		t.Errorf("loose files %v, %d shader libraries; want none and 1", res.Loose, res.ShaderLibraries)
	}
	// Three of the library's groups are in the folder: the others must
	// come from another container, which pack says.
	if w := res.Warnings; len(w) != 1 || w[0].Kind != pack.MissingShaderGroups || w[0].Of != len(z.Groups) || w[0].Missing != len(z.Groups)-len(groups) || w[0].Packages[0] != lib {
		t.Errorf("warnings %+v, want the %d groups of %d the folder lacks", w, len(z.Groups)-len(groups), len(z.Groups))
	} else {
		t.Log(w[0])
	}
	c, err := iostore.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wantID, _ := pack.ShaderLibraryChunkID(path.Base(lib), v)
	var libs, codes int
	for _, ch := range c.Chunks() {
		switch ch.Type {
		case iostore.ChunkShaderCodeLibrary:
			libs++
			if ch.ID != wantID || !strings.HasSuffix(lib, "/"+ch.Path) {
				t.Errorf("shader library chunk %v at %q, want %v at %q", ch.ID, ch.Path, wantID, lib)
			}
		case iostore.ChunkShaderCode:
			codes++
			if !groups[ch.ID] || ch.Path != "" {
				t.Errorf("shader code chunk %v at %q is not one of the groups", ch.ID, ch.Path)
			}
		default:
			continue
		}
		if ch.CompressedSize != ch.Size {
			t.Errorf("%v chunk %v: %d bytes stored for %d; the engine stores shader chunks uncompressed", ch.Type, ch.ID, ch.CompressedSize, ch.Size)
		}
	}
	if libs != 1 || codes != len(groups) {
		t.Errorf("%d shader library and %d shader code chunks, want 1 and %d", libs, codes, len(groups))
	}
	if r := c.Verify(nil); !r.OK() {
		t.Errorf("verify: %v", r.Problems)
	}
	b := filepath.Join(tmp, "b")
	extractAll(t, out, b)
	ta, tb := tree(t, a), tree(t, b)
	if len(ta) != len(tb) {
		t.Errorf("%d files after the round trip, want %d", len(tb), len(ta))
	}
	for p, want := range ta {
		if got, ok := tb[p]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes after the round trip (present %v), want %d", p, len(got), ok, len(want))
		}
	}

	// UE 4.27 containers have no shader library chunks: the engine reads
	// the library from the .pak.
	plan, err = pack.Scan(a, iostore.TocVersion(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plan.Files {
		if strings.HasSuffix(f.Path, ".ushaderbytecode") && f.Kind != pack.Loose {
			t.Errorf("%s: a %v in a UE 4.27 container, want a loose file", f.Path, f.Kind)
		}
	}
}
