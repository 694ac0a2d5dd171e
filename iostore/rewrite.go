package iostore

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// RewriteLayout says where Rewrite puts the chunks it keeps.
type RewriteLayout uint8

const (
	// Preserve keeps the .ucas bytes of the source as they are: every
	// unchanged chunk's blocks stay at their offsets and the TOC keeps its
	// order, so a rewrite without changes is byte-identical. Changed and
	// added chunks are appended; the blocks they replace stay behind as
	// dead bytes (RewriteResult.DeadBytes).
	Preserve RewriteLayout = iota
	// Compact lays the container out again as the engine's writer does:
	// every chunk's blocks one after another, in the source's order, with
	// no dead bytes. Unchanged chunks' blocks are copied as they are.
	Compact
)

// ParseRewriteLayout parses "preserve" or "compact".
func ParseRewriteLayout(s string) (RewriteLayout, error) {
	switch strings.ToLower(s) {
	case "", "preserve":
		return Preserve, nil
	case "compact":
		return Compact, nil
	}
	return 0, fmt.Errorf("unknown layout %q (want preserve or compact)", s)
}

func (l RewriteLayout) String() string {
	if l == Compact {
		return "compact"
	}
	return "preserve"
}

// ChunkChange is one change Rewrite makes to a container.
type ChunkChange struct {
	ID ChunkID
	// Data is the chunk's new content; nil removes the chunk.
	Data io.Reader
	// Path lists an added chunk in the directory index, relative to the
	// game's root ("Maine/Content/Mods/New.uasset"); a replaced chunk keeps
	// its path.
	Path string
}

// RewriteOptions configures Rewrite.
type RewriteOptions struct {
	Layout RewriteLayout
	// Method compresses the chunks written from data: "" keeps the
	// source's method when Codecs can write it and uses Zlib otherwise
	// (an Oodle container); "None" stores them.
	Method string
	// Codecs are the compression methods the output is written with; nil
	// means the built-in ones. Add the game's Oodle library here (package
	// ue/oodle) to check and write Oodle blocks.
	Codecs *ue.Codecs
	// Key encrypts the output (Compact only): nil keeps the source's key.
	Key *ue.Key
	// Workers, Progress and Verify are as in WriterOptions.
	Workers  int
	Progress func(n int64)
	Verify   VerifyLevel
	// Session is as in WriterOptions.
	Session *safefile.Session
	// SourceChecked says that the files src was opened from passed the
	// whole check of an earlier Rewrite (RewriteResult.SourceVerified)
	// or Verify, with the same key and decoders (Container.CheckBasis),
	// and are unchanged since (Container.FileIDs): the caller remembers
	// it (package checkcache). The chunks kept are then copied without
	// decoding and hashing them again, and the packages are not decoded
	// again; the TOC's structure is verified as always, and so is the
	// output, as it is read back. A source whose TOC has a problem is
	// checked as without it.
	SourceChecked bool

	noCheck bool // tests and benchmarks: copy without checking (export_test.go)
}

// RewriteResult says what Rewrite did.
type RewriteResult struct {
	Chunks  int // chunks in the output
	Copied  int // chunks whose stored blocks were kept or copied
	Written int // chunks written from new data
	Added   int
	Removed int
	// Method is the compression method of the chunks written from data.
	Method string
	// DeadBytes counts the stored bytes of the source that no chunk of
	// the output uses any more (Preserve); Compact drops them.
	DeadBytes uint64
	// DroppedSignature says that the source was signed and the output is
	// not: a changed container cannot keep a signature made with the
	// game's private key.
	DroppedSignature bool
	// Unchecked counts the kept chunks whose data could not be checked
	// against their chunk hashes, because no decoder reads their blocks
	// (Oodle); every other kept chunk was.
	Unchecked int
	// Identical says that the output's .utoc and .ucas files are byte for
	// byte the source's, as compared after writing (either layout: a
	// compact rewrite of a container with no gaps is identical too).
	Identical bool
	// SourceVerified says that this run checked the whole source and
	// found it sound: its TOC without a problem, every chunk's data
	// decoded and matching its hash (those of the chunks the changes
	// replace or remove too, which are checked without failing the
	// rewrite: replacing a damaged chunk repairs it) and every package
	// verified, with none left unchecked for want of a decoder. Never set
	// with SourceChecked, which checks none of it again.
	SourceVerified bool
}

// Rewrite writes src again to utocPath (and its .ucas partitions) with
// changes applied, in the given layout, through a Writer: the output is
// checked before it replaces anything, and a failed rewrite leaves no file.
// Every chunk kept from src is checked against its chunk meta hash while
// it is copied (see Writer.CopyChunk): a damaged source fails with a
// *DamagedChunkError, and nothing is written. The chunks the changes
// replace or remove are checked too, without failing the rewrite, to tell
// whether the whole source is sound (RewriteResult.SourceVerified); with
// RewriteOptions.SourceChecked none of it is checked again.
// The container keeps its id, version, block size, mount point, key GUID,
// partition size and perfect-hash setting. The container header is a chunk
// like any other: give its new bytes as a change when packages change.
//
// src is verified (VerifyInput, leaving out the data and blocks of the
// chunks that changes replace or remove): a container that already fails
// verification is refused with an *InputProblemsError (or the
// *DamagedChunkError of its first damaged package), since its output would
// either keep the problems or hide them under freshly computed tables.
// When its TOC alone passes, the packages are verified while the blocks
// are copied; either way that error comes before any other, and nothing
// is written.
//
// An output whose files are files of src (a .utoc or .ucas reached through
// a link, or a name that differs from src's only in the case of its
// extension, whose .ucas is src's) is refused with a
// *safefile.ClashError before anything is written: see ContainerUses.
func Rewrite(src *Container, utocPath string, changes []ChunkChange, opts *RewriteOptions) (*RewriteResult, error) {
	w, res, err := RewriteStaged(src, utocPath, changes, opts)
	if err != nil {
		return nil, err
	}
	return res, w.Commit()
}

// RewriteStaged does all of Rewrite but the renames: it returns the staged
// Writer (see Writer.Stage), for the caller to Commit or Abort together
// with other outputs.
func RewriteStaged(src *Container, utocPath string, changes []ChunkChange, opts *RewriteOptions) (*Writer, *RewriteResult, error) {
	if opts == nil {
		opts = &RewriteOptions{}
	}
	h := src.Header()
	if h.Encryption() != EncryptionNone && src.key == nil {
		return nil, nil, &ue.Advice{Setting: ue.SettingKey, Name: keyOption, Err: ErrKeyRequired,
			Before: fmt.Sprintf("%s: %v (key GUID %s); pass the key with ", src.file, ErrKeyRequired, h.EncryptionKeyGUID)}
	}
	if opts.Layout == Preserve && opts.Key != nil && (src.key == nil || *opts.Key != *src.key) {
		return nil, nil, fmt.Errorf("%s: the preserve layout keeps the stored blocks and so their encryption; use the compact layout to change the key", src.file)
	}
	if src.casErr != nil {
		return nil, nil, src.casErr
	}
	if err := CheckBlockSize(h.CompressionBlockSize); err != nil {
		return nil, nil, fmt.Errorf("%s: not written again: %w", src.file, err)
	}
	res := &RewriteResult{}
	method := rewriteMethod(src, opts)
	res.Method = method
	key := opts.Key
	if key == nil {
		key = src.key
	}
	_, psize := h.Partitions()
	if psize == unlimitedPartition {
		psize = 0
	}
	wo := &WriterOptions{
		Version: h.Version, ContainerID: h.ContainerID, BlockSize: h.CompressionBlockSize, Method: method,
		Key: key, KeyGUID: h.EncryptionKeyGUID, PartitionSize: psize, PerfectHash: len(src.toc.PerfectHashSeeds) > 0,
		MountPoint: src.MountPoint(), Workers: opts.Workers, Progress: opts.Progress, Verify: opts.Verify,
		Session: opts.Session, Codecs: opts.Codecs,
	}
	// The output keeps the source's cipher: AES-CTR blocks keep their IVs
	// (preserve) or are copied with them (compact). A version 10 source
	// encrypted anew gets AES-CTR, as Pack writes for UE 6.0.
	wo.CTR = key != nil && (h.Encryption() == EncryptionAESCTR || h.Encryption() == EncryptionNone && h.Version.HasEncryptionMethod())
	if h.Version == VersionPerfectHash || h.Version == VersionRemovedOnDemandMetaData || !h.Version.Known() {
		return nil, nil, fmt.Errorf("%s: unrmod does not write TOC version %d (%v)", src.file, h.Version, h.Version)
	}
	if h.Version < VersionDirectoryIndex {
		return nil, nil, fmt.Errorf("%s: TOC version %d (UE 4.25) is not written; UE 4.26 and later read version 2", src.file, h.Version)
	}
	uses := append(ContainerUses(src.file, false, false, "input container"), ContainerUses(utocPath, true, false, "output container")...)
	if err := safefile.CheckUses(uses...); err != nil {
		return nil, nil, err
	}
	byID := make(map[ChunkID]*ChunkChange, len(changes))
	for k := range changes {
		ch := &changes[k]
		if _, dup := byID[ch.ID]; dup {
			return nil, nil, fmt.Errorf("%s: chunk %v is changed twice", utocPath, ch.ID)
		}
		byID[ch.ID] = ch
	}
	// The input first: the packages the output keeps, its TOC and header
	// (the caller checked the packages it changes). A TOC whose structure
	// is sound is copied while the packages are decoded and verified, on
	// the cores the check of the copied blocks leaves (the copy never
	// replaces anything before the verification passed, and its failure
	// comes first); any other is verified before anything is written.
	//
	// A source whose files passed the whole check and are unchanged
	// (SourceChecked) gets the checks of its TOC only; its chunks are
	// copied unchecked.
	replaced := func(i int) bool { _, changed := byID[src.chunks[i].ID]; return changed }
	verified := make(chan error, 1)
	var whole bool
	tocOK := src.Verify(&VerifyOptions{StructureOnly: true}).OK()
	remembered := opts.SourceChecked && tocOK
	switch {
	case remembered:
		verified <- nil
	case tocOK:
		go func() { verified <- src.verifyInputWhole(replaced, true, opts.Workers, true, &whole) }()
	default:
		if err := src.VerifyInput(replaced, true, opts.Workers); err != nil {
			return nil, nil, err
		}
		verified <- nil
	}
	w, err := NewWriter(utocPath, wo)
	if err != nil {
		if verr := <-verified; verr != nil {
			return nil, nil, verr
		}
		return nil, nil, err
	}
	w.noCheck = opts.noCheck || remembered
	if opts.Layout == Preserve {
		err = w.preserve(src, byID, res)
	} else {
		err = w.compact(src, byID, res)
	}
	if err == nil {
		// Added chunks, in the order given.
		for k := range changes {
			ch := &changes[k]
			if _, ok := src.Find(ch.ID); ok {
				continue
			}
			if ch.Data == nil {
				err = fmt.Errorf("%s: chunk %v is not in the container: nothing to remove", src.file, ch.ID)
				break
			}
			if err = w.AddChunk(ch.ID, ch.Path, ch.Data); err != nil {
				break
			}
			w.changed = true
			res.Added++
			res.Written++
		}
	}
	if verr := <-verified; verr != nil {
		w.Abort()
		return nil, nil, verr
	}
	if err != nil {
		w.Abort()
		return nil, nil, err
	}
	if err := w.Stage(); err != nil {
		return nil, nil, err
	}
	for _, c := range w.chunks {
		if !c.removed {
			res.Chunks++
		}
	}
	res.DroppedSignature = h.ContainerFlags&FlagSigned != 0 && w.changed
	res.Unchecked = w.UncheckedChunks()
	res.SourceVerified = whole && res.Unchecked == 0 && !opts.noCheck
	if srcTOC, err := src.toc.AppendBinary(nil); err == nil {
		if res.Identical, err = w.sameFiles(srcTOC, src.parts); err != nil {
			w.Abort()
			return nil, nil, err
		}
	}
	return w, res, nil
}

// rewriteMethod picks the method of the chunks Rewrite writes from data.
func rewriteMethod(src *Container, opts *RewriteOptions) string {
	if opts.Method != "" {
		return opts.Codecs.Canonical(opts.Method)
	}
	m, _ := src.WriteMethod(opts.Codecs)
	return m
}

// WriteMethod returns the method new chunks of a container like c are
// compressed with: the first of c's methods codecs can write (nil: the
// built-in codecs), None for an uncompressed
// container, and Zlib, which every engine reads, when none of c's methods
// can be written (Oodle); substituted then says so.
func (c *Container) WriteMethod(codecs *ue.Codecs) (method string, substituted bool) {
	for _, m := range c.toc.Methods {
		if codec, _ := codecs.Lookup(m); codec.NewCompressor != nil || ue.IsNone(m) {
			return codec.Name, false
		}
	}
	if len(c.toc.Methods) > 0 {
		return "Zlib", true
	}
	return "None", false
}

// compact copies src's chunks in the order of their data (the order the
// engine wrote them), writing changed ones from their new data.
func (w *Writer) compact(src *Container, byID map[ChunkID]*ChunkChange, res *RewriteResult) error {
	order := make([]int, len(src.chunks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return src.chunks[order[a]].Offset < src.chunks[order[b]].Offset })
	for _, i := range order {
		ch := src.chunks[i]
		path := src.GamePath(i)
		if c, ok := byID[ch.ID]; ok {
			w.changed = true
			if c.Data == nil {
				res.Removed++
				continue
			}
			if err := w.AddChunkHeader(&ChunkHeader{ID: ch.ID, Path: path, MemoryMapped: ch.Meta.Flags&MetaMemoryMapped != 0}, c.Data); err != nil {
				return err
			}
			res.Written++
			continue
		}
		if err := w.CopyChunk(src, i, path); err != nil {
			return err
		}
		res.Copied++
	}
	return nil
}

// preserve starts the output as a copy of src's .ucas files and TOC, then
// writes the changed chunks' new data after it. The workers check every
// kept chunk against its hash while the partitions are copied.
func (w *Writer) preserve(src *Container, byID map[ChunkID]*ChunkChange, res *RewriteResult) (err error) {
	t := src.toc
	// The blocks of the chunks kept are kept as they are: each must name
	// a method (a TOC that does not cannot be written again).
	for i := range src.chunks {
		ch := &src.chunks[i]
		if _, changed := byID[ch.ID]; changed {
			continue
		}
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks && k < len(t.Blocks); k++ {
			if err := src.chunkBlockMethodError(ch.ID, k); err != nil {
				return err
			}
		}
	}
	w.methods = slices.Clone(t.Methods) // before start, which adds the method of new blocks
	if err := w.start(); err != nil {
		return err
	}
	checked := make(chan struct{})
	go func() {
		defer close(checked)
		for i := range src.chunks {
			if _, changed := byID[src.chunks[i].ID]; changed {
				continue // its blocks are left behind, unread
			}
			if w.firstErr() != nil || w.stopChecks.Load() {
				return
			}
			w.checkCopied(src, i)
		}
	}()
	// Every check is handed to a worker before the pipeline can stop; a
	// failed rewrite skips those not yet run.
	defer func() {
		if err != nil {
			w.stopChecks.Store(true)
		}
		<-checked
	}()
	// start staged partition 0; copy every source partition.
	for p, part := range src.parts {
		if p > 0 {
			if err := w.newPartition(); err != nil {
				return err
			}
		}
		if err := w.copyInto(p, part.R, 0, part.Size); err != nil {
			return fmt.Errorf("copy %s: %w", part.Name, err)
		}
		w.sizes[p] = uint64(part.Size)
	}
	w.base = t
	w.blocks = slices.Clone(t.Blocks)
	if w.opts.CTR {
		w.ivs = slices.Clone(t.EncryptionIVs[:len(t.Blocks)])
	}
	w.sums = make([]blockSum, len(w.blocks)) // copied: checked against the source as they were
	w.pending = len(w.blocks)
	for i := range src.chunks {
		ch := &src.chunks[i]
		c := wchunk{ChunkHeader: ChunkHeader{ID: ch.ID, Path: src.GamePath(i), MemoryMapped: ch.Meta.Flags&MetaMemoryMapped != 0},
			off: ch.Offset, size: ch.Size, first: ch.FirstBlock, n: ch.NumBlocks, meta: ch.Meta, copied: true, metaKnown: true}
		c.storedRaw = storedRaw(ch.Type)
		w.byID[ch.ID] = len(w.chunks)
		w.chunks = append(w.chunks, c)
		if end := ch.Offset + w.span(ch.Size); end > w.virt {
			w.virt = end
		}
	}
	for i := range w.chunks {
		c := &w.chunks[i]
		change, ok := byID[c.ID]
		if !ok {
			res.Copied++
			continue
		}
		w.changed = true
		for k := c.first; k < c.first+c.n; k++ {
			res.DeadBytes += t.Blocks[k].StoredSize(true) // the engine pads every block to 16
		}
		if change.Data == nil {
			c.removed = true
			res.Removed++
			continue
		}
		c.copied, c.metaKnown = false, false
		c.off, c.first, c.n, c.size = w.virt, w.pending, 0, 0
		c.meta = ChunkMeta{Flags: c.meta.Flags & MetaMemoryMapped}
		w.chunkStart = true
		if err := w.fill(c, change.Data); err != nil {
			return err
		}
		w.virt += w.span(c.size)
		res.Written++
	}
	return nil
}

// buildPreserved lays out the TOC of a preserve rewrite: the source TOC
// with its chunk entries updated. Unchanged, it is the source TOC.
func (w *Writer) buildPreserved() (*TOC, error) {
	b := w.base
	t := &TOC{File: w.path, Header: b.Header, Methods: w.methods, Signatures: b.Signatures,
		DirectoryIndex: b.DirectoryIndex, OnDemandMetas: b.OnDemandMetas, Trailing: b.Trailing,
		PerfectHashSeeds: b.PerfectHashSeeds, ChunksWithoutPerfectHash: b.ChunksWithoutPerfectHash, EncryptionIVs: b.EncryptionIVs}
	h := &t.Header
	if _, psize := h.Partitions(); len(w.parts) > 1 && psize == unlimitedPartition {
		return nil, errors.New("internal error: partitions grew in an unpartitioned container")
	}
	if h.Version.HasPartitions() && h.PartitionCount > 1 {
		h.PartitionCount = uint32(len(w.parts))
	}
	if len(w.methods) > 0 {
		h.ContainerFlags |= FlagCompressed
	}
	// Keep only the method names a block uses beyond the source's own
	// (the method of new blocks is added up front).
	used := len(b.Methods)
	var live []int
	for i := range w.chunks {
		if !w.chunks[i].removed {
			live = append(live, i)
		}
	}
	if !w.changed {
		// Every block of the source is kept, those of no chunk too
		// (preserve checked the chunks' blocks).
		for k, bl := range w.blocks {
			if err := b.BlockMethodError(k); err != nil {
				return nil, err
			}
			used = max(used, int(bl.Method))
		}
		t.Methods = w.methods[:used]
		t.ChunkIDs, t.OffsetLengths, t.Metas, t.Blocks = b.ChunkIDs, b.OffsetLengths, b.Metas, w.blocks
		return t, nil
	}
	if t.Signatures != nil {
		t.Signatures = nil
		h.ContainerFlags &^= FlagSigned
	}
	if t.OnDemandMetas != nil {
		t.OnDemandMetas = nil
		h.ContainerFlags &^= FlagOnDemand
	}
	// The block table again, without the blocks of replaced and removed
	// chunks: chunks in the order of their data, each one's blocks in a
	// run, virtual offsets renumbered.
	byOff := slices.Clone(live)
	sort.SliceStable(byOff, func(a, c int) bool { return w.chunks[byOff[a]].off < w.chunks[byOff[c]].off })
	var blocks []CompressionBlock
	var ivs [][ivSize]byte
	for _, i := range byOff {
		c := &w.chunks[i]
		first := len(blocks)
		blocks = append(blocks, w.blocks[c.first:c.first+c.n]...)
		if w.opts.CTR {
			ivs = append(ivs, w.ivs[c.first:c.first+c.n]...)
		}
		c.first = first
		c.off = uint64(first) * w.bs
	}
	// Only the blocks of the chunks kept remain; each names a method
	// (preserve checked the source's, the Writer added its own).
	used = len(b.Methods)
	for _, bl := range blocks {
		if int(bl.Method) > len(w.methods) {
			return nil, fmt.Errorf("%s: internal error: a block names method %d of %d", w.path, bl.Method, len(w.methods))
		}
		used = max(used, int(bl.Method))
	}
	t.Methods = w.methods[:used]
	t.Blocks = blocks
	t.EncryptionIVs = ivs
	n := len(live)
	t.ChunkIDs, t.OffsetLengths, t.Metas = make([]ChunkID, n), make([]OffsetLength, n), make([]ChunkMeta, n)
	for p, i := range live {
		c := &w.chunks[i]
		m := c.meta
		if !c.metaKnown {
			for k := c.first; k < c.first+c.n; k++ {
				if blocks[k].Method != 0 {
					m.Flags |= MetaCompressed
				}
			}
		}
		t.ChunkIDs[p], t.OffsetLengths[p], t.Metas[p] = c.ID, OffsetLength{Offset: c.off, Length: c.size}, m
	}
	if err := w.finishTOC(t, live, len(b.PerfectHashSeeds) > 0, w.opts.MountPoint); err != nil {
		return nil, err
	}
	return t, nil
}
