package zen

import (
	"fmt"

	"github.com/unrmod/unrmod/cityhash"
)

// ObjectIndex is an FPackageObjectIndex: a reference to an object from a zen
// package. The top two bits give its kind (ObjectKind); the low 62 bits are
// an export index (Export), the hash of a native object's path
// (ScriptImport), or for PackageImport the hash of the imported object's
// full path (UE 4.26/4.27) or a pair of indices (UE5: imported package
// index << 32 | imported public export hash index). All 64 bits set is the
// null reference. Its text and JSON form is fixed-width hex.
type ObjectIndex uint64

// ObjectKind is the kind of an ObjectIndex, from its top two bits.
type ObjectKind uint8

// The kinds of object reference.
const (
	KindExport        ObjectKind = iota // an export of this package
	KindScriptImport                    // a native object (/Script/...)
	KindPackageImport                   // a public export of another package
	KindNull                            // no object
)

var objectKindNames = [...]string{"Export", "ScriptImport", "PackageImport", "Null"}

// String returns the engine's name of the kind, e.g. "ScriptImport".
func (k ObjectKind) String() string {
	if int(k) < len(objectKindNames) {
		return objectKindNames[k]
	}
	return fmt.Sprintf("ObjectKind(%d)", uint8(k))
}

const (
	objectTypeShift = 62
	objectValueMask = uint64(1)<<objectTypeShift - 1
)

// NullObject is the null reference the engine writes: all bits set.
const NullObject ObjectIndex = ^ObjectIndex(0)

// ExportObject returns the reference to export i of the same package.
func ExportObject(i int) ObjectIndex { return ObjectIndex(uint64(i) & objectValueMask) }

// ScriptObject returns the reference to a native object, e.g.
// "/Script/Engine.BlueprintGeneratedClass" (cityhash.ScriptImportIndex).
func ScriptObject(path string) ObjectIndex { return ObjectIndex(cityhash.ScriptImportIndex(path)) }

// PackageImportUE5 returns a UE5 package import: the imported package's
// index in the package's imported packages and the index of the export's
// hash in its imported public export hashes.
func PackageImportUE5(pkg, hash uint32) ObjectIndex {
	return ObjectIndex(uint64(KindPackageImport)<<objectTypeShift | uint64(pkg)<<32 | uint64(hash))
}

// Kind returns the reference's kind.
func (x ObjectIndex) Kind() ObjectKind { return ObjectKind(x >> objectTypeShift) }

// IsNull reports whether x refers to no object.
func (x ObjectIndex) IsNull() bool { return x.Kind() == KindNull }

// Value returns the low 62 bits.
func (x ObjectIndex) Value() uint64 { return uint64(x) & objectValueMask }

// Export returns the export index of an Export reference.
func (x ObjectIndex) Export() (int, bool) {
	if x.Kind() != KindExport || x.Value() > 1<<31-1 {
		return 0, false
	}
	return int(x.Value()), true
}

// PackageImport splits a UE5 package import into the imported package index
// and the public export hash index.
func (x ObjectIndex) PackageImport() (pkg, hash uint32, ok bool) {
	if x.Kind() != KindPackageImport {
		return 0, 0, false
	}
	return uint32(x.Value() >> 32), uint32(x.Value()), true
}

// String returns the index as 0x and 16 hex digits.
func (x ObjectIndex) String() string { return hex64(uint64(x)) }

// MarshalText returns the String form, for JSON and YAML.
func (x ObjectIndex) MarshalText() ([]byte, error) { return []byte(x.String()), nil }

// UnmarshalText accepts the String form or a decimal number.
func (x *ObjectIndex) UnmarshalText(b []byte) error {
	v, err := parseID(string(b), "object index")
	*x = ObjectIndex(v)
	return err
}
