package iostore

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
