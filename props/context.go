package props

import (
	"errors"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/usmap"
)

// UE5 package file versions (EUnrealEngineObjectUE5Version) the property
// format depends on. UE4 packages have UE5 version 0.
const (
	// VersionLargeWorldCoordinates (1004): Vector, Rotator, Quat and the
	// other core math structs store doubles instead of floats.
	VersionLargeWorldCoordinates int32 = 1004
	// VersionSoftObjectPathTopLevel (1007,
	// FSOFTOBJECTPATH_REMOVE_ASSET_PATH_FNAMES): a soft object path stores
	// its asset as a package name and an asset name instead of one name.
	VersionSoftObjectPathTopLevel int32 = 1007
	// VersionTagExtensions (1011,
	// PROPERTY_TAG_EXTENSION_AND_OVERRIDABLE_SERIALIZATION): tags end with
	// an extension byte, objects start with a serialization-control byte.
	VersionTagExtensions int32 = 1011
	// VersionCompleteTypeName (1012, PROPERTY_TAG_COMPLETE_TYPE_NAME, UE
	// 5.4): tags store the complete type tree and a flags byte.
	VersionCompleteTypeName int32 = 1012
)

// SoftObjectPathUTF8Version is the FFortniteMainBranchObjectVersion
// (SoftObjectPathUtf8SubPaths, UE 5.6) from which a soft object path's
// sub path is stored as UTF-8.
const SoftObjectPathUTF8Version = 192

// MaxDepth is how deep structs and arrays may nest in a property list.
const MaxDepth = 64

// Sentinel errors for errors.Is.
var (
	// ErrUnversioned means the package was cooked with unversioned
	// properties (PKG_UnversionedProperties): its export data has no
	// property tags, and reading it needs the game's property schema.
	ErrUnversioned = errors.New("the package was cooked without property tags (unversioned properties): " +
		"reading or changing its properties needs the game's property schema (usmap mappings)")
	// ErrNotFound means a path names no property, element, field or row.
	ErrNotFound = errors.New("not found")
	// ErrType means a value does not fit the property's type, or an
	// explicit type does not match the property.
	ErrType = errors.New("wrong type")
	// ErrRange means a number is outside the range of the property's type.
	ErrRange = errors.New("out of range")
	// ErrUnsupported means the change cannot be made by this package
	// (Text values, maps, sets, native structs of unknown layout …).
	ErrUnsupported = errors.New("not supported")
)

// Context is what decoding and changing a property list needs besides its
// bytes: the package's side of the property format. A package format
// fills one for an export (package iostore/zen/zenprops does it for zen
// packages); the property code needs nothing else of the package.
type Context struct {
	// Names is the package's name map, which FNames index.
	Names []string
	// FileVersionUE5 is the UE5 package file version the data was saved
	// with; 0 for UE4.
	FileVersionUE5 int32
	// Object says the data is an object's serialization (an export's
	// data): from version 1011 it starts with a serialization-control
	// byte, and after the list comes the object tail. False for the data
	// of a struct alone.
	Object bool
	// CDO says the object is a class default object (RF_ClassDefaultObject),
	// whose list is not followed by the object-GUID bool.
	CDO bool
	// UTF8SubPaths says soft object paths store their sub path as UTF-8
	// (FFortniteMainBranchObjectVersion 192 and later, UE 5.6+).
	UTF8SubPaths bool
	// FieldPathsWithoutOwner says field path values end with their path,
	// without the owning struct's object reference: data saved before
	// FFieldPathOwnerSerialization (UE 4.25). A tagged property's value
	// tells by its size; this is for field paths inside arrays, sets,
	// maps and unversioned data, which otherwise have the owner.
	FieldPathsWithoutOwner bool
	// Imports and Exports are the package's import and export counts, for
	// checking object references that Set writes; 0 skips the check.
	Imports, Exports int
	// AddName adds a name to the package's name map and returns its index,
	// for Set when a value needs a name the map lacks; it must also append
	// the name to Names. nil refuses such changes.
	AddName func(name string) (int32, error)
	// ResolveObject turns an object path a user wrote (e.g.
	// "/Script/Engine.Texture2D" or "/Game/UI/T_Icon.T_Icon") into an
	// FPackageIndex, for Set of object properties; nil accepts only
	// numbers.
	ResolveObject func(path string) (int32, error)
	// ObjectName names an FPackageIndex in Change descriptions (e.g.
	// zenprops.Resolver.Name); nil shows "import 3" and "export 0".
	ObjectName func(index int32) string

	// Schema is the game's property schema, for data cooked with
	// unversioned properties (PKG_UnversionedProperties): with it set,
	// lists are read and written as unversioned lists of Class's schema
	// (and DataTable rows of their RowStruct's). nil for tagged data.
	Schema *usmap.Mappings
	// Class names the class (or struct) whose schema an unversioned
	// object's list follows, e.g. "Texture2D".
	Class string
}

// lwc reports whether core math structs store doubles.
func (c *Context) lwc() bool { return c.FileVersionUE5 >= VersionLargeWorldCoordinates }

// completeTypes reports whether tags store the complete type tree.
func (c *Context) completeTypes() bool { return c.FileVersionUE5 >= VersionCompleteTypeName }

// tagExtensions reports whether older-layout tags end with an extension
// byte (version 1011 exactly; from 1012 the flags byte says so).
func (c *Context) tagExtensions() bool {
	return c.FileVersionUE5 >= VersionTagExtensions && c.FileVersionUE5 < VersionCompleteTypeName
}

// control reports whether an object's list starts with the control byte.
func (c *Context) control() bool { return c.Object && c.FileVersionUE5 >= VersionTagExtensions }

// nameText returns the text of name index i with number n, or ok false.
func (c *Context) nameText(i int32, n uint32) (string, bool) {
	if i < 0 || int64(i) >= int64(len(c.Names)) {
		return "", false
	}
	s := c.Names[i]
	if n != 0 {
		s = fmt.Sprintf("%s_%d", s, n-1)
	}
	return s, true
}

// findName returns the FName for text: an existing name-map entry (exact
// match first, then case-insensitive, as FNames compare), with the
// engine's number suffix split off (Foo_3 is Foo, number 4) when the whole
// text is not in the map. add says whether AddName may add it.
func (c *Context) findName(text string, add bool) (Name, error) {
	if text == "" {
		text = "None"
	}
	base, number := splitNumber(text)
	candidates := []struct {
		s string
		n uint32
	}{{text, 0}}
	if base != text {
		candidates = append(candidates, struct {
			s string
			n uint32
		}{base, number})
	}
	for _, fold := range []bool{false, true} {
		for _, cand := range candidates {
			for i, s := range c.Names {
				if s == cand.s || fold && strings.EqualFold(s, cand.s) {
					t, _ := c.nameText(int32(i), cand.n)
					return Name{Index: int32(i), Number: cand.n, Text: t}, nil
				}
			}
		}
	}
	if !add || c.AddName == nil {
		return Name{}, fmt.Errorf("the name %q is not in the package's name map and no name may be added: %w", text, ErrUnsupported)
	}
	i, err := c.AddName(base)
	if err != nil {
		return Name{}, err
	}
	t, ok := c.nameText(i, number)
	if !ok {
		return Name{}, fmt.Errorf("AddName(%q) returned index %d outside the %d names", base, i, len(c.Names))
	}
	return Name{Index: i, Number: number, Text: t}, nil
}

// splitNumber splits the engine's number suffix off an FName's text:
// "Foo_3" is ("Foo", 4); text without a valid suffix is (text, 0). Like the
// engine, a suffix with a leading zero (other than "0" itself) is no number.
func splitNumber(text string) (string, uint32) {
	i := strings.LastIndexByte(text, '_')
	if i <= 0 || i == len(text)-1 {
		return text, 0
	}
	digits := text[i+1:]
	if len(digits) > 1 && digits[0] == '0' || len(digits) > 9 {
		return text, 0
	}
	var n uint32
	for j := 0; j < len(digits); j++ {
		d := digits[j]
		if d < '0' || d > '9' {
			return text, 0
		}
		n = n*10 + uint32(d-'0')
	}
	return text[:i], n + 1
}
