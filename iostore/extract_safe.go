package iostore

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/safefile"
)

// What Extract checks and cleans so that a failure leaves no new file
// under a real name and no folder it created.

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
