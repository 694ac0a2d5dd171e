package iostore_test

import (
	"bytes"
	stdzlib "compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// tcContainerFiles returns the paths of a container's .utoc and .ucas
// partitions and their total size.
func tcContainerFiles(b *testing.B, utoc string, parts int) ([]string, int64) {
	b.Helper()
	files := []string{utoc}
	for i := range parts {
		files = append(files, iostore.PartitionPath(utoc, i))
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		total += st.Size()
	}
	return files, total
}

// tcCopyFiles copies files into dir with io.Copy (which the system may do
// without passing the bytes through the process), what a rewrite is
// measured against; when durable, it also syncs each file to storage, as
// the Writer does before it renames its output into place.
func tcCopyFiles(files []string, dir string, durable bool) error {
	for _, name := range files {
		src, err := os.Open(name)
		if err != nil {
			return err
		}
		dst, err := os.Create(filepath.Join(dir, filepath.Base(name)))
		if err != nil {
			src.Close()
			return err
		}
		_, err = io.Copy(dst, src)
		if err == nil && durable {
			err = dst.Sync()
		}
		src.Close()
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tcRemoveAll empties dir, untimed, so that each run writes new files.
func tcRemoveAll(b *testing.B, dir string) {
	b.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			b.Fatal(err)
		}
	}
}

// tcChangedPackage returns the largest package chunk of c under 1 MiB
// and its data with a byte of export data changed, so that it still
// decodes and verifies.
func tcChangedPackage(b *testing.B, c *iostore.Container) (iostore.ChunkID, []byte) {
	b.Helper()
	v := c.Header().Version
	best := -1
	for i, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkExportBundleData && ch.ID.Index(v) == 0 && ch.Size < 1<<20 &&
			(best < 0 || ch.Size > c.Chunks()[best].Size) {
			best = i
		}
	}
	if best < 0 {
		b.Fatal("no package chunk")
	}
	data, err := c.ReadChunk(best)
	if err != nil {
		b.Fatal(err)
	}
	p, err := zen.DecodePackage("bench", data, nil)
	if err != nil {
		b.Fatal(err)
	}
	for k := range p.Exports {
		if e := &p.Exports[k]; len(e.Data) > 0 {
			e.Data = bytes.Clone(e.Data)
			e.Data[len(e.Data)/2] ^= 0x5A
			out, err := p.Encode()
			if err != nil {
				b.Fatal(err)
			}
			return c.Chunks()[best].ID, out
		}
	}
	b.Fatal("the package has no export data")
	return iostore.ChunkID{}, nil
}

// BenchmarkRewrite rebuilds the realistic container (207 MiB of chunks,
// see tcRealistic) with one package changed, with Rewrite in both layouts
// (verification VerifyWritten, the default), against CopyBaseline, which
// copies its .utoc and .ucas with io.Copy, and CopySyncBaseline, which
// also syncs them to storage as Rewrite does. MB/s counts the source's
// file bytes for all. Before each rewrite, untimed, the Preserve and
// Compact runs copy the files plainly and synced and check every chunk
// against its hash on all cores (CheckChunks, what the check of the
// copied chunks costs at least), and report the rewrite's speed over each:
// x-copy, x-synccopy and x-check (1 = as fast); cores is the CPU time the
// rewrite took over its wall time. Output goes to a temporary directory,
// or under $UNRMOD_BENCH_DIR.
//
// Measured on the 2-core VM with little else running, ext4 on a virtual
// disk, -benchtime 3x, 3 runs, each beside the code before (in brackets):
//
//	Zlib (104 MB)  CopySync 1540-1800 MB/s
//	               Preserve 389-407 MB/s, x-synccopy 0.22-0.23, x-check 0.70-0.71 [334-342, 0.18-0.20, 0.59-0.60]
//	               Compact  413-420 MB/s, x-synccopy 0.23-0.25, x-check 0.72-0.74 [337-349, 0.19-0.20, 0.59-0.61]
//	None (220 MB)  CopySync 1710-1840 MB/s
//	               Preserve 1770-1920 MB/s, x-synccopy 0.96-1.08 [1590-1690, 0.92-0.95]
//	               Compact  1770-1980 MB/s, x-synccopy 0.98-1.08 [1270-1310, 0.70-0.74]
//
// PreserveRemembered and CompactRemembered rewrite with SourceChecked (the
// source passed the whole check before and is unchanged, as a remembered
// check in package checkcache says): the chunks are copied without being
// decoded and hashed, the packages not decoded again. Measured the same
// way, all variants in one run (MB/s, x-synccopy):
//
//	Zlib  CopySync 1710-1750
//	      Preserve 321-347, 0.20-0.22       PreserveRemembered 1910-2220, 1.27-1.48
//	      Compact  296-357, 0.18-0.21       CompactRemembered  1830-1880, 1.05-1.14
//	None  CopySync 1680-1770
//	      Preserve 1600-1870, 0.91-1.11     PreserveRemembered 2630-2930, 1.46-1.55
//	      Compact  1710-1830, 0.99-1.01     CompactRemembered  2090-2310, 1.16-1.36
//
// A remembered rewrite is faster than the synced copy although both copy
// within the kernel (io.Copy between files uses copy_file_range too): the
// Writer starts the disk's writeback of what it wrote as it goes
// (sync_file_range), so its final sync waits on less than the copy's
// fsync of each whole file.
//
// On Zlib the check is the floor: decoding and hashing the 207 MiB takes
// 0.35 s on one core (632 MB/s of decoded bytes, 300 MB/s of .ucas) and
// 0.18 s on two (575 MB/s of .ucas, BenchmarkCheckedCopy's CheckOnly), a
// third of a synced copy's speed, before the rewrite verifies its packages
// (0.1 s of CPU) and writes. Before, the packages were decoded twice before
// the copy started, on one core for the first pass, the copy of a large
// chunk waited for its check, and the compact layout read every block
// twice.
func BenchmarkRewrite(b *testing.B) {
	for _, method := range []string{"Zlib", "None"} {
		b.Run(method, func(b *testing.B) {
			c, utoc := tcRealistic(b, method)
			files, size := tcContainerFiles(b, utoc, len(c.Partitions()))
			id, data := tcChangedPackage(b, c)
			dir := tcBenchDir(b)
			copyDir := filepath.Join(dir, "copy")
			outDir := filepath.Join(dir, "out")
			for _, d := range []string{copyDir, outDir} {
				if err := os.Mkdir(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			for _, durable := range []bool{false, true} {
				name := "CopyBaseline"
				if durable {
					name = "CopySyncBaseline"
				}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(size)
					for b.Loop() {
						b.StopTimer()
						tcRemoveAll(b, copyDir)
						b.StartTimer()
						if err := tcCopyFiles(files, copyDir, durable); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			for _, l := range []struct {
				name       string
				layout     iostore.RewriteLayout
				remembered bool // SourceChecked: the source passed the check before
			}{{"Preserve", iostore.Preserve, false}, {"Compact", iostore.Compact, false},
				{"PreserveRemembered", iostore.Preserve, true}, {"CompactRemembered", iostore.Compact, true}} {
				b.Run(l.name, func(b *testing.B) {
					b.SetBytes(size)
					b.ReportAllocs()
					var copying, syncing, checking, rewriting, cpu time.Duration
					for b.Loop() {
						b.StopTimer()
						for _, durable := range []bool{false, true} {
							tcRemoveAll(b, copyDir)
							start := time.Now()
							if err := tcCopyFiles(files, copyDir, durable); err != nil {
								b.Fatal(err)
							}
							if durable {
								syncing += time.Since(start)
							} else {
								copying += time.Since(start)
							}
						}
						tcRemoveAll(b, copyDir)
						tcRemoveAll(b, outDir)
						start := time.Now()
						if err := iostore.CheckChunks(c); err != nil {
							b.Fatal(err)
						}
						checking += time.Since(start)
						cpu0 := tcCPUTime()
						start = time.Now()
						b.StartTimer()
						changes := []iostore.ChunkChange{{ID: id, Data: bytes.NewReader(data)}}
						res, err := iostore.Rewrite(c, filepath.Join(outDir, filepath.Base(utoc)), changes, &iostore.RewriteOptions{Layout: l.layout, SourceChecked: l.remembered})
						if err != nil {
							b.Fatal(err)
						}
						rewriting += time.Since(start)
						cpu += tcCPUTime() - cpu0
						if res.Written != 1 {
							b.Fatalf("%d chunks written, want 1", res.Written)
						}
					}
					b.ReportMetric(copying.Seconds()/rewriting.Seconds(), "x-copy")
					b.ReportMetric(syncing.Seconds()/rewriting.Seconds(), "x-synccopy")
					b.ReportMetric(checking.Seconds()/rewriting.Seconds(), "x-check")
					if cpu > 0 {
						b.ReportMetric(cpu.Seconds()/rewriting.Seconds(), "cores")
					}
				})
			}
		})
	}
}

// tcGen reads n bytes of cooked-looking data: runs of 1 to 8 KiB of real
// cooked bytes (pool) from pseudo-random places, each run's first bytes
// varied, so that zlib compresses a block about as well and as fast as the
// game's data and no two blocks are alike, without holding the data.
type tcGen struct {
	pool []byte
	left int64
	rng  uint64
	run  []byte
}

func (g *tcGen) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n := 0
	for n < len(p) {
		if len(g.run) == 0 {
			g.rng ^= g.rng << 13
			g.rng ^= g.rng >> 7
			g.rng ^= g.rng << 17
			at := int(g.rng % uint64(len(g.pool)))
			size := 1024 + int(g.rng>>40)%(7*1024)
			g.run = g.pool[at:min(at+size, len(g.pool))]
		}
		k := copy(p[n:], g.run)
		for j := 0; j < 8 && j < k; j++ {
			p[n+j] ^= byte(g.rng >> (8 * j))
		}
		g.run = g.run[k:]
		n += k
	}
	g.left -= int64(n)
	return n, nil
}

// tcPackSource is what the packing benchmarks write: the chunk sizes of
// the shipped game's TOC sample (see tcRealistic) and real cooked bytes to
// generate their data from.
type tcPackSource struct {
	sizes   []uint64
	pool    []byte
	version iostore.TocVersion
}

func tcNewPackSource(b testing.TB) *tcPackSource {
	b.Helper()
	ninja := tcOpen(b, tcTocOnly8, nil)
	fixture := tcOpen(b, tcUncompressed, nil)
	s := &tcPackSource{version: ninja.Header().Version}
	for i := 0; i < len(ninja.Chunks()); i += tcRealisticStride {
		if ch := ninja.Chunks()[i]; ch.Type != iostore.ChunkContainerHeader {
			s.sizes = append(s.sizes, ch.Size)
		}
	}
	for i := range fixture.Chunks() {
		data, err := fixture.ReadChunk(i)
		if err != nil {
			b.Fatal(err)
		}
		s.pool = append(s.pool, data...)
	}
	return s
}

// pack writes total bytes of generated bulk-data chunks, the game's chunk
// sizes cycled, into a new container at utoc; added, when not nil, is
// called before Close.
func (s *tcPackSource) pack(utoc string, total int64, opts *iostore.WriterOptions, added func()) error {
	o := *opts
	o.Version = s.version
	w, err := iostore.NewWriter(utoc, &o)
	if err != nil {
		return err
	}
	var done int64
	for k := 0; done < total; k++ {
		n := min(int64(s.sizes[k%len(s.sizes)]), total-done)
		id, err := iostore.NewChunkID(uint64(k)+1, 0, iostore.ChunkBulkData, s.version)
		if err != nil {
			w.Abort()
			return err
		}
		g := &tcGen{pool: s.pool, left: n, rng: uint64(k)*0x9E3779B97F4A7C15 + 1}
		if err := w.AddChunk(id, fmt.Sprintf("Game/Content/Bench/%03d/B%05d.ubulk", k/1000, k), g); err != nil {
			w.Abort()
			return err
		}
		done += n
	}
	if added != nil {
		added()
	}
	return w.Close()
}

// tcPackSize is what the packing benchmarks write: 200 MiB.
const tcPackSize = 200 << 20

// compress compresses total bytes of the chunks pack writes, in 64 KiB
// blocks with the Writer's compressor (the built-in Zlib codec at the
// default level: what pack --compression zlib runs), in n goroutines that
// take the blocks in turn, and does nothing else: what n cores can do at
// best.
func (s *tcPackSource) compress(total int64, n int) error {
	var mu sync.Mutex
	var gen tcGen
	k, done := 0, int64(0)
	// next reads the next block into buf.
	next := func(buf []byte) int {
		mu.Lock()
		defer mu.Unlock()
		for {
			if m, _ := io.ReadFull(&gen, buf); m > 0 {
				return m
			}
			if done >= total {
				return 0
			}
			size := min(int64(s.sizes[k%len(s.sizes)]), total-done)
			gen = tcGen{pool: s.pool, left: size, rng: uint64(k)*0x9E3779B97F4A7C15 + 1}
			k, done = k+1, done+size
		}
	}
	codec, _ := (*ue.Codecs)(nil).Lookup("Zlib")
	compress := codec.NewCompressor(ue.DefaultCompression)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			block := make([]byte, iostore.DefaultBlockSize)
			out := make([]byte, 0, 2*iostore.DefaultBlockSize)
			for m := next(block); m > 0; m = next(block) {
				if _, err := compress(out, block[:m]); err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// tcWithProcs runs f with GOMAXPROCS set to n and returns how long it took.
func tcWithProcs(n int, f func() error) (time.Duration, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// BenchmarkPackZlib writes 200 MiB of generated chunks (tcGen: real cooked
// bytes, the game's chunk sizes; zlib stores them in about half) into a
// Zlib container through Writer.AddChunk, verified and synced as Close
// does, on one core (Writer/1core: GOMAXPROCS=1, Workers=1) and on two
// (Writer/2cores: GOMAXPROCS=2, Workers=2). ZlibBaseline compresses the
// same bytes in 64 KiB blocks in one or two goroutines and does nothing
// else: the most the cores give on this machine. MB/s counts uncompressed
// bytes. Each Writer run is preceded by a baseline run on as many cores,
// untimed, and reports x-compressor, its speed over the baseline's in the
// same run (1 = as fast as the compressor alone), so that the ratio holds
// on a machine shared with other work; the 2cores runs of both also
// report x-1core, their speed over a one-core run before each. stored-%
// is the output's size over the input's, x-stdlib6 the size of its blocks
// over what the standard library's zlib at level 6 (the engine's level)
// makes of the same 64 KiB blocks. x-compressor-cpu is the same ratio of
// CPU time (user and system, of the whole process): per core, the
// compressor's speed over the Writer's, which other work on the machine
// does not sway.
//
// The 2cores runs also report x-1core-cpu, the one-core run's CPU time
// over theirs: 1 when the second core adds no work, so that two free
// cores would pack 2 x x-1core-cpu as fast as one.
//
// The compressor is the Writer's own (the built-in Zlib codec at the
// default level, klauspost's level 6 with its second tries), so that
// x-compressor says what the Writer adds to it.
//
// Measured on 2 cores shared with other work, -benchtime 2x, 3 runs
// (scripts/perf.sh), load average 7-12 from other work throughout, so
// the wall-time ratios swing and the CPU-time ones hold: Writer 1core
// x-compressor-cpu 0.86-0.89 (x-compressor 0.62-1.16); 2cores
// x-compressor-cpu 0.83-0.87, x-1core-cpu 0.93-0.99 (two free cores would
// pack 1.86-1.98 times as fast as one; the compressor alone 1.96-2.04),
// x-1core 0.70-1.04 (the other work took the second core); stored 49.5%,
// x-stdlib6 1.030 (1.055 with klauspost's level 5, the default before). Before the check compared
// stored sums instead of decoding what was written: x-compressor
// 0.53-0.58 on one core.
func BenchmarkPackZlib(b *testing.B) {
	src := tcNewPackSource(b)
	dir := tcBenchDir(b)
	utoc := filepath.Join(dir, "Pack-Windows.utoc")
	writer := func(n int) error {
		return src.pack(utoc, tcPackSize, &iostore.WriterOptions{Method: "Zlib", Workers: n}, nil)
	}
	baseline := func(n int) error { return src.compress(tcPackSize, n) }
	for _, bc := range []struct {
		name string
		run  func(n int) error
	}{{"Writer", writer}, {"ZlibBaseline", baseline}} {
		for _, n := range []int{1, 2} {
			name := fmt.Sprintf("%s/%dcore", bc.name, n)
			if n > 1 {
				name += "s"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(tcPackSize)
				b.ReportAllocs()
				var one, base, this, oneCPU, baseCPU, thisCPU time.Duration
				for b.Loop() {
					b.StopTimer()
					if n > 1 {
						cpu := tcCPUTime()
						d, err := tcWithProcs(1, func() error { return bc.run(1) })
						if err != nil {
							b.Fatal(err)
						}
						one, oneCPU = one+d, oneCPU+tcCPUTime()-cpu
					}
					if bc.name == "Writer" {
						cpu := tcCPUTime()
						d, err := tcWithProcs(n, func() error { return baseline(n) })
						if err != nil {
							b.Fatal(err)
						}
						base, baseCPU = base+d, baseCPU+tcCPUTime()-cpu
					}
					b.StartTimer()
					cpu := tcCPUTime()
					d, err := tcWithProcs(n, func() error { return bc.run(n) })
					if err != nil {
						b.Fatal(err)
					}
					this, thisCPU = this+d, thisCPU+tcCPUTime()-cpu
				}
				if n > 1 {
					b.ReportMetric(one.Seconds()/this.Seconds(), "x-1core")
					if thisCPU > 0 {
						b.ReportMetric(oneCPU.Seconds()/thisCPU.Seconds(), "x-1core-cpu")
					}
				}
				if bc.name == "Writer" {
					b.ReportMetric(base.Seconds()/this.Seconds(), "x-compressor")
					if thisCPU > 0 {
						b.ReportMetric(baseCPU.Seconds()/thisCPU.Seconds(), "x-compressor-cpu")
					}
					st, err := os.Stat(iostore.PartitionPath(utoc, 0))
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(100*float64(st.Size())/tcPackSize, "stored-%")
					if n == 1 {
						b.StopTimer()
						std, err := src.stdlibSize(tcPackSize)
						if err != nil {
							b.Fatal(err)
						}
						b.ReportMetric(float64(st.Size())/float64(std), "x-stdlib6")
					}
				}
			})
		}
	}
}

// BenchmarkPackNone writes 200 MiB of generated chunks (as
// BenchmarkPackZlib) into a container stored uncompressed, verified and
// synced as Close does, against SyncedCopy, which writes the same bytes
// from the same generator to one file and syncs it: what a copy of the
// container's bytes to storage costs. Each Writer run is preceded by a
// SyncedCopy run, untimed, and reports x-copy, its speed over the copy's
// in the same run (1 = as fast). Output goes to a temporary directory, or
// under $UNRMOD_BENCH_DIR.
//
// Measured on 2 shared cores, ext4 on a virtual disk, -benchtime 2x, 3
// runs (scripts/perf.sh): SyncedCopy 990-1020 MB/s, Writer 1250-1470 MB/s,
// x-copy 1.24-1.45: the Writer starts the writeback as it goes, where the
// copy syncs everything at the end.
func BenchmarkPackNone(b *testing.B) {
	src := tcNewPackSource(b)
	dir := tcBenchDir(b)
	utoc := filepath.Join(dir, "PackNone-Windows.utoc")
	copyFile := filepath.Join(dir, "copy.bin")
	writer := func() error {
		return src.pack(utoc, tcPackSize, &iostore.WriterOptions{Method: "None"}, nil)
	}
	synced := func() error {
		f, err := os.Create(copyFile)
		if err != nil {
			return err
		}
		buf := make([]byte, 1<<20)
		var done int64
		for k := 0; done < tcPackSize; k++ {
			n := min(int64(src.sizes[k%len(src.sizes)]), tcPackSize-done)
			g := &tcGen{pool: src.pool, left: n, rng: uint64(k)*0x9E3779B97F4A7C15 + 1}
			if _, err := io.CopyBuffer(f, g, buf); err != nil {
				f.Close()
				return err
			}
			done += n
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	clean := func() {
		for _, f := range []string{copyFile, utoc, iostore.PartitionPath(utoc, 0)} {
			os.Remove(f)
		}
	}
	for _, bc := range []struct {
		name string
		run  func() error
	}{{"SyncedCopy", synced}, {"Writer", writer}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(tcPackSize)
			var base, this time.Duration
			for b.Loop() {
				b.StopTimer()
				clean()
				if bc.name == "Writer" {
					start := time.Now()
					if err := synced(); err != nil {
						b.Fatal(err)
					}
					base += time.Since(start)
					clean()
				}
				b.StartTimer()
				start := time.Now()
				if err := bc.run(); err != nil {
					b.Fatal(err)
				}
				this += time.Since(start)
			}
			b.StopTimer()
			clean()
			if bc.name == "Writer" {
				b.ReportMetric(base.Seconds()/this.Seconds(), "x-copy")
			}
		})
	}
}

// stdlibSize returns what the standard library's zlib at level 6 makes of
// the blocks compress compresses, each padded to 16 bytes as the Writer
// stores them, and stored as they are when that is not larger.
func (s *tcPackSource) stdlibSize(total int64) (int64, error) {
	var size int64
	var out bytes.Buffer
	zw, err := stdzlib.NewWriterLevel(&out, 6)
	if err != nil {
		return 0, err
	}
	block := make([]byte, iostore.DefaultBlockSize)
	for k, done := 0, int64(0); done < total; k++ {
		n := min(int64(s.sizes[k%len(s.sizes)]), total-done)
		g := &tcGen{pool: s.pool, left: n, rng: uint64(k)*0x9E3779B97F4A7C15 + 1}
		for {
			m, _ := io.ReadFull(g, block)
			if m == 0 {
				break
			}
			out.Reset()
			zw.Reset(&out)
			zw.Write(block[:m])
			if err := zw.Close(); err != nil {
				return 0, err
			}
			size += int64((min(out.Len(), m) + 15) &^ 15)
		}
		done += n
	}
	return size, nil
}

// tcPeakHeap samples the heap while a function runs: every 10 ms it reads
// HeapInuse, and every 100 ms it collects garbage first, so that the peak
// is of what is held rather than of what the collector has not yet freed.
type tcPeakHeap struct {
	stop           chan struct{}
	done           chan struct{}
	base           uint64
	peak, peakLive atomic.Uint64
}

func tcStartPeakHeap() *tcPeakHeap {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p := &tcPeakHeap{stop: make(chan struct{}), done: make(chan struct{}), base: ms.HeapInuse}
	go func() {
		defer close(p.done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for k := 1; ; k++ {
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
			p.sample(k%10 == 0)
		}
	}()
	return p
}

// sample reads the heap, after a collection when gc is set.
func (p *tcPeakHeap) sample(gc bool) {
	if gc {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	tcMax(&p.peak, ms.HeapInuse)
	if gc {
		tcMax(&p.peakLive, ms.HeapInuse)
	}
}

func tcMax(a *atomic.Uint64, v uint64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// now samples the heap and returns the peaks so far above the heap at the
// start, in MiB.
func (p *tcPeakHeap) now() (peak, live float64) {
	p.sample(true)
	mb := func(v uint64) float64 {
		if v < p.base {
			return 0
		}
		return float64(v-p.base) / (1 << 20)
	}
	return mb(p.peak.Load()), mb(p.peakLive.Load())
}

// end stops sampling and returns the peaks (see now).
func (p *tcPeakHeap) end() (peak, live float64) {
	close(p.stop)
	<-p.done
	return p.now()
}

// BenchmarkWriterMemory packs 200 MiB and 1 GiB of generated chunks (as
// BenchmarkPackZlib, streamed from tcGen: the benchmark holds none of it)
// with Zlib on every core, into a temporary directory (or under
// $UNRMOD_BENCH_DIR), and reports the heap it needed above what it started
// with (HeapInuse sampled every 10 ms, and right after the collections it
// forces every 100 ms): add-heap-MB and add-live-MB while the chunks are
// added, peak-heap-MB and peak-live-MB over the whole write, Close (the
// TOC, the check) included. While adding, the Writer's memory does not
// grow with the container but for its block list (24 bytes per 64 KiB
// block) and chunk list; Close needs memory for the TOC, as large as the
// chunk and block lists. The benchmark fails when the 1 GiB container
// needs more than 4 MiB above the 200 MiB one while adding (its lists
// take about 2 MiB more), or 16 MiB over the whole write.
//
// Measured (4 runs): 200 MiB add-heap 4.9-6.0 MB (live 4.9-5.8),
// peak-heap 5.7-6.0 MB; 1 GiB add-heap 6.1-7.2 MB (live 5.8-6.9),
// peak-heap 12.0-12.9 MB. Before the Writer pooled its block buffers:
// 20.2 and 21.3 MB while adding (live 8.7 and 10.2), and 2.4 GB
// allocated for 1 GiB (now about 50 MB).
func BenchmarkWriterMemory(b *testing.B) {
	src := tcNewPackSource(b)
	type peaks struct{ add, all float64 }
	got := map[int64]peaks{}
	for _, size := range []int64{200 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			if size > tcPackSize && testing.Short() {
				b.Skip("writes 1 GiB; not in short mode")
			}
			dir := tcBenchDir(b)
			utoc := filepath.Join(dir, "Memory-Windows.utoc")
			b.SetBytes(size)
			var add, addLive, all, allLive float64
			for b.Loop() {
				b.StopTimer()
				tcRemoveAll(b, dir)
				debug.FreeOSMemory()
				b.StartTimer()
				p := tcStartPeakHeap()
				err := src.pack(utoc, size, &iostore.WriterOptions{Method: "Zlib"}, func() {
					pk, lv := p.now()
					add, addLive = max(add, pk), max(addLive, lv)
				})
				pk, lv := p.end()
				if err != nil {
					b.Fatal(err)
				}
				all, allLive = max(all, pk), max(allLive, lv)
			}
			b.StopTimer()
			tcRemoveAll(b, dir)
			b.ReportMetric(add, "add-heap-MB")
			b.ReportMetric(addLive, "add-live-MB")
			b.ReportMetric(all, "peak-heap-MB")
			b.ReportMetric(allLive, "peak-live-MB")
			got[size] = peaks{add, all}
		})
	}
	small, big := got[200<<20], got[1<<30]
	if small.all > 0 && big.all > 0 && (big.add > small.add+4 || big.all > small.all+16) {
		b.Errorf("the Writer's memory grows with the container: %.1f MiB while adding 1 GiB, %.1f MiB for 200 MiB; %.1f and %.1f MiB over the whole write", big.add, small.add, big.all, small.all)
	}
}

// BenchmarkCheckedCopy rewrites the realistic container (see tcRealistic)
// without changes, so that every chunk is copied as stored, in both
// layouts: Plain copies without the check of the copied chunks against
// their source's hashes, Checked with it (what Rewrite does), in the same
// run; CheckOnly decodes and hashes every chunk on all cores and writes
// nothing, the least the check can cost. The check runs beside the copy:
// on Zlib, Checked takes about what CheckOnly takes (decompression) and
// the copy adds nearly nothing; on None, where both are fast, they share
// the cores. MB/s counts the source's file bytes. Output goes to a temporary
// directory, or under $UNRMOD_BENCH_DIR.
//
// Measured on 2 cores shared with other work (load average 8-11, so the
// ranges are wide), -count 3, -benchtime 3x, MB/s of file bytes:
//
//	                    CheckOnly  Preserve Plain  Checked  Compact Plain  Checked
//	Zlib (104 MB) ext4    112-185       530-1940   70-142       820-1230  109-132
//	              tmpfs   192-244      1200-2060  167-205      1440-1830  204-253
//	None (220 MB) ext4   1100-2540      910-1230  627-897      1410-1770  616-711
//	              tmpfs  2910-3910      820-1370  744-934       880-1260  431-1096
//
// On Zlib the checked rewrite takes about what CheckOnly takes: the copy
// is hidden behind the decompression, which is what the check costs.
func BenchmarkCheckedCopy(b *testing.B) {
	for _, method := range []string{"Zlib", "None"} {
		b.Run(method, func(b *testing.B) {
			c, utoc := tcRealistic(b, method)
			_, size := tcContainerFiles(b, utoc, len(c.Partitions()))
			outDir := tcBenchDir(b)
			out := filepath.Join(outDir, filepath.Base(utoc))
			b.Run("CheckOnly", func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					if err := iostore.CheckChunks(c); err != nil {
						b.Fatal(err)
					}
				}
			})
			for _, l := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
				for _, checked := range []bool{false, true} {
					name := l.String() + "/Plain"
					rewrite := iostore.RewriteUnchecked
					if checked {
						name, rewrite = l.String()+"/Checked", iostore.Rewrite
					}
					b.Run(name, func(b *testing.B) {
						b.SetBytes(size)
						b.ReportAllocs()
						for b.Loop() {
							b.StopTimer()
							tcRemoveAll(b, outDir)
							b.StartTimer()
							res, err := rewrite(c, out, nil, &iostore.RewriteOptions{Layout: l})
							if err != nil {
								b.Fatal(err)
							}
							if res.Copied != len(c.Chunks()) || res.Unchecked != 0 {
								b.Fatalf("result %+v", res)
							}
						}
					})
				}
			}
		})
	}
}
