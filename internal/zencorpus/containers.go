package zencorpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
)

// ContainersWith returns the corpus's containers under iostore/ whose TOC
// names method ("Zlib", "Oodle"), with their .ucas beside them in one
// partition and not encrypted: the containers a test can copy and write
// again with no key. They are found by kind, so new corpus files join in;
// none fails tb.
func ContainersWith(tb testing.TB, method string) []string {
	tb.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(corpus.Dir(tb), "iostore"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".utoc") {
			return nil
		}
		if _, err := os.Stat(iostore.PartitionPath(p, 0)); err != nil {
			return nil
		}
		c, err := iostore.Open(p, nil)
		if err != nil {
			return nil
		}
		defer c.Close()
		h := c.Header()
		if n, _ := h.Partitions(); n == 1 && h.Encryption() == iostore.EncryptionNone && slices.Contains(c.TOC().Methods, method) {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		tb.Fatalf("no corpus container with %s blocks in one partition, not encrypted", method)
	}
	return out
}

// CopyContainer copies the container utoc, its .utoc and every .ucas
// partition, into dir (made when missing) under name ("" keeps utoc's)
// and returns the copy's .utoc.
func CopyContainer(tb testing.TB, utoc, dir, name string) string {
	tb.Helper()
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		tb.Fatal(err)
	}
	n := len(c.Partitions())
	c.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if name == "" {
		name = filepath.Base(utoc)
	}
	out := filepath.Join(dir, iostore.TocPath(name))
	for i := -1; i < n; i++ {
		src, dst := utoc, out
		if i >= 0 {
			src, dst = iostore.PartitionPath(utoc, i), iostore.PartitionPath(out, i)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}
