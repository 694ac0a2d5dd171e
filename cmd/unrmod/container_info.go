package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/report"
)

// writeContainerInfo prints a container's info as aligned "Field: value"
// lines, then the header fields by their engine names; c is the container,
// whose chunk types it counts in the order of their type numbers.
func writeContainerInfo(w io.Writer, d *report.ContainerInfo, c *iostore.Container) error {
	typeText, _ := typeCounts(c)
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
	line("Chunks", "%d (%s)", d.Chunks, typeText)
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
