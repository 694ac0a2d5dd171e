package iostore_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zlib"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
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

// tcBench is one container the extraction benchmarks run on.
type tcBench struct {
	name string
	// open returns the container and the path of its .utoc, skipping the
	// benchmark when the corpus is not available.
	open func(b *testing.B) (*iostore.Container, string)
	// cold drops the .ucas from the page cache before every run, so
	// that it is read from the disk, as when a game is first opened.
	cold bool
}

// prepare readies the next run: it evicts the container's .ucas files
// from the page cache for a cold benchmark. Call it with the timer
// stopped.
func (bc tcBench) prepare(b *testing.B, c *iostore.Container, utoc string) {
	if !bc.cold {
		return
	}
	for i := range c.Partitions() {
		if err := tcEvict(iostore.PartitionPath(utoc, i)); errors.Is(err, errors.ErrUnsupported) {
			b.Skip("cold benchmarks evict files from the page cache, which needs Linux")
		} else if err != nil {
			b.Fatal(err)
		}
	}
}

// tcCorpusBench benchmarks a container of the corpus.
func tcCorpusBench(name, rel string) tcBench {
	return tcBench{name: name, open: func(b *testing.B) (*iostore.Container, string) {
		return tcOpen(b, rel, nil), corpus.Path(b, rel)
	}}
}

// tcBenchContainers are the fixtures whose every chunk unrmod can decode
// (112 chunks of 22 KB on average, where the cost of creating files
// dominates), then the realistic containers (see tcRealistic), read from
// the page cache and, cold, from the disk.
var tcBenchContainers = []tcBench{
	tcCorpusBench("Uncompressed", tcUncompressed),
	tcCorpusBench("Zlib", tcZlib),
	{name: "Realistic-Zlib", open: tcRealisticZlib},
	{name: "Realistic-None", open: tcRealisticNone},
	{name: "Realistic-Zlib-Cold", open: tcRealisticZlib, cold: true},
	{name: "Realistic-None-Cold", open: tcRealisticNone, cold: true},
}

func tcRealisticZlib(b *testing.B) (*iostore.Container, string) { return tcRealistic(b, "Zlib") }
func tcRealisticNone(b *testing.B) (*iostore.Container, string) { return tcRealistic(b, "None") }

// tcTotal returns the uncompressed size of all chunks.
func tcTotal(c *iostore.Container) int64 {
	var n int64
	for _, ch := range c.Chunks() {
		n += int64(ch.Size)
	}
	return n
}

// tcRealisticStride keeps every tcRealisticStride-th chunk of the shipped
// game's TOC: 672 of its 5,370 chunks, 207 MiB, from 8 bytes to 21 MiB,
// and a container header listing the packages.
const tcRealisticStride = 8

var (
	tcRealisticOnce  sync.Once
	tcRealisticErr   error
	tcRealisticFiles map[string]tcBuilt // by method
)

// tcBuilt is a container built in memory.
type tcBuilt struct {
	toc []byte
	cas [][]byte
}

// tcRealistic returns a container shaped like a shipped game's, written
// into a temporary directory of the benchmark, and the path of its .utoc.
// Its chunks are every tcRealisticStride-th chunk of a real UE5 TOC
// (tcTocOnly8, whose .ucas is not in the corpus), with their ids, types
// and paths, so sizes, the mix of tiny and multi-megabyte chunks and the
// directory tree are the game's. Their bytes are real cooked data: the
// chunks of tcUncompressed cycled from a different start for each chunk,
// so no two chunks are alike. method is "Zlib" or "None"; TOC version 8,
// 64 KiB blocks. The containers are built once per process (compressing
// 207 MiB takes seconds), the first time a benchmark asks, and never by
// tests.
func tcRealistic(b *testing.B, method string) (*iostore.Container, string) {
	b.Helper()
	ninja := tcOpen(b, tcTocOnly8, nil)
	fixture := tcOpen(b, tcUncompressed, nil)
	library := tcRealisticLibrary(b)
	tcRealisticOnce.Do(func() {
		tcRealisticFiles, tcRealisticErr = tcBuildRealistic(ninja, fixture, library)
		// Return the building's garbage now rather than while timing.
		debug.FreeOSMemory()
	})
	if tcRealisticErr != nil {
		b.Fatal(tcRealisticErr)
	}
	built := tcRealisticFiles[method]
	utoc := filepath.Join(b.TempDir(), "Realistic-Windows.utoc")
	if err := tcWriteSynced(utoc, built.toc); err != nil {
		b.Fatal(err)
	}
	for i, p := range built.cas {
		if err := tcWriteSynced(iostore.PartitionPath(utoc, i), p); err != nil {
			b.Fatal(err)
		}
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c, utoc
}

// tcRealisticLibrary returns the shader library header the realistic
// container's library chunks hold: the corpus's library in its IoStore
// form.
func tcRealisticLibrary(tb testing.TB) []byte {
	tb.Helper()
	libs, _ := filepath.Glob(filepath.Join(corpus.Dir(tb), "other/ue5_shader_libraries/*.uzenshaderbytecode"))
	if len(libs) == 0 {
		tb.Skip("the corpus holds no shader library in its IoStore form")
	}
	library, err := os.ReadFile(libs[0])
	if err != nil {
		tb.Fatal(err)
	}
	return library
}

// tcWriteSynced writes a file and flushes it to storage, so that the disk
// does not write it back while a benchmark is timed.
func tcWriteSynced(name string, data []byte) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tcBuildRealistic builds the Zlib and None variants of the realistic
// container from the game's TOC and the fixture's chunks. Its package
// chunks are real zen packages (tcRealisticPackage) and its container
// header lists them, its shader library chunks hold library, a real
// library header in its IoStore form, and its shader groups bytes that do
// not compress (the library compresses them), so that Verify, the package
// benchmarks and an extract then pack see what a game's container holds.
func tcBuildRealistic(ninja, fixture *iostore.Container, library []byte) (map[string]tcBuilt, error) {
	var pool []byte
	var pkgs [][]byte
	for i, ch := range fixture.Chunks() {
		data, err := fixture.ReadChunk(i)
		if err != nil {
			return nil, err
		}
		pool = append(pool, data...)
		if ch.Type == iostore.ChunkExportBundleData {
			pkgs = append(pkgs, data)
		}
	}
	fh, err := fixture.ContainerHeader()
	if err != nil {
		return nil, err
	}
	v := ninja.Header().Version
	header := &zen.ContainerHeader{Version: fh.Version, ContainerID: ninja.Header().ContainerID}
	var chunks []iostorebuild.Chunk
	headerAt := -1
	for i := 0; i < len(ninja.Chunks()); i += tcRealisticStride {
		ch := ninja.Chunks()[i]
		id := ch.ID
		data := make([]byte, ch.Size)
		// A start that differs from chunk to chunk, and not only by a
		// multiple of a block, so that blocks differ too.
		start := int(uint64(i) * 2654435761 % uint64(len(pool)))
		for n, at := 0, start; n < len(data); at = 0 {
			n += copy(data[n:], pool[at:])
		}
		switch {
		case ch.Type == iostore.ChunkContainerHeader:
			headerAt = len(chunks)
		case ch.Type == iostore.ChunkShaderCodeLibrary:
			data = library
		case ch.Type == iostore.ChunkShaderCode:
			// A group of shaders is stored compressed by the library
			// itself: bytes no compressor shrinks, as in the game.
			rng := rand.NewChaCha8([32]byte{byte(i), byte(i >> 8), byte(i >> 16)})
			rng.Read(data)
		case ch.Type == iostore.ChunkExportBundleData && ch.ID.Index(v) == 0:
			p, err := tcRealisticPackage(pkgs[len(header.Packages)%len(pkgs)], ch.Path, data)
			if err != nil {
				return nil, err
			}
			if data, err = p.Encode(); err != nil {
				return nil, err
			}
			if id, err = iostore.NewChunkID(uint64(p.ID()), 0, iostore.ChunkExportBundleData, v); err != nil {
				return nil, err
			}
			e := zen.StoreEntry{PackageID: p.ID()}
			for _, n := range p.ImportedPackages {
				e.ImportedPackages = append(e.ImportedPackages, zen.PackageIDFromName(n.String()))
			}
			header.Packages = append(header.Packages, e)
		}
		chunks = append(chunks, iostorebuild.Chunk{
			ID:   id,
			Path: ch.Path,
			Data: data,
			// The cooker stores the container header uncompressed.
			Raw: ch.Type == iostore.ChunkContainerHeader,
		})
	}
	if headerAt < 0 {
		// The sample missed the game's header chunk: add it.
		hid, err := iostore.NewChunkID(uint64(header.ContainerID), 0, iostore.ChunkContainerHeader, v)
		if err != nil {
			return nil, err
		}
		headerAt = len(chunks)
		chunks = append(chunks, iostorebuild.Chunk{ID: hid, Raw: true})
	}
	if chunks[headerAt].Data, err = header.Encode(); err != nil {
		return nil, err
	}
	out := map[string]tcBuilt{}
	for _, method := range []string{"Zlib", "None"} {
		bc := &iostorebuild.Container{
			Version:     8,
			ContainerID: uint64(ninja.Header().ContainerID),
			MountPoint:  ninja.MountPoint(),
			Method:      method,
			Chunks:      chunks,
		}
		toc, cas, err := bc.Build()
		if err != nil {
			return nil, err
		}
		out[method] = tcBuilt{toc, cas}
	}
	return out, nil
}

// tcRealisticPackage returns the cooked package src renamed after the
// game's chunk path (WayOfTheNinja/Content/UI/W.uasset becomes /Game/UI/W,
// Engine/... /Engine/..., a plugin's content /Plugin/...) and, when the
// game's chunk (fill) is larger, with the export that ends the export data
// grown by fill's bytes to the game's size, so chunk sizes stay the game's.
func tcRealisticPackage(src []byte, chunkPath string, fill []byte) (*zen.Package, error) {
	p, err := zen.DecodePackage("fixture", src, nil)
	if err != nil {
		return nil, err
	}
	root, rest, ok := strings.Cut(strings.TrimSuffix(chunkPath, path.Ext(chunkPath)), "/Content/")
	if !ok {
		root, rest = "Game", chunkPath
	}
	switch {
	case root == "Engine":
	case !strings.Contains(root, "/"):
		root = "Game"
	default:
		root = path.Base(root)
	}
	name := []byte("/" + root + "/" + rest)
	for k, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			name[k] = '_'
		}
	}
	p.Names[p.Name.Index()] = string(name)
	last := 0
	for k := range p.Exports {
		if p.Exports[k].DataOffset > p.Exports[last].DataOffset {
			last = k
		}
	}
	if grow := len(fill) - len(src); grow > 0 && len(p.Exports) > 0 {
		e := &p.Exports[last]
		e.Data = append(e.Data[:len(e.Data):len(e.Data)], fill[:grow]...)
	}
	return p, nil
}

// tcBenchDir returns the directory benchmarks write into: a temporary
// directory, or one under $UNRMOD_BENCH_DIR (e.g. /dev/shm, to take the
// disk out of the measurement), removed when the benchmark ends.
func tcBenchDir(b *testing.B) string {
	d := os.Getenv("UNRMOD_BENCH_DIR")
	if d == "" {
		return b.TempDir()
	}
	base, err := os.MkdirTemp(d, "unrmod-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(base) })
	return base
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
			c, utoc := bc.open(b)
			base := tcBenchDir(b)
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				os.RemoveAll(filepath.Join(base, strconv.Itoa(n)))
				n++
				bc.prepare(b, c, utoc)
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
			c, utoc := bc.open(b)
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				bc.prepare(b, c, utoc)
				b.StartTimer()
				if r := c.Verify(nil); !r.OK() {
					b.Fatal(r.Problems)
				}
			}
		})
	}
}

// tcKlauspostBlock decodes the zlib block src into dst the way the
// baselines do, with klauspost/compress's reader (*zr, created on first
// use, then reset for each block).
func tcKlauspostBlock(zr *io.ReadCloser, src, dst []byte) error {
	var err error
	if *zr == nil {
		*zr, err = zlib.NewReader(bytes.NewReader(src))
	} else {
		err = (*zr).(zlib.Resetter).Reset(bytes.NewReader(src), nil)
	}
	if err == nil {
		_, err = io.ReadFull(*zr, dst)
	}
	return err
}

// BenchmarkBaselineReadDecompress is the floor Extract is measured
// against: read the whole .ucas once with os.ReadFile, then decompress
// every block with klauspost zlib on all cores, writing nothing. MB/s
// counts uncompressed bytes, as BenchmarkExtract does.
func BenchmarkBaselineReadDecompress(b *testing.B) {
	for _, bc := range tcBenchContainers {
		b.Run(bc.name, func(b *testing.B) {
			c, utoc := bc.open(b)
			blocks := c.TOC().Blocks
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			workers := runtime.GOMAXPROCS(0)
			for b.Loop() {
				b.StopTimer()
				bc.prepare(b, c, utoc)
				b.StartTimer()
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
							if err := tcKlauspostBlock(&zr, src, out[:bl.UncompressedSize]); err != nil {
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
			c, utoc := bc.open(b)
			blocks := c.TOC().Blocks
			base := tcBenchDir(b)
			b.SetBytes(tcTotal(c))
			b.ReportAllocs()
			workers := runtime.GOMAXPROCS(0)
			n := 0
			for b.Loop() {
				b.StopTimer()
				os.RemoveAll(filepath.Join(base, strconv.Itoa(n)))
				n++
				dir := filepath.Join(base, strconv.Itoa(n))
				bc.prepare(b, c, utoc)
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
								start := len(out)
								out = out[:start+int(bl.UncompressedSize)]
								if err := tcKlauspostBlock(&zr, src, out[start:]); err != nil {
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

// BenchmarkZenPackages decodes and verifies every package of the realistic
// container (336 real cooked packages, their chunks read into memory
// first, untimed): MB/s over the package chunks' bytes and packages per
// second, and cpu-MB/s, the same bytes over the CPU time the process used
// (which a busy machine does not lower). Decode is zen.DecodePackage
// (which checks that the package re-encodes to its bytes); DecodeVerify
// adds every check of verify, with the package's store entry; Encode
// re-encodes decoded packages; CopyBaseline copies the same bytes once.
func BenchmarkZenPackages(b *testing.B) {
	c, _ := tcRealisticNone(b)
	h, err := c.ContainerHeader()
	if err != nil {
		b.Fatal(err)
	}
	type pkg struct {
		data  []byte
		id    zen.PackageID
		entry *zen.StoreEntry
	}
	var pkgs []pkg
	var total int64
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		data, err := c.ReadChunk(i)
		if err != nil {
			b.Fatal(err)
		}
		id := ch.ID.PackageID()
		pk := pkg{data: data, id: id}
		if n := h.PackageIndex(id); n >= 0 {
			pk.entry = &h.Packages[n]
		}
		pkgs = append(pkgs, pk)
		total += int64(len(data))
	}
	if len(pkgs) < 300 {
		b.Fatalf("%d packages", len(pkgs))
	}
	// perSecond reports packages a second and, from the CPU time the
	// process used since cpu0 (taken before the loop), MB a second of CPU:
	// what a run costs whatever share of the cores other work leaves it.
	perSecond := func(b *testing.B, cpu0 time.Duration) {
		b.ReportMetric(float64(len(pkgs))*float64(b.N)/b.Elapsed().Seconds(), "pkgs/s")
		if cpu := tcCPUTime() - cpu0; cpu > 0 {
			b.ReportMetric(float64(total)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
		}
	}
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		cpu0 := tcCPUTime()
		for b.Loop() {
			for _, pk := range pkgs {
				p, err := zen.DecodePackage("bench", pk.data, nil)
				if err != nil {
					b.Fatal(err)
				}
				tcSink = p
			}
		}
		perSecond(b, cpu0)
	})
	b.Run("DecodeVerify", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		cpu0 := tcCPUTime()
		for b.Loop() {
			for _, pk := range pkgs {
				p, err := zen.DecodePackage("bench", pk.data, nil)
				if err != nil {
					b.Fatal(err)
				}
				if q := p.Problems(&zen.VerifyOptions{ChunkPackageID: pk.id, Entry: pk.entry}); len(q) > 0 {
					b.Fatal(q)
				}
			}
		}
		perSecond(b, cpu0)
	})
	b.Run("Encode", func(b *testing.B) {
		var decoded []*zen.Package
		for _, pk := range pkgs {
			p, err := zen.DecodePackage("bench", pk.data, nil)
			if err != nil {
				b.Fatal(err)
			}
			decoded = append(decoded, p)
		}
		b.SetBytes(total)
		b.ReportAllocs()
		var buf []byte
		cpu0 := tcCPUTime()
		for b.Loop() {
			for _, p := range decoded {
				if buf, err = p.AppendBinary(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		}
		perSecond(b, cpu0)
	})
	b.Run("CopyBaseline", func(b *testing.B) {
		b.SetBytes(total)
		var buf []byte
		cpu0 := tcCPUTime()
		for b.Loop() {
			for _, pk := range pkgs {
				buf = append(buf[:0], pk.data...)
			}
		}
		tcSink = buf
		perSecond(b, cpu0)
	})
}
