package iostore_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// TestLoadScriptObjectsUE5 loads the script objects of the two UE5 global
// containers of the corpus.
func TestLoadScriptObjectsUE5(t *testing.T) {
	for _, c := range []struct {
		rel     string
		objects int
	}{
		{"iostore/cue4parse_ue5_8/Tagged/global.utoc", 36979},
		{"iostore/game_TempleOfGiants_ue5/global.utoc", 25703},
	} {
		s, err := iostore.LoadScriptObjects(corpus.Path(t, c.rel), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.rel, err)
		}
		if s.UE4 || s.Len() != c.objects || len(s.Problems()) != 0 {
			t.Errorf("%s: UE4 %v, %d objects, %d problems", c.rel, s.UE4, s.Len(), len(s.Problems()))
		}
		for x, want := range map[zen.ObjectIndex]string{
			0x6b62d0815847a520: "/Script/Engine.BlueprintGeneratedClass",
			0x61febf02cdde2af3: "/Script/CoreUObject",
		} {
			if p, ok := s.Path(x); !ok || p != want {
				t.Errorf("%s: Path(%v) = %q, %v", c.rel, x, p, ok)
			}
		}
	}
}

// soBuildGlobal427 writes a 4.27 (TOC version 3) global container holding
// the given chunk types, with the corpus's 4.27 global chunks as data.
func soBuildGlobal427(t *testing.T, types ...iostore.ChunkType) (utoc string, data map[iostore.ChunkType][]byte) {
	t.Helper()
	files := map[iostore.ChunkType]string{
		iostore.ChunkLoaderGlobalNames:      "LoaderGlobalNames_1.bin",
		iostore.ChunkLoaderGlobalNameHashes: "LoaderGlobalNameHashes_1.bin",
		iostore.ChunkLoaderInitialLoadMeta:  "LoaderInitialLoadMeta_1.bin",
	}
	data = map[iostore.ChunkType][]byte{}
	b := &iostorebuild.Container{Version: iostore.VersionPartitionSize, ContainerID: 0x0123456789abcdef,
		MountPoint: "../../../", Method: "Zlib"}
	for _, typ := range types {
		raw, err := os.ReadFile(corpus.Path(t, "other/ue4_27_global_chunks/"+files[typ]))
		if err != nil {
			t.Fatal(err)
		}
		id, err := iostore.NewChunkID(0, 0, typ, b.Version)
		if err != nil {
			t.Fatal(err)
		}
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Data: raw})
		data[typ] = raw
	}
	utoc, err := b.WriteFiles(t.TempDir(), "global")
	if err != nil {
		t.Fatal(err)
	}
	return utoc, data
}

// TestLoadScriptObjectsUE427 loads the 4.27 global chunks from a container
// laid out as the engine lays out global.utoc.
func TestLoadScriptObjectsUE427(t *testing.T) {
	utoc, data := soBuildGlobal427(t, iostore.ChunkLoaderInitialLoadMeta, iostore.ChunkLoaderGlobalNames, iostore.ChunkLoaderGlobalNameHashes)
	s, err := iostore.LoadScriptObjects(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.UE4 || len(s.Names) != 21550 || s.Len() != 23393 || len(s.Problems()) != 0 {
		t.Errorf("UE4 %v, %d names, %d objects, %d problems", s.UE4, len(s.Names), s.Len(), len(s.Problems()))
	}
	if p, ok := s.Path(0x6b62d0815847a520); !ok || p != "/Script/Engine.BlueprintGeneratedClass" {
		t.Errorf("Path = %q, %v", p, ok)
	}
	names, hashes, meta, err := s.EncodeUE4()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(names, data[iostore.ChunkLoaderGlobalNames]) || !bytes.Equal(hashes, data[iostore.ChunkLoaderGlobalNameHashes]) ||
		!bytes.Equal(meta, data[iostore.ChunkLoaderInitialLoadMeta]) {
		t.Error("the chunks do not encode back byte for byte")
	}

	// Only some of the three chunks.
	utoc, _ = soBuildGlobal427(t, iostore.ChunkLoaderGlobalNames, iostore.ChunkLoaderGlobalNameHashes)
	_, err = iostore.LoadScriptObjects(utoc, nil)
	var fe *ue.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, iostore.ErrCorrupt) || errors.Is(err, iostore.ErrNotGlobalContainer) ||
		fe.File != utoc || !strings.Contains(err.Error(), "missing: LoaderInitialLoadMeta") {
		t.Errorf("two of three chunks: %v", err)
	}
}

// TestLoadScriptObjectsNotGlobal opens containers that are not global ones.
func TestLoadScriptObjectsNotGlobal(t *testing.T) {
	dir := corpus.Dir(t)
	utocs, _ := filepath.Glob(filepath.Join(dir, "iostore", "cue4parse_ue5_8", "Tagged", "Zlib", "*.utoc"))
	utocs = append(utocs, filepath.Join(dir, "iostore", "game_TempleOfGiants_ue5", "Colliderproject-Windows.utoc")) // no .ucas beside it
	if len(utocs) < 2 {
		t.Fatalf("containers %v", utocs)
	}
	for _, utoc := range utocs {
		s, err := iostore.LoadScriptObjects(utoc, nil)
		var fe *ue.FormatError
		if s != nil || !errors.As(err, &fe) || !errors.Is(err, iostore.ErrNotGlobalContainer) || fe.File != utoc ||
			!strings.Contains(err.Error(), "not a global container: no ScriptObjects chunk") {
			t.Errorf("%s: %v", utoc, err)
		}
	}
	if _, err := iostore.LoadScriptObjects(filepath.Join(t.TempDir(), "missing.utoc"), nil); err == nil {
		t.Error("a missing file loads")
	}
}
