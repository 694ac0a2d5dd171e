// Package cityhash computes the identity hashes Unreal Engine stores in IoStore
// containers and zen packages (UE 4.25 to 5.x): name-map hashes, package ids,
// container ids, script and package import indices and UE5 public export
// hashes. It is the only place in unrmod that knows what is hashed.
//
// Every value is Google CityHash64 v1.1 (the engine's CityHash.cpp; in Go
// github.com/go-faster/city Hash64, never its CH64, which is the older
// ClickHouse variant and matches no engine-written hash). The input is
// normalised the way the engine does it:
//
//   - lowercasing is ASCII-only: 'A'..'Z' become 'a'..'z', nothing else changes;
//   - ids and object-path hashes hash the UTF-16LE code units of the string
//     (TCHAR is two bytes on every engine platform);
//   - name-map hashes hash the name as the engine stores it: one byte per
//     character when every character is at most 0x7F, UTF-16LE otherwise.
//
// Functions take Go (UTF-8) strings. Runes above U+FFFF become surrogate pairs,
// as in the engine; invalid UTF-8 becomes U+FFFD, which the engine could never
// have produced, so pass valid text.
package cityhash

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-faster/city"
)

// NameHashAlgorithmID is the uint64 that starts every saved name-hash list
// (4.2x package and global name hashes, UE5 name batches). The engine uses the
// saved hashes only when the list starts with this value and rehashes the
// names otherwise (UnrealNames.cpp, CanUseSavedHashes).
const NameHashAlgorithmID uint64 = 0xC1640000

// Package object index types: the top two bits of an FPackageObjectIndex.
const (
	indexTypeShift         = 62
	indexTypeMask          = uint64(3) << indexTypeShift
	indexTypeScriptImport  = uint64(1) << indexTypeShift
	indexTypePackageImport = uint64(2) << indexTypeShift
)

// Hash64 returns CityHash64 v1.1 of b, the hash function behind every value
// of this package.
func Hash64(b []byte) uint64 { return city.Hash64(b) }

// IsWideName reports whether the engine stores name as UTF-16 rather than as
// one byte per character: true when any character is above 0x7F.
func IsWideName(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// NameHash returns the hash saved for an FName string in name maps and name
// batches (package name maps, container-header names, 4.2x global names).
// name is the string without the number suffix (FMappedName.Number carries
// that). It is ASCII-lowercased and hashed as one byte per character, or as
// UTF-16LE when IsWideName reports true.
func NameHash(name string) uint64 {
	if !IsWideName(name) {
		var buf [256]byte
		var b []byte
		if len(name) <= len(buf) {
			b = buf[:len(name)]
		} else {
			b = make([]byte, len(name))
		}
		for i := range b {
			b[i] = lowerASCII(name[i])
		}
		return city.Hash64(b)
	}
	return hashUTF16Lower(name)
}

// NameHashUTF16 is NameHash for a wide name given as the UTF-16 code units
// stored in the file; use it when the units may not form valid UTF-16 (a
// lone surrogate), which a Go string cannot carry.
func NameHashUTF16(units []uint16) uint64 {
	b := make([]byte, 2*len(units))
	for i, u := range units {
		if 'A' <= u && u <= 'Z' {
			u += 'a' - 'A'
		}
		binary.LittleEndian.PutUint16(b[2*i:], u)
	}
	return city.Hash64(b)
}

// PackageID returns FPackageId::FromName for a long package name such as
// "/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop": the hash of its
// ASCII-lowercased UTF-16LE code units, with no masking. The same value is the
// first 8 bytes of the package's chunk ids and its key in container headers.
func PackageID(packageName string) uint64 { return hashUTF16Lower(packageName) }

// ContainerID returns FIoContainerId::FromName for a container's base file
// name, e.g. "pakchunk0-WindowsNoEditor" or "MyMod_P": no directory, no
// extension, any _P or _N_P suffix included. Global containers do not follow
// this rule (the UE 5.8 global.utoc stores all ones).
func ContainerID(baseName string) uint64 { return hashUTF16Lower(baseName) }

// ScriptImportIndex returns the FPackageObjectIndex of a native (script)
// object as import maps and script-object tables store it, e.g. for
// "/Script/Engine.BlueprintGeneratedClass": every '.' and ':' of the path
// becomes '/', the result is hashed like a package id, and the top two bits
// are replaced by the ScriptImport type (1).
func ScriptImportIndex(objectPath string) uint64 {
	return objectPathHash(objectPath)&^indexTypeMask | indexTypeScriptImport
}

// PackageImportIndex returns the UE 4.25–4.27 FPackageObjectIndex of a public
// object of another package (the 4.2x import-map value and the export map's
// GlobalImportIndex), e.g. for
// "/Game/Props/BP_Aphid_Meat_Prop.BP_Aphid_Meat_Prop_C": the path with '.'
// and ':' turned into '/', hashed like a package id, top two bits replaced by
// the PackageImport type (2). UE5 import maps store package and hash indices
// instead; see PublicExportHash.
func PackageImportIndex(objectPath string) uint64 {
	return objectPathHash(objectPath)&^indexTypeMask | indexTypePackageImport
}

// PublicExportHash returns the UE5 public export hash of an export (export
// map offset 56, ImportedPublicExportHashes): the hash of the object's path
// relative to its package, outers first, e.g. "BP_Table_C" or
// "SomeOuter/Inner". '.' and ':' separators are accepted and turned into '/',
// a single leading '/' is dropped; all 64 bits are kept (0 means "not
// public" in the file, so a caller should not expect a real export to hash
// to it).
func PublicExportHash(relativePath string) uint64 {
	p := strings.TrimPrefix(relativePath, "/")
	return objectPathHash(p)
}

// ShaderLibraryID returns the UE5 ShaderCodeLibrary chunk id of a shader
// library: the hash of "<libraryName>-<shaderFormat>", as for package ids.
func ShaderLibraryID(libraryName, shaderFormat string) uint64 {
	return hashUTF16Lower(libraryName + "-" + shaderFormat)
}

// objectPathHash hashes an object path with '.' and ':' replaced by '/'.
func objectPathHash(path string) uint64 {
	if strings.ContainsAny(path, ".:") {
		path = strings.Map(func(r rune) rune {
			if r == '.' || r == ':' {
				return '/'
			}
			return r
		}, path)
	}
	return hashUTF16Lower(path)
}

// hashUTF16Lower hashes the UTF-16LE code units of s after ASCII lowercasing.
func hashUTF16Lower(s string) uint64 {
	var buf [512]byte
	var b []byte
	if 2*len(s) <= len(buf) {
		b = buf[: 0 : 2*len(s)]
	} else {
		b = make([]byte, 0, 2*len(s))
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, lowerASCII(c), 0)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			b = binary.LittleEndian.AppendUint16(b, uint16(r1))
			b = binary.LittleEndian.AppendUint16(b, uint16(r2))
		} else {
			b = binary.LittleEndian.AppendUint16(b, uint16(r))
		}
	}
	return city.Hash64(b)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// PathHash returns CityHash64 of s's UTF-16LE code units after ASCII
// lowercasing, with nothing else changed: the hash the engine's cooker takes
// of a lowercased TCHAR string (an FPackageId is PathHash of the package
// name; a UE5 public export hash is PathHash of the lowercased
// package-relative path without its leading '/', whose '.' and ':' stay as
// they are, unlike in PublicExportHash).
func PathHash(s string) uint64 { return hashUTF16Lower(s) }
