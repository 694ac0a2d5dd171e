package convert

import (
	"bytes"
	"errors"
	"io"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
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
	paks, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "pak/cue4parse_ue5_8/LegacyPak/*/*/*.pak"))
	for _, pk := range paks {
		r, err := pak.Open(pk, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for _, f := range r.Files {
			ext := path.Ext(f.Path)
			if ext != ".uasset" && ext != ".umap" {
				continue
			}
			if m := r.Footer.MethodName(f.Method); f.Method != 0 && !pak.CanDecode(m) {
				continue
			}
			h, err := f.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			x, err := r.ReadFile(strings.TrimSuffix(f.Path, ext) + ".uexp")
			if err != nil {
				t.Fatal(err)
			}
			assets = append(assets, asset{pk + ":" + f.Path, h, x})
		}
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
