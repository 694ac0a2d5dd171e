package iostore

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/unrmod/unrmod/ue"
)

// encodeError builds the *ue.FormatError of a model AppendBinary refuses: it
// names the structure (a field, or a section entry with its index) and has
// no offset.
func encodeError(file, structure, format string, args ...any) error {
	return &ue.FormatError{File: file, Struct: structure, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: ErrNotEncodable}
}

// MarshalBinary returns the .utoc encoding of t; see AppendBinary.
func (t *TOC) MarshalBinary() ([]byte, error) { return t.AppendBinary(nil) }

// AppendBinary appends t as a .utoc file to b, sections in the engine's
// order (see docs/containers.md, "Writing the table of contents"), and
// returns the extended slice; on error it returns nil.
//
// Counts are taken from the slices, not from t.Header: TocEntryCount is
// len(ChunkIDs), TocCompressedBlockEntryCount len(Blocks),
// CompressionMethodNameCount len(Methods), the perfect-hash counts
// len(PerfectHashSeeds) and len(ChunksWithoutPerfectHash), DirectoryIndexSize
// len(DirectoryIndex) and EncryptionIVCount len(EncryptionIVs).
// TocHeaderSize (144), TocCompressedBlockEntrySize (12) and
// CompressionMethodNameLength (32) are constants of the format. Every other
// header field comes from t.Header. Bytes the version does not use (reserved
// bytes, and fields of later versions, e.g. the seed count of a version 3
// TOC) are copied from t.Header.Raw when it holds a decoded header (starts
// with TocMagic) whose version did not use them either, and are 0 otherwise;
// a decoded TOC without method names keeps its stored
// CompressionMethodNameLength the same way. t.Sections is not used.
//
// A TOC returned by DecodeTOC encodes to the bytes it was decoded from,
// unless a compression block names a method index beyond Methods, which the
// decoder accepts (so that the other chunks stay readable) and AppendBinary
// refuses.
//
// AppendBinary refuses, with a *ue.FormatError wrapping ErrNotEncodable that
// names the field and index, a model the format cannot hold or that
// contradicts itself: per-chunk slices of different lengths, values over
// their 40 or 24 bits, a block method index beyond the method names, more
// than 255 method names or a name that is not printable ASCII of at most 32
// bytes, sections the version or flags do not have (seeds before version 4,
// an overflow list before version 5, a directory index before version 2,
// AES-CTR IVs without AES-CTR, signatures without the Signed flag or the
// flag without signatures), section sizes that do not match their counts,
// and header values DecodeTOC rejects.
func (t *TOC) AppendBinary(b []byte) ([]byte, error) {
	if err := t.checkEncodable(); err != nil {
		return nil, err
	}
	h := &t.Header
	v := h.Version
	n, nb := len(t.ChunkIDs), len(t.Blocks)
	size := HeaderSize + n*(chunkIDSize+offsetLengthSize+v.MetaSize()) +
		4*(len(t.PerfectHashSeeds)+len(t.ChunksWithoutPerfectHash)) + nb*blockEntrySize +
		ivSize*len(t.EncryptionIVs) + methodNameSize*len(t.Methods) +
		len(t.DirectoryIndex) + len(t.OnDemandMetas) + len(t.Trailing)
	if s := t.Signatures; s != nil {
		size += 4 + len(s.TocSignature) + len(s.BlockSignature) + sha1Size*len(s.BlockHashes)
	}
	b = slices.Grow(b, size)
	le := binary.LittleEndian

	b = t.appendHeader(b)
	for _, id := range t.ChunkIDs {
		b = append(b, id[:]...)
	}
	for _, ol := range t.OffsetLengths {
		b = appendBE40(b, ol.Offset)
		b = appendBE40(b, ol.Length)
	}
	for _, s := range t.PerfectHashSeeds {
		b = le.AppendUint32(b, uint32(s))
	}
	for _, k := range t.ChunksWithoutPerfectHash {
		b = le.AppendUint32(b, uint32(k))
	}
	for _, blk := range t.Blocks {
		b = appendLE40(b, blk.Offset)
		b = appendLE24(b, blk.CompressedSize)
		b = appendLE24(b, blk.UncompressedSize)
		b = append(b, blk.Method)
	}
	for _, iv := range t.EncryptionIVs {
		b = append(b, iv[:]...)
	}
	for _, m := range t.Methods {
		var name [methodNameSize]byte
		copy(name[:], m)
		b = append(b, name[:]...)
	}
	if s := t.Signatures; s != nil {
		b = le.AppendUint32(b, uint32(len(s.TocSignature)))
		b = append(b, s.TocSignature...)
		b = append(b, s.BlockSignature...)
		for _, sum := range s.BlockHashes {
			b = append(b, sum[:]...)
		}
	}
	b = append(b, t.DirectoryIndex...)
	for i := range t.Metas {
		m := &t.Metas[i]
		if v.HasIoHashMetas() {
			b = append(b, m.Hash[:20]...)
			b = append(b, byte(m.Flags))
			b = append(b, m.Pad[:]...)
		} else {
			b = append(b, m.Hash[:]...)
			b = append(b, byte(m.Flags))
		}
	}
	b = append(b, t.OnDemandMetas...)
	return append(b, t.Trailing...), nil
}

// appendHeader appends the 144-byte header; see AppendBinary for where each
// field comes from.
func (t *TOC) appendHeader(b []byte) []byte {
	h := &t.Header
	v := h.Version
	le := binary.LittleEndian
	var x [HeaderSize]byte
	// reserved copies bytes [lo, hi) from the decoded header when they are
	// unused both in v and in the version it was decoded as (a field of the
	// old version is not carried into a version without it), else leaves 0.
	decoded := string(h.Raw[:len(TocMagic)]) == TocMagic
	rawV := TocVersion(h.Raw[16])
	reserved := func(lo, hi int, unusedIn func(TocVersion) bool) {
		if decoded && unusedIn(rawV) {
			copy(x[lo:hi], h.Raw[lo:hi])
		}
	}
	always := func(TocVersion) bool { return true }
	copy(x[:], TocMagic)
	x[16] = byte(v)
	reserved(17, 20, always)
	le.PutUint32(x[20:], HeaderSize)
	le.PutUint32(x[24:], uint32(len(t.ChunkIDs)))
	le.PutUint32(x[28:], uint32(len(t.Blocks)))
	le.PutUint32(x[32:], blockEntrySize)
	le.PutUint32(x[36:], uint32(len(t.Methods)))
	le.PutUint32(x[40:], methodNameSize)
	if len(t.Methods) == 0 {
		// Unused without names: a decoded header keeps what it had.
		reserved(40, 44, always)
	}
	le.PutUint32(x[44:], h.CompressionBlockSize)
	if v.HasDirectoryIndex() {
		le.PutUint32(x[48:], uint32(len(t.DirectoryIndex)))
	} else {
		reserved(48, 52, func(v TocVersion) bool { return !v.HasDirectoryIndex() })
	}
	if v.HasPartitions() {
		le.PutUint32(x[52:], h.PartitionCount)
		le.PutUint64(x[88:], h.PartitionSize)
	} else {
		noPartitions := func(v TocVersion) bool { return !v.HasPartitions() }
		reserved(52, 56, noPartitions)
		reserved(88, 96, noPartitions)
	}
	le.PutUint64(x[56:], uint64(h.ContainerID))
	for i, w := range h.EncryptionKeyGUID {
		le.PutUint32(x[64+4*i:], w)
	}
	x[80] = byte(h.ContainerFlags)
	noMethod := func(v TocVersion) bool { return !v.HasEncryptionMethod() }
	if v.HasEncryptionMethod() {
		x[81] = h.EncryptionMethodByte
		le.PutUint32(x[104:], uint32(len(t.EncryptionIVs)))
	} else {
		reserved(81, 82, noMethod)
		reserved(104, 108, noMethod)
	}
	reserved(82, 84, always)
	if v.HasPerfectHash() {
		le.PutUint32(x[84:], uint32(len(t.PerfectHashSeeds)))
	} else {
		reserved(84, 88, func(v TocVersion) bool { return !v.HasPerfectHash() })
	}
	if v.HasPerfectHashOverflow() {
		le.PutUint32(x[96:], uint32(len(t.ChunksWithoutPerfectHash)))
	} else {
		reserved(96, 100, func(v TocVersion) bool { return !v.HasPerfectHashOverflow() })
	}
	if !v.HasSourceHashes() { // else TocSourceHashCount, checked to be 0
		reserved(100, 104, func(v TocVersion) bool { return !v.HasSourceHashes() })
	}
	reserved(108, HeaderSize, always)
	return append(b, x[:]...)
}

// checkEncodable returns the first reason AppendBinary cannot encode t.
func (t *TOC) checkEncodable() error {
	if err := t.checkHeaderEncodable(); err != nil {
		return err
	}
	h := &t.Header
	v := h.Version
	fail := func(structure, format string, args ...any) error {
		return encodeError(t.File, structure, format, args...)
	}
	n, nb := len(t.ChunkIDs), len(t.Blocks)
	switch {
	case uint64(n) > math.MaxUint32:
		return fail("chunk ids", "%d chunks; TocEntryCount is 32 bits", n)
	case uint64(nb) > math.MaxUint32:
		return fail("compression blocks", "%d blocks; TocCompressedBlockEntryCount is 32 bits", nb)
	case len(t.OffsetLengths) != n || len(t.Metas) != n:
		return fail("TOC", "%d chunk ids, %d offsets and lengths and %d chunk metas: each chunk needs one of each", n, len(t.OffsetLengths), len(t.Metas))
	case h.CompressionBlockSize == 0 && (n > 0 || nb > 0):
		return fail("TOC header", "CompressionBlockSize is 0 in a container with %d chunks and %d blocks", n, nb)
	}
	for i, ol := range t.OffsetLengths {
		if ol.Offset > max40 || ol.Length > max40 {
			return fail(fmt.Sprintf("chunk %d offset and length", i), "offset 0x%X or length 0x%X is over 40 bits", ol.Offset, ol.Length)
		}
	}
	for i := range t.Metas {
		m := &t.Metas[i]
		switch {
		case v.HasIoHashMetas() && !allZero(m.Hash[20:]):
			return fail(fmt.Sprintf("chunk meta %d", i), "hash bytes 20-31 are not zero: TOC version %d stores 20 hash bytes", v)
		case !v.HasIoHashMetas() && !allZero(m.Pad[:]):
			return fail(fmt.Sprintf("chunk meta %d", i), "pad bytes %x: TOC version %d has no pad after the flags", m.Pad, v)
		}
	}
	switch {
	case !v.HasPerfectHash() && len(t.PerfectHashSeeds) > 0:
		return fail("perfect-hash seeds", "%d seeds in TOC version %d; seeds exist from version %d", len(t.PerfectHashSeeds), v, VersionPerfectHash)
	case !v.HasPerfectHashOverflow() && len(t.ChunksWithoutPerfectHash) > 0:
		return fail("chunks without perfect hash", "%d entries in TOC version %d; the list exists from version %d", len(t.ChunksWithoutPerfectHash), v, VersionPerfectHashWithOverflow)
	case uint64(len(t.PerfectHashSeeds)) > math.MaxUint32 || uint64(len(t.ChunksWithoutPerfectHash)) > math.MaxUint32:
		return fail("perfect-hash seeds", "more entries than a 32-bit count holds")
	}
	for k, blk := range t.Blocks {
		structure := func() string { return fmt.Sprintf("compression block %d", k) }
		switch {
		case blk.Offset > max40:
			return fail(structure(), "offset 0x%X is over 40 bits", blk.Offset)
		case blk.CompressedSize > maxBlockSize || blk.UncompressedSize > maxBlockSize:
			return fail(structure(), "compressed size %d or uncompressed size %d is over 24 bits", blk.CompressedSize, blk.UncompressedSize)
		case int(blk.Method) > len(t.Methods):
			return fail(structure(), "method index %d, but the TOC names %d methods", blk.Method, len(t.Methods))
		}
	}
	wantIVs := 0
	if h.Encryption() == EncryptionAESCTR {
		wantIVs = nb
		if h.ContainerFlags&FlagIndexed != 0 {
			wantIVs++
		}
	}
	if len(t.EncryptionIVs) != wantIVs {
		return fail("AES-CTR IVs", "%d IVs; the container needs %d (one per block, and one for the directory index when Indexed, only with AES-CTR)", len(t.EncryptionIVs), wantIVs)
	}
	if len(t.Methods) > 255 {
		return fail("compression method names", "%d names; a block's method index is one byte (at most 255)", len(t.Methods))
	}
	for i, m := range t.Methods {
		if len(m) > methodNameSize {
			return fail(fmt.Sprintf("compression method name %d", i+1), "name %q is %d bytes, over %d", m, len(m), methodNameSize)
		}
		for j := 0; j < len(m); j++ {
			if m[j] < 0x20 || m[j] > 0x7E {
				return fail(fmt.Sprintf("compression method name %d", i+1), "name %q is not printable ASCII", m)
			}
		}
	}
	signed := h.ContainerFlags&FlagSigned != 0
	switch s := t.Signatures; {
	case signed && s == nil:
		return fail("signatures", "the container is flagged Signed but has no signatures")
	case !signed && s != nil:
		return fail("signatures", "signatures present but the container is not flagged Signed")
	case s != nil && len(s.TocSignature) != len(s.BlockSignature):
		return fail("signatures", "TOC signature of %d bytes, block signature of %d: both have the one stored HashSize", len(s.TocSignature), len(s.BlockSignature))
	case s != nil && len(s.TocSignature) > math.MaxInt32:
		return fail("signatures", "signature of %d bytes; HashSize is an int32", len(s.TocSignature))
	case s != nil && len(s.BlockHashes) != nb:
		return fail("block SHA-1 hashes", "%d hashes for %d compression blocks", len(s.BlockHashes), nb)
	}
	switch {
	case !v.HasDirectoryIndex() && len(t.DirectoryIndex) > 0:
		return fail("directory index", "%d bytes in TOC version %d; the directory index exists from version %d", len(t.DirectoryIndex), v, VersionDirectoryIndex)
	case uint64(len(t.DirectoryIndex)) > math.MaxUint32:
		return fail("directory index", "%d bytes; DirectoryIndexSize is 32 bits", len(t.DirectoryIndex))
	}
	wantOnDemand := 0
	if v.HasOnDemandMetas() && h.ContainerFlags&FlagOnDemand != 0 {
		wantOnDemand = (n + nb) * onDemandMetaHashSize
	}
	if len(t.OnDemandMetas) != wantOnDemand {
		return fail("on-demand metas", "%d bytes; the container needs %d (%d bytes per chunk and per block, only in TOC version %d flagged OnDemand)",
			len(t.OnDemandMetas), wantOnDemand, onDemandMetaHashSize, VersionOnDemandMetaData)
	}
	return nil
}

// checkHeaderEncodable refuses the header values DecodeTOC rejects, so that
// whatever AppendBinary writes decodes.
func (t *TOC) checkHeaderEncodable() error {
	h := &t.Header
	v := h.Version
	fail := func(format string, args ...any) error {
		return encodeError(t.File, "TOC header", format, args...)
	}
	switch {
	case !v.Known():
		return fail("TOC version %d is not one unrmod writes (1-%d)", v, LatestVersion)
	case h.CompressionBlockSize > maxBlockSize:
		return fail("CompressionBlockSize %d (0x%X) is over 24 bits (at most 0x%X)", h.CompressionBlockSize, h.CompressionBlockSize, maxBlockSize)
	case v.HasSourceHashes() && h.TocSourceHashCount > 0:
		return fail("TocSourceHashCount %d: the layout of the source-hash section is not known", h.TocSourceHashCount)
	}
	if v.HasPartitions() && h.PartitionCount > 1 {
		switch {
		case h.PartitionCount > maxPartitions:
			return fail("PartitionCount %d is over %d", h.PartitionCount, maxPartitions)
		case h.PartitionSize == 0 || h.PartitionSize > max40:
			return fail("PartitionSize %d is not a usable partition size for %d partitions (1..2^40)", h.PartitionSize, h.PartitionCount)
		case uint64(h.PartitionCount-1)*h.PartitionSize > max40:
			return fail("%d partitions of %d bytes exceed the 40-bit offset space", h.PartitionCount, h.PartitionSize)
		}
	}
	if m := h.Encryption(); m != EncryptionNone && m != EncryptionAESECB && m != EncryptionAESCTR {
		return fail("unknown encryption method %d", h.EncryptionMethodByte)
	}
	return nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

func appendBE40(b []byte, v uint64) []byte {
	return append(b, byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendLE40(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32))
}

func appendLE24(b []byte, v uint32) []byte { return append(b, byte(v), byte(v>>8), byte(v>>16)) }
