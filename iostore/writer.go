package iostore

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zeebo/blake3"
	"github.com/zeebo/xxh3"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// DefaultBlockSize is the engine's default compression block size (64 KiB).
const DefaultBlockSize = 0x10000

// GlobalContainerID is the container id the engine's packer leaves in the
// global container (global.utoc): FIoContainerId's invalid value, not a
// hash of the name. A Writer gives it to an output named global.utoc.
const GlobalContainerID zen.ContainerID = math.MaxUint64

// CheckBlockSize reports whether bs can be a container's compression block
// size: a power of two of at least 16 bytes whose blocks' sizes fit the
// 24-bit fields of a block entry. The engine's writer and readers round
// offsets to the block size with a mask (Align), so another size makes
// them misread the chunks.
func CheckBlockSize(bs uint32) error {
	if bs < 16 || bs > maxBlockSize || bs&(bs-1) != 0 {
		return fmt.Errorf("block size %d is not a power of two from 16 to %d: the engine aligns offsets to the block size with a mask, so it misreads any other size", bs, uint32(1)<<23)
	}
	return nil
}

// WriterOptions configures a Writer. The zero value writes an uncompressed
// UE 5.5+ container (TOC version 8) with 64 KiB blocks.
type WriterOptions struct {
	// Version is the TOC version to write: VersionPartitionSize (3) for UE
	// 4.27 (Grounded), VersionDirectoryIndex (2) for 4.26, 5 for UE
	// 5.0–5.3, 6 for 5.4, 8 for 5.5–5.8. 0 means 8. The version also
	// selects the chunk-meta hash: SHA-1 before UE5, BLAKE3-160 after.
	Version TocVersion
	// ContainerID is the container's id; 0 derives it from the output's
	// base name, as the engine does (zen.ContainerIDFromName), except for
	// the global container (global.utoc), which the engine writes with the
	// invalid id GlobalContainerID.
	ContainerID zen.ContainerID
	// BlockSize is the compression block size, a power of two (the
	// engine aligns offsets to it with a mask); 0 means 64 KiB.
	BlockSize uint32
	// Method is the compression method of new blocks: "None" (or ""),
	// "Zlib", "Gzip", "LZ4" or one added to Codecs.
	// Blocks that do not shrink are stored uncompressed, and the container
	// header, memory-mapped chunks and shader chunks (ShaderCodeLibrary,
	// ShaderCode) are never compressed.
	Method string
	// Level is the Zlib/Gzip compression level; 0 means
	// ue.DefaultCompression.
	Level int
	// Codecs are the compression methods the writer knows; nil means the
	// built-in ones. Add one unrmod lacks, e.g. an Oodle binding of your
	// own, with Codecs.Register.
	Codecs *ue.Codecs
	// Key encrypts the blocks and the directory index with AES-256-ECB;
	// KeyGUID is the GUID the game knows the key by (zero: the default key).
	Key     *ue.Key
	KeyGUID GUID
	// CTR encrypts with AES-256-CTR instead of ECB, as UE 6.0 can (TOC
	// version 10 and later): each block, and the directory index, with a
	// fresh random 12-byte IV the TOC records after the block entries.
	// Version 10 records the method in the header either way.
	CTR bool
	// PartitionSize splits the .ucas into NAME.ucas, NAME_s1.ucas, … of at
	// most this many bytes (TOC version 3+); 0 writes one file. As the
	// engine does, a chunk's blocks all go to one partition: a chunk that
	// does not fit in what is left of one starts the next, and a chunk
	// whose stored blocks exceed PartitionSize is refused.
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
	// anything: VerifyWritten (the default) re-reads the TOC and the stored
	// bytes of every chunk the Writer encoded, compared with sums of what
	// it encoded, decodes the packages among them, and checks the
	// structure of copied chunks (which CopyChunk checks against their
	// source's hashes as it copies them); VerifyAll also decodes and
	// hashes every chunk; VerifyStructure reads no block.
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
	// VerifyWritten reads back the stored bytes of the chunks the Writer
	// encoded and compares them with XXH3 sums of what it encoded (the
	// compressor's output), decodes and checks the package chunks among
	// them (up to 16 MiB) as zen packages, and checks the structure of
	// everything else.
	VerifyWritten VerifyLevel = iota
	// VerifyAll decodes and hashes every chunk, copied ones too, besides
	// the stored sums.
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
	// container's method. The container header, memory-mapped chunks and
	// shader chunks always are.
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
// Memory stays bounded by the blocks in flight (a few per worker, in
// pooled buffers) and a 1 MiB copy buffer, whatever the container's size;
// only the lists of chunks and blocks (24 bytes per block) grow. The output
// is handed to the system for writing back as it is written, so that
// little is left to sync when Stage does. A Writer is not safe for
// concurrent use.
type Writer struct {
	path string // the .utoc
	opts WriterOptions
	bs   uint64

	batch safefile.Batch
	locks []*safefile.Locks
	parts []*os.File // staged partitions
	sizes []uint64   // bytes written to each partition

	methods  []string       // names of methods 1..n
	method   uint8          // method index of new blocks, 0 = None
	compress ue.Compressor  // the compressor of method, set by start
	hasher   hash.Hash      // chunk hashes, see newHasher
	cipher   *ue.ECB        // encrypts blocks when opts.Key is set
	ivs      [][ivSize]byte // AES-CTR: the IV of each of blocks

	chunks  []wchunk
	byID    map[ChunkID]int
	blocks  []CompressionBlock
	sums    []blockSum // beside blocks: the sums of the blocks encoded here
	virt    uint64     // next free virtual offset
	pending int        // blocks submitted

	work    chan *job
	queue   chan *job
	placed  chan struct{} // closed when the placer returns
	wg      sync.WaitGroup
	bufPool sync.Pool // *[]byte of bufCap: blocks read, compressed, padded
	bufCap  int
	run     copyRun // placer: stored bytes still to copy
	copyBuf []byte  // copyInto's buffer, made on first use
	// The chunk being placed: its partition, where its stored bytes start
	// in it and its first block (placer); newChunk sets chunkStart for
	// the next job submitted.
	curPart    int
	curOff     uint64
	curBlock   int
	chunkStart bool
	// The last partition written to, the bytes written to it and how
	// many of them the system was asked to write back (see wrote).
	wbPart            int
	wbDone, wbStarted int64
	errMu             sync.Mutex
	err               error // first pipeline error
	closed            bool

	// Chunks copied from other containers are checked against their
	// source's chunk hashes by the workers (see checkCopied).
	noCheck bool // tests and benchmarks: copy unchecked
	// beforeCheck, set by tests, sees the staged partitions and block
	// entries before the check reads them back.
	beforeCheck func(parts []*os.File, blocks []CompressionBlock)
	unchecked   atomic.Int64   // copied chunks no decoder can check (Oodle)
	stopChecks  atomic.Bool    // set by Abort: skip the checks still queued
	checkWG     sync.WaitGroup // the goroutines hashing large chunks
	// CopyChunk queues the check of each chunk it copies for a goroutine
	// of its own, which hands it to the workers (see dispatchChecks): the
	// copy goes on while the workers decode, rather than wait for them.
	checks     chan copiedChunk
	dispatched chan struct{} // closed when dispatchChecks returns
	// The runs of blocks read once go from the placer, once written, to
	// a goroutine that hashes them in order (hashCopied); copyHash is the
	// hash of the chunk whose blocks it hashes, in copyScratch's hashers.
	hashq       chan *job
	hashed      chan struct{} // closed when hashCopied is through
	copyHash    *chunkHasher
	copyScratch *scratch
	runPool     sync.Pool // *[]byte of runCap: copiedRun's buffers
	runBlocks   int       // the most blocks of a copiedRun
	runCap      int

	entries []zen.StoreEntry
	header  *zen.ContainerHeader // template for the built container header

	base    *TOC   // preserve layout: the source TOC the output keeps
	changed bool   // preserve layout: a chunk was replaced, removed or added
	staged  bool   // Stage succeeded
	toc     []byte // the staged .utoc's bytes
}

// wchunk is one chunk as written.
type wchunk struct {
	ChunkHeader
	off, size uint64
	first, n  int // blocks
	meta      ChunkMeta
	copied    bool
	// stored is the chunk's stored sum (see storedSum), set by Stage
	// when every block of the chunk was encoded by the Writer (storedOK):
	// the check then reads the stored bytes back and compares their sum
	// rather than decoding them.
	stored    uint64
	storedOK  bool
	metaKnown bool // meta hash copied from the source
	storedRaw bool // a chunk the engine stores uncompressed (storedRaw)
	removed   bool // preserve layout: left out of the output
}

// job is one block on its way through the pipeline, read and encoded
// (compressed, padded, encrypted) into out by a worker, or a run of blocks
// another container stores as the Writer would, for the placer to copy.
type job struct {
	raw      []byte       // uncompressed (compress) or already compressed bytes
	out      []byte       // the stored bytes, padded to 16
	iv       [ivSize]byte // AES-CTR: the IV out is encrypted with
	size     uint32       // the stored size without the pad
	usize    uint32       // uncompressed size (of all the blocks of a run)
	method   uint8
	compress bool
	sum      uint64        // XXH3 of the bytes out stores (see blockSum)
	done     chan struct{} // nil when there is nothing to encode
	err      error
	bufs     [2]*[]byte // pooled buffers behind raw and out, returned after placing

	// A run: the entries of blocks stored one after another, padded to
	// 16, from srcOff in src; methods maps their method indexes to the
	// Writer's.
	src     *Partition
	srcOff  int64
	blocks  []CompressionBlock
	ivs     [][ivSize]byte // AES-CTR: the blocks' IVs, kept with them
	methods []uint8

	// A check, which only a worker sees (see checkCopied).
	check *checkJob
	// Blocks of a chunk copied and checked from the bytes read once (see
	// readCopied): out holds their stored bytes as they are.
	copied *copiedRun

	// first marks the job that holds the first block of a chunk: the
	// placer keeps a chunk's blocks in one partition.
	first bool
}

// checkJob is the check of a chunk copied from src: the whole chunk,
// decoded and hashed by one worker, or one block of a large chunk, decoded
// by a worker for the goroutine that hashes the chunk's blocks in order.
type checkJob struct {
	src   *Container
	chunk int
	block int // -1: the whole chunk
	// A block's: its decoded bytes, which live in s until hashed, or why
	// it does not decode; done is closed when the worker is through.
	s    *scratch
	data []byte
	err  error
	done chan struct{}
}

// copyRun is a run of stored bytes the placer copies from a source
// partition in one go: blocks copied as they are, one after another.
type copyRun struct {
	src    *Partition
	off, n int64
	part   int // the partition it goes to, at its end
}

// NewWriter starts a container whose .utoc is utocPath (the .ucas
// partitions go beside it). Nothing is written under those names before
// Close succeeds.
func NewWriter(utocPath string, opts *WriterOptions) (*Writer, error) {
	if !strings.EqualFold(filepath.Ext(utocPath), ".utoc") {
		return nil, fmt.Errorf("%s: the output of a container must end in .utoc", utocPath)
	}
	w := &Writer{path: utocPath, byID: map[ChunkID]int{}}
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
	case o.CTR && o.Key == nil:
		return nil, fmt.Errorf("%s: AES-CTR encryption needs a key", utocPath)
	case o.CTR && !o.Version.HasEncryptionMethod():
		return nil, fmt.Errorf("%s: TOC version %d cannot record AES-CTR encryption (version %d and later can)", utocPath, o.Version, VersionContainerEncryptionMethod)
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if err := CheckBlockSize(o.BlockSize); err != nil {
		return nil, fmt.Errorf("%s: %w", utocPath, err)
	}
	if o.PartitionSize > 0 && o.PartitionSize < uint64(o.BlockSize) {
		return nil, fmt.Errorf("%s: partition size %d is smaller than a block (%d bytes)", utocPath, o.PartitionSize, o.BlockSize)
	}
	if o.Level == 0 {
		o.Level = ue.DefaultCompression
	}
	if o.ContainerID == 0 {
		base := strings.TrimSuffix(filepath.Base(utocPath), filepath.Ext(utocPath))
		o.ContainerID = zen.ContainerIDFromName(base)
		if strings.EqualFold(base, "global") {
			o.ContainerID = GlobalContainerID
		}
	}
	o.Workers = workerCount(o.Workers, math.MaxInt)
	w.bs = uint64(o.BlockSize)
	// Room for a block that does not shrink and the framing of the
	// built-in compressors (LZ4's bound is n + n/255 + 16).
	w.bufCap = int(align16(w.bs + w.bs/255 + 64))
	w.bufPool.New = func() any { b := make([]byte, w.bufCap); return &b }
	// A copiedRun's buffer holds its stored blocks and then them decoded.
	w.runBlocks = int(max(1, copyRunBytes/align16(w.bs)))
	w.runCap = w.runBlocks*int(align16(w.bs)+w.bs) + ue.DecompressSlack
	w.runPool.New = func() any { b := make([]byte, w.runCap); return &b }
	if o.Key != nil {
		e := ue.NewECB(*o.Key)
		w.cipher = &e
	}
	w.batch.Session = o.Session
	var parts []string
	for _, u := range ContainerUses(utocPath, true, false, "output container") {
		parts = append(parts, u.Path)
	}
	if err := w.lock(parts...); err != nil {
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

// start sets the method and starts the pipeline on first use.
func (w *Writer) start() error {
	if w.work != nil {
		return w.firstErr()
	}
	if m := w.opts.Method; !ue.IsNone(m) {
		codec, _ := w.opts.Codecs.Lookup(m)
		if codec.NewCompressor == nil {
			return unknownMethod(m)
		}
		w.method = w.methodIndex(codec.Name)
		w.compress = codec.NewCompressor(w.opts.Level)
	}
	if err := w.newPartition(); err != nil {
		return err
	}
	// Blocks are placed in order: while a worker is held up on the oldest
	// block (descheduled, a slow block), the others go on only as far as
	// the queue lets them. queueDepth blocks per worker, each holding a
	// pooled buffer, is a few milliseconds of work and a few hundred KiB.
	n := w.opts.Workers
	w.work = make(chan *job, n)
	w.queue = make(chan *job, queueDepth*n)
	w.placed = make(chan struct{})
	for range n {
		w.wg.Add(1)
		go w.worker()
	}
	go w.placer()
	return nil
}

// storedRaw reports whether the engine's packer stores chunks of type t
// uncompressed whatever the container's method: the container header, and
// the shader libraries and groups, whose code the library compresses
// itself (docs/containers.md, "Shader libraries").
func storedRaw(t ChunkType) bool {
	return t == ChunkContainerHeader || t == ChunkShaderCodeLibrary || t == ChunkShaderCode
}

// methodIndex returns the block method index of name, adding it.
func (w *Writer) methodIndex(name string) uint8 {
	if ue.IsNone(name) {
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
		switch {
		case j.check != nil:
			w.runCheck(j.check)
			continue
		case j.copied != nil:
			j.err = w.readCopied(j)
		default:
			j.err = w.encodeBlock(j)
		}
		close(j.done)
	}
}

// checkCopied has a worker check chunk i of src, whose stored blocks the
// Writer copies, against its chunk meta hash: the blocks are decrypted,
// decompressed and hashed while the copy goes on, and a damaged chunk
// fails the Writer (a *DamagedChunkError) before anything is renamed into
// place. A chunk with blocks no decoder reads (Oodle) cannot be checked:
// it is copied with its meta hash, which stays in the output for a tool
// with the decoder to check, and counted (UncheckedChunks).
func (w *Writer) checkCopied(src *Container, i int) {
	if w.noCheck {
		return
	}
	if src.undecodable(i) != "" {
		w.unchecked.Add(1)
		return
	}
	ch := &src.chunks[i]
	if ch.NumBlocks < checkSplit || ch.badRange {
		w.work <- &job{check: &checkJob{src: src, chunk: i, block: -1}}
		return
	}
	// A large chunk: its blocks are decoded by all the workers and hashed
	// in order by a goroutine of its own, a bounded number in flight.
	pending := make(chan *checkJob, queueDepth*w.opts.Workers)
	w.checkWG.Add(1)
	go w.hashBlocks(src, i, pending)
	for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
		cj := &checkJob{src: src, chunk: i, block: k, done: make(chan struct{})}
		pending <- cj
		w.work <- &job{check: cj}
	}
	close(pending)
}

// copiedChunk is chunk i of src, copied, whose check is queued.
type copiedChunk struct {
	src *Container
	i   int
}

// checkQueue is how many copied chunks may wait for their check: a few
// hundred bytes of bookkeeping each way, the stored bytes stay in src.
const checkQueue = 4096

// queueCheck queues the check of chunk i of src (see checkCopied) for
// dispatchChecks, which it starts on first use.
func (w *Writer) queueCheck(src *Container, i int) {
	if w.noCheck {
		return
	}
	if w.checks == nil {
		w.checks = make(chan copiedChunk, checkQueue)
		w.dispatched = make(chan struct{})
		go w.dispatchChecks()
	}
	w.checks <- copiedChunk{src, i}
}

// dispatchChecks hands the queued checks to the workers, in order, until
// stop closes the queue; after a failure or Abort it only drains it.
func (w *Writer) dispatchChecks() {
	defer close(w.dispatched)
	for cc := range w.checks {
		if w.stopChecks.Load() || w.firstErr() != nil {
			continue
		}
		w.checkCopied(cc.src, cc.i)
	}
}

// checkSplit is the number of blocks from which a chunk's check is split
// into one job per block (see checkCopied): 1 MiB of 64 KiB blocks.
const checkSplit = 16

// errCheckStopped marks the block checks skipped after Abort.
var errCheckStopped = errors.New("check stopped")

// runCheck runs a check job for checkCopied.
func (w *Writer) runCheck(cj *checkJob) {
	if cj.block >= 0 {
		defer close(cj.done)
		if w.stopChecks.Load() || w.firstErr() != nil {
			cj.err = errCheckStopped
			return
		}
		cj.s = getScratch()
		cj.s.hashChecked = true // the chunk hash is checked
		raw, p, off, err := cj.src.readStored(cj.block, cj.s)
		if err == nil {
			if cj.data, err = cj.src.decodeStored(cj.block, raw, p, off, cj.s); err != nil {
				err = &blockError{block: cj.block, err: err}
			}
		}
		cj.err = err
		return
	}
	if w.stopChecks.Load() || w.firstErr() != nil {
		return
	}
	s := getScratch()
	defer putScratch(s)
	w.checkFailed(cj.src.checkChunk(cj.chunk, s, nil))
}

// checkFailed records the outcome of a check: a block no decoder reads
// leaves the chunk unchecked; any other error fails the Writer.
func (w *Writer) checkFailed(err error) {
	var me *MethodError
	switch {
	case err == nil:
	case errors.As(err, &me):
		w.unchecked.Add(1)
	default:
		w.fail(err)
	}
}

// hashBlocks hashes the blocks of chunk i of src as the workers decode
// them, in order, and compares the hash with the chunk meta's.
func (w *Writer) hashBlocks(src *Container, i int, pending <-chan *checkJob) {
	defer w.checkWG.Done()
	hs := getScratch()
	defer putScratch(hs)
	h := src.newChunkHasher(hs)
	ch := &src.chunks[i]
	bs := uint64(src.toc.Header.CompressionBlockSize)
	end := ch.Offset + ch.Size
	var err error
	for cj := range pending {
		<-cj.done
		if err == nil {
			err = cj.err
		}
		if err == nil {
			start := uint64(cj.block) * bs
			lo, hi := max(ch.Offset, start)-start, min(end, start+bs)-start
			if hi > uint64(len(cj.data)) {
				err = errorf(src.file, fmt.Sprintf("compression block %d of %s", cj.block, src.chunkStruct(i)), src.blockEntryOffset(cj.block), ErrCorrupt,
					"holds %d bytes, the chunk needs %d from it", len(cj.data), hi)
			} else {
				h.Write(cj.data[lo:hi])
			}
		}
		if cj.s != nil {
			putScratch(cj.s)
		}
	}
	switch {
	case errors.Is(err, errCheckStopped):
	case err != nil:
		w.checkFailed(src.blockDamage(i, err))
	default:
		if ok, sum := h.matches(src, i, hs.hash); !ok {
			w.fail(src.hashMismatch(i, sum))
		}
	}
}

// UncheckedChunks returns how many of the chunks copied from other
// containers could not be checked against their chunk hashes, because no
// decoder reads their blocks (Oodle). Complete once Stage or Close
// returned.
func (w *Writer) UncheckedChunks() int { return int(w.unchecked.Load()) }

// getBuf returns a pooled buffer of bufCap bytes.
func (w *Writer) getBuf() *[]byte { return w.bufPool.Get().(*[]byte) }

// putBufs returns j's pooled buffers.
func (w *Writer) putBufs(j *job) {
	if cr := j.copied; cr != nil {
		if cr.s != nil {
			putScratch(cr.s)
		}
		if cr.buf != nil {
			w.runPool.Put(cr.buf)
		}
		cr.s, cr.buf, cr.data = nil, nil, nil
	}
	for i, b := range j.bufs {
		if b != nil {
			w.bufPool.Put(b)
			j.bufs[i] = nil
		}
	}
	j.raw, j.out = nil, nil
}

// encodeBlock turns j.raw into the stored bytes j.out: compressed when
// that makes it shorter, padded to 16 and encrypted. It works in pooled
// buffers: the compressor writes into one, and a block stored as read is
// padded and encrypted where it was read, which j owns.
func (w *Writer) encodeBlock(j *job) error {
	stored := j.raw
	if j.compress && w.method != 0 {
		bp := w.getBuf()
		out, err := w.compress((*bp)[:0], j.raw)
		if err != nil {
			w.bufPool.Put(bp)
			return fmt.Errorf("compress a block with %s: %w", w.methods[w.method-1], err)
		}
		if len(out) < len(j.raw) {
			stored, j.method = out, w.method
			j.bufs[1] = bp
		} else {
			w.bufPool.Put(bp)
		}
	}
	n := len(stored)
	padded := int(align16(uint64(n)))
	if cap(stored) < padded {
		// A compressor's result without room for the pad.
		var bp *[]byte
		var buf []byte
		if padded <= w.bufCap {
			bp = w.getBuf()
			buf = *bp
		} else {
			buf = make([]byte, padded)
		}
		copy(buf, stored)
		stored = buf[:n]
		if j.bufs[1] != nil {
			w.bufPool.Put(j.bufs[1])
		}
		j.bufs[1] = bp
	}
	out := stored[:padded]
	// The engine's pad repeats the block from its start.
	for i := n; i < padded; i++ {
		out[i] = out[i-n]
	}
	switch {
	case w.cipher != nil && w.opts.CTR:
		iv, err := newIV()
		if err != nil {
			return err
		}
		w.cipher.CTR(iv, 0).XORKeyStream(out, out)
		j.iv = iv
		j.sum = storedBlockSum(out, iv[:])
	case w.cipher != nil:
		w.cipher.Encrypt(out)
		j.sum = xxh3.Hash(out)
	default:
		j.sum = xxh3.Hash(out[:n])
	}
	j.out, j.size = out, uint32(n)
	if j.bufs[1] != nil && j.bufs[0] != nil {
		// Stored from the compressor's buffer: the block as read can go
		// now rather than after it is placed.
		w.bufPool.Put(j.bufs[0])
		j.bufs[0], j.raw = nil, nil
	}
	return nil
}

// placer writes the blocks in order and records their entries.
func (w *Writer) placer() {
	defer close(w.placed)
	var progress int64
	for j := range w.queue {
		if j.done != nil {
			<-j.done
		}
		err, placed := j.err, false
		if err == nil && w.firstErr() == nil {
			err = w.place(j)
			placed = err == nil
		}
		if placed && j.copied != nil {
			// Its bytes are hashed, then its buffers returned.
			if w.hashq == nil {
				w.hashq, w.hashed = make(chan *job, hashQueue), make(chan struct{})
				go w.hashCopied()
			}
			w.hashq <- j
		} else {
			w.putBufs(j)
		}
		if err != nil {
			w.fail(err)
		}
		if placed && w.opts.Progress != nil {
			progress += int64(j.usize)
			if progress >= 1<<20 {
				w.opts.Progress(progress)
				progress = 0
			}
		}
	}
	if w.firstErr() == nil {
		if err := w.flushRun(); err != nil {
			w.fail(err)
		}
		// The rest goes to the disk while Stage checks the output.
		if w.wbDone > w.wbStarted {
			startWriteback(w.parts[w.wbPart], w.wbStarted, w.wbDone-w.wbStarted)
			w.wbStarted = w.wbDone
		}
	}
	if w.opts.Progress != nil && progress > 0 {
		w.opts.Progress(progress)
	}
	if w.hashq != nil {
		close(w.hashq)
		<-w.hashed
	}
}

// place appends j's block, or the blocks of its run, to the output.
func (w *Writer) place(j *job) error {
	if j.first {
		w.curPart, w.curOff, w.curBlock = len(w.parts)-1, w.sizes[len(w.parts)-1], len(w.blocks)
	}
	if j.copied != nil {
		return w.placeCopied(j)
	}
	if j.src == nil {
		p, err := w.room(uint64(len(j.out)))
		if err != nil {
			return err
		}
		if err := w.flushRun(); err != nil {
			return err
		}
		if _, err := w.parts[p].Write(j.out); err != nil {
			return fmt.Errorf("write %s: %w", PartitionPath(w.path, p), err)
		}
		w.wrote(p, int64(len(j.out)))
		w.sums = append(w.sums, blockSum{sum: j.sum, ok: true})
		return w.addBlock(p, uint64(len(j.out)), CompressionBlock{CompressedSize: j.size, UncompressedSize: j.usize, Method: j.method}, j.iv)
	}
	off := j.srcOff
	for i, b := range j.blocks {
		padded := align16(uint64(b.CompressedSize))
		p, err := w.room(padded)
		if err != nil {
			return err
		}
		// The block joins the run before it when it follows it in the
		// same source partition; the run is copied in one go before
		// anything else is written.
		if r := &w.run; r.src != j.src || r.part != p || r.off+r.n != off {
			if err := w.flushRun(); err != nil {
				return err
			}
			*r = copyRun{src: j.src, off: off, part: p}
		}
		w.run.n += int64(padded)
		b.Method = j.methods[b.Method]
		var iv [ivSize]byte
		if j.ivs != nil {
			iv = j.ivs[i]
		}
		w.sums = append(w.sums, blockSum{})
		if err := w.addBlock(p, padded, b, iv); err != nil {
			return err
		}
		off += int64(padded)
	}
	return nil
}

// room returns the partition the next padded bytes go to, starting the
// next one when they do not fit in the current one. A chunk's blocks stay
// in one partition, as the engine's writer keeps them: the blocks the
// current chunk already has in the full partition move to the new one.
func (w *Writer) room(padded uint64) (int, error) {
	p := len(w.parts) - 1
	ps := w.opts.PartitionSize
	if ps == 0 || w.sizes[p]+padded <= ps {
		return p, nil
	}
	if err := w.flushRun(); err != nil {
		return 0, err
	}
	moved := w.curPart == p && w.curBlock < len(w.blocks)
	if moved && w.curOff == 0 || !moved && padded > ps {
		return 0, fmt.Errorf("%s: a chunk's stored blocks take more than the partition size (%d bytes): the engine keeps every chunk in one partition; use a larger partition size", w.path, ps)
	}
	if err := w.newPartition(); err != nil {
		return 0, err
	}
	if moved {
		n := w.sizes[p] - w.curOff
		if err := w.copyInto(p+1, w.parts[p], int64(w.curOff), int64(n)); err != nil {
			return 0, fmt.Errorf("move a chunk's blocks into %s: %w", PartitionPath(w.path, p+1), err)
		}
		if err := w.parts[p].Truncate(int64(w.curOff)); err != nil {
			return 0, fmt.Errorf("%s: %w", PartitionPath(w.path, p), err)
		}
		if _, err := w.parts[p].Seek(int64(w.curOff), io.SeekStart); err != nil {
			return 0, fmt.Errorf("%s: %w", PartitionPath(w.path, p), err)
		}
		for k := w.curBlock; k < len(w.blocks); k++ {
			w.blocks[k].Offset = w.blocks[k].Offset - uint64(p)*ps - w.curOff + uint64(p+1)*ps
		}
		w.sizes[p], w.sizes[p+1] = w.curOff, n
	}
	w.curPart, w.curOff = p+1, 0
	return p + 1, nil
}

// addBlock records the entry of a block of padded bytes at the end of
// partition p, and its AES-CTR IV iv when the Writer encrypts with CTR.
func (w *Writer) addBlock(p int, padded uint64, b CompressionBlock, iv [ivSize]byte) error {
	off := w.sizes[p]
	w.sizes[p] += padded
	if ps := w.opts.PartitionSize; ps > 0 {
		off += uint64(p) * ps
	}
	if off > max40 {
		return fmt.Errorf("%s: the container passes the 1 TiB the 40-bit block offsets reach", w.path)
	}
	b.Offset = off
	w.blocks = append(w.blocks, b)
	if w.opts.CTR {
		w.ivs = append(w.ivs, iv)
	}
	return nil
}

// flushRun copies the pending run of stored blocks.
func (w *Writer) flushRun() error {
	r := w.run
	if r.n == 0 {
		return nil
	}
	w.run = copyRun{}
	if err := w.copyInto(r.part, r.src.R, r.off, r.n); err != nil {
		return fmt.Errorf("copy blocks of %s into %s: %w", r.src.Name, PartitionPath(w.path, r.part), err)
	}
	return nil
}

const (
	// queueDepth is how many blocks per worker may wait to be placed.
	queueDepth = 8
	// writebackStep is how often the Writer asks the system to start
	// writing what it wrote to storage (see startWriteback).
	writebackStep = 8 << 20
	// copyBufSize is the buffer of the copies the system does not make.
	copyBufSize = 1 << 20
)

// copyInto appends n bytes of src from off to partition p, a step at a
// time (see wrote). The caller's goroutine copies before the placer has
// anything to place, then only the placer does.
func (w *Writer) copyInto(p int, src io.ReaderAt, off, n int64) error {
	if w.copyBuf == nil {
		w.copyBuf = make([]byte, copyBufSize)
	}
	for n > 0 {
		k := min(n, writebackStep)
		if err := copyRange(w.parts[p], src, off, k, w.copyBuf); err != nil {
			return err
		}
		w.wrote(p, k)
		off, n = off+k, n-k
	}
	return nil
}

// wrote records n bytes appended to partition p. Every writebackStep
// bytes, and when the next partition starts, it starts the writeback of
// the bytes written since the last time, so that the disk writes them
// while the Writer goes on rather than all at once when Stage syncs.
func (w *Writer) wrote(p int, n int64) {
	if p != w.wbPart {
		if w.wbDone > w.wbStarted {
			startWriteback(w.parts[w.wbPart], w.wbStarted, w.wbDone-w.wbStarted)
		}
		w.wbPart, w.wbDone, w.wbStarted = p, 0, 0
	}
	w.wbDone += n
	if w.wbDone-w.wbStarted >= writebackStep {
		startWriteback(w.parts[p], w.wbStarted, w.wbDone-w.wbStarted)
		w.wbStarted = w.wbDone
	}
}

// submit sends one block down the pipeline, in order: to a worker to
// encode and to the placer.
func (w *Writer) submit(j *job) {
	j.done = make(chan struct{})
	j.first, w.chunkStart = w.chunkStart, false
	w.pending++
	w.queue <- j
	w.work <- j
}

// submitCopied sends a run of blocks read once (see readCopied) down the
// pipeline: to a worker to read and decode and to the placer.
func (w *Writer) submitCopied(cr *copiedRun) {
	w.submit(&job{copied: cr, usize: uint32(cr.usize)})
	w.pending += cr.n - 1 // submit counted one block
}

// submitRun sends a run of blocks to copy to the placer.
func (w *Writer) submitRun(j *job) {
	j.first, w.chunkStart = w.chunkStart, false
	w.pending += len(j.blocks)
	w.queue <- j
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
	compress := !(c.Uncompressed || c.MemoryMapped || c.storedRaw)
	for {
		bp := w.getBuf()
		buf := (*bp)[:w.bs]
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			hs.Write(buf[:n])
			c.size += uint64(n)
			c.n++
			w.submit(&job{raw: buf[:n], usize: uint32(n), compress: compress, bufs: [2]*[]byte{bp}})
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
		if err := safefile.CheckRelPath(h.Path); err != nil {
			return nil, fmt.Errorf("%s: chunk %v: path %q: %w", w.path, h.ID, h.Path, err)
		}
	}
	c := &wchunk{ChunkHeader: *h, off: w.virt, first: w.pending}
	w.chunkStart = true
	c.storedRaw = storedRaw(h.ID.Type(w.opts.Version))
	if h.MemoryMapped {
		c.meta.Flags |= MetaMemoryMapped
	}
	return c, nil
}

// commitChunk records a chunk whose blocks were all submitted.
func (w *Writer) commitChunk(c *wchunk) {
	w.byID[c.ID] = len(w.chunks)
	w.chunks = append(w.chunks, *c)
	w.virt += w.span(c.size)
}

// span is how much of the virtual address space a chunk of size bytes
// takes: every chunk starts on a block boundary.
func (w *Writer) span(size uint64) uint64 { return (size + w.bs - 1) / w.bs * w.bs }

// newHasher returns the chunk-meta hash of the TOC version, reset: one
// for every chunk (a BLAKE3 hasher is 10 KB).
func (w *Writer) newHasher() hash.Hash {
	if w.hasher == nil {
		w.hasher = newHasher(w.opts.Version.ChunkHash())
	} else {
		w.hasher.Reset()
	}
	return w.hasher
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
	m := w.methodIndex(w.opts.Codecs.Canonical(method))
	for k, b := range blocks {
		if len(b) == 0 || uint64(len(b)) > w.bs {
			return fmt.Errorf("%s: chunk %v: stored block %d is %d bytes (1 to %d)", w.path, h.ID, k, len(b), w.bs)
		}
		size := min(w.bs, uint64(len(data))-uint64(k)*w.bs)
		c.n++
		c.size += size
		// The worker pads and encrypts the block where it is: in a
		// buffer of the Writer's, not the caller's.
		bp := w.getBuf()
		w.submit(&job{raw: append((*bp)[:0], b...), usize: uint32(size), method: m, bufs: [2]*[]byte{bp}})
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
// with the Writer's; when both have the same key, or neither has one, the
// stored bytes are copied as they are, by the system when it can (without
// passing them through the process), as the Writer places them: keep src
// open until Stage or Close returns. path is where the directory index
// lists the chunk ("" for none). The block sizes of src and the Writer
// must match.
//
// The chunk is checked against its hash in src while it is copied: the
// workers decrypt, decompress and hash it beside the copy, and a damaged
// chunk (a block that does not decode, data that does not match the
// hash) fails the Writer with a *DamagedChunkError, from CopyChunk or at
// the latest from Stage, which then removes every staged file. When
// neither src nor the Writer encrypts, each block is read once, for the
// check and the copy both: the workers read and decode a few blocks at a
// time, and the Writer writes the bytes it read as it hashes the decoded
// ones, so that what is written is what was checked, even from a file
// that changes meanwhile. Chunks no decoder reads (Oodle) are copied
// unchecked with their meta hash, and counted by UncheckedChunks.
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
	// Blocks stored as the Writer would store them are copied in runs;
	// the others one by one. When the check reads them anyway, they are
	// read once, for the check and the copy (see readCopied).
	asStored := w.storesAsStored(src)
	readOnce := false
	if c.metaKnown {
		if readOnce = w.readsOnce(src, i, asStored); !readOnce {
			w.queueCheck(src, i)
		}
	} else {
		// The output's hash is computed from the data, which is checked
		// against the source's hash on the way.
		hs := w.newHasher()
		s := getScratch()
		err := src.checkChunk(i, s, func(p []byte) error { hs.Write(p); return nil })
		putScratch(s)
		if err != nil {
			var me *MethodError
			if errors.As(err, &me) {
				err = fmt.Errorf("%s: the TOC version changes the chunk hash, and chunk %v cannot be decoded to hash it: %w", w.path, sc.ID, err)
			}
			w.fail(err)
			return err
		}
		copy(c.meta.Hash[:20], hs.Sum(nil)) // 20 bytes, the rest zero as the engine writes
	}
	// methods maps src's method indexes to the Writer's, each added when
	// a block uses it, before the block is submitted (the placer reads
	// the entries of the blocks it places).
	const unmapped = 0xFF
	methods := make([]uint8, len(src.toc.Methods)+1)
	for m := 1; m < len(methods); m++ {
		methods[m] = unmapped
	}
	var run *job
	var runEnd int64
	var pendingRun *copiedRun
	for k := sc.FirstBlock; k < sc.FirstBlock+sc.NumBlocks; k++ {
		b := src.toc.Blocks[k]
		if err := src.chunkBlockMethodError(sc.ID, k); err != nil {
			w.fail(err)
			return err
		}
		if methods[b.Method] == unmapped {
			methods[b.Method] = w.methodIndex(src.toc.MethodName(b.Method))
		}
		c.size += uint64(b.UncompressedSize)
		c.n++
		if readOnce {
			// Blocks stored back to back go in one job, up to
			// copyRunBytes of them.
			p, off, _, _ := src.blockPlace(k)
			padded := align16(uint64(b.CompressedSize))
			if cr := pendingRun; cr != nil && cr.n < w.runBlocks && cr.p == p && cr.off+uint64(cr.stored) == off {
				cr.n++
				cr.stored += int(padded)
				cr.usize += int(b.UncompressedSize)
				continue
			}
			if pendingRun != nil {
				w.submitCopied(pendingRun)
			}
			pendingRun = &copiedRun{src: src, chunk: i, first: k, n: 1, p: p, off: off, stored: int(padded), usize: int(b.UncompressedSize),
				methods: methods, chunkStart: k == sc.FirstBlock}
			continue
		}
		part, off, ok, err := w.storedRange(src, k, asStored)
		if err != nil {
			w.fail(err)
			return err
		}
		if ok {
			padded := int64(align16(uint64(b.CompressedSize)))
			if run != nil && run.src == part && runEnd == off {
				run.blocks = run.blocks[:len(run.blocks)+1]
				if run.ivs != nil {
					run.ivs = run.ivs[:len(run.ivs)+1]
				}
				run.usize += b.UncompressedSize
				runEnd += padded
				continue
			}
			if run != nil {
				w.submitRun(run)
			}
			run = &job{src: part, srcOff: off, blocks: src.toc.Blocks[k : k+1], methods: methods, usize: b.UncompressedSize}
			if w.opts.CTR {
				run.ivs = src.toc.EncryptionIVs[k : k+1]
			}
			runEnd = off + padded
			continue
		}
		if run != nil {
			w.submitRun(run)
			run = nil
		}
		bp := w.getBuf()
		raw, err := src.storedPlain(k, *bp)
		if err != nil {
			w.bufPool.Put(bp)
			w.fail(err)
			return err
		}
		w.submit(&job{raw: raw, usize: b.UncompressedSize, method: methods[b.Method], bufs: [2]*[]byte{bp}})
	}
	if run != nil {
		w.submitRun(run)
	}
	if pendingRun != nil {
		pendingRun.chunkEnd = true
		w.submitCopied(pendingRun)
	}
	if c.size != sc.Size {
		w.fail(errors.New("a copied chunk's size disagrees with its blocks"))
		return fmt.Errorf("%s: chunk %v: its blocks hold %d bytes, the TOC says %d", src.file, sc.ID, c.size, sc.Size)
	}
	w.commitChunk(c)
	return w.firstErr()
}

// copiedRun is a run of blocks of chunk of src, stored back to back from
// off in partition p, copied as they are stored and checked on the way: a
// worker reads their stored bytes once and decodes them (readCopied); the
// placer writes the stored bytes and hashes the decoded ones into the
// chunk's hash, in order (placeCopied).
type copiedRun struct {
	src                  *Container
	chunk                int
	first, n             int // blocks
	p                    int
	off                  uint64
	stored, usize        int     // bytes: stored, padded; and decoded
	methods              []uint8 // src's method indexes to the Writer's
	chunkStart, chunkEnd bool    // the run begins, ends the chunk

	buf  *[]byte  // pooled: the stored bytes, then the decoded ones
	s    *scratch // the decoder's
	data [][]byte // each block decoded
}

// copyRunBytes is about the most stored bytes a copiedRun holds (at
// least a block): 4 blocks of 64 KiB, read and written at once.
const copyRunBytes = 256 << 10

// readsOnce reports whether the blocks of chunk i of src are copied from
// the bytes the check reads (see readCopied), rather than copied by the
// system and read again for the check: when they are checked, stored as
// the Writer stores them without encryption, whole in their partition,
// and decodable.
func (w *Writer) readsOnce(src *Container, i int, asStored bool) bool {
	sc := &src.chunks[i]
	if !asStored || w.noCheck || w.cipher != nil || src.casErr != nil || src.toc.Header.Encryption() != EncryptionNone ||
		sc.badRange || sc.NumBlocks == 0 || src.undecodable(i) != "" {
		return false
	}
	for k := sc.FirstBlock; k < sc.FirstBlock+sc.NumBlocks; k++ {
		if _, _, ok, err := w.storedRange(src, k, true); err != nil || !ok {
			return false
		}
	}
	return true
}

// readCopied, on a worker, reads the stored bytes of j's run into j.out
// (padded, as stored) and decodes each block for the check: a block that
// does not decode fails as the chunk's *DamagedChunkError.
func (w *Writer) readCopied(j *job) error {
	cr := j.copied
	src := cr.src
	need := cr.stored + cr.usize + ue.DecompressSlack
	if cr.buf = w.runPool.Get().(*[]byte); len(*cr.buf) < need {
		b := make([]byte, need) // not reached: the blocks are at most the block size
		cr.buf = &b
	}
	stored, out := (*cr.buf)[:cr.stored], (*cr.buf)[cr.stored:]
	if err := src.readPart(cr.p, stored, cr.off, cr.first); err != nil {
		return err
	}
	j.out = stored
	cr.s = getScratch()
	cr.s.hashChecked = true // the chunk hash is checked
	cr.data = make([][]byte, 0, cr.n)
	off, pos := uint64(0), 0
	for k := cr.first; k < cr.first+cr.n; k++ {
		b := src.toc.Blocks[k]
		padded := align16(uint64(b.CompressedSize))
		// Decoded in place in out, one block after the other (the
		// decoder's slack runs into the next block's room).
		cr.s.out = out[pos:pos]
		data, err := src.decodeStored(k, stored[off:off+padded], cr.p, cr.off+off, cr.s)
		if err != nil {
			return src.blockDamage(cr.chunk, &blockError{block: k, err: err})
		}
		cr.data = append(cr.data, data)
		off += padded
		pos += int(b.UncompressedSize)
	}
	cr.s.out = nil
	return nil
}

// placeCopied, on the placer, writes the stored bytes of j's run and
// records their entries; hashCopied then hashes the decoded ones.
func (w *Writer) placeCopied(j *job) error {
	cr := j.copied
	src := cr.src
	// One write when the run fits in the partition, as it does but for
	// partitioned containers; otherwise a block at a time, each after
	// room, which may start the next partition.
	p := len(w.parts) - 1
	whole := w.opts.PartitionSize == 0 || w.sizes[p]+uint64(cr.stored) <= w.opts.PartitionSize
	if whole {
		if err := w.flushRun(); err != nil {
			return err
		}
		if _, err := w.parts[p].Write(j.out); err != nil {
			return fmt.Errorf("write %s: %w", PartitionPath(w.path, p), err)
		}
		w.wrote(p, int64(len(j.out)))
	}
	off := uint64(0)
	for k := cr.first; k < cr.first+cr.n; k++ {
		b := src.toc.Blocks[k]
		padded := align16(uint64(b.CompressedSize))
		if !whole {
			var err error
			if p, err = w.room(padded); err != nil {
				return err
			}
			if err := w.flushRun(); err != nil {
				return err
			}
			if _, err := w.parts[p].Write(j.out[off : off+padded]); err != nil {
				return fmt.Errorf("write %s: %w", PartitionPath(w.path, p), err)
			}
			w.wrote(p, int64(padded))
		}
		// Checked against its source's hash, not by its stored sum.
		w.sums = append(w.sums, blockSum{})
		b.Method = cr.methods[b.Method]
		if err := w.addBlock(p, padded, b, [ivSize]byte{}); err != nil {
			return err
		}
		off += padded
	}
	return nil
}

// hashQueue is how many runs of blocks read once may wait, written, for
// hashCopied.
const hashQueue = 4

// hashCopied adds the decoded bytes of the runs of blocks read once to
// their chunk's hash, in the order they were placed, and compares the hash
// with the chunk meta's after the chunk's last block: damage fails the
// Writer with a *DamagedChunkError. It returns each run's buffers.
func (w *Writer) hashCopied() {
	defer close(w.hashed)
	for j := range w.hashq {
		if w.firstErr() == nil {
			w.hashRun(j.copied)
		}
		w.putBufs(j)
	}
	if w.copyScratch != nil {
		putScratch(w.copyScratch)
		w.copyScratch, w.copyHash = nil, nil
	}
}

// hashRun adds cr's decoded blocks to the hash of its chunk (see
// hashCopied).
func (w *Writer) hashRun(cr *copiedRun) {
	src, i := cr.src, cr.chunk
	if cr.chunkStart {
		if w.copyScratch == nil {
			w.copyScratch = getScratch()
		}
		w.copyHash = src.newChunkHasher(w.copyScratch)
	}
	ch := &src.chunks[i]
	bs := uint64(src.toc.Header.CompressionBlockSize)
	end := ch.Offset + ch.Size
	for n, data := range cr.data {
		k := cr.first + n
		start := uint64(k) * bs
		lo, hi := max(ch.Offset, start)-start, min(end, start+bs)-start
		if hi > uint64(len(data)) {
			w.fail(errorf(src.file, fmt.Sprintf("compression block %d of %s", k, src.chunkStruct(i)), src.blockEntryOffset(k), ErrCorrupt,
				"holds %d bytes, the chunk needs %d from it", len(data), hi))
			return
		}
		w.copyHash.Write(data[lo:hi])
	}
	if cr.chunkEnd {
		ok, sum := w.copyHash.matches(src, i, w.copyScratch.hash)
		w.copyScratch.hash = sum
		if !ok {
			w.fail(src.hashMismatch(i, sum))
		}
	}
}

// storesAsStored reports whether src's stored blocks are what the Writer
// would store: neither is encrypted, or both with the same key and mode
// (AES-CTR blocks are copied with their IVs).
func (w *Writer) storesAsStored(src *Container) bool {
	sameKey := w.opts.Key != nil && src.key != nil && *src.key == *w.opts.Key
	switch src.Header().Encryption() {
	case EncryptionNone:
		return w.opts.Key == nil
	case EncryptionAESECB:
		return sameKey && !w.opts.CTR
	case EncryptionAESCTR:
		return sameKey && w.opts.CTR && len(src.toc.EncryptionIVs) >= len(src.toc.Blocks)
	}
	return false
}

// storedRange says where block k of src is stored, padded to 16, when
// asStored and those bytes are in its partition: then it is copied as it
// is (by the system when it can, see copyRange). Otherwise it is read,
// decrypted, padded and encrypted again.
func (w *Writer) storedRange(src *Container, k int, asStored bool) (*Partition, int64, bool, error) {
	if !asStored || src.casErr != nil {
		return nil, 0, false, nil
	}
	p, off, _, err := src.blockPlace(k)
	if err != nil {
		return nil, 0, false, err
	}
	part := &src.parts[p]
	if off+align16(uint64(src.toc.Blocks[k].CompressedSize)) > uint64(part.Size) {
		return nil, 0, false, nil
	}
	return part, int64(off), true, nil
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
	w.stopChecks.Store(true)
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
	if w.checks != nil {
		// Every queued check reaches the workers before they stop.
		close(w.checks)
		<-w.dispatched
	}
	close(w.work)
	close(w.queue)
	w.wg.Wait()
	<-w.placed
	w.checkWG.Wait()
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
	w.chunkSums()
	// The chunk list, kept while the output is read back and checked,
	// without the room append left for more (a quarter of it).
	w.chunks = slices.Clone(w.chunks)
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
	if w.beforeCheck != nil {
		w.beforeCheck(w.parts, toc.Blocks)
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
	w.staged, w.toc = true, data
	return nil
}

// StoredBytes returns the size of the staged .ucas partitions together
// (see Stage): the blocks as stored, with their padding and any gaps.
func (w *Writer) StoredBytes() int64 {
	var n int64
	for _, s := range w.sizes {
		n += int64(s)
	}
	return n
}

// sameFiles reports whether the staged output is, byte for byte, the .utoc
// toc and the partitions parts: the TOC and sizes are compared first, the
// contents only when they agree.
func (w *Writer) sameFiles(toc []byte, parts []Partition) (bool, error) {
	if !w.staged || !bytes.Equal(w.toc, toc) || len(parts) != len(w.parts) {
		return false, nil
	}
	for i, p := range parts {
		if p.Size != int64(w.sizes[i]) {
			return false, nil
		}
	}
	a, b := make([]byte, copyBufSize), make([]byte, copyBufSize)
	for i, p := range parts {
		for off := int64(0); off < p.Size; off += copyBufSize {
			n := int(min(copyBufSize, p.Size-off))
			if _, err := p.R.ReadAt(a[:n], off); err != nil && !(err == io.EOF && n > 0) {
				return false, fmt.Errorf("compare with %s: %w", p.Name, err)
			}
			if _, err := w.parts[i].ReadAt(b[:n], off); err != nil && !(err == io.EOF && n > 0) {
				return false, fmt.Errorf("compare with %s: %w", PartitionPath(w.path, i), err)
			}
			if !bytes.Equal(a[:n], b[:n]) {
				return false, nil
			}
		}
	}
	return true, nil
}

// Commit renames the staged output into place (see Stage) and removes
// partitions an earlier container of the same name had beyond this one's,
// as one commit (safefile.Batch.Commit): a failed rename puts every file
// back, and a run killed during the renames leaves a record that the next
// run locking the container finishes.
func (w *Writer) Commit() error {
	if !w.staged {
		return errors.New("iostore: Commit before Stage")
	}
	defer w.unlock()
	for _, s := range w.stalePartitions() {
		w.batch.Remove(s)
	}
	return w.batch.Commit()
}

// Hand moves the staged output (see Stage), with the removal of stale
// partitions, into b, so that b.Commit renames it into place together with
// b's other files as one commit. The Writer keeps its locks until Abort,
// which the caller calls once b is committed (or aborted): Abort no longer
// removes what was handed over.
func (w *Writer) Hand(b *safefile.Batch) error {
	if !w.staged {
		return errors.New("iostore: Hand before Stage")
	}
	for _, s := range w.stalePartitions() {
		w.batch.Remove(s)
	}
	b.Take(&w.batch)
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
	// The entries are sorted where they are and dropped once encoded: a
	// container of many packages holds them only until then.
	h.Packages, w.entries = w.entries, nil
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
	return w.AddChunkHeader(&ChunkHeader{ID: id, Uncompressed: true}, bytes.NewReader(data))
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
	if len(w.methods) > 0 || !ue.IsNone(o.Method) {
		h.ContainerFlags |= FlagCompressed
	}
	if o.Key != nil {
		h.ContainerFlags |= FlagEncrypted
	}
	h.EncryptionMethodByte = w.encryptionMethodByte()
	t.Methods = w.methods
	t.Blocks = w.blocks
	t.EncryptionIVs = slices.Clip(w.ivs)
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
	index, iv, err := w.encodeIndex(mount, files)
	if err != nil {
		return err
	}
	t.DirectoryIndex = index
	t.Header.ContainerFlags |= FlagIndexed
	if w.opts.CTR {
		// The directory index's IV follows the blocks' IVs.
		t.EncryptionIVs = append(slices.Clip(t.EncryptionIVs), iv)
	}
	return nil
}

// encodeIndex builds and encodes the directory index, padded and
// encrypted when the container is; with AES-CTR, iv is the fresh IV it is
// encrypted with.
func (w *Writer) encodeIndex(mount string, files []IndexedFile) (index []byte, iv [ivSize]byte, err error) {
	x, err := NewDirectoryIndex(mount, files)
	if err != nil {
		return nil, iv, fmt.Errorf("%s: directory index: %w", w.path, err)
	}
	index, err = x.AppendBinary(nil)
	if err != nil {
		return nil, iv, fmt.Errorf("%s: directory index: %w", w.path, err)
	}
	if k := w.opts.Key; k != nil {
		// Padded to 16 as the blocks are, with either cipher.
		padded := make([]byte, align16(uint64(len(index))))
		copy(padded, index)
		for i := len(index); i < len(padded); i++ {
			padded[i] = index[(i-len(index))%len(index)]
		}
		c := ue.NewECB(*k)
		if w.opts.CTR {
			if iv, err = newIV(); err != nil {
				return nil, iv, err
			}
			c.CTR(iv, 0).XORKeyStream(padded, padded)
		} else {
			c.Encrypt(padded)
		}
		index = padded
	}
	return index, iv, nil
}

// encryptionMethodByte is header byte 81 of the Writer's output from TOC
// version 10 on: 0 unencrypted, 1 AES-ECB, 2 AES-CTR (EIoEncryptionMethod).
func (w *Writer) encryptionMethodByte() uint8 {
	switch {
	case !w.opts.Version.HasEncryptionMethod() || w.opts.Key == nil:
		return uint8(EncryptionNone)
	case w.opts.CTR:
		return uint8(EncryptionAESCTR)
	}
	return uint8(EncryptionAESECB)
}

// newIV returns a fresh random AES-CTR IV.
func newIV() (iv [ivSize]byte, err error) {
	if _, err := rand.Read(iv[:]); err != nil {
		return iv, fmt.Errorf("make an AES-CTR IV: %w", err)
	}
	return iv, nil
}

// maxCheckPackage is the largest package chunk the check decodes as a zen
// package (VerifyWritten): decoding holds a few copies of the package,
// and the memory of a write follows the blocks in flight, not the largest
// package. A larger package is checked by its stored sums, as bulk data
// is; VerifyAll decodes packages up to Verify's bound.
const maxCheckPackage = 16 << 20

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
	// summed are the chunks whose stored bytes are compared with the sums
	// of what the Writer encoded (see chunkSums).
	var summed []int
	if w.opts.Verify != VerifyStructure {
		for i, id := range c.toc.ChunkIDs {
			if k, ok := w.byID[id]; ok && w.chunks[k].storedOK {
				summed = append(summed, i)
			}
		}
	}
	switch w.opts.Verify {
	case VerifyStructure:
		vo.StructureOnly = true
	case VerifyWritten:
		// Chunks copied as stored were checked against their source as
		// they were copied; chunks the Writer encoded are checked by their
		// stored sums, but for packages, which are also decoded and checked
		// as zen packages.
		vo.maxPackage = maxCheckPackage
		vo.Skip = func(i int) bool {
			k, ok := w.byID[c.toc.ChunkIDs[i]]
			return ok && (w.chunks[k].copied || w.chunks[k].storedOK && !c.isPackageChunk(i, maxCheckPackage))
		}
	}
	r := c.Verify(vo)
	if r.OK() && len(summed) > 0 {
		r.Problems = c.checkStoredSums(summed, w.opts.Workers, func(i int) uint64 {
			return w.chunks[w.byID[c.toc.ChunkIDs[i]]].stored
		})
	}
	if !r.OK() {
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

// blockSum is the XXH3 of a block's bytes as the Writer stored them (its
// compressed bytes, padded and encrypted when the container is encrypted:
// what a reader's block entry spans), kept for the blocks it encoded.
type blockSum struct {
	sum uint64
	ok  bool
}

// storedBlockSum is a block's blockSum: the XXH3 of its stored bytes and,
// for an AES-CTR block, of its IV too, which the TOC holds apart from the
// bytes and without which they do not decrypt.
func storedBlockSum(stored, iv []byte) uint64 {
	if iv == nil {
		return xxh3.Hash(stored)
	}
	return xxh3.Hash(stored) ^ bits.RotateLeft64(xxh3.Hash(iv), 1)
}

// storedSum folds the sums of a chunk's blocks, in order, with their
// stored and uncompressed sizes into one value: the writer's from what it
// wrote, the check's from what it reads back under the TOC's entries.
type storedSum struct{ d xxh3.Hasher }

func (s *storedSum) add(sum uint64, size, usize uint32) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], sum)
	binary.LittleEndian.PutUint32(b[8:], size)
	binary.LittleEndian.PutUint32(b[12:], usize)
	s.d.Write(b[:])
}

// chunkSums gives each chunk whose blocks the Writer all encoded its
// stored sum, and drops the block sums: the check compares what it reads
// back with what the compressor gave, which costs a read and a hash where
// decoding a block again costs a third of what compressing it did.
func (w *Writer) chunkSums() {
	if len(w.sums) != len(w.blocks) {
		w.sums = nil // not reached: one sum per placed block
		return
	}
	var s storedSum
	for i := range w.chunks {
		c := &w.chunks[i]
		if c.n == 0 || c.removed {
			continue
		}
		s.d.Reset()
		ok := true
		for k := c.first; k < c.first+c.n && ok; k++ {
			b := w.sums[k]
			ok = b.ok
			s.add(b.sum, w.blocks[k].CompressedSize, w.blocks[k].UncompressedSize)
		}
		c.stored, c.storedOK = s.d.Sum64(), ok
	}
	w.sums = nil
}

// HashChunkReader returns HashChunk of the data read from r to its end,
// for a chunk too large to hold.
func HashChunkReader(v TocVersion, r io.Reader) ([20]byte, error) {
	h := newHasher(v.ChunkHash())
	if _, err := io.Copy(h, r); err != nil {
		return [20]byte{}, err
	}
	return [20]byte(h.Sum(nil)[:20]), nil
}
