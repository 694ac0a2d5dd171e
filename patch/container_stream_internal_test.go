package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
)

// tcGeneratedContainer packs a container holding one UE 5.6 package
// shaped as iostore/pack's huge-package tests make it, at size bytes:
// export Settings with tagged properties (Health, an IntProperty), export
// BigData of size bytes. It returns the .utoc.
func tcGeneratedContainer(t *testing.T, size int) string {
	t.Helper()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte('a' + i*7%26)
	}
	e := zen.Engine{Major: 5, Minor: 6}
	blob, err := zenbuild.Encode(zenbuild.Spec{Name: "/Game/Huge/BigTable", Layout: e.Layout(),
		Imports: []string{"/Script/CoreUObject.Object"},
		Exports: []zenbuild.Export{
			{Name: "Settings", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Health", Type: "IntProperty", Value: int32(100)}}},
			{Name: "BigData", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2, Data: data},
		}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "in", "Game", "Content", "Huge", "BigTable.uasset")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := pack.Scan(filepath.Join(dir, "in"), pack.TocVersionFor(e))
	if err != nil {
		t.Fatal(err)
	}
	utoc := filepath.Join(dir, "Table-Windows.utoc")
	if _, err := pack.Pack(plan, utoc, &pack.Options{Engine: e, NoPak: true, Writer: iostore.WriterOptions{Method: "Zlib"}}); err != nil {
		t.Fatal(err)
	}
	return utoc
}

// TestContainerStreamedSameOutput applies patches to packages of the demo
// and corpus containers twice, in memory and streamed (every package over
// the streaming threshold), in mode mod and mode full: the streamed path
// must write the same files byte for byte and report the same packages
// (sizes, hashes, store changes), an operation already in effect
// included. It fails when the streamed path is not taken.
func TestContainerStreamedSameOutput(t *testing.T) {
	const curve = "/Game/Fixtures/Curves/Curve_Float"
	gen := tcGeneratedContainer(t, 3<<20)
	cases := []struct {
		name, utoc, pkg, ops string
	}{
		{"generated-set-property", gen, "/Game/Huge/BigTable",
			"          - set-property: {object: Settings, property: Health, value: 250}\n"},
		{"generated-rename", gen, "/Game/Huge/BigTable",
			"          - rename: {from: Health, to: Vigour}\n"},
		{"demo427-rename", "../examples/containers/UnrmodDemo427_P.utoc", "/Game/Items/BP_DemoPickup",
			"          - rename: {from: RespawnTime, to: RespawnDelay}\n"},
		{"ue58-set-property", "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc", curve,
			"          - set-property: {object: Curve_Float, property: FloatCurve.PreInfinityExtrap, value: RCCE_Constant}\n" +
				"          - add-name: {name: UnrmodAddedName}\n"},
		{"ue58-already", "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc", curve,
			"          - set-property: {object: Curve_Float, property: FloatCurve.PreInfinityExtrap, value: RCCE_Linear}\n"},
		{"ue58-unversioned-add-name", "iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc", curve,
			"          - add-name: {name: UnrmodAddedName}\n"},
	}
	for _, tc := range cases {
		for _, mode := range []string{"mod", "full"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				src := tc.utoc
				if !filepath.IsAbs(src) && !strings.HasPrefix(src, "..") {
					src = corpus.Path(t, src)
				}
				outs := [2]map[string][]byte{}
				results := [2]*ContainerResult{}
				for k, above := range []int64{1 << 62, 1} {
					dir := filepath.Join(t.TempDir(), "run")
					base := zencorpus.CopyContainer(t, src, dir, "")
					text := "unrmod: 1\ntargets:\n  - container: " + filepath.Base(base) + "\n    mode: " + mode + "\n    output: out/Out_P\n" +
						"    packages:\n      - package: " + tc.pkg + "\n        ops:\n" + tc.ops
					pf := filepath.Join(dir, "patch.yaml")
					if err := os.WriteFile(pf, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
					f, err := ParseFile(pf)
					if err != nil {
						t.Fatal(err)
					}
					res, err := Apply(f, Options{streamAbove: above})
					if err != nil {
						t.Fatal(err)
					}
					results[k] = res.Targets[0].Container
					outs[k] = map[string][]byte{}
					files, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
					for _, p := range files {
						b, err := os.ReadFile(p)
						if err != nil {
							t.Fatal(err)
						}
						outs[k][filepath.Base(p)] = b
					}
					if len(files) == 0 {
						t.Fatal("no output written")
					}
				}
				if results[0].streamed != 0 || results[1].streamed != 1 {
					t.Fatalf("%d and %d packages streamed, want 0 and 1", results[0].streamed, results[1].streamed)
				}
				for name, want := range outs[0] {
					if got, ok := outs[1][name]; !ok || !bytes.Equal(got, want) {
						t.Errorf("%s: the streamed path wrote other bytes (%d, want %d)", name, len(got), len(want))
					}
				}
				if len(outs[0]) != len(outs[1]) {
					t.Errorf("%d files written streamed, %d in memory", len(outs[1]), len(outs[0]))
				}
				a, b := results[0].Packages, results[1].Packages
				if len(a) != 1 || len(b) != 1 || a[0].NewHash != b[0].NewHash || a[0].NewSize != b[0].NewSize ||
					a[0].OldSize != b[0].OldSize || len(a[0].Store) != len(b[0].Store) || len(a[0].Changes) != len(b[0].Changes) {
					t.Fatalf("reports differ: %+v, streamed %+v", a, b)
				}
				for k := range a[0].Store {
					if a[0].Store[k] != b[0].Store[k] {
						t.Errorf("store change %v, streamed %v", a[0].Store[k], b[0].Store[k])
					}
				}
				for k := range a[0].Changes {
					if a[0].Changes[k] != b[0].Changes[k] {
						t.Errorf("change %+v, streamed %+v", a[0].Changes[k], b[0].Changes[k])
					}
				}
			})
		}
	}
}
