package uasset_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/pak"
	"github.com/unrmod/unrmod/uasset"
)

// asset is a header file of the corpus with its export data.
type asset struct {
	name         string // corpus-relative path; for a file in a pak, "PAK:PATH"
	uasset, uexp []byte // uexp nil when there is no .uexp beside
	pak          string // the pak holding it, if any
}

func isHeaderName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".uasset" || ext == ".umap"
}

func hasTag(b []byte) bool {
	return len(b) >= 4 && binary.LittleEndian.Uint32(b) == uasset.Tag
}

// corpusAssets finds every cooked or editor asset of the corpus by kind:
// a .uasset/.umap starting with the package tag, loose or inside a pak
// that unrmod can read (paks needing Oodle are skipped and logged), with
// the .uexp beside it.
func corpusAssets(tb testing.TB) []asset {
	tb.Helper()
	root := corpus.Dir(tb)
	var out []asset
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case isHeaderName(path):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !hasTag(b) {
				return nil
			}
			a := asset{name: filepath.ToSlash(rel), uasset: b}
			if x, err := os.ReadFile(uasset.CompanionNames(path).Uexp); err == nil {
				a.uexp = x
			}
			out = append(out, a)
		case strings.EqualFold(filepath.Ext(path), ".pak"):
			out = append(out, pakAssets(tb, path, filepath.ToSlash(rel))...)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("no cooked assets in the corpus")
	}
	return out
}

func pakAssets(tb testing.TB, path, rel string) []asset {
	r, err := pak.Open(path, nil)
	if err != nil {
		tb.Logf("%s: not read: %v", rel, err)
		return nil
	}
	defer r.Close()
	var out []asset
	for _, f := range r.Files {
		if !isHeaderName(f.Path) {
			continue
		}
		b, err := f.ReadAll()
		if errors.Is(err, pak.ErrUnsupportedMethod) {
			tb.Logf("%s: skipped (%v)", rel, err)
			return nil
		}
		if err != nil {
			tb.Fatalf("%s: %s: %v", rel, f.Path, err)
		}
		if !hasTag(b) {
			continue
		}
		a := asset{name: rel + ":" + f.Path, uasset: b, pak: rel}
		if x, err := r.ReadFile(uasset.CompanionNames(f.Path).Uexp); err == nil {
			a.uexp = x
		}
		out = append(out, a)
	}
	return out
}

// TestCorpusRoundTrip decodes every asset of the corpus and encodes it
// back: the bytes must be identical, header and export data.
func TestCorpusRoundTrip(t *testing.T) {
	assets := corpusAssets(t)
	t.Logf("%-100s %-6s %-5s %5s %7s %7s", "file", "engine", "cook", "names", "imports", "exports")
	for _, a := range assets {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Errorf("%s: %v", a.name, err)
			continue
		}
		cook := "cook"
		if !p.Cooked() {
			cook = "edit"
		}
		eng := p.Release.String()
		if p.ReleaseDetected {
			eng += "?"
		}
		t.Logf("%-100s %-6s %-5s %5d %7d %7d", a.name, eng, cook, len(p.Names), len(p.Imports), len(p.Exports))
		h, x, err := p.Encode()
		if err != nil {
			t.Errorf("%s: encode: %v", a.name, err)
			continue
		}
		if !bytes.Equal(h, a.uasset) {
			t.Errorf("%s: header differs after a round trip (%d bytes, want %d) at 0x%X", a.name, len(h), len(a.uasset), firstDiff(h, a.uasset))
		}
		if !bytes.Equal(x, a.uexp) {
			t.Errorf("%s: export data differs after a round trip (%d bytes, want %d) at 0x%X", a.name, len(x), len(a.uexp), firstDiff(x, a.uexp))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
