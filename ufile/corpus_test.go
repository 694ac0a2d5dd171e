package ufile_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ufile"
)

// wantKind judges what a corpus file is from what the corpus says of it —
// its folder, its extension and its first bytes — independently of how
// Open tells the kinds apart.
func wantKind(rel string, head []byte) ufile.Kind {
	ext := strings.ToLower(filepath.Ext(rel))
	tagged := bytes.HasPrefix(head, []byte{0xC1, 0x83, 0x2A, 0x9E})
	switch {
	case strings.HasPrefix(rel, "legacy/") || strings.HasPrefix(rel, "legacy-next/"):
		return ufile.LegacyPackage
	case ext == ".utoc":
		return ufile.Container
	case ext == ".ucas":
		return ufile.ContainerData
	case ext == ".pak":
		return ufile.Pak
	case strings.Contains(filepath.Base(rel), "ContainerHeader"):
		return ufile.ContainerHeader
	case (ext == ".uasset" || ext == ".umap") && tagged:
		return ufile.CookedAsset
	case ext == ".uasset" || ext == ".uzenasset":
		return ufile.ZenPackage
	case ext == ".ushaderbytecode" || ext == ".uzenshaderbytecode":
		return ufile.ShaderLibrary
	}
	return ufile.Unknown // export and bulk data, mappings, global chunks, metadata
}

// TestOpenCorpus opens every file the corpus lists and checks that Open
// recognises each as what the corpus says it is.
func TestOpenCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	m, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sc := bufio.NewScanner(m)
	sc.Scan() // the header
	n, chunks := 0, 0
	for sc.Scan() {
		rel, _, _ := strings.Cut(sc.Text(), "\t")
		path := filepath.Join(dir, filepath.FromSlash(rel))
		head := make([]byte, 4)
		if fh, err := os.Open(path); err == nil {
			fh.Read(head)
			fh.Close()
		}
		want := wantKind(rel, head)
		if want == ufile.ZenPackage || want == ufile.ContainerHeader {
			chunks++
		}
		t.Run(rel, func(t *testing.T) {
			f, err := ufile.Open(path, nil)
			if want == ufile.ContainerData {
				// The block store of an uncompressed container
				// holding one package is that zen package too.
				if f.Kind == ufile.ZenPackage {
					want = ufile.ZenPackage
				}
				if f.TOC != strings.TrimSuffix(path, ".ucas")+".utoc" && !strings.Contains(rel, "_s") {
					t.Errorf("TOC %q", f.TOC)
				}
			}
			if f.Kind != want {
				t.Fatalf("kind %v (%v), want %v", f.Kind, err, want)
			}
			if want == ufile.Unknown {
				if err == nil {
					t.Fatal("no error for an unrecognised file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch f.Kind {
			case ufile.LegacyPackage:
				if _, err := f.Legacy(); err != nil {
					t.Error(err)
				}
			case ufile.ZenPackage:
				// The generation follows the engine the folder or name
				// says: "4_2x" is UE 4.26/4.27.
				ue4 := strings.Contains(rel, "4_27") || strings.Contains(rel, "4_26")
				if (f.Layout == zen.LayoutUE4) != ue4 {
					t.Errorf("layout %v for %s", f.Layout, rel)
				}
				if _, err := f.ZenPackage(nil); err != nil {
					t.Error(err)
				}
			case ufile.ContainerHeader:
				if _, err := f.ContainerHeader(); err != nil {
					t.Error(err)
				}
			case ufile.CookedAsset:
				if f.Uexp == "" && strings.Contains(rel, "cooked_pairs") {
					t.Error("no .uexp found beside a cooked pair")
				}
				if _, err := f.Asset(nil); err != nil {
					t.Error(err)
				}
			}
		})
		n++
	}
	// The corpus holds at least two container headers and eight zen
	// packages of both layouts; fewer means the manifest was misread.
	if chunks < 10 {
		t.Errorf("found %d chunk files among %d, want at least 10", chunks, n)
	}
}

// TestOpenUsesCookedAsset: a cooked asset is locked with the .uexp beside
// it, which reading it reads too.
func TestOpenUsesCookedAsset(t *testing.T) {
	a, err := ufile.Open(corpus.Path(t, "other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if u := a.Uses(); a.Uexp == "" || len(u) != 2 || u[0].Path != a.Path || u[1].Path != a.Uexp {
		t.Errorf("cooked asset uses %v", u)
	}
}

// TestOpenZenStream opens every zen package file of the corpus as a
// stream when it is large enough, and nothing else: a smaller size
// threshold than the file, a cooked asset, a container.
func TestOpenZenStream(t *testing.T) {
	zens, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "other", "*", "*.uzenasset"))
	if len(zens) == 0 {
		t.Fatal("no .uzenasset in the corpus")
	}
	for _, path := range zens {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		p, f := ufile.OpenZenStream(path, st.Size())
		if p == nil || f == nil {
			t.Fatalf("%s: not opened as a stream", path)
		}
		if !p.Streamed() || len(p.Exports) == 0 {
			t.Errorf("%s: package streamed %v with %d exports", path, p.Streamed(), len(p.Exports))
		}
		f.Close()
		if p, f := ufile.OpenZenStream(path, st.Size()+1); p != nil || f != nil {
			t.Errorf("%s: opened below the threshold", path)
		}
	}
	for _, path := range []string{
		corpus.Path(t, "other/ue5_cooked_pairs/UE5.6_SM_Cube.uasset"),
		corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/global.utoc"),
		filepath.Join(t.TempDir(), "missing.uzenasset"),
	} {
		if p, f := ufile.OpenZenStream(path, 0); p != nil || f != nil {
			t.Errorf("%s: opened as a zen package stream", path)
		}
	}
}
