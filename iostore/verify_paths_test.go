package iostore

import (
	"slices"
	"strings"
	"testing"
)

// TestDuplicatePaths checks the search for directory-index paths that
// differ only in case, which Verify reports, against a plain map of the
// lower-cased paths, with foldHash and with a hash that makes every path
// collide (so that every pair of paths is compared).
func TestDuplicatePaths(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  []duplicatePath // position in the files, first file's entry
	}{
		{"none", []string{"Content/A.uasset", "Content/B.uasset", "Content/Sub/A.uasset"}, nil},
		{"case", []string{"Content/A.uasset", "Content/B.uasset", "content/a.UASSET"}, []duplicatePath{{2, 100}}},
		{"three", []string{"a", "A", "b", "a"}, []duplicatePath{{1, 100}, {3, 100}}},
		{"two pairs", []string{"x/Y", "p", "X/y", "P"}, []duplicatePath{{2, 100}, {3, 101}}},
		{"non-ASCII", []string{"Content/Élan.uasset", "Content/élan.uasset", "Content/Ελα", "Content/ελα"}, []duplicatePath{{1, 100}, {3, 102}}},
		{"empty", nil, nil},
	}
	for _, tc := range tests {
		files := make([]IndexedFile, len(tc.paths))
		for k, p := range tc.paths {
			files[k] = IndexedFile{Path: p, Chunk: uint32(k), Entry: 100 + k}
		}
		// What a map of the lower-cased paths finds.
		var plain []duplicatePath
		seen := map[string]int{}
		for k, f := range files {
			key := strings.ToLower(f.Path)
			if e, dup := seen[key]; dup {
				plain = append(plain, duplicatePath{k, e})
				continue
			}
			seen[key] = f.Entry
		}
		if !slices.Equal(plain, tc.want) {
			t.Fatalf("%s: the table is wrong: a map finds %v", tc.name, plain)
		}
		for hname, hash := range map[string]func(string) uint64{"foldHash": foldHash, "colliding": func(string) uint64 { return 7 }} {
			if got := duplicatePaths(files, hash); !slices.Equal(got, tc.want) {
				t.Errorf("%s, %s: got %v, want %v", tc.name, hname, got, tc.want)
			}
		}
	}
	// foldHash hashes the lower-cased path.
	for _, s := range []string{"Content/A.uasset", "ÉLAN/x", "ΕΛΑ", ""} {
		if foldHash(s) != foldHash(strings.ToLower(s)) {
			t.Errorf("foldHash(%q) differs from the hash of its lower case", s)
		}
	}
}
