package iostore_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
)

// sharedHeaderContainer writes a container whose one chunk, the container
// header, lists blocks compression blocks that all point at the same small
// zlib stream of blockSize zero bytes: a .utoc of about a kilobyte that
// decodes to blocks × blockSize bytes.
func sharedHeaderContainer(t *testing.T, blocks int, blockSize uint32) string {
	t.Helper()
	v := iostore.VersionPartitionSize
	const cid = 0x1122334455667788
	id, err := iostore.NewChunkID(cid, 0, iostore.ChunkContainerHeader, v)
	if err != nil {
		t.Fatal(err)
	}
	b := &iostorebuild.Container{
		Version: v, ContainerID: cid, BlockSize: blockSize, Method: "Zlib",
		Chunks: []iostorebuild.Chunk{{ID: id, Data: make([]byte, blockSize)}},
	}
	dir := t.TempDir()
	utoc, err := b.WriteFiles(dir, "Shared")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(utoc)
	if err != nil {
		t.Fatal(err)
	}
	toc, err := iostore.DecodeTOC(utoc, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(toc.Blocks) != 1 {
		t.Fatalf("the built header chunk has %d blocks, want 1", len(toc.Blocks))
	}
	for range blocks - 1 {
		toc.Blocks = append(toc.Blocks, toc.Blocks[0])
	}
	toc.Header.TocCompressedBlockEntryCount = uint32(len(toc.Blocks))
	toc.OffsetLengths[0].Length = uint64(blocks) * uint64(blockSize)
	if data, err = toc.AppendBinary(nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(utoc, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return utoc
}

// TestSharedHeaderBlocks opens a container whose header chunk lists 48
// blocks sharing one 8 MiB zlib stream: ContainerHeader and Verify refuse
// the sharing from the TOC, before inflating anything, instead of
// inflating 384 MiB.
func TestSharedHeaderBlocks(t *testing.T) {
	utoc := sharedHeaderContainer(t, 48, 8<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ContainerHeader()
	if err == nil || !strings.Contains(err.Error(), "block") {
		t.Errorf("ContainerHeader: %v, want an error about the shared blocks", err)
	}
	r := c.Verify(nil)
	if len(r.Problems) == 0 {
		t.Errorf("Verify found no problem")
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("ContainerHeader and Verify allocated %d MB", n>>20)
	}
	t.Logf("%s: %v", filepath.Base(utoc), err)
}

// TestExtractManyWorkers asks Extract and Verify for a million workers on a
// container of seven chunks: the workers are capped, so that the request
// costs no more than the default.
func TestExtractManyWorkers(t *testing.T) {
	b := tcSynthetic(t, iostore.VersionPartitionSize, "Zlib", nil)
	utoc, err := b.WriteFiles(t.TempDir(), "Many")
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.Extract(t.TempDir(), &iostore.ExtractOptions{Workers: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if r := c.Verify(&iostore.VerifyOptions{Workers: 1 << 20}); len(r.Problems) > 0 {
		t.Fatal(r.Problems)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("extract and verify with a million workers allocated %d MB", n>>20)
	}
}
