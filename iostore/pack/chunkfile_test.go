package pack_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
)

// TestReadChunkFile reads the files a command may be given where a chunk
// file is possible: the demo's zen packages and container header come back
// with their kind; legacy packages, containers, other files, folders and
// missing files come back as nothing.
func TestReadChunkFile(t *testing.T) {
	dir := t.TempDir()
	c, err := iostore.Open("../../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var header []byte
	for _, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkContainerHeader {
			if header, err = c.ReadChunk(ch.Index); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name string
		path string
		want iostore.ChunkContent
	}{
		{"UE4 zen package", "../../examples/packages/zen/DT_DemoItems.uasset", iostore.ContentZenPackageUE4},
		{"container header", write("header.bin", header), iostore.ContentContainerHeader},
		{"legacy package", "../../examples/packages/UnrmodDemo.u", iostore.ContentUnknown},
		{"cooked UE4 .uasset", write("Legacy.uasset", append([]byte{0xC1, 0x83, 0x2A, 0x9E}, make([]byte, 60)...)), iostore.ContentUnknown},
		{"container TOC", "../../examples/containers/UnrmodDemo427_P.utoc", iostore.ContentUnknown},
		{"text", write("notes.txt", []byte("not a chunk\n")), iostore.ContentUnknown},
		{"three bytes", write("short.bin", []byte{1, 2, 3}), iostore.ContentUnknown},
		{"folder", dir, iostore.ContentUnknown},
		{"missing", filepath.Join(dir, "missing.uasset"), iostore.ContentUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, k := pack.ReadChunkFile(tc.path)
			if k != tc.want {
				t.Fatalf("ReadChunkFile(%s) = %v, want %v", tc.path, k, tc.want)
			}
			if k == iostore.ContentUnknown {
				if data != nil {
					t.Fatalf("%d bytes for a file that is no chunk", len(data))
				}
				return
			}
			if want, err := os.ReadFile(tc.path); err != nil || !bytes.Equal(data, want) {
				t.Fatalf("%d bytes, not the file's (%v)", len(data), err)
			}
		})
	}
}

// TestReadChunkFileLarge: a file larger than any container header whose
// first bytes cannot start a zen package or a container header is refused
// without being read: the allocations stay far below its size.
func TestReadChunkFileLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Intro.bk2")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const size = 256 << 20 // sparse: zeros, no disk space
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, k := pack.ReadChunkFile(path)
	runtime.ReadMemStats(&after)
	if data != nil || k != iostore.ContentUnknown {
		t.Fatalf("%d bytes of kind %v for a file of zeros", len(data), k)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("ReadChunkFile allocated %d MiB for a %d MiB file that is no chunk", n>>20, size>>20)
	}
}
