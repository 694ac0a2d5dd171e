// Package iostorebuild lays out small IoStore containers (.utoc + .ucas)
// from given chunks, following the format rules in the project's IoStore
// notes, so that tests can read layouts the public corpus lacks: 4.26/4.27
// containers (TOC versions 2 and 3, the 4.2x chunk-type table, 33-byte SHA-1
// metas), LZ4 and Gzip blocks, AES encryption and partitions. It is settings
// over iostore.Writer, the container writer: a description of the chunks
// that tests write in one call, including blocks the caller compressed
// (broken ones too), since the Writer checks only the structure here.
package iostorebuild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
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
	Key     *ue.Key // encrypt blocks and the directory index (AES-256-ECB)
	KeyGUID iostore.GUID
	// CTR encrypts with AES-256-CTR instead, with a random IV per block
	// and one for the directory index (TOC version 10, UE 6.0).
	CTR bool
	// PartitionSize splits the .ucas into partitions of at most this many
	// bytes; 0 keeps one partition.
	PartitionSize uint64
	Chunks        []Chunk
}

// Build lays the container out and returns the .utoc bytes and one byte
// slice per .ucas partition.
func (b *Container) Build() (toc []byte, cas [][]byte, err error) {
	dir, err := os.MkdirTemp("", "iostorebuild")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	utoc, err := b.WriteFiles(dir, "Build")
	if err != nil {
		return nil, nil, err
	}
	if toc, err = os.ReadFile(utoc); err != nil {
		return nil, nil, err
	}
	for i := 0; ; i++ {
		p, err := os.ReadFile(iostore.PartitionPath(utoc, i))
		if errors.Is(err, os.ErrNotExist) {
			return toc, cas, nil
		}
		if err != nil {
			return nil, nil, err
		}
		cas = append(cas, p)
	}
}

// WriteFiles builds the container with iostore.Writer and writes NAME.utoc,
// NAME.ucas and, for partitions, NAME_s<i>.ucas into dir. It returns the
// .utoc path. The Writer checks only the structure of what it wrote, so
// that tests can build containers with broken blocks or hashes.
func (b *Container) WriteFiles(dir, name string) (string, error) {
	bs := b.BlockSize
	if bs == 0 {
		bs = 0x10000
	}
	root, ok := strings.CutPrefix(b.MountPoint, "../../../")
	if !ok && b.MountPoint != "" {
		return "", fmt.Errorf("mount point %q is not under ../../../", b.MountPoint)
	}
	utoc := filepath.Join(dir, name+".utoc")
	w, err := iostore.NewWriter(utoc, &iostore.WriterOptions{
		Version: b.Version, ContainerID: zen.ContainerID(b.ContainerID), BlockSize: bs, Method: b.Method,
		Key: b.Key, KeyGUID: b.KeyGUID, CTR: b.CTR, PartitionSize: b.PartitionSize, MountPoint: b.MountPoint,
		Verify: iostore.VerifyStructure,
	})
	if err != nil {
		return "", err
	}
	for ci, ch := range b.Chunks {
		h := &iostore.ChunkHeader{ID: ch.ID, Uncompressed: ch.Raw, MemoryMapped: ch.MemoryMapped}
		if ch.Path != "" {
			h.Path = root + ch.Path
		}
		if ch.Blocks != nil {
			if b.Method == "" || strings.EqualFold(b.Method, "None") {
				w.Abort()
				return "", fmt.Errorf("chunk %d: stored blocks in a container without a method", ci)
			}
			err = w.AddCompressedChunk(h, b.Method, ch.Blocks, ch.Data)
		} else {
			err = w.AddChunkHeader(h, bytes.NewReader(ch.Data))
		}
		if err != nil {
			w.Abort()
			return "", fmt.Errorf("chunk %d: %w", ci, err)
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return utoc, nil
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
