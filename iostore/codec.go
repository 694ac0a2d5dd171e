package iostore

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/pierrec/lz4/v4"
)

// A Compressor compresses one block for a container: it appends the
// compressed form of src to dst[:0] and returns it. The game decodes it
// with the method's decoder (docs/containers.md, "Compression and
// encryption"). A result that is not shorter than src makes the writer
// store the block uncompressed, as the engine does. A Compressor is called
// from several goroutines at once.
type Compressor func(dst, src []byte) ([]byte, error)

// Compression levels for the built-in Zlib and Gzip compressors.
const (
	DefaultCompression = zlib.DefaultCompression
	BestSpeed          = zlib.BestSpeed
	BestCompression    = zlib.BestCompression
)

// builtinCompressor returns unrmod's compressor of the named method at the
// given level (Zlib and Gzip), or nil when unrmod has none (Oodle).
func builtinCompressor(method string, level int) Compressor {
	switch codecOf(method) {
	case codecZlib:
		return streamCompressor(func(w io.Writer) (resetWriter, error) { return zlib.NewWriterLevel(w, level) })
	case codecGzip:
		return streamCompressor(func(w io.Writer) (resetWriter, error) { return gzip.NewWriterLevel(w, level) })
	case codecLZ4:
		// Raw LZ4 blocks: the game calls LZ4_decompress_safe, which does
		// not read the LZ4 frame format.
		pool := sync.Pool{New: func() any { return new(lz4.Compressor) }}
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
	}
	return nil
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

// canonicalMethod spells a method the way the engine names it in TOCs.
func canonicalMethod(m string) string {
	switch codecOf(m) {
	case codecNone:
		return "None"
	case codecZlib:
		return "Zlib"
	case codecGzip:
		return "Gzip"
	case codecLZ4:
		return "LZ4"
	}
	return m
}

// unknownMethod is the error for a method the writer has no compressor for.
func unknownMethod(m string) error {
	if strings.EqualFold(m, "Oodle") {
		return fmt.Errorf("compression method %q: unrmod cannot compress Oodle blocks (the Oodle library is proprietary); register a Compressor from your own Oodle binding with Writer.RegisterCompressor, or write with zlib, lz4 or none (stored Oodle blocks are still copied as they are)", m)
	}
	return fmt.Errorf("compression method %q: no compressor (unrmod has None, Zlib, Gzip and LZ4; register others with Writer.RegisterCompressor)", m)
}
