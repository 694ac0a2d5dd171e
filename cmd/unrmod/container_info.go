package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/report"
)

// containerInfoDoc is the output of "unrmod info" for an IoStore container.
type containerInfoDoc struct {
	File               string          `json:"file"`
	Kind               string          `json:"kind"` // always "iostore"
	TocVersion         tocVersionDoc   `json:"toc_version"`
	ContainerID        string          `json:"container_id"`
	Flags              report.Flags    `json:"flags"`
	Encryption         string          `json:"encryption"`
	EncryptionKeyGUID  string          `json:"encryption_key_guid"`
	CompressionMethods []string        `json:"compression_methods"`
	BlockSize          uint32          `json:"block_size"`
	Partitions         partitionsDoc   `json:"partitions"`
	Chunks             int             `json:"chunks"`
	ChunkTypes         map[string]int  `json:"chunk_types"`
	Blocks             int             `json:"blocks"`
	StoredBytes        uint64          `json:"stored_bytes"`
	UncompressedBytes  uint64          `json:"uncompressed_bytes"`
	ChunkHash          string          `json:"chunk_hash"`
	PerfectHashSeeds   int             `json:"perfect_hash_seeds"`
	ChunksWithoutHash  int             `json:"chunks_without_perfect_hash"`
	Signed             bool            `json:"signed"`
	DirectoryIndex     *dirIndexDoc    `json:"directory_index"`
	ContainerHeader    *chunkHeaderDoc `json:"container_header"`
	Header             headerFieldsDoc `json:"header"`
	Sections           []sectionDoc    `json:"sections"`
	typeText           string          // "97 ExportBundleData, ..."
}

// tocVersionDoc is a TOC version with its name and the engines writing it.
type tocVersionDoc struct {
	Value   int    `json:"value"`
	Name    string `json:"name"`
	Engines string `json:"engines"`
}

// partitionsDoc describes the .ucas partitions.
type partitionsDoc struct {
	Count int `json:"count"`
	// Size is the maximum partition size; null when unlimited.
	Size  *uint64            `json:"size"`
	Files []partitionFileDoc `json:"files"`
	// Missing says why the data cannot be read, "" when it can.
	Missing string `json:"missing"`
}

// partitionFileDoc is one .ucas file.
type partitionFileDoc struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// dirIndexDoc summarizes the directory index.
type dirIndexDoc struct {
	Size       int    `json:"size"`
	MountPoint string `json:"mount_point"`
	Files      int    `json:"files"`
	// Error says why the index could not be read (e.g. a key is needed).
	Error string `json:"error,omitempty"`
}

// chunkHeaderDoc describes the container-header chunk (the package store).
type chunkHeaderDoc struct {
	Chunk    int    `json:"chunk"`
	Size     uint64 `json:"size"`
	Version  *int   `json:"version"`
	Name     string `json:"version_name,omitempty"`
	Engines  string `json:"engines,omitempty"`
	Packages *int   `json:"packages"`
	Optional *int   `json:"optional_segment_packages,omitempty"`
	Error    string `json:"error,omitempty"`
}

// sectionDoc locates one TOC section.
type sectionDoc struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

// headerFieldsDoc is FIoStoreTocHeader with the engine's field names.
type headerFieldsDoc struct {
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

// newContainerInfoDoc collects what info shows about container c.
func newContainerInfoDoc(file string, c *iostore.Container) *containerInfoDoc {
	t := c.TOC()
	h := c.Header()
	d := &containerInfoDoc{
		File:               file,
		Kind:               "iostore",
		TocVersion:         tocVersionDoc{int(h.Version), h.Version.String(), h.Version.Engines()},
		ContainerID:        h.ContainerID.String(),
		Flags:              report.NewFlags(uint32(h.ContainerFlags), h.ContainerFlags.Names()),
		Encryption:         h.Encryption().String(),
		EncryptionKeyGUID:  h.EncryptionKeyGUID.String(),
		CompressionMethods: append([]string{}, t.Methods...),
		BlockSize:          h.CompressionBlockSize,
		Chunks:             len(c.Chunks()),
		Blocks:             len(t.Blocks),
		ChunkHash:          h.Version.ChunkHash().String(),
		PerfectHashSeeds:   len(t.PerfectHashSeeds),
		ChunksWithoutHash:  len(t.ChunksWithoutPerfectHash),
		Signed:             t.Signatures != nil,
		Sections:           []sectionDoc{},
	}
	d.typeText, d.ChunkTypes = typeCounts(c)
	enc := h.Encryption() != iostore.EncryptionNone
	for _, b := range t.Blocks {
		d.StoredBytes += b.StoredSize(enc)
	}
	for _, ch := range c.Chunks() {
		d.UncompressedBytes += ch.Size
	}
	count, size := h.Partitions()
	d.Partitions.Count = count
	if size != 1<<64-1 {
		d.Partitions.Size = &size
	}
	d.Partitions.Files = []partitionFileDoc{}
	if err := c.DataErr(); err != nil {
		d.Partitions.Missing = err.Error()
	}
	for _, p := range c.Partitions() {
		d.Partitions.Files = append(d.Partitions.Files, partitionFileDoc{Name: filepath.Base(p.Name), Size: p.Size})
	}
	if h.ContainerFlags&iostore.FlagIndexed != 0 {
		x, err := c.DirectoryIndex()
		di := &dirIndexDoc{Size: len(t.DirectoryIndex)}
		if x != nil {
			di.MountPoint, di.Files = x.MountPoint, len(x.Files)
		}
		if err != nil {
			di.Error = errorMsg(err)
		}
		d.DirectoryIndex = di
	}
	if k, ok := c.ContainerHeaderChunk(); ok {
		d.ContainerHeader = describeContainerHeader(c, k)
	}
	d.Header = headerFieldsDoc{
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
		d.Sections = append(d.Sections, sectionDoc{s.Name, s.Offset, s.Size})
	}
	return d
}

// describeContainerHeader reads and decodes the container-header chunk k.
func describeContainerHeader(c *iostore.Container, k int) *chunkHeaderDoc {
	d := &chunkHeaderDoc{Chunk: k, Size: c.Chunks()[k].Size}
	if d.Size > zen.MaxContainerHeaderSize {
		d.Error = fmt.Sprintf("not read: %d bytes; a container header is at most %d", d.Size, zen.MaxContainerHeaderSize)
		return d
	}
	data, err := c.ReadChunk(k)
	if err != nil {
		d.Error = "not read: " + errorMsg(err)
		return d
	}
	ch, err := zen.DecodeContainerHeader(c.File(), data)
	if err != nil {
		d.Error = strings.TrimPrefix(errText(err), c.File()+": ")
		return d
	}
	v, n := int(ch.Version), len(ch.Packages)
	d.Version, d.Name, d.Engines, d.Packages = &v, ch.Version.String(), ch.Version.Engine(), &n
	if o := len(ch.OptionalSegmentPackages); o > 0 {
		d.Optional = &o
	}
	return d
}

// writeText prints the document as aligned "Field: value" lines, then the
// header fields by their engine names.
func (d *containerInfoDoc) writeText(w io.Writer) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-18s%s\n", k+":", fmt.Sprintf(format, args...))
	}
	flags := "none"
	if len(d.Flags.Names) > 0 {
		flags = strings.Join(d.Flags.Names, "|")
	}
	line("File", "%s", d.File)
	line("TOC version", "%d %s (%s)", d.TocVersion.Value, d.TocVersion.Name, d.TocVersion.Engines)
	line("Container id", "%s", d.ContainerID)
	line("Flags", "%s (%s)", flags, d.Header.ContainerFlags)
	enc := d.Encryption
	if d.Encryption != "none" {
		enc += ", key GUID " + d.EncryptionKeyGUID
		if d.EncryptionKeyGUID == strings.Repeat("0", 32) {
			enc += " (the default key)"
		}
	}
	line("Encryption", "%s", enc)
	methods := "None"
	if len(d.CompressionMethods) > 0 {
		methods = strings.Join(d.CompressionMethods, ", ")
	}
	line("Compression", "%s", methods)
	line("Block size", "%d bytes", d.BlockSize)
	parts := fmt.Sprintf("%d", d.Partitions.Count)
	if d.Partitions.Size != nil {
		parts += fmt.Sprintf(" of at most %d bytes", *d.Partitions.Size)
	}
	var files []string
	for _, f := range d.Partitions.Files {
		files = append(files, fmt.Sprintf("%s %d bytes", f.Name, f.Size))
	}
	if len(files) > 0 {
		parts += " (" + strings.Join(files, ", ") + ")"
	}
	if d.Partitions.Missing != "" {
		parts += "; .ucas missing: info and ls work, reading data does not"
	}
	line("Partitions", "%s", parts)
	line("Chunks", "%d (%s)", d.Chunks, d.typeText)
	line("Blocks", "%d (%d bytes stored, %d bytes uncompressed)", d.Blocks, d.StoredBytes, d.UncompressedBytes)
	line("Chunk hashes", "%s", d.ChunkHash)
	line("Perfect hash", "%d seeds, %d chunks without", d.PerfectHashSeeds, d.ChunksWithoutHash)
	if d.Signed {
		line("Signatures", "present (kept, not checked)")
	}
	switch di := d.DirectoryIndex; {
	case di == nil:
		line("Directory index", "none")
	case di.Error != "":
		line("Directory index", "%d bytes; %s", di.Size, di.Error)
	default:
		line("Directory index", "%d bytes, %d files", di.Size, di.Files)
		line("Mount point", "%s", di.MountPoint)
	}
	switch ch := d.ContainerHeader; {
	case ch == nil:
		line("Container header", "none")
	case ch.Error != "":
		line("Container header", "chunk %d, %d bytes; %s", ch.Chunk, ch.Size, ch.Error)
	default:
		extra := ""
		if ch.Optional != nil {
			extra = fmt.Sprintf(", %d optional-segment packages", *ch.Optional)
		}
		line("Container header", "chunk %d, %d bytes; version %s, %d packages%s", ch.Chunk, ch.Size, headerVersionText(*ch.Version, ch.Name, ch.Engines), *ch.Packages, extra)
	}
	b.WriteString("\nHeader fields:\n")
	hf := d.Header
	field := func(name string, v any) { fmt.Fprintf(&b, "  %-34s%v\n", name, v) }
	field("Version", hf.Version)
	field("TocHeaderSize", hf.TocHeaderSize)
	field("TocEntryCount", hf.TocEntryCount)
	field("TocCompressedBlockEntryCount", hf.TocCompressedBlockEntryCount)
	field("TocCompressedBlockEntrySize", hf.TocCompressedBlockEntrySize)
	field("CompressionMethodNameCount", hf.CompressionMethodNameCount)
	field("CompressionMethodNameLength", hf.CompressionMethodNameLength)
	field("CompressionBlockSize", hf.CompressionBlockSize)
	field("DirectoryIndexSize", hf.DirectoryIndexSize)
	field("PartitionCount", hf.PartitionCount)
	field("ContainerId", hf.ContainerID)
	field("EncryptionKeyGuid", hf.EncryptionKeyGUID)
	field("ContainerFlags", hf.ContainerFlags)
	field("EncryptionMethod", hf.EncryptionMethod)
	field("TocChunkPerfectHashSeedsCount", hf.TocChunkPerfectHashSeedsCount)
	field("PartitionSize", hf.PartitionSize)
	field("TocChunksWithoutPerfectHashCount", hf.TocChunksWithoutPerfectHashCount)
	field("TocSourceHashCount", hf.TocSourceHashCount)
	field("EncryptionIVCount", hf.EncryptionIVCount)
	b.WriteString("\nSections:\n")
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "  %-34s%d bytes at 0x%X\n", s.Name, s.Size, s.Offset)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
