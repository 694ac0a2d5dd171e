package convert

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ue/oodle"
)

// miniLibraryFile names the small libraries the tests build.
const miniLibraryFile = "ShaderArchive-Mini-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"

// openOodle loads the test Oodle library: UNRMOD_OODLE's, or the stand-in
// compiled from internal/oodletest (its codec shrinks runs of zeros).
func openOodle(t testing.TB) *oodle.Library {
	t.Helper()
	path, _ := oodletest.Library(t, nil)
	lib, err := oodle.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// mermaid is the packer's default group compressor through lib.
func mermaid(lib *oodle.Library) ue.Compressor {
	return func(dst, src []byte) ([]byte, error) { return lib.Compress(dst, src, oodle.Mermaid, oodle.Normal) }
}

// oodleMini is miniShaderArchive with code of its own: zeros with the
// shader's index every 40 bytes, which Oodle shrinks, or for every third
// shader noise, which it does not; each shader is stored Oodle-compressed
// when that is shorter, raw otherwise, as the cooker does. raw[s] is shader s's uncompressed code.
func oodleMini(t testing.TB, lib *oodle.Library, maps int) (a *ShaderArchive, raw [][]byte) {
	t.Helper()
	a = miniShaderArchive(t, maps)
	a.Code = nil
	for s := range a.Shaders {
		n := int(a.Shaders[s].UncompressedSize)*7 + 3
		code := make([]byte, n)
		for i := 0; i < n; i += 40 {
			code[i] = byte(s + 1)
		}
		if s%3 == 0 { // noise Oodle cannot shrink: stored raw
			rng := rand.New(rand.NewPCG(uint64(s), 7))
			for i := range code {
				code[i] = byte(rng.Uint32()) | 1
			}
		}
		raw = append(raw, code)
		stored := code
		if c, err := lib.Compress(nil, code, oodle.Kraken, oodle.Normal); err != nil {
			t.Fatal(err)
		} else if len(c) < len(code) {
			stored = c
		}
		a.Shaders[s].Offset, a.Shaders[s].Size, a.Shaders[s].UncompressedSize = uint64(len(a.Code)), uint32(len(stored)), uint32(n)
		a.Code = append(a.Code, stored...)
	}
	return a, raw
}

// checkGroups decodes every group of l as the game does (Oodle when its
// sizes differ, a copy otherwise) and checks each shader's code at the
// offset the header gives; it returns how many groups are compressed.
func checkGroups(t *testing.T, l *ZenShaderLibrary, lib *oodle.Library, raw [][]byte) (compressed int) {
	t.Helper()
	if _, err := l.EncodeHeader(); !errors.Is(err, ErrNotConvertible) || !strings.Contains(err.Error(), "not built yet") {
		t.Errorf("header before the groups: %v", err)
	}
	stored := make([][]byte, len(l.Zen.Groups))
	for g := range l.Zen.Groups {
		data, err := l.Group(g, nil)
		if err != nil {
			t.Fatalf("group %d: %v", g, err)
		}
		stored[g] = data
	}
	hdr, err := l.EncodeHeader()
	if err != nil {
		t.Fatal(err)
	}
	z, err := DecodeZenShaderArchive(l.File, hdr)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for g, e := range z.Groups {
		if uint32(len(stored[g])) != e.CompressedSize {
			t.Errorf("group %d: %d bytes stored, header says %d", g, len(stored[g]), e.CompressedSize)
		}
		data := stored[g]
		if e.CompressedSize != e.UncompressedSize {
			compressed++
			data = make([]byte, e.UncompressedSize)
			if err := lib.Decompress(data, stored[g]); err != nil {
				t.Fatalf("group %d does not decompress: %v", g, err)
			}
		}
		for _, s := range z.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
			seen++
			off := z.Shaders[s].OffsetInGroup
			if z.Shaders[s].Group != uint32(g) || !bytes.Equal(data[off:off+uint32(len(raw[s]))], raw[s]) {
				t.Errorf("shader %d: not its code at %d of group %d", s, off, g)
			}
		}
	}
	if seen != len(raw) {
		t.Errorf("groups hold %d shaders of %d", seen, len(raw))
	}
	return compressed
}

// TestZenShaderLibraryGroups builds the IoStore form of a library whose
// shaders are Oodle-compressed (cut from the corpus's, code of its own)
// through the streaming reader: groups with and without a compressor and
// with a small group size; every stored group decodes to its shaders'
// code at the header's offsets, its size is the header's, and the header
// is the one ShaderArchiveToZen makes but for the compressed sizes.
func TestZenShaderLibraryGroups(t *testing.T) {
	lib := openOodle(t)
	a, raw := oodleMini(t, lib, 8)
	if n := compressedShaders(a); n == 0 || n == len(a.Shaders) {
		t.Fatalf("%d of %d shaders compressed: the fixture should mix both", n, len(a.Shaders))
	}
	file := a.Encode()
	for _, tc := range []struct {
		name     string
		opts     ShaderLibraryOptions
		wantComp bool
	}{
		{"raw groups", ShaderLibraryOptions{Decompress: lib.Decompress}, false},
		{"mermaid groups", ShaderLibraryOptions{Decompress: lib.Decompress, Compress: mermaid(lib)}, true},
		{"small groups", ShaderLibraryOptions{Decompress: lib.Decompress, Compress: mermaid(lib), MaxGroupSize: 2000}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), "Paks/"+miniLibraryFile, "", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if l.Library != "Mini-PCD3D_SM6" || l.Format != "PCD3D_SM6" {
				t.Errorf("names %q %q", l.Library, l.Format)
			}
			want, err := ShaderArchiveToZen(a, "PCD3D_SM6", tc.opts.MaxGroupSize)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(l.Zen.Encode(), want.Encode()) {
				t.Fatal("the streamed header differs from ShaderArchiveToZen's")
			}
			if tc.opts.MaxGroupSize != 0 && len(want.Groups) < 3 {
				t.Errorf("limit %d: %d groups", tc.opts.MaxGroupSize, len(want.Groups))
			}
			comp := checkGroups(t, l, lib, raw)
			if (comp > 0) != tc.wantComp {
				t.Errorf("%d of %d groups stored compressed", comp, len(l.Zen.Groups))
			}
			t.Logf("%d shaders (%d compressed) in %d groups, %d stored compressed", len(a.Shaders), compressedShaders(a), len(l.Zen.Groups), comp)
		})
	}
}

// TestZenShaderLibraryConcurrent builds the groups from several
// goroutines at once, as Group allows, and checks them against a
// sequential build (run under -race, it also checks the sharing).
func TestZenShaderLibraryConcurrent(t *testing.T) {
	lib := openOodle(t)
	a, _ := oodleMini(t, lib, 8)
	file := a.Encode()
	opts := &ShaderLibraryOptions{Decompress: lib.Decompress, Compress: mermaid(lib), MaxGroupSize: 2000}
	seq, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), miniLibraryFile, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	par, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), miniLibraryFile, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]byte, len(seq.Zen.Groups))
	for g := range want {
		if want[g], err = seq.Group(g, nil); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][]byte, len(want))
	errs := make([]error, len(want))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := w; g < len(got); g += 4 {
				got[g], errs[g] = par.Group(g, nil)
			}
		}()
	}
	wg.Wait()
	for g := range got {
		if errs[g] != nil || !bytes.Equal(got[g], want[g]) {
			t.Errorf("group %d: %v", g, errs[g])
		}
	}
	h1, err1 := seq.EncodeHeader()
	h2, err2 := par.EncodeHeader()
	if err1 != nil || err2 != nil || !bytes.Equal(h1, h2) {
		t.Errorf("headers differ: %v %v", err1, err2)
	}
}

func compressedShaders(a *ShaderArchive) (n int) {
	for _, s := range a.Shaders {
		if s.Size != s.UncompressedSize {
			n++
		}
	}
	return n
}

// TestShaderGroupDataOodle builds the groups of an Oodle library held in
// memory: with the decompressor each is its shaders' code in group order;
// without it the first compressed shader is refused with
// ErrOodleRequired (an ErrNotConvertible) naming it and Oodle.
func TestShaderGroupDataOodle(t *testing.T) {
	lib := openOodle(t)
	a, raw := oodleMini(t, lib, 6)
	z, err := ShaderArchiveToZen(a, "PCD3D_SM6", 0)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for g, e := range z.Groups {
		var want []byte
		hasComp := false
		for _, s := range z.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
			want = append(want, raw[s]...)
			hasComp = hasComp || a.Shaders[s].Size != a.Shaders[s].UncompressedSize
		}
		got, err := ShaderGroupDataOodle(a, z, g, lib.Decompress)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("group %d: %v", g, err)
		}
		_, err = ShaderGroupData(a, z, g)
		if hasComp {
			refused++
			if !errors.Is(err, ErrOodleRequired) || !errors.Is(err, ErrNotConvertible) || !strings.Contains(err.Error(), "Oodle library") || !strings.Contains(err.Error(), "shader ") {
				t.Errorf("group %d without a decompressor: %v", g, err)
			}
		} else if err != nil {
			t.Errorf("group %d of raw shaders: %v", g, err)
		}
	}
	if refused == 0 {
		t.Error("no group holds a compressed shader")
	}
}

// TestZenShaderLibraryRefuses damages the library or its codec: every
// case is refused with an error naming the file, the shader or group and
// an offset where there is one, of a kind callers branch on; none panics.
func TestZenShaderLibraryRefuses(t *testing.T) {
	lib := openOodle(t)
	a, _ := oodleMini(t, lib, 4)
	good := a.Encode()
	last := len(a.Shaders) - 1
	firstComp := -1
	for s := range a.Shaders {
		if a.Shaders[s].Size != a.Shaders[s].UncompressedSize {
			firstComp = s
			break
		}
	}
	damaged := func(f func(b *ShaderArchive)) []byte {
		b := *a
		b.Shaders = append([]ShaderCodeEntry(nil), a.Shaders...)
		f(&b)
		return b.Encode()
	}
	boom := errors.New("decoder says no")
	for _, tc := range []struct {
		name string
		file []byte
		opts ShaderLibraryOptions
		open bool // refused when opened, not when building
		kind error
		want []string
	}{
		{"truncated header", good[:30], ShaderLibraryOptions{}, true, ue.ErrCorrupt, []string{"shader map hashes at 0x8", "22 bytes remain"}},
		{"truncated count", good[:2], ShaderLibraryOptions{}, true, ue.ErrCorrupt, []string{"count at 0x4"}},
		{"truncated code", good[:len(good)-5], ShaderLibraryOptions{Decompress: lib.Decompress}, false, ue.ErrCorrupt,
			[]string{"shader " + itoa(last), "outside", "at 0x"}},
		{"range outside the file", damaged(func(b *ShaderArchive) { b.Shaders[0].Offset = 1 << 40 }), ShaderLibraryOptions{Decompress: lib.Decompress}, false, ue.ErrCorrupt,
			[]string{"shader 0", "outside", "at 0x"}},
		{"no decompressor", good, ShaderLibraryOptions{}, false, ErrOodleRequired, []string{"shader ", "Oodle library", "at 0x"}},
		{"decompressor fails", good, ShaderLibraryOptions{Decompress: func(dst, src []byte) error { return boom }}, false, boom,
			[]string{"shader ", "do not decompress", "decoder says no", "at 0x"}},
		{"wrong uncompressed size", damaged(func(b *ShaderArchive) { b.Shaders[firstComp].UncompressedSize += 3 }), ShaderLibraryOptions{Decompress: lib.Decompress}, false, oodle.ErrDecode,
			[]string{"shader " + itoa(firstComp), "do not decompress", "at 0x"}},
		{"huge raw shader", damaged(func(b *ShaderArchive) { b.Shaders[0].Size, b.Shaders[0].UncompressedSize = 1<<29, 1<<29 }), ShaderLibraryOptions{Decompress: lib.Decompress}, false, ue.ErrCorrupt,
			[]string{"shader 0", "outside", "at 0x"}},
		{"huge compressed claim", damaged(func(b *ShaderArchive) { b.Shaders[firstComp].UncompressedSize = 1 << 29 }), ShaderLibraryOptions{Decompress: lib.Decompress}, false, ue.ErrCorrupt,
			[]string{"shader " + itoa(firstComp), "no shader code compresses so"}},
		{"compressor fails", good, ShaderLibraryOptions{Decompress: lib.Decompress, Compress: func(dst, src []byte) ([]byte, error) { return nil, boom }}, false, ErrNotConvertible,
			[]string{"shader group 0", "decoder says no"}},
		{"compressor returns nothing", good, ShaderLibraryOptions{Decompress: lib.Decompress, Compress: func(dst, src []byte) ([]byte, error) { return dst[:0], nil }}, false, ErrNotConvertible,
			[]string{"shader group 0", "returned nothing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			l, err := NewZenShaderLibrary(bytes.NewReader(tc.file), int64(len(tc.file)), miniLibraryFile, "", &tc.opts)
			if !tc.open {
				if err != nil {
					t.Fatalf("opening: %v", err)
				}
				for g := range l.Zen.Groups {
					if _, err = l.Group(g, nil); err != nil {
						break
					}
				}
			}
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("not refused")
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
				t.Errorf("%d MB allocated before refusing", n>>20)
			}
			var fe *ue.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), miniLibraryFile+": ") {
				t.Errorf("error %v: not a FormatError of kind %v naming the file", err, tc.kind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// A header made from another library cannot build this one's groups.
	other, _ := ShaderArchiveToZen(miniShaderArchive(t, 1), "PCD3D_SM6", 0)
	if _, err := ShaderGroupDataOodle(a, other, 0, lib.Decompress); !errors.Is(err, ue.ErrCorrupt) {
		t.Errorf("foreign header: %v", err)
	}
	if _, err := ShaderGroupData(a, other, len(other.Groups)); err == nil {
		t.Error("group out of range accepted")
	}
}

// TestZenShaderLibraryCorpus opens the corpus's UE 5.4 library (its header
// only: the code is not in the corpus) through a file: the format comes
// from its name, the header is ShaderArchiveToZen's and matches the
// engine's but for the groups' compressed sizes, and a group is refused
// cleanly since its code is absent (without a decompressor first for the
// Oodle shaders, then for their range).
func TestZenShaderLibraryCorpus(t *testing.T) {
	lib := openOodle(t)
	for _, pr := range shaderPairs(t) {
		t.Run(filepath.Base(pr[0]), func(t *testing.T) {
			f, err := os.Open(pr[0])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			l, err := NewZenShaderLibrary(f, st.Size(), pr[0], "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if l.Format != shaderFormat(pr[0]) {
				t.Errorf("format %q", l.Format)
			}
			a, err := DecodeShaderArchive(pr[0], read(t, pr[0]))
			if err != nil {
				t.Fatal(err)
			}
			want, err := ShaderArchiveToZen(a, shaderFormat(pr[0]), 0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(l.Zen.Encode(), want.Encode()) {
				t.Error("the streamed header differs from ShaderArchiveToZen's")
			}
			engine, err := DecodeZenShaderArchive(pr[1], read(t, pr[1]))
			if err != nil {
				t.Fatal(err)
			}
			got := *l.Zen
			got.Groups = append([]ShaderGroupEntry(nil), l.Zen.Groups...)
			for i := range got.Groups {
				if i < len(engine.Groups) {
					got.Groups[i].CompressedSize = engine.Groups[i].CompressedSize
				}
			}
			if !bytes.Equal(got.Encode(), engine.Encode()) {
				t.Errorf("header: %s", shaderDiff(&got, engine))
			}
			if _, err := l.Group(0, nil); !errors.Is(err, ErrOodleRequired) {
				t.Errorf("group 0 without a decompressor: %v", err)
			}
			l2, err := NewZenShaderLibrary(f, st.Size(), pr[0], "PCD3D_SM6", &ShaderLibraryOptions{Decompress: lib.Decompress})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l2.Group(0, nil); !errors.Is(err, ue.ErrCorrupt) || !strings.Contains(err.Error(), "outside the 0 bytes of code") {
				t.Errorf("group 0 of a library without code: %v", err)
			}
		})
	}
}
