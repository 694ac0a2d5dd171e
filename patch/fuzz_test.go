package patch_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/patch"
)

// FuzzParse checks that Parse never panics, and that every error it returns
// is a *patch.Error that says where the problem is.
//
//	go test ./patch -run '^$' -fuzz FuzzParse -fuzztime 30s
func FuzzParse(f *testing.F) {
	for _, path := range examplePatches(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
	}
	for _, s := range opSamples {
		f.Add([]byte(doc("      - " + s + "\n")))
	}
	f.Add([]byte(""))
	f.Add([]byte("unrmod: 1\ntargets:\n  - &t {file: a, ops: [add-name: {name: x}]}\n  - *t\n"))
	f.Add([]byte(doc("      - replace-export: {object: X, data: {hex: '0x00 01:02'}}\n")))
	f.Add([]byte(doc("      - set-property: {object: X, property: Y, index: 3, type: str, value: \"a\\tb\"}\n")))

	const name = "fuzz.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		p, err := patch.Parse(name, data)
		if err != nil {
			var pe *patch.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *patch.Error: %v", err, err)
			}
			if pe.Pos.File != name || !strings.HasPrefix(err.Error(), name) || pe.Msg == "" {
				t.Fatalf("error without the file name or a message: %q (%+v)", err, pe.Pos)
			}
			// YAML breaks lines at \n, \r and (as libyaml does) NEL, LS
			// and PS; this bounds the line count from above.
			lines := 1
			for _, sep := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
				lines += bytes.Count(data, []byte(sep))
			}
			syntax := strings.HasPrefix(pe.Msg, "not valid YAML")
			switch {
			case pe.Pos.Line > 0:
				// YAML syntax errors carry a line only; everything else
				// a line and a column.
				if pe.Pos.Line > lines || (pe.Pos.Col <= 0 && !syntax) {
					t.Fatalf("position %d:%d outside the %d-line input: %v", pe.Pos.Line, pe.Pos.Col, lines, err)
				}
			case syntax:
				// The YAML decoder does not always know the line.
			case strings.HasPrefix(pe.Msg, "the patch file is empty"):
			default:
				t.Fatalf("error without a line and column: %v", err)
			}
			return
		}
		if p.Version != patch.FormatVersion || len(p.Targets) == 0 || p.Path != name {
			t.Fatalf("parsed %+v", p)
		}
		for _, tg := range p.Targets {
			if ct := tg.Container; ct != nil {
				if strings.TrimSpace(ct.Container) == "" || strings.Contains(ct.Container, `\`) || len(ct.Packages)+len(ct.Files) == 0 || tg.Pos.Line <= 0 {
					t.Fatalf("container target %+v", ct)
				}
				for _, pt := range ct.Packages {
					if len(pt.Ops) == 0 || pt.Pos.Line <= 0 {
						t.Fatalf("package %+v", pt)
					}
				}
				continue
			}
			if strings.TrimSpace(tg.File) == "" || strings.Contains(tg.File, `\`) || len(tg.Ops) == 0 || tg.Pos.Line <= 0 {
				t.Fatalf("target %+v", tg)
			}
			for _, op := range tg.Ops {
				if op.Kind() == "" || op.Position().Line <= 0 || op.Position().File != name {
					t.Fatalf("op %#v at %v", op, op.Position())
				}
			}
		}
	})
}
