package pack

import (
	"bytes"
	"io"

	"github.com/unrmod/unrmod/internal/safefile"
	"github.com/unrmod/unrmod/iostore"
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
func ReadChunkFile(path string) ([]byte, iostore.ChunkContent) {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, iostore.ContentUnknown
	}
	var tag [4]byte
	_, err = io.ReadFull(f, tag[:])
	f.Close()
	if err != nil || bytes.Equal(tag[:], legacyTag) {
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
