package iostore_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/klauspost/compress/zlib"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
)

var tcSink any

// BenchmarkOpenTOC decodes the largest TOC of the corpus (5,370 chunks,
// 74,138 blocks, a 195 KB directory index) and builds the chunk list.
func BenchmarkOpenTOC(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, tcTocOnly8))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := iostore.OpenReaders("WayOfTheNinja-Windows.utoc", data, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		tcSink = c
	}
}

// tcBenchContainers are the fixtures whose every chunk unrmod can decode.
var tcBenchContainers = []struct{ name, rel string }{
	{"Uncompressed", tcUncompressed},
	{"Zlib", tcZlib},
}

// tcTotal returns the uncompressed size of all chunks.
func tcTotal(c *iostore.Container) int64 {
	var n int64
	for _, ch := range c.Chunks() {
		n += int64(ch.Size)
	}
	return n
}

// BenchmarkExtract extracts every chunk to files (decrypt, decompress,
// hash check, write, rename) on all cores, into a new directory each time
// (removed between runs, untimed). MB/s counts uncompressed bytes; compare
// with BenchmarkBaselineReadDecompress. The output goes to a temporary
// directory, or under $UNRMOD_BENCH_DIR (e.g. /dev/shm, to take the disk
// out of the measurement).
func BenchmarkExtract(b *testing.B) {
	for _, bc := range tcBenchContainers {
		b.Run(bc.name, func(b *testing.B) {
			c := tcOpen(b, bc.rel, nil)
			base := b.TempDir()
			if d := os.Getenv("UNRMOD_BENCH_DIR"); d != "" {
				var err error
				if base, err = os.MkdirTemp(d, "unrmod-bench-"); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { os.RemoveAll(base) })
			}
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				os.RemoveAll(filepath.Join(base, strconv.Itoa(n)))
				n++
				b.StartTimer()
				if _, err := c.Extract(filepath.Join(base, strconv.Itoa(n)), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify decodes every chunk and checks its hash on all cores.
func BenchmarkVerify(b *testing.B) {
	for _, bc := range tcBenchContainers {
		b.Run(bc.name, func(b *testing.B) {
			c := tcOpen(b, bc.rel, nil)
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			for b.Loop() {
				if r := c.Verify(nil); !r.OK() {
					b.Fatal(r.Problems)
				}
			}
		})
	}
}

// BenchmarkBaselineReadDecompress is the floor Extract is measured
// against: read the whole .ucas once with os.ReadFile, then decompress
// every block with klauspost zlib on all cores, writing nothing. MB/s
// counts uncompressed bytes, as BenchmarkExtract does.
func BenchmarkBaselineReadDecompress(b *testing.B) {
	for _, bc := range tcBenchContainers {
		b.Run(bc.name, func(b *testing.B) {
			utoc := corpus.Path(b, bc.rel)
			c := tcOpen(b, bc.rel, nil)
			blocks := c.TOC().Blocks
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			workers := runtime.GOMAXPROCS(0)
			for b.Loop() {
				cas, err := os.ReadFile(iostore.PartitionPath(utoc, 0))
				if err != nil {
					b.Fatal(err)
				}
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						out := make([]byte, c.Header().CompressionBlockSize)
						var zr io.ReadCloser
						for k := w; k < len(blocks); k += workers {
							bl := blocks[k]
							src := cas[bl.Offset : bl.Offset+uint64(bl.CompressedSize)]
							if bl.Method == 0 {
								copy(out, src)
								continue
							}
							if zr == nil {
								zr, err = zlib.NewReader(bytes.NewReader(src))
							} else {
								err = zr.(zlib.Resetter).Reset(bytes.NewReader(src), nil)
							}
							if err == nil {
								_, err = io.ReadFull(zr, out[:bl.UncompressedSize])
							}
							if err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkBaselineReadDecompressWrite adds the cheapest possible file
// output to the baseline: every chunk (decoded from the .ucas read once)
// written with os.WriteFile into one flat directory, without temporary
// names, renames, directories or hash checks. The gap between it and
// BenchmarkExtract is what safe, structured output costs; the gap between
// it and BenchmarkBaselineReadDecompress is what the file system costs.
func BenchmarkBaselineReadDecompressWrite(b *testing.B) {
	for _, bc := range tcBenchContainers {
		b.Run(bc.name, func(b *testing.B) {
			utoc := corpus.Path(b, bc.rel)
			c := tcOpen(b, bc.rel, nil)
			blocks := c.TOC().Blocks
			base := b.TempDir()
			if d := os.Getenv("UNRMOD_BENCH_DIR"); d != "" {
				var err error
				if base, err = os.MkdirTemp(d, "unrmod-bench-"); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { os.RemoveAll(base) })
			}
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			workers := runtime.GOMAXPROCS(0)
			n := 0
			for b.Loop() {
				b.StopTimer()
				os.RemoveAll(filepath.Join(base, strconv.Itoa(n)))
				n++
				dir := filepath.Join(base, strconv.Itoa(n))
				b.StartTimer()
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				cas, err := os.ReadFile(iostore.PartitionPath(utoc, 0))
				if err != nil {
					b.Fatal(err)
				}
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var zr io.ReadCloser
						for i := w; i < len(c.Chunks()); i += workers {
							ch := c.Chunks()[i]
							out := make([]byte, 0, ch.Size)
							for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
								bl := blocks[k]
								src := cas[bl.Offset : bl.Offset+uint64(bl.CompressedSize)]
								if bl.Method == 0 {
									out = append(out, src...)
									continue
								}
								var err error
								if zr == nil {
									zr, err = zlib.NewReader(bytes.NewReader(src))
								} else {
									err = zr.(zlib.Resetter).Reset(bytes.NewReader(src), nil)
								}
								start := len(out)
								out = out[:start+int(bl.UncompressedSize)]
								if err == nil {
									_, err = io.ReadFull(zr, out[start:])
								}
								if err != nil {
									b.Error(err)
									return
								}
							}
							if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)+".bin"), out[:ch.Size], 0o644); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkReadChunkAll reads every chunk into memory through ReadChunk,
// one goroutine: decoding cost without files.
func BenchmarkReadChunkAll(b *testing.B) {
	c := tcOpen(b, tcZlib, nil)
	b.SetBytes(tcTotal(c))
	b.ReportAllocs()
	for b.Loop() {
		for i := range c.Chunks() {
			data, err := c.ReadChunk(i)
			if err != nil {
				b.Fatal(err)
			}
			tcSink = data
		}
	}
}
