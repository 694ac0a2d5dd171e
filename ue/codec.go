package ue

import (
	"bytes"
	stdgzip "compress/gzip"
	stdzlib "compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/pierrec/lz4/v4"

	"github.com/unrmod/unrmod/internal/inflate"
)

// A Decompressor decodes one compressed block: it fills dst, whose length
// is the block's uncompressed size, from src, and fails when src does not
// decode to exactly len(dst) bytes. dst may have DecompressSlack bytes of
// capacity beyond its length, which a Decompressor may overwrite to go
// faster. It is called from several goroutines at once.
type Decompressor func(dst, src []byte) error

// A Compressor compresses one block: it appends the compressed form of src
// to dst[:0] and returns it. A result that is not shorter than src makes a
// writer store the block uncompressed, as the engine does. It is called
// from several goroutines at once.
type Compressor func(dst, src []byte) ([]byte, error)

// DecompressSlack is the spare capacity beyond the block's size that lets
// the built-in Zlib decoder copy matches a word at a time.
const DecompressSlack = inflate.Slack

// Compression levels for the built-in Zlib and Gzip compressors, which
// take klauspost/compress's levels; DefaultCompression is its level 6.
const (
	DefaultCompression = zlib.DefaultCompression
	BestSpeed          = zlib.BestSpeed
	BestCompression    = zlib.BestCompression
)

// Codec is one compression method as the engine names it in a TOC's or a
// pak's method names. Any of its functions may be nil: the method is then
// known but cannot be decoded, or encoded, with this Codec.
type Codec struct {
	// Name is the method's name as the engine spells it: "Zlib", "Oodle".
	// Names match case-insensitively, as FNames do.
	Name string
	// Decompress decodes one block held in memory.
	Decompress Decompressor
	// DecompressUnchecked, when set, decodes like Decompress but may skip
	// the method's own checksum (zlib's Adler-32): callers use it when
	// they check a stronger hash of the output themselves.
	DecompressUnchecked Decompressor
	// NewReader, when set, decodes a block as a stream, without holding
	// it in memory: it returns a reader of the decompressed bytes of r,
	// which ends with the compressed stream. A reader that also has
	// Reset(io.Reader) error is reused for the next block.
	NewReader func(r io.Reader) (io.ReadCloser, error)
	// NewCompressor returns a Compressor at the given level (see
	// DefaultCompression); methods without levels ignore it.
	NewCompressor func(level int) Compressor
	// MaxExpansion is how many times its own size a block can decode to
	// at most (255 for LZ4), 0 when not known: readers refuse a block
	// that claims more before allocating for it.
	MaxExpansion int
}

// Codecs is a table of compression methods: the built-in None, Zlib, Gzip
// and LZ4 (raw LZ4 blocks, as the engine's LZ4_decompress_safe reads),
// plus those added with Register, such as an Oodle binding loaded at run
// time. A nil *Codecs has the built-ins only. Containers and paks decode
// and encode through it. It is safe for concurrent lookups once no more
// Register calls are made.
type Codecs struct {
	added map[string]Codec // by lower-case name
}

// NewCodecs returns a table with the built-in methods.
func NewCodecs() *Codecs { return &Codecs{added: map[string]Codec{}} }

// Register adds codec to the table, replacing the method of the same name
// (a built-in one too). It panics on an empty name.
func (c *Codecs) Register(codec Codec) {
	if codec.Name == "" {
		panic("ue: Codecs.Register of a codec without a name")
	}
	if c.added == nil {
		c.added = map[string]Codec{}
	}
	c.added[strings.ToLower(codec.Name)] = codec
}

// Lookup returns the codec of the named method (case-insensitive; "" is
// None) and whether the table knows it.
func (c *Codecs) Lookup(method string) (Codec, bool) {
	if c != nil && len(c.added) > 0 {
		if codec, ok := c.added[strings.ToLower(method)]; ok {
			return codec, true
		}
	}
	return builtin(method)
}

// CanDecode reports whether the table has a decoder for the named method.
func (c *Codecs) CanDecode(method string) bool {
	codec, _ := c.Lookup(method)
	return codec.Decompress != nil || codec.NewReader != nil
}

// Canonical spells a method the way its codec names it ("zlib" becomes
// "Zlib"), or returns it as it is when the table does not know it.
func (c *Codecs) Canonical(method string) string {
	if codec, ok := c.Lookup(method); ok {
		return codec.Name
	}
	return method
}

// IsNone reports whether method names no compression ("" or "None").
func IsNone(method string) bool { return method == "" || strings.EqualFold(method, "None") }

// The built-in codecs, made once: they hold only pools.
var builtins = sync.OnceValue(func() [4]Codec {
	none := Codec{Name: "None", Decompress: func(dst, src []byte) error {
		if len(src) != len(dst) {
			return fmt.Errorf("stored block of %d bytes, the block entry says %d", len(src), len(dst))
		}
		copy(dst, src)
		return nil
	}, NewReader: func(r io.Reader) (io.ReadCloser, error) { return io.NopCloser(r), nil }}
	return [4]Codec{none, zlibCodec(), gzipCodec(), lz4Codec()}
})

// builtin returns the built-in codec of method.
func builtin(method string) (Codec, bool) {
	b := builtins()
	switch {
	case IsNone(method):
		return b[0], true
	case strings.EqualFold(method, "Zlib"):
		return b[1], true
	case strings.EqualFold(method, "Gzip"):
		return b[2], true
	case strings.EqualFold(method, "LZ4"):
		return b[3], true
	}
	return Codec{Name: method}, false
}

// zlibCodec decodes with unrmod's own block decoder (internal/inflate),
// its tables reused through a pool, and streams with klauspost/compress.
func zlibCodec() Codec {
	pool := sync.Pool{New: func() any { return new(inflate.Inflater) }}
	dec := func(checksum bool) Decompressor {
		return func(dst, src []byte) error {
			f := pool.Get().(*inflate.Inflater)
			err := f.Zlib(dst, src, checksum)
			pool.Put(f)
			if err != nil {
				return zlibError(err, len(dst))
			}
			return nil
		}
	}
	return Codec{
		Name:                "Zlib",
		Decompress:          dec(true),
		DecompressUnchecked: dec(false),
		NewReader: func(r io.Reader) (io.ReadCloser, error) {
			zr, err := zlib.NewReader(r)
			if err != nil {
				return nil, err
			}
			return &zlibReader{zr}, nil
		},
		NewCompressor: func(level int) Compressor {
			return likeEngine(streamCompressor(func(w io.Writer) (resetWriter, error) { return zlib.NewWriterLevel(w, fastLevel(level)) }),
				streamCompressor(func(w io.Writer) (resetWriter, error) { return zlib.NewWriterLevel(w, zlib.HuffmanOnly) }),
				streamCompressor(func(w io.Writer) (resetWriter, error) { return stdzlib.NewWriterLevel(w, engineZlibLevel) }))
		},
	}
}

// zlibReader gives a zlib reader the Reset(io.Reader) error of the other
// stream readers.
type zlibReader struct{ io.ReadCloser }

func (z *zlibReader) Reset(r io.Reader) error { return z.ReadCloser.(zlib.Resetter).Reset(r, nil) }

// zlibError words an inflate error as a block decoding error.
func zlibError(err error, n int) error {
	switch err {
	case inflate.ErrShort:
		return fmt.Errorf("zlib stream ends before the %d bytes the block entry says", n)
	case inflate.ErrLong:
		return fmt.Errorf("zlib stream holds more than the %d bytes the block entry says", n)
	}
	return fmt.Errorf("zlib: %w", err)
}

// gzipCodec decodes and encodes single-member gzip streams.
func gzipCodec() Codec {
	var pool sync.Pool
	return Codec{
		Name: "Gzip",
		Decompress: func(dst, src []byte) error {
			gr, _ := pool.Get().(*gzip.Reader)
			var err error
			if gr == nil {
				gr, err = gzip.NewReader(bytes.NewReader(src))
			} else {
				err = gr.Reset(bytes.NewReader(src))
			}
			if err != nil {
				return fmt.Errorf("gzip: %w", err)
			}
			gr.Multistream(false)
			err = readExactly(gr, dst, "gzip")
			pool.Put(gr)
			return err
		},
		NewReader: func(r io.Reader) (io.ReadCloser, error) {
			gr, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			gr.Multistream(false)
			return &gzipReader{gr}, nil
		},
		NewCompressor: func(level int) Compressor {
			return likeEngine(streamCompressor(func(w io.Writer) (resetWriter, error) { return gzip.NewWriterLevel(w, fastLevel(level)) }),
				streamCompressor(func(w io.Writer) (resetWriter, error) { return gzip.NewWriterLevel(w, gzip.HuffmanOnly) }),
				streamCompressor(func(w io.Writer) (resetWriter, error) { return stdgzip.NewWriterLevel(w, engineZlibLevel) }))
		},
	}
}

// gzipReader reads one gzip member, also after Reset.
type gzipReader struct{ *gzip.Reader }

func (g *gzipReader) Reset(r io.Reader) error {
	if err := g.Reader.Reset(r); err != nil {
		return err
	}
	g.Multistream(false)
	return nil
}

// lz4Codec decodes and encodes raw LZ4 blocks: the game calls
// LZ4_decompress_safe, which does not read the LZ4 frame format.
func lz4Codec() Codec {
	pool := sync.Pool{New: func() any { return new(lz4.Compressor) }}
	return Codec{
		Name:         "LZ4",
		MaxExpansion: 255,
		Decompress: func(dst, src []byte) error {
			got, err := lz4.UncompressBlock(src, dst)
			if err != nil {
				return fmt.Errorf("LZ4 block: %w", err)
			}
			if got != len(dst) {
				return fmt.Errorf("LZ4 block decodes to %d bytes, the block entry says %d", got, len(dst))
			}
			return nil
		},
		NewCompressor: func(int) Compressor {
			return func(dst, src []byte) ([]byte, error) {
				need := lz4.CompressBlockBound(len(src))
				if cap(dst) < need {
					dst = make([]byte, need)
				}
				c := pool.Get().(*lz4.Compressor)
				n, err := c.CompressBlock(src, dst[:need])
				pool.Put(c)
				if err != nil {
					return nil, err
				}
				if n == 0 { // incompressible: the writer stores the block as it is
					return src, nil
				}
				return dst[:n], nil
			}
		},
	}
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

// engineZlibLevel is the level the engine compresses Zlib and Gzip blocks
// at: FCompression::CompressMemory calls zlib with Z_DEFAULT_COMPRESSION,
// which zlib takes as 6.
const engineZlibLevel = 6

// defaultZlibLevel is the klauspost/compress level the built-in Zlib and
// Gzip compressors use for DefaultCompression. klauspost itself takes
// DefaultCompression as its level 5; on cooked game data level 6 makes
// blocks 1-2.5% smaller (2.7-3.0% larger than zlib's level 6, the
// engine's, where level 5 makes them 3.9-5.5% larger) at 0.87 of level 5's
// speed, still 3-4 times the speed of Go's port of zlib at level 6.
const defaultZlibLevel = 6

// fastLevel is the klauspost level of a Zlib or Gzip compression level.
func fastLevel(level int) int {
	if level == DefaultCompression {
		return defaultZlibLevel
	}
	return level
}

// likeEngine returns a Compressor that compresses with fast and, when that
// does not make src smaller, tries again. A writer stores a block that
// does not shrink uncompressed, as the engine does; zlib at level 6 still
// shrinks nearly random data that klauspost's fast levels give up on, and
// without a second try such a block would be stored raw where the engine
// compresses it. The second try costs time only on blocks the fast level
// does not shrink.
//
// The second try is huffman first: Huffman coding of the bytes alone
// (klauspost's HuffmanOnly), which shrinks by its own what the fast levels
// give up on in cooked data (compressed audio and textures whose bytes
// are unevenly spread: about a fifth of a cooked game's blocks), within
// 0.4% of zlib's size and about 7 times as fast. It is skipped when the
// byte counts say no Huffman code can shrink the block (see
// literalsCanShrink). Only a block that Huffman coding does not shrink
// either goes to engine: Go's compress/flate at the engine's level, a
// port of zlib's own deflate with zlib's parameters for that level, which
// finds the few repeats of nearly random data.
//
// Random bytes (already compressed media) never shrink, and trying them
// again would make such blocks many times slower: the engine's try is
// skipped when a quick scan finds too few repeated bytes for any deflate
// stream to be shorter than the block (see repeatedBytes).
func likeEngine(fast, huffman, engine Compressor) Compressor {
	var tables sync.Pool
	return func(dst, src []byte) ([]byte, error) {
		out, err := fast(dst, src)
		if err != nil || len(out) < len(src) {
			return out, err
		}
		if literalsCanShrink(src) {
			if out, err = huffman(out[:0], src); err != nil || len(out) < len(src) {
				return out, err
			}
		}
		t, _ := tables.Get().(*matchTable)
		if t == nil {
			t = new(matchTable)
		}
		saved := repeatedBytes(src, t)
		tables.Put(t)
		if saved < minSavedForDeflate {
			return out, nil
		}
		return engine(out[:0], src)
	}
}

// literalsCanShrink reports whether a Huffman code of src's bytes could
// make a deflate stream shorter than src: the Shannon entropy of its byte
// counts is the least any prefix code of them takes, to which a dynamic
// block adds its code tables (minSavedForDeflate bytes at the very least).
// Random bytes fail at once, for the cost of counting them.
func literalsCanShrink(src []byte) bool {
	var counts [4][256]uint32
	i := 0
	for ; i+4 <= len(src); i += 4 {
		counts[0][src[i]]++
		counts[1][src[i+1]]++
		counts[2][src[i+2]]++
		counts[3][src[i+3]]++
	}
	for ; i < len(src); i++ {
		counts[0][src[i]]++
	}
	n := float64(len(src))
	bits := 0.0
	for b := range 256 {
		if c := counts[0][b] + counts[1][b] + counts[2][b] + counts[3][b]; c > 0 {
			bits -= float64(c) * math.Log2(float64(c)/n)
		}
	}
	return bits/8+minSavedForDeflate < n
}

// minSavedForDeflate is how many bytes matches must save before a deflate
// stream of data whose literals cost 8 bits each can be shorter than the
// data: the dynamic Huffman tables alone take more.
const minSavedForDeflate = 16

// matchTable is repeatedBytes' hash table of 4-byte sequences.
type matchTable [1 << 16]int32

// repeatedBytes estimates how many bytes the repeats of src could save a
// deflate stream: for every 4-byte sequence seen before (found through a
// hash table of the last position of each hash, as fast LZ compressors
// look), the match is extended and counted less the 3 bytes a match costs
// at most. It reads each byte a few times, many times faster than
// compressing.
func repeatedBytes(src []byte, t *matchTable) int {
	for i := range t {
		t[i] = -1
	}
	saved := 0
	for i := 0; i+4 <= len(src); {
		v := binary.LittleEndian.Uint32(src[i:])
		h := (v * 2654435761) >> 16
		cand := t[h]
		t[h] = int32(i)
		if cand >= 0 && i-int(cand) <= 32768 && binary.LittleEndian.Uint32(src[cand:]) == v {
			n := 4
			for i+n < len(src) && n < 258 && src[int(cand)+n] == src[i+n] {
				n++
			}
			saved += n - 3
			i += n
			continue
		}
		i++
	}
	return saved
}

// resetWriter is a stream compressor that can be reused.
type resetWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}

// streamCompressor makes a Compressor of a stream format (zlib, gzip),
// reusing its writers through a pool.
func streamCompressor(newWriter func(io.Writer) (resetWriter, error)) Compressor {
	var pool sync.Pool
	return func(dst, src []byte) ([]byte, error) {
		buf := bytes.NewBuffer(dst[:0])
		w, _ := pool.Get().(resetWriter)
		if w == nil {
			var err error
			if w, err = newWriter(buf); err != nil {
				return nil, err
			}
		} else {
			w.Reset(buf)
		}
		w.Write(src)
		err := w.Close()
		pool.Put(w)
		return buf.Bytes(), err
	}
}
