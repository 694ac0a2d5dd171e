package pack_test

import (
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
)

// TestPackStreamsLooseFiles packs a folder whose loose files are far
// larger than the memory Pack may take: a sparse file of zeros (stored
// compressed) and a file of random bytes (stored as it is, after its
// compressed blocks turn out larger, and last in the .pak, so that the
// .pak is cut after its index). The bytes Pack allocates in all must stay
// a small fraction of the files' size, and every loose file must read back
// from the .pak byte for byte.
func TestPackStreamsLooseFiles(t *testing.T) {
	const (
		zeros  = 40 << 20
		random = 24 << 20
		// Allocated bytes in all, whatever the files' size: 7.4-9.1 MiB
		// measured (pooled buffers a GC frees during the run are made
		// again), well under the 24 MiB file a read of whole files would
		// allocate at once.
		budget = 12 << 20
	)
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	pkgs, err := iostorebuild.DemoPackageFiles()
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, fill func(f *os.File) error) {
		t.Helper()
		p := filepath.Join(loose, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := fill(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("Game/Content/Items/BP_DemoPickup.uasset", func(f *os.File) error {
		_, err := f.Write(pkgs["BP_DemoPickup.uasset"])
		return err
	})
	write("Game/Content/Movies/Zeros.bin", func(f *os.File) error { return f.Truncate(zeros) })
	write("Game/Movies/Intro.bk2", func(f *os.File) error {
		_, err := io.CopyN(f, rand.NewChaCha8([32]byte{1}), random)
		return err
	})

	plan, err := pack.Scan(loose, iostore.VersionPartitionSize)
	if err != nil {
		t.Fatal(err)
	}
	utoc := filepath.Join(dir, "out", "z_Big_P.utoc")
	opts := &pack.Options{Engine: zen.Engine{Major: 4, Minor: 27}, Writer: iostore.WriterOptions{Method: "Zlib", Workers: 1}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := pack.Pack(plan, utoc, opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Pack allocated %d KiB", (after.TotalAlloc-before.TotalAlloc)>>10)
	if n := after.TotalAlloc - before.TotalAlloc; n > budget && !raceEnabled {
		t.Errorf("Pack allocated %d MiB for %d MiB of loose files, want at most %d MiB", n>>20, (zeros+random)>>20, budget>>20)
	}
	if len(res.Loose) != 2 {
		t.Fatalf("%d loose files, want 2", len(res.Loose))
	}

	p, err := pak.Open(res.Pak, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Files) != 2 {
		t.Fatalf("the .pak holds %d files, want 2", len(p.Files))
	}
	for _, f := range p.Files {
		src, err := os.Open(filepath.Join(loose, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		want := sha256.New()
		io.Copy(want, src)
		src.Close()
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.New()
		n, err := io.Copy(got, rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if string(got.Sum(nil)) != string(want.Sum(nil)) {
			t.Errorf("%s: %d bytes read back from the .pak differ from the loose file", f.Path, n)
		}
		if compressed := f.Method != 0; compressed != (f.Path == "Game/Content/Movies/Zeros.bin") {
			t.Errorf("%s: method slot %d", f.Path, f.Method)
		}
	}
}
