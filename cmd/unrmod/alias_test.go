package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
)

// aliasGame writes the demo 4.27 container to dir/game as Game_P.utoc, split
// into partitions of 30.5 KiB (Game_P.ucas, Game_P_s1.ucas, …), with a
// companion Game_P.pak, and extracts it into dir/x for pack; it returns the
// .utoc.
func aliasGame(t *testing.T, dir string) string {
	t.Helper()
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	b := *demos[0].Container
	b.BlockSize, b.PartitionSize = 4096, 30<<10+512 // the bulk data alone; the engine keeps a chunk in one partition
	utoc, err := b.WriteFiles(filepath.Join(dir, "game"), "Game_P")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(iostore.PartitionPath(utoc, 2)); err != nil {
		t.Fatalf("the partitioned container has no third partition: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "game", "Game_P.pak"), []byte("the game's companion pak"), 0o644)
	if _, stderr, code := runCLI(t, "extract", utoc, "-o", filepath.Join(dir, "x")); code != 0 {
		t.Fatalf("extract: exit %d\n%s", code, stderr)
	}
	return utoc
}

// treeState describes every file under dir (links as links) by its
// content's hash, to tell whether anything changed.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(p)
			fmt.Fprintf(&b, "%s -> %s\n", rel, to)
			return nil
		}
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		return nil
	})
	return b.String()
}

// No command writes over a file of a container it reads: rewrite, pack
// --base and apply (mode: mod and mode: full) refuse an output whose .utoc
// differs from the input's only in the case of its extension (its .ucas is
// the input's), or whose .ucas, partition or .pak is a link to one of the
// input's, with exit status 1 and an error naming both files; nothing
// changes on disk.
func TestOutputAliasesInput(t *testing.T) {
	const rename = "    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n"
	patchFile := func(output, mode string) string {
		return "unrmod: 1\ntargets:\n  - container: game/Game_P.utoc\n    output: " + output + "\n    mode: " + mode + "\n" + rename
	}
	tests := []struct {
		name string
		// links maps files made under the test's folder to the file
		// they link to, relative to it ("=" first: a hard link).
		links map[string]string
		patch string // written to p.yaml
		args  []string
		// want are the two files the error names: the output's, the
		// input's.
		want [2]string
	}{
		{"rewrite, .utoc in capitals", nil, "", []string{"rewrite", "game/Game_P.utoc", "-o", "game/Game_P.UTOC"},
			[2]string{"game/Game_P.UTOC", "game/Game_P.utoc"}},
		{"rewrite, .utoc in mixed case, compact", nil, "", []string{"rewrite", "--layout", "compact", "game/Game_P.utoc", "-o", "game/Game_P.Utoc"},
			[2]string{"game/Game_P.Utoc", "game/Game_P.utoc"}},
		{"rewrite, .ucas linked", map[string]string{"out/Out.ucas": "game/Game_P.ucas"}, "", []string{"rewrite", "game/Game_P.utoc", "-o", "out/Out"},
			[2]string{"out/Out.ucas", "game/Game_P.ucas"}},
		{"rewrite, partition linked", map[string]string{"out/Out_s1.ucas": "game/Game_P_s1.ucas"}, "", []string{"rewrite", "--layout", "compact", "game/Game_P.utoc", "-o", "out/Out.utoc"},
			[2]string{"out/Out_s1.ucas", "game/Game_P_s1.ucas"}},
		{"pack over its base", nil, "", []string{"pack", "x", "-o", "game/Game_P", "--base", "game/Game_P.utoc"},
			[2]string{"game/Game_P.utoc", "game/Game_P.utoc"}},
		{"pack, .utoc in capitals of its base", nil, "", []string{"pack", "x", "-o", "game/Game_P.UTOC", "--base", "game/Game_P.utoc"},
			[2]string{"game/Game_P.UTOC", "game/Game_P.utoc"}},
		{"pack, .ucas linked to a partition of its base", map[string]string{"out/z_Mod_P.ucas": "game/Game_P_s2.ucas"}, "", []string{"pack", "x", "-o", "out/z_Mod_P", "--base", "game/Game_P.utoc"},
			[2]string{"out/z_Mod_P.ucas", "game/Game_P_s2.ucas"}},
		{"pack, .pak linked to its base's", map[string]string{"out/z_Mod_P.pak": "game/Game_P.pak"}, "", []string{"pack", "x", "-o", "out/z_Mod_P", "--base", "game/Game_P.utoc"},
			[2]string{"out/z_Mod_P.pak", "game/Game_P.pak"}},
		{"apply mod, .utoc in capitals", nil, patchFile("game/Game_P.UTOC", "mod"), []string{"apply", "p.yaml"},
			[2]string{"game/Game_P.UTOC", "game/Game_P.utoc"}},
		{"apply mod, .ucas linked to a partition", map[string]string{"out/z_Mod_P.ucas": "game/Game_P_s1.ucas"}, patchFile("out/z_Mod_P", "mod"), []string{"apply", "p.yaml"},
			[2]string{"out/z_Mod_P.ucas", "game/Game_P_s1.ucas"}},
		{"apply full, .utoc in capitals", nil, patchFile("game/Game_P.UTOC", "full"), []string{"apply", "p.yaml"},
			[2]string{"game/Game_P.UTOC", "game/Game_P.utoc"}},
		{"apply full, partition hard-linked", map[string]string{"out/Game_P_s1.ucas": "", "=out/Game_P_s2.ucas": "game/Game_P_s2.ucas"}, patchFile("out/Game_P", "full"), []string{"apply", "p.yaml"},
			[2]string{"out/Game_P_s2.ucas", "game/Game_P_s2.ucas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			aliasGame(t, dir)
			os.MkdirAll(filepath.Join(dir, "out"), 0o755)
			for name, to := range tt.links {
				var err error
				switch hard, isHard := strings.CutPrefix(name, "="); {
				case to == "":
					err = os.WriteFile(filepath.Join(dir, name), []byte("stale"), 0o644)
				case isHard:
					err = os.Link(filepath.Join(dir, to), filepath.Join(dir, hard))
				default:
					err = os.Symlink(filepath.Join(dir, to), filepath.Join(dir, name))
				}
				if err != nil {
					t.Skip("no links:", err)
				}
			}
			args := append([]string{}, tt.args...)
			for i, a := range args {
				if strings.Contains(a, "/") || a == "x" || a == "p.yaml" {
					args[i] = filepath.Join(dir, filepath.FromSlash(a))
				}
			}
			if tt.patch != "" {
				os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(tt.patch), 0o644)
			}
			before := treeState(t, dir)
			_, stderr, code := runCLI(t, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
			}
			for _, f := range tt.want {
				if !strings.Contains(stderr, filepath.Join(dir, filepath.FromSlash(f))+" ") {
					t.Errorf("the error does not name %s:\n%s", f, stderr)
				}
			}
			if after := treeState(t, dir); after != before {
				t.Errorf("the refused run changed files:\n%s\nwas\n%s", after, before)
			}
		})
	}
}
