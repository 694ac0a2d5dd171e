// Package fstree lists folder trees for tests that check what a write
// left on disk.
package fstree

import (
	"io/fs"
	"path/filepath"
	"sort"
)

// List returns every file and folder under dir (dir itself left out),
// '/'-separated and relative to dir, folders with a trailing '/', sorted.
// Entries that cannot be read are left out.
func List(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out
}
