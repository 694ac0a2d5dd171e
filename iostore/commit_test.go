package iostore_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
)

// tcCommitContainer is one version of a container and its .pak: chunks of
// data from seed, in partitions of 64 KiB.
type tcCommitContainer struct {
	seed   uint64
	chunks int
}

func (v tcCommitContainer) data(i int) []byte { return tcData(v.seed*100+uint64(i), 50000) }
func (v tcCommitContainer) pak() []byte       { return []byte(fmt.Sprintf("pak %d", v.seed)) }

// stage writes v to utoc with the Writer (staged, not committed) and its
// .pak as a companion.
func (v tcCommitContainer) stage(t *testing.T, utoc string, sess *safefile.Session) *iostore.Writer {
	t.Helper()
	w, err := iostore.NewWriter(utoc, &iostore.WriterOptions{Version: iostore.VersionPartitionSize, Method: "None",
		PartitionSize: 64 << 10, Session: sess, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.chunks {
		id, _ := iostore.NewChunkID(uint64(i+1), 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
		if err := w.AddChunk(id, fmt.Sprintf("Game/Content/C%d.ubulk", i), bytes.NewReader(v.data(i))); err != nil {
			t.Fatal(err)
		}
	}
	f, err := w.CreateCompanion(strings.TrimSuffix(utoc, ".utoc") + ".pak")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(v.pak())
	if err := w.Stage(); err != nil {
		t.Fatal(err)
	}
	return w
}

// is reports whether the container at utoc, with its .pak and nothing
// beyond its partitions, is v and verifies.
func (v tcCommitContainer) is(utoc string) error {
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	if r := c.Verify(nil); !r.OK() {
		return fmt.Errorf("fails verify: %v", r.Problems)
	}
	if len(c.Chunks()) != v.chunks {
		return fmt.Errorf("%d chunks, want %d", len(c.Chunks()), v.chunks)
	}
	for i := range v.chunks {
		id, _ := iostore.NewChunkID(uint64(i+1), 0, iostore.ChunkBulkData, iostore.VersionPartitionSize)
		k, ok := c.Find(id)
		if !ok {
			return fmt.Errorf("chunk %d missing", i)
		}
		if data, err := c.ReadChunk(k); err != nil || !bytes.Equal(data, v.data(i)) {
			return fmt.Errorf("chunk %d differs (%v)", i, err)
		}
	}
	if pak, _ := os.ReadFile(strings.TrimSuffix(utoc, ".utoc") + ".pak"); !bytes.Equal(pak, v.pak()) {
		return fmt.Errorf(".pak %q, want %q", pak, v.pak())
	}
	if _, err := os.Stat(iostore.PartitionPath(utoc, len(c.Partitions()))); err == nil {
		return fmt.Errorf("a partition beyond the container's %d", len(c.Partitions()))
	}
	return nil
}

// tcKilled is what a test's CommitHook panics with to stop a commit as a
// kill would.
type tcKilled struct{}

// TestContainerCommitKilled writes a container of 2 partitions and a .pak
// over one of 4, and kills the run before each step of its commit: the
// next run that locks the container (here to write it again, unchanged)
// finishes the commit first, and the container is then the new one,
// verified, never a mix of the two.
func TestContainerCommitKilled(t *testing.T) {
	old, new := tcCommitContainer{seed: 1, chunks: 4}, tcCommitContainer{seed: 2, chunks: 2}
	for k := 0; ; k++ {
		dir := t.TempDir()
		utoc := filepath.Join(dir, "z_Mod_P.utoc")
		old.stage(t, utoc, &safefile.Session{LockDir: t.TempDir()}).Commit()
		if err := old.is(utoc); err != nil {
			t.Fatalf("the old container: %v", err)
		}
		locks := t.TempDir()
		sess := &safefile.Session{LockDir: locks, CommitHook: func(step int) error {
			if step == k {
				panic(tcKilled{})
			}
			return nil
		}}
		w := new.stage(t, utoc, sess)
		killed := func() (killed bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(tcKilled); !ok {
						panic(r)
					}
					killed = true
				}
			}()
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			return false
		}()
		if !killed {
			if k < 8 {
				t.Fatalf("the commit ran %d steps", k)
			}
			if err := new.is(utoc); err != nil {
				t.Fatal(err)
			}
			break
		}
		var log []string
		next := &safefile.Session{LockDir: locks, Log: func(m string) { log = append(log, m) }}
		w = new.stage(t, utoc, next)
		if !w.Unchanged() {
			t.Errorf("step %d: the staged container differs from the one on disk", k)
		}
		w.Abort()
		if err := new.is(utoc); err != nil {
			t.Fatalf("killed before step %d, then recovered: %v", k, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 4 {
			t.Errorf("step %d: %d files left, want the .utoc, 2 partitions and the .pak", k, len(ents))
		}
		if k < 8 && (len(log) == 0 || !strings.HasPrefix(log[0], "finished an interrupted unrmod write of 6 files in "+dir)) {
			t.Errorf("step %d: log %q", k, log)
		}
	}
}

// TestContainerCommitRenameFails fails each rename of the commit in turn,
// as a file another program holds open would: Commit returns an error that
// names the file, and the container is the old one, verified, with nothing
// of the new one left.
func TestContainerCommitRenameFails(t *testing.T) {
	old, new := tcCommitContainer{seed: 1, chunks: 4}, tcCommitContainer{seed: 2, chunks: 2}
	for k := 0; k < 10; k++ { // 8 renames of 4 files, 2 removals
		dir := t.TempDir()
		utoc := filepath.Join(dir, "z_Mod_P.utoc")
		old.stage(t, utoc, nil).Commit()
		failed := errors.New("the process cannot access the file")
		sess := &safefile.Session{LockDir: t.TempDir(), CommitHook: func(step int) error {
			if step == k {
				return failed
			}
			return nil
		}}
		err := new.stage(t, utoc, sess).Commit()
		var ce *safefile.CommitError
		if !errors.As(err, &ce) || !errors.Is(err, failed) || !ce.RolledBack || !strings.Contains(err.Error(), dir) {
			t.Fatalf("step %d: %v", k, err)
		}
		if err := old.is(utoc); err != nil {
			t.Fatalf("step %d: after the failed rename: %v", k, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 6 {
			t.Errorf("step %d: %d files left, want the .utoc, 4 partitions and the .pak", k, len(ents))
		}
	}
}
