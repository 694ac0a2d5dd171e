package iostore

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/unrmod/unrmod/internal/safefile"
	"github.com/unrmod/unrmod/iostore/zen"
)

// DefaultBlockSize is the engine's default compression block size (64 KiB).
const DefaultBlockSize = 0x10000

// WriterOptions configures a Writer. The zero value writes an uncompressed
// UE 5.5+ container (TOC version 8) with 64 KiB blocks.
type WriterOptions struct {
	// Version is the TOC version to write: VersionPartitionSize (3) for UE
	// 4.27 (Grounded), VersionDirectoryIndex (2) for 4.26, 5 for UE
	// 5.0–5.3, 6 for 5.4, 8 for 5.5–5.8. 0 means 8. The version also
	// selects the chunk-meta hash: SHA-1 before UE5, BLAKE3-160 after.
	Version TocVersion
	// ContainerID is the container's id; 0 derives it from the output's
	// base name, as the engine does (zen.ContainerIDFromName).
	ContainerID zen.ContainerID
	// BlockSize is the compression block size; 0 means 64 KiB.
	BlockSize uint32
	// Method is the compression method of new blocks: "None" (or ""),
	// "Zlib", "Gzip", "LZ4" or one registered with RegisterCompressor.
	// Blocks that do not shrink are stored uncompressed, and the container
	// header and memory-mapped chunks are never compressed.
	Method string
	// Level is the Zlib/Gzip compression level; 0 means DefaultCompression.
	Level int
	// Key encrypts the blocks and the directory index with AES-256-ECB;
	// KeyGUID is the GUID the game knows the key by (zero: the default key).
	Key     *Key
	KeyGUID GUID
	// PartitionSize splits the .ucas into NAME.ucas, NAME_s1.ucas, … of at
	// most this many bytes (TOC version 3+); 0 writes one file.
	PartitionSize uint64
	// PerfectHash writes perfect-hash seeds (TOC version 4+), so that the
	// engine finds chunks without a map; the TOC order then follows the
	// hash slots.
	PerfectHash bool
	// MountPoint is the directory-index mount point, e.g.
	// "../../../Maine/Content/"; "" takes the longest common directory of
	// the chunk paths, as the engine does. Paths given to AddChunk are
	// relative to "../../../" (the game's root), e.g.
	// "Maine/Content/Data/DT_Items.uasset".
	MountPoint string
	// Workers is the number of blocks compressed at once; 0 means
	// GOMAXPROCS.
	Workers int
	// Progress, when set, is called from one goroutine with the number of
	// uncompressed bytes placed since the previous call.
	Progress func(n int64)
	// Verify selects the check of the staged output before it replaces
	// anything: VerifyWritten (the default) re-reads the TOC and every
	// chunk written from data, and the structure of copied chunks;
	// VerifyAll decodes every chunk; VerifyStructure reads no block.
	Verify VerifyLevel
	// Session, when set, locks the output's .utoc, first .ucas and
	// companion files from NewWriter (CreateCompanion) until Commit or
	// Abort, and tracks the staged files, which an interrupt removes.
	Session *safefile.Session
}

// VerifyLevel says how much of its output a Writer checks before it
// renames the files into place.
type VerifyLevel uint8

const (
	// VerifyWritten decodes and hashes the chunks written from data and
	// checks the structure of everything else.
	VerifyWritten VerifyLevel = iota
	// VerifyAll decodes and hashes every chunk, copied ones too.
	VerifyAll
	// VerifyStructure checks the TOC, directory index and container
	// header only.
	VerifyStructure
)

// ChunkHeader describes a chunk given to AddChunkHeader.
type ChunkHeader struct {
	ID ChunkID
	// Path is where the directory index lists the chunk, relative to the
	// game's root ("Maine/Content/Data/DT_Items.uasset"); "" lists it
	// nowhere (the container header, shader code).
	Path string
	// Uncompressed stores the chunk's blocks uncompressed whatever the
	// container's method. The container header and memory-mapped chunks
	// always are.
	Uncompressed bool
	// MemoryMapped sets the chunk meta's memory-mapped flag.
	MemoryMapped bool
}

// Writer writes an IoStore container: the .utoc, its .ucas partitions and
// nothing else (the companion .pak is the caller's, see package pak).
// Chunks are added one after another with AddChunk (compressed and hashed
// in parallel, in blocks) or CopyChunk (the stored blocks of another
// container, verbatim). Close lays out the TOC, checks the output and
// renames every file into place together; until then no file under the
// output's name changes, and a failed write leaves none.
//
// Memory stays bounded by the blocks in flight (a few per worker),
// whatever the container's size. A Writer is not safe for concurrent use.
type Writer struct {
	path string // the .utoc
	opts WriterOptions
	bs   uint64

	batch safefile.Batch
	locks []*safefile.Locks
	parts []*os.File // staged partitions
	sizes []uint64   // bytes written to each partition

	compressors map[string]Compressor
	methods     []string // names of methods 1..n
	method      uint8    // method index of new blocks, 0 = None

	chunks  []wchunk
	byID    map[ChunkID]int
	blocks  []CompressionBlock
	virt    uint64 // next free virtual offset
	pending int    // blocks submitted

	work    chan *job
	queue   chan *job
	placed  chan struct{} // closed when the placer returns
	wg      sync.WaitGroup
	bufPool sync.Pool
	errMu   sync.Mutex
	err     error // first pipeline error
	closed  bool

	entries []zen.StoreEntry
	header  *zen.ContainerHeader // template for the built container header

	base    *TOC // preserve layout: the source TOC the output keeps
	changed bool // preserve layout: a chunk was replaced, removed or added
	staged  bool // Stage succeeded
}

// wchunk is one chunk as written.
type wchunk struct {
	ChunkHeader
	off, size  uint64
	first, n   int // blocks
	meta       ChunkMeta
	copied     bool
	metaKnown  bool // meta hash copied from the source
	headerType bool
	removed    bool // preserve layout: left out of the output
	kept       bool // preserve layout: the source's blocks, where they were
}

// job is one block on its way through the pipeline.
type job struct {
	raw      []byte // uncompressed (compress) or already compressed bytes
	out      []byte
	usize    uint32
	method   uint8
	compress bool
	done     chan struct{}
	err      error
	buf      *[]byte // pooled buffer behind raw, returned after placing
}

// NewWriter starts a container whose .utoc is utocPath (the .ucas
// partitions go beside it). Nothing is written under those names before
// Close succeeds.
func NewWriter(utocPath string, opts *WriterOptions) (*Writer, error) {
	if !strings.EqualFold(filepath.Ext(utocPath), ".utoc") {
		return nil, fmt.Errorf("%s: the output of a container must end in .utoc", utocPath)
	}
	w := &Writer{path: utocPath, byID: map[ChunkID]int{}, compressors: map[string]Compressor{}}
	if opts != nil {
		w.opts = *opts
	}
	o := &w.opts
	if o.Version == 0 {
		o.Version = VersionReplaceIoChunkHashWithIoHash
	}
	switch {
	case !o.Version.Known():
		return nil, fmt.Errorf("%s: TOC version %d is not one unrmod knows (1-%d; the engines' releases write 2 for UE 4.26, 3 for 4.27, 5 for 5.0–5.3, 6 for 5.4 and 8 for 5.5–5.8)", utocPath, o.Version, LatestVersion)
	case o.PartitionSize > 0 && !o.Version.HasPartitions():
		return nil, fmt.Errorf("%s: TOC version %d has no partitions", utocPath, o.Version)
	case o.PerfectHash && !o.Version.HasPerfectHash():
		return nil, fmt.Errorf("%s: TOC version %d has no perfect-hash seeds", utocPath, o.Version)
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.BlockSize > maxBlockSize || o.BlockSize%16 != 0 {
		return nil, fmt.Errorf("%s: block size %d must be a multiple of 16 up to %d", utocPath, o.BlockSize, maxBlockSize)
	}
	if o.PartitionSize > 0 && o.PartitionSize < uint64(o.BlockSize) {
		return nil, fmt.Errorf("%s: partition size %d is smaller than a block (%d bytes)", utocPath, o.PartitionSize, o.BlockSize)
	}
	if o.Level == 0 {
		o.Level = DefaultCompression
	}
	if o.ContainerID == 0 {
		base := strings.TrimSuffix(filepath.Base(utocPath), filepath.Ext(utocPath))
		o.ContainerID = zen.ContainerIDFromName(base)
	}
	o.Workers = workerCount(o.Workers, math.MaxInt)
	w.bs = uint64(o.BlockSize)
	w.bufPool.New = func() any { b := make([]byte, 0, w.bs); return &b }
	w.batch.Session = o.Session
	if err := w.lock(utocPath, PartitionPath(utocPath, 0)); err != nil {
		return nil, err
	}
	return w, nil
}

// lock locks output files for the Writer's Session.
func (w *Writer) lock(paths ...string) error {
	uses := make([]safefile.Use, len(paths))
	for i, p := range paths {
		uses[i] = safefile.Use{Path: p, Write: true}
	}
	l, err := w.opts.Session.Lock(uses...)
	if err != nil {
		return err
	}
	w.locks = append(w.locks, l)
	return nil
}

// unlock releases the Writer's locks.
func (w *Writer) unlock() {
	for _, l := range w.locks {
		l.Release()
	}
	w.locks = nil
}

// RegisterCompressor makes c the compressor of the named method for this
// Writer, e.g. an Oodle binding of the caller's own; it replaces a built-in
// one. Register before the first AddChunk.
func (w *Writer) RegisterCompressor(method string, c Compressor) {
	w.compressors[strings.ToLower(method)] = c
}

// start sets the method and starts the pipeline on first use.
func (w *Writer) start() error {
	if w.work != nil {
		return w.firstErr()
	}
	if m := w.opts.Method; m != "" && codecOf(m) != codecNone {
		c := w.compressors[strings.ToLower(m)]
		if c == nil {
			c = builtinCompressor(m, w.opts.Level)
		}
		if c == nil {
			return unknownMethod(m)
		}
		w.compressors[strings.ToLower(m)] = c
		w.method = w.methodIndex(canonicalMethod(m))
	}
	if err := w.newPartition(); err != nil {
		return err
	}
	n := w.opts.Workers
	w.work = make(chan *job, n)
	w.queue = make(chan *job, 2*n)
	w.placed = make(chan struct{})
	for range n {
		w.wg.Add(1)
		go w.worker()
	}
	go w.placer()
	return nil
}

// methodIndex returns the block method index of name, adding it.
func (w *Writer) methodIndex(name string) uint8 {
	if codecOf(name) == codecNone {
		return 0
	}
	for i, m := range w.methods {
		if strings.EqualFold(m, name) {
			return uint8(i + 1)
		}
	}
	w.methods = append(w.methods, name)
	return uint8(len(w.methods))
}

func (w *Writer) fail(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.errMu.Unlock()
}

func (w *Writer) firstErr() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// newPartition stages the next .ucas partition.
func (w *Writer) newPartition() error {
	if len(w.parts) >= maxPartitions {
		return fmt.Errorf("%s: more than %d partitions", w.path, maxPartitions)
	}
	f, err := w.batch.Create(PartitionPath(w.path, len(w.parts)), 0o644)
	if err != nil {
		return err
	}
	w.parts = append(w.parts, f)
	w.sizes = append(w.sizes, 0)
	return nil
}

// worker compresses, pads and encrypts blocks.
func (w *Writer) worker() {
	defer w.wg.Done()
	for j := range w.work {
		j.err = w.encodeBlock(j)
		close(j.done)
	}
}

// encodeBlock turns j.raw into the stored bytes j.out.
func (w *Writer) encodeBlock(j *job) error {
	stored := j.raw
	if j.compress && w.method != 0 {
		c := w.compressors[strings.ToLower(w.methods[w.method-1])]
		out, err := c(nil, j.raw)
		if err != nil {
			return fmt.Errorf("compress a block with %s: %w", w.methods[w.method-1], err)
		}
		if len(out) < len(j.raw) {
			stored, j.method = out, w.method
		}
	}
	padded := int(align16(uint64(len(stored))))
	out := make([]byte, padded)
	copy(out, stored)
	// The engine's pad repeats the block from its start.
	for i := len(stored); i < padded; i++ {
		out[i] = stored[(i-len(stored))%len(stored)]
	}
	if w.opts.Key != nil {
		newECB(*w.opts.Key).encrypt(out)
	}
	j.out = out[:len(stored):padded]
	return nil
}

// placer writes the blocks in order and records their entries.
func (w *Writer) placer() {
	defer close(w.placed)
	var progress int64
	for j := range w.queue {
		<-j.done
		if j.buf != nil {
			w.bufPool.Put(j.buf)
			j.buf = nil
		}
		if j.err != nil {
			w.fail(j.err)
			continue
		}
		if w.firstErr() != nil {
			continue
		}
		if err := w.place(j); err != nil {
			w.fail(err)
			continue
		}
		if w.opts.Progress != nil {
			progress += int64(j.usize)
			if progress >= 1<<20 {
				w.opts.Progress(progress)
				progress = 0
			}
		}
	}
	if w.opts.Progress != nil && progress > 0 {
		w.opts.Progress(progress)
	}
}

// place appends one block to the current partition.
func (w *Writer) place(j *job) error {
	padded := uint64(cap(j.out))
	p := len(w.parts) - 1
	if ps := w.opts.PartitionSize; ps > 0 && w.sizes[p]+padded > ps {
		if err := w.newPartition(); err != nil {
			return err
		}
		p++
	}
	off := w.sizes[p]
	if _, err := w.parts[p].Write(j.out[:padded]); err != nil {
		return fmt.Errorf("write %s: %w", PartitionPath(w.path, p), err)
	}
	w.sizes[p] += padded
	if ps := w.opts.PartitionSize; ps > 0 {
		off += uint64(p) * ps
	}
	if off > max40 {
		return fmt.Errorf("%s: the container passes the 1 TiB the 40-bit block offsets reach", w.path)
	}
	w.blocks = append(w.blocks, CompressionBlock{Offset: off, CompressedSize: uint32(len(j.out)), UncompressedSize: j.usize, Method: j.method})
	return nil
}

// submit sends one block down the pipeline, in order.
func (w *Writer) submit(j *job) {
	j.done = make(chan struct{})
	w.pending++
	w.queue <- j
	w.work <- j
}

// AddChunk adds a chunk read from r, listed at path in the directory index
// ("" for none). See AddChunkHeader.
func (w *Writer) AddChunk(id ChunkID, path string, r io.Reader) error {
	return w.AddChunkHeader(&ChunkHeader{ID: id, Path: path}, r)
}

// AddChunkHeader adds a chunk read from r to its end: cut into blocks,
// compressed and encrypted by the workers while r is read and hashed.
func (w *Writer) AddChunkHeader(h *ChunkHeader, r io.Reader) error {
	c, err := w.newChunk(h)
	if err != nil {
		return err
	}
	if err := w.fill(c, r); err != nil {
		return err
	}
	w.commitChunk(c)
	return w.firstErr()
}

// fill reads c's data from r and submits its blocks.
func (w *Writer) fill(c *wchunk, r io.Reader) error {
	hs := w.newHasher()
	compress := !(c.Uncompressed || c.MemoryMapped || c.headerType)
	for {
		bp := w.bufPool.Get().(*[]byte)
		buf := (*bp)[:w.bs]
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			hs.Write(buf[:n])
			c.size += uint64(n)
			c.n++
			w.submit(&job{raw: buf[:n], usize: uint32(n), compress: compress, buf: bp})
		} else {
			w.bufPool.Put(bp)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			err := fmt.Errorf("%s: read chunk %v: %w", w.path, c.ID, rerr)
			w.fail(err) // its first blocks are on their way: the container cannot be finished
			return err
		}
		if c.size > max40 {
			err := fmt.Errorf("%s: chunk %v is larger than the 40-bit length field allows", w.path, c.ID)
			w.fail(err)
			return err
		}
	}
	copy(c.meta.Hash[:20], hs.Sum(nil)) // 20 bytes, the rest zero as the engine writes
	return nil
}

// newChunk checks h and starts its chunk.
func (w *Writer) newChunk(h *ChunkHeader) (*wchunk, error) {
	if w.closed {
		return nil, errors.New("iostore: write to a closed Writer")
	}
	if err := w.start(); err != nil {
		return nil, err
	}
	if _, dup := w.byID[h.ID]; dup {
		return nil, fmt.Errorf("%s: chunk %v is added twice", w.path, h.ID)
	}
	if h.Path != "" {
		if err := safeRelPath(h.Path); err != nil {
			return nil, fmt.Errorf("%s: chunk %v: path %q: %w", w.path, h.ID, h.Path, err)
		}
	}
	c := &wchunk{ChunkHeader: *h, off: w.virt, first: w.pending}
	c.headerType = h.ID.Type(w.opts.Version) == ChunkContainerHeader
	if h.MemoryMapped {
		c.meta.Flags |= MetaMemoryMapped
	}
	return c, nil
}

// commitChunk records a chunk whose blocks were all submitted.
func (w *Writer) commitChunk(c *wchunk) {
	w.byID[c.ID] = len(w.chunks)
	w.chunks = append(w.chunks, *c)
	w.virt += (c.size + w.bs - 1) / w.bs * w.bs
}

// newHasher returns the chunk-meta hash of the TOC version.
func (w *Writer) newHasher() hash.Hash {
	if w.opts.Version.ChunkHash() == HashSHA1 {
		return sha1.New()
	}
	return blake3.New()
}

// AddCompressedChunk adds a chunk whose blocks the caller compressed:
// blocks[k] is block k as stored before padding and encryption, compressed
// with method ("None" for a block stored as it is), and data is the
// chunk's uncompressed content, which gives the block sizes and the chunk
// hash. The blocks are padded and encrypted like any other; they are not
// decoded, so a caller can store the output of a compressor the Writer
// does not have.
func (w *Writer) AddCompressedChunk(h *ChunkHeader, method string, blocks [][]byte, data []byte) error {
	c, err := w.newChunk(h)
	if err != nil {
		return err
	}
	if n := (uint64(len(data)) + w.bs - 1) / w.bs; uint64(len(blocks)) != n {
		return fmt.Errorf("%s: chunk %v: %d stored blocks for %d bytes of data in %d-byte blocks (%d blocks)", w.path, h.ID, len(blocks), len(data), w.bs, n)
	}
	m := w.methodIndex(canonicalMethod(method))
	for k, b := range blocks {
		if len(b) == 0 || uint64(len(b)) > w.bs {
			return fmt.Errorf("%s: chunk %v: stored block %d is %d bytes (1 to %d)", w.path, h.ID, k, len(b), w.bs)
		}
		size := min(w.bs, uint64(len(data))-uint64(k)*w.bs)
		c.n++
		c.size += size
		w.submit(&job{raw: b, usize: uint32(size), method: m})
	}
	sum := HashChunk(w.opts.Version, data)
	copy(c.meta.Hash[:20], sum[:])
	c.copied = true // stored as given: the check does not decode it
	w.commitChunk(c)
	return w.firstErr()
}

// CopyChunk adds chunk i of src with its stored blocks as they are: no
// decompression and no recompression, so blocks of any method (Oodle
// included) are copied. Blocks are decrypted with src's key and encrypted
// with the Writer's. path is where the directory index lists the chunk
// ("" for none). The block sizes of src and the Writer must match.
func (w *Writer) CopyChunk(src *Container, i int, path string) error {
	if i < 0 || i >= len(src.chunks) {
		return fmt.Errorf("%s: chunk %d out of range", src.file, i)
	}
	sc := &src.chunks[i]
	sh := src.Header()
	if sh.CompressionBlockSize != w.opts.BlockSize {
		return fmt.Errorf("%s: cannot copy the blocks of %s as they are: its block size is %d, the output's %d", w.path, src.file, sh.CompressionBlockSize, w.opts.BlockSize)
	}
	if sh.Version.UsesUE5ChunkTypes() != w.opts.Version.UsesUE5ChunkTypes() {
		return fmt.Errorf("%s: cannot copy chunks of %s (TOC version %d) into TOC version %d: their chunk types are numbered differently", w.path, src.file, sh.Version, w.opts.Version)
	}
	c, err := w.newChunk(&ChunkHeader{ID: sc.ID, Path: path, MemoryMapped: sc.Meta.Flags&MetaMemoryMapped != 0})
	if err != nil {
		return err
	}
	c.copied = true
	if sh.Version.ChunkHash() == w.opts.Version.ChunkHash() {
		c.meta.Hash = sc.Meta.Hash
		c.metaKnown = true
	}
	hs := w.newHasher()
	for k := sc.FirstBlock; k < sc.FirstBlock+sc.NumBlocks; k++ {
		b := src.toc.Blocks[k]
		raw, err := src.storedPlain(k)
		if err != nil {
			w.fail(err)
			return err
		}
		m := w.methodIndex(src.toc.MethodName(b.Method))
		if !c.metaKnown {
			plain, err := src.ReadBlock(k)
			if err != nil {
				err = fmt.Errorf("%s: the TOC version changes the chunk hash, and block %d of chunk %v cannot be decoded to hash it: %w", w.path, k, sc.ID, err)
				w.fail(err)
				return err
			}
			hs.Write(plain)
		}
		c.size += uint64(b.UncompressedSize)
		c.n++
		w.submit(&job{raw: raw, usize: b.UncompressedSize, method: m})
	}
	if c.size != sc.Size {
		w.fail(errors.New("a copied chunk's size disagrees with its blocks"))
		return fmt.Errorf("%s: chunk %v: its blocks hold %d bytes, the TOC says %d", src.file, sc.ID, c.size, sc.Size)
	}
	if !c.metaKnown {
		copy(c.meta.Hash[:20], hs.Sum(nil)) // 20 bytes, the rest zero as the engine writes
	}
	w.commitChunk(c)
	return w.firstErr()
}

// AddStoreEntry adds a package's entry to the container header that Close
// builds (see SetContainerHeader).
func (w *Writer) AddStoreEntry(e zen.StoreEntry) { w.entries = append(w.entries, e) }

// SetContainerHeader makes Close write a container-header chunk: h gives
// its version and anything beyond the store entries (localized packages,
// redirects, …); its container id and packages are set by Close from the
// Writer's id and AddStoreEntry, sorted by package id as the engine's
// writer does.
func (w *Writer) SetContainerHeader(h *zen.ContainerHeader) { w.header = h }

// Abort stops the Writer and removes every staged file.
func (w *Writer) Abort() {
	if !w.closed {
		w.closed = true
		w.stop()
	}
	w.batch.Abort()
	w.unlock()
}

// stop drains the pipeline.
func (w *Writer) stop() {
	if w.work == nil {
		return
	}
	close(w.work)
	close(w.queue)
	w.wg.Wait()
	<-w.placed
}

// Close finishes the container: the container header (when set), the
// directory index, perfect-hash seeds, chunk metas and the TOC; it then
// re-reads the staged files, checks them (WriterOptions.Verify) and renames
// them into place, with any companion files. On any error nothing is
// renamed and the staged files are removed.
func (w *Writer) Close() error {
	if err := w.Stage(); err != nil {
		return err
	}
	return w.Commit()
}

// Stage does all of Close but the renames: the output is complete and
// checked under temporary names. Commit renames it into place; Abort
// removes it. A caller that writes several outputs stages them all first.
func (w *Writer) Stage() (err error) {
	if w.closed {
		return errors.New("iostore: Writer closed twice")
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if err := w.start(); err != nil {
		return err
	}
	if w.header != nil {
		if err := w.addContainerHeader(); err != nil {
			return err
		}
	}
	w.closed = true
	w.stop()
	if err := w.firstErr(); err != nil {
		return err
	}
	build := w.buildTOC
	if w.base != nil {
		build = w.buildPreserved
	}
	toc, err := build()
	if err != nil {
		return err
	}
	data, err := toc.AppendBinary(nil)
	if err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	if err := w.check(data); err != nil {
		return err
	}
	f, err := w.batch.Create(w.path, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	w.staged = true
	return nil
}

// Commit renames the staged output into place (see Stage) and removes
// partitions an earlier container of the same name had beyond this one's.
func (w *Writer) Commit() error {
	if !w.staged {
		return errors.New("iostore: Commit before Stage")
	}
	defer w.unlock()
	stale := w.stalePartitions()
	if err := w.batch.Commit(); err != nil {
		return err
	}
	for _, s := range stale {
		os.Remove(s)
	}
	return nil
}

// Unchanged reports whether the staged output (see Stage) is, byte for
// byte, the container it would replace, so that Commit would change
// nothing: an earlier run wrote it.
func (w *Writer) Unchanged() bool {
	return w.staged && len(w.stalePartitions()) == 0 && w.batch.Unchanged()
}

// CreateCompanion stages another file, such as the container's .pak, to be
// renamed into place together with the container by Commit (or removed by
// Abort). The Writer owns the file: do not close it.
func (w *Writer) CreateCompanion(path string) (*os.File, error) {
	if err := w.lock(path); err != nil {
		return nil, err
	}
	return w.batch.Create(path, 0o644)
}

// stalePartitions lists NAME_sN.ucas files beyond the ones written, left
// by an earlier container of the same name: they would be read as part of
// this one.
func (w *Writer) stalePartitions() []string {
	var out []string
	for i := len(w.parts); ; i++ {
		p := PartitionPath(w.path, i)
		if _, err := os.Stat(p); err != nil {
			return out
		}
		out = append(out, p)
	}
}

// addContainerHeader encodes the container header and adds its chunk.
func (w *Writer) addContainerHeader() error {
	h := *w.header
	h.ContainerID = w.opts.ContainerID
	h.Packages = append([]zen.StoreEntry(nil), w.entries...)
	sort.SliceStable(h.Packages, func(a, b int) bool { return h.Packages[a].PackageID < h.Packages[b].PackageID })
	for k := 1; k < len(h.Packages); k++ {
		if h.Packages[k].PackageID == h.Packages[k-1].PackageID {
			return fmt.Errorf("%s: package %v is stored twice", w.path, h.Packages[k].PackageID)
		}
	}
	data, err := h.Encode()
	if err != nil {
		return fmt.Errorf("%s: container header: %w", w.path, err)
	}
	id, err := NewChunkID(uint64(w.opts.ContainerID), 0, ChunkContainerHeader, w.opts.Version)
	if err != nil {
		return err
	}
	return w.AddChunkHeader(&ChunkHeader{ID: id, Uncompressed: true}, strings.NewReader(string(data)))
}

// buildTOC lays out the TOC of what was written.
func (w *Writer) buildTOC() (*TOC, error) {
	o := &w.opts
	t := &TOC{File: w.path}
	h := &t.Header
	h.Version = o.Version
	h.TocHeaderSize = HeaderSize
	h.TocCompressedBlockEntrySize = blockEntrySize
	h.CompressionMethodNameLength = methodNameSize
	h.CompressionBlockSize = o.BlockSize
	h.ContainerID = o.ContainerID
	h.EncryptionKeyGUID = o.KeyGUID
	h.PartitionCount = 1
	h.PartitionSize = unlimitedPartition
	if o.PartitionSize > 0 {
		h.PartitionCount, h.PartitionSize = uint32(len(w.parts)), o.PartitionSize
	}
	if len(w.methods) > 0 || codecOf(o.Method) != codecNone {
		h.ContainerFlags |= FlagCompressed
	}
	if o.Key != nil {
		h.ContainerFlags |= FlagEncrypted
	}
	t.Methods = w.methods
	t.Blocks = w.blocks
	n := len(w.chunks)
	t.ChunkIDs = make([]ChunkID, n)
	t.OffsetLengths = make([]OffsetLength, n)
	t.Metas = make([]ChunkMeta, n)
	var paths []string
	for i := range w.chunks {
		c := &w.chunks[i]
		t.ChunkIDs[i] = c.ID
		t.OffsetLengths[i] = OffsetLength{Offset: c.off, Length: c.size}
		m := c.meta
		for k := c.first; k < c.first+c.n; k++ {
			if w.blocks[k].Method != 0 {
				m.Flags |= MetaCompressed
			}
		}
		t.Metas[i] = m
		if c.Path != "" {
			paths = append(paths, "../../../"+c.Path)
		}
	}
	if w.virt > max40 {
		return nil, fmt.Errorf("%s: the chunks pass the 1 TiB the 40-bit offsets reach", w.path)
	}
	mount := o.MountPoint
	if mount == "" && len(paths) > 0 {
		mount = CommonMountPoint(paths)
	}
	live := make([]int, n)
	for i := range live {
		live[i] = i
	}
	if err := w.finishTOC(t, live, o.PerfectHash, mount); err != nil {
		return nil, err
	}
	return t, nil
}

// finishTOC gives t, whose chunk at position p is w.chunks[live[p]], its
// perfect-hash tables (when hash is set: the chunks then move to their
// slots) and the directory index of the chunks' paths under mount.
func (w *Writer) finishTOC(t *TOC, live []int, hash bool, mount string) error {
	pos := make([]int, len(live)) // pos[p]: final TOC position of the chunk at p
	for p := range pos {
		pos[p] = p
	}
	t.PerfectHashSeeds, t.ChunksWithoutPerfectHash = nil, nil
	if hash && len(live) > 0 {
		perm, err := t.ApplyPerfectHash()
		if err != nil {
			return fmt.Errorf("%s: %w", w.path, err)
		}
		pos = perm
	}
	t.DirectoryIndex = nil
	t.Header.ContainerFlags &^= FlagIndexed
	if !t.Header.Version.HasDirectoryIndex() { // version 1 has no directory index
		return nil
	}
	if mount != "" && !strings.HasSuffix(mount, "/") {
		mount += "/"
	}
	var files []IndexedFile
	for p, i := range live {
		c := &w.chunks[i]
		if c.Path == "" {
			continue
		}
		rel, ok := strings.CutPrefix("../../../"+c.Path, mount)
		if !ok || rel == "" {
			return fmt.Errorf("%s: chunk %v: path %s is not under the mount point %s", w.path, c.ID, c.Path, mount)
		}
		files = append(files, IndexedFile{Path: rel, Chunk: uint32(pos[p])})
	}
	if len(files) == 0 {
		return nil
	}
	index, err := w.encodeIndex(mount, files)
	if err != nil {
		return err
	}
	t.DirectoryIndex = index
	t.Header.ContainerFlags |= FlagIndexed
	return nil
}

// encodeIndex builds and encodes the directory index, padded and
// encrypted when the container is.
func (w *Writer) encodeIndex(mount string, files []IndexedFile) ([]byte, error) {
	x, err := NewDirectoryIndex(mount, files)
	if err != nil {
		return nil, fmt.Errorf("%s: directory index: %w", w.path, err)
	}
	index, err := x.AppendBinary(nil)
	if err != nil {
		return nil, fmt.Errorf("%s: directory index: %w", w.path, err)
	}
	if k := w.opts.Key; k != nil {
		padded := make([]byte, align16(uint64(len(index))))
		copy(padded, index)
		for i := len(index); i < len(padded); i++ {
			padded[i] = index[(i-len(index))%len(index)]
		}
		newECB(*k).encrypt(padded)
		index = padded
	}
	return index, nil
}

// check re-reads the staged output as a reader would and verifies it.
func (w *Writer) check(toc []byte) error {
	parts := make([]Partition, len(w.parts))
	for i, f := range w.parts {
		parts[i] = Partition{Name: PartitionPath(w.path, i), R: f, Size: int64(w.sizes[i])}
	}
	c, err := OpenReaders(w.path, toc, parts, &Options{Key: w.opts.Key})
	if err != nil {
		return fmt.Errorf("the written container does not read back: %w", err)
	}
	vo := &VerifyOptions{Workers: w.opts.Workers}
	switch w.opts.Verify {
	case VerifyStructure:
		vo.StructureOnly = true
	case VerifyWritten:
		vo.Skip = func(i int) bool {
			k, ok := w.byID[c.toc.ChunkIDs[i]]
			return ok && w.chunks[k].copied
		}
	}
	if r := c.Verify(vo); !r.OK() {
		var b strings.Builder
		for k, p := range r.Problems {
			if k == 10 {
				fmt.Fprintf(&b, "\n  … and %d more", len(r.Problems)-k)
				break
			}
			fmt.Fprintf(&b, "\n  %v", p)
		}
		return fmt.Errorf("%s: the written container fails verification, so nothing was written:%s", w.path, b.String())
	}
	return nil
}

// HashChunk returns the chunk-meta hash a container of TOC version v
// stores for a chunk holding data: SHA-1 before UE5, BLAKE3-160 after.
func HashChunk(v TocVersion, data []byte) [20]byte {
	if v.ChunkHash() == HashSHA1 {
		return sha1.Sum(data)
	}
	s := blake3.Sum256(data)
	return [20]byte(s[:20])
}
