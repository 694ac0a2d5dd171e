package iostorebuild

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

var update = flag.Bool("update", false, "rewrite examples/containers and examples/packages/zen from the builder")

// TestDemoContainersUpToDate keeps the shipped demo containers equal to
// what the builder makes, and checks that each opens and verifies; run with
// -update after changing the builder.
func TestDemoContainersUpToDate(t *testing.T) {
	demos, err := DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "examples", "containers")
	key, err := ue.ParseKey(DemoKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range demos {
		t.Run(d.Name, func(t *testing.T) {
			toc, cas, err := d.Container.Build()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{d.Name + ".utoc": toc}
			for i, p := range cas {
				want[filepath.Base(iostore.PartitionPath(d.Name+".utoc", i))] = p
			}
			for name, data := range want {
				checkGenerated(t, filepath.Join(dir, name), data)
			}
			c, err := iostore.Open(filepath.Join(dir, d.Name+".utoc"), &iostore.Options{Key: &key})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if r := c.Verify(nil); !r.OK() || r.HashesChecked != len(c.Chunks()) {
				t.Errorf("verify: %d of %d hashes checked, problems %v", r.HashesChecked, len(c.Chunks()), r.Problems)
			}
		})
	}
}

// TestDemoPackageFilesUpToDate keeps the loose zen packages shipped in
// examples/packages/zen equal to what the builder makes and to the package
// chunks of the 4.27 demo container (what extract writes); run with
// -update after changing the builder.
func TestDemoPackageFilesUpToDate(t *testing.T) {
	files, err := DemoPackageFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d demo package files", len(files))
	}
	dir := filepath.Join("..", "..", "examples", "packages", "zen")
	c, err := iostore.Open(filepath.Join("..", "..", "examples", "containers", "UnrmodDemo427_P.utoc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for name, data := range files {
		checkGenerated(t, filepath.Join(dir, name), data)
		i, err := c.FindPackage(strings.TrimSuffix(name, ".uasset"))
		if err != nil {
			t.Fatal(err)
		}
		chunk, err := c.ReadChunk(i)
		if err != nil || !bytes.Equal(chunk, data) {
			t.Errorf("%s differs from its chunk in UnrmodDemo427_P (%v)", name, err)
		}
	}
}

// checkGenerated fails when the shipped file at path is not data (with
// -update, it writes data there first).
func checkGenerated(t *testing.T, path string, data []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/iostorebuild -update)", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s is stale: run go test ./internal/iostorebuild -update", path)
	}
}
