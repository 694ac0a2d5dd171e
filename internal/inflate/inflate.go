// Package inflate is unrmod's zlib block decoder: the decoder of the Zlib
// method in package ue's codec registry, through which containers and
// paks decode.
package inflate

import (
	"encoding/binary"
	"errors"
	"hash/adler32"
	"sync"
)

// The zlib decoder. Every compression block is a complete zlib stream of at
// most one compression block (64 KiB in shipped games) whose decoded size
// the block entry gives, so the whole input and output are in memory. The
// decoder below uses that: it reads the input 64 bits at a time, decodes
// with two-level Huffman tables, and writes straight into the output,
// copying matches eight bytes at a time, with no sliding window to copy
// out of. It is about 1.5 times as fast as the streaming klauspost/compress
// decoder (BenchmarkInflate), and decoding is most of the time a Zlib
// container takes to extract.
//
// It follows RFC 1950 and RFC 1951 and accepts exactly what zlib accepts
// (incomplete codes only as zlib allows them); anything else is an error,
// never a panic. inflate_test.go compares it with klauspost/compress (and
// with compress/zlib where klauspost reuses a previous block's table) on
// streams of several encoders, hand-built code shapes, damaged streams,
// and in FuzzInflate.

// Entries of the Huffman decoding tables: bits 0-3 the number of bits to
// consume, bits 4-7 the kind, bits 8-15 the number of extra bits (or, for
// a subtable link, the subtable's index bits), bits 16-31 the value (a
// literal, a length or distance base, or a subtable's offset).
const (
	kindLiteral = 0 << 4
	kindBase    = 1 << 4 // a length or distance: base plus extra bits
	kindEnd     = 2 << 4 // end of block
	kindLink    = 3 << 4 // pointer to a subtable
	kindBad     = 4 << 4 // a code no valid stream uses
	kindMask    = 0xF << 4

	litRootBits  = 10 // bits of the first lookup of literal/length codes
	distRootBits = 8  // of distance codes
	clRootBits   = 7  // of code-length codes (7 bits at most: no subtables)
	maxCodeLen   = 15
	numLit       = 288
	numDist      = 32
	numCL        = 19

	// Slack is the spare capacity the output buffer needs for
	// matches to be copied 8 bytes at a time.
	Slack = 8
)

// Errors of Zlib that callers word as block errors: the stream decodes to
// more bytes than the buffer holds (ErrLong) or ends before it is full
// (ErrShort).
var (
	ErrLong           = errors.New("more output than expected")
	ErrShort          = errors.New("stream ends early")
	errInflateCorrupt = errors.New("invalid deflate data")
)

// litSyms, distSyms and clSyms are the table entries of every symbol,
// without their bit counts.
var litSyms, distSyms, clSyms = func() (l [numLit]uint32, d [numDist]uint32, c [numCL]uint32) {
	lenBase := [...]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra := [...]uint32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase := [...]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	for s := range 256 {
		l[s] = kindLiteral | uint32(s)<<16
	}
	l[256] = kindEnd
	for s := 257; s < numLit; s++ {
		l[s] = kindBad
		if i := s - 257; i < len(lenBase) {
			l[s] = kindBase | lenExtra[i]<<8 | lenBase[i]<<16
		}
	}
	for s := range numDist {
		d[s] = kindBad
		if s < len(distBase) {
			extra := uint32(max(0, s/2-1))
			d[s] = kindBase | extra<<8 | distBase[s]<<16
		}
	}
	for s := range numCL {
		c[s] = kindLiteral | uint32(s)<<16
	}
	return
}()

// litTable and distTable hold a root table and its subtables. A subtable
// of b bits serves at least b+1 codes (its part of a complete code reaches
// b bits deeper than the root), so the 286 literal/length codes need at
// most 1,024 + 47*32 + 8 = 2,536 entries and the 30 distance codes at
// most 256 + 3*128 + 32 = 672; buildTable refuses to go past the arrays
// anyway.
type (
	litTable  [2560]uint32
	distTable [1024]uint32
)

// fixedLit and fixedDist decode blocks with the fixed codes.
var (
	fixedOnce sync.Once
	fixedLit  litTable
	fixedDist distTable
)

// initFixed builds the tables of the fixed codes (RFC 1951 3.2.6).
func initFixed() {
	var lens [numLit]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	if err := buildTable(fixedLit[:], lens[:], litSyms[:], litRootBits, false); err != nil {
		panic(err)
	}
	var dl [numDist]uint8
	for i := range dl {
		dl[i] = 5
	}
	if err := buildTable(fixedDist[:], dl[:], distSyms[:], distRootBits, false); err != nil {
		panic(err)
	}
}

// buildTable fills table with the decoding table of the canonical Huffman
// code whose code length per symbol is lens: a root table indexed by root
// bits, followed by subtables for the longer codes (zlib's inflate_table
// layout). syms gives each symbol's entry without its bit count. A code
// must be complete unless partial is set, which allows what zlib allows for
// literal/length and distance codes: a single one-bit code, or no code at
// all (possible for distances only, since a literal/length code always has
// the end-of-block code).
func buildTable(table []uint32, lens []uint8, syms []uint32, root uint, partial bool) error {
	var count [maxCodeLen + 1]int
	for _, l := range lens {
		count[l]++
	}
	maxLen := uint(maxCodeLen)
	for maxLen > 0 && count[maxLen] == 0 {
		maxLen--
	}
	if maxLen == 0 {
		if !partial {
			return errInflateCorrupt
		}
		for i := range 1 << root {
			table[i] = kindBad | 1
		}
		return nil
	}
	minLen := uint(1)
	for count[minLen] == 0 {
		minLen++
	}
	left := 1
	for l := 1; l <= maxCodeLen; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return errInflateCorrupt // over-subscribed
		}
	}
	if left > 0 && (!partial || maxLen != 1) {
		return errInflateCorrupt // incomplete
	}
	var offs [maxCodeLen + 1]int
	for l := 1; l < maxCodeLen; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var work [numLit]uint16
	for s, l := range lens {
		if l != 0 {
			work[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	var (
		huff uint32 // the current code, bit-reversed
		sym  int
		l    = minLen
		next int // offset of the current (sub)table
		curr = root
		drop uint
		low  = ^uint32(0)
		used = 1 << root
		mask = uint32(used - 1)
		size int
	)
	for {
		here := syms[work[sym]] | uint32(l-drop)
		incr := 1 << (l - drop)
		fill := 1 << curr
		size = fill
		for fill != 0 {
			fill -= incr
			table[next+int(huff>>drop)+fill] = here
		}
		inc := uint32(1) << (l - 1)
		for huff&inc != 0 {
			inc >>= 1
		}
		if inc != 0 {
			huff = huff&(inc-1) + inc
		} else {
			huff = 0
		}
		sym++
		count[l]--
		if count[l] == 0 {
			if l == maxLen {
				break
			}
			l = uint(lens[work[sym]])
		}
		if l > root && huff&mask != low {
			if drop == 0 {
				drop = root
			}
			next += size
			curr = l - drop
			left := 1 << curr
			for curr+drop < maxLen {
				left -= count[curr+drop]
				if left <= 0 {
					break
				}
				curr++
				left <<= 1
			}
			used += 1 << curr
			if used > len(table) {
				return errInflateCorrupt
			}
			low = huff & mask
			table[low] = kindLink | uint32(curr)<<8 | uint32(next)<<16 | uint32(root)
		}
	}
	if huff != 0 {
		// The single one-bit code of an incomplete code leaves every
		// other entry of the root table.
		for i := int(huff); i < 1<<root; i += 2 {
			table[i] = kindBad | 1
		}
	}
	return nil
}

// Inflater decodes deflate streams held in memory into buffers of known
// size. Its tables are reused from block to block.
type Inflater struct {
	lit  litTable
	dist distTable
	cl   [1 << clRootBits]uint32
	lens [286 + 30]uint8
}

// Zlib decodes the zlib stream src into exactly len(dst) bytes, checking
// the Adler-32 of the result when checksum is set. Bytes after the
// checksum are ignored. With Slack bytes of capacity beyond
// len(dst), matches are copied a word at a time; those bytes are
// overwritten.
func (f *Inflater) Zlib(dst, src []byte, checksum bool) error {
	if len(src) < 2 {
		return ErrShort
	}
	cmf, flg := src[0], src[1]
	if cmf&0x0F != 8 || cmf>>4 > 7 || (uint(cmf)<<8|uint(flg))%31 != 0 {
		return errors.New("not a zlib stream (bad header)")
	}
	if flg&0x20 != 0 {
		return errors.New("the stream needs a preset dictionary")
	}
	n, err := f.inflate(dst, src[2:])
	if err != nil {
		return err
	}
	rest := src[2+n:]
	if len(rest) < 4 {
		return ErrShort
	}
	if checksum && adler32.Checksum(dst) != binary.BigEndian.Uint32(rest) {
		return errors.New("Adler-32 checksum mismatch")
	}
	return nil
}

// bitReader reads deflate's least-significant-bit-first bits into bb, of
// which nb are valid. Past the end of the input it reads zero bytes,
// counted in pos; once bits of those are consumed the stream is truncated.
type bitReader struct {
	in  []byte
	pos int
	bb  uint64
	nb  uint
}

// refill makes at least 56 bits available: eight bytes at once when the
// input has them (the bits above nb are those of the next bytes, so
// loading them again changes nothing), else byte by byte.
func (r *bitReader) refill() error {
	if r.pos+8 <= len(r.in) {
		r.bb |= binary.LittleEndian.Uint64(r.in[r.pos:]) << r.nb
		r.pos += int(63-r.nb) >> 3
		r.nb |= 56
		return nil
	}
	for r.nb < 56 {
		if r.pos < len(r.in) {
			r.bb |= uint64(r.in[r.pos]) << r.nb
		}
		r.pos++
		r.nb += 8
	}
	if over := r.pos - len(r.in); over > 0 && uint(over)*8 > r.nb {
		return ErrShort
	}
	return nil
}

// bits consumes and returns the next n (at most 32) bits.
func (r *bitReader) bits(n uint) (uint32, error) {
	if r.nb < n {
		if err := r.refill(); err != nil {
			return 0, err
		}
	}
	v := uint32(r.bb & (1<<n - 1))
	r.bb >>= n
	r.nb -= n
	return v, nil
}

// inflate decodes the raw deflate stream in into dst, which it must fill
// exactly, and returns the number of input bytes used. A stream whose
// decoding ran past the end of in is reported as cut short, whatever the
// zero bits read there decoded to.
func (f *Inflater) inflate(dst, in []byte) (int, error) {
	r := bitReader{in: in}
	n, err := f.decode(&r, dst)
	if err != nil && r.pos-int(r.nb>>3) > len(in) {
		return 0, ErrShort
	}
	return n, err
}

// decode does inflate's work; on an error, r says how far it read.
func (f *Inflater) decode(r *bitReader, dst []byte) (int, error) {
	in := r.in
	o := 0
	buf := dst[:cap(dst)]
	wide := len(buf)-len(dst) >= 8
	for {
		hdr, err := r.bits(3)
		if err != nil {
			return 0, err
		}
		var (
			lt *litTable
			dt *distTable
		)
		switch hdr >> 1 {
		case 0:
			r.bb >>= r.nb & 7
			r.nb -= r.nb & 7
			v, err := r.bits(32)
			if err != nil {
				return 0, err
			}
			n := int(v & 0xFFFF)
			if uint16(v>>16) != ^uint16(n) {
				return 0, errInflateCorrupt
			}
			p := r.pos - int(r.nb>>3)
			r.bb, r.nb = 0, 0
			if p+n > len(in) {
				return 0, ErrShort
			}
			if n > len(dst)-o {
				return 0, ErrLong
			}
			copy(dst[o:], in[p:p+n])
			o += n
			r.pos = p + n
			if hdr&1 != 0 {
				return r.pos, filled(o, dst)
			}
			continue
		case 1:
			fixedOnce.Do(initFixed)
			lt, dt = &fixedLit, &fixedDist
		case 2:
			if err := f.readDynamic(r); err != nil {
				return 0, err
			}
			lt, dt = &f.lit, &f.dist
		default:
			return 0, errInflateCorrupt
		}
		bb, nb, pos := r.bb, r.nb, r.pos
		var ferr error
	symbols:
		for {
			if nb < 48 {
				if pos+8 <= len(in) {
					bb |= binary.LittleEndian.Uint64(in[pos:]) << nb
					pos += int(63-nb) >> 3
					nb |= 56
				} else {
					r.bb, r.nb, r.pos = bb, nb, pos
					if err := r.refill(); err != nil {
						return 0, err
					}
					bb, nb, pos = r.bb, r.nb, r.pos
				}
			}
			e := lt[bb&(1<<litRootBits-1)]
			if e&kindMask == kindLink {
				bb >>= litRootBits
				nb -= litRootBits
				e = lt[e>>16+uint32(bb&(1<<(e>>8&0xFF)-1))]
			}
			n := uint(e & 0xF)
			bb >>= n
			nb -= n
			if e&kindMask == kindLiteral {
				if o >= len(dst) {
					ferr = ErrLong
					break symbols
				}
				dst[o] = byte(e >> 16)
				o++
				// At least 33 bits are left: enough for a second
				// literal without a refill.
				e = lt[bb&(1<<litRootBits-1)]
				if e&kindMask != kindLiteral {
					continue
				}
				n = uint(e & 0xF)
				bb >>= n
				nb -= n
				if o >= len(dst) {
					ferr = ErrLong
					break symbols
				}
				dst[o] = byte(e >> 16)
				o++
				continue
			}
			switch e & kindMask {
			case kindBase:
			case kindEnd:
				r.bb, r.nb, r.pos = bb, nb, pos
				goto blockEnd
			default:
				ferr = errInflateCorrupt
				break symbols
			}
			extra := uint(e >> 8 & 0xFF)
			length := int(e>>16) + int(bb&(1<<extra-1))
			bb >>= extra
			nb -= extra

			e = dt[bb&(1<<distRootBits-1)]
			if e&kindMask == kindLink {
				bb >>= distRootBits
				nb -= distRootBits
				e = dt[e>>16+uint32(bb&(1<<(e>>8&0xFF)-1))]
			}
			if e&kindMask != kindBase {
				ferr = errInflateCorrupt
				break symbols
			}
			n = uint(e & 0xF)
			bb >>= n
			nb -= n
			extra = uint(e >> 8 & 0xFF)
			dist := int(e>>16) + int(bb&(1<<extra-1))
			bb >>= extra
			nb -= extra
			if dist > o {
				ferr = errInflateCorrupt
				break symbols
			}
			if length > len(dst)-o {
				ferr = ErrLong
				break symbols
			}
			end := o + length
			switch {
			case dist >= 8 && wide:
				// Eight bytes at a time: a word read at s was written
				// before (dist >= 8); the last store may run up to 7
				// bytes past end, into bytes written later or the slack.
				for s := o - dist; o < end; s, o = s+8, o+8 {
					binary.LittleEndian.PutUint64(buf[o:], binary.LittleEndian.Uint64(buf[s:]))
				}
				o = end
			case dist >= length:
				copy(dst[o:end], dst[o-dist:])
				o = end
			default:
				src := o - dist
				for o < end {
					o += copy(dst[o:end], dst[src:o])
				}
			}
		}
		r.bb, r.nb, r.pos = bb, nb, pos
		return 0, ferr
	blockEnd:
		if hdr&1 != 0 {
			used := r.pos - int(r.nb>>3)
			if used > len(in) {
				return 0, ErrShort
			}
			return used, filled(o, dst)
		}
	}
}

// filled checks that the stream filled dst when it ends after o bytes.
func filled(o int, dst []byte) error {
	if o != len(dst) {
		return ErrShort
	}
	return nil
}

// codeOrder is the order of the code-length code lengths.
var codeOrder = [numCL]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// readDynamic reads a dynamic block's code description and builds the
// literal/length and distance tables.
func (f *Inflater) readDynamic(r *bitReader) error {
	h, err := r.bits(14)
	if err != nil {
		return err
	}
	nlit, ndist, nclen := int(h&0x1F)+257, int(h>>5&0x1F)+1, int(h>>10)+4
	if nlit > 286 || ndist > 30 {
		return errInflateCorrupt
	}
	var cl [numCL]uint8
	for i := range nclen {
		v, err := r.bits(3)
		if err != nil {
			return err
		}
		cl[codeOrder[i]] = uint8(v)
	}
	if err := buildTable(f.cl[:], cl[:], clSyms[:], clRootBits, false); err != nil {
		return err
	}
	lens := f.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if r.nb < 16 {
			if err := r.refill(); err != nil {
				return err
			}
		}
		e := f.cl[r.bb&(1<<clRootBits-1)]
		n := uint(e & 0xF)
		r.bb >>= n
		r.nb -= n
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep uint32
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				return errInflateCorrupt
			}
			val = lens[i-1]
			rep, err = r.bits(2)
			rep += 3
		case 17:
			rep, err = r.bits(3)
			rep += 3
		default:
			rep, err = r.bits(7)
			rep += 11
		}
		if err != nil {
			return err
		}
		if i+int(rep) > len(lens) {
			return errInflateCorrupt
		}
		for range rep {
			lens[i] = val
			i++
		}
	}
	if lens[256] == 0 {
		return errInflateCorrupt
	}
	if err := buildTable(f.lit[:], lens[:nlit], litSyms[:], litRootBits, true); err != nil {
		return err
	}
	return buildTable(f.dist[:], lens[nlit:], distSyms[:], distRootBits, true)
}
