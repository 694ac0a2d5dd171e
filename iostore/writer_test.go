package iostore_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zlib"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// corpusContainers lists every corpus container with its .ucas.
func corpusContainers(t *testing.T) []string {
	dir := corpus.Dir(t)
	var out []string
	filepath.WalkDir(filepath.Join(dir, "iostore"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".utoc") {
			if _, err := os.Stat(strings.TrimSuffix(p, ".utoc") + ".ucas"); err == nil {
				out = append(out, p)
			}
		}
		return nil
	})
	if len(out) < 7 {
		t.Fatalf("found %d corpus containers with data, want at least 7", len(out))
	}
	return out
}

func corpusKey(t *testing.T, utoc string) *ue.Key {
	text := "CUE4ParseFixtureAESKey0123456789"
	switch {
	case strings.Contains(utoc, "UnrmodDemo58"):
		text = iostorebuild.DemoKey
	case !strings.Contains(utoc, "Encrypted"):
		return nil
	}
	k, err := ue.ParseKey(text)
	if err != nil {
		t.Fatal(err)
	}
	return &k
}

// TestWriterCorpus writes every corpus container again with the Writer:
// once copying every chunk's stored blocks (Oodle ones included) and once
// recompressing every chunk unrmod can decode with Zlib. Both outputs must
// verify and hold the same chunks, byte for byte.
func TestWriterCorpus(t *testing.T) {
	for _, utoc := range corpusContainers(t) {
		key := corpusKey(t, utoc)
		src, err := iostore.Open(utoc, &iostore.Options{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		h := src.Header()
		for _, mode := range []string{"copy", "zlib"} {
			t.Run(filepath.Base(utoc)+"/"+mode, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(utoc), ".utoc")+".utoc")
				opts := &iostore.WriterOptions{Version: h.Version, ContainerID: h.ContainerID, BlockSize: h.CompressionBlockSize,
					Key: key, KeyGUID: h.EncryptionKeyGUID, MountPoint: src.MountPoint(), Verify: iostore.VerifyAll}
				if mode == "zlib" {
					opts.Method = "Zlib"
				}
				if _, n := h.Partitions(); n > 1 && n < 1<<40 {
					opts.PartitionSize = n
				}
				w, err := iostore.NewWriter(out, opts)
				if err != nil {
					t.Fatal(err)
				}
				decodable := 0
				for _, ch := range src.Chunks() {
					data, rerr := src.ReadChunk(ch.Index)
					if mode == "zlib" && rerr == nil {
						decodable++
						err = w.AddChunkHeader(&iostore.ChunkHeader{ID: ch.ID, Path: src.GamePath(ch.Index), MemoryMapped: ch.Meta.Flags&iostore.MetaMemoryMapped != 0}, bytes.NewReader(data))
					} else {
						err = w.CopyChunk(src, ch.Index, src.GamePath(ch.Index))
					}
					if err != nil {
						w.Abort()
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				got := openVerified(t, out, key)
				if len(got.Chunks()) != len(src.Chunks()) {
					t.Fatalf("%d chunks, want %d", len(got.Chunks()), len(src.Chunks()))
				}
				for _, ch := range src.Chunks() {
					i, g := findChunk(t, got, ch)
					if g.Path != ch.Path || g.Size != ch.Size || g.Meta.Hash != ch.Meta.Hash {
						t.Errorf("chunk %v: path %q size %d hash %x, want %q %d %x", ch.ID, g.Path, g.Size, g.Meta.Hash[:20], ch.Path, ch.Size, ch.Meta.Hash[:20])
					}
					want, err := src.ReadChunk(ch.Index)
					if err != nil {
						// Oodle: copied as stored; compare the stored blocks.
						for k := 0; k < ch.NumBlocks; k++ {
							a, err1 := src.ReadStoredBlock(ch.FirstBlock + k)
							b, err2 := got.ReadStoredBlock(g.FirstBlock + k)
							if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
								t.Errorf("chunk %v block %d differs (%v, %v)", ch.ID, k, err1, err2)
							}
						}
						continue
					}
					data, err := got.ReadChunk(i)
					if err != nil || !bytes.Equal(data, want) {
						t.Errorf("chunk %v: data differs (%v)", ch.ID, err)
					}
				}
				t.Logf("%d chunks, %d recompressed", len(src.Chunks()), decodable)
			})
		}
	}
}

// failingReader returns n bytes, then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = byte(i)
	}
	r.n -= k
	return k, nil
}

// TestWriterFailureLeavesNothing checks that a write that fails halfway,
// or is aborted, leaves no file, and that an existing container of the
// same name is untouched.
func TestWriterFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	utoc := filepath.Join(dir, "z_Fail_P.utoc")
	old := []byte("an earlier container")
	os.WriteFile(utoc, old, 0o644)
	for _, tt := range []struct {
		name string
		run  func(w *iostore.Writer) error
	}{
		{"reader fails", func(w *iostore.Writer) error {
			id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
			if err := w.AddChunk(id, "Game/Content/A.ubulk", &failingReader{n: 300000}); err == nil {
				t.Error("AddChunk did not report the read error")
			}
			return w.Close()
		}},
		{"duplicate chunk", func(w *iostore.Writer) error {
			id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
			w.AddChunk(id, "Game/Content/A.ubulk", strings.NewReader("a"))
			if err := w.AddChunk(id, "Game/Content/B.ubulk", strings.NewReader("b")); err == nil {
				t.Error("a duplicate chunk id was accepted")
			}
			w.Abort()
			return errors.New("aborted")
		}},
		{"bad path", func(w *iostore.Writer) error {
			id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
			if err := w.AddChunk(id, "../escape.ubulk", strings.NewReader("a")); err == nil {
				t.Error("a path leaving the root was accepted")
			}
			w.Abort()
			return errors.New("aborted")
		}},
		{"unknown method", func(w *iostore.Writer) error {
			id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
			err := w.AddChunk(id, "Game/Content/A.ubulk", strings.NewReader("a"))
			if err == nil || !strings.Contains(err.Error(), "Oodle") {
				t.Errorf("Oodle without a compressor: %v", err)
			}
			w.Abort()
			return errors.New("aborted")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := &iostore.WriterOptions{Version: iostore.VersionPartitionSize, Method: "Zlib"}
			if tt.name == "unknown method" {
				opts.Method = "Oodle"
			}
			w, err := iostore.NewWriter(utoc, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.run(w); err == nil {
				t.Fatal("the write succeeded")
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("files after the failure: %v, want only the earlier container", names)
			}
			if b, _ := os.ReadFile(utoc); !bytes.Equal(b, old) {
				t.Error("the earlier container was changed")
			}
		})
	}
}

// tcCopyAll writes every chunk of src to out with CopyChunk, encrypted
// with key, in partitions of partSize (0: one), verifies everything and
// checks that every chunk holds what it holds in want.
func tcCopyAll(t *testing.T, src *iostore.Container, out string, key *ue.Key, partSize uint64, want *iostore.Container) *iostore.Container {
	t.Helper()
	h := src.Header()
	w, err := iostore.NewWriter(out, &iostore.WriterOptions{Version: h.Version, ContainerID: h.ContainerID, BlockSize: h.CompressionBlockSize,
		Key: key, MountPoint: src.MountPoint(), PartitionSize: partSize, Verify: iostore.VerifyAll})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range src.Chunks() {
		if err := w.CopyChunk(src, ch.Index, src.GamePath(ch.Index)); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := iostore.Open(out, &iostore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { got.Close() })
	if partSize > 0 && len(got.Partitions()) < 2 {
		t.Errorf("%d partitions of %d bytes", len(got.Partitions()), partSize)
	}
	for _, ch := range want.Chunks() {
		i, _ := findChunk(t, got, ch)
		a, err1 := want.ReadChunk(ch.Index)
		b, err2 := got.ReadChunk(i)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Fatalf("chunk %v differs (%v, %v)", ch.ID, err1, err2)
		}
	}
	return got
}

// TestWriterCopyChunk copies the Zlib fixture's chunks through every path
// CopyChunk has: blocks copied as they are stored, by the system from a
// file (across partitions too) or through a buffer from memory, and blocks
// decrypted, encrypted or both on the way.
func TestWriterCopyChunk(t *testing.T) {
	src := tcOpen(t, tcZlib, nil)
	dir := t.TempDir()
	var parts []iostore.Partition
	for i, p := range src.Partitions() {
		data, err := os.ReadFile(iostore.PartitionPath(corpus.Path(t, tcZlib), i))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, iostore.Partition{Name: p.Name, R: bytes.NewReader(data), Size: int64(len(data))})
	}
	toc, err := os.ReadFile(corpus.Path(t, tcZlib))
	if err != nil {
		t.Fatal(err)
	}
	mem, err := iostore.OpenReaders(tcZlib, toc, parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := ue.Key([]byte("another key, 32 bytes long......"))
	out := func(name string) string { return filepath.Join(dir, name, "Copy-Windows.utoc") }
	tcCopyAll(t, src, out("file"), nil, 0, src)
	tcCopyAll(t, src, out("partitions"), nil, 4*iostore.DefaultBlockSize, src)
	tcCopyAll(t, mem, out("memory"), nil, 0, src)
	enc := tcCopyAll(t, src, out("encrypt"), tcKey(), 0, src)
	tcCopyAll(t, enc, out("same-key"), tcKey(), 4*iostore.DefaultBlockSize, src)
	tcCopyAll(t, enc, out("new-key"), &other, 0, src)
	tcCopyAll(t, enc, out("decrypt"), nil, 0, src)
}

// TestWriterCompressorResult writes with a compressor whose results leave
// no room for the pad (capacity = length), inside the buffer it was given
// or not: the Writer must copy them before padding in place.
func TestWriterCompressorResult(t *testing.T) {
	data := bytes.Repeat([]byte("unrmod pads every block to 16 bytes; "), 9000)
	for _, inPlace := range []bool{true, false} {
		out := filepath.Join(t.TempDir(), "Pad-Windows.utoc")
		compress := func(dst, src []byte) ([]byte, error) {
			var b bytes.Buffer
			zw := zlib.NewWriter(&b)
			zw.Write(src)
			zw.Close()
			if inPlace {
				dst = append(dst[:0], b.Bytes()...)
				return dst[:len(dst):len(dst)], nil
			}
			return bytes.Clone(b.Bytes())[:b.Len():b.Len()], nil
		}
		codecs := ue.NewCodecs()
		zlibCodec, _ := codecs.Lookup("Zlib")
		zlibCodec.NewCompressor = func(int) ue.Compressor { return compress }
		codecs.Register(zlibCodec)
		w, err := iostore.NewWriter(out, &iostore.WriterOptions{Method: "Zlib", Key: tcKey(), Verify: iostore.VerifyAll, Codecs: codecs})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionReplaceIoChunkHashWithIoHash)
		if err := w.AddChunk(id, "Game/Content/Pad.ubulk", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c, err := iostore.Open(out, &iostore.Options{Key: tcKey()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.ReadChunk(0)
		c.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("in place %v: %d bytes (%v), want %d", inPlace, len(got), err, len(data))
		}
	}
}

// TestWriterAddCompressedChunkKeepsBlocks gives AddCompressedChunk blocks
// with room to spare behind them: the Writer pads and encrypts its own
// copies, and the caller's bytes stay as they were.
func TestWriterAddCompressedChunkKeepsBlocks(t *testing.T) {
	const bs = 4096
	data := bytes.Repeat([]byte("stored blocks stay the caller's; "), 500)
	var blocks, want [][]byte
	for off := 0; off < len(data); off += bs {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(data[off:min(off+bs, len(data))])
		zw.Close()
		b := append(make([]byte, 0, z.Len()+64), z.Bytes()...)
		blocks = append(blocks, b)
		want = append(want, bytes.Clone(b[:cap(b)]))
	}
	out := filepath.Join(t.TempDir(), "Given-Windows.utoc")
	w, err := iostore.NewWriter(out, &iostore.WriterOptions{BlockSize: bs, Method: "Zlib", Key: tcKey(), Verify: iostore.VerifyAll})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionReplaceIoChunkHashWithIoHash)
	if err := w.AddCompressedChunk(&iostore.ChunkHeader{ID: id, Path: "Game/Content/Given.ubulk"}, "Zlib", blocks, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for k, b := range blocks {
		if !bytes.Equal(b[:cap(b)], want[k]) {
			t.Fatalf("block %d of the caller changed", k)
		}
	}
}

// TestWriterCopyChunkSourceClosed closes the source of copied blocks
// before Close, which copies them: Close must fail and leave no file.
func TestWriterCopyChunkSourceClosed(t *testing.T) {
	src, err := iostore.Open(corpus.Path(t, tcZlib), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := src.Header()
	w, err := iostore.NewWriter(filepath.Join(dir, "Closed-Windows.utoc"), &iostore.WriterOptions{Version: h.Version, BlockSize: h.CompressionBlockSize, MountPoint: src.MountPoint()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range src.Chunks() {
		if err := w.CopyChunk(src, ch.Index, src.GamePath(ch.Index)); err != nil {
			t.Fatal(err)
		}
	}
	src.Close()
	if err := w.Close(); err == nil {
		t.Fatal("Close succeeded with the source closed")
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("%d files left", len(left))
	}
}

// TestWriterStoresShaderChunksRaw adds compressible shader chunks to a
// Zlib container: the Writer stores the ShaderCodeLibrary and ShaderCode
// chunks uncompressed, as the engine's packer does, and compresses a
// bulk data chunk of the same bytes.
func TestWriterStoresShaderChunksRaw(t *testing.T) {
	const v = iostore.TocVersion(8)
	utoc := filepath.Join(t.TempDir(), "Shaders-Windows.utoc")
	w, err := iostore.NewWriter(utoc, &iostore.WriterOptions{Version: v, Method: "Zlib"})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("shader code "), 20000)
	for _, typ := range []iostore.ChunkType{iostore.ChunkShaderCodeLibrary, iostore.ChunkShaderCode, iostore.ChunkBulkData} {
		id, err := iostore.NewChunkID(uint64(typ)*7919, 0, typ, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddChunkHeader(&iostore.ChunkHeader{ID: id}, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, ch := range c.Chunks() {
		raw := ch.CompressedSize == ch.Size
		if want := ch.Type != iostore.ChunkBulkData; raw != want {
			t.Errorf("%v chunk: %d bytes stored for %d; want stored raw: %v", ch.Type, ch.CompressedSize, ch.Size, want)
		}
	}
}
