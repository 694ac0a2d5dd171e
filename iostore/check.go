package iostore

import (
	"errors"
)

// Checking chunk data against its chunk meta.
//
// Whatever takes a chunk's data from a container to write it elsewhere
// (ReadChunk, OpenChunk, and the Writer's CopyChunk and preserve layout,
// which copy stored blocks without decoding them) checks that data against
// the chunk's meta hash first, so that a damaged container is never passed
// on under a fresh hash, or copied as if it were sound. Every TOC version
// has a meta for every chunk: there is no chunk without a hash. An all-zero
// hash gets no exception: the engine's writer hashes every chunk it writes,
// and the engine's tools compare the hash as it is; the runtime never reads
// metas at all.

// checkChunk decodes chunk i and compares its hash with the chunk meta,
// calling fn, when set, with the consecutive pieces of its data (valid
// only during the call). A block that does not decode, or data that does
// not match the hash, gives a *DamagedChunkError; a block of a method
// unrmod cannot decode (Oodle) gives the *MethodError, wrapped, since the
// data then cannot be checked.
func (c *Container) checkChunk(i int, s *scratch, fn func([]byte) error) error {
	// zlib's Adler-32 of each block is a weaker check of the same bytes:
	// it is skipped, and used only to find the damaged block once the
	// hash says there is one.
	prev := s.hashChecked
	s.hashChecked = true
	defer func() { s.hashChecked = prev }()
	h := c.newChunkHasher(s)
	err := c.eachPart(i, s, func(p []byte) error {
		h.Write(p)
		if fn != nil {
			return fn(p)
		}
		return nil
	})
	if err != nil {
		return c.blockDamage(i, err)
	}
	ok, sum := h.matches(c, i, s.hash)
	s.hash = sum
	if ok {
		return nil
	}
	return c.hashMismatch(i, sum)
}

// blockDamage turns a block's decoding error for chunk i into a
// *DamagedChunkError; other errors are returned as they are, and so are
// a missing key and a method unrmod cannot decode, which say nothing
// about the data.
func (c *Container) blockDamage(i int, err error) error {
	var be *blockError
	if !errors.As(err, &be) {
		return err
	}
	if errors.Is(be.err, ErrKeyRequired) || errors.Is(be.err, ErrUnsupportedMethod) {
		return be.err
	}
	return c.damaged(i, be.block, be.err)
}

// hashMismatch returns the error of chunk i, whose data hashes to sum
// rather than to its meta hash. It decodes the chunk again with zlib's
// Adler-32 checked, which names the damaged block when it is a zlib one.
func (c *Container) hashMismatch(i int, sum []byte) error {
	s := getScratch()
	defer putScratch(s)
	if err := c.eachPart(i, s, func([]byte) error { return nil }); err != nil {
		var d *DamagedChunkError
		if errors.As(c.blockDamage(i, err), &d) {
			return d
		}
	}
	d := c.damaged(i, -1, ErrHashMismatch)
	copy(d.Got[:], sum)
	return d
}

// damaged builds the *DamagedChunkError of chunk i.
func (c *Container) damaged(i, block int, err error) *DamagedChunkError {
	ch := &c.chunks[i]
	return &DamagedChunkError{File: c.file, Index: i, ID: ch.ID, Type: ch.Type, Path: c.GamePath(i), Block: block,
		FirstBlock: ch.FirstBlock, NumBlocks: ch.NumBlocks, Want: ch.Meta.Hash20(), Err: err, hint: c.wrongKeyHint()}
}
