package reader_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/writer"
)

// TestLongNameTagsLinear reads, verifies and rewrites a package whose one
// export holds 40,000 tags all named by one long name of control
// characters: the allocations must not grow with tags × name length.
// (BenchmarkHostile in cmd/unrmod times the read and verify against an
// ordinary package of the same size.)
func TestLongNameTagsLinear(t *testing.T) {
	data, err := fixture.LongNameTags(40000, 1024)
	if err != nil {
		t.Fatal(err)
	}
	var p *reader.Package
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
	// One allocation per tag is fine (the tag list); one per tag per
	// character of the name is not.
	if allocs > 20000 {
		t.Errorf("read, verify and rewrite of %d bytes made %.0f allocations", len(data), allocs)
	}
}

// TestVerifyNoTagValues verifies the long-name package: checking where an
// export's tag list ends must not build a Property per tag (2.3 MB for
// this 120 KB file), which made verify twice as slow as on an ordinary
// file of the same size.
func TestVerifyNoTagValues(t *testing.T) {
	data, err := fixture.LongNameTags(40000, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("LongNameTags.u", data)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	probs := p.Verify()
	runtime.ReadMemStats(&after)
	if len(probs) == 0 {
		t.Fatal("Verify accepts a name longer than the engine allows")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(data)) {
		t.Errorf("verifying %d bytes allocated %d bytes", len(data), n)
	}
}

// TestReadFileTooLarge gives ReadFile a sparse file one byte larger than a
// legacy package can be (its offsets are 32-bit): it is refused from its
// size, before anything is read.
func TestReadFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Huge.u")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(reader.MaxFileSize + 1); err != nil {
		f.Close()
		t.Skipf("no sparse file: %v", err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = reader.ReadFile(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), "Huge.u") {
		t.Fatalf("ReadFile of a %d-byte file: %v, want ErrTooLarge naming the file", int64(reader.MaxFileSize)+1, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the file allocated %d bytes", n)
	}
}

// TestDeepLongPathsRefused reads a package of 250 nested exports with
// 1000-character names (about 250 KB): each path would be up to 250,000
// characters, and the paths together quadratic in the file. The reader
// refuses it where the first path passes the engine's 1024 characters.
func TestDeepLongPathsRefused(t *testing.T) {
	data, err := fixture.DeepOuters(250, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = reader.Read("DeepOuters.u", data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, reader.ErrCorrupt) || !strings.Contains(err.Error(), "1024 characters") {
		t.Fatalf("Read: %v, want a corrupt-package error about the 1024-character path limit", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 8*uint64(len(data))+1<<20 {
		t.Errorf("refusing %d bytes allocated %d bytes", len(data), n)
	}

	// Names longer than any path are refused where they are read.
	data, err = fixture.LongNameTags(1, reader.MaxPathLen+1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = reader.Read("LongNameTags.u", data); !errors.Is(err, reader.ErrCorrupt) || !strings.Contains(err.Error(), "name table entry") {
		t.Fatalf("Read of a %d-character name: %v, want a corrupt name table entry", reader.MaxPathLen+1, err)
	}
}
