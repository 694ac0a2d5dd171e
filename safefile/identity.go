package safefile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FoldName returns the key under which a case-insensitive file system
// (NTFS, APFS, exFAT) files name: NFC-normalised, each rune mapped to one
// representative of its simple case-folding orbit. Two names with the same
// key are one file there.
func FoldName(name string) string {
	name = norm.NFC.String(name)
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, name)
}

// foldsCase says whether the usual file system of this OS ignores case and
// Unicode normalisation in names.
func foldsCase() bool { return runtime.GOOS == "windows" || runtime.GOOS == "darwin" }

// Identity returns the name that stands for the file at path whatever the
// path that leads to it: its absolute path with the symbolic links of the
// part that exists resolved, case-folded (FoldName) on Windows and macOS.
// Two paths with the same identity are one file; for files that both exist,
// SameFile also sees hard links and case-insensitive volumes elsewhere.
func Identity(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		p = filepath.Clean(path)
	}
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		rest = append(rest, filepath.Base(p))
		p = parent
	}
	for i := len(rest) - 1; i >= 0; i-- {
		p = filepath.Join(p, rest[i])
	}
	if foldsCase() {
		p = FoldName(p)
	}
	return p
}

// SameFile reports whether paths a and b name one file: the same existing
// file (os.SameFile: links, case-insensitive names), or, when neither
// exists yet, the same Identity.
func SameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	switch {
	case errA == nil && errB == nil:
		return os.SameFile(sa, sb)
	case errA == nil || errB == nil:
		return false
	}
	return Identity(a) == Identity(b)
}

// maxNameBytes is the longest file name most file systems take.
const maxNameBytes = 255

// tempTail bounds what follows a TempPrefix: up to 10 digits and ".tmp".
const tempTail = 10 + len(".tmp")

// TempPrefix returns how the temporary files of the file called name begin:
// ".NAME.unrmod-", followed by digits and ".tmp". A name too long for the
// whole to fit in 255 bytes is cut and ends in "~" and 8 hex digits of its
// hash, so that long names get temporary names too.
func TempPrefix(name string) string {
	const keep = maxNameBytes - len(".") - len(".unrmod-") - tempTail
	if len(name) > keep {
		sum := sha256.Sum256([]byte(name))
		h := hex.EncodeToString(sum[:4])
		cut := keep - 1 - len(h)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "~" + h
	}
	return "." + name + ".unrmod-"
}

// TempName returns the temporary name of the file called name for a writer
// tagged tag (digits, e.g. a process id).
func TempName(name, tag string) string { return TempPrefix(name) + tag + ".tmp" }

// IsTempOf reports whether entry is a temporary name of the file called name
// (see TempPrefix).
func IsTempOf(entry, name string) bool {
	rest, ok := strings.CutPrefix(entry, TempPrefix(name))
	if !ok {
		return false
	}
	digits, ok := strings.CutSuffix(rest, ".tmp")
	if !ok || digits == "" || len(digits) > 10 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
