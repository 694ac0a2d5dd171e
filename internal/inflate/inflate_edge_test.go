package inflate

import (
	"bytes"
	stdzlib "compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"
)

// Hand-built deflate streams for the corners encoders rarely or never
// write: one-code and empty distance codes, a literal/length code of the
// end-of-block code alone, codes after fuller ones in the same stream
// (the tables are reused), 15-bit codes that need about the largest
// tables, the longest length at the shortest distance and the longest
// distance, and code descriptions a decoder must refuse. Each is checked
// against klauspost with inflateCompare, and TestInflateRandomCodes does
// the same on random code shapes.

// deflateWriter writes deflate's least-significant-bit-first bits.
type deflateWriter struct {
	out []byte
	acc uint64
	n   uint
}

func (w *deflateWriter) bits(v uint32, n uint) {
	w.acc |= uint64(v&(1<<n-1)) << w.n
	w.n += n
	for w.n >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// code writes a Huffman code, whose bits go most significant first.
func (w *deflateWriter) code(c uint32, n uint) {
	var rev uint32
	for i := range n {
		rev |= (c >> i & 1) << (n - 1 - i)
	}
	w.bits(rev, n)
}

func (w *deflateWriter) align() {
	if w.n > 0 {
		w.bits(0, 8-w.n)
	}
}

// zlibStream wraps the deflate stream (aligned first) in a zlib header and
// the Adler-32 of data.
func (w *deflateWriter) zlibStream(data []byte) []byte {
	w.align()
	s := append([]byte{0x78, 0x01}, w.out...)
	return binary.BigEndian.AppendUint32(s, adler32.Checksum(data))
}

// canonical returns the canonical codes of lens (zero where a length is 0).
func canonical(lens []uint8) []uint32 {
	var count [16]uint32
	for _, l := range lens {
		if l != 0 {
			count[l]++
		}
	}
	var next [16]uint32
	code := uint32(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l != 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

// clUniversal is a complete code-length code that gives every code-length
// symbol a code: 0-12 get 4 bits, 13-18 get 5.
var clUniversal = func() (l [numCL]uint8) {
	for i := range l {
		l[i] = 4
		if i >= 13 {
			l[i] = 5
		}
	}
	return
}()

// dynBlock is a dynamic block header under construction.
type dynBlock struct {
	lit, dist         []uint8
	litCodes, dstCode []uint32
}

// header writes the block header: the code-length code clLens (all 19
// written) and then clSyms, code-length symbols with their extra bits
// (pairs of symbol, extra value). A nil clSyms writes lit and dist one
// length at a time.
func (w *deflateWriter) header(final bool, lit, dist []uint8, clLens []uint8, clSyms [][2]uint32) *dynBlock {
	if final {
		w.bits(1, 1)
	} else {
		w.bits(0, 1)
	}
	w.bits(2, 2)
	w.bits(uint32(len(lit)-257), 5)
	w.bits(uint32(len(dist)-1), 5)
	w.bits(numCL-4, 4)
	for _, s := range codeOrder {
		w.bits(uint32(clLens[s]), 3)
	}
	if clSyms == nil {
		for _, l := range append(append([]uint8{}, lit...), dist...) {
			clSyms = append(clSyms, [2]uint32{uint32(l), 0})
		}
	}
	clCodes := canonical(clLens)
	for _, cs := range clSyms {
		s := cs[0]
		w.code(clCodes[s], uint(clLens[s]))
		switch s {
		case 16:
			w.bits(cs[1], 2)
		case 17:
			w.bits(cs[1], 3)
		case 18:
			w.bits(cs[1], 7)
		}
	}
	return &dynBlock{lit: lit, dist: dist, litCodes: canonical(lit), dstCode: canonical(dist)}
}

func (b *dynBlock) sym(w *deflateWriter, s int) { w.code(b.litCodes[s], uint(b.lit[s])) }

func (b *dynBlock) dsym(w *deflateWriter, s int) { w.code(b.dstCode[s], uint(b.dist[s])) }

// match writes length symbol ls with extra value le, distance symbol ds
// with extra value de.
func (b *dynBlock) match(w *deflateWriter, ls int, le uint32, ds int, de uint32) {
	b.sym(w, ls)
	w.bits(le, uint(litSyms[ls]>>8&0xFF))
	b.dsym(w, ds)
	w.bits(de, uint(distSyms[ds]>>8&0xFF))
}

// refDecode returns what klauspost decodes stream to, however long.
func refDecode(stream []byte) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// checkEdge compares the decoder with klauspost on stream at the size
// klauspost decodes (or n when it fails), and one byte either side, and
// on every truncation; want says whether klauspost must decode it.
func checkEdge(t *testing.T, stream []byte, n int, want bool) {
	t.Helper()
	f := new(Inflater)
	out, err := refDecode(stream)
	if (err == nil) != want {
		t.Fatalf("klauspost: %v (%d bytes), want success %v", err, len(out), want)
	}
	if err == nil {
		if n >= 0 && len(out) != n {
			t.Fatalf("klauspost decodes %d bytes, want %d", len(out), n)
		}
		n = len(out)
	}
	for _, m := range []int{n, n + 1, n - 1} {
		if m >= 0 {
			inflateCompare(t, f, stream, m)
		}
	}
	step := 1 + len(stream)/500 // every cut of short streams, 500 of long ones
	for cut := 0; cut < len(stream); cut += step {
		inflateCompare(t, f, stream[:cut], n)
	}
	for cut := max(0, len(stream)-16); cut < len(stream); cut++ {
		inflateCompare(t, f, stream[:cut], n)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// lens returns n code lengths, those of the pairs (symbol, length) set.
func lens(n int, set ...int) []uint8 {
	l := make([]uint8, n)
	for i := 0; i < len(set); i += 2 {
		l[set[i]] = uint8(set[i+1])
	}
	return l
}

func TestInflateEdgeCodes(t *testing.T) {
	// A literal/length code of 'a', the end of block, and the longest
	// length (symbol 285, or 284 with all its extra bits).
	litA := lens(286, 'a', 1, 256, 2, 285, 3, 284, 3)

	t.Run("one-bit distance code", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(30, 0, 1), clUniversal[:], nil)
		b.sym(&w, 'a')
		b.match(&w, 285, 0, 0, 0)
		b.match(&w, 284, 31, 0, 0) // 227+31 = 258 too
		b.sym(&w, 256)
		data := bytes.Repeat([]byte("a"), 1+258+258)
		checkEdge(t, w.zlibStream(data), len(data), true)
	})
	t.Run("one-bit distance code, unused code", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(30, 0, 1), clUniversal[:], nil)
		b.sym(&w, 'a')
		b.sym(&w, 285)
		w.bits(1, 1) // the distance code that is not there
		b.sym(&w, 256)
		checkEdge(t, w.zlibStream(nil), 259, false)
	})
	t.Run("one-bit distance code of the last symbol", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(30, 29, 1), clUniversal[:], nil)
		for range 24577 + 8191 {
			b.sym(&w, 'a')
		}
		b.match(&w, 285, 0, 29, 8191) // distance 32768
		b.sym(&w, 256)
		data := bytes.Repeat([]byte("a"), 32768+258)
		checkEdge(t, w.zlibStream(data), len(data), true)
	})
	t.Run("one-bit distance code after a full one", func(t *testing.T) {
		// The second block's tables must not keep the first's entries.
		var w deflateWriter
		b := w.header(false, litA, lens(30, 0, 1, 1, 1), clUniversal[:], nil)
		b.sym(&w, 'a')
		b.match(&w, 285, 0, 1, 0) // distance 2: bit 1
		b.sym(&w, 256)
		b = w.header(true, litA, lens(30, 0, 1), clUniversal[:], nil)
		b.sym(&w, 285)
		w.bits(1, 1) // the distance code that is not there
		b.sym(&w, 256)
		// The checksum of what a decoder using the stale entries writes.
		checkEdge(t, w.zlibStream(bytes.Repeat([]byte("a"), 1+258+258)), 1+258+258, false)
	})
	t.Run("end of block alone after a full code", func(t *testing.T) {
		var w deflateWriter
		b := w.header(false, lens(257, 'a', 1, 256, 1), lens(1), clUniversal[:], nil)
		b.sym(&w, 256)
		w.header(true, lens(257, 256, 1), lens(1), clUniversal[:], nil)
		w.bits(1, 1) // was 256, now no code
		checkEdge(t, w.zlibStream(nil), 0, false)
	})
	t.Run("no distance codes", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(1), clUniversal[:], nil)
		b.sym(&w, 'a')
		b.sym(&w, 'a')
		b.sym(&w, 256)
		checkEdge(t, w.zlibStream([]byte("aa")), 2, true)
	})
	t.Run("no distance codes, a match", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(30), clUniversal[:], nil)
		b.sym(&w, 'a')
		b.sym(&w, 285)
		w.bits(0, 8)
		b.sym(&w, 256)
		checkEdge(t, w.zlibStream(nil), 259, false)
	})
	t.Run("end of block alone", func(t *testing.T) {
		var w deflateWriter
		b := w.header(false, lens(257, 256, 1), lens(1), clUniversal[:], nil)
		b.sym(&w, 256)
		w.bits(1, 1) // a final block with the fixed codes
		w.bits(1, 2)
		w.code(0x30+'z', 8)
		w.code(0, 7)
		checkEdge(t, w.zlibStream([]byte("z")), 1, true)
	})
	t.Run("end of block alone, unused code", func(t *testing.T) {
		var w deflateWriter
		w.header(true, lens(257, 256, 1), lens(1), clUniversal[:], nil)
		w.bits(1, 1)
		checkEdge(t, w.zlibStream(nil), 0, false)
	})
	t.Run("longest length at distance 1 to the last byte", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(30, 0, 1, 1, 1), clUniversal[:], nil)
		b.sym(&w, 'a')
		for range 254 {
			b.match(&w, 285, 0, 0, 0)
		}
		b.match(&w, 284, 30, 1, 0) // 257 at distance 2
		b.sym(&w, 256)
		data := bytes.Repeat([]byte("a"), 1+254*258+257)
		checkEdge(t, w.zlibStream(data), len(data), true)
	})
	t.Run("distance one past the output", func(t *testing.T) {
		var w deflateWriter
		b := w.header(true, litA, lens(30, 0, 1, 1, 1), clUniversal[:], nil)
		b.sym(&w, 'a')
		b.match(&w, 285, 0, 1, 0) // distance 2 after 1 byte
		b.sym(&w, 256)
		checkEdge(t, w.zlibStream(nil), 259, false)
	})
}

// countCode returns n code lengths with count[l] codes of l bits, the
// longest going to the symbols of deepest, then to 0, 1, 2...
func countCode(n int, count [16]int, deepest ...int) []uint8 {
	order := deepest
	for s := range n {
		if !slices.Contains(deepest, s) {
			order = append(order, s)
		}
	}
	out := make([]uint8, n)
	i := 0
	for l := 15; l > 0; l-- {
		for range count[l] {
			out[order[i]] = uint8(l)
			i++
		}
	}
	return out
}

// TestInflateEdgeSubtables decodes a block whose codes need about the
// largest tables there are: 1,330 entries of literal/length codes and 400
// of distance codes (of the 2,560 and 1,024 the arrays hold), the most a
// search over code shapes found, with the end of block, length 258 and
// distances 1 and 32768 among the 15-bit codes.
func TestInflateEdgeSubtables(t *testing.T) {
	lit := countCode(286, [16]int{0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 11, 9, 1, 1, 258}, 256, 285)
	dist := countCode(30, [16]int{0, 1, 1, 0, 3, 1, 0, 0, 0, 13, 5, 1, 1, 1, 1, 2}, 29, 0)
	if lit[256] != 15 || lit[285] != 15 || dist[29] != 15 || dist[0] != 15 {
		t.Fatal("test code shape")
	}

	var w deflateWriter
	b := w.header(true, lit, dist, clUniversal[:], nil)
	var data []byte
	// Every literal over 32 KiB, then matches of random lengths and
	// distances.
	for len(data) < 32768 {
		for s := range 256 {
			if lit[s] != 0 {
				b.sym(&w, s)
				data = append(data, byte(s))
			}
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		ls := 257 + r.IntN(29)
		ds := r.IntN(30)
		if lit[ls] == 0 || dist[ds] == 0 {
			continue
		}
		le := r.Uint32N(1 << (litSyms[ls] >> 8 & 0xFF))
		de := r.Uint32N(1 << (distSyms[ds] >> 8 & 0xFF))
		length := int(litSyms[ls]>>16) + int(le)
		d := int(distSyms[ds]>>16) + int(de)
		b.match(&w, ls, le, ds, de)
		for range length {
			data = append(data, data[len(data)-d])
		}
	}
	b.sym(&w, 256)
	stream := w.zlibStream(data)
	got, err := inflateOurs(new(Inflater), stream, len(data), true, true)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoder: %v", err)
	}
	checkEdge(t, stream, len(data), true)
}

func TestInflateEdgeBadCodes(t *testing.T) {
	litA := lens(286, 'a', 1, 256, 2, 285, 2)
	oneDist := lens(30, 0, 1)
	for _, tc := range []struct {
		name      string
		lit, dist []uint8
		clLens    []uint8
		clSyms    [][2]uint32
		want      bool
	}{
		{"over-subscribed literal/length code", lens(286, 'a', 1, 256, 1, 285, 1), oneDist, clUniversal[:], nil, false},
		{"incomplete literal/length code", lens(286, 'a', 2, 256, 2, 285, 2), oneDist, clUniversal[:], nil, false},
		{"no end of block", lens(286, 'a', 1, 'b', 2, 285, 2), oneDist, clUniversal[:], nil, false},
		{"over-subscribed distance code", litA, lens(30, 0, 1, 1, 1, 2, 1), clUniversal[:], nil, false},
		{"incomplete distance code of one 2-bit code", litA, lens(30, 0, 2), clUniversal[:], nil, false},
		{"incomplete distance code of two codes", litA, lens(30, 0, 1, 1, 2), clUniversal[:], nil, false},
		{"one-code literal/length code of a literal", lens(286, 'a', 1, 256, 0), oneDist, clUniversal[:], nil, false},
		{"31 distance codes", litA, lens(31, 0, 1), clUniversal[:], nil, false},
		{"287 literal/length codes", lens(287, 'a', 1, 256, 2, 285, 2), oneDist, clUniversal[:], nil, false},
		{"288 literal/length codes", lens(288, 'a', 1, 256, 2, 285, 2), oneDist, clUniversal[:], nil, false},
		{"incomplete code-length code", litA, oneDist, lens(19, 1, 1, 2, 2), nil, false},
		{"over-subscribed code-length code", litA, oneDist, lens(19, 0, 1, 1, 1, 2, 1), nil, false},
		{"empty code-length code", litA, oneDist, lens(19), nil, false},
		{"one-code code-length code", litA, oneDist, lens(19, 8, 1), nil, false},
		{"code-length code of 7-bit codes", litA, oneDist,
			lens(19, 18, 1, 0, 2, 17, 3, 3, 4, 4, 5, 5, 6, 1, 7, 2, 7),
			[][2]uint32{{18, 86}, {1, 0}, {18, 127}, {18, 9}, {2, 0}, {18, 17}, {2, 0}, {1, 0}, {18, 18}}, true},
		{"repeat first", litA, oneDist, clUniversal[:], [][2]uint32{{16, 0}}, false},
		{"repeat across the distance lengths", lens(286, 'a', 1, 256, 3, 284, 3, 285, 2), lens(4, 0, 2, 1, 2, 2, 2, 3, 2), clUniversal[:],
			[][2]uint32{{18, 86}, {1, 0}, {18, 127}, {18, 9}, {3, 0}, {18, 16}, {3, 0}, {2, 0}, {16, 0}, {2, 0}}, true},
		{"zeros past the end", litA, oneDist, clUniversal[:], [][2]uint32{{18, 127}, {18, 127}, {18, 127}}, false},
		{"exact code lengths", litA, oneDist, clUniversal[:], [][2]uint32{{18, 86}, {1, 0}, {18, 127}, {18, 9}, {2, 0}, {18, 17}, {2, 0}, {1, 0}, {18, 15}, {16, 0}}, true},
		{"repeat past the end", litA, oneDist, clUniversal[:], [][2]uint32{{18, 86}, {1, 0}, {18, 127}, {18, 9}, {2, 0}, {18, 17}, {2, 0}, {1, 0}, {18, 15}, {16, 0}, {16, 0}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w deflateWriter
			b := w.header(true, tc.lit, tc.dist, tc.clLens, tc.clSyms)
			var data []byte
			if tc.want {
				b.sym(&w, 'a')
				b.match(&w, 285, 0, 0, 0)
				b.sym(&w, 256)
				data = bytes.Repeat([]byte("a"), 259)
			} else if tc.lit[256] != 0 && len(tc.lit) <= 286 {
				b.sym(&w, 256)
			}
			checkEdge(t, w.zlibStream(data), len(data), tc.want)
		})
	}
}

func TestInflateEdgeFixed(t *testing.T) {
	for _, tc := range []struct {
		name string
		lit  uint32 // a fixed code of 8 bits: literal/length 280-287
		dist uint32
		want bool
	}{
		{"length 285 at distance 1", 0xC0 + 285 - 280, 0, true},
		{"literal/length 286", 0xC0 + 286 - 280, 0, false},
		{"literal/length 287", 0xC0 + 287 - 280, 0, false},
		{"distance code 30", 0xC0 + 285 - 280, 30, false},
		{"distance code 31", 0xC0 + 285 - 280, 31, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w deflateWriter
			w.bits(1, 1)
			w.bits(1, 2)
			w.code(0x30+'x', 8)
			w.code(tc.lit, 8)
			w.code(tc.dist, 5)
			w.code(0, 7)
			data := bytes.Repeat([]byte("x"), 259)
			checkEdge(t, w.zlibStream(data), len(data), tc.want)
		})
	}
}

// randomLengths returns the lengths of a random complete code of k codes
// of at most 15 bits, assigned to k random symbols of n, often deep.
func randomLengths(r *rand.Rand, n, k int) []uint8 {
	depths := []uint8{0}
	for len(depths) < k {
		// Split a leaf: a random one, or the deepest.
		i := r.IntN(len(depths))
		if r.IntN(2) == 0 {
			for j, d := range depths {
				if d > depths[i] && d < 15 {
					i = j
				}
			}
		}
		if depths[i] >= 15 {
			continue
		}
		depths[i]++
		depths = append(depths, depths[i])
	}
	out := make([]uint8, n)
	for i, s := range r.Perm(n)[:k] {
		out[s] = depths[i]
	}
	return out
}

// TestInflateRandomCodes writes dynamic blocks of random code shapes
// (deep ones, with incomplete, over-subscribed and one-code codes among
// them), random symbols of those codes (distances past the output
// included), and damages some, comparing the decoder with klauspost.
func TestInflateRandomCodes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f := new(Inflater)
	rounds := 5000
	if testing.Short() {
		rounds = 500
	}
	decoded := 0
	for round := range rounds {
		var w deflateWriter
		nblocks := 1 + r.IntN(3)
		o := 0 // bytes written so far
		for bi := range nblocks {
			nlit := 257 + r.IntN(30)
			ndist := 1 + r.IntN(30)
			var lit, dist []uint8
			for {
				lit = randomLengths(r, nlit, 2+r.IntN(nlit-1))
				if lit[256] != 0 || r.IntN(50) == 0 {
					break
				}
			}
			switch r.IntN(8) {
			case 0:
				dist = make([]uint8, ndist)
			case 1:
				dist = make([]uint8, ndist)
				dist[r.IntN(ndist)] = 1
			default:
				dist = randomLengths(r, ndist, min(ndist, 2+r.IntN(ndist)))
				if ndist == 1 {
					dist[0] = 1
				}
			}
			switch r.IntN(20) { // damage a code
			case 0:
				lit[r.IntN(nlit)] = uint8(r.IntN(16))
			case 1:
				dist[r.IntN(ndist)] = uint8(r.IntN(16))
			}
			final := bi == nblocks-1
			b := w.header(final, lit, dist, clUniversal[:], nil)
			var litS, lenS, distS []int
			for s, l := range lit {
				switch {
				case l == 0 || s == 256:
				case s < 256:
					litS = append(litS, s)
				case s < 286:
					lenS = append(lenS, s)
				}
			}
			for s, l := range dist {
				if l != 0 && s < 30 {
					distS = append(distS, s)
				}
			}
			for range r.IntN(300) {
				if len(lenS) > 0 && len(distS) > 0 && r.IntN(3) == 0 {
					ls := lenS[r.IntN(len(lenS))]
					le := r.Uint32N(1 << (litSyms[ls] >> 8 & 0xFF))
					ds := distS[r.IntN(len(distS))]
					de := r.Uint32N(1 << (distSyms[ds] >> 8 & 0xFF))
					if base := int(distSyms[ds] >> 16); r.IntN(50) != 0 {
						// Mostly a distance the output allows.
						if base > o {
							continue
						}
						de = min(de, uint32(o-base))
					}
					b.match(&w, ls, le, ds, de)
					o += int(litSyms[ls]>>16) + int(le)
				} else if len(litS) > 0 {
					b.sym(&w, litS[r.IntN(len(litS))])
					o++
				}
			}
			if lit[256] != 0 {
				b.sym(&w, 256)
			}
		}
		stream := w.zlibStream(nil)
		// The output, for the checksum: klauspost on the deflate stream.
		out, err := io.ReadAll(flate.NewReader(bytes.NewReader(stream[2 : len(stream)-4])))
		n := len(out)
		if err == nil {
			decoded++
			// Fix the checksum up: zlibStream wrote that of no data.
			binary.BigEndian.PutUint32(stream[len(stream)-4:], adler32.Checksum(out))
		} else {
			n = r.IntN(2000)
		}
		switch r.IntN(5) {
		case 0:
			stream = stream[:r.IntN(len(stream))]
		case 1:
			stream[2+r.IntN(len(stream)-2)] ^= 1 << r.IntN(8)
		case 2:
			n += r.IntN(3) - 1
			n = max(n, 0)
		}
		inflateCompare(t, f, stream, n)
		if t.Failed() {
			t.Fatalf("round %d: stream %x, n %d", round, stream, n)
		}
	}
	t.Logf("%d of %d streams decode", decoded, rounds)
}

// TestInflateStaleTables has two streams whose second dynamic block has
// an empty code, of distances or of code lengths, and uses it as if it
// were still the first block's. zlib and compress/flate refuse them, and
// so must the decoder; klauspost/compress v1.20.3 decodes them (to 4 zero
// bytes, and to 03 00), since its huffmanDecoder.init returns early on an
// empty code without clearing the table of the previous block.
func TestInflateStaleTables(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream []byte
		n      int
	}{
		{"empty distance code", []byte{
			0x78, 0x01, 0x0c, 0xe0, 0x81, 0x0c, 0x00, 0x00, 0x00, 0xc0, 0x20, 0xe4,
			0x4f, 0xfd, 0xa7, 0x06, 0xf0, 0x40, 0x06, 0x00, 0x00, 0x00, 0x60, 0x10,
			0xf2, 0xa7, 0xfe, 0xb7, 0x00, 0x00, 0x04, 0x00, 0x01}, 4},
		{"empty code-length code", []byte{
			0x78, 0x01, 0x04, 0xe3, 0x81, 0x08, 0x00, 0x00, 0x00, 0xc3, 0x00, 0xac,
			0xdd, 0x60, 0xfe, 0xb0, 0xdf, 0xb6, 0xbd, 0x60, 0x00, 0x00, 0x88, 0x6b,
			0x60, 0xff, 0xb0, 0x53, 0xe5, 0x00, 0x08, 0x00, 0x04}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := new(Inflater)
			for _, wide := range []bool{true, false} {
				for _, checksum := range []bool{true, false} {
					if got, err := inflateOurs(f, tc.stream, tc.n, wide, checksum); err == nil {
						t.Fatalf("wide %v, checksum %v: decodes to %x", wide, checksum, got)
					}
				}
			}
			zr, err := stdzlib.NewReader(bytes.NewReader(tc.stream))
			if err == nil {
				_, err = io.ReadAll(zr)
			}
			if err == nil {
				t.Fatal("compress/zlib decodes it")
			}
			if out, err := refDecode(tc.stream); err == nil {
				t.Logf("klauspost decodes it to %x", out)
			}
		})
	}
}
