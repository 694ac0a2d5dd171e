package iostore_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// sameFiles fails unless the container at got has the same .utoc and
// .ucas bytes as want.
func sameFiles(t *testing.T, want, got string, parts int) {
	t.Helper()
	for i := -1; i < parts; i++ {
		a, b := want, got
		if i >= 0 {
			a, b = iostore.PartitionPath(want, i), iostore.PartitionPath(got, i)
		}
		x, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			n := 0
			for n < min(len(x), len(y)) && x[n] == y[n] {
				n++
			}
			t.Errorf("%s: %d bytes, want %d; first difference at %d", filepath.Base(b), len(y), len(x), n)
		}
	}
}

// TestRewriteCorpus rewrites every corpus container: preserve without
// changes must give the same files byte for byte; compact must verify and
// hold the same chunks; preserve and compact with one chunk replaced must
// verify and hold the new data.
func TestRewriteCorpus(t *testing.T) {
	demo := []string{"../examples/containers/UnrmodDemo427_P.utoc", "../examples/containers/UnrmodDemo58_P.utoc"}
	for _, utoc := range append(demo, corpusContainers(t)...) {
		key := corpusKey(t, utoc)
		src, err := iostore.Open(utoc, &iostore.Options{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		name := filepath.Base(utoc)
		parts := len(src.Partitions())
		if h := src.Header(); h.Encryption() != iostore.EncryptionNone && key == nil {
			t.Fatalf("%s: encrypted, no key", utoc)
		}
		t.Run(name+"/preserve", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name)
			res, err := iostore.Rewrite(src, out, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameFiles(t, utoc, out, parts)
			// Every chunk is checked against its hash but those no
			// decoder reads (Oodle).
			undecodable := 0
			for i := range src.Chunks() {
				for _, m := range src.ChunkMethods(i) {
					if !ue.NewCodecs().CanDecode(m) {
						undecodable++
						break
					}
				}
			}
			if res.Copied != len(src.Chunks()) || res.DeadBytes != 0 || res.Unchecked != undecodable {
				t.Errorf("result %+v, want %d chunks unchecked", res, undecodable)
			}
		})
		t.Run(name+"/compact", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name)
			if _, err := iostore.Rewrite(src, out, nil, &iostore.RewriteOptions{Layout: iostore.Compact, Verify: iostore.VerifyAll}); err != nil {
				t.Fatal(err)
			}
			sameChunks(t, src, out, key, nil)
		})
		// Replace the first chunk that has a path with new bytes.
		var target iostore.Chunk
		for _, ch := range src.Chunks() {
			if ch.Path != "" && ch.Type != iostore.ChunkExportBundleData {
				target = ch
				break
			}
		}
		if target.Size == 0 {
			continue
		}
		data := bytes.Repeat([]byte("unrmod "), 30000)
		for _, lay := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
			t.Run(name+"/replace-"+lay.String(), func(t *testing.T) {
				out := filepath.Join(t.TempDir(), name)
				res, err := iostore.Rewrite(src, out, []iostore.ChunkChange{{ID: target.ID, Data: bytes.NewReader(data)}}, &iostore.RewriteOptions{Layout: lay})
				if err != nil {
					t.Fatal(err)
				}
				if res.Written != 1 || (lay == iostore.Preserve) != (res.DeadBytes > 0) {
					t.Errorf("result %+v", res)
				}
				sameChunks(t, src, out, key, map[iostore.ChunkID][]byte{target.ID: data})
			})
		}
	}
}

// openVerified opens the container written at out, closed when the test
// ends, and requires it to pass Verify.
func openVerified(t *testing.T, out string, key *ue.Key) *iostore.Container {
	t.Helper()
	got, err := iostore.Open(out, &iostore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { got.Close() })
	if r := got.Verify(nil); !r.OK() {
		t.Fatalf("output fails verify: %v", r.Problems)
	}
	return got
}

// findChunk returns the index and entry in got of the chunk with ch's id,
// which it must hold.
func findChunk(t *testing.T, got *iostore.Container, ch iostore.Chunk) (int, iostore.Chunk) {
	t.Helper()
	i, ok := got.Find(ch.ID)
	if !ok {
		t.Fatalf("chunk %v missing", ch.ID)
	}
	return i, got.Chunks()[i]
}

// sameChunks opens out, verifies it and compares every chunk with src,
// except those in replaced, which must hold the given data.
func sameChunks(t *testing.T, src *iostore.Container, out string, key *ue.Key, replaced map[iostore.ChunkID][]byte) {
	t.Helper()
	got := openVerified(t, out, key)
	if len(got.Chunks()) != len(src.Chunks()) {
		t.Fatalf("%d chunks, want %d", len(got.Chunks()), len(src.Chunks()))
	}
	for _, ch := range src.Chunks() {
		i, g := findChunk(t, got, ch)
		if g.Path != ch.Path {
			t.Errorf("chunk %v: path %q, want %q", ch.ID, g.Path, ch.Path)
		}
		if want, ok := replaced[ch.ID]; ok {
			data, err := got.ReadChunk(i)
			if err != nil || !bytes.Equal(data, want) {
				t.Errorf("replaced chunk %v: %d bytes (%v), want %d", ch.ID, len(data), err, len(want))
			}
			continue
		}
		if g.Size != ch.Size || g.Meta.Hash != ch.Meta.Hash {
			t.Errorf("chunk %v: size %d, want %d, or hash differs", ch.ID, g.Size, ch.Size)
		}
		if g.Meta.Flags != ch.Meta.Flags {
			t.Errorf("chunk %v: meta flags %v, want %v", ch.ID, g.Meta.Flags, ch.Meta.Flags)
		}
		for k := 0; k < ch.NumBlocks; k++ {
			a, err1 := src.ReadStoredBlock(ch.FirstBlock + k)
			b, err2 := got.ReadStoredBlock(g.FirstBlock + k)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Fatalf("chunk %v block %d differs (%v, %v)", ch.ID, k, err1, err2)
			}
		}
	}
}

// TestRewriteBuilt rewrites containers of every TOC version unrmod writes,
// with every method, with and without AES and partitions: preserve must
// give the same files, compact the same chunks, and both must verify.
func TestRewriteBuilt(t *testing.T) {
	for _, v := range []iostore.TocVersion{2, 3, 5, 6, 8} {
		for _, method := range []string{"None", "Zlib", "Gzip", "LZ4"} {
			for _, enc := range []bool{false, true} {
				for _, part := range []bool{false, true} {
					if part && !v.HasPartitions() {
						continue
					}
					t.Run(fmt.Sprintf("v%d-%s-enc%v-parts%v", v, method, enc, part), func(t *testing.T) {
						var key *ue.Key
						if enc {
							key = tcTestKey()
						}
						b := tcSynthetic(t, v, method, key)
						if part {
							tcPartition(t, b)
						}
						src := tcBuildOpen(t, b, "Test", key)
						dir := t.TempDir()
						out := filepath.Join(dir, "preserve", "Test.utoc")
						if _, err := iostore.Rewrite(src, out, nil, nil); err != nil {
							t.Fatal(err)
						}
						sameFiles(t, filepath.Join(filepath.Dir(src.File()), "Test.utoc"), out, len(src.Partitions()))
						out = filepath.Join(dir, "compact", "Test.utoc")
						if _, err := iostore.Rewrite(src, out, nil, &iostore.RewriteOptions{Layout: iostore.Compact, Verify: iostore.VerifyAll}); err != nil {
							t.Fatal(err)
						}
						sameChunks(t, src, out, key, nil)
					})
				}
			}
		}
	}
}

// TestRewriteStagedRenamesNothing stages a rewrite and aborts it: no file
// may appear under the output's name, and the staged files go.
func TestRewriteStagedRenamesNothing(t *testing.T) {
	src := tcOpen(t, tcZlib, nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "Staged-Windows.utoc")
	for _, lay := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
		w, _, err := iostore.RewriteStaged(src, out, nil, &iostore.RewriteOptions{Layout: lay})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s exists before Commit (%v)", lay, out, err)
		}
		w.Abort()
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%v: %d files left after Abort", lay, len(left))
		}
	}
}
