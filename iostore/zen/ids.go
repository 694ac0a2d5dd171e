package zen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/cityhash"
)

// PackageID is an FPackageId: the CityHash64 of a package's lowercased long
// name (cityhash.PackageID). It is the first 8 bytes of the package's chunk
// ids and its key in container headers. Its text and JSON form is
// fixed-width hex, "0x14f2082da820101a", so that no JSON reader rounds it.
type PackageID uint64

// PackageIDFromName returns the id of a long package name such as
// "/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop".
func PackageIDFromName(name string) PackageID { return PackageID(cityhash.PackageID(name)) }

// String returns the id as 0x and 16 hex digits.
func (id PackageID) String() string { return hex64(uint64(id)) }

// MarshalText returns the String form, for JSON and YAML.
func (id PackageID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText accepts the String form (0x and up to 16 hex digits) or a
// decimal number.
func (id *PackageID) UnmarshalText(b []byte) error {
	v, err := parseID(string(b), "package id")
	*id = PackageID(v)
	return err
}

// ContainerID is an FIoContainerId: the CityHash64 of a container's base
// file name (cityhash.ContainerID). Its text and JSON form is fixed-width
// hex, as for PackageID.
type ContainerID uint64

// ContainerIDFromName returns the id of a container's base file name, e.g.
// "pakchunk0-WindowsNoEditor" or "MyMod_P" (no directory, no extension).
func ContainerIDFromName(baseName string) ContainerID {
	return ContainerID(cityhash.ContainerID(baseName))
}

// String returns the id as 0x and 16 hex digits.
func (id ContainerID) String() string { return hex64(uint64(id)) }

// MarshalText returns the String form, for JSON and YAML.
func (id ContainerID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText accepts the String form or a decimal number.
func (id *ContainerID) UnmarshalText(b []byte) error {
	v, err := parseID(string(b), "container id")
	*id = ContainerID(v)
	return err
}

// hex64 formats a 64-bit id or hash as 0x and 16 hex digits.
func hex64(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// parseID parses 0x-prefixed hex or a decimal number.
func parseID(s, what string) (uint64, error) {
	var v uint64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err = strconv.ParseUint(h, 16, 64)
	} else {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %q: want 0x and up to 16 hex digits, or a decimal number", what, s)
	}
	return v, nil
}
