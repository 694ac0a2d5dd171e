package convert

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// pair is a cooked asset and the zen package the engine made from it.
type pair struct {
	name         string
	uasset, uexp []byte
	zen          []byte
}

// pairs finds every X.uasset (or X.umap) beside an X.uzenasset under dir.
func pairs(t *testing.T, dir string) []pair { return pairsFor(t, dir) }

func pairsFor(t testing.TB, dir string) []pair {
	t.Helper()
	root := filepath.Join(corpus.Dir(t), dir)
	zs, err := filepath.Glob(filepath.Join(root, "*.uzenasset"))
	if err != nil || len(zs) == 0 {
		t.Fatalf("no .uzenasset files in %s", root)
	}
	var out []pair
	for _, z := range zs {
		base := strings.TrimSuffix(z, ".uzenasset")
		var h string
		for _, ext := range []string{".uasset", ".umap"} {
			if _, err := os.Stat(base + ext); err == nil {
				h = base + ext
			}
		}
		if h == "" {
			continue
		}
		pr := pair{name: h, uasset: read(t, h), zen: read(t, z)}
		if x := base + ".uexp"; exists(x) {
			pr.uexp = read(t, x)
		}
		out = append(out, pr)
	}
	if len(out) == 0 {
		t.Fatalf("no cooked asset beside a .uzenasset in %s", root)
	}
	return out
}

func read(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// engineFor picks the release to convert for: the newest release the
// asset's layout fits whose zen layout is the oracle's.
func engineFor(t *testing.T, a *uasset.Package, oracle []byte) zen.Engine {
	t.Helper()
	l, err := zen.DetectLayout(oracle)
	if err != nil {
		t.Fatal(err)
	}
	fits := a.Fitting
	if len(fits) == 0 {
		fits = []uasset.Release{a.Release}
	}
	for i := len(fits) - 1; i >= 0; i-- {
		e := zen.Engine{Major: fits[i].Major, Minor: fits[i].Minor}
		if e.Layout() == l {
			return e
		}
	}
	t.Fatalf("%s: no release the asset fits (%v) writes zen layout %v", a.FileName, fits, l)
	return zen.Engine{}
}

func TestToZenUE5Pairs(t *testing.T) { testPairs(t, "other/ue5_cooked_pairs") }

// The 4.27 pair's asset records no package name: it is found in the name
// map (TestPackageName covers the rule).
func TestToZenUE427Pairs(t *testing.T) { testPairs(t, "other/ue4_27_cooked_pairs") }

func testPairs(t *testing.T, dir string) {
	for _, pr := range pairs(t, dir) {
		t.Run(filepath.Base(pr.name), func(t *testing.T) {
			a, err := uasset.Decode(pr.name, pr.uasset, pr.uexp, nil)
			if err != nil {
				t.Fatal(err)
			}
			e := engineFor(t, a, pr.zen)
			p, err := ToZen(a, &Options{Engine: e})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if got = checkOutput(t, p); !bytes.Equal(got, pr.zen) {
				t.Errorf("converted for %s: %s", e, firstDiff(got, pr.zen))
			}
			// A set of one is the package alone.
			set, err := ToZenSet([]Asset{{Asset: a}}, &SetOptions{Options: Options{Engine: e}})
			if err != nil {
				t.Fatal(err)
			}
			if got := checkOutput(t, set[0].Package); !bytes.Equal(got, pr.zen) {
				t.Errorf("converted as a set of one for %s: %s", e, firstDiff(got, pr.zen))
			}
		})
	}
}

func firstDiff(got, want []byte) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i] != want[i] {
			lo := max(0, i-8)
			return fmt.Sprintf("%d bytes, want %d; first difference at 0x%X: got % x, want % x", len(got), len(want), i,
				got[lo:min(len(got), i+16)], want[lo:min(len(want), i+16)])
		}
	}
	return fmt.Sprintf("%d bytes, want %d (equal up to the shorter)", len(got), len(want))
}

// checkOutput encodes p, decodes the bytes again and verifies them, as a
// converted package must come out.
func checkOutput(t *testing.T, p *zen.Package) []byte {
	t.Helper()
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d, err := zen.DecodePackage("converted", b, &zen.DecodeOptions{})
	if err != nil {
		t.Fatalf("the converted package does not decode: %v", err)
	}
	for _, pr := range d.Problems(nil) {
		t.Errorf("converted package: %v", pr)
	}
	return b
}

// TestToZenUE58Fixtures converts every cooked asset of the UE 5.8 fixture
// project's legacy paks (tagged and unversioned properties; the Oodle twins
// are skipped as no Oodle codec is loaded) and compares each with the
// package chunk of the engine's container of the same kind, which holds
// the same project cooked for IoStore.
func TestToZenUE58Fixtures(t *testing.T) {
	dir := corpus.Dir(t)
	paks, _ := filepath.Glob(filepath.Join(dir, "pak/cue4parse_ue5_8/LegacyPak/*/*/*.pak"))
	if len(paks) == 0 {
		t.Fatal("no legacy paks of the UE 5.8 fixture project")
	}
	checkToZenFixtures(t, paks, filepath.Join(dir, "iostore/cue4parse_ue5_8"), nil)
}

// checkToZenFixtures converts every cooked asset of a fixture project's
// legacy paks (in LegacyPak/KIND/METHOD/) with opts and compares each
// with the package chunk, and its .ubulk with the bulk chunk, of every
// readable container in iostore/KIND/*/. It returns the number of
// packages compared and found byte-identical.
func checkToZenFixtures(t *testing.T, paks []string, iostoreDir string, opts *Options) (compared, identical int) {
	kinds := map[string]bool{}
	bulks := 0
	for _, pk := range paks {
		kind := filepath.Base(filepath.Dir(filepath.Dir(pk))) // Tagged, Unversioned
		kinds[kind] = true
		containers, _ := filepath.Glob(filepath.Join(iostoreDir, kind, "*/*.utoc"))
		var cts []*iostore.Container
		var ctNames []string
		for _, c := range containers {
			ctNames = append(ctNames, filepath.Base(c))
			ct, err := iostore.Open(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ct.Close()
			cts = append(cts, ct)
		}
		if len(cts) == 0 {
			t.Fatalf("no %s container of the fixture project", kind)
		}
		r, err := pak.Open(pk, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		n := 0
		for _, f := range r.Files {
			ext := path.Ext(f.Path)
			if ext != ".uasset" && ext != ".umap" {
				continue
			}
			n++
			if m := r.Footer.MethodName(f.Method); f.Method != 0 && !pak.CanDecode(m) {
				continue // an Oodle twin: the same files come uncompressed or zlib-compressed too
			}
			t.Run(kind+"/"+filepath.Base(pk)+"/"+path.Base(f.Path), func(t *testing.T) {
				h, err := f.ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				x, err := r.ReadFile(strings.TrimSuffix(f.Path, ext) + ".uexp")
				if err != nil {
					t.Fatal(err)
				}
				a, err := uasset.Decode(f.Path, h, x, nil)
				if err != nil {
					t.Fatal(err)
				}
				p, err := ToZen(a, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := checkOutput(t, p)
				against := 0
				for k, ct := range cts {
					i, ok := ct.PackageChunk(zen.PackageIDFromName(a.Summary.PackageName))
					if !ok {
						t.Fatalf("%s has no package %s", ctNames[k], a.Summary.PackageName)
					}
					want, err := ct.ReadChunk(i)
					if errors.Is(err, ue.ErrUnsupportedMethod) {
						continue // an Oodle container
					}
					if err != nil {
						t.Fatal(err)
					}
					against++
					compared++
					if !bytes.Equal(got, want) {
						t.Errorf("against %s: %s", ctNames[k], firstDiff(got, want))
					} else {
						identical++
					}
					// The bulk data file is the package's bulk chunk as it is.
					if bulk, err := r.ReadFile(strings.TrimSuffix(f.Path, ext) + ".ubulk"); err == nil {
						id, err := iostore.NewChunkID(uint64(p.ID()), 0, iostore.ChunkBulkData, ct.Header().Version)
						if err != nil {
							t.Fatal(err)
						}
						j, ok := ct.Find(id)
						if !ok {
							t.Fatalf("%s has no bulk chunk for %s", ctNames[k], p.PackageName())
						}
						chunk, err := ct.ReadChunk(j)
						if err != nil || !bytes.Equal(chunk, bulk) {
							t.Errorf("%s: bulk chunk of %d bytes differs from the .ubulk's %d (%v)", ctNames[k], len(chunk), len(bulk), err)
						}
						bulks++
					}
				}
				if against == 0 {
					t.Fatal("no container of this kind could be read")
				}
			})
		}
		if n == 0 {
			t.Errorf("%s: no cooked assets", pk)
		}
	}
	if bulks == 0 {
		t.Error("no asset with a .ubulk was compared with its bulk chunk")
	}
	if !kinds["Tagged"] || !kinds["Unversioned"] {
		t.Errorf("fixture kinds %v: want Tagged and Unversioned", kinds)
	}
	return compared, identical
}

// TestToZenUnversionedUE60 converts the unversioned cooked assets of the
// UE 5.8 fixture project for UE 6.0. A 6.0 cook writes the versions and
// tables of 5.8 (checked against the engine's 6.0 output of the same
// project by TestEngineFixturesToZen), so an unversioned asset of that
// layout fits 6.0 as well as 5.8: asking for 6.0 must convert, to the zen
// package 5.8 makes (6.0 packages have the 5.8 layout), and asking for
// nothing must still pick that package.
func TestToZenUnversionedUE60(t *testing.T) {
	assets := pakAssets(t, "pak/cue4parse_ue5_8/LegacyPak/Unversioned/*/*.pak")
	for _, as := range assets {
		t.Run(as.pak+"/"+path.Base(as.path), func(t *testing.T) {
			a, err := uasset.Decode(as.path, as.h, as.x, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Summary.Unversioned() || !a.ReleaseDetected || a.Release != (uasset.Release{Major: 5, Minor: 8}) {
				t.Fatalf("unversioned %v, release %v (detected %v): want an unversioned asset detected as 5.8", a.Summary.Unversioned(), a.Release, a.ReleaseDetected)
			}
			if last := a.Fitting[len(a.Fitting)-1]; last != (uasset.Release{Major: 6}) {
				t.Errorf("fits %v: want 6.0 last", a.Fitting)
			}
			var want []byte
			for _, e := range []zen.Engine{zen.Engine58, {Major: 6}, {}} {
				p, err := ToZen(a, &Options{Engine: e})
				if err != nil {
					t.Fatalf("for %q: %v", e, err)
				}
				got := checkOutput(t, p)
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Errorf("for %q: %s", e, firstDiff(got, want))
				}
			}
		})
	}
	if len(assets) == 0 {
		t.Fatal("no unversioned cooked assets of the UE 5.8 fixture project")
	}
}

// pakAsset is a cooked asset of a legacy pak of the corpus: the pak's file
// name, the asset's path in it, and its .uasset/.umap and .uexp.
type pakAsset struct {
	pak, path string
	h, x      []byte
}

// pakAssets reads the cooked assets of the corpus's legacy paks matching
// pattern, leaving out the paks whose blocks unrmod cannot decode (an
// Oodle pak's twins hold the same assets).
func pakAssets(t testing.TB, pattern string) []pakAsset {
	t.Helper()
	paks, _ := filepath.Glob(filepath.Join(corpus.Dir(t), pattern))
	var out []pakAsset
	for _, pk := range paks {
		r, err := pak.Open(pk, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Files {
			ext := path.Ext(f.Path)
			if ext != ".uasset" && ext != ".umap" {
				continue
			}
			if m := r.Footer.MethodName(f.Method); f.Method != 0 && !pak.CanDecode(m) {
				continue
			}
			h, err := f.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			x, err := r.ReadFile(strings.TrimSuffix(f.Path, ext) + ".uexp")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pakAsset{filepath.Base(pk), f.Path, h, x})
		}
		r.Close()
	}
	return out
}
