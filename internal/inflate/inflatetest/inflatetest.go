// Package inflatetest holds the data, the encoders, the reference decoder
// and the damage the zlib decoder of package internal/inflate is tested
// with, for its own tests and for the tests of the formats that decode
// through it.
package inflatetest

import (
	"bytes"
	stdflate "compress/flate"
	stdzlib "compress/zlib"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zlib"
)

// Data returns n bytes of one kind: random, runs, cooked-looking
// text and binary, or a repeat at distance exactly 32 KiB (the largest
// deflate distance).
func Data(r *rand.Rand, kind, n int) []byte {
	b := make([]byte, n)
	switch kind {
	case 0:
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case 1:
		step := 1 + r.IntN(64)
		for i := range b {
			b[i] = byte(i / step)
		}
	case 2:
		words := []string{"/Game/Maps/", "Texture2D", "None", "\x00\x00\x00\x01", "StaticMesh", "\xff", "ab"}
		for i := 0; i < n; {
			if r.IntN(6) == 0 {
				b[i] = byte(r.Uint32())
				i++
				continue
			}
			i += copy(b[i:], words[r.IntN(len(words))])
		}
	default:
		for i := range b {
			if i < 32<<10 {
				b[i] = byte(r.Uint32())
			} else {
				b[i] = b[i-32<<10]
			}
		}
	}
	return b
}

// Encoder writes a zlib stream of data.
type Encoder struct {
	Name   string
	encode func(w io.Writer, data []byte) error
}

// Encoders are klauspost and the standard library at their levels,
// plus a writer that flushes in the middle (an empty stored block) and
// splits the data over several deflate blocks.
var Encoders = func() []Encoder {
	var encs []Encoder
	for _, level := range []int{zlib.HuffmanOnly, zlib.NoCompression, 1, 2, 5, 9} {
		encs = append(encs, Encoder{fmt.Sprintf("klauspost-%d", level), func(w io.Writer, data []byte) error {
			zw, err := zlib.NewWriterLevel(w, level)
			if err != nil {
				return err
			}
			zw.Write(data)
			return zw.Close()
		}})
	}
	for _, level := range []int{stdflate.HuffmanOnly, 1, 6, 9} {
		encs = append(encs, Encoder{fmt.Sprintf("std-%d", level), func(w io.Writer, data []byte) error {
			zw, err := stdzlib.NewWriterLevel(w, level)
			if err != nil {
				return err
			}
			zw.Write(data)
			return zw.Close()
		}})
	}
	encs = append(encs, Encoder{"std-flushed", func(w io.Writer, data []byte) error {
		zw, err := stdzlib.NewWriterLevel(w, 6)
		if err != nil {
			return err
		}
		for len(data) > 0 {
			n := min(len(data), 1+len(data)/3)
			zw.Write(data[:n])
			data = data[n:]
			if err := zw.Flush(); err != nil {
				return err
			}
		}
		return zw.Close()
	}})
	return encs
}()

// Encode encodes data with enc.
func Encode(t testing.TB, enc Encoder, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := enc.encode(&buf, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Reference decodes stream with klauspost/compress, requiring
// exactly n bytes, as the decoder does.
func Reference(stream []byte, n int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, err
	}
	var one [1]byte
	if k, err := zr.Read(one[:]); k > 0 {
		return nil, errors.New("more output than expected")
	} else if err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

// Damage damages a stream of n bytes one way: flips bits anywhere
// or in the headers and code tables at the start, cuts it short, or
// changes the expected size (to no less than minN).
func Damage(r *rand.Rand, stream []byte, n, minN int) ([]byte, int) {
	switch r.IntN(4) {
	case 0:
		for range 1 + r.IntN(3) {
			stream[r.IntN(len(stream))] ^= 1 << r.IntN(8)
		}
	case 1:
		stream[r.IntN(min(len(stream), 60))] ^= 1 << r.IntN(8)
	case 2:
		stream = stream[:r.IntN(len(stream))]
	case 3:
		n = max(minN, n+r.IntN(5)-2)
	}
	return stream, n
}
