package pack_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata with the current output")

// TestPackGolden packs what extract writes of generated containers of
// many small packages (iostorebuild.ManyPackages, the packages of the
// scale benchmark: a container header, bulk data, 100 packages to a
// folder) for UE 5.5 and 4.27, uncompressed, and compares the SHA-256 of
// every file written with testdata/pack_many.golden: a change to how pack
// or the Writer hold their tables must leave the output byte for byte as
// it was. Run "go test ./iostore/pack -run TestPackGolden -update" to
// regenerate the file after an intended change of the output.
func TestPackGolden(t *testing.T) {
	var got strings.Builder
	for _, e := range []zen.Engine{{Major: 5, Minor: 5}, {Major: 4, Minor: 27}} {
		tmp := t.TempDir()
		c, err := iostorebuild.ManyPackages("Many", 1500, e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.WriteFiles(filepath.Join(tmp, "src"), "Many"); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "extracted")
		extractAll(t, filepath.Join(tmp, "src", "Many.utoc"), dir)
		plan, err := pack.Scan(dir, pack.TocVersionFor(e))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(tmp, "out", "z_Many_P.utoc")
		res, err := pack.Pack(plan, out, &pack.Options{Engine: e, Writer: iostore.WriterOptions{Method: "None"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Packages != 1500 {
			t.Errorf("UE %v: %d packages packed, want 1500", e, res.Packages)
		}
		for _, name := range []string{"z_Many_P.utoc", "z_Many_P.ucas", "z_Many_P.pak"} {
			data, err := os.ReadFile(filepath.Join(tmp, "out", name))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&got, "%v %s %d %x\n", e, name, len(data), sha256.Sum256(data))
		}
	}
	golden := filepath.Join("testdata", "pack_many.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./iostore/pack -run TestPackGolden -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("the packed files differ from %s (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", golden, got.String(), want)
	}
}
