package iostorebuild

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/iostore"
)

var update = flag.Bool("update", false, "rewrite examples/containers from the builder")

// TestDemoContainersUpToDate keeps the shipped demo containers equal to
// what the builder makes, and checks that each opens and verifies; run with
// -update after changing the builder.
func TestDemoContainersUpToDate(t *testing.T) {
	demos, err := DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "examples", "containers")
	key, err := iostore.ParseKey(DemoKey)
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
				path := filepath.Join(dir, name)
				if *update {
					if err := os.MkdirAll(dir, 0o755); err != nil {
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
