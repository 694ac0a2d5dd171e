package patch_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/ue"
)

// TestContainerUE60 patches UE 6.0 (TOC version 10) containers, plain and
// AES-CTR, made by packing the files of a 5.8 corpus container for 6.0
// (the corpus has none): mode mod must write a version 10 mod container
// with the game's cipher, and mode full (both layouts) must keep the
// version, the cipher and, for AES-CTR, one IV per block.
func TestContainerUE60(t *testing.T) {
	root := corpus.Dir(t)
	src := filepath.Join(root, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc")
	tmp := t.TempDir()
	files := filepath.Join(tmp, "files")
	c, err := iostore.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Extract(files, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	const keyText = "UnrmodUE60KeyForTheRoundTrip0123"
	key, err := ue.ParseKey(keyText)
	if err != nil {
		t.Fatal(err)
	}
	const name = "/Game/Fixtures/Blueprints/S_Fixture"
	for _, tt := range []struct {
		name   string
		key    *ue.Key
		method iostore.EncryptionMethod
	}{{"plain", nil, iostore.EncryptionNone}, {"CTR", &key, iostore.EncryptionAESCTR}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(tmp, tt.name)
			game := filepath.Join(dir, "Game-Windows.utoc")
			plan, err := pack.Scan(files, iostore.VersionContainerEncryptionMethod)
			if err != nil {
				t.Fatal(err)
			}
			e60 := zen.Engine{Major: 6, Minor: 0}
			if _, err := pack.Pack(plan, game, &pack.Options{Engine: e60, NoPak: true, Writer: iostore.WriterOptions{Method: "Zlib", Key: tt.key}}); err != nil {
				t.Fatal(err)
			}
			keyLine := ""
			if tt.key != nil {
				keyLine = "    aes-key: " + keyText + "\n"
			}
			check := func(t *testing.T, utoc string, packages int) {
				t.Helper()
				p, c := readPackage(t, utoc, tt.key, name)
				h := c.Header()
				if h.Version != 10 || h.Encryption() != tt.method || h.EncryptionMethodByte != uint8(tt.method) {
					t.Errorf("TOC version %d, encryption %v, method byte %d", h.Version, h.Encryption(), h.EncryptionMethodByte)
				}
				if tt.key != nil && len(c.TOC().EncryptionIVs) != len(c.TOC().Blocks)+1 {
					t.Errorf("%d IVs for %d blocks", len(c.TOC().EncryptionIVs), len(c.TOC().Blocks))
				}
				if r := c.Verify(nil); !r.OK() || r.PackagesChecked != packages {
					t.Fatalf("%v, %d packages checked, want %d", r.Problems, r.PackagesChecked, packages)
				}
				if !containsName(p.Names, "UnrmodAddedName") {
					t.Error("the added name is missing")
				}
			}
			t.Run("mod", func(t *testing.T) {
				if _, err := applyYAML(t, dir, "unrmod: 1\ntargets:\n  - container: Game-Windows.utoc\n"+keyLine+
					"    output: mods/Mod_P\n    packages:\n      - package: "+name+"\n        ops:\n          - add-name: {name: UnrmodAddedName}\n", patch.Options{}); err != nil {
					t.Fatal(err)
				}
				check(t, filepath.Join(dir, "mods", "Mod_P.utoc"), 1)
			})
			for _, layout := range []string{"preserve", "compact"} {
				t.Run("full-"+layout, func(t *testing.T) {
					out := filepath.Join("full-"+layout, "Game-Windows.utoc")
					if _, err := applyYAML(t, dir, "unrmod: 1\ntargets:\n  - container: Game-Windows.utoc\n"+keyLine+
						"    output: "+out+"\n    mode: full\n    layout: "+layout+"\n    packages:\n      - package: "+name+"\n        ops:\n          - add-name: {name: UnrmodAddedName}\n", patch.Options{}); err != nil {
						t.Fatal(err)
					}
					check(t, filepath.Join(dir, out), plan.Count(pack.Package))
				})
			}
			if _, err := os.Stat(game); err != nil {
				t.Fatal(err)
			}
		})
	}
}
