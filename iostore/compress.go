package iostore

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/pierrec/lz4/v4"
)

// codec identifies a decoder for a compression method name.
type codec uint8

const (
	codecNone codec = iota
	codecZlib
	codecGzip
	codecLZ4
	codecUnsupported
)

// codecOf maps a method name to its decoder. FName comparison in the engine
// is case-insensitive, so "zlib" and "LZ4" match too.
func codecOf(name string) codec {
	switch {
	case name == "" || strings.EqualFold(name, "None"):
		return codecNone
	case strings.EqualFold(name, "Zlib"):
		return codecZlib
	case strings.EqualFold(name, "Gzip"):
		return codecGzip
	case strings.EqualFold(name, "LZ4"):
		return codecLZ4
	}
	return codecUnsupported
}

// CanDecode reports whether unrmod can decompress blocks of the named
// method: None, Zlib, Gzip and LZ4 (raw blocks).
func CanDecode(method string) bool { return codecOf(method) != codecUnsupported }

// scratch holds per-goroutine buffers and decoder state, reused through a
// pool so that reading a block allocates nothing in the steady state.
type scratch struct {
	raw  []byte // stored bytes as read (and decrypted in place)
	run  []byte // stored bytes of consecutive blocks, read at once
	out  []byte // decompressed bytes, with inflateSlack bytes of capacity to spare
	src  bytes.Reader
	inf  *inflater // zlib decoder, its tables reused per block
	gr   *gzip.Reader
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

// decompress decodes src into exactly n bytes in s.out and returns them.
func (s *scratch) decompress(c codec, src []byte, n int) ([]byte, error) {
	s.out = grow(s.out, n+inflateSlack)[:n]
	dst := s.out
	switch c {
	case codecZlib:
		if s.inf == nil {
			s.inf = new(inflater)
		}
		if err := s.inf.zlib(dst, src, !s.hashChecked); err != nil {
			return nil, zlibError(err, n)
		}
		return dst, nil
	case codecGzip:
		s.src.Reset(src)
		if s.gr == nil {
			gr, err := gzip.NewReader(&s.src)
			if err != nil {
				return nil, fmt.Errorf("gzip: %w", err)
			}
			s.gr = gr
		} else if err := s.gr.Reset(&s.src); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		s.gr.Multistream(false)
		return dst, readExactly(s.gr, dst, "gzip")
	case codecLZ4:
		got, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return nil, fmt.Errorf("LZ4 block: %w", err)
		}
		if got != n {
			return nil, fmt.Errorf("LZ4 block decodes to %d bytes, the block entry says %d", got, n)
		}
		return dst, nil
	}
	return nil, fmt.Errorf("no decoder for codec %d", c)
}

// readExactly fills dst from r and checks that the stream ends there.
func readExactly(r io.Reader, dst []byte, what string) error {
	if _, err := io.ReadFull(r, dst); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("%s stream ends before the %d bytes the block entry says", what, len(dst))
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	var one [1]byte
	if n, err := r.Read(one[:]); n > 0 {
		return fmt.Errorf("%s stream holds more than the %d bytes the block entry says", what, len(dst))
	} else if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// zlibError words an inflater error as a block decoding error.
func zlibError(err error, n int) error {
	switch err {
	case errInflateShort:
		return fmt.Errorf("zlib stream ends before the %d bytes the block entry says", n)
	case errInflateLong:
		return fmt.Errorf("zlib stream holds more than the %d bytes the block entry says", n)
	}
	return fmt.Errorf("zlib: %w", err)
}
