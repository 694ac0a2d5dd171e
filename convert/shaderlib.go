package convert

import (
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// Shader libraries: a pak-era game ships its shader code in a
// .ushaderbytecode file (FSerializedShaderArchive and the code after it); an
// IoStore game ships a ShaderCodeLibrary chunk (the library header,
// FIoStoreShaderCodeArchiveHeader) and one ShaderCode chunk per group of
// shaders. docs/convert.md §8 gives the layouts and the engine's rules.

// ShaderHash is a shader's or shader map's SHA-1.
type ShaderHash [20]byte

// ShaderMapEntry is a shader map of a pak-era library: its shaders are
// ShaderIndices[ShaderIndicesOffset:+NumShaders], its preload ranges
// PreloadEntries[FirstPreloadIndex:+NumPreloadEntries].
type ShaderMapEntry struct {
	ShaderIndicesOffset, NumShaders      uint32
	FirstPreloadIndex, NumPreloadEntries uint32
}

// ShaderCodeEntry is a shader of a pak-era library: its code is
// Code[Offset:+Size], compressed when Size differs from UncompressedSize.
type ShaderCodeEntry struct {
	Offset           uint64
	Size             uint32
	UncompressedSize uint32
	Frequency        uint8
}

// PreloadEntry is a range of the code a shader map preloads.
type PreloadEntry struct{ Offset, Size int64 }

// ShaderArchiveVersion is the version of the .ushaderbytecode files ShaderArchive reads.
const ShaderArchiveVersion = 2

// ShaderArchive is a pak-era shader code library (.ushaderbytecode).
type ShaderArchive struct {
	ShaderMapHashes []ShaderHash
	ShaderHashes    []ShaderHash
	ShaderMaps      []ShaderMapEntry
	Shaders         []ShaderCodeEntry
	Preloads        []PreloadEntry
	ShaderIndices   []uint32
	// Code is what follows the header: the shaders' code. A library
	// whose code was cut off holds less than the shaders name; its header
	// still converts (ShaderGroupData refuses the groups it lacks).
	Code []byte
}

func shaderError(file, structure string, off int64, format string, args ...any) error {
	return ue.Errorf(file, structure, off, ue.ErrCorrupt, format, args...)
}

// DecodeShaderArchive decodes a .ushaderbytecode file named file (used in
// errors): version 2, then the archive's arrays; the rest is Code. Counts
// are checked against the bytes that remain and every index against what
// it indexes.
func DecodeShaderArchive(file string, data []byte) (*ShaderArchive, error) {
	c := binio.NewCursor(data, 0)
	if v := c.U32("version"); c.Err() == nil && v != ShaderArchiveVersion {
		return nil, ue.Errorf(file, "shader library version", 0, ue.ErrUnsupportedVersion, "version %d; unrmod reads version %d", v, ShaderArchiveVersion)
	}
	a := &ShaderArchive{}
	a.ShaderMapHashes = readHashes(c, "shader map hashes")
	a.ShaderHashes = readHashes(c, "shader hashes")
	n := c.Count32("shader map entries", 16)
	a.ShaderMaps = make([]ShaderMapEntry, n)
	for i := range a.ShaderMaps {
		a.ShaderMaps[i] = ShaderMapEntry{c.U32("shader indices offset"), c.U32("shader count"), c.U32("first preload"), c.U32("preload count")}
	}
	n = c.Count32("shader entries", 17)
	a.Shaders = make([]ShaderCodeEntry, n)
	for i := range a.Shaders {
		a.Shaders[i] = ShaderCodeEntry{c.U64("code offset"), c.U32("code size"), c.U32("uncompressed size"), c.U8("frequency")}
	}
	n = c.Count32("preload entries", 16)
	a.Preloads = make([]PreloadEntry, n)
	for i := range a.Preloads {
		a.Preloads[i] = PreloadEntry{c.I64("preload offset"), c.I64("preload size")}
	}
	a.ShaderIndices = readIndices(c)
	if err := c.Err(); err != nil {
		return nil, cursorError(file, err)
	}
	a.Code = data[c.Pos():]
	if err := a.check(file); err != nil {
		return nil, err
	}
	return a, nil
}

func readHashes(c *binio.Cursor, what string) []ShaderHash {
	n := c.Count32(what, 20)
	h := make([]ShaderHash, n)
	for i := range h {
		copy(h[i][:], c.Bytes(20, what))
	}
	return h
}

func readIndices(c *binio.Cursor) []uint32 {
	n := c.Count32("shader indices", 4)
	ix := make([]uint32, n)
	for i := range ix {
		ix[i] = c.U32("shader index")
	}
	return ix
}

func cursorError(file string, err error) error {
	if what, off, msg, ok := binio.Describe(err); ok {
		return shaderError(file, what, off, "%s", msg)
	}
	return err
}

// check refuses indices out of range: a shader map's range of shader
// indices, a shader index, a preload range.
func (a *ShaderArchive) check(file string) error {
	if len(a.ShaderMapHashes) != len(a.ShaderMaps) || len(a.ShaderHashes) != len(a.Shaders) {
		return shaderError(file, "shader library", -1, "%d shader map hashes for %d shader maps, %d shader hashes for %d shaders", len(a.ShaderMapHashes), len(a.ShaderMaps), len(a.ShaderHashes), len(a.Shaders))
	}
	for i, m := range a.ShaderMaps {
		if uint64(m.ShaderIndicesOffset)+uint64(m.NumShaders) > uint64(len(a.ShaderIndices)) || uint64(m.FirstPreloadIndex)+uint64(m.NumPreloadEntries) > uint64(len(a.Preloads)) {
			return shaderError(file, fmt.Sprintf("shader map %d", i), -1, "its shaders (%d from %d) or preloads (%d from %d) lie outside the %d shader indices and %d preload entries",
				m.NumShaders, m.ShaderIndicesOffset, m.NumPreloadEntries, m.FirstPreloadIndex, len(a.ShaderIndices), len(a.Preloads))
		}
	}
	for k, s := range a.ShaderIndices {
		if int64(s) >= int64(len(a.Shaders)) {
			return shaderError(file, fmt.Sprintf("shader index %d", k), -1, "shader %d of %d", s, len(a.Shaders))
		}
	}
	return nil
}

// Encode writes the archive as DecodeShaderArchive reads it.
func (a *ShaderArchive) Encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, ShaderArchiveVersion)
	b = appendHashes(b, a.ShaderMapHashes)
	b = appendHashes(b, a.ShaderHashes)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.ShaderMaps)))
	for _, m := range a.ShaderMaps {
		b = appendU32s(b, m.ShaderIndicesOffset, m.NumShaders, m.FirstPreloadIndex, m.NumPreloadEntries)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.Shaders)))
	for _, s := range a.Shaders {
		b = binary.LittleEndian.AppendUint64(b, s.Offset)
		b = appendU32s(b, s.Size, s.UncompressedSize)
		b = append(b, s.Frequency)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.Preloads)))
	for _, p := range a.Preloads {
		b = binary.LittleEndian.AppendUint64(b, uint64(p.Offset))
		b = binary.LittleEndian.AppendUint64(b, uint64(p.Size))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.ShaderIndices)))
	b = appendU32s(b, a.ShaderIndices...)
	return append(b, a.Code...)
}

func appendHashes(b []byte, hs []ShaderHash) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(hs)))
	for _, h := range hs {
		b = append(b, h[:]...)
	}
	return b
}

func appendU32s(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// ZenShaderArchiveVersion is the version of the IoStore library header.
const ZenShaderArchiveVersion = 1

// ZenShaderMapEntry is a shader map of an IoStore library.
type ZenShaderMapEntry struct{ ShaderIndicesOffset, NumShaders uint32 }

// ZenShaderEntry is a shader of an IoStore library: its frequency, its
// group and where its uncompressed code starts in the group (packed in 64
// bits: 4, 30 and 30).
type ZenShaderEntry struct {
	Frequency     uint8
	Group         uint32
	OffsetInGroup uint32
}

// ShaderGroupEntry is a group of shaders stored in one ShaderCode chunk:
// its shaders are ShaderIndices[ShaderIndicesOffset:+NumShaders]; the
// chunk is stored compressed when CompressedSize differs from
// UncompressedSize.
type ShaderGroupEntry struct {
	ShaderIndicesOffset, NumShaders  uint32
	UncompressedSize, CompressedSize uint32
}

// ZenShaderArchive is an IoStore shader library header (the
// ShaderCodeLibrary chunk, .uzenshaderbytecode when saved as a file).
type ZenShaderArchive struct {
	ShaderMapHashes []ShaderHash
	ShaderHashes    []ShaderHash
	// GroupChunkIDs are the ShaderCode chunk ids of the groups (the
	// engine's ShaderGroupIoHashes).
	GroupChunkIDs [][12]byte
	ShaderMaps    []ZenShaderMapEntry
	Shaders       []ZenShaderEntry
	Groups        []ShaderGroupEntry
	ShaderIndices []uint32
}

// DecodeZenShaderArchive decodes an IoStore shader library header named
// file; nothing may follow it.
func DecodeZenShaderArchive(file string, data []byte) (*ZenShaderArchive, error) {
	c := binio.NewCursor(data, 0)
	if v := c.U32("version"); c.Err() == nil && v != ZenShaderArchiveVersion {
		return nil, ue.Errorf(file, "shader library version", 0, ue.ErrUnsupportedVersion, "version %d; unrmod reads version %d", v, ZenShaderArchiveVersion)
	}
	z := &ZenShaderArchive{}
	z.ShaderMapHashes = readHashes(c, "shader map hashes")
	z.ShaderHashes = readHashes(c, "shader hashes")
	n := c.Count32("shader group chunk ids", 12)
	z.GroupChunkIDs = make([][12]byte, n)
	for i := range z.GroupChunkIDs {
		copy(z.GroupChunkIDs[i][:], c.Bytes(12, "shader group chunk id"))
	}
	n = c.Count32("shader map entries", 8)
	z.ShaderMaps = make([]ZenShaderMapEntry, n)
	for i := range z.ShaderMaps {
		z.ShaderMaps[i] = ZenShaderMapEntry{c.U32("shader indices offset"), c.U32("shader count")}
	}
	n = c.Count32("shader entries", 8)
	z.Shaders = make([]ZenShaderEntry, n)
	for i := range z.Shaders {
		v := c.U64("shader entry")
		z.Shaders[i] = ZenShaderEntry{Frequency: uint8(v & 0xF), Group: uint32(v>>4) & (1<<30 - 1), OffsetInGroup: uint32(v>>34) & (1<<30 - 1)}
	}
	n = c.Count32("shader group entries", 16)
	z.Groups = make([]ShaderGroupEntry, n)
	for i := range z.Groups {
		z.Groups[i] = ShaderGroupEntry{c.U32("shader indices offset"), c.U32("shader count"), c.U32("uncompressed size"), c.U32("compressed size")}
	}
	z.ShaderIndices = readIndices(c)
	if err := c.Err(); err != nil {
		return nil, cursorError(file, err)
	}
	if c.Len() != 0 {
		return nil, shaderError(file, "shader library header", int64(c.Pos()), "%d bytes follow the header", c.Len())
	}
	if err := z.check(file); err != nil {
		return nil, err
	}
	return z, nil
}

func (z *ZenShaderArchive) check(file string) error {
	if len(z.ShaderMapHashes) != len(z.ShaderMaps) || len(z.ShaderHashes) != len(z.Shaders) || len(z.GroupChunkIDs) != len(z.Groups) {
		return shaderError(file, "shader library header", -1, "%d shader map hashes for %d shader maps, %d shader hashes for %d shaders, %d chunk ids for %d groups",
			len(z.ShaderMapHashes), len(z.ShaderMaps), len(z.ShaderHashes), len(z.Shaders), len(z.GroupChunkIDs), len(z.Groups))
	}
	for i, m := range z.ShaderMaps {
		if uint64(m.ShaderIndicesOffset)+uint64(m.NumShaders) > uint64(len(z.ShaderIndices)) {
			return shaderError(file, fmt.Sprintf("shader map %d", i), -1, "its shaders (%d from %d) lie outside the %d shader indices", m.NumShaders, m.ShaderIndicesOffset, len(z.ShaderIndices))
		}
	}
	for i, g := range z.Groups {
		if uint64(g.ShaderIndicesOffset)+uint64(g.NumShaders) > uint64(len(z.ShaderIndices)) {
			return shaderError(file, fmt.Sprintf("shader group %d", i), -1, "its shaders (%d from %d) lie outside the %d shader indices", g.NumShaders, g.ShaderIndicesOffset, len(z.ShaderIndices))
		}
	}
	for k, s := range z.ShaderIndices {
		if int64(s) >= int64(len(z.Shaders)) {
			return shaderError(file, fmt.Sprintf("shader index %d", k), -1, "shader %d of %d", s, len(z.Shaders))
		}
	}
	for i, s := range z.Shaders {
		if int64(s.Group) >= int64(len(z.Groups)) {
			return shaderError(file, fmt.Sprintf("shader %d", i), -1, "group %d of %d", s.Group, len(z.Groups))
		}
	}
	return nil
}

// Encode writes the header as DecodeZenShaderArchive reads it.
func (z *ZenShaderArchive) Encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, ZenShaderArchiveVersion)
	b = appendHashes(b, z.ShaderMapHashes)
	b = appendHashes(b, z.ShaderHashes)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(z.GroupChunkIDs)))
	for _, id := range z.GroupChunkIDs {
		b = append(b, id[:]...)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(z.ShaderMaps)))
	for _, m := range z.ShaderMaps {
		b = appendU32s(b, m.ShaderIndicesOffset, m.NumShaders)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(z.Shaders)))
	for _, s := range z.Shaders {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Frequency&0xF)|uint64(s.Group&(1<<30-1))<<4|uint64(s.OffsetInGroup&(1<<30-1))<<34)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(z.Groups)))
	for _, g := range z.Groups {
		b = appendU32s(b, g.ShaderIndicesOffset, g.NumShaders, g.UncompressedSize, g.CompressedSize)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(z.ShaderIndices)))
	return appendU32s(b, z.ShaderIndices...)
}

// MaxShaderGroupSize is the engine's default largest uncompressed size of
// a shader group (r.ShaderCodeLibrary.MaxShaderGroupSize, 1 MiB).
const MaxShaderGroupSize = 1 << 20

// shaderCodeChunkType is the chunk type byte of a ShaderCode chunk id.
const shaderCodeChunkType = 9

// raytracing reports whether a shader frequency is a ray-tracing one
// (SF_RayGen through SF_RayCallable: 6–9 in UE 5's EShaderFrequency).
// The packer keeps them in groups of their own only for the PCD3D_SM5
// format (FShaderCodeArchiveProcessor's bSeparateRaytracingShaders); the
// corpus's PCD3D_SM6 library confirms that its groups are not split so.
func raytracing(f uint8) bool { return f >= 6 && f <= 9 }

// ShaderArchiveToZen makes the IoStore header of a pak-era library as the
// UE 5.4 packer does (FIoStoreShaderCodeArchive::
// CreateIoStoreShaderCodeArchiveHeader): the hashes, shader maps and
// indices as they are; shaders grouped by the set of shader maps that use
// them (shaders used by fewer shader maps first, then by index), each set
// split (for PCD3D_SM5) into ray-tracing and other shaders and into groups
// of about maxGroup bytes (0: MaxShaderGroupSize; a set over it is dealt
// greedily, largest shader first, into size/maxGroup+1 groups), a group's
// shaders ordered by uncompressed size, stored size, frequency, offset; each group named by the SHA-1 of its shaders' hashes
// and sizes and the shader format (e.g. "PCD3D_SM6"); groups' shader lists
// found in the indices or appended to them. Each group's CompressedSize
// is its UncompressedSize (a group stored raw) until its stored bytes are
// made: ZenShaderLibrary.Group compresses it as the packer does and sets
// it. a is not modified.
func ShaderArchiveToZen(a *ShaderArchive, format string, maxGroup uint32) (*ZenShaderArchive, error) {
	return shaderArchiveToZen("shader library", a, format, maxGroup)
}

// shaderArchiveToZen is ShaderArchiveToZen naming file in its errors.
func shaderArchiveToZen(file string, a *ShaderArchive, format string, maxGroup uint32) (*ZenShaderArchive, error) {
	if maxGroup == 0 {
		maxGroup = MaxShaderGroupSize
	}
	if err := a.check(file); err != nil {
		return nil, err
	}
	z := &ZenShaderArchive{
		ShaderMapHashes: slices.Clone(a.ShaderMapHashes),
		ShaderHashes:    slices.Clone(a.ShaderHashes),
		ShaderIndices:   slices.Clone(a.ShaderIndices),
		ShaderMaps:      make([]ZenShaderMapEntry, len(a.ShaderMaps)),
		Shaders:         make([]ZenShaderEntry, len(a.Shaders)),
	}
	for i, m := range a.ShaderMaps {
		z.ShaderMaps[i] = ZenShaderMapEntry{m.ShaderIndicesOffset, m.NumShaders}
	}
	for i, s := range a.Shaders {
		z.Shaders[i].Frequency = s.Frequency
	}
	// The shader maps of each shader, in order.
	maps := make([][]int32, len(a.Shaders))
	for m, e := range a.ShaderMaps {
		for _, s := range a.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
			maps[s] = append(maps[s], int32(m))
		}
	}
	order := make([]int, len(a.Shaders))
	for s := range order {
		if len(maps[s]) == 0 {
			return nil, shaderError(file, fmt.Sprintf("shader %d", s), -1, "no shader map uses it (the engine refuses such a library)")
		}
		slices.Sort(maps[s])
		order[s] = s
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := cmp.Compare(len(maps[x]), len(maps[y])); c != 0 {
			return c
		}
		if c := slices.Compare(maps[x], maps[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})

	var groups [][]uint32
	add := func(g []uint32) {
		slices.SortFunc(g, a.shaderOrder)
		gi := uint32(len(z.Groups))
		h := sha1.New()
		var size uint32
		for _, s := range g {
			z.Shaders[s].Group, z.Shaders[s].OffsetInGroup = gi, size
			h.Write(a.ShaderHashes[s][:])
			h.Write(binary.LittleEndian.AppendUint32(nil, a.Shaders[s].UncompressedSize))
			size += a.Shaders[s].UncompressedSize
		}
		h.Write([]byte(format))
		var id [12]byte
		copy(id[:11], h.Sum(nil))
		id[11] = shaderCodeChunkType
		z.GroupChunkIDs = append(z.GroupChunkIDs, id)
		z.Groups = append(z.Groups, ShaderGroupEntry{NumShaders: uint32(len(g)), UncompressedSize: size, CompressedSize: size})
		groups = append(groups, g)
	}
	bySize := func(g []uint32) {
		var size uint64
		for _, s := range g {
			size += uint64(a.Shaders[s].UncompressedSize)
		}
		if size <= uint64(maxGroup) || len(g) == 1 {
			add(g)
			return
		}
		n := min(int(size/uint64(maxGroup)+1), len(g))
		slices.SortFunc(g, func(x, y uint32) int { return a.shaderOrder(y, x) })
		parts := make([][]uint32, n)
		sizes := make([]uint64, n)
		for _, s := range g {
			k := 0
			for j := 1; j < n; j++ {
				if sizes[j] < sizes[k] {
					k = j
				}
			}
			parts[k] = append(parts[k], s)
			sizes[k] += uint64(a.Shaders[s].UncompressedSize)
		}
		for _, p := range parts {
			if len(p) > 0 {
				add(p)
			}
		}
	}
	streak := func(g []uint32) {
		if format != "PCD3D_SM5" {
			bySize(g)
			return
		}
		var rt, other []uint32
		for _, s := range g {
			if raytracing(a.Shaders[s].Frequency) {
				rt = append(rt, s)
			} else {
				other = append(other, s)
			}
		}
		if len(other) > 0 {
			bySize(other)
		}
		if len(rt) > 0 {
			bySize(rt)
		}
	}
	var cur []uint32
	for k, s := range order {
		if k > 0 && !slices.Equal(maps[s], maps[order[k-1]]) {
			streak(cur)
			cur = nil
		}
		cur = append(cur, uint32(s))
	}
	if len(cur) > 0 {
		streak(cur)
	}
	for i, g := range groups {
		if at := findSequence(a.ShaderIndices, g); at >= 0 {
			z.Groups[i].ShaderIndicesOffset = uint32(at)
			continue
		}
		z.Groups[i].ShaderIndicesOffset = uint32(len(z.ShaderIndices))
		z.ShaderIndices = append(z.ShaderIndices, g...)
	}
	return z, nil
}

// shaderOrder orders shaders x and y as the packer does within a group:
// by uncompressed size, then stored size, then frequency, then code
// offset (a total order for the shaders of one library).
func (a *ShaderArchive) shaderOrder(x, y uint32) int {
	sx, sy := &a.Shaders[x], &a.Shaders[y]
	if c := cmp.Compare(sx.UncompressedSize, sy.UncompressedSize); c != 0 {
		return c
	}
	if c := cmp.Compare(sx.Size, sy.Size); c != 0 {
		return c
	}
	if c := cmp.Compare(sx.Frequency, sy.Frequency); c != 0 {
		return c
	}
	return cmp.Compare(sx.Offset, sy.Offset)
}

// findSequence returns where seq first occurs in all, or −1.
func findSequence(all, seq []uint32) int {
	for i := 0; i+len(seq) <= len(all); i++ {
		if all[i] == seq[0] && slices.Equal(all[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}
