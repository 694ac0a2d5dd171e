package iostore

import (
	"os"
	"sync"
)

// BeforeCheck has w call f with its staged partitions and block entries
// after it wrote them and before it checks them, so that tests can damage
// what was written.
func BeforeCheck(w *Writer, f func(parts []*os.File, blocks []CompressionBlock)) { w.beforeCheck = f }

// BuildPerfectHashPrimes is BuildPerfectHash trying only the given seeds,
// so that tests can force the overflow list.
var BuildPerfectHashPrimes = buildPerfectHash

// ApplyPerfectHashPrimes is TOC.ApplyPerfectHash trying only the given seeds.
func ApplyPerfectHashPrimes(t *TOC, primes []uint32) ([]int, error) {
	return t.applyPerfectHash(primes)
}

// PerfectHashPrimes is the engine's table of seeds.
var PerfectHashPrimes = perfectHashPrimes

// EngineSort is the engine's unstable sort, for its own tests.
var EngineSort = engineSort

// RewriteUnchecked is Rewrite without the check of the chunks it copies
// against their source's hashes: the plain copy the checked one is
// measured against.
func RewriteUnchecked(src *Container, utocPath string, changes []ChunkChange, opts *RewriteOptions) (*RewriteResult, error) {
	o := *opts
	o.noCheck = true
	return Rewrite(src, utocPath, changes, &o)
}

// CheckChunks checks every chunk of c against its hash on all cores, as
// the Writer checks the chunks it copies, and returns the first error.
func CheckChunks(c *Container) error {
	all := make([]int, len(c.chunks))
	for i := range all {
		all[i] = i
	}
	var mu sync.Mutex
	var first error
	c.forEachChunk(all, 0, func(i int, s *scratch) {
		if err := c.checkChunk(i, s, nil); err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
	})
	return first
}

// ClampDirHandles is how many directory handles Extract takes for a
// descriptor limit.
var ClampDirHandles = clampDirHandles
