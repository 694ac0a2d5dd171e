package patch_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/patch"
)

// settle waits past checkcache's racy window (100 ms): a check of files
// changed less than that before it is not remembered.
func settle() { time.Sleep(150 * time.Millisecond) }

// TestContainerFullRemembersCheck applies a mode: full patch three times
// to a copy of a Zlib corpus container, with a cache folder: the first
// run checks the container whole and remembers it, the second uses the
// remembered check (copying without decoding) and writes the same bytes,
// and after the container's .ucas is written again (same bytes, new change
// time) the third checks it again.
func TestContainerFullRemembersCheck(t *testing.T) {
	for _, src := range zencorpus.ContainersWith(t, "Zlib") {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(src)))+"/"+filepath.Base(filepath.Dir(src)), func(t *testing.T) {
			dir := t.TempDir()
			base := copyContainer(t, src, dir)
			c, err := iostore.Open(base, nil)
			if err != nil {
				t.Fatal(err)
			}
			var name string
			for _, ch := range c.Chunks() {
				if ch.Type == iostore.ChunkExportBundleData {
					name, _ = c.OutputPath(ch.Index)
					break
				}
			}
			c.Close()
			text := `unrmod: 1
targets:
  - container: ` + filepath.Base(base) + `
    output: full/Out.utoc
    mode: full
    packages:
      - package: ` + name + `
        ops:
          - add-name: {name: UnrmodRemembered}
`
			checks := checkcache.Open(filepath.Join(dir, "cache"))
			out := filepath.Join(dir, "full", "Out.utoc")
			run := func(want string) []byte {
				t.Helper()
				res, err := applyYAML(t, dir, text, patch.Options{Checks: checks})
				if err != nil {
					t.Fatal(err)
				}
				r := res.Targets[0].Container
				if r.SourceCheck != want {
					t.Fatalf("source check %q, want %q (notes %q)", r.SourceCheck, want, r.Notes)
				}
				if (want == "checked") != (r.SourceCheckedAt == nil) {
					t.Errorf("source checked at %v", r.SourceCheckedAt)
				}
				doc, err := json.Marshal(res)
				if err != nil || !bytes.Contains(doc, []byte(`"source_check":"`+want+`"`)) {
					t.Errorf("JSON %s lacks the source check", doc)
				}
				if want == "remembered" && !strings.Contains(strings.Join(r.Notes, "\n"), "checked fully on") {
					t.Errorf("notes %q do not say that the remembered check was used", r.Notes)
				}
				var files []byte
				for _, p := range []string{out, iostore.PartitionPath(out, 0)} {
					b, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					files = append(files, b...)
				}
				return files
			}
			settle()
			first := run("recorded")
			second := run("remembered")
			if !bytes.Equal(first, second) {
				t.Fatal("the run with the remembered check wrote other bytes")
			}
			// Written again with the same bytes: the .ucas is not the
			// file that was checked any more.
			ucas := iostore.PartitionPath(base, 0)
			data, err := os.ReadFile(ucas)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(ucas)
			if err := os.WriteFile(ucas, data, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(ucas, st.ModTime(), st.ModTime())
			settle()
			third := run("recorded")
			if !bytes.Equal(first, third) {
				t.Fatal("the run after the change wrote other bytes")
			}
			// Without a cache the container is checked, never remembered.
			res, err := applyYAML(t, dir, text, patch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r := res.Targets[0].Container; r.SourceCheck != "checked" {
				t.Errorf("without a cache: source check %q", r.SourceCheck)
			}
		})
	}
}
