package pack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ufile"
)

// BenchmarkConvertCooked converts the eleven cooked DataTables of the
// Grounded pak mod as one set (read, convert, encode checked) on one and
// two goroutines; the baseline reads and decodes the same cooked assets.
func BenchmarkConvertCooked(b *testing.B) {
	r, err := pak.Open(corpus.Path(b, "other/grounded/500-CreativeUnlock_P.pak"), nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := r.Extract(dir, nil); err != nil {
		b.Fatal(err)
	}
	r.Close()
	var assets []pack.CookedAsset
	var size int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			st, _ := d.Info()
			size += st.Size()
			rel, _ := filepath.Rel(dir, p)
			if name, kind, ok := pack.PackageName(filepath.ToSlash(rel)); ok && kind == pack.Package {
				assets = append(assets, pack.CookedAsset{Path: p, Package: name})
			}
		}
		return err
	})
	b.Run("baseline-decode", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			for _, a := range assets {
				f, err := ufile.Open(a.Path, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Asset(nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, jobs := range []int{1, 2} {
		b.Run("convert-jobs="+string(rune('0'+jobs)), func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				if _, err := pack.ConvertCooked(assets, &pack.ConvertOptions{Engine: zen.Engine{Major: 4, Minor: 27}, Jobs: jobs}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
