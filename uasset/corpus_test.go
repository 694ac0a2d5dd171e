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
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
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
		if p.ReleaseDetected && len(p.Fitting) > 1 {
			eng = p.Fitting[0].String() + "–" + eng
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

// TestCorpusRelayout changes the size of the header (a longer name map)
// and of an export's data in every corpus asset, checks that the result
// decodes to the changed model with every offset moved, and that undoing
// the change gives the original bytes again.
func TestCorpusRelayout(t *testing.T) {
	for _, a := range corpusAssets(t) {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Errorf("%s: %v", a.name, err)
			continue
		}
		if len(p.Exports) == 0 {
			continue
		}
		opts := &uasset.Options{Release: p.Release}
		const added = "UnrmodAddedName_Long_Enough_To_Move_Everything"
		oldData := p.Exports[0].Data
		p.Names = append(p.Names, uasset.NewName(added))
		p.Exports[0].Data = append(bytes.Clone(oldData), bytes.Repeat([]byte{0xAB}, 16)...)
		h, x, err := p.Encode()
		if p.Summary.ThumbnailTableOffset > 0 {
			if !errors.Is(err, uasset.ErrNotEncodable) {
				t.Errorf("%s: editor package with thumbnails: err = %v, want ErrNotEncodable", a.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: encode: %v", a.name, err)
			continue
		}
		q, err := uasset.Decode(a.name, h, x, opts)
		if err != nil {
			t.Errorf("%s: changed package does not decode: %v", a.name, err)
			continue
		}
		grow := len(h) - len(a.uasset)
		if grow <= len(added) {
			t.Errorf("%s: header grew by %d bytes", a.name, grow)
		}
		if len(q.Names) != len(p.Names) || q.Names[len(q.Names)-1].Value != added {
			t.Errorf("%s: added name lost", a.name)
		}
		if g := q.Summary.Generations; len(g) > 0 && p.Summary.Generations[len(g)-1].NameCount == p.Summary.NameCount &&
			g[len(g)-1].NameCount != int32(len(q.Names)) {
			t.Errorf("%s: last generation %+v does not follow the name count %d", a.name, g[len(g)-1], len(q.Names))
		}
		if int(q.Summary.TotalHeaderSize) != int(p.Summary.TotalHeaderSize)+grow {
			t.Errorf("%s: TotalHeaderSize %d, want %d", a.name, q.Summary.TotalHeaderSize, int(p.Summary.TotalHeaderSize)+grow)
		}
		if o := p.Summary.AssetRegistryDataOffset; o > 0 && q.Summary.AssetRegistryDataOffset != o+int32(grow) {
			t.Errorf("%s: AssetRegistryDataOffset %d, want %d", a.name, q.Summary.AssetRegistryDataOffset, o+int32(grow))
		}
		// Cooked files put BulkDataStartOffset where the .uexp's tag starts:
		// it keeps its distance from the end.
		oldEnd, newEnd := int64(len(a.uasset)+len(a.uexp)), int64(len(h)+len(x))
		if b := p.Summary.BulkDataStartOffset; b > int64(p.Summary.TotalHeaderSize) && q.Summary.BulkDataStartOffset != b+newEnd-oldEnd {
			t.Errorf("%s: BulkDataStartOffset %d, want %d", a.name, q.Summary.BulkDataStartOffset, b+newEnd-oldEnd)
		}
		for i := range p.Exports {
			if !bytes.Equal(q.Exports[i].Data, p.Exports[i].Data) {
				t.Errorf("%s: export %d data differs after the move", a.name, i)
			}
		}
		if q.HasTailTag() != p.HasTailTag() || len(q.Imports) != len(p.Imports) || len(q.PreloadDependencies) != len(p.PreloadDependencies) {
			t.Errorf("%s: tables differ after the move", a.name)
		}
		// Undo: the original bytes come back.
		q.Names = q.Names[:len(q.Names)-1]
		q.Exports[0].Data = oldData
		h, x, err = q.Encode()
		if err != nil || !bytes.Equal(h, a.uasset) || !bytes.Equal(x, a.uexp) {
			t.Errorf("%s: undoing the change does not give the original bytes (err %v; header at 0x%X)", a.name, err, firstDiff(h, a.uasset))
		}
	}
}

// TestCorpusNameHashes recomputes the hashes of every name of the corpus
// whose file stores them (one UE 5.4 file stores zeros throughout).
func TestCorpusNameHashes(t *testing.T) {
	checked := 0
	for _, a := range corpusAssets(t) {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		for _, n := range p.Names {
			if n.NonCaseHash == 0 && n.CaseHash == 0 {
				continue
			}
			checked++
			if x, y := uasset.NameHashes(n.Value); x != n.NonCaseHash || y != n.CaseHash {
				t.Errorf("%s: name %q: hashes %04x %04x, file has %04x %04x", a.name, n.Value, x, y, n.NonCaseHash, n.CaseHash)
			}
		}
	}
	t.Logf("%d names checked", checked)
	if checked < 1000 {
		t.Errorf("only %d names checked", checked)
	}
}

// TestCorpusZenOracle compares the decoded export maps with the zen
// packages the engine made from the same cooked assets (the .uzenasset
// beside a pair): the same exports, names, flags and data, which a
// misread field would break even when the round trip holds.
func TestCorpusZenOracle(t *testing.T) {
	checked := 0
	for _, a := range corpusAssets(t) {
		if a.pak != "" {
			continue
		}
		base := strings.TrimSuffix(a.name, filepath.Ext(a.name))
		zdata, err := os.ReadFile(filepath.Join(corpus.Dir(t), filepath.FromSlash(base)+".uzenasset"))
		if err != nil {
			continue
		}
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		z, err := zen.DecodePackage(base+".uzenasset", zdata, nil)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		checked++
		if len(z.Exports) != len(p.Exports) {
			t.Errorf("%s: %d exports, the zen package has %d", a.name, len(p.Exports), len(z.Exports))
			continue
		}
		for i, e := range p.Exports {
			ze := z.Exports[i]
			if got, want := p.NameOf(e.ObjectName), z.ExportName(i); got != want {
				t.Errorf("%s: export %d is %q, the zen package says %q", a.name, i, got, want)
			}
			if uint32(ze.ObjectFlags) != e.ObjectFlags {
				t.Errorf("%s: export %d flags 0x%X, the zen package says 0x%X", a.name, i, e.ObjectFlags, uint32(ze.ObjectFlags))
			}
			if !bytes.Equal(ze.Data, e.Data) {
				t.Errorf("%s: export %d data (%d bytes) differs from the zen package's (%d bytes)", a.name, i, len(e.Data), len(ze.Data))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no cooked pair with its zen package in the corpus")
	}
	t.Logf("%d pairs checked against their zen packages", checked)
}

// TestCorpusPakZenTwins compares the UE5 assets of the corpus paks with
// the same packages cooked into IoStore containers (the UE 5.8 fixture
// project was cooked both ways): for each asset, some container of the
// corpus must hold a package of the same name with the same exports
// (names, flags, data).
func TestCorpusPakZenTwins(t *testing.T) {
	root := corpus.Dir(t)
	var containers []*iostore.Container
	filepath.WalkDir(filepath.Join(root, "iostore"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".utoc") {
			if c, err := iostore.Open(path, nil); err == nil {
				containers = append(containers, c)
			}
		}
		return nil
	})
	defer func() {
		for _, c := range containers {
			c.Close()
		}
	}()
	checked := 0
	for _, a := range corpusAssets(t) {
		if a.pak == "" {
			continue
		}
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		if !strings.HasPrefix(p.Summary.PackageName, "/") {
			continue // UE4 cooks do not record their package name
		}
		twins, matched := 0, false
		for _, c := range containers {
			i, err := c.FindPackage(p.Summary.PackageName)
			if err != nil {
				continue
			}
			z, err := c.ReadPackage(i, nil)
			if err != nil {
				continue // an Oodle or encrypted container
			}
			twins++
			if sameExports(p, z) {
				matched = true
				break
			}
		}
		if twins == 0 {
			continue
		}
		checked++
		if !matched {
			t.Errorf("%s: none of the %d zen packages named %s has the same exports", a.name, twins, p.Summary.PackageName)
		}
	}
	if checked == 0 {
		t.Fatal("no pak asset has a zen twin in the corpus")
	}
	t.Logf("%d pak assets matched their zen twins", checked)
}

func sameExports(p *uasset.Package, z *zen.Package) bool {
	if len(z.Exports) != len(p.Exports) {
		return false
	}
	for i, e := range p.Exports {
		ze := z.Exports[i]
		if p.NameOf(e.ObjectName) != z.ExportName(i) || uint32(ze.ObjectFlags) != e.ObjectFlags || !bytes.Equal(ze.Data, e.Data) {
			return false
		}
	}
	return true
}
