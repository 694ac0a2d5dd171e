package pak

import "fmt"

// Version is the pak format version stored in the footer
// (FPakInfo::Version). Each version adds one change to the layout; the
// methods below name them.
type Version uint32

// The pak versions unrmod knows. UnrealPak of UE 4.20 writes 5, 4.21
// writes 7, 4.22 to 4.24 write 8 (4.22 with a shorter footer), 4.25 writes
// 9, 4.26 and 4.27 write 11, UE 5 writes 11 and, in newer releases, 12.
const (
	VersionInitial               Version = 1  // entries carry a timestamp
	VersionNoTimestamps          Version = 2  // timestamps removed
	VersionCompressionEncryption Version = 3  // compression blocks, entry flags, block size
	VersionIndexEncryption       Version = 4  // the index may be AES-encrypted
	VersionRelativeChunkOffsets  Version = 5  // block offsets relative to the entry
	VersionDeleteRecords         Version = 6  // entries may be delete records
	VersionEncryptionKeyGUID     Version = 7  // footer names the key by GUID
	VersionFNameBasedCompression Version = 8  // footer lists compression method names
	VersionFrozenIndex           Version = 9  // footer has a "frozen index" byte
	VersionPathHashIndex         Version = 10 // index split: primary, path-hash and directory indexes
	VersionFnv64BugFix           Version = 11 // path hashes use the corrected FNV-64
	VersionUTF8PakDirectory      Version = 12 // directory-index file names are UTF-8
	VersionSortedDirectoryIndex  Version = 13 // the full directory index is a flat, sorted table
	VersionPakchunkIndex         Version = 14 // footer records the pakchunk index
	VersionEncryptionMethod      Version = 15 // footer records the encryption method and the indexes' IVs (UE 6.0)

	// LatestVersion is the newest version unrmod reads and writes.
	LatestVersion = VersionEncryptionMethod
	// DefaultVersion is what NewWriter writes unless told otherwise: UE
	// 4.26, 4.27 and every UE 5.x read it.
	DefaultVersion = VersionFnv64BugFix
)

// Magic is the footer magic (FPakInfo::PakFile_Magic).
const Magic uint32 = 0x5A6F12E1

var versionNames = [...]string{
	VersionInitial:               "Initial",
	VersionNoTimestamps:          "NoTimestamps",
	VersionCompressionEncryption: "CompressionEncryption",
	VersionIndexEncryption:       "IndexEncryption",
	VersionRelativeChunkOffsets:  "RelativeChunkOffsets",
	VersionDeleteRecords:         "DeleteRecords",
	VersionEncryptionKeyGUID:     "EncryptionKeyGuid",
	VersionFNameBasedCompression: "FNameBasedCompressionMethod",
	VersionFrozenIndex:           "FrozenIndex",
	VersionPathHashIndex:         "PathHashIndex",
	VersionFnv64BugFix:           "Fnv64BugFix",
	VersionUTF8PakDirectory:      "Utf8PakDirectory",
	VersionSortedDirectoryIndex:  "SortedDirectoryIndex",
	VersionPakchunkIndex:         "PakchunkIndex",
	VersionEncryptionMethod:      "EncryptionMethod",
}

// String returns the version number and the engine's name for it, e.g.
// "11 (Fnv64BugFix)".
func (v Version) String() string {
	if v.Known() {
		return fmt.Sprintf("%d (%s)", uint32(v), versionNames[v])
	}
	return fmt.Sprintf("%d (unknown)", uint32(v))
}

// Known reports whether unrmod knows the version's layout (1 to 15).
func (v Version) Known() bool { return v >= VersionInitial && v <= LatestVersion }

// HasTimestamp reports whether entries carry an int64 timestamp (version 1).
func (v Version) HasTimestamp() bool { return v < VersionNoTimestamps }

// HasBlocks reports whether entries carry compression blocks, flags and a
// block size (version 3 and later).
func (v Version) HasBlocks() bool { return v >= VersionCompressionEncryption }

// HasIndexEncryption reports whether the footer has the encrypted-index
// byte (version 4 and later).
func (v Version) HasIndexEncryption() bool { return v >= VersionIndexEncryption }

// HasRelativeBlockOffsets reports whether block offsets count from the
// entry's offset rather than from the start of the file (version 5 and
// later).
func (v Version) HasRelativeBlockOffsets() bool { return v >= VersionRelativeChunkOffsets }

// HasKeyGUID reports whether the footer starts with the 16-byte encryption
// key GUID (version 7 and later).
func (v Version) HasKeyGUID() bool { return v >= VersionEncryptionKeyGUID }

// HasMethodNames reports whether the footer lists compression method names
// and entries refer to them by slot (version 8 and later). Older entries
// store compression flags instead: 1 Zlib, 2 Gzip, 4 the game's custom
// codec (Oodle).
func (v Version) HasMethodNames() bool { return v >= VersionFNameBasedCompression }

// HasFrozenFlag reports whether the footer has the "frozen index" byte
// (version 9 only).
func (v Version) HasFrozenFlag() bool { return v == VersionFrozenIndex }

// HasPathHashIndex reports whether the index is the split index of
// version 10 and later: a primary index with bit-encoded entries, a
// path-hash index and a full directory index.
func (v Version) HasPathHashIndex() bool { return v >= VersionPathHashIndex }

// HasFixedPathHash reports whether path hashes use the corrected FNV-64
// (version 11 and later); version 10 paks hash with the offset basis and
// prime swapped.
func (v Version) HasFixedPathHash() bool { return v >= VersionFnv64BugFix }

// HasUTF8FileNames reports whether the file names of the directory indexes
// are UTF-8 strings rather than FStrings (version 12 and later). Both have
// the same bytes for ASCII names.
func (v Version) HasUTF8FileNames() bool { return v >= VersionUTF8PakDirectory }

// HasFlatDirectoryIndex reports whether the full directory index may be
// the flat, sorted table of version 13 and later (it starts with the magic
// "QDFP"); the path-hash index keeps its layout.
func (v Version) HasFlatDirectoryIndex() bool { return v >= VersionSortedDirectoryIndex }

// HasPakchunkIndex reports whether the footer ends with the int32 pakchunk
// index (version 14 and later; -1 when the pak's name gives it).
func (v Version) HasPakchunkIndex() bool { return v >= VersionPakchunkIndex }

// HasEncryptionMethod reports whether the footer records the encryption
// method (1 AES-ECB, 2 AES-CTR) and the 12-byte IVs of the three index
// parts (version 15 and later).
func (v Version) HasEncryptionMethod() bool { return v >= VersionEncryptionMethod }
