package inflate

import (
	"bytes"
	stdzlib "compress/zlib"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/klauspost/compress/zlib"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/internal/inflate/inflatetest"
)

// The zlib decoder is checked against klauspost/compress, the reference
// decoder: on streams of several encoders at every level (so every kind of
// deflate block: stored, fixed and dynamic Huffman, and the one-code
// distance trees encoders write when a block has at most one distance),
// on damaged streams, and by FuzzInflate on arbitrary bytes.

// inflateMaxBlock is the largest block a container holds: block sizes
// are at most 64 KiB in shipped games.
const inflateMaxBlock = 64 << 10

// stdRefuses reports whether compress/zlib fails to decode stream into
// exactly n bytes.
func stdRefuses(stream []byte, n int) bool {
	zr, err := stdzlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		return true
	}
	out, err := io.ReadAll(zr)
	return err != nil || len(out) != n
}

// inflateOurs decodes stream into n bytes, with the spare capacity
// decompress gives when wide is set (matches copied a word at a time) and
// without it otherwise.
func inflateOurs(f *Inflater, stream []byte, n int, wide, checksum bool) ([]byte, error) {
	spare := 0
	if wide {
		spare = Slack
	}
	dst := make([]byte, n, n+spare)
	for i := range dst[:cap(dst)] {
		dst[:cap(dst)][i] = 0xA5 // what the decoder must overwrite
	}
	if err := f.Zlib(dst, stream, checksum); err != nil {
		return nil, err
	}
	return dst, nil
}

func TestInflateMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := new(Inflater)
	sizes := []int{0, 1, 2, 7, 8, 9, 100, 258, 259, 4096, 32<<10 + 1, 40000, inflateMaxBlock}
	for kind := range 4 {
		for _, n := range sizes {
			if kind == 3 && n <= 32<<10 {
				continue
			}
			data := inflatetest.Data(r, kind, n)
			for _, enc := range inflatetest.Encoders {
				stream := inflatetest.Encode(t, enc, data)
				for _, wide := range []bool{true, false} {
					got, err := inflateOurs(f, stream, n, wide, true)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("kind %d, %d bytes, %s, wide %v: %v", kind, n, enc.Name, wide, err)
					}
				}
			}
		}
	}
}

// TestInflateDamaged damages streams (bit flips anywhere or in the code
// tables, truncation, a wrong expected size) and checks that the decoder
// fails exactly when klauspost does, and returns the same bytes when both
// decode. Without the checksum a damaged stream may decode to other bytes,
// but only where the Adler-32 is all that catches the damage.
func TestInflateDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	f := new(Inflater)
	rounds := 5000
	if testing.Short() {
		rounds = 500
	}
	for round := range rounds {
		n := 1 + r.IntN(8192)
		data := inflatetest.Data(r, r.IntN(3), n)
		stream := inflatetest.Encode(t, inflatetest.Encoders[r.IntN(len(inflatetest.Encoders))], data)
		stream, n = inflatetest.Damage(r, stream, n, 0)
		inflateCompare(t, f, stream, n)
		if t.Failed() {
			t.Fatalf("round %d", round)
		}
	}
}

// inflateCompare checks the decoder against the reference on one stream.
func inflateCompare(t *testing.T, f *Inflater, stream []byte, n int) {
	t.Helper()
	want, werr := inflatetest.Reference(stream, n)
	for _, wide := range []bool{true, false} {
		got, err := inflateOurs(f, stream, n, wide, true)
		if werr == nil && err != nil && stdRefuses(stream, n) {
			// klauspost reuses a previous block's table for an
			// empty code (TestInflateStaleTables); zlib and
			// compress/zlib refuse such streams, as the decoder does.
			return
		}
		if (err == nil) != (werr == nil) {
			t.Errorf("wide %v: klauspost says %v, the decoder %v", wide, werr, err)
			return
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("wide %v: decoded bytes differ", wide)
			return
		}
		unchecked, uerr := inflateOurs(f, stream, n, wide, false)
		switch {
		case err == nil && (uerr != nil || !bytes.Equal(unchecked, got)):
			t.Errorf("wide %v: without the checksum: %v", wide, uerr)
		case err != nil && uerr == nil && err.Error() != "Adler-32 checksum mismatch":
			t.Errorf("wide %v: fails with %v only when the checksum is checked", wide, err)
		}
	}
}

// TestInflateErrors covers hand-made streams a decoder must refuse.
func TestInflateErrors(t *testing.T) {
	f := new(Inflater)
	good := inflatetest.Encode(t, inflatetest.Encoders[3], []byte("a block of cooked data, a block of cooked data"))
	for _, tc := range []struct {
		name   string
		stream []byte
		n      int
		want   string
	}{
		{"empty", nil, 1, "stream ends early"},
		{"header only", []byte{0x78, 0x9C}, 1, "stream ends early"},
		{"not deflate", []byte{0x79, 0x9C, 0, 0}, 1, "bad header"},
		{"window over 32 KiB", []byte{0x88, 0x1C, 0, 0}, 1, "bad header"},
		{"header check", []byte{0x78, 0x9D, 0, 0}, 1, "bad header"},
		{"preset dictionary", []byte{0x78, 0xBB, 0, 0, 0, 0}, 1, "preset dictionary"},
		{"block type 3", []byte{0x78, 0x9C, 0x07, 0, 0, 0, 0, 0}, 1, "invalid deflate data"},
		{"stored length check", []byte{0x78, 0x9C, 0x01, 0x01, 0x00, 0x00, 0x00, 'x', 0, 0, 0, 0}, 1, "invalid deflate data"},
		{"stored past input", []byte{0x78, 0x9C, 0x01, 0x05, 0x00, 0xFA, 0xFF, 'x'}, 5, "stream ends early"},
		{"stored over size", []byte{0x78, 0x9C, 0x01, 0x02, 0x00, 0xFD, 0xFF, 'x', 'y', 0, 0, 0, 0}, 1, "more output"},
		{"no checksum", good[:len(good)-4], 46, "stream ends early"},
		{"checksum", append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^1), 46, "Adler-32"},
		{"short output", good, 47, "stream ends early"},
		{"long output", good, 45, "more output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := inflateOurs(f, tc.stream, tc.n, true, true)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if _, rerr := inflatetest.Reference(tc.stream, tc.n); rerr == nil {
				t.Fatalf("klauspost decodes it")
			}
		})
	}
}

// FuzzInflate decodes arbitrary bytes as a zlib block of n bytes: the
// decoder must agree with klauspost on whether it decodes, and on what.
func FuzzInflate(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for i, enc := range inflatetest.Encoders {
		data := inflatetest.Data(r, i%3, 1+r.IntN(3000))
		f.Add(inflatetest.Encode(f, enc, data), uint16(len(data)))
	}
	f.Add([]byte{0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}, uint16(0))
	f.Fuzz(func(t *testing.T, stream []byte, n uint16) {
		defer fuzzbound.Check(t, time.Now(), len(stream))
		inflateCompare(t, new(Inflater), stream, int(n))
	})
}

// BenchmarkInflate compares the decoder with klauspost/compress on 64 KiB
// blocks of cooked-looking data, the way blocks are decoded when reading a
// container: whole block in, exact size out.
func BenchmarkInflate(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	data := inflatetest.Data(r, 2, inflateMaxBlock)
	stream := inflatetest.Encode(b, inflatetest.Encoders[3], data) // klauspost level 2
	b.Run("unrmod", func(b *testing.B) {
		f := new(Inflater)
		dst := make([]byte, len(data), len(data)+Slack)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := f.Zlib(dst, stream, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("klauspost", func(b *testing.B) {
		dst := make([]byte, len(data))
		var src bytes.Reader
		src.Reset(stream)
		zr, err := zlib.NewReader(&src)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			src.Reset(stream)
			if err := zr.(zlib.Resetter).Reset(&src, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}
