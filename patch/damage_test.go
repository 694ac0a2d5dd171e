package patch_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/patch"
)

// TestContainerDamagedBase applies patches to the demo 4.27 container with
// one byte of one chunk damaged, in a compressed (Zlib) block and in an
// uncompressed one: mode mod and mode full (both layouts) must fail naming
// the damaged chunk whenever they take it from the base, rather than
// write a container that verifies around damaged data, and must write
// nothing; what they do not take from the base does not stop them.
func TestContainerDamagedBase(t *testing.T) {
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	items := "      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n"
	arena := "      - package: DemoArena\n        ops:\n          - rename: {from: Intensity, to: Brightness}\n"
	tests := []struct {
		name    string
		chunk   string // the damaged chunk's path under the mount point
		ops     string
		mode    string // mod, or the layout of mode full
		damaged bool   // the run takes the damaged chunk from the base
	}{
		{"mod/patched package", "Data/DT_DemoItems.uasset", items, "mod", true},
		{"mod/copied bulk data", "Maps/DemoArena.ubulk", arena, "mod", true},
		{"mod/other package", "Items/BP_DemoPickup.uasset", items, "mod", false},
		{"preserve/patched package", "Data/DT_DemoItems.uasset", items, "preserve", true},
		{"preserve/kept package", "Items/BP_DemoPickup.uasset", items, "preserve", true},
		{"compact/patched package", "Data/DT_DemoItems.uasset", items, "compact", true},
		{"compact/kept bulk data", "Maps/DemoArena.ubulk", items, "compact", true},
	}
	for _, method := range []string{"Zlib", "None"} {
		for _, tc := range tests {
			t.Run(method+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				b := *demos[0].Container
				b.Method = method
				utoc, err := b.WriteFiles(dir, demos[0].Name)
				if err != nil {
					t.Fatal(err)
				}
				ch := damageChunk(t, utoc, "UnrmodDemo/Content/"+tc.chunk, method != "None")
				ucas, _ := os.ReadFile(iostore.PartitionPath(utoc, 0))
				target := "    output: out/z_DemoMod_P\n"
				if tc.mode != "mod" {
					target = "    output: out/" + demos[0].Name + "\n    mode: full\n    layout: " + tc.mode + "\n"
				}
				_, err = applyYAML(t, dir, "unrmod: 1\ntargets:\n  - container: "+filepath.Base(utoc)+"\n"+target+"    packages:\n"+tc.ops, patch.Options{})
				if after, _ := os.ReadFile(iostore.PartitionPath(utoc, 0)); !bytes.Equal(ucas, after) {
					t.Error("the base container changed")
				}
				if !tc.damaged {
					if err != nil {
						t.Fatalf("the run takes nothing from the damaged chunk, but fails: %v", err)
					}
					return
				}
				var d *iostore.DamagedChunkError
				if !errors.As(err, &d) {
					t.Fatalf("error %v, want a *DamagedChunkError", err)
				}
				if d.ID != ch.ID || d.File != utoc || !strings.Contains(err.Error(), ch.ID.String()) || !strings.Contains(err.Error(), tc.chunk) {
					t.Errorf("error %q, want one naming %s chunk %v (%s)", err, utoc, ch.ID, tc.chunk)
				}
				entries, _ := os.ReadDir(filepath.Join(dir, "out"))
				for _, e := range entries {
					t.Errorf("%s written", e.Name())
				}
			})
		}
	}
}

// damageChunk flips one byte of the chunk at path in the container utoc:
// in the middle of its first block when compressed, near the end of its
// data otherwise (export data, which a package decodes without noticing).
// The block must be stored as asked.
func damageChunk(t *testing.T, utoc, path string, compressed bool) iostore.Chunk {
	t.Helper()
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, ch := range c.Chunks() {
		if c.GamePath(i) != path {
			continue
		}
		b := c.TOC().Blocks[ch.FirstBlock]
		if (b.Method != 0) != compressed {
			t.Fatalf("%s: block %d stored with method %d", path, ch.FirstBlock, b.Method)
		}
		off := int64(b.Offset) + int64(b.CompressedSize)/2
		if !compressed {
			off = int64(b.Offset) + int64(b.CompressedSize) - 5
		}
		f, err := os.OpenFile(iostore.PartitionPath(utoc, 0), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var x [1]byte
		if _, err := f.ReadAt(x[:], off); err != nil {
			t.Fatal(err)
		}
		x[0] ^= 0x01
		if _, err := f.WriteAt(x[:], off); err != nil {
			t.Fatal(err)
		}
		return ch
	}
	t.Fatalf("%s: no chunk %s", utoc, path)
	return iostore.Chunk{}
}
