package iostore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/unrmod/unrmod/ue"
)

// fnvOffset and fnvPrime are the FNV-1 64-bit constants of the engine's
// chunk-id hash ([E5.1] IoStore.cpp).
const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// PerfectHash is the engine's hash of a chunk id for the perfect-hash
// tables: FNV-1 over the 12 id bytes (multiply, then XOR), starting from
// seed, or from the FNV offset basis when seed is 0.
func PerfectHash(id ChunkID, seed uint32) uint64 {
	h := uint64(fnvOffset)
	if seed != 0 {
		h = uint64(seed)
	}
	for _, b := range id {
		h = h*fnvPrime ^ uint64(b)
	}
	return h
}

// LookupPerfectHash finds id the way the engine does when the TOC has
// perfect-hash seeds: the seed of bucket hash(id) mod seed count gives the
// slot (negative seeds name it directly; seeds that point past the chunk
// count send the id to the overflow list). It returns the TOC entry index,
// or false when the id is not found, or the TOC has no seeds.
func (t *TOC) LookupPerfectHash(id ChunkID) (int, bool) {
	n := len(t.ChunkIDs)
	if len(t.PerfectHashSeeds) == 0 || n == 0 {
		return 0, false
	}
	seed := int64(t.PerfectHashSeeds[PerfectHash(id, 0)%uint64(len(t.PerfectHashSeeds))])
	var slot int64
	switch {
	case seed == 0:
		return 0, false
	case seed < 0:
		slot = -seed - 1
		if slot >= int64(n) {
			t.overflowOnce.Do(func() {
				t.overflow = make(map[ChunkID]int, len(t.ChunksWithoutPerfectHash))
				for _, k := range t.ChunksWithoutPerfectHash {
					if k >= 0 && int(k) < n {
						if _, dup := t.overflow[t.ChunkIDs[k]]; !dup {
							t.overflow[t.ChunkIDs[k]] = int(k)
						}
					}
				}
			})
			k, ok := t.overflow[id]
			return k, ok
		}
	default:
		slot = int64(PerfectHash(id, uint32(seed)) % uint64(n))
	}
	if t.ChunkIDs[slot] != id {
		return 0, false
	}
	return int(slot), true
}

// perfectHashPrimeCount is the size of the engine's table of seeds: the
// primes 2 … 7919, the first 1000 primes.
const perfectHashPrimeCount = 1000

// perfectHashPrimes returns the engine's seed table, the first 1000 primes.
func perfectHashPrimes() []uint32 {
	const limit = 7919
	composite := make([]bool, limit+1)
	primes := make([]uint32, 0, perfectHashPrimeCount)
	for p := 2; p <= limit; p++ {
		if composite[p] {
			continue
		}
		primes = append(primes, uint32(p))
		for q := p * p; q <= limit; q += p {
			composite[q] = true
		}
	}
	return primes
}

// maxPerfectHashChunks bounds the chunk count so that every seed, including
// the overflow marker -(overflow index) - count - 1, fits in an int32.
const maxPerfectHashChunks = 1 << 30

// BuildPerfectHash computes the perfect-hash tables of a TOC whose chunk ids
// are ids, with the engine's algorithm (docs/containers.md, "Writing the
// table of contents"), so that the result is what the engine writes for the
// same ids:
//
//   - there are max(1, round(len(ids)/2)) seeds, and id i belongs to bucket
//     PerfectHash(id, 0) mod that count;
//   - buckets are taken largest first, ordered by the engine's own
//     (unstable) sort, which decides between buckets of equal size;
//   - a bucket of two or more ids gets the first prime of 2, 3, 5 … 7919
//     that sends all its ids to distinct free slots (PerfectHash(id, prime)
//     mod len(ids)); a bucket no prime fits goes to the overflow list;
//   - each single-id bucket then takes the lowest free slot, stored as the
//     negative seed -slot-1, and the overflow ids take the slots left, in
//     order.
//
// slot[i] is the TOC index id i must move to: permute the chunk ids, their
// offsets and lengths, metas (and version 6 on-demand metas) into slot
// order, and give the directory index the new indices (TOC.ApplyPerfectHash
// does the permuting). overflow lists the slots of the ids without a perfect
// hash, which LookupPerfectHash finds through a map; it is empty unless a
// bucket failed every prime, and needs TOC version 5 or later. With no ids
// the result is the one zero seed the engine writes.
//
// Duplicate ids are refused (the engine can find only one of them), as are
// 2^30 ids or more; errors are *ue.FormatError values wrapping ErrNotEncodable.
// The cost is linear in len(ids) apart from sorting the buckets.
func BuildPerfectHash(ids []ChunkID) (seeds, overflow []int32, slot []int, err error) {
	return buildPerfectHash(ids, perfectHashPrimes())
}

// buildPerfectHash is BuildPerfectHash with the table of seeds to try
// (tests shorten it to force overflow).
func buildPerfectHash(ids []ChunkID, primes []uint32) (seeds, overflow []int32, slot []int, err error) {
	n := len(ids)
	if n >= maxPerfectHashChunks {
		return nil, nil, nil, encodeError("", "chunk ids", "%d chunks: perfect-hash seeds are int32, at most %d chunks", n, maxPerfectHashChunks-1)
	}
	first := make(map[ChunkID]int, n)
	for i, id := range ids {
		if j, dup := first[id]; dup {
			return nil, nil, nil, encodeError("", fmt.Sprintf("chunk id %d", i), "%v is also chunk id %d: a perfect hash can find only one", id, j)
		}
		first[id] = i
	}
	seedCount := max(1, (n+1)/2) // the engine rounds n/2 half up
	seeds = make([]int32, seedCount)
	slot = make([]int, n)
	if n == 0 {
		return seeds, nil, slot, nil
	}

	// Buckets as one array of ids (in input order within a bucket) and
	// offsets into it.
	bucket := make([]int32, n)
	size := make([]int32, seedCount)
	for i, id := range ids {
		bucket[i] = int32(PerfectHash(id, 0) % uint64(seedCount))
		size[bucket[i]]++
	}
	start := make([]int32, seedCount+1)
	for b := range size {
		start[b+1] = start[b] + size[b]
	}
	members := make([]int32, n)
	fill := slices.Clone(start[:seedCount])
	for i, b := range bucket {
		members[fill[b]] = int32(i)
		fill[b]++
	}
	order := make([]int32, seedCount)
	for b := range order {
		order[b] = int32(b)
	}
	engineSort(order, func(a, b int32) bool { return size[a] > size[b] })

	taken := make([]bool, n)
	tried := make([]uint32, n) // slots used by the current try: tried[s] == try
	try := uint32(0)
	var overflowIDs []int32
	for _, b := range order {
		ms := members[start[b]:start[b+1]]
		if len(ms) <= 1 {
			break
		}
		seed := uint32(0)
		for _, p := range primes {
			try++
			fits := true
			for _, i := range ms {
				s := PerfectHash(ids[i], p) % uint64(n)
				if taken[s] || tried[s] == try {
					fits = false
					break
				}
				tried[s] = try
			}
			if fits {
				seed = p
				break
			}
		}
		if seed == 0 {
			seeds[b] = -int32(len(overflowIDs)) - int32(n) - 1
			overflowIDs = append(overflowIDs, ms...)
			continue
		}
		seeds[b] = int32(seed)
		for _, i := range ms {
			s := PerfectHash(ids[i], seed) % uint64(n)
			taken[s] = true
			slot[i] = int(s)
		}
	}
	next := 0 // the lowest slot that may be free
	nextFree := func() int {
		for taken[next] {
			next++
		}
		taken[next] = true
		return next
	}
	for _, b := range order {
		if start[b+1]-start[b] == 1 {
			i := members[start[b]]
			s := nextFree()
			seeds[b] = -int32(s) - 1
			slot[i] = s
		}
	}
	for _, i := range overflowIDs {
		s := nextFree()
		slot[i] = s
		overflow = append(overflow, int32(s))
	}
	return seeds, overflow, slot, nil
}

// engineSort sorts a in place exactly as the engine's Algo::Sort (an
// introspective sort) does, so that elements less does not order come out
// in the engine's order: quicksort on the middle element, selection sort
// for runs of at most 8, heap sort below a depth of 2·ln(len(a)).
func engineSort(a []int32, less func(x, y int32) bool) {
	if len(a) < 2 {
		return
	}
	type run struct {
		lo, hi int // inclusive
		depth  uint32
	}
	stack := []run{{0, len(a) - 1, uint32(float32(math.Log(float64(float32(len(a))))) * 2)}}
	top := 0 // the run being sorted; pushing puts a run here and moves up
	push := func(r run) {
		if top == len(stack) {
			stack = append(stack, r)
		} else {
			stack[top] = r
		}
		top++
	}
	for ; top >= 0; top-- {
		cur := stack[top]
		for {
			count := cur.hi - cur.lo + 1
			if cur.depth == 0 {
				engineHeapSort(a[cur.lo:cur.hi+1], less)
				break
			}
			if count <= 8 {
				for cur.hi > cur.lo {
					m := cur.lo
					for k := cur.lo + 1; k <= cur.hi; k++ {
						if less(a[m], a[k]) {
							m = k
						}
					}
					a[m], a[cur.hi] = a[cur.hi], a[m]
					cur.hi--
				}
				break
			}
			mid := cur.lo + count/2
			a[mid], a[cur.lo] = a[cur.lo], a[mid]
			i, j := cur.lo, cur.hi+1
			for {
				for i++; i <= cur.hi && !less(a[cur.lo], a[i]); i++ {
				}
				for j--; j > cur.lo && !less(a[j], a[cur.lo]); j-- {
				}
				if i > j {
					break
				}
				a[i], a[j] = a[j], a[i]
			}
			a[cur.lo], a[j] = a[j], a[cur.lo]
			cur.depth--
			// Keep the bigger part for later and go on with the smaller.
			if j-1-cur.lo >= cur.hi-i {
				if cur.lo+1 < j {
					push(run{cur.lo, j - 1, cur.depth})
				}
				if cur.hi > i {
					cur.lo = i
					continue
				}
			} else {
				if cur.hi > i {
					push(run{i, cur.hi, cur.depth})
				}
				if cur.lo+1 < j {
					cur.hi = j - 1
					continue
				}
			}
			break
		}
	}
}

// engineHeapSort is the engine's heap sort: a max-heap under less, sifted
// down from the last parent, then the root swapped to the end.
func engineHeapSort(a []int32, less func(x, y int32) bool) {
	greater := func(x, y int32) bool { return less(y, x) }
	siftDown := func(i, n int) {
		for 2*i+1 < n {
			m := 2*i + 1
			if r := m + 1; r < n && !greater(a[m], a[r]) {
				m = r
			}
			if !greater(a[m], a[i]) {
				return
			}
			a[i], a[m] = a[m], a[i]
			i = m
		}
	}
	n := len(a)
	for i := (n - 2) / 2; i >= 0; i-- {
		siftDown(i, n)
	}
	for k := n - 1; k > 0; k-- {
		a[0], a[k] = a[k], a[0]
		siftDown(0, k)
	}
}

// ApplyPerfectHash builds the perfect-hash tables of t's chunk ids with
// BuildPerfectHash, moves every chunk to its slot (ChunkIDs, OffsetLengths,
// Metas and, in a version 6 container flagged OnDemand, the per-chunk part
// of OnDemandMetas; compression blocks stay where they are) and stores the
// seeds and the overflow list in t. It returns perm, where perm[i] is the
// new index of the chunk that was at index i: directory-index UserData must
// be remapped through it, and the engine builds the index after the
// permutation (rebuild it with NewDirectoryIndex, Chunk = perm[old chunk]).
// It fails when the version has no seeds (before 4), when an id has no
// perfect hash and the version has no overflow list (4), on duplicate ids
// and when the per-chunk slices differ in length. It must not run
// concurrently with other uses of t.
func (t *TOC) ApplyPerfectHash() (perm []int, err error) {
	return t.applyPerfectHash(perfectHashPrimes())
}

// applyPerfectHash is ApplyPerfectHash with the table of seeds to try.
func (t *TOC) applyPerfectHash(primes []uint32) ([]int, error) {
	v := t.Header.Version
	n := len(t.ChunkIDs)
	switch {
	case !v.HasPerfectHash():
		return nil, encodeError(t.File, "perfect-hash seeds", "TOC version %d has no perfect-hash seeds (from version %d)", v, VersionPerfectHash)
	case len(t.OffsetLengths) != n || len(t.Metas) != n:
		return nil, encodeError(t.File, "TOC", "%d chunk ids, %d offsets and lengths and %d chunk metas: each chunk needs one of each", n, len(t.OffsetLengths), len(t.Metas))
	}
	onDemand := len(t.OnDemandMetas) > 0
	if onDemand && len(t.OnDemandMetas) < n*onDemandMetaHashSize {
		return nil, encodeError(t.File, "on-demand metas", "%d bytes, fewer than the %d of %d chunks", len(t.OnDemandMetas), n*onDemandMetaHashSize, n)
	}
	seeds, overflow, slot, err := buildPerfectHash(t.ChunkIDs, primes)
	if err != nil {
		var fe *ue.FormatError
		if errors.As(err, &fe) {
			fe.File = t.File
		}
		return nil, err
	}
	if len(overflow) > 0 && !v.HasPerfectHashOverflow() {
		return nil, encodeError(t.File, "chunks without perfect hash", "%d chunks have no perfect hash, and TOC version %d has no overflow list (from version %d)", len(overflow), v, VersionPerfectHashWithOverflow)
	}
	ids := make([]ChunkID, n)
	ols := make([]OffsetLength, n)
	metas := make([]ChunkMeta, n)
	for i, s := range slot {
		ids[s], ols[s], metas[s] = t.ChunkIDs[i], t.OffsetLengths[i], t.Metas[i]
	}
	if onDemand {
		od := bytes.Clone(t.OnDemandMetas)
		for i, s := range slot {
			copy(od[s*onDemandMetaHashSize:(s+1)*onDemandMetaHashSize], t.OnDemandMetas[i*onDemandMetaHashSize:])
		}
		t.OnDemandMetas = od
	}
	t.ChunkIDs, t.OffsetLengths, t.Metas = ids, ols, metas
	t.PerfectHashSeeds, t.ChunksWithoutPerfectHash = seeds, overflow
	t.Header.TocChunkPerfectHashSeedsCount = uint32(len(seeds))
	t.Header.TocChunksWithoutPerfectHashCount = uint32(len(overflow))
	t.overflowOnce = sync.Once{}
	t.overflow = nil
	return slot, nil
}
