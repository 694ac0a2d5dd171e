package patch_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/safefile"
)

// mixedPatch writes a full container and a legacy package, both named
// after name.
func mixedPatch(name string) string {
	return fmt.Sprintf(`unrmod: 1
targets:
  - container: UnrmodDemo427_P.utoc
    output: full/UnrmodDemo427_P.utoc
    mode: full
    packages:
      - package: DT_DemoItems
        ops:
          - rename: {from: Pebble, to: %[1]s}
  - file: UnrmodDemoMap.unr
    output: out/UnrmodDemoMap.unr
    ops:
      - add-name: {name: %[1]s}
`, name)
}

// mixedOutputs are the files mixedPatch writes, relative to its folder.
var mixedOutputs = []string{"full/UnrmodDemo427_P.utoc", "full/UnrmodDemo427_P.ucas", "out/UnrmodDemoMap.unr"}

// mixedSetup returns a folder with the patch's inputs and the outputs of
// mixedPatch(name) written.
func mixedSetup(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	copyContainer(t, demo427, dir)
	copyInto(t, demoMap, dir)
	os.MkdirAll(filepath.Join(dir, "full"), 0o755)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	if _, err := applyYAML(t, dir, mixedPatch(name), patch.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mixedState returns "Boulder" or "Rock" when every output in dir is the
// one of that patch, byte for byte (want holds them), else "mixed".
func mixedState(t *testing.T, dir string, want map[string]map[string][]byte) string {
	t.Helper()
	for name, files := range want {
		same := true
		for _, rel := range mixedOutputs {
			got, _ := os.ReadFile(filepath.Join(dir, rel))
			same = same && bytes.Equal(got, files[rel])
		}
		if same {
			return name
		}
	}
	return "mixed"
}

// A patch writing a container and a legacy package renames all of their
// files as one commit: killed before any step, the next run's lock (here,
// applying the patch again) finishes it, and a failed rename leaves every
// output as it was — never a new package beside an old container.
func TestPatchCommitIsOne(t *testing.T) {
	want := map[string]map[string][]byte{}
	for _, name := range []string{"Boulder", "Rock"} {
		dir := mixedSetup(t, name)
		want[name] = map[string][]byte{}
		for _, rel := range mixedOutputs {
			data, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			want[name][rel] = data
		}
	}
	type killed struct{}
	for k := 0; ; k++ {
		dir := mixedSetup(t, "Boulder")
		locks := t.TempDir()
		sess := &safefile.Session{LockDir: locks, CommitHook: func(step int) error {
			if step == k {
				panic(killed{})
			}
			return nil
		}}
		stopped := func() (stopped bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(killed); !ok {
						panic(r)
					}
					stopped = true
				}
			}()
			if _, err := applyYAML(t, dir, mixedPatch("Rock"), patch.Options{Session: sess}); err != nil {
				t.Fatal(err)
			}
			return false
		}()
		if !stopped {
			if k < 6 {
				t.Fatalf("the commit ran %d steps", k)
			}
			break
		}
		next := &safefile.Session{LockDir: locks}
		res, err := applyYAML(t, dir, mixedPatch("Rock"), patch.Options{Session: next})
		if err != nil {
			t.Fatalf("step %d: the next run: %v", k, err)
		}
		if got := mixedState(t, dir, want); got != "Rock" {
			t.Fatalf("killed before step %d, then applied again: %s", k, got)
		}
		for _, tr := range res.Targets {
			if !tr.AlreadyWritten {
				t.Errorf("step %d: %s written again", k, tr.Output)
			}
		}
	}
	for k := 0; k < 6; k++ { // the renames of 3 files that exist
		dir := mixedSetup(t, "Boulder")
		failed := errors.New("locked by another program")
		sess := &safefile.Session{LockDir: t.TempDir(), CommitHook: func(step int) error {
			if step == k {
				return failed
			}
			return nil
		}}
		_, err := applyYAML(t, dir, mixedPatch("Rock"), patch.Options{Session: sess})
		var ce *safefile.CommitError
		if !errors.As(err, &ce) || !ce.RolledBack {
			t.Fatalf("step %d: %v", k, err)
		}
		if got := mixedState(t, dir, want); got != "Boulder" {
			t.Fatalf("step %d failed: %s", k, got)
		}
		for _, sub := range []string{"full", "out"} {
			ents, _ := os.ReadDir(filepath.Join(dir, sub))
			for _, e := range ents {
				if safefile.IsWorkFile(e.Name()) {
					t.Errorf("step %d: %s left in %s", k, e.Name(), sub)
				}
			}
		}
	}
}
