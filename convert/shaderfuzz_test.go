package convert

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/ue"
)

// runCodec is a codec for the fuzz targets that needs no Oodle library:
// 0xA5, then (byte, count) pairs. It fails unless the pairs fill dst
// exactly, as a Decompressor must.
var runCodec = struct {
	dec ue.Decompressor
	enc ue.Compressor
}{
	dec: func(dst, src []byte) error {
		if len(src) == 0 || src[0] != 0xA5 || len(src)%2 != 1 {
			return errors.New("not a run block")
		}
		n := 0
		for i := 1; i < len(src); i += 2 {
			c := int(src[i+1])
			if c == 0 || n+c > len(dst) {
				return errors.New("runs overflow the block")
			}
			for k := 0; k < c; k++ {
				dst[n+k] = src[i]
			}
			n += c
		}
		if n != len(dst) {
			return errors.New("runs end short of the block")
		}
		return nil
	},
	enc: func(dst, src []byte) ([]byte, error) {
		out := append(dst[:0], 0xA5)
		for i := 0; i < len(src); {
			k := i
			for k < len(src) && src[k] == src[i] && k-i < 255 {
				k++
			}
			out = append(out, src[i], byte(k-i))
			i = k
		}
		return out, nil
	},
}

// runMini is miniShaderArchive with run-codec code: every other shader
// stored compressed.
func runMini(t testing.TB, maps int) []byte {
	t.Helper()
	a := miniShaderArchive(t, maps)
	code := a.Code
	a.Code = nil
	for s, c := range a.Shaders {
		raw := code[c.Offset : c.Offset+uint64(c.Size)]
		stored := raw
		if s%2 == 0 {
			stored, _ = runCodec.enc(nil, raw)
		}
		a.Shaders[s].Offset, a.Shaders[s].Size = uint64(len(a.Code)), uint32(len(stored))
		a.Code = append(a.Code, stored...)
	}
	return a.Encode()
}

// FuzzZenShaderLibrary reads whatever .ushaderbytecode it is given through
// the streaming reader and builds every group with a decompressor and a
// compressor: each step is refused with a *ue.FormatError or succeeds,
// and then each group's stored size is the header's, the header decodes
// and encodes back to its bytes, and a raw group is its shaders' code.
// Seeds: libraries cut from the corpus's with code of their own, and the
// start of the corpus library.
func FuzzZenShaderLibrary(f *testing.F) {
	if os.Getenv(corpus.EnvVar) != "" {
		f.Add(runMini(f, 3))
		f.Add(runMini(f, 8))
		pr := shaderPairs(f)[0]
		data := read(f, pr[0])
		f.Add(data[:min(len(data), 4096)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		isFormat := func(err error) {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *ue.FormatError: %v", err)
			}
		}
		l, err := NewZenShaderLibrary(bytes.NewReader(data), int64(len(data)), miniLibraryFile, "", &ShaderLibraryOptions{Decompress: runCodec.dec, Compress: runCodec.enc, MaxGroupSize: 512})
		if err != nil {
			isFormat(err)
			return
		}
		all := true
		for g := range l.Zen.Groups {
			out, err := l.Group(g, nil)
			if err != nil {
				isFormat(err)
				all = false
				continue
			}
			e := l.Zen.Groups[g]
			if uint32(len(out)) != e.CompressedSize {
				t.Fatalf("group %d: %d bytes, header says %d", g, len(out), e.CompressedSize)
			}
			if e.CompressedSize == e.UncompressedSize {
				var want []byte
				for _, s := range l.Zen.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
					c := l.Archive.Shaders[s]
					if c.Size != c.UncompressedSize {
						want = nil
						break
					}
					want = append(want, data[l.cr.start+int64(c.Offset):][:c.Size]...)
				}
				if want != nil && !bytes.Equal(out, want) {
					t.Fatalf("raw group %d is not its shaders' code", g)
				}
			}
		}
		hdr, err := l.EncodeHeader()
		if !all {
			if err == nil {
				t.Fatal("header given with a group not built")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		z, err := DecodeZenShaderArchive("header", hdr)
		if err != nil || !bytes.Equal(z.Encode(), hdr) {
			t.Fatalf("header does not decode and encode back: %v", err)
		}
	})
}

// FuzzReadShaderAssetInfo reads whatever it is given as an asset info:
// refused with a *ue.FormatError, or every package of every entry has the
// entry's shader map among its own, sorted bytewise without duplicates.
// Seeds: asset infos naming the corpus library's shader maps.
func FuzzReadShaderAssetInfo(f *testing.F) {
	f.Add([]byte(assetInfoText(ShaderMapAssets{hashOf(1), []string{"/Game/A", "/game/a"}})))
	f.Add([]byte(`{"ShaderCodeToAssets": [{"ShaderMapHash": "0123456789abcdef", "Assets": []}]}`))
	if os.Getenv(corpus.EnvVar) != "" {
		pr := shaderPairs(f)[0]
		a, err := DecodeShaderArchive(pr[0], read(f, pr[0]))
		if err != nil {
			f.Fatal(err)
		}
		var entries []ShaderMapAssets
		for i, h := range a.ShaderMapHashes[:40] {
			entries = append(entries, ShaderMapAssets{h, []string{"/Game/M_" + itoa(i%7), "/Game/Shared"}})
		}
		f.Add([]byte(assetInfoText(entries...)))
		f.Add([]byte(strings.ToLower(assetInfoText(entries[:5]...))))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		info, err := ReadShaderAssetInfo("fuzz.json", bytes.NewReader(data))
		if err != nil {
			var fe *ue.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *ue.FormatError: %v", err)
			}
			return
		}
		for _, e := range info.ShaderMaps {
			for _, a := range e.Assets {
				maps := info.ShaderMapsOf(a)
				if !slices.Contains(maps, e.ShaderMap) || !slices.IsSortedFunc(maps, compareShaderHash) || len(slices.Compact(slices.Clone(maps))) != len(maps) {
					t.Fatalf("package %q: shader maps %v, entry %s", a, maps, e.ShaderMap)
				}
			}
		}
	})
}

// BenchmarkShaderGroups builds every group of a library of raw shaders
// through the streaming reader (bytes per second of uncompressed group
// data) and, as the baseline, copies the same code in one piece.
func BenchmarkShaderGroups(b *testing.B) {
	a := miniShaderArchive(b, 40)
	a.Code = nil
	for s := range a.Shaders {
		n := a.Shaders[s].UncompressedSize * 300
		a.Shaders[s].Offset, a.Shaders[s].Size, a.Shaders[s].UncompressedSize = uint64(len(a.Code)), n, n
		a.Code = append(a.Code, bytes.Repeat([]byte{byte(s)}, int(n))...)
	}
	file := a.Encode()
	l, err := NewZenShaderLibrary(bytes.NewReader(file), int64(len(file)), miniLibraryFile, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d shaders, %d groups, %d bytes of code", len(a.Shaders), len(l.Zen.Groups), len(a.Code))
	b.Run("groups", func(b *testing.B) {
		b.SetBytes(int64(len(a.Code)))
		var buf []byte
		for b.Loop() {
			for g := range l.Zen.Groups {
				if buf, err = l.Group(g, buf); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("copy-baseline", func(b *testing.B) {
		b.SetBytes(int64(len(a.Code)))
		buf := make([]byte, len(a.Code))
		for b.Loop() {
			copy(buf, file[len(file)-len(a.Code):])
		}
	})
}
