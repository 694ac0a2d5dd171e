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
	"github.com/unrmod/unrmod/report"
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
		if _, err := report.NewCookedProperties(a.name, p, "", []int{0}, false, "", nil); !errors.Is(err, props.ErrUnversioned) {
			t.Errorf("%s: NewCookedProperties: %v, want ErrUnversioned", a.name, err)
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
		pkg := assetprops.PackageNameFromPath(a.mount + a.path)
		d, err := describe(p, pkg)
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

// TestGroundedSetRow sets, in every Grounded DataTable with rows, the
// first integer, float or name property of its last row to a new value:
// after encoding and decoding, that is the only value changed, and a new
// name (UE 4.27 keeps no count of export data names) is at the map's end.
func TestGroundedSetRow(t *testing.T) {
	const rel = "other/grounded/500-CreativeUnlock_P.pak"
	set := 0
	for _, a := range readPak(t, rel) {
		p := decodeAsset(t, a)
		pkg := assetprops.PackageNameFromPath(a.mount + a.path)
		x, err := assetprops.DecodeExport(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Table.Rows) == 0 {
			continue
		}
		row := x.Table.Rows[len(x.Table.Rows)-1]
		var target props.Target
		var value string
		for _, q := range row.Properties.Properties {
			switch q.TypeString() {
			case "IntProperty":
				value = "123457"
			case "FloatProperty":
				value = "0.25"
			case "NameProperty":
				value = "Unrmod_Grounded_Name"
			default:
				continue
			}
			target = props.Target{Row: row.Name.Text, Path: q.Label()}
			break
		}
		if value == "" {
			continue
		}
		before, err := describe(p, pkg)
		if err != nil {
			t.Fatal(err)
		}
		names := len(p.Names)
		ch, err := assetprops.Set(p, 0, target, props.Input{Text: value})
		if err != nil {
			t.Fatalf("%s: %s: %v", a.name, target, err)
		}
		h, ux, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		nw, err := uasset.Decode(a.name, h, ux, nil)
		if err != nil {
			t.Fatal(err)
		}
		after, err := describe(nw, pkg)
		if err != nil {
			t.Fatal(err)
		}
		d := changed(flatten(before), flatten(after))
		if len(d) != 1 || !strings.HasSuffix(d[0], target.String()) || !strings.HasSuffix(flatten(after)[d[0]], " "+value) {
			t.Errorf("%s: %s = %s: changed %v", a.name, target, value, d)
		}
		wantNames := names
		if strings.HasPrefix(value, "Unrmod") {
			wantNames++
			if nw.Names[len(nw.Names)-1].Value != value {
				t.Errorf("%s: last name %q", a.name, nw.Names[len(nw.Names)-1].Value)
			}
		}
		if len(nw.Names) != wantNames {
			t.Errorf("%s: %d names, want %d", a.name, len(nw.Names), wantNames)
		}
		t.Logf("%s: %s: %s → %s", a.path, ch.Target, ch.Old, ch.New)
		set++
	}
	if set == 0 {
		t.Fatal("no table has a row with an int, float or name")
	}
}

// TestPackageNameFromPath names packages by their paths: every asset of
// the UE 5.8 paks gets the name its summary records (the paks mount
// ../../../CUE4ParseFixtures/Content/Fixtures/), and the usual roots map
// as the engine maps them.
func TestPackageNameFromPath(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"../../../Maine/Content/Blueprints/Items/Table_X.uasset", "/Game/Blueprints/Items/Table_X"},
		{"Maine/Content/Maps/Arena.umap", "/Game/Maps/Arena"},
		{"../../../Engine/Content/EngineMaterials/M_Default.uasset", "/Engine/EngineMaterials/M_Default"},
		{"../../../Maine/Plugins/Mods/MyMod/Content/BP_Mod.uasset", "/MyMod/BP_Mod"},
		{"../../../Engine/Plugins/FX/Niagara/Content/N_Fx.uasset", "/Niagara/N_Fx"},
		{`Maine\Content\UI\W_Menu.uasset`, "/Game/UI/W_Menu"},
		{"Maine/Binaries/Win64/Game.exe", ""},
		{"Content/X.uasset", ""},
	} {
		if got := assetprops.PackageNameFromPath(c.path); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
	for _, rel := range taggedPaks {
		for _, a := range readPak(t, rel) {
			p := decodeAsset(t, a)
			if got := assetprops.PackageNameFromPath(a.mount + a.path); got != p.Summary.PackageName {
				t.Errorf("%s: %q, the summary says %q", a.name, got, p.Summary.PackageName)
			}
		}
	}
}
