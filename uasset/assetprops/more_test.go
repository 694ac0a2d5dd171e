package assetprops_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// looseAssets reads the cooked pairs of the corpus: header files with
// their .uexp beside them.
func looseAssets(tb testing.TB) []pakAsset {
	tb.Helper()
	var out []pakAsset
	for _, dir := range []string{"other/ue5_cooked_pairs", "other/ue4_27_cooked_pairs"} {
		files, _ := filepath.Glob(filepath.Join(corpus.Path(tb, dir), "*.uasset"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			x, err := os.ReadFile(uasset.CompanionNames(f).Uexp)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, pakAsset{name: dir + "/" + filepath.Base(f), path: f, uasset: b, uexp: x})
		}
	}
	if len(out) == 0 {
		tb.Fatal("no cooked pairs")
	}
	return out
}

// TestLoosePairsUnversioned: the corpus's loose cooked pairs (UE 4.27, 5.4,
// 5.5, 5.6) were cooked with unversioned properties; reading their
// properties is refused with props.ErrUnversioned, never guessed.
func TestLoosePairsUnversioned(t *testing.T) {
	for _, a := range looseAssets(t) {
		p := decodeAsset(t, a)
		if _, err := assetprops.Describe(p, ""); !errors.Is(err, props.ErrUnversioned) {
			t.Errorf("%s: Describe: %v, want ErrUnversioned", a.name, err)
		}
		for i := range p.Exports {
			if _, err := assetprops.DecodeExport(p, i); !errors.Is(err, props.ErrUnversioned) {
				t.Errorf("%s: export %d: %v, want ErrUnversioned", a.name, i, err)
			}
			if _, err := assetprops.Set(p, i, props.Target{Path: "X"}, props.Input{Text: "1"}); !errors.Is(err, props.ErrUnversioned) {
				t.Errorf("%s: export %d: Set: %v, want ErrUnversioned", a.name, i, err)
			}
		}
	}
}

// TestGroundedDataTables decodes every row of every DataTable of a
// Grounded pak mod (UE 4.27 cooks, tagged properties): each table's
// properties and rows, with nothing left over, re-encoding to the same
// bytes.
func TestGroundedDataTables(t *testing.T) {
	const rel = "other/grounded/500-CreativeUnlock_P.pak"
	tables, rows := 0, 0
	for _, a := range readPak(t, rel) {
		p := decodeAsset(t, a)
		pkg := "/Game/" + strings.TrimSuffix(strings.TrimPrefix(a.path, "Maine/Content/"), ".uasset")
		d, err := assetprops.Describe(p, pkg)
		if err != nil {
			t.Fatal(err)
		}
		if d.Skipped != 0 || len(d.Exports) != len(p.Exports) {
			t.Errorf("%s: %d of %d exports read", a.name, len(d.Exports), len(p.Exports))
		}
		for i := range p.Exports {
			x, err := assetprops.DecodeExport(p, i)
			if err != nil {
				t.Fatal(err)
			}
			if x.Table == nil || len(x.Rest) != 0 || x.Table.End != len(p.Exports[i].Data) {
				t.Errorf("%s: export %d: table %v, %d bytes left", a.name, i, x.Table != nil, len(x.Rest))
				continue
			}
			if out, err := props.EncodeTable(x.Table, x.Context); err != nil || !bytes.Equal(out, p.Exports[i].Data) {
				t.Errorf("%s: export %d does not encode to its bytes: %v", a.name, i, err)
			}
			tables++
			rows += len(x.Table.Rows)
			for _, r := range x.Table.Rows {
				if len(r.Properties.Properties) == 0 {
					t.Errorf("%s: row %s has no properties", a.name, r.Name.Text)
				}
			}
		}
		if !strings.HasPrefix(d.Exports[0].Path, pkg+".") || !strings.HasSuffix(d.Exports[0].Class, "DataTable") {
			t.Errorf("%s: export 0 is %s (%s)", a.name, d.Exports[0].Path, d.Exports[0].Class)
		}
	}
	if tables != 11 || rows != 364 {
		t.Errorf("%d tables, %d rows; want 11 and 364", tables, rows)
	}
}
