// Package iostorebuild lays out small IoStore containers (.utoc + .ucas)
// from given chunks, following the format rules in the project's IoStore
// notes, so that tests can read layouts the public corpus lacks: 4.26/4.27
// containers (TOC versions 2 and 3, the 4.2x chunk-type table, 33-byte SHA-1
// metas), LZ4 and Gzip blocks, AES encryption and partitions. It is a test
// builder, not the container writer: it supports what the tests need and
// writes no signatures and no perfect-hash seeds. It lays out the blocks and
// the model; the bytes of the .utoc and of the directory index come from
// package iostore's encoders (TOC.AppendBinary, DirectoryIndex.AppendBinary).
package iostorebuild

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/pierrec/lz4/v4"
	"github.com/zeebo/blake3"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// Chunk is one chunk to store.
type Chunk struct {
	ID   iostore.ChunkID
	Path string // path under the mount point; "" keeps it out of the directory index
	Data []byte
	// Raw stores the chunk uncompressed whatever the container's method, as
	// the cooker does for the container header and memory-mapped data.
	Raw          bool
	MemoryMapped bool
	// Blocks, when set, are the chunk's blocks exactly as stored, one per
	// BlockSize bytes of Data, compressed with the container's method by
	// the caller: tests use it to store particular streams (or broken
	// ones). Data still gives the sizes and the chunk-meta hash.
	Blocks [][]byte
}

// Container describes the container to build.
type Container struct {
	Version     iostore.TocVersion
	ContainerID uint64
	MountPoint  string // e.g. "../../../Maine/Content/"
	BlockSize   uint32 // 0 means 65536
	// Method is the compression method of every block: "" or "None",
	// "Zlib", "Gzip" or "LZ4" (raw LZ4 blocks, what the engine decodes).
	// A block that does not shrink is stored uncompressed, as the engine
	// does.
	Method  string
	Key     *iostore.Key // encrypt blocks and the directory index (AES-256-ECB)
	KeyGUID iostore.GUID
	// PartitionSize splits the .ucas into partitions of at most this many
	// bytes; 0 keeps one partition.
	PartitionSize uint64
	Chunks        []Chunk
}

// Build lays the container out and returns the .utoc bytes and one byte
// slice per .ucas partition.
func (b *Container) Build() (toc []byte, cas [][]byte, err error) {
	v := b.Version
	if !v.Known() {
		return nil, nil, fmt.Errorf("TOC version %d is not supported", v)
	}
	bs := uint64(b.BlockSize)
	if bs == 0 {
		bs = 0x10000
	}
	var methods []string
	if b.Method != "" && !strings.EqualFold(b.Method, "None") {
		methods = []string{b.Method}
	}
	var (
		blocks []iostore.CompressionBlock
		parts  = [][]byte{nil}
		offlen []iostore.OffsetLength
		metas  []iostore.ChunkMeta
		u      uint64 // running virtual offset
	)
	for ci, ch := range b.Chunks {
		meta := iostore.ChunkMeta{}
		sum := chunkHash(v, ch.Data)
		copy(meta.Hash[:], sum)
		if ch.MemoryMapped {
			meta.Flags |= iostore.MetaMemoryMapped
		}
		offlen = append(offlen, iostore.OffsetLength{Offset: u, Length: uint64(len(ch.Data))})
		if nb := (len(ch.Data) + int(bs) - 1) / int(bs); ch.Blocks != nil && (len(ch.Blocks) != nb || len(methods) == 0) {
			return nil, nil, fmt.Errorf("chunk %d: %d stored blocks for %d blocks of method %q", ci, len(ch.Blocks), nb, b.Method)
		}
		for start := 0; start < len(ch.Data); start += int(bs) {
			raw := ch.Data[start:min(len(ch.Data), start+int(bs))]
			stored, method := raw, uint8(0)
			if ch.Blocks != nil {
				stored, method = ch.Blocks[start/int(bs)], 1
				meta.Flags |= iostore.MetaCompressed
			} else if len(methods) > 0 && !ch.Raw {
				c, err := compress(methods[0], raw)
				if err != nil {
					return nil, nil, fmt.Errorf("chunk %d: %w", ci, err)
				}
				if len(c) < len(raw) {
					stored, method = c, 1
					meta.Flags |= iostore.MetaCompressed
				}
			}
			padded := pad16(stored)
			if b.Key != nil {
				if err := iostore.EncryptECB(*b.Key, padded); err != nil {
					return nil, nil, err
				}
			}
			p := len(parts) - 1
			if b.PartitionSize > 0 && uint64(len(parts[p])+len(padded)) > b.PartitionSize {
				if len(parts[p]) == 0 {
					return nil, nil, fmt.Errorf("a %d-byte block does not fit in a %d-byte partition", len(padded), b.PartitionSize)
				}
				parts = append(parts, nil)
				p++
			}
			off := uint64(len(parts[p]))
			if b.PartitionSize > 0 {
				off += uint64(p) * b.PartitionSize
			}
			parts[p] = append(parts[p], padded...)
			blocks = append(blocks, iostore.CompressionBlock{Offset: off, CompressedSize: uint32(len(stored)), UncompressedSize: uint32(len(raw)), Method: method})
		}
		u += (uint64(len(ch.Data)) + bs - 1) / bs * bs
		metas = append(metas, meta)
	}

	index, err := b.directoryIndex()
	if err != nil {
		return nil, nil, err
	}
	flags := iostore.ContainerFlags(0)
	if len(methods) > 0 {
		flags |= iostore.FlagCompressed
	}
	if b.Key != nil {
		flags |= iostore.FlagEncrypted
	}
	if index != nil {
		flags |= iostore.FlagIndexed
	}
	t := &iostore.TOC{
		Header: iostore.Header{
			Version:              v,
			CompressionBlockSize: uint32(bs),
			ContainerID:          zen.ContainerID(b.ContainerID),
			EncryptionKeyGUID:    b.KeyGUID,
			ContainerFlags:       flags,
		},
		OffsetLengths:  offlen,
		Metas:          metas,
		Blocks:         blocks,
		Methods:        methods,
		DirectoryIndex: index,
	}
	if v.HasPartitions() {
		t.Header.PartitionCount = uint32(len(parts))
		t.Header.PartitionSize = math.MaxUint64
		if b.PartitionSize > 0 {
			t.Header.PartitionSize = b.PartitionSize
		}
	}
	for _, ch := range b.Chunks {
		t.ChunkIDs = append(t.ChunkIDs, ch.ID)
	}
	out, err := t.AppendBinary(nil)
	if err != nil {
		return nil, nil, err
	}
	return out, parts, nil
}

// WriteFiles builds the container and writes NAME.utoc, NAME.ucas and, for
// partitions, NAME_s<i>.ucas into dir. It returns the .utoc path.
func (b *Container) WriteFiles(dir, name string) (string, error) {
	toc, cas, err := b.Build()
	if err != nil {
		return "", err
	}
	utoc := filepath.Join(dir, name+".utoc")
	if err := os.WriteFile(utoc, toc, 0o644); err != nil {
		return "", err
	}
	for i, p := range cas {
		if err := os.WriteFile(iostore.PartitionPath(utoc, i), p, 0o644); err != nil {
			return "", err
		}
	}
	return utoc, nil
}

// chunkHash is the chunk-meta hash of the TOC version: SHA-1 for 4.2x,
// BLAKE3-160 for UE5 (version 4 included).
func chunkHash(v iostore.TocVersion, data []byte) []byte {
	if v.ChunkHash() == iostore.HashSHA1 {
		s := sha1.Sum(data)
		return s[:]
	}
	s := blake3.Sum256(data)
	return s[:20]
}

// compress encodes one block with the named method.
func compress(method string, raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	switch strings.ToLower(method) {
	case "zlib":
		w := zlib.NewWriter(&buf)
		w.Write(raw)
		if err := w.Close(); err != nil {
			return nil, err
		}
	case "gzip":
		w := gzip.NewWriter(&buf)
		w.Write(raw)
		if err := w.Close(); err != nil {
			return nil, err
		}
	case "lz4":
		dst := make([]byte, lz4.CompressBlockBound(len(raw)))
		n, err := lz4.CompressBlock(raw, dst, nil)
		if err != nil {
			return nil, err
		}
		if n == 0 { // incompressible
			return raw, nil
		}
		return dst[:n], nil
	default:
		return nil, fmt.Errorf("the builder cannot compress with %q", method)
	}
	return buf.Bytes(), nil
}

// pad16 returns a copy of b padded to a multiple of 16 with the engine's
// rule: the pad repeats the block from its start.
func pad16(b []byte) []byte {
	n := (len(b) + 15) &^ 15
	out := make([]byte, n)
	copy(out, b)
	for i := len(b); i < n; i++ {
		out[i] = b[(i-len(b))%len(b)]
	}
	return out
}

// directoryIndex serializes the directory index of the chunks with a path
// (padded and encrypted when the container has a key), or nil when no
// chunk has one. The tree is the builder's own layout, not the engine
// writer's (see iostore.NewDirectoryIndex): paths in sorted order, each new
// directory and file appended to its list, names in order of first use.
// The shipped demo containers were made with it.
func (b *Container) directoryIndex() ([]byte, error) {
	if !b.Version.HasDirectoryIndex() {
		return nil, nil
	}
	type named struct {
		path  string
		chunk int
	}
	var list []named
	for i, ch := range b.Chunks {
		if ch.Path != "" {
			list = append(list, named{ch.Path, i})
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].path < list[j].path })
	const no = iostore.NoEntry
	x := &iostore.DirectoryIndex{
		MountPoint:       b.MountPoint,
		DirectoryEntries: []iostore.DirectoryEntry{{Name: no, FirstChild: no, NextSibling: no, FirstFile: no}},
	}
	var (
		strIdx  = map[string]uint32{}
		lastDir = map[uint32]uint32{} // last child of each directory, to append in order
		lastFil = map[uint32]uint32{}
	)
	str := func(s string) uint32 {
		i, ok := strIdx[s]
		if !ok {
			i = uint32(len(x.StringTable))
			strIdx[s] = i
			x.StringTable = append(x.StringTable, s)
		}
		return i
	}
	for _, n := range list {
		parts := strings.Split(n.path, "/")
		d := uint32(0)
		for _, p := range parts[:len(parts)-1] {
			found := no
			for c := x.DirectoryEntries[d].FirstChild; c != no; c = x.DirectoryEntries[c].NextSibling {
				if x.StringTable[x.DirectoryEntries[c].Name] == p {
					found = c
					break
				}
			}
			if found == no {
				found = uint32(len(x.DirectoryEntries))
				x.DirectoryEntries = append(x.DirectoryEntries, iostore.DirectoryEntry{Name: str(p), FirstChild: no, NextSibling: no, FirstFile: no})
				if last, ok := lastDir[d]; ok {
					x.DirectoryEntries[last].NextSibling = found
				} else {
					x.DirectoryEntries[d].FirstChild = found
				}
				lastDir[d] = found
			}
			d = found
		}
		f := uint32(len(x.FileEntries))
		x.FileEntries = append(x.FileEntries, iostore.FileEntry{Name: str(parts[len(parts)-1]), NextFile: no, UserData: uint32(n.chunk)})
		if last, ok := lastFil[d]; ok {
			x.FileEntries[last].NextFile = f
		} else {
			x.DirectoryEntries[d].FirstFile = f
		}
		lastFil[d] = f
	}
	out, err := x.AppendBinary(nil)
	if err != nil {
		return nil, err
	}
	if b.Key != nil {
		out = pad16(out)
		if err := iostore.EncryptECB(*b.Key, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ContainerHeader427 encodes a UE 4.26/4.27 container header (no magic, no
// version) with 32-byte store entries, an empty name batch and no cultures
// or redirects.
func ContainerHeader427(containerID uint64, entries []zen.StoreEntry) []byte {
	h := &zen.ContainerHeader{Version: zen.HeaderUE4, ContainerID: zen.ContainerID(containerID), Packages: entries}
	b, err := h.Encode()
	if err != nil {
		panic(err) // a 4.27 header of plain entries always encodes
	}
	return b
}
