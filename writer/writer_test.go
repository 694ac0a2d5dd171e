package writer_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/writer"
)

// packages returns every package the tests run on: the corpus (when
// UNRMOD_CORPUS is set) and the project's own fixtures at several versions.
func packages(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, v := range []reader.Version{{File: 61}, {File: 64}, {File: 69}, {File: 128, Licensee: 29}} {
		data, err := fixture.Demo(v)
		if err != nil {
			t.Fatal(err)
		}
		out["fixture-"+v.String()+"/UnrmodDemo.u"] = data
	}
	if os.Getenv(corpus.EnvVar) != "" {
		for _, f := range corpus.Legacy(t) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(corpus.Dir(t), f)
			out[filepath.ToSlash(rel)] = data
		}
	}
	return out
}

func read(t *testing.T, name string, data []byte) *reader.Package {
	t.Helper()
	p, err := reader.Read(filepath.Base(name), data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// demo returns the v69 demo package's bytes and its decoded model.
func demo(t *testing.T) ([]byte, *reader.Package) {
	t.Helper()
	data, err := fixture.Demo(reader.Version{File: 69})
	if err != nil {
		t.Fatal(err)
	}
	return data, read(t, "UnrmodDemo.u", data)
}

func TestPreserveIsByteIdentical(t *testing.T) {
	for name, data := range packages(t) {
		t.Run(name, func(t *testing.T) {
			p := read(t, name, data)
			out, rep, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, data) {
				t.Fatalf("preserve output differs from input (%d vs %d bytes)", len(out), len(data))
			}
			if rep.MovedExports != 0 || len(rep.MovedTables) != 0 {
				t.Errorf("report %+v for an unchanged model", rep)
			}
		})
	}
}

func TestCompactVerifiesAndKeepsContent(t *testing.T) {
	for name, data := range packages(t) {
		t.Run(name, func(t *testing.T) {
			p := read(t, name, data)
			out, _, err := writer.Encode(p, writer.Options{Layout: writer.Compact})
			if err != nil {
				t.Fatal(err)
			}
			q, err := writer.Check(filepath.Base(name), out)
			if err != nil {
				t.Fatal(err)
			}
			sameContent(t, p, q, 0)
		})
	}
}

// shift adds a name to p, so the name table grows and, in the compact
// layout, every export's data moves.
func shift(p *reader.Package) {
	p.Names = append(p.Names, reader.Name{Name: "UnrmodShift", Flags: reader.NewNameFlags})
	if n := len(p.Header.Generations); n > 0 {
		p.Header.Generations[n-1] = reader.Generation{ExportCount: int32(len(p.Exports)), NameCount: int32(len(p.Names))}
	}
}

// TestCompactRelocatesEveryOffset moves every export and checks that each
// lazy-array offset was rebased: textures' mip offsets point at the mip's
// USize field, and all other bytes are unchanged.
func TestCompactRelocatesEveryOffset(t *testing.T) {
	var rebasedTotal int
	for name, data := range packages(t) {
		t.Run(name, func(t *testing.T) {
			p := read(t, name, data)
			shift(p)
			out, rep, err := writer.Encode(p, writer.Options{Layout: writer.Compact})
			if err != nil {
				t.Fatal(err)
			}
			q, err := writer.Check(filepath.Base(name), out)
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Names) != len(p.Names) || q.Names[len(q.Names)-1].Name != "UnrmodShift" {
				t.Fatalf("added name lost")
			}
			sameContent(t, p, q, 1)
			rebasedTotal += rep.Rebased
			for i := range q.Exports {
				nl, err := q.Native(i)
				if err != nil {
					t.Fatal(err)
				}
				e := &q.Exports[i]
				for _, m := range nl.Mips {
					if m.Lazy.SeekPosAt < 0 {
						continue
					}
					at := int(m.Lazy.SeekPos - e.SerialOffset)
					if at < 0 || at+4 > len(e.Data) || int32(binary.LittleEndian.Uint32(e.Data[at:])) != m.USize {
						t.Errorf("%s %s: SeekPos 0x%X does not point at USize %d", q.ExportPath(i), m.Lazy.Field, m.Lazy.SeekPos, m.USize)
					}
				}
			}
		})
	}
	if rebasedTotal == 0 {
		t.Error("no lazy-array offset was rebased in any package")
	}
}

// sameContent checks that q holds p's tables and data, with data equal
// outside lazy-array SeekPos fields. extraNames is how many names q may have
// beyond p's original count.
func sameContent(t *testing.T, p, q *reader.Package, extraNames int) {
	t.Helper()
	if len(q.Imports) != len(p.Imports) || len(q.Exports) != len(p.Exports) || len(q.Names) != len(p.Names) {
		t.Fatalf("table sizes changed: names %d→%d imports %d→%d exports %d→%d",
			len(p.Names), len(q.Names), len(p.Imports), len(q.Imports), len(p.Exports), len(q.Exports))
	}
	for i := range p.Names {
		if p.Names[i].Name != q.Names[i].Name || p.Names[i].Flags != q.Names[i].Flags {
			t.Fatalf("name %d changed", i)
		}
	}
	for i := range p.Imports {
		a, b := p.Imports[i], q.Imports[i]
		if a.ClassPackage != b.ClassPackage || a.ClassName != b.ClassName || a.Outer != b.Outer || a.ObjectName != b.ObjectName {
			t.Fatalf("import %d changed", i)
		}
	}
	for i := range p.Exports {
		a, b := &p.Exports[i], &q.Exports[i]
		if a.Class != b.Class || a.Super != b.Super || a.Outer != b.Outer || a.ObjectName != b.ObjectName || a.Flags != b.Flags {
			t.Fatalf("export %d entry changed", i)
		}
		if len(a.Data) != len(b.Data) {
			t.Fatalf("export %d size %d → %d", i, len(a.Data), len(b.Data))
		}
		nl, _ := p.Native(i)
		mask := map[int]bool{}
		for _, la := range nl.Lazy {
			if la.SeekPosAt >= 0 {
				for k := 0; k < 4; k++ {
					mask[la.SeekPosAt+k] = true
				}
				got := int32(binary.LittleEndian.Uint32(b.Data[la.SeekPosAt:]))
				if want := b.SerialOffset + int32(la.End); got != want {
					t.Errorf("%s %s: SeekPos 0x%X, want 0x%X", q.ExportPath(i), la.Field, got, want)
				}
			}
		}
		for k := range a.Data {
			if !mask[k] && a.Data[k] != b.Data[k] {
				t.Fatalf("%s: data byte %d changed", q.ExportPath(i), k)
			}
		}
	}
}

// TestPreserveMovesOnlyWhatChanged replaces one texture's pixels and adds a
// name: the texture goes to the end with rebased mips, the name table moves,
// and every other export stays at its offset with its bytes.
func TestPreserveMovesOnlyWhatChanged(t *testing.T) {
	data, p := demo(t)
	refs := p.Lookup("Skins.Checker")
	i, _ := refs[0].Export()
	nl, err := p.Native(i)
	if err != nil {
		t.Fatal(err)
	}
	e := &p.Exports[i]
	e.Data = append([]byte(nil), e.Data...)
	e.Data[nl.Mips[0].Lazy.Start] ^= 0xFF // one pixel
	shift(p)

	out, rep, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
	if err != nil {
		t.Fatal(err)
	}
	q, err := writer.Check("UnrmodDemo.u", out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.MovedExports != 1 || rep.Rebased != len(nl.Mips) {
		t.Errorf("report %+v: want 1 moved export and %d rebased offsets", rep, len(nl.Mips))
	}
	if q.Header.NameOffset == p.Header.NameOffset {
		t.Errorf("name table rewritten in place at 0x%X although it grew", q.Header.NameOffset)
	}
	if q.Exports[i].SerialOffset < int32(len(data)) {
		t.Errorf("changed export stayed at 0x%X", q.Exports[i].SerialOffset)
	}
	for k := range p.Exports {
		if k == i {
			continue
		}
		if q.Exports[k].SerialOffset != p.Exports[k].SerialOffset || !bytes.Equal(q.Exports[k].Data, p.Exports[k].Data) {
			t.Errorf("%s moved or changed", q.ExportPath(k))
		}
	}
	// Everything before the old end of file that is not a table or header is untouched.
	for _, r := range p.Regions() {
		if r.Kind == "export" && r.Index != i && !bytes.Equal(out[r.Offset:r.End()], data[r.Offset:r.End()]) {
			t.Errorf("bytes of export %d changed in place", r.Index)
		}
	}
}

// TestPreserveHeaderGrowth appends generations; the header grows over the
// name table, which must move to the end.
func TestPreserveHeaderGrowth(t *testing.T) {
	data, p := demo(t)
	g := p.Header.Generations[0]
	p.Header.Generations = append(p.Header.Generations, g, g, g)
	out, rep, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
	if err != nil {
		t.Fatal(err)
	}
	q, err := writer.Check("UnrmodDemo.u", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Header.Generations) != 4 || q.Header.NameOffset < int32(len(data)) {
		t.Errorf("generations %d, name offset 0x%X; report %+v", len(q.Header.Generations), q.Header.NameOffset, rep)
	}
}

// TestRefusals covers data the writer must not move.
func TestRefusals(t *testing.T) {
	t.Run("unknown layout with offset-like values", func(t *testing.T) {
		// A UE1 mesh stored in a UE2 package: unrmod knows no UE2 mesh layout,
		// and the heuristic finds the lazy arrays' offsets.
		b := fixture.New("Odd", reader.Version{File: 128, Licensee: 29}, fixture.DemoGUID)
		b.Export(b.Class("Engine", "Gizmo"), 0, "Thing", reader.RFPublic|reader.RFLoadContext,
			fixture.New("X", reader.Version{File: 69}, fixture.DemoGUID).Mesh(b.Props().Bytes(), 0))
		_, err := b.Encode()
		var a *ue.Advice
		if !errors.Is(err, writer.ErrRelocation) || !errors.As(err, &a) || a.Setting != ue.SettingPreserveLayout || strings.Contains(err.Error(), "--") {
			t.Fatalf("err = %v, want ErrRelocation advising the preserve layout", err)
		}
	})
	t.Run("inconsistent SeekPos", func(t *testing.T) {
		_, p := demo(t)
		i, _ := p.Lookup("Stripes")[0].Export()
		nl, _ := p.Native(i)
		e := &p.Exports[i]
		e.Data = append([]byte(nil), e.Data...)
		binary.LittleEndian.PutUint32(e.Data[nl.Lazy[2].SeekPosAt:], 12345)
		shift(p)
		if _, _, err := writer.Encode(p, writer.Options{Layout: writer.Compact}); !errors.Is(err, writer.ErrRelocation) {
			t.Fatalf("err = %v, want ErrRelocation", err)
		}
	})
	t.Run("licensee fork", func(t *testing.T) {
		_, p := demo(t)
		p.Header.Version.Licensee = 227
		if _, _, err := writer.Encode(p, writer.Options{}); !errors.Is(err, reader.ErrUnsupportedVersion) {
			t.Fatalf("err = %v, want ErrUnsupportedVersion", err)
		}
	})
}

func TestWriteFile(t *testing.T) {
	data, p := demo(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "Out.u")
	if _, err := writer.WriteFile(out, p, writer.Options{Layout: writer.Compact}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("written file differs (%v)", err)
	}

	// A model that fails verification is not written and leaves no temp file.
	p.Names[0].Flags = 0
	bad := filepath.Join(dir, "Bad.u")
	_, err = writer.WriteFile(bad, p, writer.Options{})
	var ve *writer.VerifyError
	if !errors.As(err, &ve) || ve.InputToo {
		t.Fatalf("err = %v, want VerifyError blaming the change, not the input", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "sub" {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

func TestParseLayout(t *testing.T) {
	for _, c := range []struct {
		in   string
		want writer.Layout
		ok   bool
	}{{"", writer.Preserve, true}, {"preserve", writer.Preserve, true}, {"Compact", writer.Compact, true}, {"tight", 0, false}} {
		got, err := writer.ParseLayout(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseLayout(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestWriteFileBlamesBrokenInput: a package that already fails verification
// is not rewritten, and the error says the input is at fault.
func TestWriteFileBlamesBrokenInput(t *testing.T) {
	data, p := demo(t)
	i, _ := p.Lookup("Stripes")[0].Export()
	nl, err := p.Native(i)
	if err != nil {
		t.Fatal(err)
	}
	broken := append([]byte(nil), data...)
	at := int(p.Exports[i].SerialOffset) + nl.Lazy[1].SeekPosAt
	binary.LittleEndian.PutUint32(broken[at:], binary.LittleEndian.Uint32(broken[at:])+4)
	q := read(t, "Broken.u", broken)
	_, err = writer.WriteFile(filepath.Join(t.TempDir(), "Out.u"), q, writer.Options{})
	var ve *writer.VerifyError
	if !errors.As(err, &ve) || !ve.InputToo || !strings.Contains(err.Error(), "Mips[1]") {
		t.Fatalf("err = %v, want a VerifyError about Mips[1] in the input", err)
	}
}
