package pak_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// corpusPaks are the real paks of the corpus: companion paks written by
// UEcastoc, UnrealReZen and UnrealUnZen, a legacy Grounded pak mod, and
// the paks the engine (UE 5.8) wrote. An empty digest marks an Oodle pak,
// whose files must fail with a *MethodError naming Oodle.
var corpusPaks = []struct {
	rel        string
	version    pak.Version
	footerSize int
	mount      string
	files      int
	bytes      int64  // total decompressed size
	digest     string // SHA-1 of all files' contents in index order
	first      string // the first file's path
}{
	{"other/grounded/Packed_P.pak", 3, 44, "../../../", 1, 234, "22a7a1259165227efab858ab4b2e65da820b7df3", "Game/Game.uproject"},
	{"other/grounded/UnrealUnZen_Packed_P.pak", 3, 44, "../../../", 1, 234, "22a7a1259165227efab858ab4b2e65da820b7df3", "Game/Game.uproject"},
	{"other/grounded/UnrealReZen_Packed_P.pak", 11, 221, "../../../", 0, 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709", ""},
	{"other/grounded/500-CreativeUnlock_P.pak", 3, 44, "../../../", 22, 393723, "b247bd2d481291d6f6a9675393b265316c935980",
		"Maine/Content/Blueprints/Items/BuildingRecipesTables/Table_BuildingRecipes_FortBuilding.uasset"},
	{"other/cue4parse_ue5_8/CUE4ParseFixtures-PatchBase.pak", 12, 221, "../../../CUE4ParseFixtures/Content/PatchFixtures/", 4, 2667,
		"eead6a8d751e8abb46c84db66a7c95965b727e51", "DA_PatchReferencer.uasset"},
	{"other/cue4parse_ue5_8/CUE4ParseFixtures-PatchBase_0_P.pak", 12, 221, "../../../CUE4ParseFixtures/Content/PatchFixtures/", 2, 1131,
		"50bddec3cfbb481c242606c4eadb3bd06b955899", "DA_PatchTarget.uasset"},
	{"pak/cue4parse_ue5_8/LegacyPak/Tagged/Oodle/CUE4ParseFixtures-Legacy-Tagged-Oodle.pak", 12, 221, "../../../CUE4ParseFixtures/Content/Fixtures/", 11, 200611,
		"", "DataTables/DT_AllProperties.uasset"},
	{"pak/cue4parse_ue5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak", 12, 221, "../../../CUE4ParseFixtures/Content/Fixtures/", 11, 200611,
		"e2a4229abc8aae138dec1e7f5d238f3718a2f0e6", "DataTables/DT_AllProperties.uasset"},
	{"pak/cue4parse_ue5_8/LegacyPak/Tagged/Zlib/CUE4ParseFixtures-Legacy-Tagged-Zlib.pak", 12, 221, "../../../CUE4ParseFixtures/Content/Fixtures/", 11, 200611,
		"e2a4229abc8aae138dec1e7f5d238f3718a2f0e6", "DataTables/DT_AllProperties.uasset"},
	{"pak/cue4parse_ue5_8/LegacyPak/Unversioned/Uncompressed/CUE4ParseFixtures-Legacy-Unversioned-Uncompressed.pak", 12, 221, "../../../CUE4ParseFixtures/Content/Fixtures/", 11, 189990,
		"7c80f89e55edbb79db1929ec51fe965477440d32", "DataTables/DT_AllProperties.uasset"},
	{"pak/cue4parse_ue5_8/Pak/Oodle/CUE4ParseFixtures-Minimal-Oodle.pak", 12, 221, "../../../CUE4ParseFixtures/", 4, 239798,
		"", "AssetRegistry.bin"},
	{"pak/cue4parse_ue5_8/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak", 12, 221, "../../../CUE4ParseFixtures/", 4, 239798,
		"ebfcdf7e61a0fd9a8af4f10840256ee855380579", "AssetRegistry.bin"},
}

// corpusPakFiles lists every pak of the corpus (by extension), relative to
// it, so that a pak added to the corpus is checked like the others.
func corpusPakFiles(t *testing.T) []string {
	dir := corpus.Dir(t)
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".pak") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("found %d corpus paks: %v", len(out), err)
	}
	return out
}

// TestCorpusPaks decodes every corpus pak, checks its index and reads
// each file (which checks it against its SHA-1); an Oodle file fails with
// a *MethodError naming the Oodle library. The paks corpusPaks describes
// must also have its version, footer, mount point, files and contents.
func TestCorpusPaks(t *testing.T) {
	known := map[string]int{}
	for i, tc := range corpusPaks {
		known[tc.rel] = i
	}
	seen := 0
	for _, rel := range corpusPakFiles(t) {
		k, isKnown := known[rel]
		if isKnown {
			seen++
		}
		t.Run(rel, func(t *testing.T) {
			r, err := pak.Open(corpus.Path(t, rel), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.CheckIndex(); err != nil {
				t.Error(err)
			}
			if isKnown {
				tc := corpusPaks[k]
				if r.Footer.Version != tc.version || r.Footer.Size() != tc.footerSize || r.MountPoint != tc.mount || len(r.Files) != tc.files {
					t.Fatalf("version %v, footer %d bytes, mount %q, %d files; want %v, %d, %q, %d",
						r.Footer.Version, r.Footer.Size(), r.MountPoint, len(r.Files), tc.version, tc.footerSize, tc.mount, tc.files)
				}
				if r.Footer.IndexEncrypted || !r.Footer.EncryptionKeyGUID.IsZero() {
					t.Errorf("encrypted index %v, key GUID %s; want neither", r.Footer.IndexEncrypted, r.Footer.EncryptionKeyGUID)
				}
			}
			h := sha1.New()
			var total int64
			oodle := false
			for i, f := range r.Files {
				data, err := f.ReadAll()
				if r.Footer.MethodName(f.Method) == "Oodle" {
					oodle = true
					if !errors.Is(err, pak.ErrUnsupportedMethod) || !strings.Contains(err.Error(), "Oodle library") {
						t.Errorf("%s: %v, want a *MethodError naming the Oodle library", f.Path, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(data)) != f.UncompressedSize {
					t.Errorf("%s: %d bytes, entry says %d", f.Path, len(data), f.UncompressedSize)
				}
				if strings.HasSuffix(f.Path, ".uasset") && binary.LittleEndian.Uint32(data) != 0x9E2A83C1 {
					t.Errorf("%s does not start with the package tag", f.Path)
				}
				if isKnown && i == 0 && f.Path != corpusPaks[k].first {
					t.Errorf("first file %q, want %q", f.Path, corpusPaks[k].first)
				}
				if got, err := r.ReadFile(strings.ToUpper(f.Path)); err != nil || !bytes.Equal(got, data) {
					t.Errorf("ReadFile(%q) by upper-case path: %d bytes, %v", f.Path, len(got), err)
				}
				h.Write(data)
				total += int64(len(data))
			}
			if !isKnown || oodle {
				return
			}
			tc := corpusPaks[k]
			if got := fmt.Sprintf("%x", h.Sum(nil)); total != tc.bytes || got != tc.digest {
				t.Errorf("contents: %d bytes, SHA-1 %s; want %d, %s", total, got, tc.bytes, tc.digest)
			}
		})
	}
	if seen != len(corpusPaks) {
		t.Errorf("%d of the %d paks corpusPaks describes are in the corpus", seen, len(corpusPaks))
	}
}

// TestCorpusDamage damages a copy of the corpus paks in memory and checks
// that the damage is reported: in the stored bytes of a file (hash
// mismatch), and in the index (its SHA-1).
func TestCorpusDamage(t *testing.T) {
	for _, rel := range corpusPakFiles(t) {
		t.Run(rel, func(t *testing.T) {
			orig, err := os.ReadFile(corpus.Path(t, rel))
			if err != nil {
				t.Fatal(err)
			}
			r, err := pak.Decode(bytes.NewReader(orig), int64(len(orig)), rel, nil)
			if err != nil {
				t.Fatal(err)
			}
			var fe *ue.FormatError
			// A stored byte of the last file, unless it is Oodle (which
			// needs the game's decoder): the hash (or zlib) notices.
			if n := len(r.Files); n > 0 && r.Footer.MethodName(r.Files[n-1].Method) != "Oodle" {
				damageLastFile(t, rel, orig, r.Files[n-1])
			}

			// An index byte: its SHA-1 no longer matches.
			b := bytes.Clone(orig)
			b[r.Footer.IndexOffset+r.Footer.IndexSize/2] ^= 0x55
			_, err = pak.Decode(bytes.NewReader(b), int64(len(b)), rel, nil)
			if !errors.As(err, &fe) || !errors.Is(err, pak.ErrCorrupt) || !strings.Contains(err.Error(), "SHA-1") {
				t.Errorf("damaged index: %v, want a corrupt-index error about its SHA-1", err)
			}
		})
	}
}

// damageLastFile flips the last stored byte of f, the last file of the pak
// orig, and checks that reading it fails with a *FormatError.
func damageLastFile(t *testing.T, rel string, orig []byte, f *pak.File) {
	t.Helper()
	b := bytes.Clone(orig)
	b[f.DataOffset()+f.Size-1] ^= 0x55
	d, err := pak.Decode(bytes.NewReader(b), int64(len(b)), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Files[len(d.Files)-1].ReadAll()
	var fe *ue.FormatError
	if !errors.As(err, &fe) || !(errors.Is(err, pak.ErrHashMismatch) || errors.Is(err, pak.ErrCorrupt)) {
		t.Fatalf("damaged data: %v, want a *FormatError (hash mismatch or corrupt)", err)
	}
	if f.Method == 0 && !errors.Is(err, pak.ErrHashMismatch) {
		t.Errorf("damaged stored data: %v, want ErrHashMismatch", err)
	}
}
