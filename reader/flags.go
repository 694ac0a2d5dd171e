package reader

import (
	"fmt"
	"strconv"
	"strings"
)

// PackageFlags are the PKG_* bits of the package header.
type PackageFlags uint32

// Package flags (PKG_*), by their engine names.
const (
	PkgAllowDownload  PackageFlags = 0x0001 // servers may send the package to clients
	PkgClientOptional PackageFlags = 0x0002 // purely optional for clients
	PkgServerSideOnly PackageFlags = 0x0004 // never required by or sent to clients
	PkgBrokenLinks    PackageFlags = 0x0008 // runtime: loaded with broken imports
	PkgUnsecure       PackageFlags = 0x0010 // not trusted
	PkgDeltaCompress  PackageFlags = 0x0020 // Unreal 227 only: delta saved
	PkgNeed           PackageFlags = 0x8000 // runtime: client needs to download
)

var packageFlagNames = []flagName{
	{0x0001, "AllowDownload"}, {0x0002, "ClientOptional"}, {0x0004, "ServerSideOnly"},
	{0x0008, "BrokenLinks"}, {0x0010, "Unsecure"}, {0x0020, "DeltaCompress"}, {0x8000, "Need"},
}

// ObjectFlags are the RF_* bits of an export or name entry.
type ObjectFlags uint32

// Object flags (RF_*) that callers commonly test.
const (
	RFPublic        ObjectFlags = 0x00000004
	RFTagExp        ObjectFlags = 0x00000010
	RFLoadForClient ObjectFlags = 0x00010000
	RFLoadForServer ObjectFlags = 0x00020000
	RFLoadForEdit   ObjectFlags = 0x00040000
	RFStandalone    ObjectFlags = 0x00080000
	RFHasStack      ObjectFlags = 0x02000000
	RFNative        ObjectFlags = 0x04000000

	// RFLoadContext is the set of LoadFor* bits; the engine ignores a name or
	// export that has none of them.
	RFLoadContext = RFLoadForClient | RFLoadForServer | RFLoadForEdit
	// NewNameFlags are the flags the engine gives names it saves.
	NewNameFlags ObjectFlags = 0x00070010
)

var objectFlagNames = []flagName{
	{0x00000001, "Transactional"}, {0x00000002, "Unreachable"}, {0x00000004, "Public"},
	{0x00000008, "TagImp"}, {0x00000010, "TagExp"}, {0x00000020, "SourceModified"},
	{0x00000040, "TagGarbage"}, {0x00000200, "NeedLoad"}, {0x00000400, "HighlightedName"},
	{0x00000800, "InSingularFunc"}, {0x00001000, "Suppress"}, {0x00002000, "InEndState"},
	{0x00004000, "Transient"}, {0x00008000, "PreLoading"}, {0x00010000, "LoadForClient"},
	{0x00020000, "LoadForServer"}, {0x00040000, "LoadForEdit"}, {0x00080000, "Standalone"},
	{0x00100000, "NotForClient"}, {0x00200000, "NotForServer"}, {0x00400000, "NotForEdit"},
	{0x00800000, "Destroyed"}, {0x01000000, "NeedPostLoad"}, {0x02000000, "HasStack"},
	{0x04000000, "Native"}, {0x08000000, "Marked"}, {0x10000000, "ErrorShutdown"},
	{0x20000000, "DebugPostLoad"}, {0x40000000, "DebugSerialize"}, {0x80000000, "DebugDestroy"},
}

type flagName struct {
	bit  uint32
	name string
}

// Names returns the engine names of the set bits, in bit order; bits without
// a name appear as hex numbers.
func (f PackageFlags) Names() []string { return flagNames(uint32(f), packageFlagNames) }

// String returns the set flags joined by "|", or "0".
func (f PackageFlags) String() string { return joinFlags(f.Names()) }

// Names returns the engine names (without RF_) of the set bits, in bit order.
func (f ObjectFlags) Names() []string { return flagNames(uint32(f), objectFlagNames) }

// String returns the set flags joined by "|", or "0".
func (f ObjectFlags) String() string { return joinFlags(f.Names()) }

// ParsePackageFlag returns the bit for a package flag name (with or without the
// PKG_ prefix, any case) or a number (decimal or 0x hex).
func ParsePackageFlag(s string) (PackageFlags, error) {
	v, err := parseFlag(s, "PKG_", packageFlagNames)
	return PackageFlags(v), err
}

// ParseObjectFlag returns the bit for an object flag name (with or without the
// RF_ prefix, any case) or a number (decimal or 0x hex).
func ParseObjectFlag(s string) (ObjectFlags, error) {
	v, err := parseFlag(s, "RF_", objectFlagNames)
	return ObjectFlags(v), err
}

func flagNames(v uint32, table []flagName) []string {
	var out []string
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if v&bit == 0 {
			continue
		}
		name := ""
		for _, f := range table {
			if f.bit == bit {
				name = f.name
				break
			}
		}
		if name == "" {
			name = "0x" + strings.ToUpper(strconv.FormatUint(uint64(bit), 16))
		}
		out = append(out, name)
	}
	return out
}

func joinFlags(names []string) string {
	if len(names) == 0 {
		return "0"
	}
	return strings.Join(names, "|")
}

func parseFlag(s, prefix string, table []flagName) (uint32, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseUint(t, 0, 32); err == nil {
		return uint32(n), nil
	}
	if len(t) > len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) {
		t = t[len(prefix):]
	}
	for _, f := range table {
		if strings.EqualFold(f.name, t) {
			return f.bit, nil
		}
	}
	known := make([]string, len(table))
	for i, f := range table {
		known[i] = f.name
	}
	return 0, fmt.Errorf("unknown flag %q (known: %s, or a number)", s, strings.Join(known, ", "))
}
