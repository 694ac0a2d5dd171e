package iostore_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
)

// corpusName names a corpus file in a test's name: its path in the corpus.
func corpusName(p string) string {
	if rel, err := filepath.Rel(os.Getenv("UNRMOD_CORPUS"), p); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(p)
}

// sameContainer fails unless the containers a and b (one partition) are
// byte for byte the same files.
func sameContainer(t *testing.T, a, b string) {
	t.Helper()
	for _, p := range [][2]string{{a, b}, {iostore.PartitionPath(a, 0), iostore.PartitionPath(b, 0)}} {
		x, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(p[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s and %s differ", p[0], p[1])
		}
	}
}

// changeOf returns a change that rewrites chunk i of c with its own data
// with a byte appended: a change the output check accepts for any chunk
// that is not a package.
func changeOf(t *testing.T, c *iostore.Container) iostore.ChunkChange {
	t.Helper()
	for _, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkBulkData {
			data, err := c.ReadChunk(ch.Index)
			if err != nil {
				t.Fatal(err)
			}
			return iostore.ChunkChange{ID: ch.ID, Data: bytes.NewReader(append(data, 0x5A))}
		}
	}
	t.Fatal("no bulk data chunk")
	return iostore.ChunkChange{}
}

// TestRewriteSourceChecked: a Zlib container whose source passed the
// whole check gives, with SourceChecked, the output the checked rewrite
// gives, byte for byte, in both layouts, with and without a change; the
// checked rewrite of a sound source says it checked it whole.
func TestRewriteSourceChecked(t *testing.T) {
	for _, utoc := range zencorpus.ContainersWith(t, "Zlib") {
		for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
			for _, changed := range []bool{false, true} {
				t.Run(corpusName(utoc)+"/"+layout.String()+map[bool]string{false: "/unchanged", true: "/changed"}[changed], func(t *testing.T) {
					dir := t.TempDir()
					c, err := iostore.Open(utoc, nil)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					write := func(name string, remembered bool) (string, *iostore.RewriteResult) {
						var changes []iostore.ChunkChange
						if changed {
							changes = append(changes, changeOf(t, c))
						}
						out := filepath.Join(dir, name, filepath.Base(utoc))
						res, err := iostore.Rewrite(c, out, changes, &iostore.RewriteOptions{Layout: layout, SourceChecked: remembered})
						if err != nil {
							t.Fatal(err)
						}
						return out, res
					}
					checked, cres := write("checked", false)
					remembered, rres := write("remembered", true)
					sameContainer(t, checked, remembered)
					if !cres.SourceVerified {
						t.Errorf("the checked rewrite of a sound source: SourceVerified false")
					}
					if rres.SourceVerified {
						t.Errorf("the rewrite with SourceChecked: SourceVerified true, but it checked nothing of the source")
					}
					if cres.Copied != rres.Copied || cres.Written != rres.Written || cres.Identical != rres.Identical || layout == iostore.Preserve && cres.Identical == changed {
						t.Errorf("results differ: checked %+v, remembered %+v", cres, rres)
					}
				})
			}
		}
	}
}

// TestRewriteSourceCheckedSkipsTheCheck: a source with a damaged block is
// refused with a *DamagedChunkError, but copied with SourceChecked (which
// proves that the check was skipped: the caller vouched for the files);
// a damaged chunk the changes replace fails nothing but SourceVerified.
func TestRewriteSourceCheckedSkipsTheCheck(t *testing.T) {
	for _, utoc := range zencorpus.ContainersWith(t, "Zlib") {
		for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
			t.Run(corpusName(utoc)+"/"+layout.String(), func(t *testing.T) {
				dir := t.TempDir()
				src := zencorpus.CopyContainer(t, utoc, dir, "")
				c, err := iostore.Open(src, nil)
				if err != nil {
					t.Fatal(err)
				}
				k, ch, ok := damagedBlock(c, true)
				if !ok {
					t.Fatal("no compressed block")
				}
				original, err := c.ReadChunk(ch.Index)
				if err != nil {
					t.Fatal(err)
				}
				c.Close()
				damage(t, c, src, k)
				c, err = iostore.Open(src, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				out := func(name string) string { return filepath.Join(dir, name, filepath.Base(utoc)) }

				_, err = iostore.Rewrite(c, out("checked"), nil, &iostore.RewriteOptions{Layout: layout})
				var d *iostore.DamagedChunkError
				if !errors.As(err, &d) || d.ID != ch.ID {
					t.Fatalf("checked rewrite of a damaged source: %v, want the *DamagedChunkError of chunk %v", err, ch.ID)
				}
				res, err := iostore.Rewrite(c, out("remembered"), nil, &iostore.RewriteOptions{Layout: layout, SourceChecked: true})
				if err != nil {
					t.Fatalf("rewrite with SourceChecked: %v", err)
				}
				if res.SourceVerified || res.Copied != len(c.Chunks()) {
					t.Errorf("rewrite with SourceChecked: %+v", res)
				}
				if layout == iostore.Preserve && !res.Identical {
					t.Errorf("the preserve copy of the damaged source is not identical")
				}

				// The damaged chunk replaced by its sound data: a repair.
				repair := []iostore.ChunkChange{{ID: ch.ID, Data: bytes.NewReader(original)}}
				res, err = iostore.Rewrite(c, out("repaired"), repair, &iostore.RewriteOptions{Layout: layout})
				if err != nil {
					t.Fatalf("rewrite replacing the damaged chunk: %v", err)
				}
				if res.SourceVerified {
					t.Errorf("a source with a damaged chunk, replaced: SourceVerified true")
				}
				r, err := iostore.Open(out("repaired"), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if rep := r.Verify(nil); !rep.OK() {
					t.Errorf("the repaired container fails verification: %v", rep.Problems)
				}

				// The same change on the sound source: checked whole.
				sound, err := iostore.Open(utoc, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer sound.Close()
				repair = []iostore.ChunkChange{{ID: ch.ID, Data: bytes.NewReader(original)}}
				res, err = iostore.Rewrite(sound, out("sound"), repair, &iostore.RewriteOptions{Layout: layout})
				if err != nil {
					t.Fatal(err)
				}
				if !res.SourceVerified {
					t.Errorf("the sound source with the same change: SourceVerified false")
				}
			})
		}
	}
}

// TestRewriteSourceVerifiedUnchecked: a source whose blocks no decoder
// reads (Oodle without the game's library) is never checked whole.
func TestRewriteSourceVerifiedUnchecked(t *testing.T) {
	for _, utoc := range zencorpus.ContainersWith(t, "Oodle") {
		t.Run(corpusName(utoc), func(t *testing.T) {
			c, err := iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := iostore.Rewrite(c, filepath.Join(t.TempDir(), filepath.Base(utoc)), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Unchecked == 0 || res.SourceVerified {
				t.Errorf("Unchecked %d, SourceVerified %v; want chunks unchecked and not verified", res.Unchecked, res.SourceVerified)
			}
			if !bytes.Contains([]byte(c.CheckBasis()), []byte("Oodle(no decoder)")) {
				t.Errorf("CheckBasis %q does not say that no decoder reads Oodle", c.CheckBasis())
			}
		})
	}
}

// TestContainerFileIDs: a container's file identities are those of its
// .utoc and .ucas, and change when the .ucas is written to; a container
// read through OpenReaders has none.
func TestContainerFileIDs(t *testing.T) {
	utoc := zencorpus.ContainersWith(t, "Zlib")[0]
	src := zencorpus.CopyContainer(t, utoc, t.TempDir(), "")
	c, err := iostore.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ids, err := c.FileIDs()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(iostore.PartitionPath(src, 0))
	tst, _ := os.Stat(src)
	if len(ids) != 2 || ids[0].Size != tst.Size() || ids[1].Size != st.Size() {
		t.Fatalf("FileIDs %v", ids)
	}
	f, err := os.OpenFile(iostore.PartitionPath(src, 0), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()
	again, err := c.FileIDs()
	if err != nil {
		t.Fatal(err)
	}
	if again[0] != ids[0] || again[1] == ids[1] {
		t.Errorf("after a write to the .ucas: %v, before %v", again, ids)
	}
	data, _ := os.ReadFile(src)
	r, err := iostore.OpenReaders(src, data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.FileIDs(); !errors.Is(err, iostore.ErrNoFileID) {
		t.Errorf("FileIDs of OpenReaders: %v, want ErrNoFileID", err)
	}
	var _ []safefile.FileID = ids
}
