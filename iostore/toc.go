package iostore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TocMagic is the 16 bytes every .utoc starts with.
const TocMagic = "-==--==--==--==-"

// MaxTOCFileSize is the size of the largest .utoc Open reads: a TOC holds a
// few dozen bytes per chunk and per compression block, so real ones are at
// most tens of megabytes.
const MaxTOCFileSize = 1 << 30

// Sizes of the fixed TOC structures, in bytes.
const (
	HeaderSize           = 144
	chunkIDSize          = 12
	offsetLengthSize     = 10
	blockEntrySize       = 12
	methodNameSize       = 32
	ivSize               = 12
	sha1Size             = 20
	maxBlockSize         = 1<<24 - 1 // the 24-bit uncompressed-size field
	max40                = 1<<40 - 1 // the 40-bit offset and length fields
	maxPartitions        = 4096      // sanity bound: one .ucas file per partition
	unlimitedPartition   = math.MaxUint64
	onDemandMetaHashSize = 20
)

// GUID is an FGuid as four uint32, printed as 32 hex digits in the engine's
// text order.
type GUID [4]uint32

// String formats the GUID as the engine does: 32 upper-case hex digits.
func (g GUID) String() string { return fmt.Sprintf("%08X%08X%08X%08X", g[0], g[1], g[2], g[3]) }

// IsZero reports whether the GUID is all zero (the default encryption key).
func (g GUID) IsZero() bool { return g == GUID{} }

// Header is FIoStoreTocHeader, the first 144 bytes of a .utoc. Fields carry
// the engine's names; Raw keeps the bytes as read.
type Header struct {
	Version                          TocVersion
	TocHeaderSize                    uint32
	TocEntryCount                    uint32
	TocCompressedBlockEntryCount     uint32
	TocCompressedBlockEntrySize      uint32
	CompressionMethodNameCount       uint32 // names stored, without the implicit None
	CompressionMethodNameLength      uint32
	CompressionBlockSize             uint32
	DirectoryIndexSize               uint32 // as stored, after AES padding
	PartitionCount                   uint32 // as stored; see Partitions
	ContainerID                      zen.ContainerID
	EncryptionKeyGUID                GUID
	ContainerFlags                   ContainerFlags
	EncryptionMethodByte             uint8  // byte 81; meaningful from version 10
	TocChunkPerfectHashSeedsCount    uint32 // from version 4
	PartitionSize                    uint64 // as stored; see Partitions
	TocChunksWithoutPerfectHashCount uint32 // from version 5
	TocSourceHashCount               uint32 // from version 9
	EncryptionIVCount                uint32 // from version 10
	Raw                              [HeaderSize]byte
}

// Partitions returns the effective partition count and size: one
// unlimited partition before version 3 or when the count is 0 or 1.
func (h *Header) Partitions() (count int, size uint64) {
	if !h.Version.HasPartitions() || h.PartitionCount <= 1 {
		return 1, unlimitedPartition
	}
	return int(h.PartitionCount), h.PartitionSize
}

// Encryption returns how the container is encrypted: none unless the
// Encrypted flag is set; AES-256-ECB before version 10; from version 10 the
// method in byte 81 (0 is read as ECB).
func (h *Header) Encryption() EncryptionMethod {
	if h.ContainerFlags&FlagEncrypted == 0 {
		return EncryptionNone
	}
	if !h.Version.HasEncryptionMethod() || h.EncryptionMethodByte == 0 {
		return EncryptionAESECB
	}
	return EncryptionMethod(h.EncryptionMethodByte)
}

// perfectHashCounts returns the seed and overflow counts the version uses.
func (h *Header) perfectHashCounts() (seeds, overflow uint32) {
	if h.Version.HasPerfectHash() {
		seeds = h.TocChunkPerfectHashSeedsCount
	}
	if h.Version.HasPerfectHashOverflow() {
		overflow = h.TocChunksWithoutPerfectHashCount
	}
	return seeds, overflow
}

// OffsetLength is FIoOffsetAndLength: a chunk's place in the container's
// virtual uncompressed address space, where every chunk starts at a
// multiple of the compression block size. Both are 40-bit big-endian values.
type OffsetLength struct {
	Offset uint64
	Length uint64
}

// CompressionBlock is FIoStoreTocCompressedBlockEntry.
type CompressionBlock struct {
	Offset           uint64 // 40 bits: partition index × PartitionSize + offset in the partition
	CompressedSize   uint32 // 24 bits: stored size before AES padding
	UncompressedSize uint32 // 24 bits
	Method           uint8  // 0 = None, k = TOC.Methods[k-1]
}

// StoredSize returns how many bytes the block occupies in the .ucas: the
// compressed size, rounded up to 16 when the container is encrypted.
func (b CompressionBlock) StoredSize(encrypted bool) uint64 {
	if encrypted {
		return align16(uint64(b.CompressedSize))
	}
	return uint64(b.CompressedSize)
}

// ChunkMeta is FIoStoreTocEntryMeta: the hash of the uncompressed chunk and
// flags. Before version 8 the hash field is 32 bytes (20 used); from version
// 8 it is 20 bytes followed by the flags and 3 pad bytes.
type ChunkMeta struct {
	Hash  [32]byte
	Flags MetaFlags
	Pad   [3]byte // version 8+: the bytes after the flags, as stored
}

// Hash20 returns the 20 significant hash bytes.
func (m *ChunkMeta) Hash20() [20]byte { return [20]byte(m.Hash[:20]) }

// Signatures is the signature section of a Signed container: kept as read,
// not checked (checking needs the game's public RSA key).
type Signatures struct {
	TocSignature   []byte
	BlockSignature []byte
	BlockHashes    [][sha1Size]byte // SHA-1 of each stored block
}

// Section locates one TOC section in the .utoc file.
type Section struct {
	Name   string
	Offset int64
	Size   int64
}

// TOC is a decoded .utoc: every section, in the engine's names and order.
// It is the model a writer lays out again. Byte slices point into the data
// given to DecodeTOC.
type TOC struct {
	File   string // name used in errors
	Header Header
	// ChunkIDs, OffsetLengths and Metas have one entry per chunk, in TOC
	// order (perfect-hash slot order when the TOC has seeds).
	ChunkIDs      []ChunkID
	OffsetLengths []OffsetLength
	Metas         []ChunkMeta
	// PerfectHashSeeds and ChunksWithoutPerfectHash are the perfect-hash
	// tables (version 4+ / 5+); empty when the writer built none.
	PerfectHashSeeds         []int32
	ChunksWithoutPerfectHash []int32
	Blocks                   []CompressionBlock
	// EncryptionIVs are the per-block AES-CTR IVs (version 10, AES-CTR only).
	EncryptionIVs [][ivSize]byte
	// Methods are the compression method names without the implicit None:
	// block method k (k >= 1) is Methods[k-1].
	Methods    []string
	Signatures *Signatures // nil unless Signed
	// DirectoryIndex is section 9 as stored (AES-encrypted and padded when
	// the container is encrypted); nil when absent.
	DirectoryIndex []byte
	// OnDemandMetas is the version 6 on-demand section, kept as read.
	OnDemandMetas []byte
	// Trailing holds bytes after the last section (none in engine files).
	Trailing []byte
	// Sections lists where each section was found.
	Sections []Section

	overflowOnce sync.Once
	overflow     map[ChunkID]int // ChunksWithoutPerfectHash by id
}

// MethodName returns the name of block method index m: "None" for 0.
func (t *TOC) MethodName(m uint8) string {
	if m == 0 {
		return "None"
	}
	if int(m) <= len(t.Methods) {
		return t.Methods[m-1]
	}
	return fmt.Sprintf("invalid method index %d", m)
}

// BlockMethodError returns nil when block k's method index names a method
// (0, None, or one of Methods), and otherwise an error matching
// ErrMethodIndex and ErrCorrupt that names the TOC file, the block and the
// offset of its entry.
func (t *TOC) BlockMethodError(k int) error {
	m := t.Blocks[k].Method
	if int(m) <= len(t.Methods) {
		return nil
	}
	return errorf(t.File, fmt.Sprintf("compression block %d", k), t.blockEntryOffset(k), ErrMethodIndex,
		"method index %d, but the TOC names %d methods", m, len(t.Methods))
}

// blockEntryOffset returns the .utoc offset of block k's entry, or -1 for
// a TOC that was not decoded from a file.
func (t *TOC) blockEntryOffset(k int) int64 {
	for _, s := range t.Sections {
		if s.Name == "compression blocks" {
			return s.Offset + int64(k)*blockEntrySize
		}
	}
	return -1
}

// tocSection takes the count × size bytes of the named section at the
// cursor and records where it is, or fails naming the section when they do
// not fit in what is left of the TOC.
func tocSection(c *binio.Cursor, t *TOC, name string, count, size uint64) ([]byte, error) {
	need := count * size // count < 2^32, size < 2^32: no overflow
	if left := uint64(c.Len()); need > left {
		what := fmt.Sprintf("%d bytes", need)
		if size > 1 {
			what = fmt.Sprintf("%d entries of %d bytes (%d bytes)", count, size, need)
		}
		return nil, errorf(t.File, name, c.Abs(), ErrCorrupt,
			"%s do not fit in the %d bytes left of the %d-byte TOC (truncated file or bad count in the header)", what, left, c.Abs()+int64(left))
	}
	at := c.Abs()
	b := c.Bytes(int(need), name)
	if need > 0 {
		t.Sections = append(t.Sections, Section{Name: name, Offset: at, Size: int64(need)})
	}
	return b, nil
}

// DecodeTOC decodes a whole .utoc file. name is used in errors. Every count
// is checked against the bytes left before anything is allocated, so bad
// input fails with a *ue.FormatError instead of a huge allocation. The
// returned TOC refers to data, which must not be modified afterwards.
func DecodeTOC(name string, data []byte) (*TOC, error) {
	t := &TOC{File: name}
	if err := decodeHeader(t, data); err != nil {
		return nil, err
	}
	h := &t.Header
	c := binio.NewCursor(data, 0)
	c.Seek(HeaderSize, "TOC header")
	t.Sections = append(t.Sections, Section{Name: "TOC header", Offset: 0, Size: HeaderSize})
	le := binary.LittleEndian

	n := uint64(h.TocEntryCount)
	b, err := tocSection(c, t, "chunk ids", n, chunkIDSize)
	if err != nil {
		return nil, err
	}
	t.ChunkIDs = make([]ChunkID, n)
	for i := range t.ChunkIDs {
		t.ChunkIDs[i] = ChunkID(b[i*chunkIDSize:])
	}

	if b, err = tocSection(c, t, "chunk offsets and lengths", n, offsetLengthSize); err != nil {
		return nil, err
	}
	t.OffsetLengths = make([]OffsetLength, n)
	for i := range t.OffsetLengths {
		e := b[i*offsetLengthSize:]
		t.OffsetLengths[i] = OffsetLength{Offset: be40(e[0:5]), Length: be40(e[5:10])}
	}

	seeds, overflow := h.perfectHashCounts()
	if b, err = tocSection(c, t, "perfect-hash seeds", uint64(seeds), 4); err != nil {
		return nil, err
	}
	t.PerfectHashSeeds = int32s(b)
	if b, err = tocSection(c, t, "chunks without perfect hash", uint64(overflow), 4); err != nil {
		return nil, err
	}
	t.ChunksWithoutPerfectHash = int32s(b)

	nb := uint64(h.TocCompressedBlockEntryCount)
	if b, err = tocSection(c, t, "compression blocks", nb, blockEntrySize); err != nil {
		return nil, err
	}
	t.Blocks = make([]CompressionBlock, nb)
	for i := range t.Blocks {
		e := b[i*blockEntrySize:]
		t.Blocks[i] = CompressionBlock{
			Offset:           le40(e[0:5]),
			CompressedSize:   le24(e[5:8]),
			UncompressedSize: le24(e[8:11]),
			Method:           e[11],
		}
	}

	if h.Encryption() == EncryptionAESCTR {
		ivs := nb
		if h.ContainerFlags&FlagIndexed != 0 {
			ivs++
		}
		if b, err = tocSection(c, t, "AES-CTR IVs", ivs, ivSize); err != nil {
			return nil, err
		}
		t.EncryptionIVs = make([][ivSize]byte, ivs)
		for i := range t.EncryptionIVs {
			t.EncryptionIVs[i] = [ivSize]byte(b[i*ivSize:])
		}
	}

	if b, err = tocSection(c, t, "compression method names", uint64(h.CompressionMethodNameCount), uint64(h.CompressionMethodNameLength)); err != nil {
		return nil, err
	}
	t.Methods = make([]string, h.CompressionMethodNameCount)
	for i := range t.Methods {
		start := c.Abs() - int64(len(b)) + int64(i)*int64(h.CompressionMethodNameLength)
		raw := b[i*int(h.CompressionMethodNameLength) : (i+1)*int(h.CompressionMethodNameLength)]
		name := string(bytes.TrimRight(raw, "\x00"))
		for _, c := range []byte(name) {
			if c < 0x20 || c > 0x7E {
				return nil, errorf(t.File, fmt.Sprintf("compression method name %d", i+1), start, ErrCorrupt,
					"name %q is not printable ASCII", name)
			}
		}
		t.Methods[i] = name
	}

	if h.ContainerFlags&FlagSigned != 0 {
		at := c.Abs()
		if b, err = tocSection(c, t, "signature hash size", 1, 4); err != nil {
			return nil, err
		}
		hs := int32(le.Uint32(b))
		if hs < 0 {
			return nil, errorf(t.File, "signatures", at, ErrCorrupt, "negative signature size %d", hs)
		}
		sig := &Signatures{}
		if sig.TocSignature, err = tocSection(c, t, "TOC signature", uint64(hs), 1); err != nil {
			return nil, err
		}
		if sig.BlockSignature, err = tocSection(c, t, "block signature", uint64(hs), 1); err != nil {
			return nil, err
		}
		if b, err = tocSection(c, t, "block SHA-1 hashes", nb, sha1Size); err != nil {
			return nil, err
		}
		sig.BlockHashes = make([][sha1Size]byte, nb)
		for i := range sig.BlockHashes {
			sig.BlockHashes[i] = [sha1Size]byte(b[i*sha1Size:])
		}
		t.Signatures = sig
	}

	if h.Version.HasDirectoryIndex() && h.DirectoryIndexSize > 0 {
		if t.DirectoryIndex, err = tocSection(c, t, "directory index", uint64(h.DirectoryIndexSize), 1); err != nil {
			return nil, err
		}
	}

	ms := h.Version.MetaSize()
	if b, err = tocSection(c, t, "chunk metas", n, uint64(ms)); err != nil {
		return nil, err
	}
	t.Metas = make([]ChunkMeta, n)
	for i := range t.Metas {
		e := b[i*ms:]
		m := &t.Metas[i]
		if h.Version.HasIoHashMetas() {
			copy(m.Hash[:20], e[:20])
			m.Flags = MetaFlags(e[20])
			copy(m.Pad[:], e[21:24])
		} else {
			copy(m.Hash[:], e[:32])
			m.Flags = MetaFlags(e[32])
		}
	}

	if h.Version.HasOnDemandMetas() && h.ContainerFlags&FlagOnDemand != 0 {
		if t.OnDemandMetas, err = tocSection(c, t, "on-demand metas", n+nb, onDemandMetaHashSize); err != nil {
			return nil, err
		}
	}
	if c.Len() > 0 {
		t.Trailing = data[c.Pos():]
	}
	return t, nil
}

// decodeHeader decodes and checks the 144-byte header.
func decodeHeader(t *TOC, data []byte) error {
	if len(data) < len(TocMagic) || string(data[:len(TocMagic)]) != TocMagic {
		return errorf(t.File, "TOC header", 0, ErrNotContainer, "%v", ErrNotContainer)
	}
	if len(data) < HeaderSize {
		return errorf(t.File, "TOC header", 0, ErrCorrupt, "file is %d bytes, shorter than the %d-byte header (truncated)", len(data), HeaderSize)
	}
	le := binary.LittleEndian
	h := &t.Header
	copy(h.Raw[:], data)
	h.Version = TocVersion(data[16])
	h.TocHeaderSize = le.Uint32(data[20:])
	h.TocEntryCount = le.Uint32(data[24:])
	h.TocCompressedBlockEntryCount = le.Uint32(data[28:])
	h.TocCompressedBlockEntrySize = le.Uint32(data[32:])
	h.CompressionMethodNameCount = le.Uint32(data[36:])
	h.CompressionMethodNameLength = le.Uint32(data[40:])
	h.CompressionBlockSize = le.Uint32(data[44:])
	h.DirectoryIndexSize = le.Uint32(data[48:])
	h.PartitionCount = le.Uint32(data[52:])
	h.ContainerID = zen.ContainerID(le.Uint64(data[56:]))
	for i := range h.EncryptionKeyGUID {
		h.EncryptionKeyGUID[i] = le.Uint32(data[64+4*i:])
	}
	h.ContainerFlags = ContainerFlags(data[80])
	h.EncryptionMethodByte = data[81]
	h.TocChunkPerfectHashSeedsCount = le.Uint32(data[84:])
	h.PartitionSize = le.Uint64(data[88:])
	h.TocChunksWithoutPerfectHashCount = le.Uint32(data[96:])
	h.TocSourceHashCount = le.Uint32(data[100:])
	h.EncryptionIVCount = le.Uint32(data[104:])

	bad := func(off int64, sentinel error, format string, args ...any) error {
		return errorf(t.File, "TOC header", off, sentinel, format, args...)
	}
	switch {
	case h.Version == VersionInvalid:
		return bad(16, ErrUnsupportedVersion, "TOC version 0 (Invalid)")
	case !h.Version.Known():
		return bad(16, ErrUnsupportedVersion, "TOC version %d is newer than this unrmod reads (1-%d); please report the game and engine version", h.Version, LatestVersion)
	case h.TocHeaderSize != HeaderSize:
		return bad(20, ErrCorrupt, "TocHeaderSize is %d, want %d", h.TocHeaderSize, HeaderSize)
	case h.TocCompressedBlockEntrySize != blockEntrySize:
		return bad(32, ErrCorrupt, "TocCompressedBlockEntrySize is %d, want %d", h.TocCompressedBlockEntrySize, blockEntrySize)
	case h.CompressionMethodNameCount > 0 && h.CompressionMethodNameLength != methodNameSize:
		return bad(40, ErrCorrupt, "CompressionMethodNameLength is %d, want %d", h.CompressionMethodNameLength, methodNameSize)
	case h.CompressionMethodNameCount > 255:
		return bad(36, ErrCorrupt, "%d compression methods; a block's method index is one byte (at most 255)", h.CompressionMethodNameCount)
	case h.CompressionBlockSize > maxBlockSize:
		return bad(44, ErrCorrupt, "CompressionBlockSize %d (0x%X) is over 24 bits: blocks could not record their size (at most 0x%X)", h.CompressionBlockSize, h.CompressionBlockSize, maxBlockSize)
	case h.CompressionBlockSize == 0 && (h.TocEntryCount > 0 || h.TocCompressedBlockEntryCount > 0):
		return bad(44, ErrCorrupt, "CompressionBlockSize is 0 in a container with %d chunks", h.TocEntryCount)
	case h.Version.HasSourceHashes() && h.TocSourceHashCount > 0:
		return bad(100, ErrUnsupportedVersion, "TOC version %d with %d source hashes: the layout of that section is not known yet", h.Version, h.TocSourceHashCount)
	}
	if h.Version.HasPartitions() && h.PartitionCount > 1 {
		switch {
		case h.PartitionCount > maxPartitions:
			return bad(52, ErrCorrupt, "PartitionCount %d is implausible (at most %d)", h.PartitionCount, maxPartitions)
		case h.PartitionSize == 0 || h.PartitionSize > max40:
			return bad(88, ErrCorrupt, "PartitionSize %d is not a usable partition size for %d partitions (1..2^40)", h.PartitionSize, h.PartitionCount)
		case uint64(h.PartitionCount-1)*h.PartitionSize > max40:
			return bad(88, ErrCorrupt, "%d partitions of %d bytes exceed the 40-bit offset space", h.PartitionCount, h.PartitionSize)
		}
	}
	if m := h.Encryption(); m != EncryptionNone && m != EncryptionAESECB && m != EncryptionAESCTR {
		return bad(81, ErrCorrupt, "unknown encryption method %d", h.EncryptionMethodByte)
	}
	if h.Version.HasEncryptionMethod() {
		// The IV section's size follows from the blocks and the Indexed flag;
		// the count must agree (as CUE4Parse requires), so that the TOC's
		// counts all come from its sections.
		want := uint64(0)
		if h.Encryption() == EncryptionAESCTR {
			want = uint64(h.TocCompressedBlockEntryCount)
			if h.ContainerFlags&FlagIndexed != 0 {
				want++
			}
		}
		if uint64(h.EncryptionIVCount) != want {
			return bad(104, ErrCorrupt, "EncryptionIVCount is %d, but encryption %s over %d blocks needs %d IVs", h.EncryptionIVCount, h.Encryption(), h.TocCompressedBlockEntryCount, want)
		}
	}
	return nil
}

func be40(b []byte) uint64 {
	return uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
}

func le40(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32
}

func le24(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 }

func int32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func align16(n uint64) uint64 { return (n + 15) &^ 15 }
