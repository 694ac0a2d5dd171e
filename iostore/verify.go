package iostore

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// VerifyOptions configures Verify.
type VerifyOptions struct {
	// Workers is the number of chunks checked at once; 0 means GOMAXPROCS.
	Workers int
	// StructureOnly skips reading the .ucas: only the TOC and directory
	// index are checked.
	StructureOnly bool
	// Skip, when set, leaves the chunks (TOC entry indexes) it returns true
	// for out of the data checks: their blocks are not decoded or hashed.
	// A writer skips the chunks it copied block for block from a source.
	Skip func(i int) bool

	// maxPackage, when not 0, is the largest package chunk decoded as a
	// zen package (maxVerifyPackage otherwise).
	maxPackage uint64
	// damaged, when set (VerifyInput), gets the *DamagedChunkError of
	// every checked chunk whose data is damaged, by chunk index: what a
	// copy of the chunk would fail with (checkChunk).
	damaged []*DamagedChunkError
	// tocOK says that the checks of the TOC alone found nothing (a
	// StructureOnly Verify, which Rewrite runs first): they are not run
	// again.
	tocOK bool
	// quiet, when set, marks checked chunks whose problems are counted in
	// quietProblems rather than reported, and never recorded in damaged:
	// the chunks a rewrite replaces, checked only to tell whether the
	// whole source is sound.
	quiet         func(i int) bool
	quietProblems int
}

// Report is the result of Verify.
type Report struct {
	Problems []ue.Problem
	// HashesChecked counts chunks whose data was decoded and whose hash
	// matched or was reported.
	HashesChecked int
	// NotChecked counts chunks whose data could not be decoded for a reason
	// that is not a fault of the container (an Oodle block); NotCheckedWhy
	// says why.
	NotChecked    int
	NotCheckedWhy string
	// PackagesChecked counts package chunks decoded as zen packages and
	// checked against their store entries.
	PackagesChecked int
}

// OK reports whether no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Verify checks the container: every TOC section consistent and in bounds
// (chunk block ranges, block sizes within the block size, offsets within
// their partition and file, methods named, no block shared by two chunks or
// left unused, no duplicate chunk ids, perfect-hash slots), the directory
// index well formed, and then every block decoded and every chunk's hash
// compared with its meta (SHA-1 for 4.2x, BLAKE3-160 for UE5), and the
// container header checked against the chunks (see verifyContainerHeader).
// Chunks that need a method unrmod cannot decode (Oodle) are counted in
// NotChecked, not reported as problems; a missing key or .ucas is a problem,
// since the data then goes unchecked.
func (c *Container) Verify(opts *VerifyOptions) *Report {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	r := &Report{}
	add := func(structure string, off int64, format string, args ...any) {
		r.Problems = append(r.Problems, ue.Problem{Struct: structure, Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
	if !opts.tocOK {
		c.verifyTOC(r, add)
	}
	if opts.StructureOnly {
		return r
	}
	if c.casErr != nil {
		add("container data", -1, "%s; blocks and chunk hashes not checked", formatMsg(c.casErr))
		return r
	}
	h := &c.toc.Header
	if h.Encryption() != EncryptionNone && c.key == nil {
		add("container data", -1, "%v (key GUID %s%s); blocks and chunk hashes not checked", ErrKeyRequired, h.EncryptionKeyGUID, defaultKeyNote(h.EncryptionKeyGUID))
		return r
	}
	header, headerErr := c.verifyHeaderChunk()
	c.verifyData(r, opts, header)
	c.verifyContainerHeader(add, header, headerErr)
	return r
}

// duplicatePath is a file of the directory index whose path differs only
// in case from an earlier file's: its position in the files and the first
// file's entry.
type duplicatePath struct{ file, first int }

// duplicatePaths finds the files whose paths, lower-cased, are the path of
// an earlier file, in order. The files are told apart by hash, of their
// lower-cased paths (foldHash), and the paths compared only when two hashes
// agree: an index of many files costs a word per file, not a copy of every
// path.
func duplicatePaths(files []IndexedFile, hash func(string) uint64) []duplicatePath {
	var out []duplicatePath
	seen := make(map[uint64]int32, len(files)) // hash → position of the first file
	var exact map[string]int                   // lower-cased path → entry, for hashes two paths share
	for k := range files {
		f := &files[k]
		h := hash(f.Path)
		j, ok := seen[h]
		if !ok {
			seen[h] = int32(k)
			continue
		}
		if first := &files[j]; strings.ToLower(first.Path) == strings.ToLower(f.Path) {
			out = append(out, duplicatePath{k, first.Entry})
			continue
		}
		key := strings.ToLower(f.Path)
		if e, dup := exact[key]; dup {
			out = append(out, duplicatePath{k, e})
			continue
		}
		if exact == nil {
			exact = map[string]int{}
		}
		exact[key] = f.Entry
	}
	return out
}

// foldHash is the 64-bit FNV-1a hash of strings.ToLower(s), computed
// without the copy for ASCII s.
func foldHash(s string) uint64 {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = strings.ToLower(s)
			break
		}
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// verifyTOC runs the checks that need only the TOC.
func (c *Container) verifyTOC(r *Report, add func(string, int64, string, ...any)) {
	t := c.toc
	h := &t.Header
	if len(t.Trailing) > 0 {
		add("TOC", int64(t.Sections[len(t.Sections)-1].Offset+t.Sections[len(t.Sections)-1].Size), "%d bytes after the last section", len(t.Trailing))
	}
	if h.Version.HasPartitions() && h.PartitionCount == 0 && len(t.Blocks) > 0 {
		add("TOC header", 52, "PartitionCount is 0 (read as 1)")
	}

	// Directory index.
	indexAt := int64(-1)
	for _, s := range t.Sections {
		if s.Name == "directory index" {
			indexAt = s.Offset
		}
	}
	indexed := h.ContainerFlags&FlagIndexed != 0
	switch {
	case indexed && !h.Version.HasDirectoryIndex():
		add("TOC header", 80, "flag Indexed in TOC version %d, which has no directory index", h.Version)
	case !indexed && t.DirectoryIndex != nil:
		add("directory index", indexAt, "%d bytes present, but the container is not flagged Indexed", len(t.DirectoryIndex))
	}
	if c.indexErr != nil {
		add("directory index", indexAt, "not checked: %s", formatMsg(c.indexErr))
		r.Problems[len(r.Problems)-1].Err = c.indexErr
	}
	if x := c.index; x != nil {
		encrypted := h.Encryption() != EncryptionNone
		switch {
		case encrypted && h.Encryption() == EncryptionAESECB && len(t.DirectoryIndex)%16 != 0:
			add("directory index", indexAt, "%d bytes: an encrypted container's index must be padded to a multiple of 16 (stored in plain text)", len(t.DirectoryIndex))
		case !encrypted && x.Size != len(t.DirectoryIndex):
			add("directory index", indexAt+int64(x.Size), "%d bytes after the string table", len(t.DirectoryIndex)-x.Size)
		}
		for _, d := range duplicatePaths(x.Files, foldHash) {
			f := &x.Files[d.file]
			add(fmt.Sprintf("directory index file entry %d", f.Entry), indexAt, "path %q is also file entry %d", f.Path, d.first)
		}
		idx := make([]int, 0, len(c.dupPath))
		for i := range c.dupPath {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			add(c.chunkStruct(i), indexAt, "also listed as %s", strings.Join(c.dupPath[i], ", "))
		}
	}

	// Chunk ids and the perfect hash.
	ids := make(map[ChunkID]int, len(c.chunks))
	for i := range c.chunks {
		ch := &c.chunks[i]
		if j, dup := ids[ch.ID]; dup {
			add(c.chunkStruct(i), HeaderSize+int64(i)*chunkIDSize, "chunk id %s is also chunk %d", ch.ID, j)
		} else {
			ids[ch.ID] = i
		}
		if ch.Type == ChunkUnknown {
			add(c.chunkStruct(i), HeaderSize+int64(i)*chunkIDSize+11, "chunk type byte %d is not in the TOC version %d table", ch.ID.TypeByte(), h.Version)
		}
		if ch.Type == ChunkContainerHeader && zen.ContainerID(ch.ID.Value()) != h.ContainerID {
			add(c.chunkStruct(i), HeaderSize+int64(i)*chunkIDSize, "container-header chunk id 0x%016x differs from the container id %v", ch.ID.Value(), h.ContainerID)
		}
	}
	if len(t.PerfectHashSeeds) > 0 {
		for _, k := range t.ChunksWithoutPerfectHash {
			if k < 0 || int(k) >= len(c.chunks) {
				add("chunks without perfect hash", -1, "index %d is outside the %d chunks", k, len(c.chunks))
			}
		}
		for i := range c.chunks {
			if j, ok := t.LookupPerfectHash(c.chunks[i].ID); !ok || j != i {
				add(c.chunkStruct(i), HeaderSize+int64(i)*chunkIDSize, "the perfect-hash lookup does not find this chunk at its slot (the engine would not find it)")
			}
		}
	}

	// The engine rounds offsets to the block size with a mask.
	if err := CheckBlockSize(h.CompressionBlockSize); err != nil {
		add("TOC header", 44, "%v", err)
	}
	// Blocks: entries, placement, sharing, chunk layout.
	for k := range t.Blocks {
		if _, _, _, err := c.blockPlace(k); err != nil {
			add(fmt.Sprintf("compression block %d", k), c.blockEntryOffset(k), "%s", formatMsg(err))
		}
	}
	l := c.layout()
	bs := uint64(h.CompressionBlockSize)
	for i := range c.chunks {
		ch := &c.chunks[i]
		if ch.badRange {
			add(c.chunkStruct(i), c.chunkEntryOffset(i), "%s", c.rangeErr(i))
			continue
		}
		if o := l.sharedWith[i]; o >= 0 {
			add(c.chunkStruct(i), c.chunkEntryOffset(i), "compression block %d also belongs to chunk %d", l.sharedBlock[i], o)
			continue
		}
		// Each block holds what the chunk's layout says: a full block, or
		// the rest of the chunk. One problem per chunk is enough.
		end := ch.Offset + ch.Size
		bad, first := 0, -1
		var got uint32
		var want uint64
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			start := uint64(k) * bs
			w := min(end, start+bs) - start
			if u := uint64(t.Blocks[k].UncompressedSize); u < w || (ch.Offset%bs == 0 && u != w) {
				if bad == 0 {
					first, got, want = k, t.Blocks[k].UncompressedSize, w
				}
				bad++
			}
		}
		if bad > 0 {
			more := ""
			if bad > 1 {
				more = fmt.Sprintf(" (and %d more blocks of this chunk)", bad-1)
			}
			add(fmt.Sprintf("compression block %d of %s", first, c.chunkStruct(i)), c.blockEntryOffset(first),
				"uncompressed size %d, the chunk's layout needs %d%s", got, want, more)
		}
	}
	for _, r := range l.unused {
		if r[0] == r[1] {
			add(fmt.Sprintf("compression block %d", r[0]), c.blockEntryOffset(r[0]), "not used by any chunk")
		} else {
			add(fmt.Sprintf("compression blocks %d-%d", r[0], r[1]), c.blockEntryOffset(r[0]), "not used by any chunk")
		}
	}
	enc := h.Encryption() != EncryptionNone
	for k, o := range l.storedWith {
		if o >= 0 {
			b := t.Blocks[o]
			add(fmt.Sprintf("compression block %d", k), c.blockEntryOffset(k),
				"stored bytes at 0x%X overlap block %d (0x%X + %d)", t.Blocks[k].Offset, o, b.Offset, b.StoredSize(enc))
		}
	}
}

// formatMsg returns a ue.FormatError's message without its file and structure.
func formatMsg(err error) string {
	var fe *ue.FormatError
	if errors.As(err, &fe) {
		return fe.Msg
	}
	return err.Error()
}

// maxVerifyPackage bounds the package chunks verify decodes as zen
// packages (the others are hash-checked only): a package chunk is header and
// export data, megabytes at most in shipped games.
const maxVerifyPackage = 256 << 20

// verifyData decodes every chunk and compares its hash, in parallel. Package
// chunks (ExportBundleData, index 0) are also decoded as zen packages and
// checked, with their store entry in header when there is one.
func (c *Container) verifyData(r *Report, opts *VerifyOptions, header *zen.ContainerHeader) {
	t := c.toc
	workers, skip := opts.Workers, opts.Skip
	maxPackage := uint64(maxVerifyPackage)
	if opts.maxPackage > 0 {
		maxPackage = opts.maxPackage
	}
	// What became of each chunk, a byte per chunk; the few chunks with a
	// problem or a reason they were not checked keep it in found. A
	// container of many chunks needs no more.
	const (
		resChecked = 1 << iota
		resSkipped
		resPkgChecked
	)
	type finding struct {
		why         string
		problem     *ue.Problem
		pkgProblems []ue.Problem
	}
	states := make([]uint8, len(c.chunks))
	var foundMu sync.Mutex
	found := map[int]*finding{}
	note := func(i int, f *finding) {
		foundMu.Lock()
		found[i] = f
		foundMu.Unlock()
	}
	metaAt := int64(-1)
	for _, s := range t.Sections {
		if s.Name == "chunk metas" {
			metaAt = s.Offset
		}
	}
	ms := int64(t.Header.Version.MetaSize())
	// One lookup per package chunk: the index finds each store entry in
	// constant time, where a search of the header would make the check
	// quadratic in the number of packages.
	index := header.Index()
	all := make([]int, 0, len(c.chunks))
	for i := range c.chunks {
		if skip == nil || !skip(i) {
			all = append(all, i)
		}
	}
	// damage records, for VerifyInput, the *DamagedChunkError a copy of
	// chunk i would give: only for a chunk whose check found a problem,
	// or that is not checked here, since a chunk whose blocks decode
	// (zlib's Adler-32 included) to data of its hash is sound.
	damage := func(i int, s *scratch) {
		if opts.damaged == nil || c.chunks[i].badRange || c.undecodable(i) != "" || opts.quiet != nil && opts.quiet(i) {
			return
		}
		var d *DamagedChunkError
		if errors.As(c.checkChunk(i, s, nil), &d) {
			opts.damaged[i] = d
		}
	}
	c.forEachChunk(all, workers, func(i int, s *scratch) {
		ch := &c.chunks[i]
		if !c.blocksPlaced(i) || c.shareProblem(i) != "" {
			damage(i, s)
			return // the range, a block entry or sharing is already reported
		}
		if why := c.undecodable(i); why != "" {
			states[i] = resSkipped
			note(i, &finding{why: why})
			return
		}
		h := c.newChunkHasher(s)
		var pkg []byte
		isPkg := c.isPackageChunk(i, maxPackage)
		if isPkg {
			pkg = make([]byte, 0, ch.Size)
		}
		err := c.eachPart(i, s, func(p []byte) error {
			h.Write(p)
			if isPkg {
				pkg = append(pkg, p...)
			}
			return nil
		})
		if err != nil {
			note(i, &finding{problem: &ue.Problem{Struct: c.chunkStruct(i), Offset: -1, Msg: err.Error()}})
			damage(i, s)
			return
		}
		ok, got := h.matches(c, i, s.hash)
		s.hash = got
		states[i] = resChecked
		if !ok {
			m := ch.Meta.Hash20()
			msg := fmt.Sprintf("%s hash of the data is %x, the chunk meta says %x", h.algs[0], got[:20], m[:]) + c.wrongKeyHint()
			note(i, &finding{problem: &ue.Problem{Struct: c.chunkStruct(i), Offset: metaAt + int64(i)*ms, Msg: msg}})
			damage(i, s)
		} else if isPkg {
			states[i] |= resPkgChecked
			if q := c.verifyPackage(i, pkg, header, index); len(q) > 0 {
				note(i, &finding{pkgProblems: q})
			}
		}
	})
	whys := map[string]bool{}
	for _, st := range states {
		switch {
		case st&resSkipped != 0:
			r.NotChecked++
		case st&resChecked != 0:
			r.HashesChecked++
		}
		if st&resPkgChecked != 0 {
			r.PackagesChecked++
		}
	}
	for _, i := range slices.Sorted(maps.Keys(found)) {
		f := found[i]
		if states[i]&resSkipped != 0 {
			whys[f.why] = true
		}
		if opts.quiet != nil && opts.quiet(i) {
			if f.problem != nil || len(f.pkgProblems) > 0 {
				opts.quietProblems++
			}
			continue
		}
		if f.problem != nil {
			r.Problems = append(r.Problems, *f.problem)
		}
		r.Problems = append(r.Problems, f.pkgProblems...)
	}
	var why []string
	for w := range whys {
		why = append(why, w)
	}
	sort.Strings(why)
	r.NotCheckedWhy = strings.Join(why, "; ")
}

// isPackageChunk reports whether Verify decodes chunk i as a zen package:
// the first export-bundle chunk of a package, of max bytes at most (it
// reads the package whole).
func (c *Container) isPackageChunk(i int, max uint64) bool {
	ch := &c.chunks[i]
	return ch.Type == ChunkExportBundleData && ch.ID.Index(c.toc.Header.Version) == 0 && ch.Size <= max
}

// checkStoredSums reads back the stored bytes of chunks sel, as their
// block entries place them, and compares each chunk's stored sum (see
// storedSum) with want(i), the sum of what was written: the check of a
// Writer's output that needs no decoding. A chunk whose block entries are
// unusable is left to Verify, which reports them.
func (c *Container) checkStoredSums(sel []int, workers int, want func(i int) uint64) []ue.Problem {
	problems := make([]*ue.Problem, len(c.chunks))
	c.forEachChunk(sel, workers, func(i int, s *scratch) {
		if !c.blocksPlaced(i) {
			problems[i] = &ue.Problem{Struct: c.chunkStruct(i), Offset: -1, Msg: "block entries unusable"}
			return
		}
		ch := &c.chunks[i]
		var sum storedSum
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			raw, _, _, err := c.readStored(int(k), s)
			if err != nil {
				problems[i] = &ue.Problem{Struct: c.chunkStruct(i), Offset: -1, Msg: formatMsg(err)}
				return
			}
			b := c.toc.Blocks[k]
			var iv []byte
			if int(k) < len(c.toc.EncryptionIVs) {
				iv = c.toc.EncryptionIVs[k][:]
			}
			sum.add(storedBlockSum(raw, iv), b.CompressedSize, b.UncompressedSize)
		}
		if got := sum.d.Sum64(); got != want(i) {
			problems[i] = &ue.Problem{Struct: c.chunkStruct(i), Offset: -1,
				Msg: fmt.Sprintf("the stored blocks read back differ from what was written (sum %016x, wrote %016x)", got, want(i))}
		}
	})
	var out []ue.Problem
	for _, p := range problems {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// verifyPackage decodes chunk i's data as a zen package and checks it, with
// its store entry when header lists it (index is header.Index()). The
// container-header check reports package chunks without a store entry.
func (c *Container) verifyPackage(i int, data []byte, header *zen.ContainerHeader, index *zen.StoreIndex) []ue.Problem {
	where := c.chunkStruct(i)
	p, err := zen.DecodePackage(c.file, data, nil)
	if err != nil {
		return []ue.Problem{{Struct: where, Offset: -1, Msg: "does not decode as a zen package: " + withoutFile(err)}}
	}
	id := c.chunks[i].ID.PackageID()
	opts := &zen.VerifyOptions{ChunkPackageID: id}
	var out []ue.Problem
	if header != nil {
		opts.Entry = index.Entry(id)
		opts.Header = header
	}
	for _, q := range p.Problems(opts) {
		out = append(out, ue.Problem{Struct: where + " " + q.Struct, Offset: q.Offset, Msg: q.Msg})
	}
	return out
}

// blocksPlaced reports whether chunk i's block range and every block entry
// in it are usable.
func (c *Container) blocksPlaced(i int) bool {
	ch := &c.chunks[i]
	if ch.badRange {
		return false
	}
	for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
		if _, _, _, err := c.blockPlace(k); err != nil {
			return false
		}
	}
	return true
}

// undecodable returns why chunk i cannot be decoded by unrmod (a method
// without a decoder), or "" when it can.
func (c *Container) undecodable(i int) string {
	ch := &c.chunks[i]
	if ch.badRange {
		return ""
	}
	for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
		m := c.toc.Blocks[k].Method
		if m == 0 || int(m) > len(c.toc.Methods) {
			continue
		}
		if name := c.toc.Methods[m-1]; !c.codecs.CanDecode(name) {
			if isOodle(name) {
				return ErrOodle.Error()
			}
			return fmt.Sprintf("no decoder for compression method %q", name)
		}
	}
	return ""
}

// InputProblemsError is zen.InputProblemsError: the reason a write refused
// a container (or a package in it) that already fails verification.
type InputProblemsError = zen.InputProblemsError

// ErrInputDamaged is zen.ErrInputDamaged, which *InputProblemsError wraps.
var ErrInputDamaged = zen.ErrInputDamaged

// VerifyInput verifies what a write of c copies or rebuilds, before
// anything is written, and returns an *InputProblemsError when it finds a
// problem: the TOC and directory index (which every write lays out again or
// copies), the container-header chunk and, with packages, every package
// chunk, decoded as a zen package and checked as Verify checks it. The
// blocks of other chunks are checked as they are copied. A container write
// never rebuilds a structure that holds a problem (a perfect hash or
// directory index over a damaged chunk id would make the damage look
// valid) nor copies one silently.
//
// replaced, when not nil, says which chunks the write replaces or removes:
// their data is not checked, and the problems of their compression blocks
// are left out, since the output drops those blocks. Their TOC entries
// (chunk id, offset, length) are checked all the same: a write finds the
// chunk it replaces through them.
func (c *Container) VerifyInput(replaced func(i int) bool, packages bool, workers int) error {
	return c.verifyInput(replaced, packages, workers, false)
}

// verifyInput is VerifyInput; tocOK says that a StructureOnly Verify of c
// found nothing.
func (c *Container) verifyInput(replaced func(i int) bool, packages bool, workers int, tocOK bool) error {
	return c.verifyInputWhole(replaced, packages, workers, tocOK, nil)
}

// verifyInputWhole is verifyInput; with whole set, it also checks the data
// of the chunks replaced says the write replaces (and, with packages,
// verifies those that are packages), without failing on what it finds
// there, and sets *whole to whether every chunk it checked, those
// included, was sound and decoded (no Oodle block left unchecked for want
// of a decoder) and the TOC had no problem at all.
func (c *Container) verifyInputWhole(replaced func(i int) bool, packages bool, workers int, tocOK bool, whole *bool) error {
	hdr, hasHeader := c.ContainerHeaderChunk()
	v := c.toc.Header.Version
	isReplaced := func(i int) bool { return replaced != nil && replaced(i) }
	skip := func(i int) bool {
		if isReplaced(i) {
			return whole == nil
		}
		if hasHeader && i == hdr {
			return false
		}
		ch := &c.chunks[i]
		return !packages || ch.Type != ChunkExportBundleData || ch.ID.Index(v) != 0
	}
	// Damaged data in the chunks checked here gives the *DamagedChunkError
	// that names the chunk and its block, as a copy of it would (see
	// Writer.CopyChunk), before any structural problem: that of the first
	// damaged chunk. Verify finds it in the one pass over the data, on
	// all the workers. Chunks whose blocks no decoder reads (Oodle) are
	// left to Verify.
	damaged := make([]*DamagedChunkError, len(c.chunks))
	vo := &VerifyOptions{Workers: workers, Skip: skip, damaged: damaged, tocOK: tocOK}
	if whole != nil {
		*whole = false
		vo.quiet = isReplaced
	}
	r := c.Verify(vo)
	for _, d := range damaged {
		if d != nil {
			return d
		}
	}
	dropped := map[string]bool{}
	for i := range c.chunks {
		ch := &c.chunks[i]
		if !isReplaced(i) || ch.badRange {
			continue
		}
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			dropped[fmt.Sprintf("compression block %d", k)] = true
		}
	}
	var probs []ue.Problem
	for _, q := range r.Problems {
		if !dropped[q.Struct] {
			probs = append(probs, q)
		}
	}
	if len(probs) == 0 {
		if whole != nil {
			*whole = tocOK && len(r.Problems) == 0 && vo.quietProblems == 0 && r.NotChecked == 0
		}
		return nil
	}
	return &InputProblemsError{File: c.file, Problems: probs,
		Rebuilds: "a container write copies or rebuilds the structures that hold them, and writes only a container that verifies"}
}

// baseRebuilds says why a damaged base is refused.
const baseRebuilds = zen.BaseRebuilds

// VerifyHeaderInput verifies what a writer that takes c as its base reads
// (`pack` takes the versions and store entries from it): the container-header
// chunk, its hash and its agreement with the TOC. It returns an
// *InputProblemsError when it finds a problem.
func (c *Container) VerifyHeaderInput() error {
	r := &Report{}
	add := func(structure string, off int64, format string, args ...any) {
		r.Problems = append(r.Problems, ue.Problem{Struct: structure, Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
	if k, ok := c.ContainerHeaderChunk(); ok && c.casErr == nil {
		header, err := c.verifyHeaderChunk()
		c.verifyData(r, &VerifyOptions{Workers: 1, Skip: func(i int) bool { return i != k }}, nil)
		c.verifyContainerHeader(add, header, err)
	}
	if r.OK() {
		return nil
	}
	return &InputProblemsError{File: c.file, Part: "container header", Problems: r.Problems, Rebuilds: baseRebuilds}
}
