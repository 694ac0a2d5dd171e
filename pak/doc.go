// Package pak reads and writes Unreal Engine .pak files, versions 1 to 15
// (UE 4.0 to 6.0).
//
// The engine mounts an IoStore container (.utoc/.ucas) only as part of
// mounting a .pak with the same base name: that pak gives the container
// its priority (a name ending in _P), the GUID of its AES key, and a place
// for the loose files that never live in a container (.ini, .locres, ...).
// A mod container therefore needs a companion pak, which may be empty;
// Writer makes it, Reader checks it.
//
// A pak is the files' bytes, each preceded by a record of its entry
// (FPakEntry), then the index, then a fixed-size footer (FPakInfo). The
// footer's size depends on the version: 44 bytes for versions 1 to 3, 45
// for 4 to 6, 61 for 7, 221 for 8 and 10 to 12 (189 in UE 4.22's version
// 8) and 222 for 9; DecodeFooter finds it as the engine does, by trying
// each size from the newest. Before version 10 the index is one list of
// paths and entries; from version 10 it is split into a primary index
// holding bit-encoded entries, a path-hash index and a full directory
// index, which from version 13 is a flat sorted table. UE 6.0 (version 15)
// may encrypt with AES-CTR instead of AES-ECB; both are read.
//
//	r, err := pak.Open("z_MyMod_P.pak", nil)
//	if err != nil { ... }
//	defer r.Close()
//	for _, f := range r.Files {
//		data, err := f.ReadAll() // decompressed, hash-checked
//		...
//	}
//
//	w, err := pak.NewWriter(out, &pak.WriterOptions{EncryptionKeyGUID: guid})
//	w.WriteFile("Game/Content/Localization/Game/en/Game.locres", locres)
//	err = w.Close() // index and footer
//
// Decoding checks every count against the bytes left and every entry
// against the file's size before allocating anything for it, and verifies
// the SHA-1 of the index (and of the secondary indexes). Reading a file
// checks the record before its data against the index and the SHA-1 of
// its stored bytes; Zlib, Gzip and LZ4 are decompressed, block by block
// (Oodle needs the game's own library, registered in Options.Codecs with
// package ue/oodle; without it an Oodle file fails with a *MethodError).
// Encrypted indexes and files (AES-256-ECB) need Options.Key. Errors are
// *ue.FormatError values naming the file, the structure and the offset, and
// wrapping ErrNotPak, ErrUnsupportedVersion, ErrCorrupt, ErrKeyRequired,
// ErrWrongKey or ErrHashMismatch.
//
// A Reader is also an fs.FS of the paths under the mount point, so
// fs.WalkDir, fs.ReadFile and the like work on a pak.
//
// The model, decoder and encoder sit side by side: Footer and Entry are
// what the file stores, Reader decodes them, Writer encodes them.
package pak
