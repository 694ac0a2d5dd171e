package iostore

import (
	"encoding/binary"

	"github.com/unrmod/unrmod/cityhash"
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
	le := binary.LittleEndian
	switch {
	case len(data) >= 8 && le.Uint32(data) == zen.HeaderSignature:
		return ContentContainerHeader
	case isZenPackageUE4(data):
		return ContentZenPackageUE4
	case isZenPackageUE5(data):
		return ContentZenPackageUE5
	}
	if h, err := zen.DecodeContainerHeader("", data); err == nil && h.Version == zen.HeaderUE4 && len(h.Trailing) == 0 {
		return ContentContainerHeader
	}
	return ContentUnknown
}

// isZenPackageUE4 checks the 4.26/4.27 FPackageSummary: the name map right
// after the 64-byte summary, its hashes 8-aligned after it and starting with
// the name-hash algorithm id, then the import, export, bundle and graph
// regions in order inside the data.
func isZenPackageUE4(b []byte) bool {
	const summary = 64
	if len(b) < summary {
		return false
	}
	i32 := func(off int) int64 { return int64(int32(binary.LittleEndian.Uint32(b[off:]))) }
	namesOff, namesSize := i32(24), i32(28)
	hashesOff, hashesSize := i32(32), i32(36)
	imports, exports, bundles := i32(40), i32(44), i32(48)
	graph, graphSize := i32(52), i32(56)
	n := int64(len(b))
	switch {
	case namesOff != summary || namesSize < 0 || namesSize > n:
		return false
	case hashesOff != (summary+namesSize+7)&^7 || hashesSize < 8 || hashesSize%8 != 0 || hashesOff+hashesSize > n:
		return false
	case binary.LittleEndian.Uint64(b[hashesOff:]) != cityhash.NameHashAlgorithmID:
		return false
	}
	return imports == hashesOff+hashesSize && imports <= exports && exports <= bundles &&
		bundles <= graph && graphSize >= 0 && graph+graphSize <= n
}

// isZenPackageUE5 checks FZenPackageSummary: a versioning flag of 0 or 1, a
// header size inside the data, and the region offsets in order inside the
// header. Unversioned packages must also have their name batch (with the
// name-hash algorithm id) right after the 44-byte (5.0-5.2) or 52-byte
// (5.3+) summary, or after the two 5.6+ cell offsets that follow it.
func isZenPackageUE5(b []byte) bool {
	const minSummary = 44
	if len(b) < minSummary {
		return false
	}
	le := binary.LittleEndian
	versioned := le.Uint32(b)
	headerSize := int64(le.Uint32(b[4:]))
	i32 := func(off int) int64 { return int64(int32(le.Uint32(b[off:]))) }
	hashes, imports, exports, bundles := i32(24), i32(28), i32(32), i32(36)
	if versioned > 1 || headerSize < minSummary || headerSize > int64(len(b)) ||
		hashes < minSummary || hashes > imports || imports > exports || exports > bundles || bundles > headerSize {
		return false
	}
	if versioned == 1 {
		return true
	}
	for _, at := range []int{44, 52, 60} {
		// uint32 Num, uint32 NumStringBytes, uint64 algorithm id.
		if at+16 <= len(b) && le.Uint32(b[at:]) > 0 && le.Uint64(b[at+8:]) == cityhash.NameHashAlgorithmID {
			return true
		}
	}
	return false
}
