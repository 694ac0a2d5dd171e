package zen

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// PackageFlags are EPackageFlags, as a zen package's summary stores them.
type PackageFlags uint32

// The package flags the codec and its users look at.
const (
	// FlagUnversionedProperties (PKG_UnversionedProperties) marks export
	// data cooked without property tags: reading it needs the game's
	// property schema.
	FlagUnversionedProperties PackageFlags = 0x00002000
	// FlagFilterEditorOnly (PKG_FilterEditorOnly) is set on cooked packages.
	FlagFilterEditorOnly PackageFlags = 0x80000000
)

// packageFlagNames are the names of EPackageFlags' bits (UE 4.26–5.x),
// without the PKG_ prefix.
var packageFlagNames = [32]string{
	0: "NewlyCreated", 1: "ClientOptional", 2: "ServerSideOnly", 4: "CompiledIn", 5: "ForDiffing",
	6: "EditorOnly", 7: "Developer", 8: "UncookedOnly", 9: "Cooked", 10: "ContainsNoAsset",
	11: "NotExternallyReferenceable", 13: "UnversionedProperties", 14: "ContainsMapData", 15: "IsSaving",
	16: "Compiling", 17: "ContainsMap", 18: "RequiresLocalizationGather", 20: "PlayInEditor",
	21: "ContainsScript", 22: "DisallowExport", 27: "CookGenerated", 28: "DynamicImports",
	29: "RuntimeGenerated", 30: "ReloadingForCooker", 31: "FilterEditorOnly",
}

// ObjectFlags are EObjectFlags, as an export map entry stores them.
type ObjectFlags uint32

// The object flags the codec and its users look at.
const (
	// FlagPublic (RF_Public) makes an export importable by other packages:
	// it has a public export hash.
	FlagPublic ObjectFlags = 0x1
	// FlagClassDefaultObject (RF_ClassDefaultObject) marks a class's
	// default object.
	FlagClassDefaultObject ObjectFlags = 0x10
)

// objectFlagNames are the names of EObjectFlags' bits, without RF_.
var objectFlagNames = [32]string{
	0: "Public", 1: "Standalone", 2: "MarkAsNative", 3: "Transactional", 4: "ClassDefaultObject",
	5: "ArchetypeObject", 6: "Transient", 7: "MarkAsRootSet", 8: "TagGarbageTemp", 9: "NeedInitialization",
	10: "NeedLoad", 11: "KeepForCooker", 12: "NeedPostLoad", 13: "NeedPostLoadSubobjects",
	14: "NewerVersionExists", 15: "BeginDestroyed", 16: "FinishDestroyed", 17: "BeingRegenerated",
	18: "DefaultSubObject", 19: "WasLoaded", 20: "TextExportTransient", 21: "LoadCompleted",
	22: "InheritableComponentTemplate", 23: "DuplicateTransient", 24: "StrongRefOnFrame",
	25: "NonPIEDuplicateTransient", 26: "Dynamic", 27: "WillBeLoaded", 28: "HasExternalPackage",
}

// Names returns the names of the set bits, low bit first; a bit without a
// name is given as its hex value.
func (f PackageFlags) Names() []string { return flagNames(uint32(f), &packageFlagNames) }

// String joins Names with '|', or gives "0".
func (f PackageFlags) String() string { return joinFlags(f.Names()) }

// Names returns the names of the set bits, low bit first.
func (f ObjectFlags) Names() []string { return flagNames(uint32(f), &objectFlagNames) }

// String joins Names with '|', or gives "0".
func (f ObjectFlags) String() string { return joinFlags(f.Names()) }

// ParsePackageFlag parses one package flag: its name with or without PKG_
// (any case) or a number (0x hex or decimal) with any bits.
func ParsePackageFlag(s string) (PackageFlags, error) {
	v, err := parseFlag(s, "PKG_", &packageFlagNames, "package flag")
	return PackageFlags(v), err
}

// ParseObjectFlag parses one object flag: its name with or without RF_ or a
// number.
func ParseObjectFlag(s string) (ObjectFlags, error) {
	v, err := parseFlag(s, "RF_", &objectFlagNames, "object flag")
	return ObjectFlags(v), err
}

func flagNames(v uint32, names *[32]string) []string {
	var out []string
	for v != 0 {
		b := bits.TrailingZeros32(v)
		v &^= 1 << b
		if n := names[b]; n != "" {
			out = append(out, n)
		} else {
			out = append(out, fmt.Sprintf("0x%08x", uint32(1)<<b))
		}
	}
	return out
}

func joinFlags(names []string) string {
	if len(names) == 0 {
		return "0"
	}
	return strings.Join(names, "|")
}

func parseFlag(s, prefix string, names *[32]string, what string) (uint32, error) {
	t := strings.TrimSpace(s)
	if v, err := strconv.ParseUint(t, 0, 32); err == nil {
		return uint32(v), nil
	}
	if len(t) >= len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) {
		t = t[len(prefix):]
	}
	var known []string
	for b, n := range names {
		if n == "" {
			continue
		}
		if strings.EqualFold(n, t) {
			return 1 << b, nil
		}
		known = append(known, n)
	}
	return 0, fmt.Errorf("unknown %s %q; known: %s (or a number such as 0x80000000)", what, s, strings.Join(known, ", "))
}
