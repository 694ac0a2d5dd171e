package iostore

import (
	"fmt"
	"runtime"
	"sort"
)

// layout records how chunks and blocks share space. Engine-written
// containers share nothing: every block belongs to one chunk and every
// stored byte to one block. A hostile TOC can point thousands of chunks at
// the same blocks, or thousands of blocks at the same stored bytes, and make
// a small file decode to terabytes; Verify reports such sharing and Extract
// refuses it. Computing it costs O(n log n) in the chunk and block counts.
type layout struct {
	sharedWith  []int32 // per chunk: a chunk whose block range overlaps, or -1
	sharedBlock []int   // per chunk: the first block it shares
	storedWith  []int32 // per block: a block whose stored bytes overlap, or -1
	unused      [][2]int
}

func (c *Container) layout() *layout {
	c.layoutOnce.Do(func() { c.lay = c.computeLayout() })
	return c.lay
}

func (c *Container) computeLayout() *layout {
	t := c.toc
	l := &layout{
		sharedWith:  make([]int32, len(c.chunks)),
		sharedBlock: make([]int, len(c.chunks)),
		storedWith:  make([]int32, len(t.Blocks)),
	}
	// Chunks by first block; a chunk starting before the furthest end seen
	// so far shares blocks with the chunk that reached it.
	var order []int
	for i := range c.chunks {
		l.sharedWith[i] = -1
		if !c.chunks[i].badRange && c.chunks[i].NumBlocks > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return c.chunks[order[a]].FirstBlock < c.chunks[order[b]].FirstBlock })
	maxEnd, maxChunk := 0, -1
	covered := 0 // blocks before this are known used or reported
	for _, i := range order {
		ch := &c.chunks[i]
		end := ch.FirstBlock + ch.NumBlocks
		if ch.FirstBlock < maxEnd {
			l.sharedWith[i], l.sharedBlock[i] = int32(maxChunk), ch.FirstBlock
		}
		if ch.FirstBlock > covered {
			l.unused = append(l.unused, [2]int{covered, ch.FirstBlock - 1})
		}
		if end > maxEnd {
			maxEnd, maxChunk = end, i
		}
		covered = max(covered, end)
	}
	if covered < len(t.Blocks) {
		l.unused = append(l.unused, [2]int{covered, len(t.Blocks) - 1})
	}
	// Blocks by stored offset.
	enc := t.Header.Encryption() != EncryptionNone
	blocks := make([]int, len(t.Blocks))
	for k := range blocks {
		blocks[k] = k
		l.storedWith[k] = -1
	}
	sort.SliceStable(blocks, func(a, b int) bool { return t.Blocks[blocks[a]].Offset < t.Blocks[blocks[b]].Offset })
	var end uint64
	last := -1
	for _, k := range blocks {
		b := t.Blocks[k]
		if last >= 0 && b.Offset < end && b.StoredSize(enc) > 0 {
			l.storedWith[k] = int32(last)
		}
		if e := b.Offset + b.StoredSize(enc); e > end || last < 0 {
			end, last = e, k
		}
	}
	return l
}

// shareProblem says why chunk i shares space with another chunk, or "".
func (c *Container) shareProblem(i int) string {
	l := c.layout()
	if o := l.sharedWith[i]; o >= 0 {
		return fmt.Sprintf("compression block %d also belongs to chunk %d", l.sharedBlock[i], o)
	}
	ch := &c.chunks[i]
	for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
		if o := l.storedWith[k]; o >= 0 {
			return fmt.Sprintf("the stored bytes of compression block %d overlap those of block %d", k, o)
		}
	}
	return ""
}

// workerCount returns how many goroutines work on n items when the caller
// asks for workers: one per core for 0 or less, and never more than four
// per core (each holds buffers of a few blocks, and more only add memory)
// or than there are items (but at least one).
func workerCount(workers, n int) int {
	cores := runtime.GOMAXPROCS(0)
	if workers <= 0 {
		workers = cores
	}
	return max(min(workers, 4*cores, n), 1)
}

// checkReadable returns why chunk i must not be read into memory whole: its
// TOC entry is out of range, its .ucas is missing, a block entry is
// unusable, its blocks are shared with another chunk or
// overlap in the .ucas (so a small file would decode to far more), or it is
// larger than maxSize, the most its kind can hold. It reads nothing.
func (c *Container) checkReadable(i int, maxSize uint64, kind string) error {
	ch := &c.chunks[i]
	if ch.badRange {
		return errorf(c.file, c.chunkStruct(i), c.chunkEntryOffset(i), ErrCorrupt, "%s", c.rangeErr(i))
	}
	if c.casErr != nil {
		return c.casErr
	}
	for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
		if _, _, _, err := c.blockPlace(k); err != nil {
			return err
		}
	}
	if why := c.shareProblem(i); why != "" {
		return errorf(c.file, c.chunkStruct(i), c.chunkEntryOffset(i), ErrCorrupt,
			"%s: engine-written containers share no blocks, and unrmod does not decode shared ones", why)
	}
	if ch.Size > maxSize {
		return errorf(c.file, c.chunkStruct(i), c.chunkEntryOffset(i), ErrCorrupt,
			"is %d bytes; %s is at most %d", ch.Size, kind, maxSize)
	}
	return nil
}
