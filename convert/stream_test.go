package convert

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// TestToZenStreamed converts every cooked asset of the UE 5.8 fixture
// project's legacy paks and of the UE5 and 4.27 pairs twice: decoded
// whole (Decode, ToZen, EncodeChecked) and streamed (DecodeStream, ToZen,
// EncodeStreamChecked, the exports' data read from the .uexp). The
// streamed package must be the in-memory one byte for byte, and must not
// hold the exports' data.
func TestToZenStreamed(t *testing.T) {
	type asset struct {
		name string
		h, x []byte
	}
	var assets []asset
	for _, as := range pakAssets(t, "pak/cue4parse_ue5_8/LegacyPak/*/*/*.pak") {
		assets = append(assets, asset{as.pak + ":" + as.path, as.h, as.x})
	}
	for _, dir := range []string{"other/ue5_cooked_pairs", "other/ue4_27_cooked_pairs"} {
		for _, pr := range pairsFor(t, dir) {
			if pr.uexp != nil {
				assets = append(assets, asset{pr.name, pr.uasset, pr.uexp})
			}
		}
	}
	converted := 0
	for _, as := range assets {
		a, err := uasset.Decode(as.name, as.h, as.x, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ToZen(a, nil)
		if errors.Is(err, ErrUnsupportedEngine) || errors.Is(err, ErrNotConvertible) {
			continue // TestToZenUE5Pairs and the others judge the refusals
		}
		if err != nil {
			t.Fatalf("%s: %v", as.name, err)
		}
		want, err := EncodeChecked(as.name, p)
		if err != nil {
			t.Fatalf("%s: %v", as.name, err)
		}
		sa, err := uasset.DecodeStream(as.name, as.h, bytes.NewReader(as.x), int64(len(as.x)), nil)
		if err != nil {
			t.Fatalf("%s: %v", as.name, err)
		}
		sp, err := ToZen(sa, nil)
		if err != nil {
			t.Fatalf("%s: streamed: %v", as.name, err)
		}
		if !sp.Streamed() {
			t.Fatalf("%s: the package converted from a streamed asset is not streamed", as.name)
		}
		for i := range sp.Exports {
			if len(p.Exports[i].Data) > 0 && sp.Exports[i].Data != nil {
				t.Fatalf("%s: export %d holds its data", as.name, i)
			}
		}
		s, err := EncodeStreamChecked(as.name, sp)
		if err != nil {
			t.Fatalf("%s: streamed: %v", as.name, err)
		}
		got, err := io.ReadAll(s.NewReader())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: the streamed package differs from the one converted in memory (%v)", as.name, err)
		}
		converted++
	}
	if converted == 0 {
		t.Fatal("no asset converted")
	}
	t.Logf("%d of %d assets converted both ways alike", converted, len(assets))
}

// TestToLegacyStreamed converts every package of the UE 5.8 fixture
// container twice: decoded whole (ToLegacy, EncodeLegacyChecked) and
// streamed (DecodePackageStream, ToLegacy, EncodeLegacyStreamChecked, the
// .uexp read from the package). The streamed asset must be the in-memory
// one byte for byte.
func TestToLegacyStreamed(t *testing.T) {
	ct, src := fixtureSet(t)
	converted := 0
	for _, i := range packageChunks(t, ct) {
		name := ct.PackageName(i)
		data, err := ct.ReadChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		p, err := zen.DecodePackage(name, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := &LegacyOptions{Engine: zen.Engine58, Imports: src}
		a, err := ToLegacy(p, opts)
		if err != nil {
			continue // TestToLegacyRoundTrip judges the refusals
		}
		wh, wx, err := EncodeLegacyChecked(a, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sp, err := zen.DecodePackageStream(name, bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sa, err := ToLegacy(sp, opts)
		if err != nil {
			t.Fatalf("%s: streamed: %v", name, err)
		}
		if !sa.Streamed() {
			t.Fatalf("%s: the asset converted from a streamed package is not streamed", name)
		}
		gh, gx, err := EncodeLegacyStreamChecked(sa, sp)
		if err != nil {
			t.Fatalf("%s: streamed: %v", name, err)
		}
		got, err := io.ReadAll(gx.NewReader())
		if err != nil || !bytes.Equal(gh, wh) || !bytes.Equal(got, wx) {
			t.Fatalf("%s: the streamed asset differs from the one converted in memory (%v)", name, err)
		}
		converted++
	}
	if converted == 0 {
		t.Fatal("no package converted")
	}
	t.Logf("%d packages converted both ways alike", converted)
}

// tcGeneratedPackage returns a UE 5.6 zen package shaped as iostore/pack's
// huge-package tests make it, at size bytes: export Settings with tagged
// properties, export BigData with tagged properties followed by size
// bytes of native data (as a texture's export holds its pixels); and the
// import source that names its imports.
func tcGeneratedPackage(t testing.TB, size int) ([]byte, ImportSource) {
	t.Helper()
	native := make([]byte, size)
	for i := range native {
		native[i] = byte('a' + i*7%26)
	}
	l := zen.Engine{Major: 5, Minor: 6}.Layout()
	b, err := zenbuild.Encode(zenbuild.Spec{Name: "/Game/Huge/BigTable", Layout: l, Versioned: true,
		Flags:   zen.PackageFlags(uasset.PkgCooked),
		Imports: []string{"/Script/CoreUObject", "/Script/CoreUObject.Object"},
		Exports: []zenbuild.Export{
			{Name: "Settings", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Health", Type: "IntProperty", Value: int32(100)}}},
			{Name: "BigData", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Width", Type: "IntProperty", Value: int32(4096)}}, Native: native},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return b, NewContainerSource(zenbuild.ScriptObjects("/Script/CoreUObject.Object"))
}

// TestConvertStreamedGenerated converts a generated package whose large
// export (3 MiB, more than scriptRanges decodes first) starts with tagged
// properties to a cooked asset and back, in memory and streamed: the
// streamed asset and package must be the in-memory ones byte for byte,
// and the round trip the original package.
func TestConvertStreamedGenerated(t *testing.T) {
	data, src := tcGeneratedPackage(t, 3<<20)
	opts := &LegacyOptions{Engine: zen.Engine{Major: 5, Minor: 6}, Imports: src}
	p, err := zen.DecodePackage("BigTable", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ToLegacy(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	wh, wx, err := EncodeLegacyChecked(a, p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Exports[1].ScriptSerializationEndOffset == 0 {
		t.Fatal("the large export's properties were not found")
	}
	sp, err := zen.DecodePackageStream("BigTable", bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := ToLegacy(sp, opts)
	if err != nil {
		t.Fatal(err)
	}
	gh, gx, err := EncodeLegacyStreamChecked(sa, sp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(gx.NewReader())
	if err != nil || !bytes.Equal(gh, wh) || !bytes.Equal(got, wx) {
		t.Fatalf("the streamed asset differs from the one converted in memory (%v)", err)
	}
	back, err := uasset.DecodeStream("BigTable.uasset", gh, bytes.NewReader(got), int64(len(got)), &uasset.Options{Release: sa.Release})
	if err != nil {
		t.Fatal(err)
	}
	z, err := ToZen(back, &Options{Engine: opts.Engine})
	if err != nil {
		t.Fatal(err)
	}
	s, err := EncodeStreamChecked("BigTable", z)
	if err != nil {
		t.Fatal(err)
	}
	round, err := io.ReadAll(s.NewReader())
	if err != nil || !bytes.Equal(round, data) {
		t.Fatalf("zen → legacy → zen streamed differs from the package (%v)", err)
	}
}
