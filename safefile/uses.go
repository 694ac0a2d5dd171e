package safefile

import (
	"fmt"
	"os"
	"strings"
)

// A ClashError is returned by CheckUses for a file a run would write that
// is one file with another file of the run: one it reads (writing it would
// destroy what is being read) or one it writes too.
type ClashError struct {
	// Write is the use that writes the file; Other is the use it clashes
	// with.
	Write, Other Use
	// Why says how they are one file when their paths differ: "the same
	// file through a link or another name", "names of one container that
	// differ only in case".
	Why string
}

func (e *ClashError) Error() string {
	w, o := e.Write, e.Other
	var b strings.Builder
	if w.Path == o.Path {
		fmt.Fprintf(&b, "%s is both %s and %s", w.Path, what(w), what(o))
	} else {
		fmt.Fprintf(&b, "%s (%s) is %s (%s)", w.Path, what(w), o.Path, what(o))
		if e.Why != "" {
			fmt.Fprintf(&b, ": %s", e.Why)
		}
	}
	if o.Write {
		b.WriteString("; a run writes each file once, nothing was written")
	} else {
		b.WriteString("; writing it would destroy a file this run reads, nothing was written: write to another name")
	}
	return b.String()
}

func what(u Use) string {
	switch {
	case u.What != "":
		return u.What
	case u.Write:
		return "written"
	}
	return "read"
}

// resolved is a Use with what tells which file it is.
type resolved struct {
	st os.FileInfo // the file, when it exists (links followed)
	id string      // Identity, when it does not
}

func resolve(u Use) resolved {
	if st, err := os.Stat(u.Path); err == nil {
		return resolved{st: st}
	}
	return resolved{id: Identity(u.Path)}
}

// sameUse reports whether a and b are one file, and how when their paths
// differ.
func sameUse(a, b Use, ra, rb resolved) (bool, string) {
	switch {
	case ra.st != nil && rb.st != nil && os.SameFile(ra.st, rb.st):
		return true, "the same file through a link or another name"
	case a.Name != "" && a.Name == b.Name:
		return true, "names of one container that differ only in case"
	case ra.st != nil || rb.st != nil:
		return false, ""
	}
	return ra.id == rb.id, "the same file through a link"
}

// Clash is a pair of uses (by index) that are one file; W writes it.
type Clash struct {
	W, U int
	Why  string
}

// Clashes compares the files of uses by identity and returns each pair
// that is one file and where the first writes: files that exist are
// compared as files (os.SameFile: symbolic and hard links, names a
// case-insensitive volume folds), files that do not by Identity, and uses
// of the same Name are one file whatever their paths. Two writes of one
// file come first, each pair once (W the later); then each write with
// the files read.
// Uses of one path that all read are no clash.
func Clashes(uses []Use) []Clash {
	rs := make([]resolved, len(uses))
	for i, u := range uses {
		rs[i] = resolve(u)
	}
	var out []Clash
	for _, writes := range []bool{true, false} {
		for w, wu := range uses {
			if !wu.Write {
				continue
			}
			for u, uu := range uses {
				if u == w || uu.Write != writes || (writes && u > w) {
					continue
				}
				if same, why := sameUse(wu, uu, rs[w], rs[u]); same {
					if wu.Path == uu.Path {
						why = ""
					}
					out = append(out, Clash{W: w, U: u, Why: why})
				}
			}
		}
	}
	return out
}

// CheckUses refuses, with a *ClashError naming both files, a run whose
// uses write a file twice or write a file they read (see Clashes). It
// reads no file's content: call it before anything is read or written.
func CheckUses(uses ...Use) error {
	if c := Clashes(uses); len(c) > 0 {
		return &ClashError{Write: uses[c[0].W], Other: uses[c[0].U], Why: c[0].Why}
	}
	return nil
}
