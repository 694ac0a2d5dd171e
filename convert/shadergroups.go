package convert

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// Shader groups: the ShaderCode chunks of an IoStore shader library. The
// packer (IoStoreUtilities.cpp, ConvertToIoStoreShaderLibrary; in UE 5.8
// IoStoreShaderLibraryProcessor.cpp) reads each group's shaders from the
// .ushaderbytecode in group order, decompresses each one stored
// compressed (Size ≠ UncompressedSize) with Oodle
// (ShaderCodeArchive::DecompressShaderWithOodle: "Iostore always
// compresses with Oodle") and copies the others, then compresses the whole
// group with Oodle (the -ShaderOodleCompressor and -ShaderOodleLevel
// arguments, Mermaid and Normal by default) and keeps the compressed bytes
// only when they are shorter than the group; otherwise the group is
// stored raw and its CompressedSize is its UncompressedSize. The game
// reads a group back the same way: Oodle when the sizes differ, a copy
// when they are equal.

// ErrOodleRequired means a shader of a library is stored Oodle-compressed
// and no decompressor was given: building its group needs the game's own
// Oodle library (ue/oodle). It matches ErrNotConvertible.
var ErrOodleRequired = ue.NewSentinel("shader code is Oodle-compressed: the game's Oodle library is needed", ErrNotConvertible)

// maxShaderGroupBytes bounds a group's uncompressed size: a shader's
// offset in its group is a 30-bit field of the library header.
const maxShaderGroupBytes = 1 << 30

// maxShaderRatio and minShaderBound bound what a compressed shader may
// claim to decompress to before the memory for it is taken: the larger of
// minShaderBound and maxShaderRatio times its stored size. Compiled
// shader code (DXIL, SPIR-V, Metal) compresses by a few times; a claim
// beyond this is a damaged library, not a shader. It is unrmod's bound,
// not the engine's.
const (
	maxShaderRatio = 1024
	minShaderBound = 64 << 10
)

// ShaderLibraryOptions are the choices of NewZenShaderLibrary.
type ShaderLibraryOptions struct {
	// Decompress decodes one Oodle-compressed shader (the game's Oodle
	// library: oodle.Library.Decompress). Nil: a group holding a
	// compressed shader is refused with ErrOodleRequired.
	Decompress ue.Decompressor
	// Compress compresses a whole group (the engine's default is Oodle
	// Mermaid at level Normal: a closure over oodle.Library.Compress).
	// Nil: every group is stored raw, which the game reads too.
	Compress ue.Compressor
	// MaxGroupSize is r.ShaderCodeLibrary.MaxShaderGroupSize; 0 means
	// MaxShaderGroupSize (1 MiB), the engine's default.
	MaxGroupSize uint32
}

// codeReader reads the stored bytes of a shader of a library.
type codeReader struct {
	file  string
	r     io.ReaderAt
	start int64 // file offset of the code
	size  int64 // bytes of code the file holds
}

// read fills buf with shader s's stored bytes c.Size at c.Offset, refusing
// a range outside the code.
func (cr codeReader) read(buf []byte, s uint32, c ShaderCodeEntry) error {
	if err := cr.inRange(s, c); err != nil {
		return err
	}
	if _, err := cr.r.ReadAt(buf, cr.start+int64(c.Offset)); err != nil && !(errors.Is(err, io.EOF) && c.Offset+uint64(c.Size) == uint64(cr.size)) {
		return ue.Errorf(cr.file, fmt.Sprintf("shader %d", s), cr.start+int64(c.Offset), ue.ErrCorrupt, "reading its %d bytes of code: %v", c.Size, err)
	}
	return nil
}

// inRange refuses shader s when its stored range is not in the code.
func (cr codeReader) inRange(s uint32, c ShaderCodeEntry) error {
	if c.Offset > uint64(cr.size) || uint64(c.Size) > uint64(cr.size)-c.Offset {
		return ue.Errorf(cr.file, fmt.Sprintf("shader %d", s), cr.start+int64(min(c.Offset, uint64(cr.size))), ue.ErrCorrupt,
			"its code (%d bytes at code offset 0x%X) lies outside the %d bytes of code the file holds", c.Size, c.Offset, cr.size)
	}
	return nil
}

// buildGroup appends the uncompressed bytes of group g of z, made from
// a's header, to dst[:0]: each shader's code read through cr, decompressed
// with dec when stored compressed. scratch holds a compressed shader.
func buildGroup(cr codeReader, a *ShaderArchive, z *ZenShaderArchive, g int, dec ue.Decompressor, dst []byte, scratch *[]byte) ([]byte, error) {
	if g < 0 || g >= len(z.Groups) {
		return nil, ue.Errorf(cr.file, fmt.Sprintf("shader group %d", g), -1, ue.ErrCorrupt, "the header has %d groups", len(z.Groups))
	}
	if len(z.Shaders) != len(a.Shaders) {
		return nil, ue.Errorf(cr.file, "shader library header", -1, ue.ErrCorrupt, "%d shaders, the library %d: the header was not made from this library", len(z.Shaders), len(a.Shaders))
	}
	e := z.Groups[g]
	where := fmt.Sprintf("shader group %d", g)
	if e.UncompressedSize > maxShaderGroupBytes {
		return nil, ue.Errorf(cr.file, where, -1, ue.ErrCorrupt, "%d bytes: more than a group can address (1 GiB)", e.UncompressedSize)
	}
	if uint64(e.ShaderIndicesOffset)+uint64(e.NumShaders) > uint64(len(z.ShaderIndices)) {
		return nil, ue.Errorf(cr.file, where, -1, ue.ErrCorrupt, "its shaders (%d from %d) lie outside the %d shader indices", e.NumShaders, e.ShaderIndicesOffset, len(z.ShaderIndices))
	}
	out := dst[:0]
	for _, s := range z.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
		if int64(s) >= int64(len(a.Shaders)) {
			return nil, ue.Errorf(cr.file, where, -1, ue.ErrCorrupt, "shader %d of %d", s, len(a.Shaders))
		}
		c, zs := a.Shaders[s], z.Shaders[s]
		pos := uint64(len(out))
		if zs.Group != uint32(g) || uint64(zs.OffsetInGroup) != pos || pos+uint64(c.UncompressedSize) > uint64(e.UncompressedSize) {
			return nil, ue.Errorf(cr.file, fmt.Sprintf("shader %d", s), -1, ue.ErrCorrupt,
				"the header puts it in group %d at %d; in group %d's order it lies at %d, %d bytes, in a group of %d bytes", zs.Group, zs.OffsetInGroup, g, pos, c.UncompressedSize, e.UncompressedSize)
		}
		if c.Size == c.UncompressedSize {
			if err := cr.inRange(s, c); err != nil { // before taking memory for it
				return nil, err
			}
			out = slices.Grow(out, int(c.Size))[:pos+uint64(c.Size)]
			if err := cr.read(out[pos:], s, c); err != nil {
				return nil, err
			}
			continue
		}
		if dec == nil {
			return nil, ue.Errorf(cr.file, fmt.Sprintf("shader %d", s), cr.start+int64(min(c.Offset, uint64(cr.size))), ErrOodleRequired,
				"its code is Oodle-compressed (%d bytes for %d); give the game's Oodle library to convert the library", c.Size, c.UncompressedSize)
		}
		if c.Size == 0 || c.UncompressedSize == 0 || uint64(c.UncompressedSize) > max(minShaderBound, maxShaderRatio*uint64(c.Size)) {
			return nil, ue.Errorf(cr.file, fmt.Sprintf("shader %d", s), -1, ue.ErrCorrupt, "stored as %d bytes for %d: no shader code compresses so", c.Size, c.UncompressedSize)
		}
		// The stored range is checked before any allocation for it.
		if err := cr.inRange(s, c); err != nil {
			return nil, err
		}
		if cap(*scratch) < int(c.Size) {
			*scratch = make([]byte, c.Size)
		}
		comp := (*scratch)[:c.Size]
		if err := cr.read(comp, s, c); err != nil {
			return nil, err
		}
		out = slices.Grow(out, int(c.UncompressedSize))[:pos+uint64(c.UncompressedSize)]
		if err := dec(out[pos:], comp); err != nil {
			return nil, ue.Errorf(cr.file, fmt.Sprintf("shader %d", s), cr.start+int64(c.Offset), errors.Join(ue.ErrCorrupt, err),
				"its %d bytes do not decompress to the %d the library gives: %v", c.Size, c.UncompressedSize, err)
		}
	}
	if uint64(len(out)) != uint64(e.UncompressedSize) {
		return nil, ue.Errorf(cr.file, where, -1, ue.ErrCorrupt, "its shaders hold %d bytes, the header gives %d", len(out), e.UncompressedSize)
	}
	return out, nil
}

// memReader is an io.ReaderAt over a byte slice.
type memReader []byte

func (m memReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// ShaderGroupData returns the uncompressed contents of group g of z made
// from a (the library z was made from): its shaders' code in group order.
// A shader stored compressed (Size ≠ UncompressedSize) is refused with
// ErrOodleRequired, which matches ErrNotConvertible; ShaderGroupDataOodle
// decompresses it. Code outside a.Code is refused with ue.ErrCorrupt.
func ShaderGroupData(a *ShaderArchive, z *ZenShaderArchive, g int) ([]byte, error) {
	return ShaderGroupDataOodle(a, z, g, nil)
}

// ShaderGroupDataOodle is ShaderGroupData decompressing the shaders stored
// compressed with dec (the game's Oodle library); dec nil refuses them.
func ShaderGroupDataOodle(a *ShaderArchive, z *ZenShaderArchive, g int, dec ue.Decompressor) ([]byte, error) {
	var scratch []byte
	cr := codeReader{file: "shader library", r: memReader(a.Code), size: int64(len(a.Code)), start: 0}
	return buildGroup(cr, a, z, g, dec, nil, &scratch)
}

// ZenShaderLibrary is a pak-era shader library (.ushaderbytecode) read
// from a file and being turned into its IoStore form: the library header
// (Zen, the ShaderCodeLibrary chunk) and one ShaderCode chunk per group,
// made one group at a time so that memory follows a group (about
// MaxGroupSize, plus one compressed shader), not the library.
//
// Order of use: build every group with Group and write it (ShaderCode
// chunk GroupChunkID(g)), then write the header EncodeHeader returns
// (ShaderCodeLibrary chunk LibraryChunkID): Group sets the group's
// compressed size in Zen, so the header is complete only once every group
// has been built, and EncodeHeader refuses it before.
type ZenShaderLibrary struct {
	// File is the library's file name, used in errors.
	File string
	// Library and Format are the names the engine takes from the file
	// name (ShaderLibraryName), Format the one given when it was.
	Library, Format string
	// Archive is the library's header; its Code is nil (the code stays in
	// the file).
	Archive *ShaderArchive
	// Zen is the IoStore header ShaderArchiveToZen makes from Archive.
	// Groups[g].CompressedSize is set when group g is built.
	Zen *ZenShaderArchive

	cr    codeReader
	opts  ShaderLibraryOptions
	built []bool
}

// NewZenShaderLibrary reads the header of the .ushaderbytecode file named
// file, size bytes read through r (only the header is read now; group
// building reads each shader's range), and makes its IoStore header with
// ShaderArchiveToZen for format, the shader format the engine hashes
// into group chunk ids. An empty format takes the one of the file name
// (ShaderLibraryName). opts may be nil: groups are then stored raw and
// compressed shaders refused.
func NewZenShaderLibrary(r io.ReaderAt, size int64, file, format string, opts *ShaderLibraryOptions) (*ZenShaderLibrary, error) {
	l := &ZenShaderLibrary{File: file}
	if opts != nil {
		l.opts = *opts
	}
	lib, f, ok := ShaderLibraryName(file)
	if ok {
		l.Library = lib
	}
	if format == "" {
		if !ok {
			return nil, ue.Errorf(file, "shader library name", -1, ErrNotConvertible,
				"the file name does not give the library and shader format (ShaderArchive-<Library>-<Format>.ushaderbytecode): give the format")
		}
		format = f
	}
	l.Format = format
	hlen, err := shaderHeaderSize(r, size, file)
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, hlen)
	if _, err := r.ReadAt(hdr, 0); err != nil && !(errors.Is(err, io.EOF) && hlen == size) {
		return nil, ue.Errorf(file, "shader library header", 0, ue.ErrCorrupt, "reading its %d bytes: %v", hlen, err)
	}
	if l.Archive, err = DecodeShaderArchive(file, hdr); err != nil {
		return nil, err
	}
	if l.Zen, err = shaderArchiveToZen(file, l.Archive, format, l.opts.MaxGroupSize); err != nil {
		return nil, err
	}
	l.cr = codeReader{file: file, r: r, start: hlen, size: size - hlen}
	l.built = make([]bool, len(l.Zen.Groups))
	return l, nil
}

// shaderHeaderSize walks the counts of a .ushaderbytecode header through
// r and returns its size, checking each array against the bytes left.
func shaderHeaderSize(r io.ReaderAt, size int64, file string) (int64, error) {
	pos := int64(4) // version
	for _, a := range [...]struct {
		what string
		elem int64
	}{{"shader map hashes", 20}, {"shader hashes", 20}, {"shader map entries", 16}, {"shader entries", 17}, {"preload entries", 16}, {"shader indices", 4}} {
		var b [4]byte
		if pos+4 > size {
			return 0, ue.Errorf(file, a.what+" count", pos, ue.ErrCorrupt, "the file ends at 0x%X", size)
		}
		if _, err := r.ReadAt(b[:], pos); err != nil && !(errors.Is(err, io.EOF) && pos+4 == size) {
			return 0, ue.Errorf(file, a.what+" count", pos, ue.ErrCorrupt, "%v", err)
		}
		n := int64(binary.LittleEndian.Uint32(b[:]))
		pos += 4
		if n*a.elem > size-pos {
			return 0, ue.Errorf(file, a.what, pos, ue.ErrCorrupt, "%d entries of %d bytes; %d bytes remain", n, a.elem, size-pos)
		}
		pos += n * a.elem
	}
	return pos, nil
}

// GroupChunkID returns the ShaderCode chunk id of group g (an index of
// Zen.Groups, as for the other methods).
func (l *ZenShaderLibrary) GroupChunkID(g int) iostore.ChunkID {
	return iostore.ChunkID(l.Zen.GroupChunkIDs[g])
}

// LibraryChunkID returns the ShaderCodeLibrary chunk id of the library,
// cityhash.ShaderLibraryID(Library, Format), as TOC version v lays it
// out. It fails when the file name did not give a library name.
func (l *ZenShaderLibrary) LibraryChunkID(v iostore.TocVersion) (iostore.ChunkID, error) {
	if l.Library == "" {
		return iostore.ChunkID{}, ue.Errorf(l.File, "shader library name", -1, ErrNotConvertible,
			"the file name does not give the library name (ShaderArchive-<Library>-<Format>.ushaderbytecode) the chunk id hashes")
	}
	return ShaderLibraryChunkID(l.Library, l.Format, v)
}

// GroupLoadOrder returns the engine's load order factor of group g, the
// smallest index of its shaders, by which the packer orders ShaderCode
// chunks (the smaller, the earlier).
func (l *ZenShaderLibrary) GroupLoadOrder(g int) uint32 {
	e := l.Zen.Groups[g]
	if e.NumShaders == 0 {
		return 0
	}
	return slices.Min(l.Zen.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders])
}

// Group returns the stored bytes of group g (its ShaderCode chunk),
// appended to dst[:0]: its shaders' uncompressed code in group order,
// Oodle-compressed with Compress when that is shorter, as the packer
// does, raw otherwise. It sets Zen.Groups[g].CompressedSize to the
// length returned. Group may be called from several goroutines at once
// for different groups.
func (l *ZenShaderLibrary) Group(g int, dst []byte) ([]byte, error) {
	var scratch []byte
	if l.opts.Compress == nil {
		raw, err := buildGroup(l.cr, l.Archive, l.Zen, g, l.opts.Decompress, dst, &scratch)
		if err != nil {
			return nil, err
		}
		l.done(g, len(raw))
		return raw, nil
	}
	raw, err := buildGroup(l.cr, l.Archive, l.Zen, g, l.opts.Decompress, nil, &scratch)
	if err != nil {
		return nil, err
	}
	out := dst[:0]
	if len(raw) > 0 {
		where := fmt.Sprintf("shader group %d", g)
		comp, err := l.opts.Compress(dst[:0], raw)
		if err != nil {
			return nil, ue.Errorf(l.File, where, -1, ErrNotConvertible, "compressing its %d bytes: %v", len(raw), err)
		}
		if len(comp) == 0 {
			return nil, ue.Errorf(l.File, where, -1, ErrNotConvertible, "the compressor returned nothing for its %d bytes", len(raw))
		}
		if len(comp) < len(raw) {
			out = comp
		} else {
			out = append(comp[:0], raw...)
		}
	}
	l.done(g, len(out))
	return out, nil
}

// done records that group g is built, stored as n bytes.
func (l *ZenShaderLibrary) done(g, n int) {
	l.Zen.Groups[g].CompressedSize = uint32(n)
	l.built[g] = true
}

// EncodeHeader returns the library header (the ShaderCodeLibrary chunk).
// It refuses while a group has not been built, since the header records
// each group's stored size.
func (l *ZenShaderLibrary) EncodeHeader() ([]byte, error) {
	if g := slices.Index(l.built, false); g >= 0 {
		return nil, ue.Errorf(l.File, fmt.Sprintf("shader group %d", g), -1, ErrNotConvertible,
			"not built yet: build every group (Group) before writing the header, which records their stored sizes")
	}
	return l.Zen.Encode(), nil
}
