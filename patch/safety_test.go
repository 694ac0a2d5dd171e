package patch_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// These tests build what they need from the small example files of the
// repository; they need no corpus.

const (
	demoMap  = "../examples/packages/UnrmodDemoMap.unr"
	demoCode = "../examples/packages/UnrmodDemo.u"
	demoZen  = "../examples/packages/zen/BP_DemoPickup.uasset"
	demoZen2 = "../examples/packages/zen/DT_DemoItems.uasset"
	demo427  = "../examples/containers/UnrmodDemo427_P.utoc"
	demo58   = "../examples/containers/UnrmodDemo58_P.utoc"
)

// setLevelInfo is a patch of one target that sets a property of the demo
// map's LevelInfo0.
func setLevelInfo(file, property, value string) string {
	return "unrmod: 1\ntargets:\n  - file: " + yamlQuote(file) + "\n" +
		"    ops:\n      - set-property: {object: LevelInfo0, property: " + property + ", value: " + yamlQuote(value) + "}\n"
}

// levelInfo returns the value of a string property of the demo map's
// LevelInfo0 in the package at path.
func levelInfo(t *testing.T, path, property string) string {
	t.Helper()
	p := readPkg(t, path)
	return mustProp(t, p, exportByPath(t, p, "UnrmodDemoMap.LevelInfo0"), property).Str
}

// Two runs patch one file in place at once, each changing another
// property. The second run waits for the first (it must not read the file
// before the first has written it), so both changes are in the result.
// Without locks the second run reads the original, and its output drops
// the first run's change.
func TestConcurrentInPlaceRunsKeepBothChanges(t *testing.T) {
	dir := t.TempDir()
	path := copyInto(t, demoMap, dir)
	locks := t.TempDir()
	first := parsePatch(t, filepath.Join(dir, "title.yaml"), setLevelInfo(filepath.Base(path), "Title", "First run"))
	second := parsePatch(t, filepath.Join(dir, "author.yaml"), setLevelInfo(filepath.Base(path), "Author", "Second run"))

	firstStaged, secondWaits, secondStaged := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	a := &safefile.Session{LockDir: locks}
	b := &safefile.Session{LockDir: locks, Log: func(msg string) {
		if strings.HasPrefix(msg, "waiting for another unrmod run") {
			once.Do(func() { close(secondWaits) })
		}
	}}
	optA := patch.WithBeforeCommit(patch.Options{InPlace: true, Session: a}, func() {
		close(firstStaged)
		// Hold the staged output until the second run waits for the
		// lock, or (without locks) has read the file and staged its own.
		select {
		case <-secondWaits:
		case <-secondStaged:
		case <-time.After(10 * time.Second):
		}
	})
	optB := patch.WithBeforeCommit(patch.Options{InPlace: true, Session: b}, func() { close(secondStaged) })
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { _, errs[0] = patch.Apply(first, optA) })
	<-firstStaged
	wg.Go(func() { _, errs[1] = patch.Apply(second, optB) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := levelInfo(t, path, "Title"); got != "First run" {
		t.Errorf("Title = %q: the first run's change was lost", got)
	}
	if got := levelInfo(t, path, "Author"); got != "Second run" {
		t.Errorf("Author = %q: the second run's change was lost", got)
	}
	orig, _ := os.ReadFile(demoMap)
	if bak, _ := os.ReadFile(path + ".bak"); !bytes.Equal(bak, orig) {
		t.Error("the .bak is not the original")
	}
}

// A run that cannot get a file another run holds fails after the wait
// with an error naming the file, and writes nothing.
func TestLockWaitIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := copyInto(t, demoMap, dir)
	orig, _ := os.ReadFile(path)
	locks := t.TempDir()
	other := &safefile.Session{LockDir: locks}
	held, err := other.Lock(safefile.Use{Path: path, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var log []string
	s := &safefile.Session{LockDir: locks, LockWait: 300 * time.Millisecond, Log: func(m string) { log = append(log, m) }}
	f := parsePatch(t, filepath.Join(dir, "p.yaml"), setLevelInfo(filepath.Base(path), "Title", "x"))
	_, err = patch.Apply(f, patch.Options{InPlace: true, Session: s})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another unrmod run") {
		t.Fatalf("got %v, want an error naming %s", err, path)
	}
	if len(log) != 1 || log[0] != "waiting for another unrmod run that reads or writes "+path {
		t.Errorf("log %q", log)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the file changed")
	}
	if ents := dirEntries(t, dir); len(ents) != 1 {
		t.Errorf("the folder holds %v", ents)
	}
}

// A patch whose outputs clash with its other files is refused before
// anything is read, whatever the path that names the file.
func TestOutputClashes(t *testing.T) {
	const op = "    ops: [{add-name: {name: Clash}}]\n"
	tests := []struct {
		name    string
		targets string // YAML targets; files are in the test folder, "link" leads to "real"
		inPlace bool
		want    string
	}{
		{"output is the patch file", `
  - file: real/UnrmodDemoMap.unr
    output: p.yaml
` + op, false, "is the patch file itself"},
		{"output is the patch file through a link", `
  - file: real/UnrmodDemoMap.unr
    output: link/../p.yaml
` + op, false, "is the patch file itself"},
		{"output is another target's input", `
  - file: real/UnrmodDemo.u
    output: out/UnrmodDemo.u
` + op + `
  - file: real/UnrmodDemoMap.unr
    output: real/UnrmodDemo.u
` + op, false, "reads: every file is read before any is written"},
		{"in place twice through a link", `
  - file: real/UnrmodDemoMap.unr
` + op + `
  - file: link/UnrmodDemoMap.unr
` + op, true, "writes too"},
		{"two outputs through a linked folder", `
  - file: real/UnrmodDemoMap.unr
    output: out/Map.unr
` + op + `
  - file: real/UnrmodDemo.u
    output: outlink/Map.unr
` + op, false, "writes too"},
		{"output is the input through a link", `
  - file: real/UnrmodDemoMap.unr
    output: link/UnrmodDemoMap.unr
` + op, false, "use Options.InPlace"},
		{"output is a data file another target reads", `
  - file: real/UnrmodDemo.u
    output: real/data.bin
` + op + `
  - file: real/UnrmodDemoMap.unr
    output: out/UnrmodDemoMap.unr
    ops:
      - replace-export: {object: LevelInfo0, data: {file: link/data.bin}}
`, false, "reads: every file is read before any is written"},
		{"output is the image another target reads", `
  - file: real/UnrmodDemo.u
    output: real/Sky.png
` + op + `
  - file: real/UnrmodDemoMap.unr
    output: out/UnrmodDemoMap.unr
    ops:
      - replace-texture: {object: Skins.Checker, image: link/Sky.png}
`, false, "reads: every file is read before any is written"},
		{"output is the sound another target reads", `
  - file: real/UnrmodDemo.u
    output: real/Chirp.wav
` + op + `
  - file: real/UnrmodDemoMap.unr
    output: out/UnrmodDemoMap.unr
    ops:
      - replace-sound: {object: Chirp, file: link/Chirp.wav}
`, false, "reads: every file is read before any is written"},
		{"a container in place", `
  - container: real/UnrmodDemo427_P.utoc
    mode: full
    packages:
      - package: DT_DemoItems
        ops:
          - rename: {from: Pebble, to: Clash}
`, true, "Options.InPlace does not apply to containers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			real := filepath.Join(dir, "real")
			os.MkdirAll(real, 0o755)
			os.MkdirAll(filepath.Join(dir, "out"), 0o755)
			copyInto(t, demoMap, real)
			copyInto(t, demoCode, real)
			// LevelInfo0's own data, which replace-export takes.
			p := readPkg(t, filepath.Join(real, "UnrmodDemoMap.unr"))
			os.WriteFile(filepath.Join(real, "data.bin"), p.Exports[exportByPath(t, p, "UnrmodDemoMap.LevelInfo0")].Data, 0o644)
			if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
				t.Skip("no symbolic links:", err)
			}
			os.Symlink("out", filepath.Join(dir, "outlink"))
			text := "unrmod: 1\ntargets:" + tt.targets
			pf := filepath.Join(dir, "p.yaml")
			os.WriteFile(pf, []byte(text), 0o644)
			before := snapshot(t, dir)
			f, err := patch.ParseFile(pf)
			if err != nil {
				t.Fatal(err)
			}
			_, err = patch.Apply(f, patch.Options{InPlace: tt.inPlace, Force: true})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the refused patch changed files:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// snapshot describes every file under dir by its content's hash, to tell
// whether anything changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		return nil
	})
	return b.String()
}

// An output may replace an existing file only when it is the target's
// earlier output, or with --force; running the same patch again needs no
// --force.
func TestOverwriteNeedsForce(t *testing.T) {
	tests := []struct {
		name     string
		input    string // copied into the folder
		existing string // copied to the output's place; "" writes text
		want     string // the error without --force; "" for none
	}{
		{"a text file", demoMap, "", "not this target's earlier output"},
		{"another legacy package", demoMap, demoCode, "exports"},
		{"the same package patched otherwise", demoMap, demoMap, ""},
		{"a zen package in place of a legacy one", demoMap, demoZen, "not a legacy package"},
		{"another zen package", demoZen, demoZen2, "it is the package"},
		{"the same zen package", demoZen, demoZen, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := copyInto(t, tt.input, dir)
			out := filepath.Join(dir, "mod", filepath.Base(in))
			os.MkdirAll(filepath.Dir(out), 0o755)
			old := []byte("my notes\n")
			if tt.existing != "" {
				old, _ = os.ReadFile(tt.existing)
			}
			os.WriteFile(out, old, 0o644)
			op := "      - add-name: {name: ForceTest}\n"
			text := "unrmod: 1\ntargets:\n  - file: " + filepath.Base(in) + "\n    output: mod/" + filepath.Base(in) + "\n    ops:\n" + op
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), text)
			_, err := patch.Apply(f, patch.Options{})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("replacing the earlier output: %v", err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tt.want) || !advises(err, ue.SettingForce) || !strings.Contains(err.Error(), out) {
					t.Fatalf("got %v, want an error naming %s, saying %q and advising Options.Force", err, out, tt.want)
				}
				if now, _ := os.ReadFile(out); !bytes.Equal(now, old) {
					t.Fatal("the existing file was replaced")
				}
				if _, err := patch.Apply(f, patch.Options{Force: true}); err != nil {
					t.Fatalf("with --force: %v", err)
				}
			}
			if now, _ := os.ReadFile(out); bytes.Equal(now, old) {
				t.Fatal("the output was not written")
			}
			// The same patch again: the output is its earlier output.
			res, err := patch.Apply(f, patch.Options{})
			if err != nil {
				t.Fatalf("running the patch again: %v", err)
			}
			if !res.Targets[0].AlreadyWritten {
				t.Error("running the patch again did not find its output already written")
			}
		})
	}
}

// A container target replaces only its earlier output: a .utoc of another
// container, or a .pak that holds files, needs --force.
func TestContainerOverwriteNeedsForce(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, utoc string)
		want  string
	}{
		{"another container", func(t *testing.T, utoc string) {
			data, _ := os.ReadFile(demo58)
			os.WriteFile(utoc, data, 0o644)
		}, "container id"},
		{"a text file", func(t *testing.T, utoc string) { os.WriteFile(utoc, []byte("notes"), 0o644) }, "not an IoStore container"},
		{"a lone .ucas", func(t *testing.T, utoc string) {
			os.WriteFile(strings.TrimSuffix(utoc, ".utoc")+".ucas", []byte("junk"), 0o644)
		}, ""},
		{"a lone .pak that is not a pak", func(t *testing.T, utoc string) {
			os.WriteFile(strings.TrimSuffix(utoc, ".utoc")+".pak", []byte("my pak mod"), 0o644)
		}, "not a pak file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyContainer(t, demo427, dir)
			os.MkdirAll(filepath.Join(dir, "mods"), 0o755)
			utoc := filepath.Join(dir, "mods", "z_Demo_P.utoc")
			tt.setup(t, utoc)
			text := `unrmod: 1
targets:
  - container: UnrmodDemo427_P.utoc
    output: mods/z_Demo_P
    packages:
      - package: /Game/Items/BP_DemoPickup
        ops:
          - rename: {from: RespawnTime, to: RespawnDelay}
`
			_, err := applyYAML(t, dir, text, patch.Options{})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tt.want) || !advises(err, ue.SettingForce) {
					t.Fatalf("got %v, want an error saying %q and advising Options.Force", err, tt.want)
				}
				if _, err := applyYAML(t, dir, text, patch.Options{Force: true}); err != nil {
					t.Fatalf("with --force: %v", err)
				}
			}
			res, err := applyYAML(t, dir, text, patch.Options{})
			if err != nil {
				t.Fatalf("running the patch again: %v", err)
			}
			if !res.Targets[0].AlreadyWritten {
				t.Error("running the patch again did not find the container already written")
			}
			if ents := dirEntries(t, filepath.Join(dir, "mods")); len(ents) != 3 {
				t.Errorf("mods/ holds %v, want the .utoc, .ucas and .pak", ents)
			}
		})
	}
}

// A multi-target run killed after some of its renames, run again, says
// which outputs were already written and writes the others.
func TestRerunAfterPartialCommit(t *testing.T) {
	const text = "unrmod: 1\ntargets:\n" +
		"  - file: UnrmodDemo.u\n    ops:\n      - set-property: {object: Skins.Checker, property: UClamp, value: 8}\n" +
		"  - file: UnrmodDemoMap.unr\n    ops:\n      - set-property: {object: LevelInfo0, property: Author, value: rerun}\n"
	tests := []struct {
		name    string
		inPlace bool
		// kill undoes what the run did to the second target, as a kill
		// before its renames leaves it.
		kill func(t *testing.T, dir string)
	}{
		{"outputs", false, func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "patched", "UnrmodDemoMap.unr"))
		}},
		{"in place", true, func(t *testing.T, dir string) {
			p := filepath.Join(dir, "UnrmodDemoMap.unr")
			if err := os.Rename(p+".bak", p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyInto(t, demoCode, dir)
			copyInto(t, demoMap, dir)
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), text)
			opt := patch.Options{InPlace: tt.inPlace}
			if _, err := patch.Apply(f, opt); err != nil {
				t.Fatal(err)
			}
			tt.kill(t, dir)
			res, err := patch.Apply(f, opt)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := res.Targets[0], res.Targets[1]; !a.AlreadyWritten || b.AlreadyWritten || !b.Changed {
				t.Errorf("first target already written %v; second already written %v, changed %v", a.AlreadyWritten, b.AlreadyWritten, b.Changed)
			}
			out := filepath.Join(dir, "patched", "UnrmodDemoMap.unr")
			if tt.inPlace {
				out = filepath.Join(dir, "UnrmodDemoMap.unr")
			}
			if got := levelInfo(t, out, "Author"); got != "rerun" {
				t.Errorf("Author = %q", got)
			}
		})
	}
}

// --in-place keeps the file's mode and writes through a symbolic link: the
// file it leads to is patched, the link stays, and the .bak is the
// original.
func TestInPlaceKeepsModeAndLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes and links differ on Windows")
	}
	dir := t.TempDir()
	game := filepath.Join(dir, "game")
	os.MkdirAll(game, 0o755)
	real := copyInto(t, demoMap, game)
	os.Chmod(real, 0o600)
	link := filepath.Join(dir, "UnrmodDemoMap.unr")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	f := parsePatch(t, filepath.Join(dir, "p.yaml"), setLevelInfo("UnrmodDemoMap.unr", "Title", "Linked"))
	if _, err := patch.Apply(f, patch.Options{InPlace: true}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file (%v)", err)
	}
	if got := levelInfo(t, real, "Title"); got != "Linked" {
		t.Errorf("the linked file's Title = %q", got)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	orig, _ := os.ReadFile(demoMap)
	if bak, err := os.ReadFile(link + ".bak"); err != nil || !bytes.Equal(bak, orig) {
		t.Errorf("the .bak is not the original (%v)", err)
	}
	if st, _ := os.Stat(link + ".bak"); st != nil && st.Mode().Perm() != 0o600 {
		t.Errorf(".bak mode %v, want 0600", st.Mode().Perm())
	}
	if ents := dirEntries(t, game); len(ents) != 1 {
		t.Errorf("game/ holds %v", ents)
	}
}

// A full-mode container target is renamed into place with the other
// outputs: when another output cannot be written, neither is.
func TestFullContainerWaitsForOtherOutputs(t *testing.T) {
	dir := t.TempDir()
	copyContainer(t, demo427, dir)
	copyInto(t, demoMap, dir)
	os.WriteFile(filepath.Join(dir, "blocker"), nil, 0o644)
	_, err := applyYAML(t, dir, `unrmod: 1
targets:
  - container: UnrmodDemo427_P.utoc
    output: full/UnrmodDemo427_P.utoc
    mode: full
    packages:
      - package: DT_DemoItems
        ops:
          - rename: {from: Pebble, to: Boulder}
  - file: UnrmodDemoMap.unr
    output: blocker/UnrmodDemoMap.unr
    ops:
      - add-name: {name: Blocked}
`, patch.Options{})
	if err == nil {
		t.Fatal("an output under a file was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "full", "UnrmodDemo427_P.utoc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the container was written though another output failed (%v)", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "full")); len(ents) != 0 {
		t.Errorf("full/ holds %v", ents)
	}
}

// A container target whose output parts are files of its input container
// (a .utoc named in other capitals, whose .ucas is the input's; an output
// .ucas, partition or .pak that is a link to one of the input's) is
// refused before anything is written, in mode: mod and mode: full, with an
// error naming both files; partitioned inputs included.
func TestContainerOutputAliasesInput(t *testing.T) {
	const rename = "    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: Boulder}\n"
	tests := []struct {
		name        string
		partitioned bool
		mode        string
		output      string
		// link maps files made in the folder to the input's file they
		// link to (a name starting with "=" makes a hard link; "" makes
		// a stale file of an earlier output).
		link      map[string]string
		wantWrite string // the output file the error names, with the input's
		wantOther string
	}{
		{"mod, .utoc in capitals", false, "mod", "Game_P.UTOC", nil, "Game_P.UTOC", "Game_P.utoc"},
		{"full, .utoc in capitals", false, "full", "Game_P.UTOC", nil, "Game_P.UTOC", "Game_P.utoc"},
		{"full, .utoc in mixed case", true, "full", "Game_P.Utoc", nil, "Game_P.Utoc", "Game_P.utoc"},
		{"mod, same name without extension", false, "mod", "Game_P", nil, "Game_P.utoc", "Game_P.utoc"},
		{"mod, .ucas linked", false, "mod", "out/z_Mod_P", map[string]string{"out/z_Mod_P.ucas": "Game_P.ucas"}, "z_Mod_P.ucas", "Game_P.ucas"},
		{"mod, .pak linked to the input's companion", false, "mod", "out/z_Mod_P", map[string]string{"out/z_Mod_P.pak": "Game_P.pak"}, "z_Mod_P.pak", "Game_P.pak"},
		{"mod, .ucas linked to a partition", true, "mod", "out/z_Mod_P", map[string]string{"out/z_Mod_P.ucas": "Game_P_s2.ucas"}, "z_Mod_P.ucas", "Game_P_s2.ucas"},
		{"full, .ucas linked", false, "full", "out/Game_P", map[string]string{"out/Game_P.ucas": "Game_P.ucas"}, "Game_P.ucas", "Game_P.ucas"},
		{"full, partition linked", true, "full", "out/Game_P", map[string]string{"out/Game_P_s1.ucas": "Game_P_s1.ucas"}, "Game_P_s1.ucas", "Game_P_s1.ucas"},
		{"full, partition hard-linked", true, "full", "out/Game_P", map[string]string{"=out/Game_P_s2.ucas": "Game_P_s2.ucas", "out/Game_P_s1.ucas": ""}, "Game_P_s2.ucas", "Game_P_s2.ucas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeGame(t, dir, tt.partitioned)
			os.WriteFile(filepath.Join(dir, "Game_P.pak"), []byte("the game's companion pak"), 0o644)
			os.MkdirAll(filepath.Join(dir, "out"), 0o755)
			for name, to := range tt.link {
				var err error
				if to == "" {
					err = os.WriteFile(filepath.Join(dir, name), []byte("stale"), 0o644)
				} else if hard, ok := strings.CutPrefix(name, "="); ok {
					err = os.Link(filepath.Join(dir, to), filepath.Join(dir, hard))
				} else {
					err = os.Symlink(filepath.Join(dir, to), filepath.Join(dir, name))
				}
				if err != nil {
					t.Skip("no links:", err)
				}
			}
			pf := filepath.Join(dir, "patch.yaml")
			os.WriteFile(pf, []byte("unrmod: 1\ntargets:\n  - container: Game_P.utoc\n    output: "+tt.output+"\n    mode: "+tt.mode+"\n"+rename), 0o644)
			before := snapshot(t, dir)
			f, err := patch.ParseFile(pf)
			if err != nil {
				t.Fatal(err)
			}
			_, err = patch.Apply(f, patch.Options{Force: true})
			var ce *safefile.ClashError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *safefile.ClashError", err)
			}
			if filepath.Base(ce.Write.Path) != tt.wantWrite || filepath.Base(ce.Other.Path) != tt.wantOther || ce.Other.Write {
				t.Errorf("clash of %s with %s, want %s with the input's %s", ce.Write.Path, ce.Other.Path, tt.wantWrite, tt.wantOther)
			}
			if msg := err.Error(); !strings.Contains(msg, ce.Write.Path) || !strings.Contains(msg, ce.Other.Path) || !strings.Contains(msg, "patch.yaml:3:") {
				t.Errorf("the error names not both files and the target: %s", msg)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the refused patch changed files:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// writeGame writes the demo 4.27 container to dir as Game_P.utoc: as it
// is, or split into three partitions of 30.5 KiB.
func writeGame(t *testing.T, dir string, partitioned bool) {
	t.Helper()
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	b := *demos[0].Container
	if partitioned {
		b.BlockSize, b.PartitionSize = 4096, 30<<10+512 // the bulk data alone; the engine keeps a chunk in one partition
	}
	utoc, err := b.WriteFiles(dir, "Game_P")
	if err != nil {
		t.Fatal(err)
	}
	if partitioned {
		if _, err := os.Stat(iostore.PartitionPath(utoc, 2)); err != nil {
			t.Fatalf("the partitioned container has no third partition: %v", err)
		}
	}
}

// advises reports whether err advises setting s, in words that name no
// command-line flag.
func advises(err error, s ue.Setting) bool {
	var a *ue.Advice
	return errors.As(err, &a) && a.Setting == s && !strings.Contains(err.Error(), "--")
}
