package convert

import (
	"bytes"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/ue"
)

// shaderPairs finds every X.ushaderbytecode beside an X.uzenshaderbytecode.
func shaderPairs(t testing.TB) (pairs [][2]string) {
	t.Helper()
	zs, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "other/ue5_shader_libraries/*.uzenshaderbytecode"))
	for _, z := range zs {
		if p := strings.TrimSuffix(z, ".uzenshaderbytecode") + ".ushaderbytecode"; exists(p) {
			pairs = append(pairs, [2]string{p, z})
		}
	}
	if len(pairs) == 0 {
		t.Fatal("no shader library pair in the corpus")
	}
	return pairs
}

// shaderFormat is the format a library file name ends in:
// ShaderArchive-<Library>-<Format>-<Platform>.
func shaderFormat(path string) string {
	parts := strings.Split(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), "-")
	return parts[len(parts)-2]
}

// TestShaderArchiveToZen converts the pak-era shader library of a UE 5.4
// game to the IoStore header and compares it with the engine's header of
// the same library: every field equal, except the groups' compressed
// sizes (unrmod stores groups uncompressed; the engine Oodle-compresses
// them). Both files decode and encode back byte for byte.
func TestShaderArchiveToZen(t *testing.T) {
	for _, pr := range shaderPairs(t) {
		t.Run(filepath.Base(pr[0]), func(t *testing.T) {
			pdata, zdata := read(t, pr[0]), read(t, pr[1])
			a, err := DecodeShaderArchive(pr[0], pdata)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Encode(), pdata) {
				t.Error("the pak-era library does not encode back to its bytes")
			}
			want, err := DecodeZenShaderArchive(pr[1], zdata)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want.Encode(), zdata) {
				t.Error("the IoStore header does not encode back to its bytes")
			}
			got, err := ShaderArchiveToZen(a, shaderFormat(pr[0]), 0)
			if err != nil {
				t.Fatal(err)
			}
			compressed := 0
			for i := range want.Groups {
				if i < len(got.Groups) {
					if got.Groups[i].CompressedSize != got.Groups[i].UncompressedSize {
						t.Fatalf("group %d stored compressed", i)
					}
					got.Groups[i].CompressedSize = want.Groups[i].CompressedSize
				}
				if want.Groups[i].CompressedSize != want.Groups[i].UncompressedSize {
					compressed++
				}
			}
			if g, w := got.Encode(), want.Encode(); !bytes.Equal(g, w) {
				t.Errorf("header: %s", shaderDiff(got, want))
			}
			t.Logf("%d shader maps, %d shaders, %d groups (%d compressed by the engine)", len(want.ShaderMaps), len(want.Shaders), len(want.Groups), compressed)
		})
	}
}

func shaderDiff(got, want *ZenShaderArchive) string {
	if len(got.Groups) != len(want.Groups) {
		return "groups: " + itoa(len(got.Groups)) + " want " + itoa(len(want.Groups))
	}
	for i := range got.Groups {
		if got.Groups[i] != want.Groups[i] || got.GroupChunkIDs[i] != want.GroupChunkIDs[i] {
			g, w := got.Groups[i], want.Groups[i]
			var gs, ws []string
			for _, s := range got.ShaderIndices[g.ShaderIndicesOffset : g.ShaderIndicesOffset+g.NumShaders] {
				gs = append(gs, itoa(int(s))+":"+itoa(int(want.Shaders[s].OffsetInGroup)))
			}
			for _, s := range want.ShaderIndices[w.ShaderIndicesOffset : w.ShaderIndicesOffset+w.NumShaders] {
				ws = append(ws, itoa(int(s)))
			}
			return "group " + itoa(i) + " differs: " + strings.Join(gs, ",") + " want " + strings.Join(ws, ",")
		}
	}
	for i := range got.Shaders {
		if got.Shaders[i] != want.Shaders[i] {
			return "shader " + itoa(i) + " differs"
		}
	}
	if len(got.ShaderIndices) != len(want.ShaderIndices) {
		return "shader indices: " + itoa(len(got.ShaderIndices)) + " want " + itoa(len(want.ShaderIndices))
	}
	return "other fields differ"
}

func itoa(n int) string { return strconv.Itoa(n) }

// miniShaderArchive is a small library cut from the corpus's: its first
// shader maps with their shaders, renumbered, and code for each shader
// (its bytes are the shader's index), stored uncompressed.
func miniShaderArchive(t testing.TB, maps int) *ShaderArchive {
	t.Helper()
	pr := shaderPairs(t)[0]
	full, err := DecodeShaderArchive(pr[0], read(t, pr[0]))
	if err != nil {
		t.Fatal(err)
	}
	a := &ShaderArchive{}
	renum := map[uint32]uint32{}
	for m := 0; m < maps; m++ {
		e := full.ShaderMaps[m]
		a.ShaderMapHashes = append(a.ShaderMapHashes, full.ShaderMapHashes[m])
		a.ShaderMaps = append(a.ShaderMaps, ShaderMapEntry{ShaderIndicesOffset: uint32(len(a.ShaderIndices)), NumShaders: e.NumShaders})
		for _, s := range full.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
			k, ok := renum[s]
			if !ok {
				k = uint32(len(a.Shaders))
				renum[s] = k
				c := full.Shaders[s]
				size := c.UncompressedSize%200 + 1
				a.Shaders = append(a.Shaders, ShaderCodeEntry{Offset: uint64(len(a.Code)), Size: size, UncompressedSize: size, Frequency: c.Frequency})
				a.ShaderHashes = append(a.ShaderHashes, full.ShaderHashes[s])
				a.Code = append(a.Code, bytes.Repeat([]byte{byte(k)}, int(size))...)
			}
			a.ShaderIndices = append(a.ShaderIndices, k)
		}
	}
	return a
}

// TestShaderGroupData builds every group of a small library with its code
// stored uncompressed: each group holds its shaders' code in group order,
// at the offsets the header gives; a small size limit splits groups.
func TestShaderGroupData(t *testing.T) {
	a := miniShaderArchive(t, 6)
	again, err := DecodeShaderArchive("mini", a.Encode())
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []uint32{0, 300} {
		z, err := ShaderArchiveToZen(again, "PCD3D_SM6", limit)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeZenShaderArchive("mini", z.Encode()); err != nil {
			t.Fatal(err)
		}
		if limit != 0 && len(z.Groups) <= 1 {
			t.Errorf("limit %d: %d groups", limit, len(z.Groups))
		}
		seen := 0
		for g, e := range z.Groups {
			data, err := ShaderGroupData(again, z, g)
			if err != nil {
				t.Fatal(err)
			}
			if uint32(len(data)) != e.UncompressedSize {
				t.Errorf("group %d: %d bytes, entry %+v", g, len(data), e)
			}
			for _, s := range z.ShaderIndices[e.ShaderIndicesOffset : e.ShaderIndicesOffset+e.NumShaders] {
				seen++
				sh := z.Shaders[s]
				if sh.Group != uint32(g) || data[sh.OffsetInGroup] != byte(s) {
					t.Errorf("shader %d: group %d at %d, byte %d", s, sh.Group, sh.OffsetInGroup, data[sh.OffsetInGroup])
				}
			}
		}
		if seen != len(a.Shaders) {
			t.Errorf("groups hold %d shaders of %d", seen, len(a.Shaders))
		}
	}
	// Compressed code cannot go into a group: the library does not name
	// its compressor.
	again.Shaders[0].Size--
	z, _ := ShaderArchiveToZen(again, "PCD3D_SM6", 0)
	if _, err := ShaderGroupData(again, z, int(z.Shaders[0].Group)); !errors.Is(err, ErrNotConvertible) {
		t.Errorf("compressed shader: %v", err)
	}
}

// TestShaderArchiveRefuses checks that damaged libraries are refused with
// errors naming the structure: truncated counts, a wrong version, indices
// out of range.
func TestShaderArchiveRefuses(t *testing.T) {
	good := miniShaderArchive(t, 2)
	data := good.Encode()
	z, _ := ShaderArchiveToZen(good, "PCD3D_SM6", 0)
	zdata := z.Encode()
	bad := *good
	bad.ShaderIndices = append([]uint32{uint32(len(good.Shaders))}, good.ShaderIndices[1:]...)
	badZ := *z
	badZ.Shaders = append([]ZenShaderEntry{{Group: uint32(len(z.Groups))}}, z.Shaders[1:]...)
	for _, tt := range []struct {
		name string
		zen  bool
		data []byte
		want string
		kind error
	}{
		{"truncated", false, data[:30], "shader map hashes at 0x4", ue.ErrCorrupt},
		{"version", false, append([]byte{3, 0, 0, 0}, data[4:]...), "version 3", ue.ErrUnsupportedVersion},
		{"shader index", false, bad.Encode(), "shader index 0", ue.ErrCorrupt},
		{"zen truncated", true, zdata[:len(zdata)-2], "shader ind", ue.ErrCorrupt},
		{"zen trailing", true, append(zdata, 0), "1 bytes follow", ue.ErrCorrupt},
		{"zen version", true, append([]byte{2, 0, 0, 0}, zdata[4:]...), "version 2", ue.ErrUnsupportedVersion},
		{"zen group", true, badZ.Encode(), "shader 0", ue.ErrCorrupt},
	} {
		var err error
		if tt.zen {
			_, err = DecodeZenShaderArchive("lib", tt.data)
		} else {
			_, err = DecodeShaderArchive("lib", tt.data)
		}
		if err == nil || !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "lib") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
