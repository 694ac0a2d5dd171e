package safefile

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkBatchCommit stages and commits a container's three files (64
// KiB each) over existing ones: the files' syncs, and for several files the
// commit record's write and syncs.
func BenchmarkBatchCommit(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			data := make([]byte, 64<<10)
			for b.Loop() {
				batch := Batch{Session: &Session{LockDir: dir}}
				for i := range n {
					if err := batch.Add(filepath.Join(dir, fmt.Sprintf("f%d", i)), data, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				if err := batch.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
