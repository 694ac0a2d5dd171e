package zen_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// corpusSample returns the corpus package whose name contains sub.
func corpusSample(t testing.TB, sub string) corpusPackage {
	t.Helper()
	for _, cp := range corpusPackages(t) {
		if strings.Contains(cp.name, sub) {
			return cp
		}
	}
	t.Fatalf("no corpus package %q", sub)
	return corpusPackage{}
}

// checkDecodeErr checks that a malformed package fails with a *ue.FormatError
// wrapping ErrCorrupt, or decodes into a package that encodes back to it.
func checkDecodeErr(t *testing.T, name string, data []byte) error {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: panic: %v", name, r)
		}
	}()
	p, err := zen.DecodePackage(name, data, nil)
	if err != nil {
		var fe *ue.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, zen.ErrCorrupt) || fe.File != name {
			t.Fatalf("%s: error %v (%T) is not a *FormatError naming the file and wrapping ErrCorrupt", name, err, err)
		}
		return err
	}
	out, err := p.Encode()
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("%s: decodes but does not encode back: %v", name, err)
	}
	p.Problems(nil)
	return nil
}

// TestPackageTruncated decodes every prefix of a package of each layout:
// each fails cleanly or decodes and round-trips.
func TestPackageTruncated(t *testing.T) {
	for _, sub := range []string{"Table_SignsJanuary", "BP_SpicyChoppingDamage", "UE5.4_BP_Table_Lamp", "UE5.6_SM_Cube", "Zlib-Windows.utoc:DataTables/DT_AllProperties"} {
		cp := corpusSample(t, sub)
		failed := 0
		for n := range len(cp.data) {
			if checkDecodeErr(t, cp.name, cp.data[:n]) != nil {
				failed++
			}
		}
		if failed == 0 {
			t.Errorf("%s: no truncation failed", cp.name)
		}
	}
}

// TestPackageMalformed breaks one field at a time and checks the error
// names the structure.
func TestPackageMalformed(t *testing.T) {
	le := binary.LittleEndian
	set32 := func(b []byte, off int, v uint32) []byte {
		b = bytes.Clone(b)
		le.PutUint32(b[off:], v)
		return b
	}
	ue4 := corpusSample(t, "BP_SpicyChoppingDamage").data
	ue5 := corpusSample(t, "Zlib-Windows.utoc:DataTables/DT_AllProperties").data
	tests := []struct {
		name, want string
		data       []byte
	}{
		{"UE4 name map moved", "not a zen package", set32(ue4, 24, 72)},
		{"UE4 negative graph size", "not a zen package", set32(ue4, 56, 0xFFFFFFF0)},
		{"UE4 export serial size huge", "export serial size", set32(ue4, 928+8, 0x7FFFFFFF)},
		{"UE4 graph package count huge", "graph data package count", set32(ue4, 1112, 0x7FFFFFFF)},
		{"UE4 bundle header skips entries", "export bundle 0", set32(ue4, 1072, 1)},
		{"UE4 bundle serializes a missing export", "export bundle entries", set32(ue4, 1080+8*3, 9)},
		{"UE5 versioning flag 2", "not a zen package", set32(ue5, 0, 2)},
		{"UE5 header size past the end", "not a zen package", set32(ue5, 4, 1<<20)},
		{"UE5 export offset past the end", "export 0", set32(ue5, 0x3a8, 0x10000)},
		{"UE5 name count huge", "name map", set32(ue5, 0x50, 0x0FFFFFFF)},
		{"UE5 custom version count huge", "not a zen package", set32(ue5, 0x44, 0x7FFFFFFF)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDecodeErr(t, "bad.uasset", tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestPackageProblems breaks what decoding tolerates and checks that
// Problems reports it.
func TestPackageProblems(t *testing.T) {
	le := binary.LittleEndian
	ue4 := corpusSample(t, "BP_SpicyChoppingDamage").data
	ue5 := corpusSample(t, "Zlib-Windows.utoc:DataTables/DT_AllProperties").data
	tests := []struct {
		name, want string
		base       []byte
		edit       func(b []byte)
	}{
		{"name hash", `name 3 "/Game/UI/Images/ItemStats/T_UI_Dmg_Spice": stored hash`, ue4, func(b []byte) { b[624+8+3*8] ^= 1 }},
		{"hash algorithm", "hash algorithm id", ue4, func(b []byte) { b[624] ^= 1 }}, // detection needs the id: decoded with the layout given
		{"create entry of a missing export", "export 9 is not one of the 2 exports", ue4, func(b []byte) { le.PutUint32(b[1080+8*2:], 9) }},
		{"export created twice", "created 2 and serialized 1 times", ue4, func(b []byte) { le.PutUint32(b[1080+8*2:], 0) }},
		{"serial offset", "serial offset 1563, want 1562", ue4, func(b []byte) { le.PutUint64(b[928:], 1563) }},
		{"public export hash", "public export hash", ue4, func(b []byte) { b[928+56] ^= 1 }},
		{"outer out of range", "outer 0x0000000000000007: export 7 is not one of the 2 exports", ue4, func(b []byte) { le.PutUint64(b[928+24:], 7) }},
		{"UE5 filter flags", "filter flags 7", ue5, func(b []byte) { b[0x3a8+68] = 7 }},
		{"UE5 class import out of range", "imported package 255", ue5, func(b []byte) { le.PutUint64(b[0x3a8+32:], 0x800000ff00000000) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(tt.base)
			tt.edit(b)
			l, _ := zen.DetectLayout(tt.base)
			p, err := zen.DecodePackage("bad.uasset", b, &zen.DecodeOptions{Layout: l})
			if err != nil {
				t.Fatal(err)
			}
			if out, err := p.Encode(); err != nil || !bytes.Equal(out, b) {
				t.Fatalf("does not encode back: %v", err)
			}
			var got []string
			for _, q := range p.Problems(nil) {
				got = append(got, q.String())
			}
			if !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("problems %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzPackage feeds arbitrary bytes to DecodePackage, seeded with the zen
// packages of the corpus: it must never panic, whatever it accepts must
// encode back to the same bytes, and verifying it must not panic.
func FuzzPackage(f *testing.F) {
	// The loose packages, and the UE5 ones in every UE5 layout. (Reading
	// the containers' packages under the fuzzer's instrumentation would
	// take most of a short run.)
	pkgs, err := loadCorpusPackages(corpus.Dir(f), nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, cp := range pkgs {
		f.Add(cp.data)
		p, err := zen.DecodePackage(cp.name, cp.data, nil)
		if err != nil || p.Layout == zen.LayoutUE4 {
			continue
		}
		for _, l := range []zen.Layout{zen.LayoutUE50, zen.LayoutUE52, zen.LayoutUE53, zen.LayoutUE54, zen.LayoutUE56} {
			if data, err := inLayout(f, p, l).Encode(); err == nil {
				f.Add(data)
			}
		}
	}
	// Deep outer chains, within the engine's path limit and looping.
	cycle := deepSpec(zen.LayoutUE4, 3, 4)
	cycle.Exports[0].Outer = 2
	for _, s := range []zenbuild.Spec{deepSpec(zen.LayoutUE4, 200, 4), deepSpec(zen.LayoutUE53, 60, 16), cycle} {
		if data, err := zenbuild.Encode(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		p, err := zen.DecodePackage("fuzz", data, nil)
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is %T", err, err)
			}
			return
		}
		out, err := p.Encode()
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("decodes but does not encode back: %v", err)
		}
		p.Problems(&zen.VerifyOptions{ChunkPackageID: 1})
	})
}
