package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore/zen"
)

// scaleSizes are the package counts BenchmarkScale generates containers
// of, unless $UNRMOD_SCALE_SIZES lists others (comma-separated). The whole
// benchmark takes about two minutes on a 2-core machine, most of it
// extract writing 110,000 files for 100k packages.
var scaleSizes = []int{1000, 10000, 50000, 100000}

// scaleEngine is the release the generated containers are cooked for.
var scaleEngine = zen.Engine{Major: 5, Minor: 5}

// scaleDir holds the generated containers of the process, removed by
// TestMain.
var (
	scaleDirOnce sync.Once
	scaleDir     string
	scaleDirErr  error
	scaleMu      sync.Mutex
	scaleBuilt   = map[string]string{} // "container-N", "extracted-N" → path
)

// scaleRemove removes the generated containers (called by TestMain).
func scaleRemove() {
	if scaleDir != "" {
		os.RemoveAll(scaleDir)
	}
}

// scaleBase returns the scale folder of the process, made on first use
// under $UNRMOD_BENCH_DIR (the system's temporary folder when unset).
func scaleBase(b *testing.B) string {
	scaleDirOnce.Do(func() {
		base := os.Getenv("UNRMOD_BENCH_DIR")
		scaleDir, scaleDirErr = os.MkdirTemp(base, "unrmod-scale-")
	})
	if scaleDirErr != nil {
		b.Fatal(scaleDirErr)
	}
	return scaleDir
}

// scaleOut returns a fresh folder for a command's output, beside the
// generated containers (so $UNRMOD_BENCH_DIR chooses the file system both
// are on), removed when b ends.
func scaleOut(b *testing.B) string {
	out, err := os.MkdirTemp(scaleBase(b), "out-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(out) })
	return out
}

// scaleFile returns the path of what key names, making it once per
// process with make (given a fresh path under the scale folder).
func scaleFile(b *testing.B, key string, make func(path string) error) string {
	scaleBase(b)
	scaleMu.Lock()
	defer scaleMu.Unlock()
	if p, ok := scaleBuilt[key]; ok {
		return p
	}
	p := filepath.Join(scaleDir, key)
	if err := make(p); err != nil {
		b.Fatalf("making %s: %v", key, err)
	}
	scaleBuilt[key] = p
	return p
}

// scaleContainer returns the .utoc of the generated container of n
// packages (iostorebuild.ManyPackages).
func scaleContainer(b *testing.B, n int) string {
	dir := scaleFile(b, fmt.Sprintf("container-%d", n), func(dir string) error {
		c, err := iostorebuild.ManyPackages("Scale", n, scaleEngine)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		_, err = c.WriteFiles(dir, "Scale")
		return err
	})
	return filepath.Join(dir, "Scale.utoc")
}

// scaleExtracted returns a folder holding the container of n packages as
// extract writes it, the input of pack.
func scaleExtracted(b *testing.B, n int) string {
	utoc := scaleContainer(b, n)
	return scaleFile(b, fmt.Sprintf("extracted-%d", n), func(dir string) error {
		return scaleRun("extract", utoc, "-o", dir)
	})
}

// scaleRun runs the command line as unrmod does and fails unless it
// succeeds.
func scaleRun(args ...string) error {
	var stderr strings.Builder
	if code := run(args, io.Discard, &stderr); code != 0 {
		return fmt.Errorf("unrmod %s: exit status %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return nil
}

// scalePeak samples the heap in use (runtime.MemStats.HeapInuse) every
// 5 ms while a command runs, and keeps the largest.
type scalePeak struct {
	stop, done chan struct{}
	peak       atomic.Uint64
}

func scaleStartPeak() *scalePeak {
	p := &scalePeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			p.sample()
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *scalePeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for {
		old := p.peak.Load()
		if ms.HeapInuse <= old || p.peak.CompareAndSwap(old, ms.HeapInuse) {
			return
		}
	}
}

// end stops sampling and returns the peak in MiB.
func (p *scalePeak) end() float64 {
	close(p.stop)
	<-p.done
	p.sample()
	return float64(p.peak.Load()) / (1 << 20)
}

// scaleOp is one command BenchmarkScale times.
type scaleOp struct {
	name string
	// prepare readies one run of the command on the container of n
	// packages (timer stopped) and returns its arguments.
	prepare func(b *testing.B, n int, out string) []string
}

var scaleOps = []scaleOp{
	{"verify", func(b *testing.B, n int, out string) []string {
		return []string{"verify", scaleContainer(b, n)}
	}},
	{"ls", func(b *testing.B, n int, out string) []string {
		return []string{"ls", "--long", scaleContainer(b, n)}
	}},
	{"extract", func(b *testing.B, n int, out string) []string {
		return []string{"extract", scaleContainer(b, n), "-o", filepath.Join(out, "x")}
	}},
	{"pack", func(b *testing.B, n int, out string) []string {
		return []string{"pack", scaleExtracted(b, n), "-o", filepath.Join(out, "z_Scale_P"), "--engine", scaleEngine.String(), "--compression", "none"}
	}},
	{"apply", func(b *testing.B, n int, out string) []string {
		yaml := filepath.Join(out, "mod.yaml")
		doc := fmt.Sprintf("unrmod: 1\ntargets:\n  - container: %q\n    output: %q\n    mode: mod\n    packages:\n      - package: %s\n        ops:\n          - add-name: {name: ScaleAdded}\n",
			scaleContainer(b, n), filepath.Join(out, "z_ScaleMod_P"), iostorebuild.ManyPackageName(n/2))
		if err := os.WriteFile(yaml, []byte(doc), 0o644); err != nil {
			b.Fatal(err)
		}
		return []string{"apply", yaml}
	}},
}

// BenchmarkScale runs verify, ls --long, extract, pack and apply (a
// container target, mode mod, changing one package) on generated
// containers of 1k, 10k, 50k and 100k small packages (iostorebuild.ManyPackages,
// cooked for UE 5.5, uncompressed, one package in ten with bulk data; made
// once per process in a temporary folder, or under $UNRMOD_BENCH_DIR,
// where the commands' outputs go too;
// $UNRMOD_SCALE_SIZES picks other counts), in process, as the unrmod
// command runs them. It reports ns/pkg, the time per package (flat when a
// command is linear in the number of packages), and peak-heap-MB, the
// largest heap in use while the command ran (sampled every 5 ms). Run
// scripts/scale.sh (make scale) for the 50k/10k ratios side by side.
//
// The containers take a while to generate: the benchmark runs only with
// -bench, and skips under -short.
func BenchmarkScale(b *testing.B) {
	if testing.Short() {
		b.Skip("generates containers of up to 100k packages")
	}
	sizes := scaleSizes
	if s := os.Getenv("UNRMOD_SCALE_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("UNRMOD_SCALE_SIZES: %q is not a package count", f)
			}
			sizes = append(sizes, n)
		}
	}
	for _, op := range scaleOps {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/pkgs=%d", op.name, n), func(b *testing.B) {
				out := scaleOut(b)
				args := op.prepare(b, n, out)
				var peak float64
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					// Every run starts afresh: no output of the run before,
					// no garbage of it.
					for _, f := range []string{"x", "z_Scale_P.utoc", "z_Scale_P.ucas", "z_Scale_P.pak", "z_ScaleMod_P.utoc", "z_ScaleMod_P.ucas", "z_ScaleMod_P.pak"} {
						if err := os.RemoveAll(filepath.Join(out, f)); err != nil {
							b.Fatal(err)
						}
					}
					runtime.GC()
					p := scaleStartPeak()
					b.StartTimer()
					err := scaleRun(args...)
					b.StopTimer()
					peak = max(peak, p.end())
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pkg")
				b.ReportMetric(peak, "peak-heap-MB")
			})
		}
	}
}
