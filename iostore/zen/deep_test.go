package zen_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// deepSpec is a package of levels exports, each the outer of the next,
// named by nameLen characters.
func deepSpec(layout zen.Layout, levels, nameLen int) zenbuild.Spec {
	s := zenbuild.Spec{Name: "/Game/Deep", Layout: layout, Imports: []string{"/Script/Engine.Actor"}}
	for i := range levels {
		n := strconv.Itoa(i)
		s.Exports = append(s.Exports, zenbuild.Export{
			Name: n + strings.Repeat("n", max(nameLen-len(n), 0)), Class: "/Script/Engine.Actor",
			Outer: i - 1, Data: []byte{0, 0, 0, 0},
		})
	}
	return s
}

// TestDecodeDeepPaths refuses, where the export map is read, a package
// whose export paths together pass MaxPathTextRatio times its size (250
// levels of 1000-character names hold 31 MB of paths in 275 KB), and one
// whose outer chain loops. Deep chains and long paths within the bound
// decode: the engine sets no limit on a path.
func TestDecodeDeepPaths(t *testing.T) {
	for _, l := range []zen.Layout{zen.LayoutUE4, zen.LayoutUE53} {
		cycle := deepSpec(l, 3, 4)
		cycle.Exports[0].Outer = 2
		for _, tc := range []struct {
			name string
			spec zenbuild.Spec
			want string // "" decodes
		}{
			{"200 levels of 4-character names", deepSpec(l, 200, 4), ""},
			{"10 levels of 1000-character names (10,000-character paths)", deepSpec(l, 10, 1000), ""},
			{"250 levels of 1000-character names", deepSpec(l, 250, 1000), "over 8 times the"},
			{"an outer chain that loops", cycle, "outer chain loops"},
		} {
			t.Run(l.String()+"/"+tc.name, func(t *testing.T) {
				data, err := zenbuild.Encode(tc.spec)
				if err != nil {
					t.Fatal(err)
				}
				p, err := zen.DecodePackage("Deep.uasset", data, &zen.DecodeOptions{Layout: l})
				if tc.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					total := 0
					for i := range p.Exports {
						total += len(p.ExportPath(i))
					}
					if total > zen.MaxPathTextRatio*len(data)+64<<10 {
						t.Fatalf("accepted %d characters of paths in %d bytes", total, len(data))
					}
					return
				}
				var fe *ue.FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Deep.uasset") {
					t.Fatalf("got %v, want a FormatError naming the file and saying %q", err, tc.want)
				}
			})
		}
	}
}
