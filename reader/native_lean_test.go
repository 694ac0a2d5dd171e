package reader_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// checkNativeLean requires the layout Verify works from to be Native's in
// everything but the property list's tags: the same kind, list bounds,
// lazy arrays, mips, end, suspects and error.
func checkNativeLean(t *testing.T, p *reader.Package) {
	t.Helper()
	for i := range p.Exports {
		full, ferr := p.Native(i)
		lean, lerr := reader.NativeLean(p, i)
		if fmt.Sprint(ferr) != fmt.Sprint(lerr) {
			t.Fatalf("export %d: Native error %v, lean %v", i, ferr, lerr)
		}
		if (full.Props == nil) != (lean.Props == nil) {
			t.Fatalf("export %d: Native props %v, lean %v", i, full.Props, lean.Props)
		}
		if full.Props != nil {
			if full.Props.Start != lean.Props.Start || full.Props.End != lean.Props.End {
				t.Fatalf("export %d: list %d..%d, lean %d..%d", i, full.Props.Start, full.Props.End, lean.Props.Start, lean.Props.End)
			}
			if lean.Props.Props != nil && full.Kind != reader.NativeTexture {
				t.Fatalf("export %d: the lean layout kept %d tags", i, len(lean.Props.Props))
			}
			f, l := *full, *lean
			f.Props, l.Props = nil, nil
			full, lean = &f, &l
		}
		if !reflect.DeepEqual(full, lean) {
			t.Fatalf("export %d: Native %+v, lean %+v", i, full, lean)
		}
	}
}

func TestNativeLeanCorpus(t *testing.T) {
	for _, f := range corpus.Legacy(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := reader.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkNativeLean(t, p)
		})
	}
}

func TestNativeLeanHostile(t *testing.T) {
	for name, build := range map[string]func() ([]byte, error){
		"long-name tags": func() ([]byte, error) { return fixture.LongNameTags(2000, 1024) },
		"deep outers":    func() ([]byte, error) { return fixture.DeepOuters(200, 4) },
	} {
		t.Run(name, func(t *testing.T) {
			data, err := build()
			if err != nil {
				t.Fatal(err)
			}
			p, err := reader.Read("hostile.u", data)
			if err != nil {
				t.Fatal(err)
			}
			checkNativeLean(t, p)
			// A list cut short is the same error both ways.
			for i := range p.Exports {
				if d := p.Exports[i].Data; len(d) > 8 {
					p.Exports[i].Data = d[:len(d)/2]
				}
			}
			checkNativeLean(t, p)
		})
	}
}
