package pack_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/uasset"
)

// tcHugePropsName is the package tcHugePropsContainer packs.
const tcHugePropsName = "/Game/Huge/BigTable"

// tcHugePropsContainer packs, under dir, an uncompressed container
// holding one zen package of about size bytes, as a game's largest
// packages are: export Settings holds tagged properties (Health, an
// IntProperty of 100), export BigData size bytes of tcHugeData. It returns
// the container's .utoc.
func tcHugePropsContainer(t testing.TB, dir string, size int) string {
	t.Helper()
	blob, err := zenbuild.Encode(zenbuild.Spec{Name: tcHugePropsName, Layout: tcHugeEngine.Layout(),
		Imports: []string{"/Script/CoreUObject.Object"},
		Exports: []zenbuild.Export{
			{Name: "Settings", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Health", Type: "IntProperty", Value: int32(100)}}},
			{Name: "BigData", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2, Data: tcHugeData(size)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "props")
	file := filepath.Join(folder, "Game", "Content", "Huge", "BigTable.uasset")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, blob, 0o644); err != nil {
		t.Fatal(err)
	}
	blob = nil
	plan, err := pack.Scan(folder, pack.TocVersionFor(tcHugeEngine))
	if err != nil {
		t.Fatal(err)
	}
	utoc := filepath.Join(dir, "Table-Windows.utoc")
	if _, err := pack.Pack(plan, utoc, &pack.Options{Engine: tcHugeEngine, NoPak: true}); err != nil {
		t.Fatal(err)
	}
	return utoc
}

// tcApplyHuge applies to container utoc, in mode (mod or full), a patch
// that sets Settings' Health to 250 and adds a name, writing the output
// under dir/out; it returns the output's .utoc.
func tcApplyHuge(dir, utoc, mode string) (string, error) {
	out := filepath.Join(dir, "out", mode)
	text := fmt.Sprintf(`unrmod: 1
targets:
  - container: %s
    mode: %s
    output: %s
    packages:
      - package: %s
        ops:
          - set-property: {object: Settings, property: Health, value: 250}
          - add-name: {name: UnrmodAddedName}
`, filepath.ToSlash(utoc), mode, filepath.ToSlash(filepath.Join(out, "Table_P")), tcHugePropsName)
	pf := filepath.Join(dir, "patch-"+mode+".yaml")
	if err := os.WriteFile(pf, []byte(text), 0o644); err != nil {
		return "", err
	}
	f, err := patch.ParseFile(pf)
	if err != nil {
		return "", err
	}
	if _, err := patch.Apply(f, patch.Options{Force: true}); err != nil {
		return "", err
	}
	return filepath.Join(out, "Table_P.utoc"), nil
}

// tcApplyHugeFile applies to the zen package file in the patch of
// tcApplyHuge (Settings' Health to 250, a name added) as a file target,
// writing dir/out/file/BigTable.uasset, which it returns.
func tcApplyHugeFile(dir, in string) (string, error) {
	out := filepath.Join(dir, "out", "file", "BigTable.uasset")
	text := fmt.Sprintf(`unrmod: 1
targets:
  - file: %s
    output: %s
    ops:
      - set-property: {object: Settings, property: Health, value: 250}
      - add-name: {name: UnrmodAddedName}
`, filepath.ToSlash(in), filepath.ToSlash(out))
	pf := filepath.Join(dir, "patch-file.yaml")
	if err := os.WriteFile(pf, []byte(text), 0o644); err != nil {
		return "", err
	}
	f, err := patch.ParseFile(pf)
	if err != nil {
		return "", err
	}
	if _, err := patch.Apply(f, patch.Options{Force: true}); err != nil {
		return "", err
	}
	return out, nil
}

// tcCheckHugeApplied checks the output of tcApplyHuge: the container
// verifies, and its package (read in a stream, not held) has Health 250,
// the added name and BigData's bytes unchanged (same SHA-256 as want).
func tcCheckHugeApplied(t testing.TB, utoc string, size int, want [32]byte) {
	t.Helper()
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := c.Verify(nil); !r.OK() {
		t.Fatalf("the output does not verify (%d packages checked): %v", r.PackagesChecked, r.Problems)
	}
	i, err := c.FindPackage(tcHugePropsName)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.OpenChunk(i)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.CreateTemp(t.TempDir(), "pkg")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	n, err := io.Copy(tmp, r)
	if err != nil {
		t.Fatal(err)
	}
	p, err := zen.DecodePackageStream(tcHugePropsName, tmp, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.LoadExport(0); err != nil {
		t.Fatal(err)
	}
	e, err := zenprops.DecodeExport(p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(e.Properties.Properties[0].Value); len(e.Properties.Properties) != 1 || got != "250" {
		t.Errorf("Health is %s, want 250", got)
	}
	if p.Names[len(p.Names)-1] != "UnrmodAddedName" {
		t.Errorf("the added name is missing: %q", p.Names)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(tmp, int64(p.Exports[1].DataOffset), int64(size))); err != nil {
		t.Fatal(err)
	}
	if [32]byte(h.Sum(nil)) != want {
		t.Error("BigData's bytes changed")
	}
}

// TestHugePackageApply applies a set-property patch to a container
// holding one package of 400 MiB, in mode mod and mode full, and bounds
// the heap in use while it runs (sampled, as tcPeak does; allocations,
// which the race detector inflates, are not judged): the package is
// streamed, its header and the changed export decoded and the other
// export's 400 MiB copied in ranges, so the heap stays far under 256 MiB
// (it held the package five times over before). The output must verify
// and hold the change with BigData's bytes unchanged;
// patch's TestContainerStreamedSameOutput checks, on smaller packages,
// that the streamed output is byte for byte the in-memory one.
func TestHugePackageApply(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 400 MiB containers")
	}
	const size = 400 << 20
	dir := t.TempDir()
	utoc := tcHugePropsContainer(t, dir, size)
	want := sha256.Sum256(tcHugeData(size))
	for _, mode := range []string{"mod", "full"} {
		t.Run(mode, func(t *testing.T) {
			var out string
			peak, err := tcPeak(func() error {
				var err error
				out, err = tcApplyHuge(dir, utoc, mode)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("apply mode %s: heap in use rose by %.1f MiB", mode, peak)
			if peak > 256 {
				t.Errorf("apply mode %s of a %d MiB package needs %.0f MiB of heap, over 256", mode, size>>20, peak)
			}
			tcCheckHugeApplied(t, out, size, want)
		})
	}
	t.Run("file", func(t *testing.T) {
		in, _ := tcHugeZenFile(t, dir, size)
		var out string
		peak, err := tcPeak(func() error {
			var err error
			out, err = tcApplyHugeFile(dir, in)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("apply to a zen package file: heap in use rose by %.1f MiB", peak)
		if peak > 256 {
			t.Errorf("apply to a %d MiB zen package file needs %.0f MiB of heap, over 256", size>>20, peak)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		p, err := zen.DecodePackageStream(out, f, st.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.LoadExport(0); err != nil {
			t.Fatal(err)
		}
		e, err := zenprops.DecodeExport(p, nil, 0)
		if err != nil || fmt.Sprint(e.Properties.Properties[0].Value) != "250" || p.Names[len(p.Names)-1] != "UnrmodAddedName" {
			t.Fatalf("the patched file does not hold the change (%v)", err)
		}
		if p.DataLen(1) < size {
			t.Errorf("BigData holds %d bytes, want over %d", p.DataLen(1), size)
		}
	})
}

// tcHugeApplySteps are BenchmarkHugePackage's apply rows: a set-property
// patch applied to a container holding one package of size bytes (see
// tcHugePropsContainer), in mode mod and mode full.
func tcHugeApplySteps(b *testing.B, dir string, size int) []tcHugeStep {
	utoc := tcHugePropsContainer(b, dir, size)
	var steps []tcHugeStep
	for _, mode := range []string{"mod", "full"} {
		steps = append(steps, tcHugeStep{"Apply" + strings.ToUpper(mode[:1]) + mode[1:], func() error {
			_, err := tcApplyHuge(dir, utoc, mode)
			return err
		}})
	}
	in := filepath.Join(dir, "zen", "BigTable.uasset") // tcHugeConvertSteps' package
	steps = append(steps, tcHugeStep{"ApplyFile", func() error {
		_, err := tcApplyHugeFile(dir, in)
		return err
	}})
	return steps
}

// tcHugeZenFile writes, under dir, a zen package file of about size bytes
// that converts to a cooked asset: export Settings with tagged properties,
// export BigData with a tagged property followed by size bytes of
// tcHugeData (as a texture's export holds its pixels). It returns the file
// and the options ToLegacy converts it with (the script objects its
// imports name).
func tcHugeZenFile(t testing.TB, dir string, size int) (string, *convert.LegacyOptions) {
	t.Helper()
	data, err := zenbuild.Encode(zenbuild.Spec{Name: tcHugePropsName, Layout: tcHugeEngine.Layout(), Versioned: true,
		Flags:   zen.PackageFlags(uasset.PkgCooked),
		Imports: []string{"/Script/CoreUObject", "/Script/CoreUObject.Object"},
		Exports: []zenbuild.Export{
			{Name: "Settings", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Health", Type: "IntProperty", Value: int32(100)}}},
			{Name: "BigData", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Width", Type: "IntProperty", Value: int32(4096)}}, Native: tcHugeData(size)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "zen", "BigTable.uasset")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	so := zenbuild.ScriptObjects("/Script/CoreUObject.Object")
	return file, &convert.LegacyOptions{Engine: tcHugeEngine, Imports: convert.NewContainerSource(so), FileName: "BigTable.uasset"}
}

// tcToLegacy converts the zen package file in into the cooked asset out
// (with its .uexp) streamed, as 'unrmod convert --to legacy' does for a
// large package: the header decoded, the export data copied from in.
func tcToLegacy(in, out string, opts *convert.LegacyOptions) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	p, err := zen.DecodePackageStream(in, f, st.Size(), nil)
	if err != nil {
		return err
	}
	a, err := convert.ToLegacy(p, opts)
	if err != nil {
		return err
	}
	h, x, err := convert.EncodeLegacyStreamChecked(a, p)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, h, 0o644); err != nil {
		return err
	}
	return tcWriteStream(uasset.CompanionNames(out).Uexp, x.NewReader())
}

// tcToZen converts the cooked asset in into the zen package file out
// streamed, as 'unrmod convert --to zen' does for a large asset: the
// .uasset decoded, the export data copied from the .uexp.
func tcToZen(in, out string) error {
	h, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	x, err := os.Open(uasset.CompanionNames(in).Uexp)
	if err != nil {
		return err
	}
	defer x.Close()
	st, err := x.Stat()
	if err != nil {
		return err
	}
	a, err := uasset.DecodeStream(in, h, x, st.Size(), &uasset.Options{Release: uasset.Release{Major: tcHugeEngine.Major, Minor: tcHugeEngine.Minor}})
	if err != nil {
		return err
	}
	p, err := convert.ToZen(a, &convert.Options{Engine: tcHugeEngine})
	if err != nil {
		return err
	}
	s, err := convert.EncodeStreamChecked(out, p)
	if err != nil {
		return err
	}
	return tcWriteStream(out, s.NewReader())
}

func tcWriteStream(path string, r io.Reader) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestHugePackageConvert converts a zen package of 400 MiB into a cooked
// asset and back, streamed, and bounds the heap in use while each runs
// (sampled, as tcPeak does): the header is decoded and the export data
// copied from file to file in ranges, so the heap stays far under 256 MiB
// (convert held the package several times over before). The round trip
// must give the package back byte for byte (compared by SHA-256);
// convert's TestConvertStreamedGenerated and cmd/unrmod's
// TestConvertStreamedCLI check, on smaller packages, that the streamed
// outputs are the in-memory ones.
func TestHugePackageConvert(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 400 MiB packages")
	}
	const size = 400 << 20
	dir := t.TempDir()
	in, opts := tcHugeZenFile(t, dir, size)
	legacy := filepath.Join(dir, "legacy", "BigTable.uasset")
	back := filepath.Join(dir, "back", "BigTable.uasset")
	os.MkdirAll(filepath.Dir(legacy), 0o755)
	os.MkdirAll(filepath.Dir(back), 0o755)
	for _, st := range []tcHugeStep{
		{"to legacy", func() error { return tcToLegacy(in, legacy, opts) }},
		{"to zen", func() error { return tcToZen(legacy, back) }},
	} {
		peak, err := tcPeak(st.run)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		t.Logf("convert %s: heap in use rose by %.1f MiB", st.name, peak)
		if peak > 256 {
			t.Errorf("convert %s of a %d MiB package needs %.0f MiB of heap, over 256", st.name, size>>20, peak)
		}
	}
	if a, b := tcFileSum(t, in), tcFileSum(t, back); a != b {
		t.Error("zen → legacy → zen does not give the package back")
	}
}

func tcFileSum(t testing.TB, path string) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

// tcHugeConvertSteps are BenchmarkHugePackage's convert rows: a zen
// package of size bytes (see tcHugeZenFile) converted into a cooked asset
// (ConvertToLegacy) and back (ConvertToZen), streamed.
func tcHugeConvertSteps(b *testing.B, dir string, size int) []tcHugeStep {
	in, opts := tcHugeZenFile(b, dir, size)
	legacy := filepath.Join(dir, "legacy", "BigTable.uasset")
	back := filepath.Join(dir, "back", "BigTable.uasset")
	os.MkdirAll(filepath.Dir(legacy), 0o755)
	os.MkdirAll(filepath.Dir(back), 0o755)
	return []tcHugeStep{
		{"ConvertToLegacy", func() error { return tcToLegacy(in, legacy, opts) }},
		{"ConvertToZen", func() error { return tcToZen(legacy, back) }},
	}
}
