package iostore

import (
	"hash"
	"sync"

	"github.com/unrmod/unrmod/ue"
)

// scratch holds per-goroutine buffers and decoder state, reused through a
// pool so that reading a block allocates nothing in the steady state.
type scratch struct {
	raw  []byte // stored bytes as read (and decrypted in place)
	run  []byte // stored bytes of consecutive blocks, read at once
	out  []byte // decompressed bytes, with ue.DecompressSlack bytes of capacity to spare
	hash []byte
	// hashers are the chunk hashes by algorithm, made on first use (see
	// newChunkHasher).
	hashers [2]hash.Hash
	// hashChecked says that the caller checks the chunk-meta hash of all
	// the data it decodes with this scratch: the Adler-32 of each zlib
	// block, a weaker check of the same bytes, is then skipped. A
	// corrupt block still fails, as a hash mismatch of its chunk.
	hashChecked bool
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	s.hashChecked = false
	scratchPool.Put(s)
}

// grow returns b resized to n bytes, reallocating only when needed.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// decompress decodes src with codec into exactly n bytes in s.out and
// returns them.
func (s *scratch) decompress(codec ue.Codec, src []byte, n int) ([]byte, error) {
	s.out = grow(s.out, n+ue.DecompressSlack)[:n]
	dec := codec.Decompress
	if s.hashChecked && codec.DecompressUnchecked != nil {
		dec = codec.DecompressUnchecked
	}
	if err := dec(s.out, src); err != nil {
		return nil, err
	}
	return s.out, nil
}
