package pak

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"slices"

	"github.com/unrmod/unrmod/ue"
)

// CanDecode reports whether unrmod's built-in codecs decompress files of
// the named method: None, Zlib, Gzip and LZ4 (raw blocks, as the engine
// writes them). Oodle needs the game's own Oodle library, which package
// ue/oodle loads into the Options.Codecs of a reader.
func CanDecode(method string) bool { return (*ue.Codecs)(nil).CanDecode(method) }

// Open returns a reader of the file's contents: decrypted, decompressed
// block by block and, at the end, checked against the SHA-1 of the stored
// bytes when the pak records one. It holds one block's worth of buffers,
// whatever the file's size. The record that precedes the data must agree
// with the index. Errors are *ue.FormatError values (ErrCorrupt,
// ErrHashMismatch, ErrKeyRequired), a *MethodError for a method other than
// Zlib and Gzip, and fs.ErrNotExist for a delete record.
func (f *File) Open() (io.ReadCloser, error) {
	p := f.r
	if f.Deleted {
		return nil, fmt.Errorf("%s: %s is a delete record, it has no data: %w", p.Name, f.Path, fs.ErrNotExist)
	}
	method := p.Footer.MethodName(f.Method)
	codec, _ := p.codecs.Lookup("None")
	if f.Method != 0 {
		codec, _ = p.codecs.Lookup(method)
		if codec.NewReader == nil && codec.Decompress == nil {
			return nil, &MethodError{File: p.Name, Path: f.Path, Method: method}
		}
	}
	if f.Encrypted && p.key == nil {
		return nil, errorf(p.Name, f.describe(), f.at, ErrKeyRequired, "%s is encrypted: %v (key GUID %s)", f.Path, ErrKeyRequired, p.Footer.EncryptionKeyGUID)
	}
	hash, err := f.checkRecord()
	if err != nil {
		return nil, err
	}
	start := f.DataOffset()
	stored := f.Size
	if f.Encrypted {
		stored = align16(stored)
	}
	fr := &fileReader{
		f:      f,
		codec:  codec,
		raw:    bufio.NewReaderSize(io.NewSectionReader(p.r, start, stored), 32<<10),
		region: stored,
		left:   f.UncompressedSize,
		want:   hash,
	}
	if hash != ([20]byte{}) {
		fr.hash = sha1.New()
	}
	if f.Encrypted {
		fr.cipher = newCipher(p.key)
		fr.ctr = p.Footer.CTR()
	}
	if fr.blocks, fr.blockSize, err = f.plan(start); err != nil {
		return nil, err
	}
	return fr, nil
}

// checkRecord reads the entry's record that precedes the data, checks it
// against the index's copy and returns the hash it records.
func (f *File) checkRecord() ([20]byte, error) {
	p := f.r
	v, slots := p.Footer.Version, len(p.Footer.Methods)
	size := f.HeaderSize(v, slots)
	b := make([]byte, size)
	if _, err := p.r.ReadAt(b, f.Offset); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return [20]byte{}, fmt.Errorf("%s: reading the record of %s: %w", p.Name, f.Path, err)
	}
	c := newCursor(b, f.Offset)
	rec := decodeEntry(c, v, slots)
	what := fmt.Sprintf("record of %q", f.Path)
	if err := c.Err(); err != nil {
		return [20]byte{}, cursorError(p.Name, what+" ", err)
	}
	// The record's Offset field is not compared: writers store 0 or the
	// offset, and its block offsets are relative to it from version 5.
	base := f.Offset
	if v.HasRelativeBlockOffsets() {
		base = rec.Offset
	}
	mismatch := func(field string, rv, iv any) error {
		return errorf(p.Name, what, f.Offset, ErrCorrupt, "%s is %v, the index says %v: %v", field, rv, iv, ErrCorrupt)
	}
	switch {
	case rec.Size != f.Size:
		return rec.Hash, mismatch("size", rec.Size, f.Size)
	case rec.UncompressedSize != f.UncompressedSize:
		return rec.Hash, mismatch("uncompressed size", rec.UncompressedSize, f.UncompressedSize)
	case rec.Method != f.Method:
		return rec.Hash, mismatch("compression method slot", rec.Method, f.Method)
	case rec.Encrypted != f.Encrypted:
		return rec.Hash, mismatch("encrypted flag", rec.Encrypted, f.Encrypted)
	case len(rec.Blocks) != len(f.Blocks):
		return rec.Hash, mismatch("block count", len(rec.Blocks), len(f.Blocks))
	case f.Hash != [20]byte{} && rec.Hash != f.Hash:
		return rec.Hash, mismatch("hash", fmt.Sprintf("%x", rec.Hash), fmt.Sprintf("%x", f.Hash))
	}
	for i, blk := range rec.Blocks {
		got := Block{blk.Start - base + f.Offset, blk.End - base + f.Offset}
		if got != f.Blocks[i] {
			return rec.Hash, mismatch(fmt.Sprintf("block %d", i), fmt.Sprintf("0x%X..0x%X", got.Start, got.End), fmt.Sprintf("0x%X..0x%X", f.Blocks[i].Start, f.Blocks[i].End))
		}
	}
	return rec.Hash, nil
}

// plan returns the file's blocks relative to the start of its data
// (start), in order, and the uncompressed size of each but the last. A
// stored file is one block. It checks that the blocks follow each other
// and that their count fits the sizes.
func (f *File) plan(start int64) ([]Block, int64, error) {
	p := f.r
	fail := func(format string, args ...any) ([]Block, int64, error) {
		return nil, 0, errorf(p.Name, f.describe(), f.at, ErrCorrupt, format+": %v", append(args, ErrCorrupt)...)
	}
	if f.Method == 0 {
		return []Block{{0, f.Size}}, f.Size, nil
	}
	blocks := make([]Block, len(f.Blocks))
	for i, b := range f.Blocks {
		blocks[i] = Block{b.Start - start, b.End - start}
	}
	bs := int64(f.BlockSize)
	if len(blocks) == 0 {
		// Before version 3 a compressed file is one stream.
		blocks = []Block{{0, f.Size}}
	}
	if len(blocks) == 1 || bs == 0 {
		bs = f.UncompressedSize
	}
	if bs == 0 && f.UncompressedSize > 0 {
		return fail("compressed with a block size of 0")
	}
	if bs > 0 {
		want := f.UncompressedSize / bs
		if f.UncompressedSize%bs != 0 {
			want++
		}
		if want != int64(len(blocks)) {
			return fail("%d compression blocks for %d bytes in blocks of %d (want %d)", len(blocks), f.UncompressedSize, bs, want)
		}
	}
	var end int64
	for i, b := range blocks {
		if b.Start < end {
			return fail("compression block %d starts at 0x%X, inside the block before it", i, start+b.Start)
		}
		end = b.End
		if f.Encrypted {
			end = b.Start + align16(b.End-b.Start)
		}
	}
	return blocks, bs, nil
}

// fileReader streams a file's contents: it reads the stored bytes in
// order (hashing them), decrypts and decompresses one block at a time.
type fileReader struct {
	f         *File
	codec     ue.Codec      // the file's method; None when stored
	raw       *bufio.Reader // the stored bytes, read in order
	pos       int64         // position in the stored bytes
	region    int64         // their length (padded to 16 when encrypted)
	hash      hash.Hash     // SHA-1 of stored bytes [0, Size), when the pak records one
	want      [20]byte
	cipher    *ue.ECB
	ctr       bool    // the cipher runs in AES-CTR from the entry's IV (version 15)
	in, out   []byte  // a block decoded in memory (codecs without NewReader)
	blocks    []Block // relative to the stored bytes
	blockSize int64
	left      int64 // uncompressed bytes still to hand out

	next    int           // next block
	cur     io.Reader     // the current block's output
	curLeft int64         // bytes cur still has to give
	zr      io.ReadCloser // the last stream decoder, reused when it can Reset
	err     error
}

// Read hands out the file's contents.
func (r *fileReader) Read(p []byte) (int, error) {
	for r.err == nil {
		if r.cur != nil && r.curLeft > 0 {
			if len(p) == 0 {
				return 0, nil
			}
			n, err := r.cur.Read(p[:min(int64(len(p)), r.curLeft)])
			r.curLeft -= int64(n)
			r.left -= int64(n)
			if n > 0 {
				return n, nil
			}
			if err == nil {
				continue
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				r.err = r.corrupt("compression block %d ends %d bytes early", r.next-1, r.curLeft)
			} else {
				r.err = r.wrap(err, r.next-1)
			}
			break
		}
		if r.cur != nil {
			if r.codec.NewReader != nil && !ue.IsNone(r.codec.Name) {
				// Read the stream to its end: zlib and gzip check their
				// checksums there.
				var one [1]byte
				n, err := r.cur.Read(one[:])
				if n > 0 {
					r.err = r.corrupt("compression block %d decompresses to more than %d bytes", r.next-1, r.blockLen(r.next-1))
					break
				}
				if err != io.EOF {
					r.err = r.wrap(err, r.next-1)
					break
				}
			}
			r.cur = nil
		}
		if r.next < len(r.blocks) {
			r.err = r.openBlock()
			continue
		}
		r.err = r.finish()
	}
	return 0, r.err
}

// blockLen returns how many bytes block i decompresses to.
func (r *fileReader) blockLen(i int) int64 {
	if i == len(r.blocks)-1 {
		return r.f.UncompressedSize - int64(i)*r.blockSize
	}
	return r.blockSize
}

// openBlock starts the next block.
func (r *fileReader) openBlock() error {
	i := r.next
	r.next++
	b := r.blocks[i]
	if err := r.skip(b.Start - r.pos); err != nil {
		return err
	}
	n := b.End - b.Start
	var src io.Reader = &rawReader{r}
	switch {
	case r.ctr:
		// One keystream runs over the file's stored bytes from its start.
		s := r.cipher.CTR(r.f.IV, uint32(b.Start/16))
		var skip [16]byte
		s.XORKeyStream(skip[:b.Start%16], skip[:b.Start%16])
		src = io.LimitReader(cipher.StreamReader{S: s, R: io.LimitReader(src, align16(n))}, n)
	case r.cipher != nil:
		src = io.LimitReader(&ecbReader{r: io.LimitReader(src, align16(n)), c: r.cipher}, n)
	default:
		src = io.LimitReader(src, n)
	}
	r.curLeft = r.blockLen(i)
	if ue.IsNone(r.codec.Name) {
		r.cur = src
		return nil
	}
	if r.codec.NewReader == nil {
		return r.decodeBlock(i, src, n)
	}
	var err error
	if z, ok := r.zr.(interface{ Reset(io.Reader) error }); ok {
		err = z.Reset(src)
	} else {
		r.zr, err = r.codec.NewReader(src)
	}
	if err != nil {
		return r.wrap(err, i)
	}
	r.cur = r.zr
	return nil
}

// maxMemoryBlock bounds the uncompressed size of a block decoded in memory
// (with a codec that cannot stream), so that a damaged size cannot make
// unrmod allocate gigabytes; the engine's blocks are 64 KiB.
const maxMemoryBlock = 64 << 20

// decodeBlock decodes block i, whose n stored bytes src gives, in memory
// with the codec's Decompress (raw LZ4 blocks, what the engine decodes,
// need the whole block).
func (r *fileReader) decodeBlock(i int, src io.Reader, n int64) error {
	name, size := r.codec.Name, r.curLeft
	if x := int64(r.codec.MaxExpansion); x > 0 && size > x*n+16 || size > maxMemoryBlock {
		return r.corrupt("%s block %d of %d bytes cannot decode to %d", name, i, n, size)
	}
	r.in = slices.Grow(r.in[:0], int(n))[:n]
	if _, err := io.ReadFull(src, r.in); err != nil {
		return r.wrap(err, i)
	}
	r.out = slices.Grow(r.out[:0], int(size)+ue.DecompressSlack)[:size]
	if err := r.codec.Decompress(r.out, r.in); err != nil {
		return r.wrap(err, i)
	}
	r.cur = bytes.NewReader(r.out)
	return nil
}

// finish reads the stored bytes after the last block and checks the hash.
func (r *fileReader) finish() error {
	if r.left != 0 {
		return r.corrupt("the blocks give %d bytes fewer than the uncompressed size", r.left)
	}
	if r.hash != nil {
		if err := r.skip(r.f.Size - r.pos); err != nil {
			return err
		}
		var got [20]byte
		r.hash.Sum(got[:0])
		if got != r.want {
			p := r.f.r
			return errorf(p.Name, fmt.Sprintf("data of %q", r.f.Path), r.f.Offset, ErrHashMismatch,
				"SHA-1 of the %d stored bytes is %x, the record says %x: %v", r.f.Size, got, r.want, ErrHashMismatch)
		}
	}
	return io.EOF
}

// skip reads and hashes n stored bytes that no block needs.
func (r *fileReader) skip(n int64) error {
	if n <= 0 {
		return nil
	}
	if _, err := io.CopyN(io.Discard, &rawReader{r}, n); err != nil {
		return r.wrap(err, r.next-1)
	}
	return nil
}

// corrupt returns a *ue.FormatError about the file's data.
func (r *fileReader) corrupt(format string, args ...any) error {
	p := r.f.r
	return errorf(p.Name, fmt.Sprintf("data of %q", r.f.Path), r.f.Offset, ErrCorrupt, format+": %v", append(args, ErrCorrupt)...)
}

// wrap turns a read or decompression error of block i into an error
// naming the file.
func (r *fileReader) wrap(err error, i int) error {
	var fe *ue.FormatError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.corrupt("the stored bytes end early in compression block %d", i)
	}
	p := r.f.r
	return errorf(p.Name, fmt.Sprintf("data of %q", r.f.Path), r.f.Offset, ErrCorrupt, "compression block %d: %v (%v)", i, err, ErrCorrupt)
}

// Close releases the decompressor.
func (r *fileReader) Close() error {
	if r.zr != nil {
		r.zr.Close()
	}
	r.err = errors.New("pak: read after Close")
	return nil
}

// rawReader reads the stored bytes in order, hashing the first Size of
// them.
type rawReader struct{ r *fileReader }

func (w *rawReader) Read(p []byte) (int, error) {
	r := w.r
	if r.pos >= r.region {
		return 0, io.EOF
	}
	n, err := r.raw.Read(p[:min(int64(len(p)), r.region-r.pos)])
	if r.hash != nil && r.pos < r.f.Size {
		r.hash.Write(p[:min(int64(n), r.f.Size-r.pos)])
	}
	r.pos += int64(n)
	return n, err
}
