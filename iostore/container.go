package iostore

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// Options configures Open and OpenReaders.
type Options struct {
	// Key decrypts an encrypted container. Without it the TOC still lists
	// the chunks, but paths (the encrypted directory index) and chunk data
	// fail with ErrKeyRequired.
	Key *ue.Key
	// Codecs are the compression methods blocks are decoded with; nil
	// means the built-in ones (None, Zlib, Gzip, LZ4). Add one unrmod
	// lacks, such as an Oodle binding, with Codecs.Register.
	Codecs *ue.Codecs
}

// Partition is one .ucas file of a container: partition 0 is NAME.ucas,
// partition i > 0 is NAME_s<i>.ucas.
type Partition struct {
	Name string      // used in errors
	R    io.ReaderAt // must allow concurrent ReadAt calls, as *os.File does
	Size int64
}

// Chunk is one TOC entry with what the TOC says about it. Chunks are views
// of the TOC: change the TOC, not a Chunk, when writing.
type Chunk struct {
	Index          int       // TOC entry index
	ID             ChunkID   // as stored
	Type           ChunkType // the id's type byte under the TOC version's numbering
	badRange       bool      // the block range passes the TOC's blocks (see rangeErr)
	Path           string    // path under the mount point; "" when the directory index has none
	Offset         uint64    // in the virtual uncompressed address space
	Size           uint64    // uncompressed length
	FirstBlock     int       // index of its first compression block
	NumBlocks      int       // number of compression blocks
	CompressedSize uint64    // sum of its blocks' compressed sizes
	Meta           ChunkMeta
}

// Container is an open IoStore container: the decoded TOC, the directory
// index and random access to chunk data through the .ucas partitions. It is
// safe for concurrent use once opened.
type Container struct {
	file     string
	toc      *TOC
	key      *ue.Key
	cipher   ue.ECB
	codecs   *ue.Codecs // nil: the built-in ones
	index    *DirectoryIndex
	indexErr error // why the index is missing although the container is Indexed
	chunks   []Chunk
	parts    []Partition
	casErr   error // why chunk data is unavailable
	closers  []io.Closer
	byIDOnce sync.Once
	byID     map[ChunkID]int
	dupPath  map[int][]string // chunks listed under more than one path
	// package chunks by path, built on the first FindPackage by path.
	pathsOnce sync.Once
	paths     *packagePaths
	// layout of shared blocks, computed on first use.
	layoutOnce sync.Once
	lay        *layout
	// tocID is the FileID of the .utoc Open read (tocIDErr: why there is
	// none).
	tocID     safefile.FileID
	tocIDErr  error
	fromFiles bool // opened by Open
}

// Open opens the container whose table of contents is utocPath: it reads
// the .utoc (small) fully and opens the .ucas partitions beside it for
// random access, without reading them. A missing .ucas is not an error:
// the container lists its chunks, and reading data fails with ErrNoCAS.
func Open(utocPath string, opts *Options) (*Container, error) {
	data, tocID, err := safefile.ReadRegularID(utocPath, MaxTOCFileSize, "a .utoc unrmod reads")
	var tocIDErr error
	if errors.Is(err, safefile.ErrChangedWhileRead) {
		// Read it again, without a FileID: FileIDs then has none to give.
		tocIDErr = err
		data, err = safefile.ReadRegular(utocPath, MaxTOCFileSize, "a .utoc unrmod reads")
	}
	if err != nil {
		return nil, err
	}
	toc, err := DecodeTOC(utocPath, data)
	if err != nil {
		return nil, err
	}
	count, _ := toc.Header.Partitions()
	var parts []Partition
	var closers []io.Closer
	var casErr error
	for i := range count {
		name := PartitionPath(utocPath, i)
		f, size, err := safefile.OpenRegular(name)
		if err == nil {
			parts = append(parts, Partition{Name: name, R: f, Size: size})
			closers = append(closers, f)
			continue
		}
		for _, c := range closers {
			c.Close()
		}
		parts, closers = nil, nil
		what := "cannot be opened"
		if errors.Is(err, fs.ErrNotExist) {
			what = "is missing"
		}
		casErr = &ue.FormatError{File: name, Struct: fmt.Sprintf("partition %d of %d", i, count), Offset: -1,
			Msg: fmt.Sprintf("%s %s (%v); the TOC still lists the chunks, but their data cannot be read", filepath.Base(name), what, unwrapPathError(err)),
			Err: fmt.Errorf("%w: %w", ErrNoCAS, err)}
		break
	}
	c, err := newContainer(toc, parts, opts)
	if err != nil {
		for _, cl := range closers {
			cl.Close()
		}
		return nil, err
	}
	if casErr != nil {
		c.casErr = casErr
	}
	c.closers = closers
	c.tocID, c.tocIDErr, c.fromFiles = tocID, tocIDErr, true
	return c, nil
}

// ErrNoFileID is matched by the error of FileIDs for a container that was
// not opened from files (OpenReaders), or whose .utoc changed while Open
// read it.
var ErrNoFileID = errors.New("no file identity")

// FileIDs returns the identities of the files c reads (see
// safefile.FileID): first the .utoc's, taken from the handle Open read it
// through (its bytes are held since), then each .ucas partition's, taken
// now from the handle c reads it through. Taken before and after reading
// the container's data, equal identities say that the data read was the
// data of these files, unchanged: a caller may remember that they passed a
// check (package checkcache). A container opened with OpenReaders, or
// without its .ucas files, has none: the error matches ErrNoFileID or
// ErrNoCAS.
func (c *Container) FileIDs() ([]safefile.FileID, error) {
	if !c.fromFiles {
		return nil, fmt.Errorf("%s: %w: not opened from files", c.file, ErrNoFileID)
	}
	if c.tocIDErr != nil {
		return nil, fmt.Errorf("%s: %w: %w", c.file, ErrNoFileID, c.tocIDErr)
	}
	if c.casErr != nil {
		return nil, c.casErr
	}
	ids := []safefile.FileID{c.tocID}
	for _, p := range c.parts {
		f, ok := p.R.(*os.File)
		if !ok {
			return nil, fmt.Errorf("%s: %w: partition %s is not a file", c.file, ErrNoFileID, p.Name)
		}
		id, err := safefile.FileIDOf(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// CheckBasis describes what a check of c's data depends on beyond the
// bytes of its files: the key it is decrypted with (as a SHA-256
// fingerprint, never the key) and, for each compression method its TOC
// names, whether a decoder reads it. A check remembered with one basis
// says nothing of a run with another.
func (c *Container) CheckBasis() string {
	var b strings.Builder
	b.WriteString("key=")
	if c.key == nil {
		b.WriteString("none")
	} else {
		sum := sha256.Sum256(c.key[:])
		fmt.Fprintf(&b, "%x", sum[:8])
	}
	b.WriteString(";methods=")
	for k, m := range c.toc.Methods {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m)
		if !c.codecs.CanDecode(m) {
			b.WriteString("(no decoder)")
		}
	}
	return b.String()
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// PartitionPath returns the .ucas file of partition i of the container
// whose TOC is utocPath: NAME.ucas for 0, NAME_s<i>.ucas after it.
func PartitionPath(utocPath string, i int) string {
	base := strings.TrimSuffix(utocPath, filepath.Ext(utocPath))
	if i == 0 {
		return base + ".ucas"
	}
	return fmt.Sprintf("%s_s%d.ucas", base, i)
}

// OpenReaders opens a container from TOC bytes and readers for its
// partitions, for callers that do not read files (tests, archives, network
// storage). name is used in errors. parts may be nil: the container then
// lists its chunks and reading data fails with ErrNoCAS. toc must not be
// modified while the container is in use.
func OpenReaders(name string, toc []byte, parts []Partition, opts *Options) (*Container, error) {
	t, err := DecodeTOC(name, toc)
	if err != nil {
		return nil, err
	}
	if count, _ := t.Header.Partitions(); parts != nil && len(parts) != count {
		return nil, errorf(name, "TOC header", 52, ErrCorrupt, "the TOC has %d partitions, %d readers were given", count, len(parts))
	}
	c, err := newContainer(t, parts, opts)
	if err != nil {
		return nil, err
	}
	if parts == nil {
		c.casErr = &ue.FormatError{File: name, Struct: "container data", Offset: -1, Msg: "no .ucas readers were given", Err: ErrNoCAS}
	}
	return c, nil
}

// newContainer builds the chunk views and decodes the directory index.
func newContainer(t *TOC, parts []Partition, opts *Options) (*Container, error) {
	c := &Container{file: t.File, toc: t, parts: parts}
	if opts != nil {
		c.codecs = opts.Codecs
	}
	if opts != nil && opts.Key != nil {
		k := *opts.Key
		c.key = &k
		c.cipher = ue.NewECB(k)
	}
	h := &t.Header
	if err := c.decodeIndex(); err != nil {
		return nil, err
	}
	bs := uint64(h.CompressionBlockSize)
	nb := uint64(len(t.Blocks))
	c.chunks = make([]Chunk, len(t.ChunkIDs))
	for i := range c.chunks {
		ol := t.OffsetLengths[i]
		ch := &c.chunks[i]
		*ch = Chunk{Index: i, ID: t.ChunkIDs[i], Type: t.ChunkIDs[i].Type(h.Version), Offset: ol.Offset, Size: ol.Length, Meta: t.Metas[i]}
		if ol.Length == 0 {
			ch.FirstBlock = int(min(ol.Offset/bs, nb))
			continue
		}
		first, last := ol.Offset/bs, (ol.Offset+ol.Length-1)/bs
		if last >= nb {
			ch.FirstBlock = int(min(first, nb))
			ch.badRange = true
			continue
		}
		ch.FirstBlock, ch.NumBlocks = int(first), int(last-first+1)
		for _, b := range t.Blocks[first : last+1] {
			ch.CompressedSize += uint64(b.CompressedSize)
		}
	}
	if c.index != nil {
		for _, f := range c.index.Files {
			ch := &c.chunks[f.Chunk]
			if ch.Path == "" {
				ch.Path = f.Path
				continue
			}
			if c.dupPath == nil {
				c.dupPath = map[int][]string{}
			}
			c.dupPath[ch.Index] = append(c.dupPath[ch.Index], f.Path)
		}
	}
	if c.key != nil && h.Encryption() != EncryptionNone && c.index == nil {
		if err := c.checkKeyWithHeaderChunk(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// rangeErr says why chunk i's block range is unusable (see Chunk.badRange),
// or returns "". The message is made when asked for: a container of many
// chunks keeps a flag per chunk, not a string.
func (c *Container) rangeErr(i int) string {
	ch := &c.chunks[i]
	if !ch.badRange {
		return ""
	}
	bs := uint64(c.toc.Header.CompressionBlockSize)
	first, last := ch.Offset/bs, (ch.Offset+ch.Size-1)/bs
	return fmt.Sprintf("offset 0x%X + length %d needs compression blocks %d..%d, the TOC has %d", ch.Offset, ch.Size, first, last, len(c.toc.Blocks))
}

// decodeIndex decrypts (when needed) and decodes the directory index.
func (c *Container) decodeIndex() error {
	t := c.toc
	h := &t.Header
	if h.ContainerFlags&FlagIndexed == 0 || t.DirectoryIndex == nil {
		return nil
	}
	raw := t.DirectoryIndex
	base := int64(0)
	for _, s := range t.Sections {
		if s.Name == "directory index" {
			base = s.Offset
		}
	}
	encrypted := h.Encryption() != EncryptionNone
	// Some third-party writers flag a container Encrypted but store a
	// plain, unpadded index (trumank/retoc#77); the game ignores the index,
	// so read it as plain text.
	ctr := h.Encryption() == EncryptionAESCTR
	if encrypted && (ctr || len(raw)%16 == 0) {
		if c.key == nil {
			c.indexErr = keyRequired(c.file, "directory index", base, "paths are encrypted: ", h)
			return nil
		}
		plain := append([]byte(nil), raw...)
		if ctr {
			// AES-CTR from the last IV, the one the TOC keeps for the
			// directory index after the blocks' IVs.
			if len(t.EncryptionIVs) != len(t.Blocks)+1 {
				return errorf(c.file, "AES-CTR IVs", -1, ErrCorrupt,
					"%d IVs for %d blocks and the directory index, want %d", len(t.EncryptionIVs), len(t.Blocks), len(t.Blocks)+1)
			}
			c.cipher.CTR(t.EncryptionIVs[len(t.Blocks)], 0).XORKeyStream(plain, plain)
		} else {
			c.cipher.Decrypt(plain)
		}
		x, err := DecodeDirectoryIndex(c.file, plain, base)
		if err != nil || len(plain)-x.Size >= 16 {
			if err == nil {
				err = fmt.Errorf("%d bytes follow the index, more than AES padding", len(plain)-x.Size)
			}
			mode, orIV := "AES", ""
			if ctr {
				mode, orIV = "AES-CTR", ", or a damaged directory-index IV"
			}
			return &ue.FormatError{File: c.file, Struct: "directory index", Offset: base,
				Msg: fmt.Sprintf("does not decode after %s decryption: wrong AES key for key GUID %s%s (%s)", mode, h.EncryptionKeyGUID, orIV, withoutFile(err)),
				Err: fmt.Errorf("%w: %w", ErrWrongKey, err)}
		}
		c.index = x
	} else {
		x, err := DecodeDirectoryIndex(c.file, raw, base)
		if err != nil {
			return err
		}
		c.index = x
	}
	for _, f := range c.index.Files {
		if int(f.Chunk) >= len(t.ChunkIDs) {
			return errorf(c.file, fmt.Sprintf("directory index file entry %d (%s)", f.Entry, f.Path), base, ErrCorrupt,
				"chunk index %d is outside the %d chunks", f.Chunk, len(t.ChunkIDs))
		}
	}
	return nil
}

func defaultKeyNote(g GUID) string {
	if g.IsZero() {
		return ", the game's default key"
	}
	return ""
}

// containerHeaderMagic is the first word of a UE5 container header chunk.
const containerHeaderMagic = 0x496F436E

// checkKeyWithHeaderChunk tells a wrong key early in an encrypted container
// without a directory index: the container-header chunk is stored
// uncompressed and starts with the UE5 magic (UE5) or the container id
// (4.2x).
func (c *Container) checkKeyWithHeaderChunk() error {
	i, ok := c.ContainerHeaderChunk()
	if !ok || c.parts == nil {
		return nil
	}
	ch := &c.chunks[i]
	if ch.badRange || ch.NumBlocks == 0 || c.toc.Blocks[ch.FirstBlock].Method != 0 || ch.Size < 16 {
		return nil
	}
	s := getScratch()
	defer putScratch(s)
	data, err := c.loadBlock(ch.FirstBlock, s)
	if err != nil {
		return err
	}
	if len(data) < 8 {
		return nil // a block too short to tell; the data checks report it
	}
	if binary.LittleEndian.Uint32(data) == containerHeaderMagic || zen.ContainerID(binary.LittleEndian.Uint64(data)) == c.toc.Header.ContainerID {
		return nil
	}
	return errorf(c.file, fmt.Sprintf("chunk %d (ContainerHeader)", i), -1, ErrWrongKey,
		"does not start with the container-header magic or the container id after AES decryption: wrong AES key for key GUID %s", c.toc.Header.EncryptionKeyGUID)
}

// Close closes the .ucas files opened by Open.
func (c *Container) Close() error {
	var errs []error
	for _, cl := range c.closers {
		errs = append(errs, cl.Close())
	}
	c.closers = nil
	return errors.Join(errs...)
}

// File returns the name the container was opened with.
func (c *Container) File() string { return c.file }

// TOC returns the decoded table of contents. It must not be modified.
func (c *Container) TOC() *TOC { return c.toc }

// Header returns the TOC header.
func (c *Container) Header() *Header { return &c.toc.Header }

// Chunks returns every chunk in TOC order. The slice must not be modified.
func (c *Container) Chunks() []Chunk { return c.chunks }

// DirectoryIndex returns the decoded directory index, nil when the
// container has none. The error says why an Indexed container's index is
// not available (ErrKeyRequired when it is encrypted and no key was given).
func (c *Container) DirectoryIndex() (*DirectoryIndex, error) { return c.index, c.indexErr }

// MountPoint returns the directory index's mount point, e.g.
// "../../../Game/Content/", or "" without an index.
func (c *Container) MountPoint() string {
	if c.index == nil {
		return ""
	}
	return c.index.MountPoint
}

// TocPath returns the .utoc path of a container named as a user names an
// output: NAME, NAME.utoc, or the path of its .ucas or .pak (the three
// share the base name).
func TocPath(name string) string {
	ext := filepath.Ext(name)
	switch strings.ToLower(ext) {
	case ".utoc":
		return name
	case ".ucas", ".pak":
		name = strings.TrimSuffix(name, ext)
	}
	return name + ".utoc"
}

// GamePath returns chunk i's path relative to the game's root (the mount
// point's "../../../" dropped): the path a Writer takes for the chunk, or ""
// when the directory index does not list it.
func (c *Container) GamePath(i int) string {
	p := c.chunks[i].Path
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(c.MountPoint()+p, "../../../")
}

// Partitions returns the .ucas partitions, nil when they are not available.
func (c *Container) Partitions() []Partition { return c.parts }

// DataErr returns nil when chunk data can be read, otherwise why not (it
// matches ErrNoCAS).
func (c *Container) DataErr() error { return c.casErr }

// Find returns the TOC index of the chunk with the given id.
func (c *Container) Find(id ChunkID) (int, bool) {
	c.byIDOnce.Do(func() {
		c.byID = make(map[ChunkID]int, len(c.chunks))
		for i := len(c.chunks) - 1; i >= 0; i-- {
			c.byID[c.chunks[i].ID] = i
		}
	})
	i, ok := c.byID[id]
	return i, ok
}

// ContainerHeaderChunk returns the index of the container-header chunk
// (the package store), preferring the one whose id is the container id.
// Global containers have none.
func (c *Container) ContainerHeaderChunk() (int, bool) {
	found := -1
	for i := range c.chunks {
		if c.chunks[i].Type != ChunkContainerHeader {
			continue
		}
		if zen.ContainerID(c.chunks[i].ID.Value()) == c.toc.Header.ContainerID {
			return i, true
		}
		if found < 0 {
			found = i
		}
	}
	return found, found >= 0
}

// blockMethodError is TOC.BlockMethodError naming the container's file.
func (c *Container) blockMethodError(k int) error {
	err := c.toc.BlockMethodError(k)
	if fe, ok := err.(*ue.FormatError); ok {
		fe.File = c.file
	}
	return err
}

// chunkBlockMethodError is blockMethodError naming the chunk block k
// belongs to.
func (c *Container) chunkBlockMethodError(id ChunkID, k int) error {
	err := c.blockMethodError(k)
	if fe, ok := err.(*ue.FormatError); ok {
		fe.Struct += fmt.Sprintf(" (of chunk %v)", id)
	}
	return err
}

// BlockMethod returns the compression method name of block k.
func (c *Container) BlockMethod(k int) string { return c.toc.MethodName(c.toc.Blocks[k].Method) }

// ChunkMethods returns the distinct method names of chunk i's blocks, in
// order of first use.
func (c *Container) ChunkMethods(i int) []string {
	ch := &c.chunks[i]
	var out []string
	var seen [256]bool
	for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
		m := c.toc.Blocks[k].Method
		if !seen[m] {
			seen[m] = true
			out = append(out, c.toc.MethodName(m))
		}
	}
	return out
}

// chunkStruct names chunk i in errors.
func (c *Container) chunkStruct(i int) string {
	ch := &c.chunks[i]
	if ch.Path != "" {
		return fmt.Sprintf("chunk %d (%s)", i, ch.Path)
	}
	return fmt.Sprintf("chunk %d (%s %s)", i, ch.Type, ch.ID)
}

// chunkEntryOffset returns the .utoc offset of chunk i's offset/length entry.
func (c *Container) chunkEntryOffset(i int) int64 {
	return HeaderSize + int64(len(c.chunks))*chunkIDSize + int64(i)*offsetLengthSize
}

func (c *Container) blockEntryOffset(k int) int64 { return c.toc.blockEntryOffset(k) }

// blockPlace checks block k's entry and returns where its stored bytes are:
// the partition, the offset in it and the stored size.
func (c *Container) blockPlace(k int) (part int, off, size uint64, err error) {
	t := c.toc
	h := &t.Header
	b := t.Blocks[k]
	// Errors only: this runs for every block read.
	bad := func(format string, args ...any) error {
		return errorf(c.file, fmt.Sprintf("compression block %d", k), c.blockEntryOffset(k), ErrCorrupt, format, args...)
	}
	bs := h.CompressionBlockSize
	if err := c.blockMethodError(k); err != nil {
		return 0, 0, 0, err
	}
	switch {
	case b.UncompressedSize > bs:
		return 0, 0, 0, bad("uncompressed size %d is over the block size %d", b.UncompressedSize, bs)
	case b.CompressedSize > bs:
		return 0, 0, 0, bad("compressed size %d is over the block size %d", b.CompressedSize, bs)
	case b.Method == 0 && b.CompressedSize != b.UncompressedSize:
		return 0, 0, 0, bad("uncompressed block with stored size %d and uncompressed size %d", b.CompressedSize, b.UncompressedSize)
	}
	count, psize := h.Partitions()
	size = b.StoredSize(h.Encryption() != EncryptionNone)
	p := b.Offset / psize
	off = b.Offset % psize
	if p >= uint64(count) {
		return 0, 0, 0, bad("offset 0x%X is in partition %d, the container has %d (partition size %d)", b.Offset, p, count, psize)
	}
	if off+size > psize {
		return 0, 0, 0, bad("%d bytes at 0x%X run past the end of partition %d (partition size %d)", size, off, p, psize)
	}
	if c.parts != nil && off+size > uint64(c.parts[p].Size) {
		return 0, 0, 0, bad("%d bytes at 0x%X run past the end of %s (%d bytes)", size, off, filepath.Base(c.parts[p].Name), c.parts[p].Size)
	}
	return int(p), off, size, nil
}

// readStored reads block k's stored bytes into s.raw.
func (c *Container) readStored(k int, s *scratch) ([]byte, int, uint64, error) {
	if c.casErr != nil {
		return nil, 0, 0, c.casErr
	}
	p, off, size, err := c.blockPlace(k)
	if err != nil {
		return nil, 0, 0, err
	}
	s.raw = grow(s.raw, int(size))
	if err := c.readPart(p, s.raw, off, k); err != nil {
		return nil, 0, 0, err
	}
	return s.raw, p, off, nil
}

// maxRunRead is the most eachPart reads at once: blocks stored back to
// back are read together, a megabyte at a time rather than a block.
const maxRunRead = 1 << 20

// readPart fills buf from partition p at off, where block k starts.
func (c *Container) readPart(p int, buf []byte, off uint64, k int) error {
	n, err := c.parts[p].R.ReadAt(buf, int64(off))
	if n < len(buf) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &ue.FormatError{File: c.parts[p].Name, Struct: fmt.Sprintf("compression block %d", k), Offset: int64(off),
			Msg: fmt.Sprintf("reading %d bytes: %v", len(buf), err), Err: err}
	}
	return nil
}

// loadBlock reads, decrypts and decompresses block k. The result lives in
// s until the next call.
func (c *Container) loadBlock(k int, s *scratch) ([]byte, error) {
	raw, p, off, err := c.readStored(k, s)
	if err != nil {
		return nil, err
	}
	return c.decodeStored(k, raw, p, off, s)
}

// decodeStored decrypts (in place) and decompresses block k, whose stored
// bytes raw were read at off in partition p.
func (c *Container) decodeStored(k int, raw []byte, p int, off uint64, s *scratch) ([]byte, error) {
	t := c.toc
	h := &t.Header
	b := t.Blocks[k]
	method := t.MethodName(b.Method)
	var codec ue.Codec
	if b.Method != 0 {
		if codec, _ = c.codecs.Lookup(method); codec.Decompress == nil {
			return nil, &MethodError{Method: method, Block: k}
		}
	}
	enc := h.Encryption()
	if err := c.decrypt(k, raw); err != nil {
		return nil, err
	}
	src := raw[:b.CompressedSize]
	if b.Method == 0 || ue.IsNone(method) {
		return src, nil
	}
	out, err := s.decompress(codec, src, int(b.UncompressedSize))
	if err != nil {
		structure := fmt.Sprintf("compression block %d (%s)", k, method)
		if enc == EncryptionAESCTR {
			return nil, &ue.FormatError{File: c.parts[p].Name, Struct: structure, Offset: int64(off),
				Msg: fmt.Sprintf("does not decompress after AES-CTR decryption with IV %X: wrong AES key, or a damaged IV or block? (%v)", t.EncryptionIVs[k], err),
				Err: fmt.Errorf("%w: %w", ErrWrongKey, err)}
		}
		if enc != EncryptionNone {
			return nil, &ue.FormatError{File: c.parts[p].Name, Struct: structure, Offset: int64(off),
				Msg: fmt.Sprintf("does not decompress after AES decryption: wrong AES key? (%v)", err),
				Err: fmt.Errorf("%w: %w", ErrWrongKey, err)}
		}
		return nil, &ue.FormatError{File: c.parts[p].Name, Struct: structure, Offset: int64(off), Msg: err.Error(), Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
	}
	return out, nil
}

// storedPlain reads block k's stored bytes into buf (grown when short)
// and returns them decrypted: CompressedSize bytes, what a writer pads and
// encrypts again.
func (c *Container) storedPlain(k int, buf []byte) ([]byte, error) {
	if c.casErr != nil {
		return nil, c.casErr
	}
	p, off, size, err := c.blockPlace(k)
	if err != nil {
		return nil, err
	}
	raw := grow(buf, int(size))
	if err := c.readPart(p, raw, off, k); err != nil {
		return nil, err
	}
	if err := c.decrypt(k, raw); err != nil {
		return nil, err
	}
	return raw[:c.toc.Blocks[k].CompressedSize], nil
}

// decrypt decrypts block k's stored bytes raw in place, as the container's
// encryption says.
func (c *Container) decrypt(k int, raw []byte) error {
	h := &c.toc.Header
	switch h.Encryption() {
	case EncryptionAESECB:
		if c.key == nil {
			return keyRequired(c.file, fmt.Sprintf("compression block %d", k), -1, "", h)
		}
		c.cipher.Decrypt(raw)
	case EncryptionAESCTR:
		if c.key == nil {
			return keyRequired(c.file, fmt.Sprintf("compression block %d", k), -1, "", h)
		}
		if k >= len(c.toc.EncryptionIVs) {
			return errorf(c.file, fmt.Sprintf("compression block %d", k), -1, ErrCorrupt,
				"no AES-CTR IV: the TOC has %d IVs", len(c.toc.EncryptionIVs))
		}
		// Each block is its own keystream from its IV, counter 0.
		c.cipher.CTR(c.toc.EncryptionIVs[k], 0).XORKeyStream(raw, raw)
	}
	return nil
}

// ReadStoredBlock returns block k exactly as stored in the .ucas: compressed,
// AES-padded to 16 bytes and still encrypted when the container is. It
// needs neither a decoder nor the key: a writer copies such blocks as they
// are.
func (c *Container) ReadStoredBlock(k int) ([]byte, error) {
	if k < 0 || k >= len(c.toc.Blocks) {
		return nil, fmt.Errorf("%s: compression block %d out of range (%d blocks)", c.file, k, len(c.toc.Blocks))
	}
	s := getScratch()
	defer putScratch(s)
	raw, _, _, err := c.readStored(k, s)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), raw...), nil
}

// ReadBlock returns block k decrypted and decompressed.
func (c *Container) ReadBlock(k int) ([]byte, error) {
	if k < 0 || k >= len(c.toc.Blocks) {
		return nil, fmt.Errorf("%s: compression block %d out of range (%d blocks)", c.file, k, len(c.toc.Blocks))
	}
	s := getScratch()
	defer putScratch(s)
	out, err := c.loadBlock(k, s)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), out...), nil
}

// eachPart calls fn with the consecutive pieces of chunk i's data, one per
// block; a piece is valid only during the call.
func (c *Container) eachPart(i int, s *scratch, fn func([]byte) error) error {
	ch := &c.chunks[i]
	if ch.badRange {
		return errorf(c.file, c.chunkStruct(i), c.chunkEntryOffset(i), ErrCorrupt, "%s", c.rangeErr(i))
	}
	if c.casErr != nil {
		return c.casErr
	}
	bs := uint64(c.toc.Header.CompressionBlockSize)
	end := ch.Offset + ch.Size
	last := ch.FirstBlock + ch.NumBlocks
	plain := c.toc.Header.Encryption() == EncryptionNone
	// Pieces that lie back to back in s.run (uncompressed, unencrypted
	// blocks) go to fn together: one write instead of one per block.
	var pendLo, pendHi int
	flush := func() error {
		if pendHi > pendLo {
			if err := fn(s.run[pendLo:pendHi]); err != nil {
				return err
			}
		}
		pendLo, pendHi = 0, 0
		return nil
	}
	for k := ch.FirstBlock; k < last; {
		// One read for a run of blocks stored back to back.
		p, off, size, err := c.blockPlace(k)
		if err != nil {
			return err
		}
		runEnd, next := off+size, k+1
		for next < last && runEnd-off < maxRunRead {
			q, o, n, err := c.blockPlace(next)
			if err != nil || q != p || o != runEnd || runEnd+n-off > maxRunRead {
				break // an error is reported when the block's turn comes
			}
			runEnd, next = o+n, next+1
		}
		s.run = grow(s.run, int(runEnd-off))
		if err := c.readPart(p, s.run, off, k); err != nil {
			return err
		}
		for at := off; k < next; k++ {
			size := c.toc.Blocks[k].StoredSize(!plain)
			rel := int(at - off)
			data, err := c.decodeStored(k, s.run[rel:rel+int(size)], p, at, s)
			if err != nil {
				var me *MethodError
				if errors.As(err, &me) {
					return fmt.Errorf("%s: %s: %w", c.file, c.chunkStruct(i), err)
				}
				return &blockError{block: k, err: err}
			}
			at += size
			start := uint64(k) * bs
			lo, hi := max(ch.Offset, start)-start, min(end, start+bs)-start
			if hi > uint64(len(data)) {
				return errorf(c.file, fmt.Sprintf("compression block %d of %s", k, c.chunkStruct(i)), c.blockEntryOffset(k), ErrCorrupt,
					"holds %d bytes, the chunk needs %d from it", len(data), hi)
			}
			if plain && c.toc.Blocks[k].Method == 0 {
				// data is s.run[rel:...]: extend the pending piece.
				a, b := rel+int(lo), rel+int(hi)
				if pendHi != a {
					if err := flush(); err != nil {
						return err
					}
					pendLo = a
				}
				pendHi = b
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if err := fn(data[lo:hi]); err != nil {
				return err
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}

// forEachChunk calls fn for each chunk of sel on workers goroutines (one
// per core when workers <= 0), each with its own scratch, largest chunks
// first so that one big chunk does not finish last.
func (c *Container) forEachChunk(sel []int, workers int, fn func(i int, s *scratch)) {
	workers = workerCount(workers, len(sel))
	order := slices.Clone(sel)
	sort.SliceStable(order, func(a, b int) bool { return c.chunks[order[a]].Size > c.chunks[order[b]].Size })
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := getScratch()
			defer putScratch(s)
			for i := range work {
				fn(i, s)
			}
		}()
	}
	for _, i := range order {
		work <- i
	}
	close(work)
	wg.Wait()
}

// ReadChunk returns chunk i's uncompressed data. It reads only that chunk's
// blocks, and refuses, before reading, a chunk whose blocks are shared with
// another chunk or overlap in the .ucas. The data is checked against the
// chunk meta hash: damaged data gives a *DamagedChunkError. For very large
// chunks, OpenChunk streams instead.
func (c *Container) ReadChunk(i int) ([]byte, error) {
	if i < 0 || i >= len(c.chunks) {
		return nil, fmt.Errorf("%s: chunk %d out of range (%d chunks)", c.file, i, len(c.chunks))
	}
	if err := c.checkReadable(i, math.MaxUint64, ""); err != nil {
		return nil, err
	}
	s := getScratch()
	defer putScratch(s)
	out := make([]byte, 0, min(c.chunks[i].Size, 64<<20))
	err := c.checkChunk(i, s, func(p []byte) error {
		out = append(out, p...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// OpenChunk returns a reader of chunk i's uncompressed data that decodes
// one block at a time. It hashes what it reads, and in place of io.EOF
// returns a *DamagedChunkError when the data does not match the chunk
// meta hash (or a block does not decode): a caller that writes the data
// elsewhere must not keep it before the reader has returned io.EOF.
func (c *Container) OpenChunk(i int) (io.Reader, error) {
	if i < 0 || i >= len(c.chunks) {
		return nil, fmt.Errorf("%s: chunk %d out of range (%d chunks)", c.file, i, len(c.chunks))
	}
	return &chunkReader{c: c, i: i}, nil
}

// chunkReader decodes a chunk block by block.
type chunkReader struct {
	c       *Container
	i       int
	next    int // blocks of the chunk done
	pending []byte
	s       *scratch
	h       *chunkHasher // hashes the data, in s
	err     error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		ch := &r.c.chunks[r.i]
		if ch.badRange {
			r.err = errorf(r.c.file, r.c.chunkStruct(r.i), r.c.chunkEntryOffset(r.i), ErrCorrupt, "%s", r.c.rangeErr(r.i))
			continue
		}
		if r.s == nil {
			r.s = getScratch()
			r.s.hashChecked = true // the chunk hash is checked
			r.h = r.c.newChunkHasher(r.s)
		}
		if r.next >= ch.NumBlocks {
			r.err = io.EOF
			if ok, sum := r.h.matches(r.c, r.i, r.s.hash); !ok {
				r.err = r.c.hashMismatch(r.i, sum)
			}
			putScratch(r.s)
			r.s, r.h = nil, nil
			continue
		}
		k := ch.FirstBlock + r.next
		r.next++
		raw, p, off, err := r.c.readStored(k, r.s)
		if err != nil {
			r.err = err
			continue
		}
		data, err := r.c.decodeStored(k, raw, p, off, r.s)
		if err != nil {
			r.err = r.c.blockDamage(r.i, &blockError{block: k, err: err})
			continue
		}
		bs := uint64(r.c.toc.Header.CompressionBlockSize)
		start := uint64(k) * bs
		lo, hi := max(ch.Offset, start)-start, min(ch.Offset+ch.Size, start+bs)-start
		if hi > uint64(len(data)) {
			r.err = errorf(r.c.file, fmt.Sprintf("compression block %d of %s", k, r.c.chunkStruct(r.i)), r.c.blockEntryOffset(k), ErrCorrupt,
				"holds %d bytes, the chunk needs %d from it", len(data), hi)
			continue
		}
		r.pending = data[lo:hi]
		r.h.Write(r.pending)
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// newHasher returns the hash the TOC version's metas use.
func newHasher(a HashAlgorithm) hash.Hash {
	if a == HashSHA1 {
		return sha1.New()
	}
	return blake3.New()
}

// chunkHasher hashes a chunk's data with every algorithm its meta may
// use: the TOC version's, or BLAKE3 and SHA-1 for VersionPerfectHash,
// which 4.27 and early UE5 containers share.
type chunkHasher struct {
	algs []HashAlgorithm
	hs   []hash.Hash
}

// newChunkHasher returns a chunkHasher whose hashes are s's, reset: a
// BLAKE3 hasher is 10 KB, too much to make for every chunk.
func (c *Container) newChunkHasher(s *scratch) *chunkHasher {
	h := &chunkHasher{algs: []HashAlgorithm{c.toc.Header.Version.ChunkHash()}}
	if c.toc.Header.Version == VersionPerfectHash {
		h.algs = []HashAlgorithm{HashBLAKE3, HashSHA1}
	}
	for _, a := range h.algs {
		x := s.hashers[a]
		if x == nil {
			x = newHasher(a)
			s.hashers[a] = x
		} else {
			x.Reset()
		}
		h.hs = append(h.hs, x)
	}
	return h
}

func (h *chunkHasher) Write(p []byte) {
	for _, x := range h.hs {
		x.Write(p)
	}
}

// matches reports whether one of the sums is chunk i's meta hash, and
// returns the sum of the first algorithm (h.algs[0]), appended to buf[:0].
func (h *chunkHasher) matches(c *Container, i int, buf []byte) (ok bool, sum []byte) {
	// The first algorithm last, so that sum ends as its.
	for n := len(h.hs) - 1; n >= 0; n-- {
		sum = h.hs[n].Sum(buf[:0])
		ok = ok || c.metaMatches(i, sum)
	}
	return ok, sum
}

// wrongKeyHint is what a hash mismatch adds when the container is
// encrypted: the likeliest cause is a wrong key.
func (c *Container) wrongKeyHint() string {
	if c.toc.Header.Encryption() != EncryptionNone {
		return " (wrong AES key?)"
	}
	return ""
}

// ChunkHash computes the hash of chunk i's uncompressed data with the
// algorithm of the TOC version (see TocVersion.ChunkHash), as stored in
// chunk metas: 20 bytes.
func (c *Container) ChunkHash(i int) ([20]byte, error) {
	if i < 0 || i >= len(c.chunks) {
		return [20]byte{}, fmt.Errorf("%s: chunk %d out of range (%d chunks)", c.file, i, len(c.chunks))
	}
	s := getScratch()
	defer putScratch(s)
	h := newHasher(c.toc.Header.Version.ChunkHash())
	if err := c.eachPart(i, s, func(p []byte) error { h.Write(p); return nil }); err != nil {
		return [20]byte{}, err
	}
	return [20]byte(h.Sum(s.hash[:0])[:20]), nil
}

// metaMatches reports whether sum (computed with algorithm a) matches chunk
// i's meta. Version 4 metas may hold either algorithm; the caller computes
// both there.
func (c *Container) metaMatches(i int, sum []byte) bool {
	m := c.chunks[i].Meta.Hash20()
	return string(m[:]) == string(sum[:20])
}
