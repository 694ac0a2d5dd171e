package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/internal/shaderbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue/oodle"
)

// TestPackShaderLibrary packs a UE 5.4 folder holding a pak-era shader
// library whose shaders are Oodle-compressed, as the cooker writes it:
// without the game's Oodle library pack refuses, says how to give it and
// writes nothing; with it the library becomes its ShaderCodeLibrary and
// ShaderCode chunks, which verify.
func TestPackShaderLibrary(t *testing.T) {
	name := "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"
	head, err := os.ReadFile(corpus.Path(t, "other/ue5_shader_libraries/"+name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := convert.DecodeShaderArchive(name, head)
	if err != nil {
		t.Fatal(err)
	}
	libPath, _ := oodletest.Library(t, nil)
	lib, err := oodle.Open(libPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shaderbuild.WithCode(a, func(src []byte) ([]byte, error) { return lib.Compress(nil, src, oodle.Kraken, oodle.Normal) }); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "mod", "Demo", "Content", name)
	if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, a.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "z_Shaders_P")
	noOodle(t)
	_, stderr, code := runCLI(t, "pack", filepath.Join(dir, "mod"), "-o", out, "--engine", "5.4")
	if code != 1 || !strings.Contains(stderr, "Oodle-compressed") || !strings.Contains(stderr, "--oodle") {
		t.Errorf("without Oodle: exit %d, %s; want exit 1 saying to give --oodle", code, stderr)
	}
	if _, err := os.Stat(out + ".utoc"); !os.IsNotExist(err) {
		t.Errorf("a refused pack left %s.utoc (%v)", out, err)
	}
	stdout, stderr, code := runCLI(t, "pack", filepath.Join(dir, "mod"), "-o", out, "--engine", "5.4", "--oodle", libPath)
	if code != 0 || !strings.Contains(stdout, "and 1 shader library") {
		t.Fatalf("with Oodle: exit %d, %s%s", code, stdout, stderr)
	}
	c, err := iostore.Open(out+".utoc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	kinds := map[iostore.ChunkType]int{}
	for _, ch := range c.Chunks() {
		kinds[ch.Type]++
	}
	if kinds[iostore.ChunkShaderCodeLibrary] != 1 || kinds[iostore.ChunkShaderCode] == 0 {
		t.Errorf("chunks by type %v: want one ShaderCodeLibrary and its ShaderCode groups", kinds)
	}
	if stdout, stderr, code := runCLI(t, "verify", out+".utoc"); code != 0 || !strings.Contains(stdout, "1 shader library checked") {
		t.Errorf("verify: exit %d, %s%s", code, stdout, stderr)
	}
}

// TestShaderLibraryInfoVerify runs info and verify on the corpus's shader
// library files: info names the form, the library, its chunk id and the
// counts (text and JSON); verify over the folder passes the IoStore
// header and reports the cooker's file, whose code the corpus cut off,
// in one line.
func TestShaderLibraryInfoVerify(t *testing.T) {
	dir := corpus.Path(t, "other/ue5_shader_libraries")
	name := "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6"
	stdout, stderr, code := runCLI(t, "info", filepath.Join(dir, name+".uzenshaderbytecode"))
	if code != 0 || !strings.Contains(stdout, "IoStore form") || !strings.Contains(stdout, "0x8cc6d6821873a8b500000008") || !strings.Contains(stdout, "2423 ShaderCode chunks") {
		t.Errorf("info: exit %d, %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "info", "--json", filepath.Join(dir, name+".ushaderbytecode"))
	if code != 0 || !strings.Contains(stdout, `"form": "cooked"`) || !strings.Contains(stdout, `"shader_maps": 988`) {
		t.Errorf("info --json: exit %d, %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "verify", dir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 1 || len(lines) != 2 || !strings.Contains(stdout, "the file was cut short") || !strings.Contains(stdout, "ok  "+filepath.Join(dir, name+".uzenshaderbytecode")+" (iostore shader library: 988 shader maps, 29285 shaders, 2423 groups)") {
		t.Errorf("verify: exit %d, %q%s", code, stdout, stderr)
	}
}
