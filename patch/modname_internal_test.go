package patch

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
)

// TestCheckModName covers the mod-container naming rules: the _P suffix
// everywhere, and on UE 4.26/4.27 (where the store entry of the pak mounted
// first wins) a changed store entry other than the export bundles' size
// needs the mod's pak to sort after the game's. No zen operation changes an
// export count today, so the refusal is driven here from a result that
// holds one.
func TestCheckModName(t *testing.T) {
	game := filepath.Join("Paks", "pakchunk0-WindowsNoEditor.utoc")
	count := []StoreChange{{Field: "ExportCount", Old: "3", New: "4"}}
	size := []StoreChange{{Field: "ExportBundlesSize", Old: "100", New: "120"}}
	for _, tc := range []struct {
		name   string
		out    string
		header zen.HeaderVersion
		store  []StoreChange
		want   string // "" accepted
	}{
		{"no _P", filepath.Join("Paks", "z_mod.utoc"), zen.HeaderUE4, nil, "must end in _P"},
		{"no _P on UE5", filepath.Join("Paks", "z_mod.utoc"), zen.HeaderLatest, nil, "must end in _P"},
		{"sorts after, count changed", filepath.Join("Paks", "z_mod_P.utoc"), zen.HeaderUE4, count, ""},
		{"sorts before, size changed", filepath.Join("Paks", "a_mod_P.utoc"), zen.HeaderUE4, size, ""},
		{"sorts before, count changed", filepath.Join("Paks", "a_mod_P.utoc"), zen.HeaderUE4, count, "changes ExportCount of /Game/Items/DT_Items"},
		{"sorts before, case folded", filepath.Join("Paks", "PAKCHUNK0-A_P.utoc"), zen.HeaderUE4, count, "sorts before the game's"},
		{"~mods folder sorts after", filepath.Join("Paks", "~mods", "mod_P.utoc"), zen.HeaderUE4, count, ""},
		{"UE5 takes the mod's entry", filepath.Join("Paks", "a_mod_P.utoc"), zen.HeaderLatest, count, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &containerJob{
				ct:  &ContainerTarget{},
				in:  game,
				hdr: &zen.ContainerHeader{Version: tc.header},
				res: &ContainerResult{Packages: []ContainerPackage{{Package: "/Game/Items/DT_Items", Store: tc.store}}},
			}
			err := j.checkModName(tc.out)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("checkModName(%s): %v", tc.out, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("checkModName(%s) = %v, want an error saying %q", tc.out, err, tc.want)
			}
		})
	}
}
