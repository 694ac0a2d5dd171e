package pak

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// GUID is an FGuid as four uint32 (A, B, C, D), stored little-endian; it
// has the same layout as iostore.GUID and converts to and from it.
type GUID [4]uint32

// String formats the GUID as the engine does: 32 upper-case hex digits.
func (g GUID) String() string { return fmt.Sprintf("%08X%08X%08X%08X", g[0], g[1], g[2], g[3]) }

// IsZero reports whether the GUID is all zero: the pak uses the default
// (embedded) encryption key, or none.
func (g GUID) IsZero() bool { return g == GUID{} }

const (
	methodNameLen = 32 // bytes per compression method name in the footer
	hashLen       = 20 // SHA-1

	// Footer sizes: the 44 bytes every version has (magic, version, index
	// offset and size, index hash), plus the encrypted-index byte from
	// version 4, the key GUID from version 7, the method names from
	// version 8 and the frozen byte of version 9. Engines read the byte
	// before the magic of older paks too (it is then the index's last
	// byte) and ignore it.
	footerSizeV1    = 4 + 4 + 8 + 8 + hashLen
	footerSizeBase  = 1 + footerSizeV1
	footerSizeV7    = footerSizeBase + 16
	footerSizeV8422 = footerSizeV7 + 4*methodNameLen // UE 4.22: four method names
	footerSizeV8    = footerSizeV7 + 5*methodNameLen // UE 4.23 and later: five
	footerSizeV9    = footerSizeV8 + 1
	footerSizeV14   = footerSizeV8 + 4            // the pakchunk index
	footerSizeV15   = footerSizeV14 + 1 + 3*ivLen // the encryption method and three IVs
	maxFooterSize   = footerSizeV15
	ivLen           = 12 // an AES-CTR IV (FIoStoreEncryptionIV): the counter's first 12 bytes
)

// Encryption methods a version 15 footer records (EIoEncryptionMethod).
const (
	EncryptionNone   uint8 = 0
	EncryptionAESECB uint8 = 1 // what every older pak uses
	EncryptionAESCTR uint8 = 2 // UE 6.0: a keystream per index part and per file, from a 12-byte IV
)

// Footer is the fixed-size record that ends every pak (FPakInfo): where
// the index is, its SHA-1, whether it is encrypted and with which key, and
// the compression methods the entries refer to.
type Footer struct {
	EncryptionKeyGUID GUID     // version 7 and later; zero for the default key
	IndexEncrypted    bool     // version 4 and later: the index (and, from version 10, the secondary indexes) is AES-256-ECB encrypted
	Version           Version  // the pak version
	IndexOffset       int64    // where the (primary) index starts
	IndexSize         int64    // its size in bytes, as stored (a multiple of 16 when encrypted)
	IndexHash         [20]byte // SHA-1 of the index after decryption
	Frozen            bool     // version 9: the index is a frozen memory image
	// Methods names the compression methods entries refer to by slot
	// (version 8 and later): slot i+1 is Methods[i], "" for an unused slot.
	// It has 5 names, or 4 in the footers of UE 4.22. Older versions have
	// fixed slots instead (see MethodName).
	Methods []string
	// PakchunkIndex is the pak's chunk number (version 14 and later); -1
	// when the engine derives it from the file name, as UE 6.0 writes it.
	PakchunkIndex int32
	// EncryptionMethod is EncryptionAESECB or EncryptionAESCTR (version 15
	// and later; older paks are AES-ECB).
	EncryptionMethod uint8
	// IndexIV, PathHashIndexIV and DirectoryIndexIV are the AES-CTR IVs of
	// the three index parts (version 15; zero unless the index is
	// encrypted with AES-CTR).
	IndexIV, PathHashIndexIV, DirectoryIndexIV [ivLen]byte
}

// CTR reports whether the pak's encrypted parts use AES-CTR.
func (f *Footer) CTR() bool {
	return f.Version.HasEncryptionMethod() && f.EncryptionMethod == EncryptionAESCTR
}

// Size returns the size of the footer in bytes: 44 for versions 1 to 3,
// 45 for versions 4 to 6, 61 for version 7, 221 for versions 8 and 10 to
// 13 (189 for a UE 4.22 footer with four method names), 222 for version 9,
// 225 for version 14 and 262 for version 15.
func (f *Footer) Size() int {
	n := footerSizeV1
	if f.Version.HasIndexEncryption() {
		n++
	}
	if f.Version.HasKeyGUID() {
		n += 16
	}
	if f.Version.HasMethodNames() {
		n += methodNameLen * len(f.Methods)
	}
	if f.Version.HasFrozenFlag() {
		n++
	}
	if f.Version.HasPakchunkIndex() {
		n += 4
	}
	if f.Version.HasEncryptionMethod() {
		n += 1 + 3*ivLen
	}
	return n
}

// MethodName returns the name of the compression method in slot (as an
// entry stores it): "None" for slot 0; for versions before 8, "Zlib",
// "Gzip" and "Custom" (the game's own codec, usually Oodle) for slots 1 to
// 3; from version 8, the footer's name for the slot. An unknown slot gives
// "slot N".
func (f *Footer) MethodName(slot uint32) string {
	if slot == 0 {
		return "None"
	}
	if !f.Version.HasMethodNames() {
		switch slot {
		case 1:
			return "Zlib"
		case 2:
			return "Gzip"
		case 3:
			return "Custom"
		}
	} else if int64(slot) <= int64(len(f.Methods)) && f.Methods[slot-1] != "" {
		return f.Methods[slot-1]
	}
	return fmt.Sprintf("slot %d", slot)
}

// footerLayout is one footer size and the versions that use it.
type footerLayout struct {
	size     int
	versions func(Version) bool
}

// footerLayouts lists the footer sizes to try, newest first, as the engine
// does (it tries each version's size from the newest down).
var footerLayouts = []footerLayout{
	{footerSizeV15, func(v Version) bool { return v >= VersionEncryptionMethod }},
	{footerSizeV14, func(v Version) bool { return v == VersionPakchunkIndex }},
	{footerSizeV8, func(v Version) bool {
		return v == VersionFNameBasedCompression || v >= VersionPathHashIndex && v < VersionPakchunkIndex
	}},
	{footerSizeV9, func(v Version) bool { return v == VersionFrozenIndex }},
	{footerSizeV8422, func(v Version) bool { return v == VersionFNameBasedCompression }},
	{footerSizeV7, func(v Version) bool { return v == VersionEncryptionKeyGUID }},
	{footerSizeBase, func(v Version) bool { return v >= VersionIndexEncryption && v < VersionEncryptionKeyGUID }},
	{footerSizeV1, func(v Version) bool { return v >= VersionInitial && v < VersionIndexEncryption }},
}

// DecodeFooter reads the footer at the end of a pak of size bytes. name
// is used in errors. It fails with ErrNotPak when no footer magic sits
// where a footer of some version would put it, with ErrUnsupportedVersion
// for a version above 15, and with ErrCorrupt when the index it points at
// lies outside the file.
func DecodeFooter(r io.ReaderAt, size int64, name string) (*Footer, error) {
	if size < footerSizeV1 {
		return nil, errorf(name, "footer", -1, ErrNotPak, "%d bytes is too short for a pak (the smallest footer has %d): %v", size, footerSizeV1, ErrNotPak)
	}
	n := int64(min(size, maxFooterSize+64))
	tail := make([]byte, n)
	if _, err := r.ReadAt(tail, size-n); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: reading the footer: %w", name, err)
	}
	le := binary.LittleEndian
	var mismatch error
	for _, l := range footerLayouts {
		if int64(l.size) > size {
			continue
		}
		at := int(n) - l.size // footer start in tail
		magicAt := at
		if l.size >= footerSizeBase {
			magicAt++ // the encrypted-index byte
		}
		if l.size >= footerSizeV7 {
			magicAt += 16
		}
		if le.Uint32(tail[magicAt:]) != Magic {
			continue
		}
		v := Version(le.Uint32(tail[magicAt+4:]))
		start := size - int64(l.size)
		if v > LatestVersion {
			return nil, errorf(name, "footer", start, ErrUnsupportedVersion,
				"pak version %d is newer than unrmod knows (1 to %d): %v", uint32(v), LatestVersion, ErrUnsupportedVersion)
		}
		if !l.versions(v) {
			if mismatch == nil {
				mismatch = errorf(name, "footer", start, ErrCorrupt, "magic found, but version %d does not have a %d-byte footer", uint32(v), l.size)
			}
			continue
		}
		return decodeFooterAt(tail[at:at+l.size], start, size, name, l.size)
	}
	if mismatch != nil {
		return nil, mismatch
	}
	// A newer footer layout still has the magic followed by the version:
	// name the version rather than saying "not a pak".
	for i := int(n) - 8; i >= 0; i-- {
		if le.Uint32(tail[i:]) == Magic {
			if v := le.Uint32(tail[i+4:]); v > uint32(LatestVersion) && v < 256 {
				return nil, errorf(name, "footer", size-n+int64(i), ErrUnsupportedVersion,
					"pak version %d is newer than unrmod knows (1 to %d): %v", v, LatestVersion, ErrUnsupportedVersion)
			}
		}
	}
	return nil, errorf(name, "footer", -1, ErrNotPak, "no pak footer (magic 0x%08X) at any of the footer positions of versions 1 to %d: %v", Magic, LatestVersion, ErrNotPak)
}

// decodeFooterAt decodes a footer of layout size from b, which starts at
// offset start of a file of fileSize bytes.
func decodeFooterAt(b []byte, start, fileSize int64, name string, size int) (*Footer, error) {
	c := newCursor(b, start)
	var f Footer
	if size >= footerSizeV7 {
		for i := range f.EncryptionKeyGUID {
			f.EncryptionKeyGUID[i] = c.U32("encryption key GUID")
		}
	}
	if size >= footerSizeBase {
		f.IndexEncrypted = c.U8("encrypted-index flag") != 0
	}
	c.U32("magic")
	f.Version = Version(c.U32("version"))
	f.IndexOffset = c.I64("index offset")
	f.IndexSize = c.I64("index size")
	copy(f.IndexHash[:], c.Bytes(hashLen, "index hash"))
	if f.Version.HasFrozenFlag() {
		f.Frozen = c.U8("frozen-index flag") != 0
	}
	if f.Version.HasMethodNames() {
		tail := 0
		if f.Version.HasPakchunkIndex() {
			tail += 4
		}
		if f.Version.HasEncryptionMethod() {
			tail += 1 + 3*ivLen
		}
		slots := (c.Len() - tail) / methodNameLen
		f.Methods = make([]string, slots)
		for i := range f.Methods {
			raw := c.Bytes(methodNameLen, "compression method name")
			if j := strings.IndexByte(string(raw), 0); j >= 0 {
				raw = raw[:j]
			}
			f.Methods[i] = string(raw)
		}
	}
	f.PakchunkIndex = -1
	if f.Version.HasPakchunkIndex() {
		f.PakchunkIndex = c.I32("pakchunk index")
	}
	f.EncryptionMethod = EncryptionAESECB
	if f.Version.HasEncryptionMethod() {
		at := c.Pos()
		f.EncryptionMethod = c.U8("encryption method")
		copy(f.IndexIV[:], c.Bytes(ivLen, "index IV"))
		copy(f.PathHashIndexIV[:], c.Bytes(ivLen, "path hash index IV"))
		copy(f.DirectoryIndexIV[:], c.Bytes(ivLen, "full directory index IV"))
		if m := f.EncryptionMethod; m > EncryptionAESCTR && c.Err() == nil {
			return nil, errorf(name, "footer encryption method", start+int64(at), ErrUnsupportedVersion,
				"encryption method %d is none of 0 (none), 1 (AES-ECB) and 2 (AES-CTR): %v", m, ErrUnsupportedVersion)
		}
	}
	if err := c.Err(); err != nil {
		return nil, cursorError(name, "footer ", err)
	}
	switch {
	case f.IndexOffset < 0 || f.IndexSize < 0 || f.IndexOffset > start || f.IndexSize > start-f.IndexOffset:
		return nil, errorf(name, "footer", start, ErrCorrupt,
			"index at 0x%X, %d bytes, is not inside the file before the footer (0x0..0x%X): %v", f.IndexOffset, f.IndexSize, start, ErrCorrupt)
	case f.IndexSize > maxIndexSize:
		return nil, errorf(name, "footer", start, ErrCorrupt, "index of %d bytes is larger than the engine reads (2 GiB): %v", f.IndexSize, ErrCorrupt)
	case f.IndexEncrypted && f.IndexSize%16 != 0:
		return nil, errorf(name, "footer", start, ErrCorrupt, "encrypted index of %d bytes is not a multiple of the AES block (16): %v", f.IndexSize, ErrCorrupt)
	}
	return &f, nil
}

// maxIndexSize is the largest index the engine loads (it reads indexes
// into int32-sized arrays).
const maxIndexSize = 1<<31 - 1

// AppendBinary appends the footer's bytes to b. The version must be 1 to
// 15 and, from version 8, Methods must hold 4 or 5 names of at most 31
// ASCII characters.
func (f *Footer) AppendBinary(b []byte) ([]byte, error) {
	if !f.Version.Known() {
		return b, fmt.Errorf("pak footer: version %d is not one unrmod writes (1 to %d): %w", uint32(f.Version), LatestVersion, ErrUnsupportedVersion)
	}
	if f.Version.HasMethodNames() {
		if len(f.Methods) != 5 && (len(f.Methods) != 4 || f.Version != VersionFNameBasedCompression) {
			return b, fmt.Errorf("pak footer: version %d has 5 compression method slots (4 only in UE 4.22's version 8), got %d", uint32(f.Version), len(f.Methods))
		}
		for _, m := range f.Methods {
			if len(m) >= methodNameLen || !isASCIIName(m) {
				return b, fmt.Errorf("pak footer: compression method name %q is not at most %d ASCII letters and digits", m, methodNameLen-1)
			}
		}
	}
	le := binary.LittleEndian
	if f.Version.HasKeyGUID() {
		for _, x := range f.EncryptionKeyGUID {
			b = le.AppendUint32(b, x)
		}
	}
	if f.Version.HasIndexEncryption() {
		b = append(b, boolByte(f.IndexEncrypted))
	}
	b = le.AppendUint32(b, Magic)
	b = le.AppendUint32(b, uint32(f.Version))
	b = le.AppendUint64(b, uint64(f.IndexOffset))
	b = le.AppendUint64(b, uint64(f.IndexSize))
	b = append(b, f.IndexHash[:]...)
	if f.Version.HasFrozenFlag() {
		b = append(b, boolByte(f.Frozen))
	}
	if f.Version.HasMethodNames() {
		for _, m := range f.Methods {
			var name [methodNameLen]byte
			copy(name[:], m)
			b = append(b, name[:]...)
		}
	}
	if f.Version.HasPakchunkIndex() {
		b = le.AppendUint32(b, uint32(f.PakchunkIndex))
	}
	if f.Version.HasEncryptionMethod() {
		b = append(b, f.EncryptionMethod)
		b = append(b, f.IndexIV[:]...)
		b = append(b, f.PathHashIndexIV[:]...)
		b = append(b, f.DirectoryIndexIV[:]...)
	}
	return b, nil
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// isASCIIName reports whether s has only ASCII letters, digits and '_'.
func isASCIIName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
