package patch

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrNoMatch is the error (wrapped in an *Error) of a target whose file is
// a pattern that matches no file.
var ErrNoMatch = errors.New("the pattern matches no file")

// globChars are the characters that make a target's file a pattern.
const globChars = "*?["

// expandTargets returns f's targets with each one whose file is a pattern
// (Maps/*.unr, with / or \ separators) replaced by one target per file it
// matches, in name order, each with the same operations. With a pattern,
// output names a directory: each match is written there under its own
// name. A file whose name holds a pattern character but that exists is
// taken as it is. Patterns are matched by unrmod (filepath.Glob), not by a
// shell, so they work the same on every system.
func expandTargets(f *File, dir string) ([]*Target, error) {
	var out []*Target
	for _, t := range f.Targets {
		if t.Container != nil || !strings.ContainsAny(t.File, globChars) {
			out = append(out, t)
			continue
		}
		pattern := localPath(dir, t.File)
		if _, err := os.Lstat(pattern); err == nil {
			out = append(out, t)
			continue
		}
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return nil, &Error{Pos: t.Pos, Msg: "file: " + t.File + " is not a valid pattern: " + err.Error(), Err: err}
		}
		n := 0
		for _, m := range matches {
			if st, err := os.Stat(m); err != nil || st.IsDir() {
				continue
			}
			file := filepath.ToSlash(m)
			if !filepath.IsAbs(filepath.FromSlash(t.File)) {
				rel, err := filepath.Rel(dir, m)
				if err != nil {
					return nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
				}
				file = filepath.ToSlash(rel)
			}
			e := *t
			e.File = file
			if t.Output != "" {
				e.Output = path.Join(t.Output, path.Base(file))
			}
			out = append(out, &e)
			n++
		}
		if n == 0 {
			return nil, &Error{Pos: t.Pos, Msg: "file: " + t.File + " matches no file (looked for " + pattern + ")", Err: ErrNoMatch}
		}
	}
	return out, nil
}
