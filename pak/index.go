package pak

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/unrmod/unrmod/internal/binio"
)

// The index.
//
// Before version 10 it is one list: FString mount point, int32 count, then
// per file an FString path and the serialized entry.
//
// From version 10 the primary index holds the FString mount point, int32
// entry count, uint64 path-hash seed, then for the path-hash index and for
// the full directory index a bool32 and, when set, int64 offset, int64
// size and SHA-1 of that secondary index; then the bit-encoded entries as
// an int32 byte count and bytes, and the entries that cannot be encoded as
// an int32 count and serialized entries. Secondary indexes refer to an
// entry by location: an offset into the encoded entries (>= 0), -(i+1) for
// the i-th unencoded entry, or math.MinInt32 for a delete record.
//
// The full directory index is an int32 directory count, then per directory
// an FString name ("/" for the mount point itself, else "Sub/Dir/") and an
// int32 file count, then per file its name (an FString; from version 12 a
// UTF-8 string) and its int32 location. The path-hash index is an int32
// count of (uint64 path hash, int32 location) pairs followed by a pruned
// directory index in the full directory index's format.

// deletedLocation is the location of a delete record (FPakEntryLocation
// Invalid).
const deletedLocation = math.MinInt32

// pathHashEntry is one pair of the path-hash index.
type pathHashEntry struct {
	hash     uint64
	location int32
}

// directoryFile is one file of a decoded directory index.
type directoryFile struct {
	path     string
	location int32
	at       int64 // where its location is stored
}

// decodeLegacyIndex decodes the index of versions 1 to 9.
func (p *Reader) decodeLegacyIndex(b []byte) error {
	v, slots := p.Footer.Version, len(p.Footer.Methods)
	c := newCursor(b, p.Footer.IndexOffset)
	p.MountPoint = c.FString32("mount point")
	n := c.Count32("entry count", 4+minEntrySize)
	p.numEntries = int64(n)
	if c.Err() == nil {
		p.Files = make([]*File, 0, n)
	}
	for i := 0; i < n && c.Err() == nil; i++ {
		f := &File{r: p}
		f.Path = c.FString32("path")
		f.at = c.Abs()
		f.Entry = decodeEntry(c, v, slots)
		p.Files = append(p.Files, f)
	}
	if err := c.Err(); err != nil {
		return cursorError(p.Name, fmt.Sprintf("index entry %d: ", len(p.Files)), err)
	}
	return p.checkTrailing(c, "index")
}

// checkTrailing fails when bytes are left after a decoded index part,
// beyond the zero padding of an encrypted one.
func (p *Reader) checkTrailing(c *binio.Cursor, what string) error {
	left := c.Len()
	if left == 0 || p.Footer.IndexEncrypted && left < 16 {
		return nil
	}
	return errorf(p.Name, what, c.Abs(), ErrCorrupt, "%d bytes left after the end of the %s: %v", left, what, ErrCorrupt)
}

// secondaryIndex is where a version 10+ secondary index is.
type secondaryIndex struct {
	present      bool
	offset, size int64
	hash         [20]byte
	at           int64 // where the primary index describes it
}

// decodeIndex decodes the split index of version 10 and later.
func (p *Reader) decodeIndex(b []byte) error {
	v := p.Footer.Version
	c := newCursor(b, p.Footer.IndexOffset)
	p.MountPoint = c.FString32("mount point")
	at := c.Pos()
	p.numEntries = int64(c.I32("entry count"))
	if p.numEntries < 0 {
		c.FailAt(at, "entry count", fmt.Errorf("negative count %d", p.numEntries))
	}
	p.PathHashSeed = c.U64("path hash seed")
	secondary := func(what string) secondaryIndex {
		var s secondaryIndex
		s.at = c.Abs()
		s.present = bool32(c, "has "+what)
		if s.present {
			s.offset = c.I64(what + " offset")
			s.size = c.I64(what + " size")
			copy(s.hash[:], c.Bytes(hashLen, what+" hash"))
		}
		return s
	}
	phi := secondary("path hash index")
	fdi := secondary("full directory index")
	encodedAt := c.Abs() + 4
	encoded := c.Bytes(c.Count32("encoded entries size", 1), "encoded entries")
	p.encoded = encoded
	n := c.Count32("unencoded entry count", minEntrySize)
	var unencoded []*File
	if c.Err() == nil {
		unencoded = make([]*File, n)
	}
	for i := range unencoded {
		f := &File{r: p, at: c.Abs()}
		f.Entry = decodeEntry(c, v, len(p.Footer.Methods))
		unencoded[i] = f
		if c.Err() != nil {
			break
		}
	}
	if p.Footer.CTR() {
		// AES-CTR paks follow the list with each entry's IV.
		for _, f := range unencoded {
			copy(f.IV[:], c.Bytes(ivLen, "unencoded entry AES-CTR IV"))
		}
	}
	if err := c.Err(); err != nil {
		return cursorError(p.Name, "index ", err)
	}
	if err := p.checkTrailing(c, "index"); err != nil {
		return err
	}
	if !phi.present && !fdi.present {
		return errorf(p.Name, "index", phi.at, ErrCorrupt, "has neither a path hash index nor a full directory index: %v", ErrCorrupt)
	}
	p.HasPathHashIndex, p.HasFullDirectoryIndex = phi.present, fdi.present

	// entry resolves a location to a File (without its path). Entries are
	// decoded once per location, and the blocks of all of them together
	// may not outnumber the pak's bytes: a real block takes at least one.
	decoded := map[int32]Entry{}
	var blocks int64
	entry := func(loc int32, at int64, what string) (*File, error) {
		switch {
		case loc == deletedLocation:
			return &File{r: p, at: at, Entry: Entry{Deleted: true}}, nil
		case loc >= 0:
			if int64(loc) >= int64(len(encoded)) {
				return nil, errorf(p.Name, what, at, ErrCorrupt, "location %d is past the %d bytes of encoded entries: %v", loc, len(encoded), ErrCorrupt)
			}
			e, ok := decoded[loc]
			if !ok {
				ec := newCursor(encoded[loc:], encodedAt+int64(loc))
				e = decodeEncodedEntry(ec, v, p.Footer.CTR())
				if err := ec.Err(); err != nil {
					return nil, cursorError(p.Name, "encoded entry ", err)
				}
				if blocks += int64(len(e.Blocks)); blocks > p.size {
					return nil, errorf(p.Name, "encoded entry", encodedAt+int64(loc), ErrCorrupt, "the entries have more compression blocks than the pak has bytes: %v", ErrCorrupt)
				}
				decoded[loc] = e
			}
			return &File{r: p, at: encodedAt + int64(loc), Entry: e}, nil
		default:
			i := -int64(loc) - 1
			if i >= int64(len(unencoded)) {
				return nil, errorf(p.Name, what, at, ErrCorrupt, "location %d names unencoded entry %d of %d: %v", loc, i, len(unencoded), ErrCorrupt)
			}
			f := *unencoded[i]
			return &f, nil
		}
	}

	if phi.present {
		b, err := p.readSecondary(phi, "path hash index", p.Footer.PathHashIndexIV)
		if err != nil {
			return err
		}
		hc := newCursor(b, phi.offset)
		cnt := hc.Count32("path hash index count", 12)
		if hc.Err() == nil {
			p.pathHashes = make([]pathHashEntry, cnt)
		}
		for i := range p.pathHashes {
			p.pathHashes[i].hash = hc.U64("path hash")
			p.pathHashes[i].location = hc.I32("location")
		}
		var pruned []directoryFile
		if hc.Err() == nil {
			pruned = p.decodeDirectoryIndex(hc)
		}
		if err := hc.Err(); err != nil {
			return cursorError(p.Name, "path hash index ", err)
		}
		if err := p.checkTrailing(hc, "path hash index"); err != nil {
			return err
		}
		if !fdi.present {
			// Only hashes name the files; the pruned directory index may
			// name some of them.
			names := make(map[int32]string, len(pruned))
			for _, d := range pruned {
				names[d.location] = d.path
			}
			p.Files = make([]*File, 0, len(p.pathHashes))
			for i, h := range p.pathHashes {
				f, err := entry(h.location, phi.offset+4+12*int64(i)+8, "path hash index")
				if err != nil {
					return err
				}
				f.Path = names[h.location]
				p.Files = append(p.Files, f)
			}
		}
	}
	if fdi.present {
		b, err := p.readSecondary(fdi, "full directory index", p.Footer.DirectoryIndexIV)
		if err != nil {
			return err
		}
		p.fdiAt = [2]int64{fdi.offset, fdi.size}
		dc := newCursor(b, fdi.offset)
		var files []directoryFile
		if isFlatDirectoryIndex(b, v) {
			files, p.flatHashes = decodeFlatDirectoryIndex(dc)
		} else {
			files = p.decodeDirectoryIndex(dc)
		}
		if err := dc.Err(); err != nil {
			return cursorError(p.Name, "full directory index ", err)
		}
		if err := p.checkTrailing(dc, "full directory index"); err != nil {
			return err
		}
		p.Files = make([]*File, 0, len(files))
		p.locations = make(map[*File]int32, len(files))
		for _, d := range files {
			f, err := entry(d.location, d.at, fmt.Sprintf("full directory index file %q", d.path))
			if err != nil {
				return err
			}
			f.Path = d.path
			p.Files = append(p.Files, f)
			p.locations[f] = d.location
		}
	}
	return nil
}

// readSecondary checks where a secondary index lies and reads it.
func (p *Reader) readSecondary(s secondaryIndex, what string, iv [ivLen]byte) ([]byte, error) {
	footerStart := p.size - int64(p.Footer.Size())
	switch {
	case s.offset < 0 || s.size < 0 || s.offset > footerStart || s.size > footerStart-s.offset:
		return nil, errorf(p.Name, what, s.at, ErrCorrupt, "at 0x%X, %d bytes, is not inside the file before the footer (0x0..0x%X): %v", s.offset, s.size, footerStart, ErrCorrupt)
	case s.size > maxIndexSize:
		return nil, errorf(p.Name, what, s.at, ErrCorrupt, "%d bytes is larger than the engine reads (2 GiB): %v", s.size, ErrCorrupt)
	case p.Footer.IndexEncrypted && s.size%16 != 0:
		return nil, errorf(p.Name, what, s.at, ErrCorrupt, "encrypted, but %d bytes is not a multiple of the AES block (16): %v", s.size, ErrCorrupt)
	}
	return p.readIndexPart(s.offset, s.size, s.hash, what, iv)
}

// decodeDirectoryIndex decodes a (full or pruned) directory index from c
// into the files it lists, with their paths relative to the mount point.
func (p *Reader) decodeDirectoryIndex(c *binio.Cursor) []directoryFile {
	var out []directoryFile
	dirs := c.Count32("directory count", 8)
	for d := 0; d < dirs && c.Err() == nil; d++ {
		dir := c.FString32("directory name")
		n := c.Count32("file count", 8)
		if dir == "/" {
			dir = ""
		} else if dir != "" && !strings.HasSuffix(dir, "/") {
			dir += "/"
		}
		for i := 0; i < n && c.Err() == nil; i++ {
			var name string
			if p.Footer.Version.HasUTF8FileNames() {
				name = utf8String(c, "file name")
			} else {
				name = c.FString32("file name")
			}
			at := c.Abs()
			loc := c.I32("location")
			out = append(out, directoryFile{path: dir + name, location: loc, at: at})
		}
	}
	return out
}

// bool32 reads a bool as the engine serializes it: a uint32 that must be
// 0 or 1.
func bool32(c *binio.Cursor, what string) bool {
	at := c.Pos()
	v := c.U32(what)
	if v > 1 {
		c.FailAt(at, what, fmt.Errorf("bool is %d, not 0 or 1", v))
	}
	return v == 1
}

// utf8String reads an FUtf8String: an int32 byte count, then that many
// bytes of UTF-8, without a terminating zero.
func utf8String(c *binio.Cursor, what string) string {
	at := c.Pos()
	n := c.I32(what + " length")
	if n < 0 {
		c.FailAt(at, what+" length", fmt.Errorf("negative length %d", n))
		return ""
	}
	b := c.Bytes(int(n), what)
	if c.Err() != nil {
		return ""
	}
	if !utf8.Valid(b) {
		c.FailAt(at, what, errors.New("not UTF-8"))
		return ""
	}
	return string(b)
}

// appendUTF8String appends s as an FUtf8String.
func appendUTF8String(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// PathHash returns the hash the path-hash index of a pak of version v
// stores for path (relative to the mount point) with the given seed: the
// 64-bit FNV-1a of the path's UTF-16LE code units after lower-casing
// ASCII letters, with the seed added to the offset basis (FPakFile::
// HashPath). Version 10 hashes with the offset basis and the prime
// swapped, a bug version 11 fixed.
func PathHash(path string, seed uint64, v Version) uint64 {
	const (
		offsetBasis = 0xcbf29ce484222325
		prime       = 0x00000100000001b3
	)
	basis, mul := uint64(offsetBasis), uint64(prime)
	if !v.HasFixedPathHash() {
		basis, mul = mul, basis
	}
	h := basis + seed
	for _, r := range path {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		var units [2]uint16
		u := units[:1]
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			units[0], units[1] = uint16(r1), uint16(r2)
			u = units[:2]
		} else {
			units[0] = uint16(r)
		}
		for _, x := range u {
			h = (h ^ uint64(x&0xFF)) * mul
			h = (h ^ uint64(x>>8)) * mul
		}
	}
	return h
}

// CheckIndex cross-checks the indexes of a version 10+ pak: every file of
// the full directory index must be in the path-hash index, under the hash
// of its path, with the same location, and both must list as many files
// as the primary index counts. Engines read one index or the other depending on their
// settings, so a pak whose indexes disagree loads differently from game to
// game. For older paks it returns nil.
func (p *Reader) CheckIndex() error {
	if !p.Footer.Version.HasPathHashIndex() || !p.HasPathHashIndex || !p.HasFullDirectoryIndex {
		return nil
	}
	byHash := make(map[uint64]int32, len(p.pathHashes))
	for _, h := range p.pathHashes {
		byHash[h.hash] = h.location
	}
	for _, f := range p.Files {
		h := PathHash(f.Path, p.PathHashSeed, p.Footer.Version)
		loc, ok := byHash[h]
		switch {
		case !ok:
			return errorf(p.Name, "path hash index", -1, ErrCorrupt, "has no hash 0x%016X for %q, which the full directory index lists: %v", h, f.Path, ErrCorrupt)
		case loc != p.locations[f]:
			return errorf(p.Name, "path hash index", -1, ErrCorrupt, "gives %q location %d, the full directory index %d: %v", f.Path, loc, p.locations[f], ErrCorrupt)
		}
	}
	if p.flatHashes != nil {
		flat := make(map[uint64]int32, len(p.flatHashes))
		for _, h := range p.flatHashes {
			flat[h.hash] = h.location
		}
		for _, f := range p.Files {
			h := PathHash(f.Path, p.PathHashSeed, p.Footer.Version)
			if loc, ok := flat[h]; !ok || loc != p.locations[f] {
				return errorf(p.Name, "full directory index hash table", -1, ErrCorrupt, "has no hash 0x%016X with location %d for %q: %v", h, p.locations[f], f.Path, ErrCorrupt)
			}
		}
		if len(p.flatHashes) != len(p.Files) {
			return errorf(p.Name, "full directory index hash table", -1, ErrCorrupt, "lists %d hashes for %d files: %v", len(p.flatHashes), len(p.Files), ErrCorrupt)
		}
	}
	if len(p.pathHashes) != len(p.Files) {
		return errorf(p.Name, "path hash index", -1, ErrCorrupt, "lists %d files, the full directory index %d: %v", len(p.pathHashes), len(p.Files), ErrCorrupt)
	}
	if p.numEntries != int64(len(p.Files)) {
		return errorf(p.Name, "index", p.Footer.IndexOffset, ErrCorrupt, "counts %d entries, the secondary indexes list %d: %v", p.numEntries, len(p.Files), ErrCorrupt)
	}
	return nil
}

// asciiLower lower-cases the ASCII letters of s, as the engine does for
// path lookups.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
