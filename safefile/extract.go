package safefile

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// What an extract (of a container or a pak) checks and cleans, so that a
// failure leaves no new file under a real name and no folder it created.

// MaxNameLen is the longest file name most file systems take, in bytes.
const MaxNameLen = 255

// CheckRelPath accepts only a plain relative '/'-separated path made of
// normal components: not empty, not absolute, no backslash or NUL, no
// empty, "." or ".." component, no colon (a drive letter or an NTFS
// stream). It is what keeps a name read from a file inside the folder it
// is extracted to.
func CheckRelPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") {
		return errors.New("absolute or empty path")
	}
	if strings.ContainsAny(p, "\\\x00") {
		return errors.New("contains a backslash or NUL")
	}
	for part := range strings.SplitSeq(p, "/") {
		switch {
		case part == "" || part == "." || part == "..":
			return fmt.Errorf("component %q", part)
		case strings.Contains(part, ":"):
			return fmt.Errorf("component %q contains a colon (drive letter or stream)", part)
		}
	}
	return nil
}

// CheckNameLengths refuses a '/'-separated path with a component longer
// than file systems take (MaxNameLen bytes).
func CheckNameLengths(p string) error {
	for part := range strings.SplitSeq(p, "/") {
		if len(part) > MaxNameLen {
			return fmt.Errorf("the name %.40q… is %d bytes long; file systems take at most %d", part, len(part), MaxNameLen)
		}
	}
	return nil
}

// NewDirs returns the folders that writing the '/'-separated paths under
// dir would create (dir and its parents too, where they do not exist),
// deepest first, so that a failed extract can remove them (RemoveDirs).
func NewDirs(dir string, paths []string) []string {
	want := map[string]bool{}
	for p := filepath.Clean(dir); ; {
		want[p] = true
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			full := filepath.Join(dir, filepath.FromSlash(d))
			if want[full] {
				break
			}
			want[full] = true
		}
	}
	var out []string
	for d := range want {
		if _, err := os.Lstat(d); errors.Is(err, os.ErrNotExist) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}

// RemoveDirs removes the folders dirs, deepest first as NewDirs lists
// them, that are still empty.
func RemoveDirs(dirs []string) {
	for _, d := range dirs {
		os.Remove(d)
	}
}
