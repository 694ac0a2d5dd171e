// Package props reads and changes the tagged properties of UE4 and UE5
// export data: the list of FPropertyTag + value pairs, ended by the name
// "None", that an object (or a struct, or a DataTable row) is serialized as
// when its package was cooked without PKG_UnversionedProperties.
//
// The package works on the bytes of one export's data plus a small Context
// (the package's name map, its UE5 file version, whether the data is an
// object or a class default object, and how object references are named
// and resolved), so it imports no package format: zen packages use it
// through iostore/zen/zenprops, which fills a Context from a *zen.Package,
// and cooked assets through uasset/assetprops, which fills one from a
// *uasset.Package.
//
// Decode returns the property list: every tag with its name, type (the
// complete type tree of UE 5.4+ tags, or the one UE4 tags imply), size,
// array index, flags, GUIDs and byte offsets, and every value it can decode
// (numbers, bools, names, enums, strings, object references, soft object
// paths, tagged structs field by field, the engine's native structs such as
// Vector, Rotator, Color or Guid, and arrays element by element); values it
// cannot decode (Text, maps, sets, delegates, unknown native structs) are
// kept as raw bytes. Encode writes a decoded list back; an undecodable value
// never stops the list from being read, and every list Decode returns
// encodes to the bytes it was decoded from. DecodeDataTable reads a
// UDataTable export: its properties, then the rows.
//
// Set changes one value, found by a path such as "Stats.Damage",
// "Icons[1]", "Weights[2]" (a static array element) or a DataTable row and
// a path in it, from the text a user wrote: the value is encoded in the
// property's own type, every size that depends on it (the tag's Size, every
// enclosing struct's and array's Size) is recomputed, and every byte after
// it is moved unchanged. A property absent from the list (one left at its
// class default) is added when the caller names its type.
//
// Packages cooked with unversioned properties (PKG_UnversionedProperties)
// store no tags: an object's data is a header of fragments over its
// class's schema (skip so many slots, then so many values, and whether
// some are zero), a zero mask, and the values of the slots present and not
// zero, in schema order. With Context.Schema (a *usmap.Mappings, the
// game's .usmap) and Context.Class set, Decode, DecodeDataTable, Encode
// and Set read and write such lists: Property.Slot is the schema slot and
// Property.Zero the zero-mask bit, enums are EnumInt values (the integer
// and its enumerator's name), nested structs are their own unversioned
// lists, the engine's native structs are read natively, and a struct
// whose layout is neither known nor in the mappings stops the export with
// ErrNoSchema. An unchanged list encodes to its bytes; Set gives a zero
// or absent property its bytes and rebuilds the header as the engine's
// builder does.
//
// Errors are *ue.FormatError values wrapping ue.ErrCorrupt (zen.ErrCorrupt) for bad data
// (with the byte offset in the export data), ErrUnversioned for packages
// that have no property tags, and errors wrapping ErrNotFound, ErrType,
// ErrRange or ErrUnsupported for changes that cannot be made. Bad input
// never panics, never loops and never allocates beyond its own size: every
// count is checked against the bytes left and nesting is limited to
// MaxDepth levels.
package props
