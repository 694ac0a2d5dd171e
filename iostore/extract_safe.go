package iostore

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/safefile"
)

// What Extract checks and cleans so that a failure leaves no new file
// under a real name and no folder it created.

// maxNameLen is the longest file name most file systems take, in bytes.
const maxNameLen = 255

// checkNameLengths refuses an output path with a component no file system
// takes.
func checkNameLengths(p string) error {
	for _, part := range strings.Split(p, "/") {
		if len(part) > maxNameLen {
			return fmt.Errorf("the name %.40q… is %d bytes long; file systems take at most %d", part, len(part), maxNameLen)
		}
	}
	return nil
}

// newDirs returns the folders Extract would create for the output paths
// under dir (dir too when it does not exist), deepest first, so that a
// failed extract can remove them.
func newDirs(dir string, outPath map[int]string) []string {
	want := map[string]bool{}
	for p := filepath.Clean(dir); ; {
		want[p] = true
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	for _, p := range outPath {
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
	sort.Slice(out, func(a, b int) bool {
		if la, lb := len(out[a]), len(out[b]); la != lb {
			return la > lb
		}
		return out[a] < out[b]
	})
	return out
}

// removeDirs removes the folders dirs (deepest first) that are still empty.
func removeDirs(dirs []string) {
	for _, d := range dirs {
		os.Remove(d)
	}
}

// entries lists the directory of h.
func (h dirHandle) entries() ([]os.DirEntry, error) {
	name := "."
	if h.prefix != "" {
		name = strings.TrimSuffix(h.prefix, "/")
	}
	f, err := h.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// sync flushes the directory of h.
func (h dirHandle) sync() {
	name := "."
	if h.prefix != "" {
		name = strings.TrimSuffix(h.prefix, "/")
	}
	if f, err := h.root.Open(name); err == nil {
		f.Sync()
		f.Close()
	}
}

// checkDestinations checks, before anything is written, that every file
// can be renamed to its name: no folder of that name is in the way (nor
// one whose name differs only in case or Unicode normalisation, the same
// name on Windows and macOS). With a Session, whose lock on the output
// folder keeps other runs out, it also removes the temporary files a
// killed run left beside the files to write.
func checkDestinations(dirs map[string]dirHandle, sel []int, outPath map[int]string, sess *safefile.Session) error {
	byDir := map[string][]string{}
	for _, i := range sel {
		p := outPath[i]
		byDir[path.Dir(p)] = append(byDir[path.Dir(p)], path.Base(p))
	}
	for d, finals := range byDir {
		h := dirs[d]
		ents, err := h.entries()
		if err != nil {
			return fmt.Errorf("read %s: %w", h.path, err)
		}
		if len(ents) == 0 {
			continue
		}
		folders := map[string]string{}
		for _, e := range ents {
			if e.IsDir() {
				folders[safefile.FoldName(e.Name())] = e.Name()
			}
		}
		prefixes := map[string]string{} // TempPrefix → name
		for _, f := range finals {
			if name, ok := folders[safefile.FoldName(f)]; ok {
				return fmt.Errorf("%s: the folder %s is in the way of the file %s; nothing was written", h.path, name, f)
			}
			prefixes[safefile.TempPrefix(f)] = f
		}
		if sess == nil {
			continue
		}
		removed := 0
		for _, e := range ents {
			n := e.Name()
			k := strings.LastIndex(n, ".unrmod-")
			if k < 0 || !e.Type().IsRegular() {
				continue
			}
			if f, ok := prefixes[n[:k+len(".unrmod-")]]; !ok || !safefile.IsTempOf(n, f) {
				continue
			}
			if h.root.Remove(h.prefix+n) == nil {
				removed++
			}
		}
		sess.ReportLeftovers(h.path, removed)
	}
	return nil
}

// syncDirs flushes the folders that received files and the parents of the
// folders created, so that the renames survive a crash.
func syncDirs(dirs map[string]dirHandle, created []string) {
	for _, h := range dirs {
		h.sync()
	}
	for _, d := range created {
		safefile.SyncDir(filepath.Dir(d))
	}
}
