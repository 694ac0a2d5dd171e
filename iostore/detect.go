package iostore

import (
	"encoding/binary"

	"github.com/unrmod/unrmod/iostore/zen"
)

// ChunkContent is what the bytes of a single chunk, saved as a file (by
// Extract, retoc or another tool), hold.
type ChunkContent uint8

// The kinds of chunk content DetectChunkContent tells apart.
const (
	ContentUnknown ChunkContent = iota
	// ContentContainerHeader is a container-header chunk: the UE5 layout
	// (it starts with zen.HeaderSignature) or the 4.2x one, which has
	// no signature and is recognised by decoding it.
	ContentContainerHeader
	// ContentZenPackageUE4 is a UE 4.26/4.27 zen package (a 64-byte
	// FPackageSummary, then the name map and its hashes).
	ContentZenPackageUE4
	// ContentZenPackageUE5 is a UE 5.x zen package (FZenPackageSummary).
	ContentZenPackageUE5
)

// String names the content, e.g. "UE 4.26/4.27 zen package".
func (k ChunkContent) String() string {
	switch k {
	case ContentContainerHeader:
		return "container header"
	case ContentZenPackageUE4:
		return "UE 4.26/4.27 zen package"
	case ContentZenPackageUE5:
		return "UE 5 zen package"
	}
	return "unknown"
}

// DetectChunkContent tells what a chunk's bytes are, from their structure
// alone: a container header, a zen package of either generation, or
// unknown. It reads only data and never fails; a result other than
// ContentUnknown means the offsets and sizes in the data are consistent
// with that layout, not that every part of it decodes.
func DetectChunkContent(data []byte) ChunkContent {
	if len(data) >= 8 && binary.LittleEndian.Uint32(data) == zen.HeaderSignature {
		return ContentContainerHeader
	}
	if l, err := zen.DetectLayout(data); err == nil {
		if l == zen.LayoutUE4 {
			return ContentZenPackageUE4
		}
		return ContentZenPackageUE5
	}
	if h, err := zen.DecodeContainerHeader("", data); err == nil && h.Version == zen.HeaderUE4 && len(h.Trailing) == 0 {
		return ContentContainerHeader
	}
	return ContentUnknown
}
