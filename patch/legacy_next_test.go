package patch_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// openDX is a Deus Ex package (68/32) whose name table holds names with a
// zero byte inside.
const openDX = "legacy-next/deusex/OpenDX.u"

// Flag toggles on a Deus Ex package whose name table holds names with a
// zero byte inside: the output verifies, and every name entry keeps the
// bytes the engine wrote, in both layouts.
func TestDeusExFlagToggles(t *testing.T) {
	path := corpus.Path(t, openDX)
	in := readPkg(t, path)
	if in.Header.Version != (reader.Version{File: 68, Licensee: 32}) {
		t.Fatalf("%s is version %s", openDX, in.Header.Version)
	}
	tex := firstExportOfClass(t, in, "Texture")
	ops := []struct {
		name, yaml string
		check      func(t *testing.T, out *reader.Package)
	}{
		{"package-flags", "      - package-flags: {set: [ServerSideOnly]}\n", func(t *testing.T, out *reader.Package) {
			if out.Header.Flags != in.Header.Flags|reader.PkgServerSideOnly {
				t.Errorf("flags %s", out.Header.Flags)
			}
		}},
		{"object-flags", "      - object-flags: {object: " + in.ExportPath(tex) + ", set: [Transactional]}\n", func(t *testing.T, out *reader.Package) {
			for i := range in.Exports {
				want := in.Exports[i].Flags
				if i == tex {
					want |= 0x1
				}
				if out.Exports[i].Flags != want {
					t.Errorf("%s flags %s, want %s", out.ExportPath(i), out.Exports[i].Flags, want)
				}
			}
		}},
	}
	zeroNames := len(in.Warnings())
	if zeroNames == 0 {
		t.Fatalf("%s has no name storing characters after a zero", openDX)
	}
	for _, op := range ops {
		for _, layout := range []writer.Layout{writer.Preserve, writer.Compact} {
			t.Run(op.name+"/"+layout.String(), func(t *testing.T) {
				res, _ := applyText(t, oneTarget(path, op.yaml), layout)
				data, err := os.ReadFile(res.Targets[0].Output)
				if err != nil {
					t.Fatal(err)
				}
				out, err := writer.Check("out.u", data)
				if err != nil {
					t.Fatal(err)
				}
				op.check(t, out)
				if len(out.Names) != len(in.Names) || len(out.Warnings()) != zeroNames {
					t.Fatalf("%d names, %d warnings; the input has %d and %d", len(out.Names), len(out.Warnings()), len(in.Names), zeroNames)
				}
				for k := range in.Names {
					if a, b := in.Names[k].Raw(), out.Names[k].Raw(); !bytes.Equal(a, b) {
						t.Errorf("name %d entry % x, written as % x", k, a, b)
					}
				}
				sameExportContent(t, in, out)
			})
		}
	}
}

// firstExportOfClass returns the first export of the class.
func firstExportOfClass(t testing.TB, p *reader.Package, class string) int {
	t.Helper()
	for i := range p.Exports {
		if p.ClassName(i) == class {
			return i
		}
	}
	t.Fatalf("%s has no %s export", p.FileName, class)
	return -1
}
