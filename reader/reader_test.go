package reader_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// TestCorpusReadsAndVerifies reads every legacy package of the corpus and
// requires a clean verification: these are engine-written files.
func TestCorpusReadsAndVerifies(t *testing.T) {
	for _, f := range corpus.Legacy(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := reader.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if probs := p.Verify(); len(probs) > 0 {
				t.Fatalf("%d problems, first: %v", len(probs), probs[0])
			}
			for i := range p.Exports {
				if path := p.ExportPath(i); !strings.HasPrefix(path, p.Name+".") {
					t.Fatalf("export %d path %q not rooted at %s", i, path, p.Name)
				}
			}
		})
	}
}

func TestCTFFace(t *testing.T) {
	p, err := reader.ReadFile(corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr"))
	if err != nil {
		t.Fatal(err)
	}
	h := p.Header
	if h.Version != (reader.Version{File: 68}) || h.Flags != reader.PkgAllowDownload {
		t.Errorf("version %v flags %v", h.Version, h.Flags)
	}
	if len(p.Names) != 1347 || len(p.Imports) != 143 || len(p.Exports) != 1073 {
		t.Errorf("counts %d/%d/%d", len(p.Names), len(p.Imports), len(p.Exports))
	}
	if len(h.Generations) != 1 || h.Generations[0] != (reader.Generation{ExportCount: 1073, NameCount: 1347}) {
		t.Errorf("generations %v", h.Generations)
	}
	if got := p.ExportPath(0); got != "CTF-Face.LevelInfo0" || p.ClassName(0) != "LevelInfo" {
		t.Errorf("export 0 = %s (%s)", got, p.ClassName(0))
	}
	refs := p.Lookup("levelinfo0")
	if len(refs) != 1 || refs[0] != reader.ExportRef(0) {
		t.Errorf("Lookup(levelinfo0) = %v", refs)
	}
	props, err := p.Properties(0)
	if err != nil {
		t.Fatal(err)
	}
	if q := props.Find(p, "Title", 0); q == nil || q.Type != reader.PropStr {
		t.Errorf("LevelInfo0 has no Str property Title: %+v", props.Props)
	} else if v := q.Value(p.Exports[0].Data); !strings.Contains(string(v), "Facing Worlds") {
		t.Errorf("Title = %q", v)
	}
}

// TestHeaderVariants checks the version-dependent header tails on the
// corpus: heritage tables below 68, several generations in conformal saves.
func TestHeaderVariants(t *testing.T) {
	cases := []struct {
		file     string
		version  reader.Version
		heritage int
		gens     int
	}{
		{"legacy/ut99_stock/BluffFX.utx", reader.Version{File: 61}, 1, 0},
		{"legacy/ut99_stock/ArenaTex.utx", reader.Version{File: 64}, 1, 0},
		{"legacy/ut99_stock/Activates.uax", reader.Version{File: 69}, 0, 2},
		{"legacy/ut99_stock/Engine.u", reader.Version{File: 69}, 0, 19},
		{"legacy/ue2/TestUC2.u", reader.Version{File: 128, Licensee: 29}, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p, err := reader.ReadFile(corpus.Path(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if p.Header.Version != c.version || len(p.Header.Heritage) != c.heritage || len(p.Header.Generations) != c.gens {
				t.Errorf("version %v heritage %d generations %d", p.Header.Version, len(p.Header.Heritage), len(p.Header.Generations))
			}
			if p.GUID() == (reader.GUID{}) {
				t.Error("zero GUID")
			}
		})
	}
}

func TestLookupAmbiguity(t *testing.T) {
	b := fixture.New("Amb", reader.Version{File: 69}, fixture.DemoGUID)
	g1 := b.Group("A", 0)
	g2 := b.Group("B", 0)
	cls := b.Class("Engine", "Palette")
	b.Export(cls, g1, "Pal", reader.RFPublic|reader.RFLoadContext, b.Palette(2))
	b.Export(cls, g2, "Pal", reader.RFPublic|reader.RFLoadContext, b.Palette(2))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("Amb.u", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Lookup("Pal"); len(got) != 2 {
		t.Errorf("Lookup(Pal) = %v, want 2 matches", got)
	}
	if got := p.Lookup("Amb.B.Pal"); len(got) != 1 || p.Path(got[0]) != "Amb.B.Pal" {
		t.Errorf("Lookup(Amb.B.Pal) = %v", got)
	}
	if got := p.Lookup("al"); len(got) != 0 {
		t.Errorf("Lookup matched a partial name: %v", got)
	}
}

func TestFlags(t *testing.T) {
	if s := (reader.PkgAllowDownload | reader.PkgServerSideOnly | 0x100).String(); s != "AllowDownload|ServerSideOnly|0x100" {
		t.Errorf("package flags = %q", s)
	}
	if s := reader.ObjectFlags(0x00070004).String(); s != "Public|LoadForClient|LoadForServer|LoadForEdit" {
		t.Errorf("object flags = %q", s)
	}
	for _, c := range []struct {
		in   string
		want reader.PackageFlags
		ok   bool
	}{
		{"AllowDownload", 1, true}, {"PKG_ServerSideOnly", 4, true}, {"need", 0x8000, true},
		{"0x20", 0x20, true}, {"16", 16, true}, {"Fast", 0, false},
	} {
		got, err := reader.ParsePackageFlag(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParsePackageFlag(%q) = %v, %v", c.in, got, err)
		}
	}
	if f, err := reader.ParseObjectFlag("RF_Standalone"); err != nil || f != reader.RFStandalone {
		t.Errorf("ParseObjectFlag(RF_Standalone) = %v, %v", f, err)
	}
}

func TestGUID(t *testing.T) {
	g := reader.GUID{0x01234567, 0x89ABCDEF, 0, 0xFFFFFFFF}
	s := g.String()
	if s != "0123456789ABCDEF00000000FFFFFFFF" {
		t.Errorf("String = %s", s)
	}
	for _, in := range []string{s, strings.ToLower(s), "{01234567-89ABCDEF-00000000-FFFFFFFF}"} {
		if back, err := reader.ParseGUID(in); err != nil || back != g {
			t.Errorf("ParseGUID(%q) = %v, %v", in, back, err)
		}
	}
	if _, err := reader.ParseGUID("1234"); err == nil {
		t.Error("short GUID accepted")
	}
}

func TestReadFileMissing(t *testing.T) {
	if _, err := reader.ReadFile(filepath.Join(t.TempDir(), "nope.u")); !os.IsNotExist(err) {
		t.Errorf("err = %v", err)
	}
}
