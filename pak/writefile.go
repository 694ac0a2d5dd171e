package pak

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
)

// seekOutput is an output a Writer can go back in, such as an *os.File:
// it then writes a file's bytes once, and its record (which holds their
// hash and sizes) after them, in the room left before them. Truncate cuts
// what a file stored as it is leaves beyond the end (see writeFile).
type seekOutput interface {
	io.WriteSeeker
	Truncate(size int64) error
}

// ErrFileChanged means a file's bytes changed while the Writer read them:
// they ended before the size given, or differed between two readings.
var ErrFileChanged = errors.New("the file changed while it was being written to the pak")

// Add adds a file at name (see Create for the rules of paths) holding the
// size bytes r has from offset 0. The file is read a compression block at
// a time and never held in memory whole, whatever its size. When the
// Writer's output can seek and truncate (an *os.File), each byte is read
// once, or twice for a file compression does not make smaller, which is
// stored as it is; on other outputs the Writer reads the file once to
// learn what it stores and again to write it. A file that ends early or
// whose bytes differ between two readings fails with ErrFileChanged.
func (w *Writer) Add(name string, r io.ReaderAt, size int64) error {
	if size < 0 {
		return fmt.Errorf("pak writer: %s: negative size %d", name, size)
	}
	if err := w.claim(name); err != nil {
		return err
	}
	w.err = w.writeFile(name, r, size)
	return w.err
}

// writeFile writes one file: its record, then its stored bytes, Zlib
// blocks when compression makes the file smaller and the bytes as they are
// otherwise, each padded to 16 bytes and encrypted when the files are
// encrypted.
func (w *Writer) writeFile(name string, r io.ReaderAt, size int64) error {
	e := Entry{Offset: w.w.n, UncompressedSize: size, Encrypted: w.opts.EncryptFiles}
	if e.Encrypted && w.opts.CTR {
		if err := w.newIV(&e.IV); err != nil {
			return err
		}
	}
	if w.opts.Compress && size > 0 {
		e.Method = w.mslot
		e.BlockSize = uint32(min(size, DefaultBlockSize))
		e.Blocks = make([]Block, (size+DefaultBlockSize-1)/DefaultBlockSize)
		ok, err := w.place(name, &e, r)
		if err != nil || ok {
			return err
		}
		e.Method, e.BlockSize, e.Blocks = 0, 0, nil
	}
	_, err := w.place(name, &e, r)
	return err
}

// place writes e's record and its stored bytes read from r, when e is
// stored as it is or its compressed bytes are fewer than its own; it
// reports whether it did. Nothing is left written when it did not.
func (w *Writer) place(name string, e *Entry, r io.ReaderAt) (bool, error) {
	v, slots := w.opts.Version, len(w.slots)
	record := e.HeaderSize(v, slots)
	if w.out == nil {
		// First learn the stored size and hash, then write.
		n, sum, err := w.stream(name, e, r, io.Discard)
		if err != nil || (e.Method != 0 && n >= e.UncompressedSize) {
			return false, err
		}
		e.Size, e.Hash = n, sum
		if _, err := w.w.Write(appendEntry(nil, e, v, slots, 0)); err != nil {
			return false, err
		}
		if _, sum, err = w.stream(name, e, r, w.w); err != nil {
			return false, err
		}
		if sum != e.Hash {
			return false, fmt.Errorf("pak writer: %s: its bytes differ between two readings: %w", name, ErrFileChanged)
		}
		w.entries = append(w.entries, writtenEntry{path: name, entry: *e})
		return true, nil
	}
	// Write the bytes after room for the record, then the record.
	if _, err := w.w.Write(make([]byte, record)); err != nil {
		return false, err
	}
	n, sum, err := w.stream(name, e, r, w.w)
	if err != nil {
		return false, err
	}
	w.high = max(w.high, w.w.n)
	end := w.w.n
	if e.Method != 0 && n >= e.UncompressedSize {
		end = e.Offset // stored as it is from the same place
	}
	if end == w.w.n {
		e.Size, e.Hash = n, sum
		if err := w.writeAt(e.Offset, appendEntry(nil, e, v, slots, 0)); err != nil {
			return false, err
		}
	}
	if _, err := w.out.Seek(w.base+end, io.SeekStart); err != nil {
		return false, err
	}
	w.w.n = end
	if end == e.Offset {
		return false, nil
	}
	w.entries = append(w.entries, writtenEntry{path: name, entry: *e})
	return true, nil
}

// writeAt writes b at offset off of the pak (the output is left wherever
// the write ends).
func (w *Writer) writeAt(off int64, b []byte) error {
	if _, err := w.out.Seek(w.base+off, io.SeekStart); err != nil {
		return err
	}
	_, err := w.out.Write(b)
	return err
}

// stream reads e's uncompressed bytes from r and writes to out the bytes
// the pak stores: compressed blocks (e.Method != 0, whose Blocks it fills) or the
// bytes as they are, encrypted when e is. It returns their size (Size) and
// the SHA-1 of that many of them. It holds one block in memory.
func (w *Writer) stream(name string, e *Entry, r io.ReaderAt, out io.Writer) (int64, [20]byte, error) {
	if w.buf == nil {
		w.buf = make([]byte, DefaultBlockSize)
	}
	h := sha1.New()
	size := e.UncompressedSize
	read := func(off int64, b []byte) error {
		n, err := r.ReadAt(b, off)
		if n == len(b) {
			return nil
		}
		if err == nil || errors.Is(err, io.EOF) {
			return fmt.Errorf("pak writer: %s: it ends at %d bytes, not %d: %w", name, off+int64(n), size, ErrFileChanged)
		}
		return fmt.Errorf("pak writer: %s: %w", name, err)
	}
	var stored int64
	emit := func(b []byte, hashed int) error {
		h.Write(b[:hashed])
		stored += int64(len(b))
		_, err := out.Write(b)
		return err
	}
	if e.Method != 0 {
		pos := e.Offset + e.HeaderSize(w.opts.Version, len(w.slots))
		for k := range e.Blocks {
			off := int64(k) * DefaultBlockSize
			block := w.buf[:min(DefaultBlockSize, size-off)]
			if err := read(off, block); err != nil {
				return 0, [20]byte{}, err
			}
			c, err := w.comp(w.zbuf[:0], block)
			if err == nil && len(c) > 0 && &c[0] == &block[0] {
				// A compressor that hands back its input (LZ4 on data it
				// cannot shrink) leaves nothing a pak block can hold.
				err = fmt.Errorf("the %s compressor left block %d as it is, which a pak cannot store in a compressed file", w.method, k)
			}
			if err != nil {
				return 0, [20]byte{}, fmt.Errorf("pak writer: %s: %w", name, err)
			}
			w.zbuf = c
			e.Blocks[k] = Block{pos + stored, pos + stored + int64(len(c))}
			if e.Encrypted {
				c = appendPadding(c, c)
				w.encrypt(c, e.IV, stored)
			}
			if err := emit(c, len(c)); err != nil {
				return 0, [20]byte{}, err
			}
		}
		return stored, [20]byte(h.Sum(nil)), nil
	}
	// Stored as it is; encrypted data is padded with bytes repeated from
	// the file's start (appendPadding), which the hash leaves out.
	var head []byte
	if e.Encrypted && size%16 != 0 {
		head = make([]byte, min(size, 16))
		if err := read(0, head); err != nil {
			return 0, [20]byte{}, err
		}
	}
	for off := int64(0); off < size; off += DefaultBlockSize {
		n := min(DefaultBlockSize, size-off)
		chunk := w.buf[:n]
		if err := read(off, chunk); err != nil {
			return 0, [20]byte{}, err
		}
		if e.Encrypted {
			for i := 0; len(chunk)%16 != 0; i++ {
				chunk = append(chunk, head[i%len(head)])
			}
			w.encrypt(chunk, e.IV, off)
		}
		if err := emit(chunk, int(n)); err != nil {
			return 0, [20]byte{}, err
		}
	}
	return size, [20]byte(h.Sum(nil)), nil
}
