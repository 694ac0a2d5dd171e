package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/report"
)

// TestInfoCookedAsset shows the summary of each cooked pair of the corpus
// and of an asset extracted from the UE 5.8 fixture's tagged pak: package,
// release (a range for unversioned cooks several releases fit), counts and
// the flags agree with the asset; the header is the whole .uasset, the
// .uexp holds the export data and its 4-byte tag, and every companion
// beside the asset (a .ubulk too) is listed with its size.
func TestInfoCookedAsset(t *testing.T) {
	dir, _ := extractedAssets(t)
	for _, c := range []struct {
		file, pkg, release    string
		names, imports, exps  int
		unversioned, detected bool
		companions            []string
	}{
		{corpus.Path(t, "other/ue4_27_cooked_pairs/TestModUI.uasset"), "", "4.16–4.27", 522, 229, 220, true, true, []string{".uexp"}},
		{corpus.Path(t, "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uasset"), "/Game/Billiards/Blueprints/BP_Table_Lamp", "5.2–5.5", 35, 19, 9, true, true, []string{".uexp"}},
		{corpus.Path(t, "other/ue5_cooked_pairs/UE5.5_BP_ThirdPersonCharacter.uasset"), "/Game/ThirdPerson/Blueprints/BP_ThirdPersonCharacter", "5.2–5.5", 145, 71, 19, true, true, []string{".uexp"}},
		{corpus.Path(t, "other/ue5_cooked_pairs/UE5.6_M_Mannequin.uasset"), "/Game/Characters/Mannequins/Materials/M_Mannequin", "5.6", 41, 19, 1, true, true, []string{".uexp"}},
		{corpus.Path(t, "other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset"), "/Game/LevelPrototyping/Meshes/SM_Cube", "5.6", 20, 10, 3, true, true, []string{".uexp", ".ubulk"}},
		{filepath.Join(dir, "CUE4ParseFixtures/Content/Fixtures/Textures/T_Streaming.uasset"), "/Game/Fixtures/Textures/T_Streaming", "5.8", 15, 3, 1, false, false, []string{".uexp", ".ubulk"}},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "info", "--json", c.file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var d report.AssetInfo
			if err := json.Unmarshal([]byte(stdout), &d); err != nil {
				t.Fatal(err)
			}
			if d.Kind != "cooked-asset" || d.Package != c.pkg || d.ReleaseText() != c.release || d.ReleaseDetected != c.detected ||
				d.Names != c.names || d.Imports != c.imports || d.Exports != c.exps || !d.Cooked ||
				d.UnversionedProperties != c.unversioned || d.Unversioned != c.detected || !d.Split || !d.HasTailTag {
				t.Errorf("got %+v", d)
			}
			fi, err := os.Stat(c.file)
			if err != nil {
				t.Fatal(err)
			}
			if d.Size != fi.Size() || int64(d.HeaderSize) != fi.Size() {
				t.Errorf("size %d, header %d; the file has %d bytes", d.Size, d.HeaderSize, fi.Size())
			}
			if len(d.Companions) != len(c.companions) {
				t.Fatalf("companions %+v, want %v", d.Companions, c.companions)
			}
			base := strings.TrimSuffix(c.file, ".uasset")
			for k, ext := range c.companions {
				got := d.Companions[k]
				fi, err := os.Stat(base + ext)
				if err != nil || got.File != base+ext || got.Size != fi.Size() {
					t.Errorf("companion %d: %+v, want %s (%v)", k, got, base+ext, err)
				}
			}
			if uexp := d.Companions[0].Size; d.ExportData+4 != uexp {
				t.Errorf("export data %d bytes in a .uexp of %d", d.ExportData, uexp)
			}
			text, _, code := runCLI(t, "info", c.file)
			if code != 0 || !strings.Contains(text, "Release:           UE "+c.release) ||
				!strings.Contains(text, "Exports:           "+strconv.Itoa(c.exps)+"\n") {
				t.Errorf("text:\n%s", text)
			}
		})
	}
}
