// Package uasset reads and writes cooked UE4/UE5 assets in their pak-era
// form: a header file (.uasset or .umap) starting with the package file
// summary and the header tables, and the export data (.uexp) that ends
// with the package tag; bulk data lives in .ubulk, .uptnl and .m.ubulk
// files beside them (CompanionNames). Single-file assets, whose export
// data follows the header in the same file, and uncooked editor assets
// (UE4 518 and later) decode too; Package.Cooked tells them apart.
//
// Decode reads the FPackageFileSummary of UE 4.14–4.27 (LegacyFileVersion
// −7) and UE 5.0–5.8 (−8, −9), the name map with its hashes, the import
// and export maps with every field of each release, the depends map, the
// soft package references, the preload dependencies and the UE 5.2+ data
// resources. Other header parts (asset registry data, searchable names,
// soft object paths, thumbnails, gatherable text) are kept as opaque
// bytes; their offsets are still moved when the header changes size.
// Export data stays raw bytes per export: properties are decoded and
// changed by the shared property codec through package uasset/assetprops,
// not here.
//
// Cooks are usually unversioned (FileVersionUE4 0). Options.Release says
// which engine release made such a file; without it Decode tries every
// release with the file's LegacyFileVersion, newest first, and keeps the
// first whose layout fits tightly (Package.Fitting lists every release
// that fits: cooked 4.16–4.27 files look alike, as do 5.2–5.5 files,
// and UE 6.0 cooks are 5.8's to the byte).
//
// (*Package).Encode writes the header and the export data back. An
// unchanged decoded Package encodes byte for byte; after a change it
// recomputes the summary's counts and offsets, TotalHeaderSize, every
// export's SerialOffset and SerialSize, and BulkDataStartOffset. What it
// cannot lay out safely (an editor package with thumbnails whose header
// changes size, a depends map without a list per export) is refused with
// ErrNotEncodable.
//
// (*Package).Problems verifies a decoded package as the engine would rely
// on it (counts, table order, name hashes, object references, preload
// ranges, export data tiling, the package tag, BulkDataStartOffset, the
// cooked flags) and returns ue.Problem values, none for an engine-written
// asset; assetprops.Problems adds the export properties.
//
// Errors are *ue.FormatError values naming the file, the structure and the
// byte offset, matching ErrCorrupt, ErrUnsupportedVersion or
// ErrNotEncodable with errors.Is. Every count is checked against the bytes
// that remain before anything is allocated.
//
// The format notes, with the evidence for each field, are in the
// project's docs/cooked-assets.md.
package uasset
