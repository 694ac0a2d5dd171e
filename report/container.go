package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// ContainerInfo is the summary of an IoStore container: what `unrmod info`
// shows of a .utoc.
type ContainerInfo struct {
	File               string         `json:"file"`
	Kind               string         `json:"kind"` // always "iostore"
	TocVersion         TocVersion     `json:"toc_version"`
	ContainerID        string         `json:"container_id"`
	Flags              Flags          `json:"flags"`
	Encryption         string         `json:"encryption"`
	EncryptionKeyGUID  string         `json:"encryption_key_guid"`
	CompressionMethods []string       `json:"compression_methods"`
	BlockSize          uint32         `json:"block_size"`
	Partitions         Partitions     `json:"partitions"`
	Chunks             int            `json:"chunks"`
	ChunkTypes         map[string]int `json:"chunk_types"` // chunk count by type name
	Blocks             int            `json:"blocks"`
	StoredBytes        uint64         `json:"stored_bytes"`
	UncompressedBytes  uint64         `json:"uncompressed_bytes"`
	ChunkHash          string         `json:"chunk_hash"`
	PerfectHashSeeds   int            `json:"perfect_hash_seeds"`
	ChunksWithoutHash  int            `json:"chunks_without_perfect_hash"`
	Signed             bool           `json:"signed"`
	// DirectoryIndex is nil when the container is not Indexed.
	DirectoryIndex *DirectoryIndex `json:"directory_index"`
	// ContainerHeader is nil when the container has no container-header
	// chunk.
	ContainerHeader *ContainerHeaderChunk `json:"container_header"`
	Header          HeaderFields          `json:"header"`
	Sections        []Section             `json:"sections"`
}

// TocVersion is a TOC version with its name and the engines writing it.
type TocVersion struct {
	Value   int    `json:"value"`
	Name    string `json:"name"`
	Engines string `json:"engines"`
}

// Partitions describes the .ucas partitions.
type Partitions struct {
	Count int `json:"count"`
	// Size is the maximum partition size; nil when unlimited.
	Size  *uint64         `json:"size"`
	Files []PartitionFile `json:"files"`
	// Missing says why the data cannot be read, "" when it can.
	Missing string `json:"missing"`
}

// PartitionFile is one .ucas file.
type PartitionFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// DirectoryIndex summarizes the directory index.
type DirectoryIndex struct {
	Size       int    `json:"size"`
	MountPoint string `json:"mount_point"`
	Files      int    `json:"files"`
	// Error says why the index could not be read (e.g. a key is needed).
	Error string `json:"error,omitempty"`
}

// ContainerHeaderChunk describes the container-header chunk (the package
// store) of a container.
type ContainerHeaderChunk struct {
	Chunk    int    `json:"chunk"`
	Size     uint64 `json:"size"`
	Version  *int   `json:"version"`
	Name     string `json:"version_name,omitempty"`
	Engines  string `json:"engines,omitempty"`
	Packages *int   `json:"packages"`
	Optional *int   `json:"optional_segment_packages,omitempty"`
	// Error says why the chunk was not read or decoded; Version and
	// Packages are nil then.
	Error string `json:"error,omitempty"`
}

// Section locates one TOC section.
type Section struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

// HeaderFields is FIoStoreTocHeader with the engine's field names.
type HeaderFields struct {
	Version                          int    `json:"Version"`
	TocHeaderSize                    uint32 `json:"TocHeaderSize"`
	TocEntryCount                    uint32 `json:"TocEntryCount"`
	TocCompressedBlockEntryCount     uint32 `json:"TocCompressedBlockEntryCount"`
	TocCompressedBlockEntrySize      uint32 `json:"TocCompressedBlockEntrySize"`
	CompressionMethodNameCount       uint32 `json:"CompressionMethodNameCount"`
	CompressionMethodNameLength      uint32 `json:"CompressionMethodNameLength"`
	CompressionBlockSize             uint32 `json:"CompressionBlockSize"`
	DirectoryIndexSize               uint32 `json:"DirectoryIndexSize"`
	PartitionCount                   uint32 `json:"PartitionCount"`
	ContainerID                      string `json:"ContainerId"`
	EncryptionKeyGUID                string `json:"EncryptionKeyGuid"`
	ContainerFlags                   string `json:"ContainerFlags"`
	EncryptionMethod                 uint8  `json:"EncryptionMethod"`
	TocChunkPerfectHashSeedsCount    uint32 `json:"TocChunkPerfectHashSeedsCount"`
	PartitionSize                    string `json:"PartitionSize"`
	TocChunksWithoutPerfectHashCount uint32 `json:"TocChunksWithoutPerfectHashCount"`
	TocSourceHashCount               uint32 `json:"TocSourceHashCount"`
	EncryptionIVCount                uint32 `json:"EncryptionIVCount"`
}

// NewContainerInfo summarizes container c, opened from file. It reads the
// container-header chunk, if the container has one.
func NewContainerInfo(file string, c *iostore.Container, opts *Options) *ContainerInfo {
	t := c.TOC()
	h := c.Header()
	d := &ContainerInfo{
		File:               file,
		Kind:               "iostore",
		TocVersion:         TocVersion{int(h.Version), h.Version.String(), h.Version.Engines()},
		ContainerID:        h.ContainerID.String(),
		Flags:              NewFlags(uint32(h.ContainerFlags), h.ContainerFlags.Names()),
		Encryption:         h.Encryption().String(),
		EncryptionKeyGUID:  h.EncryptionKeyGUID.String(),
		CompressionMethods: append([]string{}, t.Methods...),
		BlockSize:          h.CompressionBlockSize,
		Chunks:             len(c.Chunks()),
		ChunkTypes:         map[string]int{},
		Blocks:             len(t.Blocks),
		ChunkHash:          h.Version.ChunkHash().String(),
		PerfectHashSeeds:   len(t.PerfectHashSeeds),
		ChunksWithoutHash:  len(t.ChunksWithoutPerfectHash),
		Signed:             t.Signatures != nil,
		Sections:           []Section{},
	}
	for _, ch := range c.Chunks() {
		d.ChunkTypes[ch.Type.String()]++
		d.UncompressedBytes += ch.Size
	}
	enc := h.Encryption() != iostore.EncryptionNone
	for _, b := range t.Blocks {
		d.StoredBytes += b.StoredSize(enc)
	}
	count, size := h.Partitions()
	d.Partitions.Count = count
	if size != 1<<64-1 {
		d.Partitions.Size = &size
	}
	d.Partitions.Files = []PartitionFile{}
	if err := c.DataErr(); err != nil {
		d.Partitions.Missing = opts.text(err)
	}
	for _, p := range c.Partitions() {
		d.Partitions.Files = append(d.Partitions.Files, PartitionFile{Name: filepath.Base(p.Name), Size: p.Size})
	}
	if h.ContainerFlags&iostore.FlagIndexed != 0 {
		x, err := c.DirectoryIndex()
		di := &DirectoryIndex{Size: len(t.DirectoryIndex)}
		if x != nil {
			di.MountPoint, di.Files = x.MountPoint, len(x.Files)
		}
		if err != nil {
			di.Error = opts.msg(err)
		}
		d.DirectoryIndex = di
	}
	if k, ok := c.ContainerHeaderChunk(); ok {
		d.ContainerHeader = newContainerHeaderChunk(c, k, opts)
	}
	d.Header = HeaderFields{
		Version:                          int(h.Version),
		TocHeaderSize:                    h.TocHeaderSize,
		TocEntryCount:                    h.TocEntryCount,
		TocCompressedBlockEntryCount:     h.TocCompressedBlockEntryCount,
		TocCompressedBlockEntrySize:      h.TocCompressedBlockEntrySize,
		CompressionMethodNameCount:       h.CompressionMethodNameCount,
		CompressionMethodNameLength:      h.CompressionMethodNameLength,
		CompressionBlockSize:             h.CompressionBlockSize,
		DirectoryIndexSize:               h.DirectoryIndexSize,
		PartitionCount:                   h.PartitionCount,
		ContainerID:                      h.ContainerID.String(),
		EncryptionKeyGUID:                h.EncryptionKeyGUID.String(),
		ContainerFlags:                   fmt.Sprintf("0x%02x", uint8(h.ContainerFlags)),
		EncryptionMethod:                 h.EncryptionMethodByte,
		TocChunkPerfectHashSeedsCount:    h.TocChunkPerfectHashSeedsCount,
		PartitionSize:                    hex64(h.PartitionSize),
		TocChunksWithoutPerfectHashCount: h.TocChunksWithoutPerfectHashCount,
		TocSourceHashCount:               h.TocSourceHashCount,
		EncryptionIVCount:                h.EncryptionIVCount,
	}
	for _, s := range t.Sections {
		d.Sections = append(d.Sections, Section{s.Name, s.Offset, s.Size})
	}
	return d
}

// newContainerHeaderChunk reads and decodes the container-header chunk k.
func newContainerHeaderChunk(c *iostore.Container, k int, opts *Options) *ContainerHeaderChunk {
	d := &ContainerHeaderChunk{Chunk: k, Size: c.Chunks()[k].Size}
	if d.Size > zen.MaxContainerHeaderSize {
		d.Error = fmt.Sprintf("not read: %d bytes; a container header is at most %d", d.Size, zen.MaxContainerHeaderSize)
		return d
	}
	data, err := c.ReadChunk(k)
	if err != nil {
		d.Error = "not read: " + opts.msg(err)
		return d
	}
	ch, err := zen.DecodeContainerHeader(c.File(), data)
	if err != nil {
		d.Error = strings.TrimPrefix(opts.text(err), c.File()+": ")
		return d
	}
	v, n := int(ch.Version), len(ch.Packages)
	d.Version, d.Name, d.Engines, d.Packages = &v, ch.Version.String(), ch.Version.Engine(), &n
	if o := len(ch.OptionalSegmentPackages); o > 0 {
		d.Optional = &o
	}
	return d
}

// ContainerList is the chunks of an IoStore container: what `unrmod ls`
// shows.
type ContainerList struct {
	File       string      `json:"file" yaml:"file"`
	TocVersion int         `json:"toc_version" yaml:"toc_version"`
	MountPoint string      `json:"mount_point" yaml:"mount_point"`
	Chunks     []ChunkInfo `json:"chunks" yaml:"chunks"`
}

// ChunkInfo is one chunk of a container.
type ChunkInfo struct {
	Index int `json:"index" yaml:"index"`
	// Path is the chunk's path as extract writes it ("" when the
	// directory index does not list it); IndexedPath is the path under the
	// mount point as stored; OutputPath is where extract writes the chunk.
	Path           string   `json:"path" yaml:"path"`
	IndexedPath    string   `json:"indexed_path" yaml:"indexed_path"`
	OutputPath     string   `json:"output_path" yaml:"output_path"`
	ChunkID        string   `json:"chunk_id" yaml:"chunk_id"`
	ID             string   `json:"id" yaml:"id"`
	ChunkIndex     uint16   `json:"chunk_index" yaml:"chunk_index"`
	Type           string   `json:"type" yaml:"type"`
	TypeByte       uint8    `json:"type_byte" yaml:"type_byte"`
	Size           uint64   `json:"size" yaml:"size"`
	CompressedSize uint64   `json:"compressed_size" yaml:"compressed_size"`
	Methods        []string `json:"methods" yaml:"methods"`
	Offset         uint64   `json:"offset" yaml:"offset"`
	FirstBlock     int      `json:"first_block" yaml:"first_block"`
	Blocks         int      `json:"blocks" yaml:"blocks"`
	Hash           string   `json:"hash" yaml:"hash"`
	Flags          []string `json:"flags" yaml:"flags"`
}

// NewContainerList lists the chunks of c, opened from file.
func NewContainerList(file string, c *iostore.Container) *ContainerList {
	v := c.Header().Version
	// One allocation for the list: growing it by appends copies every
	// chunk's entry again at each doubling (a sixth of ls on 50k chunks).
	chunks := c.Chunks()
	d := &ContainerList{File: file, TocVersion: int(v), MountPoint: c.MountPoint(), Chunks: make([]ChunkInfo, 0, len(chunks))}
	for i := range chunks {
		ch := &chunks[i]
		out, err := c.OutputPath(i)
		if err != nil {
			out = c.MountPoint() + ch.Path
		}
		path := ""
		if ch.Path != "" {
			path = out
		}
		h := ch.Meta.Hash20()
		ms := c.ChunkMethods(i)
		if ms == nil {
			ms = []string{}
		}
		d.Chunks = append(d.Chunks, ChunkInfo{
			Index: i, Path: path, IndexedPath: ch.Path, OutputPath: out,
			ChunkID: ch.ID.String(), ID: hex64(ch.ID.Value()), ChunkIndex: ch.ID.Index(v),
			Type: ch.Type.String(), TypeByte: ch.ID.TypeByte(),
			Size: ch.Size, CompressedSize: ch.CompressedSize, Methods: ms,
			Offset: ch.Offset, FirstBlock: ch.FirstBlock, Blocks: ch.NumBlocks,
			Hash: fmt.Sprintf("%x", h[:]), Flags: ch.Meta.Flags.Names(),
		})
	}
	return d
}
