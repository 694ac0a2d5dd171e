package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
)

// TestZenFileStreamedSameOutput applies patches to loose zen package
// files (a package of the UE 5.8 fixture container saved as a file, and
// the generated package of TestContainerStreamedSameOutput) twice, in
// memory and streamed (zen.DecodePackageStream, every file over the
// threshold), written beside and in place: the streamed path must write
// the same bytes (and the same backup) and report the same result. It
// fails when the streamed path is not taken.
func TestZenFileStreamedSameOutput(t *testing.T) {
	dir := t.TempDir()
	save := func(utoc, name string) string {
		c, err := iostore.Open(utoc, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		i, err := c.FindPackage(name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := c.ReadChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, filepath.Base(name)+".uasset")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	curve := save(corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"), "/Game/Fixtures/Curves/Curve_Float")
	gen := save(tcGeneratedContainer(t, 3<<20), "/Game/Huge/BigTable")
	cases := []struct {
		name, file, ops string
	}{
		{"ue58-set-property", curve, "      - set-property: {object: Curve_Float, property: FloatCurve.PreInfinityExtrap, value: RCCE_Constant}\n" +
			"      - add-name: {name: UnrmodAddedName}\n"},
		{"ue58-already", curve, "      - set-property: {object: Curve_Float, property: FloatCurve.PreInfinityExtrap, value: RCCE_Linear}\n"},
		{"generated-set-property", gen, "      - set-property: {object: Settings, property: Health, value: 250}\n"},
		{"generated-rename", gen, "      - rename: {from: Health, to: Vigour}\n"},
		{"generated-replace-export", gen, "      - replace-export: {object: Settings, from: {object: Settings}}\n" +
			"      - object-flags: {object: BigData, set: [Transient]}\n"},
	}
	for _, tc := range cases {
		for _, inPlace := range []bool{false, true} {
			name := tc.name
			if inPlace {
				name += "/in-place"
			}
			t.Run(name, func(t *testing.T) {
				var results [2]*TargetResult
				var outs [2][2][]byte // output, backup
				for k, above := range []int64{1 << 62, 1} {
					run := filepath.Join(t.TempDir(), "run")
					os.MkdirAll(run, 0o755)
					in := filepath.Join(run, filepath.Base(tc.file))
					data, _ := os.ReadFile(tc.file)
					os.WriteFile(in, data, 0o644)
					text := "unrmod: 1\ntargets:\n  - file: " + filepath.Base(in) + "\n    output: out/" + filepath.Base(in) + "\n    ops:\n" + tc.ops
					if inPlace {
						text = "unrmod: 1\ntargets:\n  - file: " + filepath.Base(in) + "\n    ops:\n" + tc.ops
					}
					pf := filepath.Join(run, "patch.yaml")
					os.WriteFile(pf, []byte(text), 0o644)
					f, err := ParseFile(pf)
					if err != nil {
						t.Fatal(err)
					}
					res, err := Apply(f, Options{streamAbove: above, InPlace: inPlace})
					if err != nil {
						t.Fatal(err)
					}
					results[k] = res.Targets[0]
					outs[k][0], _ = os.ReadFile(res.Targets[0].Output)
					if inPlace {
						outs[k][1], _ = os.ReadFile(in + ".bak")
					}
				}
				a, b := results[0], results[1]
				if len(outs[0][0]) == 0 || !bytes.Equal(outs[0][0], outs[1][0]) || !bytes.Equal(outs[0][1], outs[1][1]) {
					t.Fatalf("the streamed path wrote other bytes (%d, want %d; backup %d, want %d)", len(outs[1][0]), len(outs[0][0]), len(outs[1][1]), len(outs[0][1]))
				}
				a.Output, b.Output, a.Input, b.Input, a.Backup, b.Backup = "", "", "", "", "", ""
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("results differ:\n%+v\nstreamed:\n%+v", a, b)
				}
			})
		}
	}
}
