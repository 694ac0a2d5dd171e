package pak

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/unrmod/unrmod/internal/binio"
)

// Entry is what a pak records about one file (FPakEntry). The same record,
// without the file name, precedes the file's bytes in the pak; the index
// holds a copy, from version 10 in a compact bit-encoded form without the
// hash.
type Entry struct {
	// Offset is where the file's record starts; its bytes follow the
	// record (see HeaderSize).
	Offset int64
	// Size is the number of bytes stored: the compressed size, or
	// UncompressedSize for a stored file. Encrypted data is padded to a
	// multiple of 16 beyond it.
	Size             int64
	UncompressedSize int64
	// Method is the compression method's slot: 0 for none, otherwise the
	// slot Footer.MethodName names.
	Method uint32
	// Hash is the SHA-1 of the Size stored bytes. The bit-encoded index
	// entries of version 10 and later do not carry it (it is zero there);
	// the record before the data always does.
	Hash [20]byte
	// Blocks are the compressed blocks, with absolute offsets in the pak;
	// empty for a stored file.
	Blocks []Block
	// BlockSize is the uncompressed size of every block but the last.
	BlockSize uint32
	Encrypted bool // the stored bytes are AES-256-ECB encrypted
	Deleted   bool // a delete record (version 6 and later): the file is removed from lower-priority paks
	// Timestamp is the version 1 timestamp, zero otherwise.
	Timestamp uint64
	// IV is the AES-CTR IV of an encrypted file of a version 15 pak whose
	// footer says AES-CTR: the keystream of its stored bytes starts at
	// counter IV || 0. The index holds it, not the record before the data.
	IV [ivLen]byte
}

// Block is one compression block of a file: its stored bytes are
// [Start, End) in the pak file.
type Block struct {
	Start, End int64
}

// Entry flags (FPakEntry::Flags).
const (
	flagEncrypted = 0x01
	flagDeleted   = 0x02
)

// Compression flags of the entries before version 8.
const (
	legacyZlib   = 0x01
	legacyGzip   = 0x02
	legacyCustom = 0x04
)

// methodWidth returns how many bytes an entry's compression field has: 4,
// or 1 in the version 8 paks of UE 4.22 (four method slots).
func methodWidth(v Version, slots int) int {
	if v == VersionFNameBasedCompression && slots == 4 {
		return 1
	}
	return 4
}

// HeaderSize returns the size of the entry's record (the copy that
// precedes the file's bytes) in a pak of version v whose footer has slots
// method names: the file's bytes start at Offset + HeaderSize.
func (e *Entry) HeaderSize(v Version, slots int) int64 {
	n := int64(3*8 + methodWidth(v, slots) + hashLen)
	if v.HasTimestamp() {
		n += 8
	}
	if v.HasBlocks() {
		n += 1 + 4
		if e.Method != 0 {
			n += 4 + 16*int64(len(e.Blocks))
		}
	}
	return n
}

// minEntrySize is the fewest bytes a serialized entry can take (version 8
// of UE 4.22: three int64, a method byte and the hash).
const minEntrySize = 3*8 + 1 + hashLen

// decodeEntry reads a serialized entry (FPakEntry::Serialize) from c.
func decodeEntry(c *binio.Cursor, v Version, slots int) Entry {
	var e Entry
	e.Offset = c.I64("offset")
	e.Size = c.I64("size")
	e.UncompressedSize = c.I64("uncompressed size")
	at := c.Pos()
	switch {
	case !v.HasMethodNames():
		flags := c.U32("compression flags")
		switch {
		case flags == 0:
		case flags&legacyZlib != 0:
			e.Method = 1
		case flags&legacyGzip != 0:
			e.Method = 2
		case flags&legacyCustom != 0:
			e.Method = 3
		default:
			c.FailAt(at, "compression flags", fmt.Errorf("0x%X names no compression method", flags))
		}
	case methodWidth(v, slots) == 1:
		e.Method = uint32(c.U8("compression method"))
	default:
		e.Method = c.U32("compression method")
	}
	if v.HasTimestamp() {
		e.Timestamp = c.U64("timestamp")
	}
	copy(e.Hash[:], c.Bytes(hashLen, "hash"))
	if v.HasBlocks() {
		if e.Method != 0 {
			n := c.Count32("compression block count", 16)
			if n > 0 {
				e.Blocks = make([]Block, n)
			}
			for i := range e.Blocks {
				e.Blocks[i].Start = c.I64("compression block start")
				e.Blocks[i].End = c.I64("compression block end")
			}
		}
		flags := c.U8("flags")
		e.Encrypted = flags&flagEncrypted != 0
		e.Deleted = flags&flagDeleted != 0
		e.BlockSize = c.U32("compression block size")
	}
	if v.HasRelativeBlockOffsets() && c.Err() == nil {
		for i := range e.Blocks {
			e.Blocks[i].Start += e.Offset
			e.Blocks[i].End += e.Offset
		}
	}
	return e
}

// appendEntry appends the entry serialized for a pak of version v whose
// footer has slots method names, with offset as its Offset field.
func appendEntry(b []byte, e *Entry, v Version, slots int, offset int64) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(offset))
	b = le.AppendUint64(b, uint64(e.Size))
	b = le.AppendUint64(b, uint64(e.UncompressedSize))
	switch {
	case !v.HasMethodNames():
		b = le.AppendUint32(b, [...]uint32{0, legacyZlib, legacyGzip, legacyCustom}[min(e.Method, 3)])
	case methodWidth(v, slots) == 1:
		b = append(b, byte(e.Method))
	default:
		b = le.AppendUint32(b, e.Method)
	}
	if v.HasTimestamp() {
		b = le.AppendUint64(b, e.Timestamp)
	}
	b = append(b, e.Hash[:]...)
	if v.HasBlocks() {
		if e.Method != 0 {
			b = le.AppendUint32(b, uint32(len(e.Blocks)))
			base := int64(0)
			if v.HasRelativeBlockOffsets() {
				base = e.Offset
			}
			for _, blk := range e.Blocks {
				b = le.AppendUint64(b, uint64(blk.Start-base))
				b = le.AppendUint64(b, uint64(blk.End-base))
			}
		}
		var flags byte
		if e.Encrypted {
			flags |= flagEncrypted
		}
		if e.Deleted {
			flags |= flagDeleted
		}
		b = append(b, flags)
		b = le.AppendUint32(b, e.BlockSize)
	}
	return b
}

// Bit-encoded entries (version 10 and later, FPakFile::EncodePakEntry): a
// uint32 of flags, then the fields the flags call for.
const (
	encOffset32       = 1 << 31 // offset stored as uint32
	encUncompressed32 = 1 << 30 // uncompressed size stored as uint32
	encSize32         = 1 << 29 // compressed size stored as uint32
	encMethodShift    = 23      // 6 bits of compression slot
	encEncrypted      = 1 << 22
	encBlocksShift    = 6    // 16 bits of block count
	encBlockSizeMask  = 0x3F // block size in units of 2 KiB; 0x3F: a uint32 follows
)

// decodeEncodedEntry reads a bit-encoded entry from c (FPakFile::
// DecodePakEntry) of a pak of version v; ctr says that encrypted entries
// carry their AES-CTR IV (after the uncompressed size).
func decodeEncodedEntry(c *binio.Cursor, v Version, ctr bool) Entry {
	var e Entry
	bits := c.U32("entry flags")
	blockSize := (bits & encBlockSizeMask) << 11
	if bits&encBlockSizeMask == encBlockSizeMask {
		blockSize = c.U32("compression block size")
	}
	e.Method = (bits >> encMethodShift) & 0x3F
	e.Encrypted = bits&encEncrypted != 0
	varInt := func(flag uint32, what string) int64 {
		if bits&flag != 0 {
			return int64(c.U32(what))
		}
		return c.I64(what)
	}
	e.Offset = varInt(encOffset32, "offset")
	e.UncompressedSize = varInt(encUncompressed32, "uncompressed size")
	if ctr && e.Encrypted {
		copy(e.IV[:], c.Bytes(ivLen, "AES-CTR IV"))
	}
	e.Size = e.UncompressedSize
	if e.Method != 0 {
		e.Size = varInt(encSize32, "size")
	}
	n := int((bits >> encBlocksShift) & 0xFFFF)
	if c.Err() != nil || n == 0 {
		return e
	}
	e.BlockSize = blockSize
	if n == 1 {
		e.BlockSize = uint32(min(e.UncompressedSize, math.MaxUint32))
	}
	// The blocks follow the record that precedes the data, back to back
	// (each padded to 16 bytes when encrypted); only their sizes are
	// stored, and not even those for one unencrypted block.
	sizesStored := n > 1 || e.Encrypted
	if sizesStored && 4*n > c.Len() {
		c.Fail("compression block sizes", fmt.Errorf("%d blocks need %d bytes, %d left: %w", n, 4*n, c.Len(), binio.ErrTruncated))
		return e
	}
	e.Blocks = make([]Block, n)
	start := e.HeaderSize(v, 5)
	if !v.HasRelativeBlockOffsets() {
		start += e.Offset
	}
	if !sizesStored {
		e.Blocks[0] = Block{start, start + e.Size}
	} else {
		for i := range e.Blocks {
			size := int64(c.U32("compression block size"))
			e.Blocks[i] = Block{start, start + size}
			if e.Encrypted {
				size = align16(size)
			}
			start += size
		}
	}
	if v.HasRelativeBlockOffsets() {
		for i := range e.Blocks {
			e.Blocks[i].Start += e.Offset
			e.Blocks[i].End += e.Offset
		}
	}
	return e
}

// encodable reports whether appendEncodedEntry can represent e (as
// FPakFile::EncodePakEntry decides): the blocks must follow the record
// back to back and the counts must fit their bit fields. Delete records
// are never encoded.
func encodable(e *Entry, v Version) bool {
	if e.Deleted || e.Method >= 1<<6 || len(e.Blocks) >= 1<<16 || e.Offset < 0 || e.Size < 0 || e.UncompressedSize < 0 {
		return false
	}
	if e.Method == 0 {
		return len(e.Blocks) == 0
	}
	next := e.Offset + e.HeaderSize(v, 5)
	for i, blk := range e.Blocks {
		if blk.Start != next || blk.End < blk.Start || blk.End-blk.Start > math.MaxUint32 {
			return false
		}
		size := blk.End - blk.Start
		if e.Encrypted {
			size = align16(size)
		}
		next += size
		if len(e.Blocks) == 1 && i == 0 && !e.Encrypted && blk.End-blk.Start != e.Size {
			return false
		}
	}
	return true
}

// appendEncodedEntry appends e bit-encoded; encodable(e) must hold. ctr
// says that an encrypted entry carries its AES-CTR IV.
func appendEncodedEntry(b []byte, e *Entry, ctr bool) []byte {
	le := binary.LittleEndian
	var packed uint32
	if len(e.Blocks) > 1 {
		packed = (e.BlockSize >> 11) & encBlockSizeMask
		if packed<<11 != e.BlockSize {
			packed = encBlockSizeMask
		}
	}
	bits := e.Method<<encMethodShift | uint32(len(e.Blocks))<<encBlocksShift | packed
	if e.Offset <= math.MaxUint32 {
		bits |= encOffset32
	}
	if e.UncompressedSize <= math.MaxUint32 {
		bits |= encUncompressed32
	}
	if e.Size <= math.MaxUint32 {
		bits |= encSize32
	}
	if e.Encrypted {
		bits |= encEncrypted
	}
	b = le.AppendUint32(b, bits)
	if packed == encBlockSizeMask {
		b = le.AppendUint32(b, e.BlockSize)
	}
	varInt := func(v int64, flag uint32) {
		if bits&flag != 0 {
			b = le.AppendUint32(b, uint32(v))
		} else {
			b = le.AppendUint64(b, uint64(v))
		}
	}
	varInt(e.Offset, encOffset32)
	varInt(e.UncompressedSize, encUncompressed32)
	if ctr && e.Encrypted {
		b = append(b, e.IV[:]...)
	}
	if e.Method != 0 {
		varInt(e.Size, encSize32)
		if len(e.Blocks) > 1 || e.Encrypted && len(e.Blocks) == 1 {
			for _, blk := range e.Blocks {
				b = le.AppendUint32(b, uint32(blk.End-blk.Start))
			}
		}
	}
	return b
}

// align16 rounds n up to a multiple of the AES block size.
func align16(n int64) int64 { return (n + 15) &^ 15 }
