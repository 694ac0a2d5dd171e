package iostore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/iostore"
)

// TestWriteRealistic writes the Zlib realistic container (see
// tcRealistic: 207 MiB of real cooked bytes in the shape of a shipped UE5
// game's container) as Realistic-Windows.utoc/.ucas into the folder named
// by UNRMOD_REALISTIC_OUT, for scripts/uecastoc.sh, which packs what
// 'unrmod extract' makes of it with unrmod and with UEcastoc. It does
// nothing unless that variable is set.
func TestWriteRealistic(t *testing.T) {
	dir := os.Getenv("UNRMOD_REALISTIC_OUT")
	if dir == "" {
		t.Skip("set UNRMOD_REALISTIC_OUT to a folder to write the realistic container into")
	}
	built, err := tcBuildRealistic(tcOpen(t, tcTocOnly8, nil), tcOpen(t, tcUncompressed, nil), tcRealisticLibrary(t))
	if err != nil {
		t.Fatal(err)
	}
	c := built["Zlib"]
	utoc := filepath.Join(dir, "Realistic-Windows.utoc")
	if err := os.WriteFile(utoc, c.toc, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, p := range c.cas {
		if err := os.WriteFile(iostore.PartitionPath(utoc, i), p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := iostore.Open(utoc, nil); err != nil {
		t.Fatalf("the written container does not open: %v", err)
	}
}
