package pak

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// DefaultMountPoint is the mount point NewWriter uses unless told
// otherwise: the engine's root, under which paths start with the project
// or "Engine" directory.
const DefaultMountPoint = "../../../"

// DefaultBlockSize is the uncompressed size of the compression blocks the
// writer makes (the engine's default).
const DefaultBlockSize = 64 << 10

// WriterOptions configures a Writer. The zero value writes an
// unencrypted, uncompressed version 11 pak mounted at "../../../".
type WriterOptions struct {
	// Version is the pak version to write, 1 to 15; 0 means
	// DefaultVersion (11, which UE 4.26, 4.27 and 5.x read).
	Version Version
	// MountPoint is the directory the paths are relative to; it must end
	// with '/'. "" means DefaultMountPoint.
	MountPoint string
	// EncryptionKeyGUID is stored in the footer (version 7 and later): an
	// IoStore container with the pak's base name is mounted with the key
	// registered under this GUID, so it must be the container's. Zero is
	// the game's default key, or none.
	EncryptionKeyGUID GUID
	// PathHashSeed seeds the path hashes of version 10+ paks. UnrealPak
	// uses a CRC of the pak's file name; any value works, since readers
	// use the one stored.
	PathHashSeed uint64
	// Compress compresses files with Method, in blocks of
	// DefaultBlockSize, when that makes them smaller (version 3 and
	// later).
	Compress bool
	// Method is what Compress compresses with: "" or "Zlib", or another
	// method of Codecs, such as "Oodle" through the game's own library
	// (package ue/oodle). A method other than Zlib needs version 8 or
	// later, which name their methods.
	Method string
	// Codecs give Method's compressor; nil means the built-in ones.
	Codecs *ue.Codecs
	// Key, with EncryptIndex and EncryptFiles, encrypts the index (version
	// 4 and later) and the files' bytes with AES-256-ECB.
	Key                        *ue.Key
	EncryptIndex, EncryptFiles bool
	// CTR encrypts with AES-CTR, as UE 6.0 does, rather than AES-ECB
	// (version 15 only): each index part and each file gets its own
	// 12-byte IV, read from IVSource (crypto/rand when nil).
	CTR      bool
	IVSource io.Reader
	// Methods, from version 8, are the footer's compression method names
	// (4 or 5 slots, "" for an unused one); nil means five slots with Zlib
	// in the first when Compress is set. A pak whose files are copied with
	// CopyFile gives its own Footer.Methods, so that the copies' slots name
	// the same methods; Compress then uses the slot that names Method,
	// taking the first free one when none does.
	Methods []string
}

// Writer writes a pak: files one after the other, each preceded by its
// entry's record, then the index and the footer (Close). Add streams a
// file, holding one compression block of it at a time; Create and
// WriteFile hold the file being written in memory.
type Writer struct {
	w       *countWriter
	out     seekOutput    // the output, when records can be written after their files' bytes
	base    int64         // out's offset where the pak starts
	high    int64         // the furthest the output was written, relative to base
	buf     []byte        // a block read from a file
	zbuf    []byte        // a compressed block
	comp    ue.Compressor // Method's compressor, when Compress is set
	method  string        // Method as its codec names it
	opts    WriterOptions
	slots   []string // the footer's method names
	mslot   uint32   // the slot of the method Compress uses
	cipher  *ue.ECB
	entries []writtenEntry
	paths   map[string]string // lower-cased path -> path
	pending *fileWriter
	closed  bool
	err     error // sticky write error
}

// writtenEntry is a file written so far.
type writtenEntry struct {
	path  string
	entry Entry
}

// NewWriter returns a Writer that writes a pak to w. It checks the
// options: a version from 1 to 15, a mount point ending in '/', a key GUID
// only from version 7, compression only from version 3, index encryption
// only from version 4, and a Key when anything is to be encrypted.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	o := WriterOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Version == 0 {
		o.Version = DefaultVersion
	}
	if o.MountPoint == "" {
		o.MountPoint = DefaultMountPoint
	}
	v := o.Version
	switch {
	case !v.Known():
		return nil, fmt.Errorf("pak writer: version %d is not one unrmod writes (1 to %d): %w", uint32(v), LatestVersion, ErrUnsupportedVersion)
	case !strings.HasSuffix(o.MountPoint, "/") || strings.ContainsRune(o.MountPoint, 0):
		return nil, fmt.Errorf("pak writer: mount point %q does not end with '/' or holds a NUL", o.MountPoint)
	case !o.EncryptionKeyGUID.IsZero() && !v.HasKeyGUID():
		return nil, fmt.Errorf("pak writer: version %d has no key GUID in its footer (version 7 and later do)", uint32(v))
	case o.Compress && !v.HasBlocks():
		return nil, fmt.Errorf("pak writer: version %d has no compression blocks (version 3 and later do)", uint32(v))
	case o.EncryptIndex && !v.HasIndexEncryption():
		return nil, fmt.Errorf("pak writer: version %d cannot encrypt its index (version 4 and later can)", uint32(v))
	case o.EncryptFiles && !v.HasBlocks():
		return nil, fmt.Errorf("pak writer: version %d has no encrypted-file flag (version 3 and later do)", uint32(v))
	case (o.EncryptIndex || o.EncryptFiles) && o.Key == nil:
		return nil, errors.New("pak writer: encryption needs a Key")
	case o.CTR && !v.HasEncryptionMethod():
		return nil, fmt.Errorf("pak writer: version %d cannot record AES-CTR (version 15 and later can)", uint32(v))
	}
	if o.IVSource == nil {
		o.IVSource = rand.Reader
	}
	pw := &Writer{w: &countWriter{w: w}, opts: o, paths: map[string]string{}}
	method := "Zlib"
	if o.Compress {
		if o.Method != "" {
			method = o.Method
		}
		codec, _ := o.Codecs.Lookup(method)
		switch {
		case ue.IsNone(method):
			return nil, errors.New("pak writer: Compress with method None; leave Compress unset to store files")
		case codec.NewCompressor == nil && strings.EqualFold(method, "Oodle"):
			return nil, fmt.Errorf("pak writer: compression method %q: %w", method, ue.OodleLibrary("WriterOptions.Codecs (package ue/oodle)", ErrUnsupportedMethod))
		case codec.NewCompressor == nil:
			return nil, fmt.Errorf("pak writer: compression method %q: no compressor (add one to WriterOptions.Codecs): %w", method, ErrUnsupportedMethod)
		case !strings.EqualFold(codec.Name, "Zlib") && !v.HasMethodNames():
			return nil, fmt.Errorf("pak writer: version %d records only Zlib by its slot; %s needs version 8 or later, which name their methods", uint32(v), codec.Name)
		}
		method = codec.Name
		pw.comp, pw.method = codec.NewCompressor(ue.DefaultCompression), method
	}
	if so, ok := w.(seekOutput); ok {
		if base, err := so.Seek(0, io.SeekCurrent); err == nil {
			pw.out, pw.base = so, base
		}
	}
	pw.mslot = 1
	if v.HasMethodNames() {
		if o.Methods != nil {
			if err := pw.useMethods(o.Methods); err != nil {
				return nil, err
			}
		} else {
			pw.slots = make([]string, 5)
			if o.Compress {
				pw.slots[0] = method
			}
		}
	}
	if o.Key != nil {
		pw.cipher = newCipher(o.Key)
	}
	return pw, nil
}

// Create adds a file at name, a '/'-separated path relative to the mount
// point (e.g. "Game/Content/Localization/Game/en/Game.locres"), and
// returns a writer for its contents. The contents are written to the pak
// when the next file is created or the pak is closed; the returned writer
// must not be used after that. Paths must be valid io/fs paths without
// backslashes and unique ignoring ASCII case, as the engine looks them up.
func (w *Writer) Create(name string) (io.Writer, error) {
	if err := w.claim(name); err != nil {
		return nil, err
	}
	w.pending = &fileWriter{w: w, path: name}
	return w.pending, nil
}

// claim writes the pending file and checks and records the path of the
// next one (see Create).
func (w *Writer) claim(name string) error {
	if err := w.finishPending(); err != nil {
		return err
	}
	if w.closed {
		return errors.New("pak writer: Create after Close")
	}
	if !fs.ValidPath(name) || name == "." || strings.ContainsAny(name, "\\\x00") {
		return fmt.Errorf("pak writer: %q is not a relative '/'-separated path", name)
	}
	if prev, dup := w.paths[asciiLower(name)]; dup {
		return fmt.Errorf("pak writer: %q is already in the pak as %q (paths are compared ignoring ASCII case, as the engine does)", name, prev)
	}
	w.paths[asciiLower(name)] = name
	return nil
}

// WriteFile adds a file at name with the given contents, as Create and a
// write do.
func (w *Writer) WriteFile(name string, data []byte) error {
	fw, err := w.Create(name)
	if err != nil {
		return err
	}
	_, err = fw.Write(data)
	return err
}

// Close writes the pending file, the index and the footer. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	if err := w.finishPending(); err != nil {
		return err
	}
	w.closed = true
	if w.err = w.writeIndex(); w.err != nil {
		return w.err
	}
	if w.out != nil && w.high > w.w.n {
		// A file stored as it is after its compressed blocks turned out no
		// smaller left bytes beyond the end.
		if w.err = w.out.Truncate(w.base + w.w.n); w.err != nil {
			return w.err
		}
	}
	return nil
}

// fileWriter collects one file's contents.
type fileWriter struct {
	w    *Writer
	path string
	buf  bytes.Buffer
	done bool
}

// Write appends to the file's contents.
func (f *fileWriter) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("pak writer: write to %q after the next Create or Close", f.path)
	}
	return f.buf.Write(p)
}

// finishPending writes the file being collected, if any.
func (w *Writer) finishPending() error {
	if w.err != nil {
		return w.err
	}
	f := w.pending
	if f == nil {
		return nil
	}
	w.pending = nil
	f.done = true
	w.err = w.writeFile(f.path, bytes.NewReader(f.buf.Bytes()), int64(f.buf.Len()))
	f.buf = bytes.Buffer{}
	return w.err
}

// writeIndex writes the index and the footer.
func (w *Writer) writeIndex() error {
	v := w.opts.Version
	f := Footer{
		EncryptionKeyGUID: w.opts.EncryptionKeyGUID,
		IndexEncrypted:    w.opts.EncryptIndex,
		Version:           v,
		IndexOffset:       w.w.n,
		Methods:           w.slots,
		PakchunkIndex:     -1,               // the engine takes it from the file name, as UE 6.0 writes it
		EncryptionMethod:  EncryptionAESECB, // what UE 6.0 records in its unencrypted paks too
	}
	if w.opts.CTR {
		f.EncryptionMethod = EncryptionAESCTR
		if w.opts.EncryptIndex {
			for _, iv := range []*[ivLen]byte{&f.IndexIV, &f.PathHashIndexIV, &f.DirectoryIndexIV} {
				if err := w.newIV(iv); err != nil {
					return err
				}
			}
		}
	}
	var index []byte
	var secondary [][]byte
	if v.HasPathHashIndex() {
		index, f.IndexHash, secondary = w.splitIndex(f.IndexOffset, &f)
	} else {
		index = binio.AppendFString32(nil, w.opts.MountPoint)
		index = binary.LittleEndian.AppendUint32(index, uint32(len(w.entries)))
		for _, we := range w.entries {
			index = binio.AppendFString32(index, we.path)
			index = appendEntry(index, &we.entry, v, len(w.slots), we.entry.Offset)
		}
		index, f.IndexHash = w.sealIndexPart(index, f.IndexIV)
	}
	f.IndexSize = int64(len(index))
	if _, err := w.w.Write(index); err != nil {
		return err
	}
	for _, s := range secondary {
		if _, err := w.w.Write(s); err != nil {
			return err
		}
	}
	footer, err := f.AppendBinary(nil)
	if err != nil {
		return err
	}
	_, err = w.w.Write(footer)
	return err
}

// sealIndexPart pads an index part to 16 bytes (appendPadding) and
// encrypts it when the index is encrypted, and returns it with the SHA-1 of its plain bytes
// (what readers check after decrypting).
func (w *Writer) sealIndexPart(b []byte, iv [ivLen]byte) ([]byte, [20]byte) {
	if w.opts.EncryptIndex {
		b = appendPadding(b, b)
	}
	sum := sha1.Sum(b)
	if w.opts.EncryptIndex {
		w.encrypt(b, iv, 0)
	}
	return b, sum
}

// encrypt encrypts b in place, which starts at byte off (a multiple of 16)
// of its encryption unit: with AES-CTR from iv, or AES-ECB.
func (w *Writer) encrypt(b []byte, iv [ivLen]byte, off int64) {
	if w.opts.CTR {
		w.cipher.CTR(iv, uint32(off/16)).XORKeyStream(b, b)
	} else {
		w.cipher.Encrypt(b)
	}
}

// newIV fills iv from the IV source.
func (w *Writer) newIV(iv *[ivLen]byte) error {
	if _, err := io.ReadFull(w.opts.IVSource, iv[:]); err != nil {
		return fmt.Errorf("pak writer: reading an AES-CTR IV: %w", err)
	}
	return nil
}

// appendPadding pads dst, which ends with b, to a multiple of 16 bytes
// for AES, with bytes repeated from the start of b, as UnrealPak pads.
func appendPadding(dst, b []byte) []byte {
	n := int(align16(int64(len(b)))) - len(b)
	for i := 0; i < n; i++ {
		dst = append(dst, b[i%len(b)])
	}
	return dst
}

// splitIndex builds the primary index of a version 10+ pak at offset, its
// SHA-1 and the secondary indexes that follow it: the path-hash index and
// the full directory index.
func (w *Writer) splitIndex(offset int64, f *Footer) ([]byte, [20]byte, [][]byte) {
	v := w.opts.Version
	le := binary.LittleEndian
	locations := make([]int32, len(w.entries))
	var encoded []byte
	var unencoded []*Entry
	for i := range w.entries {
		e := &w.entries[i].entry
		if encodable(e, v) && len(encoded) <= math.MaxInt32 {
			locations[i] = int32(len(encoded))
			encoded = appendEncodedEntry(encoded, e, w.opts.CTR)
		} else {
			unencoded = append(unencoded, e)
			locations[i] = -int32(len(unencoded))
		}
	}

	// Path-hash index: (hash, location) pairs, then a pruned directory
	// index, which the engine writes empty unless its settings keep some
	// directories.
	phi := le.AppendUint32(nil, uint32(len(w.entries)))
	for i, we := range w.entries {
		phi = le.AppendUint64(phi, PathHash(we.path, w.opts.PathHashSeed, v))
		phi = le.AppendUint32(phi, uint32(locations[i]))
	}
	phi = le.AppendUint32(phi, 0)

	// Full directory index: every directory, its parents up to the mount
	// point ("/") included, with the files directly in it; sorted.
	dirs := map[string][]int{}
	for i, we := range w.entries {
		dir, _ := splitDir(we.path)
		dirs[dir] = append(dirs[dir], i)
		for d := dir; d != "/"; {
			d, _ = splitDir(strings.TrimSuffix(d, "/"))
			if _, ok := dirs[d]; !ok {
				dirs[d] = nil
			}
		}
	}
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	slices.Sort(names)
	for _, d := range names {
		files := dirs[d]
		slices.SortFunc(files, func(a, b int) int { return strings.Compare(w.entries[a].path, w.entries[b].path) })
	}
	var fdi []byte
	if v.HasFlatDirectoryIndex() {
		flat := make([]flatDirectory, len(names))
		table := make([]flatHash, len(w.entries))
		for i, we := range w.entries {
			table[i] = flatHash{PathHash(we.path, w.opts.PathHashSeed, v), locations[i]}
		}
		for k, d := range names {
			flat[k].name = d
			for _, i := range dirs[d] {
				_, file := splitDir(w.entries[i].path)
				flat[k].files = append(flat[k].files, file)
				flat[k].locations = append(flat[k].locations, locations[i])
			}
		}
		fdi = appendFlatDirectoryIndex(nil, flat, table)
	} else {
		fdi = w.nestedDirectoryIndex(names, dirs, locations)
	}
	phi, phiHash := w.sealIndexPart(phi, f.PathHashIndexIV)
	fdi, fdiHash := w.sealIndexPart(fdi, f.DirectoryIndexIV)

	primary := func(phiOffset, fdiOffset int64) []byte {
		b := binio.AppendFString32(nil, w.opts.MountPoint)
		b = le.AppendUint32(b, uint32(len(w.entries)))
		b = le.AppendUint64(b, w.opts.PathHashSeed)
		b = le.AppendUint32(b, 1)
		b = le.AppendUint64(b, uint64(phiOffset))
		b = le.AppendUint64(b, uint64(len(phi)))
		b = append(b, phiHash[:]...)
		b = le.AppendUint32(b, 1)
		b = le.AppendUint64(b, uint64(fdiOffset))
		b = le.AppendUint64(b, uint64(len(fdi)))
		b = append(b, fdiHash[:]...)
		b = le.AppendUint32(b, uint32(len(encoded)))
		b = append(b, encoded...)
		b = le.AppendUint32(b, uint32(len(unencoded)))
		for _, e := range unencoded {
			b = appendEntry(b, e, v, len(w.slots), e.Offset)
		}
		if w.opts.CTR {
			for _, e := range unencoded {
				b = append(b, e.IV[:]...)
			}
		}
		return b
	}
	size := int64(len(primary(0, 0)))
	if w.opts.EncryptIndex {
		size = align16(size)
	}
	index, hash := w.sealIndexPart(primary(offset+size, offset+size+int64(len(phi))), f.IndexIV)
	return index, hash, [][]byte{phi, fdi}
}

// splitDir splits a path relative to the mount point into its directory
// as the directory index names it ("/" for the mount point itself,
// otherwise "Sub/Dir/") and its last element.
func splitDir(p string) (dir, file string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "/", p
	}
	return p[:i+1], p[i+1:]
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// nestedDirectoryIndex builds the full directory index of versions 10 to
// 12: per directory its name, then its files' names and locations.
func (w *Writer) nestedDirectoryIndex(names []string, dirs map[string][]int, locations []int32) []byte {
	v := w.opts.Version
	le := binary.LittleEndian
	fdi := le.AppendUint32(nil, uint32(len(names)))
	for _, d := range names {
		fdi = binio.AppendFString32(fdi, d)
		files := dirs[d]
		fdi = le.AppendUint32(fdi, uint32(len(files)))
		for _, i := range files {
			_, file := splitDir(w.entries[i].path)
			if v.HasUTF8FileNames() {
				fdi = appendUTF8String(fdi, file)
			} else {
				fdi = binio.AppendFString32(fdi, file)
			}
			fdi = le.AppendUint32(fdi, uint32(locations[i]))
		}
	}
	return fdi
}
