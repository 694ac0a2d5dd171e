package oodle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFindWindowsLayouts lays out Windows games as they ship, on any
// system, and checks where find looks for oo2core_9_win64.dll: the game's
// Binaries/Win64, the engine's ThirdParty/Oodle/Win64, a game project
// beside Engine/ at the root, not beyond maxUp folders.
func TestFindWindowsLayouts(t *testing.T) {
	const dll = "oo2core_9_win64.dll"
	for _, tc := range []struct {
		name, lib, from string
		found           bool
	}{
		{"game binaries", "MyGame/Binaries/Win64/" + dll, "MyGame/Content/Paks/pakchunk0-Windows.utoc", true},
		{"older version", "MyGame/Binaries/Win64/oo2core_8_win64.dll", "MyGame/Content/Paks/pakchunk0-Windows.utoc", true},
		{"engine", "Engine/Binaries/ThirdParty/Oodle/Win64/" + dll, "MyGame/Content/Paks/~mods/z_P.utoc", true},
		{"project beside Engine", "MyGame/Binaries/Win64/" + dll, "Mods/z_Mod_P.pak", true},
		{"Linux name", "MyGame/Binaries/Win64/liboo2corelinux64.so.9", "MyGame/Content/Paks/a.utoc", false},
		{"too far up", "MyGame/Binaries/Win64/" + dll, "MyGame/Content/Paks/a/b/c/d/e/f/g.utoc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range []string{tc.lib, tc.from, "Engine/Config/BaseGame.ini"} {
				os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
				os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644)
			}
			got, err := find(filepath.Join(root, tc.from), "windows")
			if tc.found && (err != nil || got != filepath.Join(root, tc.lib)) {
				t.Errorf("find = %q, %v; want %s", got, err, tc.lib)
			}
			if !tc.found && !errors.Is(err, ErrNotFound) {
				t.Errorf("find = %q, %v; want ErrNotFound", got, err)
			}
		})
	}
}
