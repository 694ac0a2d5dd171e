package reader_test

import (
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// hostileBudget is how long one pass over a hostile package may take: the
// files are about 100 KB, which a linear reader handles in milliseconds,
// so the bound only fails on super-linear work, even on a loaded machine.
const hostileBudget = time.Second

// TestLongNameTagsLinear reads, verifies and rewrites a package whose one
// export holds 40,000 tags all named by one long name of control
// characters: the cost must not grow with tags × name length.
func TestLongNameTagsLinear(t *testing.T) {
	data, err := fixture.LongNameTags(40000, 1024)
	if err != nil {
		t.Fatal(err)
	}
	var p *reader.Package
	start := time.Now()
	allocs := testing.AllocsPerRun(1, func() {
		if p, err = reader.Read("LongNameTags.u", data); err != nil {
			t.Fatal(err)
		}
		if len(p.Verify()) == 0 {
			t.Fatal("Verify accepts a name longer than the engine allows")
		}
		for i := range p.Exports {
			if _, err := p.Properties(i); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := writer.Encode(p, writer.Options{Layout: writer.Compact}); err != nil {
			t.Fatal(err)
		}
	})
	if d := time.Since(start); d > hostileBudget {
		t.Errorf("read, verify and rewrite of %d bytes took %v", len(data), d)
	}
	// One allocation per tag is fine (the tag list); one per tag per
	// character of the name is not.
	if allocs > 20000 {
		t.Errorf("read, verify and rewrite of %d bytes made %.0f allocations", len(data), allocs)
	}
}
