package iostore_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// damageSource is a container the damage tests copy and damage: built
// with the project's builder, or copied from the corpus.
type damageSource struct {
	name string
	key  *ue.Key
	// kinds are the blocks it has to damage: "compressed", "uncompressed".
	kinds []string
	// make writes the container into dir and returns its .utoc.
	make func(t *testing.T, dir string) string
}

// damageSources returns the demo containers (4.27 Zlib with SHA-1 metas,
// the same stored uncompressed, and 5.8 LZ4 with BLAKE3 metas, encrypted)
// and two corpus containers: a UE 5.8 Zlib container and a global
// container (one ScriptObjects chunk of 37 uncompressed blocks).
func damageSources(t *testing.T) []damageSource {
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	key, err := ue.ParseKey(iostorebuild.DemoKey)
	if err != nil {
		t.Fatal(err)
	}
	built := func(b *iostorebuild.Container, name string) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string {
			utoc, err := b.WriteFiles(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			return utoc
		}
	}
	copied := func(rel string) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string {
			src := corpus.Path(t, rel)
			out := filepath.Join(dir, filepath.Base(src))
			for _, f := range []string{src, iostore.PartitionPath(src, 0)} {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				dst := out
				if strings.HasSuffix(f, ".ucas") {
					dst = iostore.PartitionPath(out, 0)
				}
				if err := os.WriteFile(dst, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return out
		}
	}
	none := *demos[0].Container
	none.Method = "None"
	// A chunk of 40 blocks, whose check is split into one job per block.
	big := *demos[0].Container
	id, err := iostore.NewChunkID(0x1234, 0, iostore.ChunkBulkData, big.Version)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	for i := 0; text.Len() < 40*iostore.DefaultBlockSize; i++ {
		fmt.Fprintf(&text, "row %d: %d %x\n", i, i*i%9973, i*2654435761)
	}
	big.Chunks = append(slices.Clone(big.Chunks), iostorebuild.Chunk{ID: id, Path: "Maps/Big.ubulk", Data: text.Bytes()[:40*iostore.DefaultBlockSize-100]})
	both, raw := []string{"compressed", "uncompressed"}, []string{"uncompressed"}
	return []damageSource{
		{name: "demo427-zlib", kinds: both, make: built(demos[0].Container, demos[0].Name)},
		{name: "demo427-none", kinds: raw, make: built(&none, demos[0].Name)},
		{name: "demo427-large-chunk", kinds: both, make: built(&big, demos[0].Name)},
		{name: "demo58-lz4-encrypted", key: &key, kinds: both, make: built(demos[1].Container, demos[1].Name)},
		{name: "corpus-zlib", kinds: both, make: copied("iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc")},
		{name: "corpus-global", kinds: raw, make: copied("iostore/cue4parse_ue5_8/Tagged/global.utoc")},
	}
}

// damagedBlock says where the damage goes: the middle block of those
// stored compressed, or uncompressed, of the chunk that has most of them,
// and that chunk.
func damagedBlock(c *iostore.Container, compressed bool) (block int, chunk iostore.Chunk, ok bool) {
	best := 0
	for _, ch := range c.Chunks() {
		var ks []int
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			if (c.TOC().Blocks[k].Method != 0) == compressed {
				ks = append(ks, k)
			}
		}
		if len(ks) > best {
			best, block, chunk = len(ks), ks[len(ks)/2], ch
		}
	}
	return block, chunk, best > 0
}

// damage flips one byte in the middle of block k's stored bytes.
func damage(t *testing.T, c *iostore.Container, utoc string, k int) {
	t.Helper()
	b := c.TOC().Blocks[k]
	count, psize := c.Header().Partitions()
	if count != 1 {
		t.Fatalf("%d partitions", count)
	}
	off := int64(b.Offset%psize) + int64(b.CompressedSize/2)
	f, err := os.OpenFile(iostore.PartitionPath(utoc, 0), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var x [1]byte
	if _, err := f.ReadAt(x[:], off); err != nil {
		t.Fatal(err)
	}
	x[0] ^= 0x20
	if _, err := f.WriteAt(x[:], off); err != nil {
		t.Fatal(err)
	}
}

// wantDamaged fails unless err is the *DamagedChunkError of chunk ch of
// the container utoc, naming block k (or a block range holding it), and
// matching ErrHashMismatch when only the hash tells.
func wantDamaged(t *testing.T, err error, utoc string, ch iostore.Chunk, path string, k int) {
	t.Helper()
	var d *iostore.DamagedChunkError
	if !errors.As(err, &d) {
		t.Fatalf("error %v, want a *DamagedChunkError", err)
	}
	if !errors.Is(err, iostore.ErrInputDamaged) {
		t.Errorf("error %v does not match ErrInputDamaged", err)
	}
	if d.File != utoc || d.ID != ch.ID || d.Index != ch.Index || d.Path != path {
		t.Errorf("names %s chunk %d %v %q, want %s chunk %d %v %q", d.File, d.Index, d.ID, d.Path, utoc, ch.Index, ch.ID, path)
	}
	msg := err.Error()
	if !strings.Contains(msg, ch.ID.String()) || !strings.Contains(msg, path) || !strings.Contains(msg, utoc) {
		t.Errorf("message %q does not name the container, the chunk id and its path", msg)
	}
	switch {
	case d.Block >= 0:
		if d.Block != k || !strings.Contains(msg, fmt.Sprintf("compression block %d", k)) {
			t.Errorf("names block %d (%q), want %d", d.Block, msg, k)
		}
	case k < d.FirstBlock || k >= d.FirstBlock+d.NumBlocks:
		t.Errorf("names blocks %d+%d, damaged %d", d.FirstBlock, d.NumBlocks, k)
	case !errors.Is(err, iostore.ErrHashMismatch):
		t.Errorf("%v does not match ErrHashMismatch", err)
	}
}

// emptyDir fails unless dir holds no file: no output, no temporary file.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left in the output directory", e.Name())
	}
}

// TestRewriteDamagedSource damages one byte inside a compressed block and
// inside an uncompressed block of containers of each kind, and requires
// both rewrite layouts, and ReadChunk, to fail naming the damaged chunk
// and block, writing nothing; the undamaged container must still rewrite,
// byte for byte in the preserve layout.
func TestRewriteDamagedSource(t *testing.T) {
	for _, src := range damageSources(t) {
		for _, kind := range append([]string{"undamaged"}, src.kinds...) {
			t.Run(src.name+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				in := filepath.Join(dir, "in")
				if err := os.Mkdir(in, 0o755); err != nil {
					t.Fatal(err)
				}
				utoc := src.make(t, in)
				c, err := iostore.Open(utoc, &iostore.Options{Key: src.key})
				if err != nil {
					t.Fatal(err)
				}
				k, ch, ok := -1, iostore.Chunk{}, true
				if kind != "undamaged" {
					k, ch, ok = damagedBlock(c, kind == "compressed")
				}
				c.Close()
				if !ok {
					t.Fatalf("%s has no %s block", src.name, kind)
				}
				if k >= 0 {
					damage(t, c, utoc, k)
				}
				c, err = iostore.Open(utoc, &iostore.Options{Key: src.key})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				path := c.GamePath(ch.Index)
				for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
					outDir := filepath.Join(dir, "out-"+layout.String())
					if err := os.Mkdir(outDir, 0o755); err != nil {
						t.Fatal(err)
					}
					out := filepath.Join(outDir, filepath.Base(utoc))
					res, err := iostore.Rewrite(c, out, nil, &iostore.RewriteOptions{Layout: layout})
					if k < 0 {
						if err != nil {
							t.Fatalf("%v: %v", layout, err)
						}
						if res.Unchecked != 0 {
							t.Errorf("%v: %d chunks not checked", layout, res.Unchecked)
						}
						if layout == iostore.Preserve {
							sameFiles(t, utoc, out, 1)
						} else {
							sameChunks(t, c, out, src.key, nil)
						}
						continue
					}
					wantDamaged(t, err, utoc, ch, path, k)
					emptyDir(t, outDir)
				}
				if k >= 0 {
					_, err := c.ReadChunk(ch.Index)
					wantDamaged(t, err, utoc, ch, path, k)
					r, err := c.OpenChunk(ch.Index)
					if err != nil {
						t.Fatal(err)
					}
					_, err = io.ReadAll(r)
					wantDamaged(t, err, utoc, ch, path, k)
					if ch.Type == iostore.ChunkContainerHeader {
						// What pack --base and patches take store entries from.
						_, err := c.ContainerHeader()
						wantDamaged(t, err, utoc, ch, path, k)
					}
				}
			})
		}
	}
}

// TestCheckWithoutKey reads and copies chunks of the encrypted demo
// container opened without its key: that is a missing key, which the
// error says, not damage.
func TestCheckWithoutKey(t *testing.T) {
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	utoc, err := demos[1].Container.WriteFiles(dir, demos[1].Name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var d *iostore.DamagedChunkError
	if _, err := c.ReadChunk(0); !errors.Is(err, iostore.ErrKeyRequired) || errors.As(err, &d) {
		t.Errorf("ReadChunk: %v, want ErrKeyRequired", err)
	}
	w, err := iostore.NewWriter(filepath.Join(dir, "out", "Copy.utoc"), &iostore.WriterOptions{Version: c.Header().Version})
	if err != nil {
		t.Fatal(err)
	}
	err = w.CopyChunk(c, 0, "")
	if err == nil {
		err = w.Close()
	} else {
		w.Abort()
	}
	if !errors.Is(err, iostore.ErrKeyRequired) || errors.As(err, &d) {
		t.Errorf("CopyChunk: %v, want ErrKeyRequired", err)
	}
}

// TestRewriteDamagedPackages damages the blocks of package chunks, which
// the rewrite verifies (decoded as zen packages) while it copies the
// others, and requires both layouts to fail with the *DamagedChunkError of
// the first damaged package by chunk index, whatever else is damaged and
// whether or not the output can be written, and to write nothing.
func TestRewriteDamagedPackages(t *testing.T) {
	const rel = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	src := corpus.Path(t, rel)
	c, err := iostore.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := c.Header().Version
	// Package chunks with a compressed block, by index; and the chunk
	// that is not a package with the most compressed blocks.
	var pkgs []iostore.Chunk
	var other iostore.Chunk
	mid := map[int]int{} // chunk index → its middle compressed block
	for _, ch := range c.Chunks() {
		var ks []int
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			if c.TOC().Blocks[k].Method != 0 {
				ks = append(ks, k)
			}
		}
		if len(ks) == 0 {
			continue
		}
		mid[ch.Index] = ks[len(ks)/2]
		switch {
		case ch.Type == iostore.ChunkExportBundleData && ch.ID.Index(v) == 0:
			pkgs = append(pkgs, ch)
		case ch.Type != iostore.ChunkContainerHeader && ch.NumBlocks > other.NumBlocks:
			other = ch
		}
	}
	c.Close()
	if len(pkgs) < 2 || other.NumBlocks == 0 {
		t.Fatalf("%s: %d package chunks with compressed blocks, want 2 and another chunk", rel, len(pkgs))
	}
	first, last := pkgs[0], pkgs[len(pkgs)-1]
	for _, tc := range []struct {
		name    string
		damaged []iostore.Chunk
		noDir   bool // the output's folder is a file
	}{
		{"one package", []iostore.Chunk{first}, false},
		{"two packages", []iostore.Chunk{last, first}, false},
		{"package and bulk data", []iostore.Chunk{other, last}, false},
		{"output not writable", []iostore.Chunk{first}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			utoc := filepath.Join(dir, filepath.Base(src))
			for _, f := range []string{src, iostore.PartitionPath(src, 0)} {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				dst := utoc
				if strings.HasSuffix(f, ".ucas") {
					dst = iostore.PartitionPath(utoc, 0)
				}
				if err := os.WriteFile(dst, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range tc.damaged {
				damage(t, c, utoc, mid[ch.Index])
			}
			c.Close()
			c, err = iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The package of lowest index among the damaged ones.
			want := iostore.Chunk{Index: -1}
			for _, ch := range tc.damaged {
				if ch.Type == iostore.ChunkExportBundleData && (want.Index < 0 || ch.Index < want.Index) {
					want = ch
				}
			}
			for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
				outDir := filepath.Join(dir, "out-"+layout.String())
				mk := func() error { return os.Mkdir(outDir, 0o755) }
				if tc.noDir {
					mk = func() error { return os.WriteFile(outDir, nil, 0o644) }
				}
				if err := mk(); err != nil {
					t.Fatal(err)
				}
				_, err := iostore.Rewrite(c, filepath.Join(outDir, filepath.Base(utoc)), nil, &iostore.RewriteOptions{Layout: layout})
				wantDamaged(t, err, utoc, want, c.GamePath(want.Index), mid[want.Index])
				if !tc.noDir {
					emptyDir(t, outDir)
				}
			}
		})
	}
}

// changingReader is a .ucas whose bytes change after they are first read,
// as a file another program writes to while it is copied: every read
// after the first one that reaches [lo, hi) gets the byte at at flipped.
type changingReader struct {
	data      []byte
	lo, hi    int64
	at        int64
	mu        sync.Mutex
	reads     int // reads that reached [lo, hi)
	changedAt int // reads that got the changed byte
}

func (r *changingReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	if off < r.hi && off+int64(n) > r.lo {
		r.mu.Lock()
		r.reads++
		if r.reads > 1 && off <= r.at && r.at < off+int64(n) {
			p[r.at-off] ^= 0x20
			r.changedAt++
		}
		r.mu.Unlock()
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestCopyReadsOnce rewrites (compact layout) a container whose .ucas
// changes under the copy: a compressed block of bulk data reads back
// different after its first read. The Writer reads each copied block once,
// for the check and the copy both, so the output holds the bytes it
// checked, and verifies; reading them twice would either fail or, worse,
// copy bytes that no check saw.
func TestCopyReadsOnce(t *testing.T) {
	const rel = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	src := corpus.Path(t, rel)
	toc, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := os.ReadFile(iostore.PartitionPath(src, 0))
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := c.Header().Version
	// The middle compressed block of the largest chunk that is neither a
	// package nor the container header (whose data Rewrite verifies
	// before it copies them).
	k := -1
	best := 0
	for _, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkContainerHeader || ch.Type == iostore.ChunkExportBundleData && ch.ID.Index(v) == 0 {
			continue
		}
		var ks []int
		for b := ch.FirstBlock; b < ch.FirstBlock+ch.NumBlocks; b++ {
			if c.TOC().Blocks[b].Method != 0 {
				ks = append(ks, b)
			}
		}
		if len(ks) > best {
			best, k = len(ks), ks[len(ks)/2]
		}
	}
	c.Close()
	if k < 0 {
		t.Fatalf("%s: no compressed block of bulk data", rel)
	}
	b := c.TOC().Blocks[k]
	r := &changingReader{data: cas, lo: int64(b.Offset), hi: int64(b.Offset) + int64(b.CompressedSize), at: int64(b.Offset) + int64(b.CompressedSize)/2}
	name := filepath.Join(t.TempDir(), filepath.Base(src))
	in, err := iostore.OpenReaders(name, toc, []iostore.Partition{{Name: iostore.PartitionPath(name, 0), R: r, Size: int64(len(cas))}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(src))
	if _, err := iostore.Rewrite(in, out, nil, &iostore.RewriteOptions{Layout: iostore.Compact}); err != nil {
		t.Fatalf("%v (block %d read %d times, %d of them changed)", err, k, r.reads, r.changedAt)
	}
	if r.reads != 1 {
		t.Errorf("block %d read %d times", k, r.reads)
	}
	orig, err := iostore.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	sameChunks(t, orig, out, nil, nil)
}
