package patch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
)

// TestContainerReplaceShaderLibrary replaces the shader library chunk of
// a UE5 container (the corpus's library header, packed as extract writes
// it) in both modes: the header in its IoStore form is taken and the
// output verifies; the library as the cooker writes it (its code in the
// file, not in ShaderCode chunks) and bytes that are no library are
// refused, naming the chunk's path, since the game would read them as a
// header.
func TestContainerReplaceShaderLibrary(t *testing.T) {
	libs := corpus.Path(t, "other/ue5_shader_libraries")
	name := "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6"
	header, err := os.ReadFile(filepath.Join(libs, name+".uzenshaderbytecode"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rel := "Demo/Content/" + name + ".ushaderbytecode"
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "Demo", "Content"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(rel)), header, 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := pack.Scan(src, pack.TocVersionFor(zen.Engine{Major: 5, Minor: 4}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pack.Pack(plan, filepath.Join(dir, "Game-Windows.utoc"), &pack.Options{Engine: zen.Engine{Major: 5, Minor: 4}, NoPak: true}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"cooked.ushaderbytecode": nil, "junk.bin": []byte("not a shader library at all"), "header.bin": header} {
		if data == nil {
			if data, err = os.ReadFile(filepath.Join(libs, strings.TrimSuffix(filepath.Base(rel), ".ushaderbytecode")+".ushaderbytecode")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ with, mode, want string }{
		{"cooked.ushaderbytecode", "mod", "as the cooker writes it"},
		{"junk.bin", "full", "is not a shader library header"},
		{"header.bin", "mod", ""},
		{"header.bin", "full", ""},
	} {
		t.Run(tc.with+"/"+tc.mode, func(t *testing.T) {
			out := "mods/z_" + tc.mode + "_P.utoc"
			if tc.mode == "full" {
				out = "full/Game-Windows.utoc"
			}
			res, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: Game-Windows.utoc
    output: `+out+`
    mode: `+tc.mode+`
    files:
      - replace-file: {path: `+rel+`, with: `+tc.with+`}
`, patch.Options{})
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), rel) {
					t.Fatalf("error %v, want one saying %q and naming %s", err, tc.want, rel)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := iostore.Open(filepath.Join(dir, filepath.FromSlash(out)), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if r := c.Verify(nil); !r.OK() || len(res.Targets) != 1 {
				t.Errorf("verify: %v", r.Problems)
			}
		})
	}
}
