// Package iostore reads Unreal Engine IoStore containers: a .utoc table of
// contents and its .ucas block store (split into NAME_s1.ucas, NAME_s2.ucas
// ... when partitioned), as written by UE 4.25-4.27 (TOC versions 1-3, e.g.
// Grounded) and UE 5.x (TOC versions 4-8, and 9-10 of newer engines).
//
// Open reads the small .utoc fully and keeps the .ucas files open for
// random access: reading a chunk reads only that chunk's compression blocks
// through io.ReaderAt, so multi-gigabyte containers cost no more than the
// chunks asked for.
//
//	c, err := iostore.Open("pakchunk0-Windows.utoc", nil)
//	if err != nil { ... }
//	defer c.Close()
//	for i, ch := range c.Chunks() {
//		fmt.Println(ch.ID, ch.Type, ch.Path, ch.Size)
//		data, err := c.ReadChunk(i)
//		...
//	}
//
// The model keeps everything a writer needs to lay the container out again:
// the decoded TOC (TOC: header, chunk ids, offsets and lengths, perfect-hash
// tables, compression blocks, method names, signatures, the stored
// directory index and chunk metas), the decoded directory index, and each
// block's stored bytes (ReadStoredBlock), which can be copied unchanged.
//
// The model also writes: TOC.AppendBinary encodes a .utoc (a decoded one
// byte for byte), DirectoryIndex.AppendBinary a directory index,
// NewDirectoryIndex and CommonMountPoint build an index and its mount point
// as the engine's writer does, and BuildPerfectHash and TOC.ApplyPerfectHash
// compute the engine's perfect-hash tables. They refuse what the format
// cannot hold with errors wrapping ErrNotEncodable.
//
// Layout differences between versions are methods of TocVersion, one per
// change (HasDirectoryIndex, HasPartitions, HasIoHashMetas, ...); chunk-type
// numbering differs between 4.2x and UE5 (ChunkTypeOf, ChunkType.Raw), as
// does the chunk-meta hash (SHA-1 for 4.2x, BLAKE3 truncated to 20 bytes for
// UE5; see TocVersion.ChunkHash).
//
// Decompression covers None, Zlib, Gzip and LZ4 (raw blocks, what the
// engine decodes). Oodle is proprietary: it decodes through the game's own
// library, which package ue/oodle loads into Options.Codecs; without it an
// Oodle block fails with a *MethodError matching ErrOodle, while listing,
// Verify's structural checks and copying stored blocks still work. Encrypted containers (AES-256-ECB)
// need Options.Key; without it the chunk list is still available, and a
// wrong key is detected from the directory index (or, without one, from the
// container-header chunk) and reported as ErrWrongKey.
//
// Bad input never panics, hangs or allocates in proportion to a count it
// has not checked: every count is checked against the bytes left before
// anything is allocated, block sizes against the block size (at most 24
// bits), block offsets against their partition and file, and the directory
// index is walked with cycle detection. Errors are *ue.FormatError values
// naming the file, the structure and the byte offset, wrapping sentinels
// (ErrNotContainer, ErrUnsupportedVersion, ErrCorrupt, ErrKeyRequired,
// ErrWrongKey, ErrNoCAS, ErrHashMismatch) for callers that branch with
// errors.Is.
//
// The container-header chunk (the package store) is located by
// Container.ContainerHeaderChunk and decoded by zen.DecodeContainerHeader
// (package iostore/zen, the codec of what the chunks hold). Its errors are
// *ue.FormatError values too (the same type), naming a "container header ..."
// structure and an offset within the chunk, and wrapping the same
// ErrCorrupt and ErrUnsupportedVersion sentinels.
package iostore
