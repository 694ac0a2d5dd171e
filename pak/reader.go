package pak

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/unrmod/unrmod/ue"
)

// Options configures decoding.
type Options struct {
	// Key decrypts an encrypted index and encrypted files. Without it an
	// encrypted index fails with ErrKeyRequired (DecodeFooter still gives
	// the key GUID), and so does reading an encrypted file. A wrong key
	// fails the index's SHA-1 (ErrWrongKey) and the decompression of
	// compressed files; the bytes of a stored encrypted file come out
	// scrambled, since its SHA-1 is of the encrypted bytes.
	Key *ue.Key
	// Codecs are the compression methods files are decoded with; nil
	// means the built-in ones (None, Zlib, Gzip, LZ4). Add one unrmod
	// lacks, such as an Oodle binding, with Codecs.Register.
	Codecs *ue.Codecs
}

// Reader is a decoded pak: its footer, the index's scalars and its files.
// Files are read on demand through the io.ReaderAt the pak was decoded
// from.
type Reader struct {
	Name   string // as given to Decode; used in errors
	Footer Footer
	// MountPoint is the directory the file paths are relative to, e.g.
	// "../../../" (the engine's root) or "../../../Game/Content/".
	MountPoint string
	// PathHashSeed seeds the path hashes of the path-hash index (version
	// 10 and later).
	PathHashSeed uint64
	// HasPathHashIndex and HasFullDirectoryIndex tell which secondary
	// indexes a version 10+ pak has.
	HasPathHashIndex, HasFullDirectoryIndex bool
	// Files lists the files in index order (for version 10 and later, in
	// the order of the full directory index). Delete records are listed
	// with Deleted set.
	Files []*File

	r          io.ReaderAt
	size       int64
	key        *ue.Key
	codecs     *ue.Codecs // nil: the built-in ones
	numEntries int64
	pathHashes []pathHashEntry  // the path-hash index, version 10+
	flatHashes []flatHash       // the hash table of a flat directory index, version 13+
	encoded    []byte           // the bit-encoded entries, version 10+
	fdiAt      [2]int64         // where the full directory index is (offset, size), version 10+
	locations  map[*File]int32  // each file's location in the directory index, version 10+
	byPath     map[string]*File // files by ASCII-lower-cased path
	fsOnce     sync.Once        // builds fsEntries, the io/fs view
	fsEntries  []fsEntry
}

// File is one file of a pak: its path relative to the mount point and its
// entry.
type File struct {
	// Path is relative to the mount point, '/'-separated as stored, e.g.
	// "Game/Content/Localization/Game/en/Game.locres". Files a version 10+
	// pak lists only in its path-hash index have an empty path.
	Path string
	Entry
	r  *Reader
	at int64 // where the index holds the entry, for errors
}

// ReadCloser is a Reader over a file opened by Open; Close closes it.
type ReadCloser struct {
	Reader
	f *os.File
}

// Close closes the pak file.
func (rc *ReadCloser) Close() error { return rc.f.Close() }

// Open opens the pak file name and decodes its footer and index; its files
// are read on demand until Close.
func Open(name string, opts *Options) (*ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	rc := &ReadCloser{f: f}
	if err := rc.init(f, st.Size(), name, opts); err != nil {
		f.Close()
		return nil, err
	}
	return rc, nil
}

// Decode decodes the footer and index of a pak of size bytes read through
// r; name is used in errors. The reader must stay usable while files are
// read. Every count is checked against the bytes left and every entry
// against the file's size before anything is allocated for it; errors are
// *ue.FormatError values wrapping ErrNotPak, ErrUnsupportedVersion,
// ErrCorrupt, ErrKeyRequired or ErrWrongKey.
func Decode(r io.ReaderAt, size int64, name string, opts *Options) (*Reader, error) {
	p := new(Reader)
	if err := p.init(r, size, name, opts); err != nil {
		return nil, err
	}
	return p, nil
}

// init decodes the pak into p.
func (p *Reader) init(r io.ReaderAt, size int64, name string, opts *Options) error {
	f, err := DecodeFooter(r, size, name)
	if err != nil {
		return err
	}
	p.Name, p.Footer, p.r, p.size = name, *f, r, size
	if opts != nil {
		p.key = opts.Key
		p.codecs = opts.Codecs
	}
	if f.Frozen {
		return errorf(name, "footer", size-int64(f.Size()), ErrUnsupportedVersion,
			"the index is frozen (a memory image of the engine's structures), which unrmod does not decode: %v", ErrUnsupportedVersion)
	}
	index, err := p.readIndexPart(f.IndexOffset, f.IndexSize, f.IndexHash, "index", f.IndexIV)
	if err != nil {
		return err
	}
	if f.Version.HasPathHashIndex() {
		err = p.decodeIndex(index)
	} else {
		err = p.decodeLegacyIndex(index)
	}
	if err != nil {
		return err
	}
	p.byPath = make(map[string]*File, len(p.Files))
	for _, file := range p.Files {
		if err := p.checkEntry(file); err != nil {
			return err
		}
		if key := asciiLower(file.Path); file.Path != "" && p.byPath[key] == nil {
			p.byPath[key] = file
		}
	}
	return nil
}

// readIndexPart reads size bytes at off (the index or a secondary index),
// decrypts them if the index is encrypted (AES-CTR from iv when the footer
// says so) and checks their SHA-1.
func (p *Reader) readIndexPart(off, size int64, want [20]byte, what string, iv [ivLen]byte) ([]byte, error) {
	b := make([]byte, size)
	if _, err := p.r.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && size == 0) {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: reading the %s: %w", p.Name, what, err)
	}
	if p.Footer.IndexEncrypted {
		if p.key == nil {
			return nil, errorf(p.Name, what, off, ErrKeyRequired, "%v (key GUID %s)", ErrKeyRequired, p.Footer.EncryptionKeyGUID)
		}
		if p.Footer.CTR() {
			newCipher(p.key).CTR(iv, 0).XORKeyStream(b, b)
		} else {
			newCipher(p.key).Decrypt(b)
		}
	}
	if got := sha1.Sum(b); got != want {
		if p.Footer.IndexEncrypted {
			return nil, errorf(p.Name, what, off, ErrWrongKey, "SHA-1 after decryption is %x, the pak records %x: wrong AES key for key GUID %s", got, want, p.Footer.EncryptionKeyGUID)
		}
		return nil, errorf(p.Name, what, off, ErrCorrupt, "SHA-1 of its %d bytes is %x, the pak records %x: %v", size, got, want, ErrCorrupt)
	}
	return b, nil
}

// checkEntry checks that a file's entry lies inside the pak: its record
// and stored bytes, and its blocks within the stored bytes.
func (p *Reader) checkEntry(f *File) error {
	e := &f.Entry
	if e.Deleted {
		return nil
	}
	fail := func(format string, args ...any) error {
		return errorf(p.Name, f.describe(), f.at, ErrCorrupt, format+": %v", append(args, ErrCorrupt)...)
	}
	if e.Offset < 0 || e.Size < 0 || e.UncompressedSize < 0 {
		return fail("negative offset, size or uncompressed size (%d, %d, %d)", e.Offset, e.Size, e.UncompressedSize)
	}
	if e.Method == 0 && e.Size != e.UncompressedSize {
		return fail("stored file of %d bytes has an uncompressed size of %d", e.Size, e.UncompressedSize)
	}
	start := f.DataOffset()
	stored := e.Size
	if e.Encrypted {
		stored = align16(stored)
	}
	if e.Offset > p.size || stored > p.size || start > p.size-stored {
		return fail("data at 0x%X..0x%X (record at 0x%X) is outside the file (%d bytes)", start, start+stored, e.Offset, p.size)
	}
	for i, b := range e.Blocks {
		if b.Start < start || b.End < b.Start || b.End > start+stored {
			return fail("compression block %d at 0x%X..0x%X is outside the file's data 0x%X..0x%X", i, b.Start, b.End, start, start+stored)
		}
	}
	return nil
}

// DataOffset returns where the file's stored bytes start: after the
// record that precedes them.
func (f *File) DataOffset() int64 {
	return f.Offset + f.HeaderSize(f.r.Footer.Version, len(f.r.Footer.Methods))
}

// describe names the file's entry for errors.
func (f *File) describe() string {
	if f.Path == "" {
		return "index entry"
	}
	return fmt.Sprintf("index entry %q", f.Path)
}

// Lookup returns the file whose path (relative to the mount point) is
// path, compared ignoring ASCII case as the engine does, or nil. When a
// pak lists a path twice, the first is returned.
func (p *Reader) Lookup(path string) *File {
	return p.byPath[asciiLower(path)]
}

// ReadFile returns the contents of the file at path (relative to the mount
// point), decrypted, decompressed and checked against its SHA-1.
func (p *Reader) ReadFile(path string) ([]byte, error) {
	f := p.Lookup(path)
	if f == nil {
		return nil, fmt.Errorf("%s: %s: %w", p.Name, path, os.ErrNotExist)
	}
	return f.ReadAll()
}

// ReadAll returns the file's contents, as reading everything Open returns
// does.
func (f *File) ReadAll() ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(f.UncompressedSize, 64<<20))) // the size is a claim until the data is read
	if _, err := buf.ReadFrom(rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
