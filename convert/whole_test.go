package convert

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// openFixtureSet opens the UE 5.8 fixture project's tagged zlib container
// as a set (its global.utoc is in the folder above).
func openFixtureSet(t testing.TB) *ContainerSet {
	t.Helper()
	utocs, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "iostore/cue4parse_ue5_8/Tagged/Zlib/*.utoc"))
	if len(utocs) != 1 {
		t.Fatalf("want one container in iostore/cue4parse_ue5_8/Tagged/Zlib, found %d", len(utocs))
	}
	set, err := OpenContainerSet(utocs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	if set.Global == "" {
		t.Fatal("the fixture set has no global.utoc")
	}
	return set
}

// singleFiles converts package chunk i the way 'convert --package' does
// and returns the files it writes, by path relative to the output folder,
// or the refusal.
func singleFiles(t *testing.T, set *ContainerSet, i int) (map[string][]byte, error) {
	t.Helper()
	c := set.Containers[0]
	out, err := c.OutputPath(i)
	if err != nil {
		t.Fatal(err)
	}
	p, bulk, err := set.Package(out)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ToLegacy(p, &LegacyOptions{Engine: zen.Engine58, Imports: set.Source, FileName: path.Base(out)})
	if err != nil {
		return nil, err
	}
	h, x, err := EncodeLegacyChecked(a, p)
	if err != nil {
		return nil, err
	}
	n := uasset.CompanionNames(out)
	files := map[string][]byte{out: h, n.Uexp: x}
	for name, b := range map[string][]byte{n.Ubulk: bulk.Ubulk, n.Uptnl: bulk.Uptnl, n.MUbulk: bulk.MUbulk} {
		if b != nil {
			files[name] = b
		}
	}
	return files, nil
}

// tree reads every file under dir, by '/'-separated relative path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestConvertAll converts the whole UE 5.8 fixture container with one and
// with four workers: every package gives the files the single-package
// conversion gives, byte for byte, and nothing else is written; the
// packages refused are those the single conversion refuses, with the same
// reason; both runs agree.
func TestConvertAll(t *testing.T) {
	set := openFixtureSet(t)
	c := set.Containers[0]
	want := map[string][]byte{}
	wantRefused := map[string]string{} // asset path → reason
	var pkgs []string
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData {
			continue
		}
		out, _ := c.OutputPath(i)
		pkgs = append(pkgs, out)
		files, err := singleFiles(t, set, i)
		if err != nil {
			wantRefused[out] = err.Error()
			continue
		}
		for k, v := range files {
			want[k] = v
		}
	}
	if len(wantRefused) == 0 || len(wantRefused) == len(pkgs) {
		t.Fatalf("the fixture should have packages that convert and packages that are refused: %d of %d refused", len(wantRefused), len(pkgs))
	}
	var runs []*ConvertAllResult
	for _, workers := range []int{1, 4} {
		dir := filepath.Join(t.TempDir(), "out")
		calls := 0
		res, err := set.ConvertAll(dir, &ConvertAllOptions{Engine: zen.Engine58, Workers: workers,
			Progress: func(done, total int) { calls++ }})
		if err != nil {
			t.Fatalf("-j %d: %v", workers, err)
		}
		runs = append(runs, res)
		if len(res.Converted)+len(res.Refused) != len(pkgs) || calls != len(pkgs) {
			t.Errorf("-j %d: %d converted + %d refused, %d progress calls; want %d packages", workers, len(res.Converted), len(res.Refused), calls, len(pkgs))
		}
		got := tree(t, dir)
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("-j %d: %s: %d bytes, want the %d of the single conversion", workers, name, len(got[name]), len(b))
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("-j %d: %s written, which the single conversions do not write", workers, name)
			}
		}
		if len(res.Refused) != len(wantRefused) {
			t.Errorf("-j %d: %d refused, the single conversion refuses %d", workers, len(res.Refused), len(wantRefused))
		}
		for _, r := range res.Refused {
			if r.Err == nil || r.Err.Error() != wantRefused[r.Path] {
				t.Errorf("-j %d: %s refused for %v; the single conversion says %q", workers, r.Path, r.Err, wantRefused[r.Path])
			}
			if r.Package == "" || len(r.Files) != 0 {
				t.Errorf("-j %d: refused %s names package %q and files %q", workers, r.Path, r.Package, r.Files)
			}
		}
		for _, r := range res.Converted {
			for _, f := range r.Files {
				if want[f] == nil {
					t.Errorf("-j %d: %s lists %s, not written by the single conversion", workers, r.Path, f)
				}
			}
		}
	}
	if !slices.EqualFunc(runs[0].Converted, runs[1].Converted, samePC) || !slices.EqualFunc(runs[0].Refused, runs[1].Refused, samePC) {
		t.Error("the runs with 1 and 4 workers differ")
	}
}

func samePC(a, b PackageConversion) bool {
	return a.Path == b.Path && a.Package == b.Package && a.PackageID == b.PackageID && slices.Equal(a.Files, b.Files) &&
		a.Size == b.Size && (a.Err == nil) == (b.Err == nil) && (a.Err == nil || a.Err.Error() == b.Err.Error())
}

// TestConvertAllFilter converts only the packages the filter selects; a
// filter selecting none is ErrNoPackages and writes nothing.
func TestConvertAllFilter(t *testing.T) {
	set := openFixtureSet(t)
	for _, tc := range []struct {
		name, dir string
	}{{"textures", "/Textures/"}, {"data tables", "/DataTables/"}, {"none", "/NoSuchFolder/"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			res, err := set.ConvertAll(dir, &ConvertAllOptions{Engine: zen.Engine58, Workers: 2,
				Filter: func(p string) bool { return strings.Contains(p, tc.dir) }})
			if tc.name == "none" {
				if !errors.Is(err, ErrNoPackages) {
					t.Fatalf("got %v, want ErrNoPackages", err)
				}
				if _, err := os.Stat(dir); err == nil {
					t.Error("the output folder was created")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Converted) == 0 {
				t.Fatal("nothing converted")
			}
			for name := range tree(t, dir) {
				if !strings.Contains("/"+name, tc.dir) {
					t.Errorf("%s written, outside the filter", name)
				}
			}
		})
	}
}

// TestConvertAllRefusesSymlink refuses the packages whose path goes
// through a symbolic link out of the output folder, and writes nothing
// through it.
func TestConvertAllRefusesSymlink(t *testing.T) {
	set := openFixtureSet(t)
	dir, outside := t.TempDir(), t.TempDir()
	c := set.Containers[0]
	var top string
	for i, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkExportBundleData {
			p, _ := c.OutputPath(i)
			top = strings.SplitN(p, "/", 2)[0]
			break
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, top)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	res, err := set.ConvertAll(dir, &ConvertAllOptions{Engine: zen.Engine58})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Converted) != 0 || len(res.Refused) == 0 {
		t.Errorf("%d converted, %d refused; want every package refused", len(res.Converted), len(res.Refused))
	}
	for _, r := range res.Refused {
		if !strings.Contains(r.Err.Error(), "symbolic link") {
			t.Errorf("%s refused for %v", r.Path, r.Err)
		}
	}
	if got := tree(t, outside); len(got) != 0 {
		t.Errorf("%d files written through the link", len(got))
	}
}
