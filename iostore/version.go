package iostore

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// TocVersion is EIoStoreTocVersion, the .utoc layout version (header byte
// 16). Each layout difference is one method below, named after what changed.
type TocVersion uint8

// The TOC versions the engine has defined.
const (
	VersionInvalid                      TocVersion = 0
	VersionInitial                      TocVersion = 1  // 4.25
	VersionDirectoryIndex               TocVersion = 2  // 4.26: directory index section
	VersionPartitionSize                TocVersion = 3  // 4.27: partition count and size
	VersionPerfectHash                  TocVersion = 4  // UE5 pre-release: perfect-hash seeds
	VersionPerfectHashWithOverflow      TocVersion = 5  // 5.0-5.3: overflow list
	VersionOnDemandMetaData             TocVersion = 6  // 5.4: on-demand metas when flagged
	VersionRemovedOnDemandMetaData      TocVersion = 7  // no release: same as 5
	VersionReplaceIoChunkHashWithIoHash TocVersion = 8  // 5.5-5.8: 24-byte chunk metas
	VersionAddedSourceHashes            TocVersion = 9  // 6.0 development: source-hash count
	VersionContainerEncryptionMethod    TocVersion = 10 // 6.0: encryption method, AES-CTR IVs

	// LatestVersion is the newest version this package reads.
	LatestVersion = VersionContainerEncryptionMethod
)

var versionNames = [...]string{
	"Invalid", "Initial", "DirectoryIndex", "PartitionSize", "PerfectHash",
	"PerfectHashWithOverflow", "OnDemandMetaData", "RemovedOnDemandMetaData",
	"ReplaceIoChunkHashWithIoHash", "AddedSourceHashes", "ContainerEncryptionMethod",
}

// String returns the engine's name of the version, e.g. "PartitionSize".
func (v TocVersion) String() string {
	if int(v) < len(versionNames) {
		return versionNames[v]
	}
	return fmt.Sprintf("Unknown(%d)", uint8(v))
}

// Engines returns the engine releases that write this TOC version, e.g.
// "UE 4.27" or "UE 5.5-5.8".
//
// The releases come from the table of ue.Releases.
func (v TocVersion) Engines() string {
	var rs []ue.Release
	var newest ue.Release
	for _, row := range ue.Releases() {
		if row.TocVersion != 0 {
			newest = row.Release
		}
		if row.TocVersion != 0 && TocVersion(row.TocVersion) == v {
			rs = append(rs, row.Release)
		}
	}
	switch {
	case len(rs) > 0:
		return "UE " + ue.Span(rs, "-")
	case v == VersionPerfectHash:
		return "UE 5.0 pre-release"
	case v == VersionRemovedOnDemandMetaData:
		return "no released engine (development builds between 5.4 and 5.5)"
	case v == VersionAddedSourceHashes:
		return "no released engine (development builds before 6.0)"
	case v.Known():
		return "engines newer than " + newest.String()
	}
	return "unknown"
}

// Known reports whether the version is one this package reads.
func (v TocVersion) Known() bool { return v >= VersionInitial && v <= LatestVersion }

// HasDirectoryIndex reports whether the TOC has the directory-index section
// (section 9), from 4.26 on.
func (v TocVersion) HasDirectoryIndex() bool { return v >= VersionDirectoryIndex }

// HasPartitions reports whether PartitionCount and PartitionSize are
// meaningful, from 4.27 on; older TOCs have one unlimited partition.
func (v TocVersion) HasPartitions() bool { return v >= VersionPartitionSize }

// HasPerfectHash reports whether the perfect-hash seed section exists.
func (v TocVersion) HasPerfectHash() bool { return v >= VersionPerfectHash }

// HasPerfectHashOverflow reports whether the list of chunks without a
// perfect hash exists.
func (v TocVersion) HasPerfectHashOverflow() bool { return v >= VersionPerfectHashWithOverflow }

// HasOnDemandMetas reports whether the TOC ends with on-demand metas when the
// container is flagged OnDemand (only version 6).
func (v TocVersion) HasOnDemandMetas() bool { return v == VersionOnDemandMetaData }

// HasIoHashMetas reports whether chunk metas are 24 bytes (20-byte FIoHash,
// flags, 3 pad bytes) instead of 33 (32-byte FIoChunkHash, flags).
func (v TocVersion) HasIoHashMetas() bool { return v >= VersionReplaceIoChunkHashWithIoHash }

// HasSourceHashes reports whether header byte 100 holds a source-hash count.
func (v TocVersion) HasSourceHashes() bool { return v >= VersionAddedSourceHashes }

// HasEncryptionMethod reports whether header byte 81 selects the encryption
// method (AES-ECB or AES-CTR) and AES-CTR IVs may follow the blocks.
func (v TocVersion) HasEncryptionMethod() bool { return v >= VersionContainerEncryptionMethod }

// UsesUE5ChunkTypes reports whether chunk-type bytes follow the UE5 table
// (1 = ExportBundleData) rather than the 4.2x one (2 = ExportBundleData).
// Like retoc, version 4 (a UE5 pre-release) is read with the 4.2x table.
func (v TocVersion) UsesUE5ChunkTypes() bool { return v > VersionPerfectHash }

// MetaSize returns the size of one chunk meta in bytes.
func (v TocVersion) MetaSize() int {
	if v.HasIoHashMetas() {
		return 24
	}
	return 33
}

// ChunkHash returns the algorithm the engine uses for chunk metas: SHA-1
// for 4.2x containers, BLAKE3 truncated to 20 bytes for UE5. Version 4 (UE5
// pre-release) is unconfirmed; Verify accepts either there.
func (v TocVersion) ChunkHash() HashAlgorithm {
	if v <= VersionPartitionSize {
		return HashSHA1
	}
	return HashBLAKE3
}

// HashAlgorithm names the algorithm of the chunk-meta hashes.
type HashAlgorithm uint8

// The chunk-meta hash algorithms.
const (
	HashSHA1   HashAlgorithm = iota // 4.25-4.27
	HashBLAKE3                      // UE5: BLAKE3-256 truncated to 20 bytes
)

// String returns "SHA-1" or "BLAKE3-160".
func (h HashAlgorithm) String() string {
	if h == HashSHA1 {
		return "SHA-1"
	}
	return "BLAKE3-160"
}

// ContainerFlags is EIoContainerFlags (header byte 80).
type ContainerFlags uint8

// The container flags.
const (
	FlagCompressed ContainerFlags = 1 << 0
	FlagEncrypted  ContainerFlags = 1 << 1
	FlagSigned     ContainerFlags = 1 << 2
	FlagIndexed    ContainerFlags = 1 << 3
	FlagOnDemand   ContainerFlags = 1 << 4
)

var containerFlagNames = []string{"Compressed", "Encrypted", "Signed", "Indexed", "OnDemand"}

// Names returns the names of the set bits, unknown bits as hex.
func (f ContainerFlags) Names() []string {
	return bitNames(uint8(f), containerFlagNames)
}

// String joins the names with "|", or returns "none".
func (f ContainerFlags) String() string { return joinNames(f.Names()) }

// MetaFlags is FIoStoreTocEntryMetaFlags, the flags byte of a chunk meta.
type MetaFlags uint8

// The chunk meta flags.
const (
	MetaCompressed   MetaFlags = 1 << 0 // some block of the chunk is compressed
	MetaMemoryMapped MetaFlags = 1 << 1
)

var metaFlagNames = []string{"Compressed", "MemoryMapped"}

// Names returns the names of the set bits, unknown bits as hex.
func (f MetaFlags) Names() []string { return bitNames(uint8(f), metaFlagNames) }

// String joins the names with "|", or returns "none".
func (f MetaFlags) String() string { return joinNames(f.Names()) }

// EncryptionMethod is the TOC version 10 encryption method (header byte 81).
type EncryptionMethod uint8

// The encryption methods. Before version 10 an encrypted container always
// uses AES-256-ECB.
const (
	EncryptionNone   EncryptionMethod = 0
	EncryptionAESECB EncryptionMethod = 1
	EncryptionAESCTR EncryptionMethod = 2
)

// String returns the cipher's name, e.g. "AES-256-ECB".
func (m EncryptionMethod) String() string {
	switch m {
	case EncryptionNone:
		return "none"
	case EncryptionAESECB:
		return "AES-256-ECB"
	case EncryptionAESCTR:
		return "AES-256-CTR"
	}
	return fmt.Sprintf("unknown(%d)", uint8(m))
}

func bitNames(v uint8, names []string) []string {
	out := []string{}
	for i, n := range names {
		if v&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if rest := v &^ (1<<len(names) - 1); rest != 0 {
		out = append(out, fmt.Sprintf("0x%02x", rest))
	}
	return out
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}
