package pack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// tcHugeEngine is the release the huge-package tests pack for.
var tcHugeEngine = zen.Engine{Major: 5, Minor: 6}

// tcHugePackage writes, under dir, a folder to pack holding one zen
// package of about size bytes: one export whose data is size bytes that
// zlib stores in about a third (text-like runs from a xorshift generator),
// as a game's largest packages hold one huge export. It returns the
// folder.
func tcHugePackage(t testing.TB, dir string, size int) string {
	t.Helper()
	blob, err := zenbuild.Blob("/Game/Huge/BigData", tcHugeEngine.Layout(), tcHugeData(size))
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "in")
	file := filepath.Join(folder, "Game", "Content", "Huge", "BigData.uasset")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	return folder
}

// tcHugeData returns size bytes of text-like data that zlib stores in
// about a third: runs from a xorshift generator.
func tcHugeData(size int) []byte {
	data := make([]byte, size)
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 _/.,;:"
	x := uint64(0x9E3779B97F4A7C15)
	for i := 0; i < len(data); {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		run := 1 + int(x>>59)
		for k := 0; k < run && i < len(data); k++ {
			data[i] = alphabet[(x>>(8*k%56))%uint64(len(alphabet))]
			i++
		}
	}
	return data
}

// TestPackHugePackageStreams packs a folder holding one 48 MiB package
// and counts the bytes Pack allocates: the package's header is decoded
// from its first bytes and its data streamed through the Writer's pooled
// blocks, so Pack allocates far less than the package (it read the whole
// file and decoded a copy of it before: over twice its size). The output
// must verify, its package chunk hold the file's bytes.
func TestPackHugePackageStreams(t *testing.T) {
	const size = 48 << 20
	dir := t.TempDir()
	folder := tcHugePackage(t, dir, size)
	v := pack.TocVersionFor(tcHugeEngine)
	plan, err := pack.Scan(folder, v)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "Huge-Windows.utoc")
	var before, after runtime.MemStats
	var res *pack.Result
	runtime.ReadMemStats(&before)
	peak, err := tcPeak(func() error {
		var err error
		res, err = pack.Pack(plan, out, &pack.Options{Engine: tcHugeEngine, NoPak: true, Writer: iostore.WriterOptions{Method: "Zlib"}})
		return err
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.Packages != 1 {
		t.Fatalf("%d packages packed, want 1", res.Packages)
	}
	// Allocations, which count what a pool would have reused, are only
	// meaningful without the race detector (race_test.go); the heap in
	// use is, either way.
	if alloc := after.TotalAlloc - before.TotalAlloc; !raceEnabled && alloc > size/4 {
		t.Errorf("Pack allocated %d MiB for a %d MiB package: it holds the package rather than streaming it", alloc>>20, size>>20)
	}
	t.Logf("heap in use rose by %.1f MiB; %d MiB allocated", peak, (after.TotalAlloc-before.TotalAlloc)>>20)
	if peak > float64(size>>20)/2 {
		t.Errorf("Pack's heap in use rose by %.0f MiB for a %d MiB package: it holds the package rather than streaming it", peak, size>>20)
	}
	c, err := iostore.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := c.Verify(nil); !r.OK() {
		t.Fatalf("the output does not verify: %v", r.Problems)
	}
	want, err := os.ReadFile(filepath.Join(folder, "Game", "Content", "Huge", "BigData.uasset"))
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkExportBundleData {
			got, err := c.ReadChunk(i)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatal("the package chunk differs from the file")
			}
			return
		}
	}
	t.Fatal("no package chunk in the output")
}

// tcHugeStep is a row of BenchmarkHugePackage.
type tcHugeStep struct {
	name string
	run  func() error
}

// tcPeak samples HeapInuse every 2 ms while a function runs and returns
// the most it rose above what it was at the start, in MiB.
func tcPeak(f func() error) (float64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := f()
	close(stop)
	<-done
	if p := peak.Load(); p > base {
		return float64(p-base) / (1 << 20), err
	}
	return 0, err
}

// BenchmarkHugePackage packs a folder holding one package of 400 MiB (one
// export of text-like data, see tcHugePackage) with Zlib, verifies the
// container and extracts it; converts a 400 MiB zen package into a cooked
// asset and back (ConvertToLegacy, ConvertToZen, see tcHugeZenFile); and
// applies a set-property patch to a container holding a 400 MiB package in
// mode mod and full (ApplyMod, ApplyFull, see tcHugePropsContainer) and
// to the zen package file of the convert rows (ApplyFile). It
// reports the heap each step needed above what the process held before it
// (peak-heap-MB, HeapInuse sampled every 2 ms): memory follows the blocks
// in flight, not the package. MB/s counts the package's bytes for each
// step. The benchmark fails when a step needs more than 256 MiB.
//
// Measured (3 runs): Pack 5-9 MB, Verify 1-3 MB, Extract 1-3 MB,
// ConvertToLegacy 3 MB, ConvertToZen 0.2 MB, ApplyMod 4 MB, ApplyFull
// 6 MB, ApplyFile 0.3 MB. Before pack decoded packages from their first
// bytes and streamed them: Pack 1,200 MB and more; before convert and
// apply streamed: ConvertToLegacy 2,000 MB, ConvertToZen 1,600 MB,
// ApplyMod 2,883 MB, ApplyFull 3,278 MB, ApplyFile 2,400 MB.
func BenchmarkHugePackage(b *testing.B) {
	const size = 400 << 20
	dir := b.TempDir()
	folder := tcHugePackage(b, dir, size)
	v := pack.TocVersionFor(tcHugeEngine)
	plan, err := pack.Scan(folder, v)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "Huge-Windows.utoc")
	steps := []tcHugeStep{
		{"Pack", func() error {
			_, err := pack.Pack(plan, out, &pack.Options{Engine: tcHugeEngine, NoPak: true, Writer: iostore.WriterOptions{Method: "Zlib"}})
			return err
		}},
		{"Verify", func() error {
			c, err := iostore.Open(out, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			if r := c.Verify(nil); !r.OK() {
				return fmt.Errorf("%v", r.Problems)
			}
			return nil
		}},
		{"Extract", func() error {
			c, err := iostore.Open(out, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			x := filepath.Join(dir, "x")
			if err := os.RemoveAll(x); err != nil {
				return err
			}
			_, err = c.Extract(x, nil)
			return err
		}},
	}
	steps = append(steps, tcHugeConvertSteps(b, dir, size)...)
	steps = append(steps, tcHugeApplySteps(b, dir, size)...)
	for _, st := range steps {
		b.Run(st.name, func(b *testing.B) {
			b.SetBytes(size)
			var peak float64
			for b.Loop() {
				p, err := tcPeak(st.run)
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, p)
			}
			b.ReportMetric(peak, "peak-heap-MB")
			if peak > 256 {
				b.Errorf("%s of a %d MiB package needs %.0f MiB of heap, over 256", st.name, size>>20, peak)
			}
		})
	}
}
