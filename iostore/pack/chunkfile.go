package pack

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
)

// legacyTag is the first four bytes of every package that is not a zen
// package: UE1–UE4 packages and cooked UE4/UE5 .uasset files alike.
var legacyTag = []byte{0xC1, 0x83, 0x2A, 0x9E}

// ReadChunkFile reads a file that may hold one IoStore chunk saved on its
// own, as extract writes them: a zen package or a container header. It
// returns the bytes and what they hold, or nil and ContentUnknown for
// anything else: a legacy package (told by its first four bytes, so that it
// is not read twice), a file larger than a chunk can be, a file that is not
// regular or cannot be read, bytes that are neither kind. Callers hand such
// files to the legacy reader, whose errors say what they are.
//
// Only a file whose first bytes could start a chunk is read whole (see
// mayBeChunk): a large file of another kind costs a few bytes of memory,
// not its size.
func ReadChunkFile(path string) ([]byte, iostore.ChunkContent) {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, iostore.ContentUnknown
	}
	var head [32]byte
	n, err := io.ReadFull(f, head[:])
	st, serr := f.Stat()
	f.Close()
	if n < 4 || (err != nil && err != io.ErrUnexpectedEOF) || serr != nil || bytes.Equal(head[:4], legacyTag) || !mayBeChunk(head[:n], st.Size()) {
		return nil, iostore.ContentUnknown
	}
	data, err := safefile.ReadRegular(path, MaxFileSize, "a chunk file")
	if err != nil {
		return nil, iostore.ContentUnknown
	}
	k := iostore.DetectChunkContent(data)
	if k == iostore.ContentUnknown {
		return nil, k
	}
	return data, k
}

// mayBeChunk reports whether a file of size bytes starting with head could
// hold a chunk iostore.DetectChunkContent recognises. It looks only at what
// each kind fixes in its first bytes, and is true for every file that
// DetectChunkContent recognises:
//   - a UE5 container header starts with its signature;
//   - a UE 4.26/4.27 container header has none, but is at most
//     zen.MaxContainerHeaderSize bytes, so small files are always read;
//   - a UE 4.26/4.27 package's name map starts right after its 64-byte
//     summary, at the offset stored at 24;
//   - a UE5 package starts with a 0 or 1 (versioned) and the header's
//     size, at least the 44-byte summary and at most the file.
func mayBeChunk(head []byte, size int64) bool {
	le := binary.LittleEndian
	switch {
	case size <= zen.MaxContainerHeaderSize:
		return true
	case le.Uint32(head) == zen.HeaderSignature:
		return true
	case len(head) >= 28 && le.Uint32(head[24:]) == 64:
		return true
	case len(head) >= 8 && le.Uint32(head) <= 1:
		h := int64(le.Uint32(head[4:]))
		return h >= 44 && h <= size
	}
	return false
}
