package zen_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
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
// whose export paths pass the engine's 1024 characters (250 levels of
// 1000-character names hold 31 MB of paths in 275 KB), and one whose
// outer chain loops; the deepest legal chain decodes.
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
			{"250 levels of 1000-character names", deepSpec(l, 250, 1000), "longer than the engine's 1024 characters"},
			{"a path of 1025 characters", deepSpec(l, 1, 1025-len("/Game/Deep.")), "longer than the engine's 1024 characters"},
			{"a path of 1024 characters", deepSpec(l, 1, 1024-len("/Game/Deep.")), ""},
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
					if last := p.ExportPath(len(p.Exports) - 1); len(last) > zen.MaxPathLen {
						t.Fatalf("accepted a %d-character path", len(last))
					}
					return
				}
				var fe *zen.FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Deep.uasset") {
					t.Fatalf("got %v, want a FormatError naming the file and saying %q", err, tc.want)
				}
			})
		}
	}
}
