package cityhash_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/corpus"
)

// Algorithm vectors of docs/hashing.md §5.1: CityHash64 v1.1 over raw bytes.
func TestHash64Vectors(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0x9ae16a3b2f90404f},
		{"a", 0xb3454265b6df75e3},
		{"none", 0x75370f5ba6352dc2},
		{"/script/coreuobject", 0x040ddb344f8a1052},
		{utf16le("/script/coreuobject"), 0x21febf02cdde2af3},
		{strings.Repeat("0123456789", 4), 0x8f744a4a769724d5},
		{strings.Repeat("abcdefghij", 10), 0xc471484ef528aa29},
	}
	for _, tt := range tests {
		if got := cityhash.Hash64([]byte(tt.in)); got != tt.want {
			t.Errorf("Hash64(%q) = %#016x, want %#016x", tt.in, got, tt.want)
		}
	}
}

// Values stored in engine-written files, docs/hashing.md §5.2.
func TestCityEngineVectors(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) uint64
		in   string
		want uint64
	}{
		{"NameHash", cityhash.NameHash, "ByteProperty", 0x73ccc841a7c628ee},
		{"NameHash", cityhash.NameHash, "byteproperty", 0x73ccc841a7c628ee},
		{"NameHash", cityhash.NameHash, "None", 0x75370f5ba6352dc2},
		{"PackageID", cityhash.PackageID, "/Script/CoreUObject", 0x21febf02cdde2af3},
		{"ScriptImportIndex", cityhash.ScriptImportIndex, "/Script/CoreUObject", 0x61febf02cdde2af3},
		{"PackageID", cityhash.PackageID, "/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop", 0x14f2082da820101a},
		{"PackageImportIndex", cityhash.PackageImportIndex,
			"/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop.BP_Aphid_Meat_Prop_C", 0xafc1982bef454b5f},
		{"PackageImportIndex", cityhash.PackageImportIndex,
			"/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop.Default__BP_Aphid_Meat_Prop_C", 0x8bb9e62e8951d666},
		{"ScriptImportIndex", cityhash.ScriptImportIndex, "/Script/Engine.BlueprintGeneratedClass", 0x6b62d0815847a520},
		{"PublicExportHash", cityhash.PublicExportHash, "BP_Russian_pool_table_C", 0xc3dcb93ca3a6c24e},
		{"PublicExportHash", cityhash.PublicExportHash, "/BP_Russian_pool_table_C", 0xc3dcb93ca3a6c24e},
		{"PublicExportHash", cityhash.PublicExportHash, "Default__BP_Russian_pool_table_C", 0x00af41eb54792c90},
		{"PublicExportHash", cityhash.PublicExportHash, "SM_Cube", 0xf4cc3f86cf165e55},
		{"PackageID", cityhash.PackageID,
			"/Game/Tags/Objects/Vehicles/Human/Pelican/Attachments/Pelican_Chin_Gun/Weapons/Pelican_Chin_Gun-Weapon", 0x1fbc7bbc2072a331},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-Minimal-Zlib-Windows", 0xdc74c2edae5549a3},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-Minimal-Uncompressed-Windows", 0x8e31e2f0b7de84f2},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-Minimal-Oodle-Windows", 0x49875bb3cb76703d},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-Minimal-OodleEncrypted-Windows", 0x26fb0e45365ce187},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-Minimal-OodlePartitioned-Windows", 0xff61f5b2df869ac5},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-PatchBase", 0xfd08e8c9c074e95e},
		{"ContainerID", cityhash.ContainerID, "CUE4ParseFixtures-PatchBase_0_P", 0xaba9e1cf9cfd6859},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.in); got != tt.want {
			t.Errorf("%s(%q) = %#016x, want %#016x", tt.name, tt.in, got, tt.want)
		}
	}
	// Without lowercasing the engine value is never produced (hashing.md §5.2).
	if got := cityhash.Hash64([]byte("ByteProperty")); got != 0x2a039da78cda8e86 {
		t.Errorf("Hash64(ByteProperty) = %#016x", got)
	}
}

// TestCityNormalisation pins the input rules: ASCII-only lowercasing, the
// ANSI/UTF-16 choice of name hashes, separators of object paths.
func TestCityNormalisation(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"ascii name hashes bytes", cityhash.NameHash("AbC"), cityhash.Hash64([]byte("abc"))},
		// 'Ä' (U+00C4) is not lowercased; the name is wide, so UTF-16LE.
		{"wide name hashes UTF-16", cityhash.NameHash("ÄB"), cityhash.Hash64([]byte{0xC4, 0, 'b', 0})},
		{"wide name from units", cityhash.NameHashUTF16([]uint16{0xC4, 'B'}), cityhash.NameHash("ÄB")},
		{"lone surrogate kept", cityhash.NameHashUTF16([]uint16{0xD800, 'A'}), cityhash.Hash64([]byte{0x00, 0xD8, 'a', 0})},
		{"astral rune is a surrogate pair", cityhash.PackageID("/😀"), cityhash.Hash64([]byte{'/', 0, 0x3D, 0xD8, 0x00, 0xDE})},
		{"package id lowercases", cityhash.PackageID("/GAME/X"), cityhash.PackageID("/game/x")},
		{"object path separators", cityhash.PackageImportIndex("/Game/P.A:B"), cityhash.PackageImportIndex("/game/p/a/b")},
		{"public export separators", cityhash.PublicExportHash("Outer.Inner"), cityhash.PublicExportHash("outer/inner")},
		{"shader library id", cityhash.ShaderLibraryID("Global", "PCD3D_SM5"), cityhash.Hash64([]byte(utf16le("global-pcd3d_sm5")))},
		{"long name uses heap buffer", cityhash.NameHash(strings.Repeat("X", 300)), cityhash.Hash64([]byte(strings.Repeat("x", 300)))},
		{"long id uses heap buffer", cityhash.PackageID(strings.Repeat("X", 300)), cityhash.Hash64([]byte(utf16le(strings.Repeat("x", 300))))},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %#016x, want %#016x", tt.name, tt.got, tt.want)
		}
	}
	if cityhash.IsWideName("Plain_Name 123") || !cityhash.IsWideName("Café") {
		t.Error("IsWideName")
	}
	if got := cityhash.ScriptImportIndex("/Script/X") >> 62; got != 1 {
		t.Errorf("ScriptImportIndex type %d", got)
	}
	if got := cityhash.PackageImportIndex("/Game/X.Y") >> 62; got != 2 {
		t.Errorf("PackageImportIndex type %d", got)
	}
}

// TestGlobalNameHashes checks every name of the UE 4.27 global name map
// (LoaderGlobalNames, interleaved batch) against the saved hash list
// (LoaderGlobalNameHashes: algorithm id, then one hash per name).
func TestGlobalNameHashes(t *testing.T) {
	names := readInterleavedNames(t, readCorpus(t, "other/ue4_27_global_chunks/LoaderGlobalNames_1.bin"))
	hashes := readU64s(t, readCorpus(t, "other/ue4_27_global_chunks/LoaderGlobalNameHashes_1.bin"))
	if hashes[0] != cityhash.NameHashAlgorithmID {
		t.Fatalf("algorithm id %#x", hashes[0])
	}
	hashes = hashes[1:]
	if len(hashes) != len(names) {
		t.Fatalf("%d names, %d hashes", len(names), len(hashes))
	}
	bad := 0
	for i, n := range names {
		if got := n.hash(); got != hashes[i] {
			if bad++; bad <= 5 {
				t.Errorf("name %d %q: hash %#016x, file %#016x", i, n.s, got, hashes[i])
			}
		}
	}
	t.Logf("%d/%d global name hashes match", len(names)-bad, len(names))
	if len(names) != 21550 {
		t.Errorf("%d names, the doc counts 21550", len(names))
	}
}

// TestScriptObjectIndices rebuilds the path of every UE 4.27 script object
// (LoaderInitialLoadMeta: names from the global name map, outer chain) and
// checks that ScriptImportIndex gives its stored GlobalIndex.
func TestScriptObjectIndices(t *testing.T) {
	names := readInterleavedNames(t, readCorpus(t, "other/ue4_27_global_chunks/LoaderGlobalNames_1.bin"))
	meta := readCorpus(t, "other/ue4_27_global_chunks/LoaderInitialLoadMeta_1.bin")
	n := int(binary.LittleEndian.Uint32(meta))
	if 4+32*n != len(meta) {
		t.Fatalf("%d script objects do not fill %d bytes", n, len(meta))
	}
	type obj struct{ name, global, outer uint64 }
	objs := make([]obj, n)
	byIndex := make(map[uint64]int, n)
	for i := range objs {
		e := meta[4+32*i:]
		objs[i] = obj{binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])}
		byIndex[objs[i].global] = i
	}
	var path func(i, depth int) string
	path = func(i, depth int) string {
		if depth > 64 {
			t.Fatalf("outer chain of script object %d loops", i)
		}
		o := objs[i]
		s := mappedName(t, names, o.name)
		if o.outer == ^uint64(0) {
			return s
		}
		j, ok := byIndex[o.outer]
		if !ok {
			t.Fatalf("script object %d: outer %#x unknown", i, o.outer)
		}
		return path(j, depth+1) + "/" + s
	}
	bad := 0
	for i, o := range objs {
		p := path(i, 0)
		if got := cityhash.ScriptImportIndex(p); got != o.global {
			if bad++; bad <= 5 {
				t.Errorf("script object %d %q: %#016x, file %#016x", i, p, got, o.global)
			}
		}
	}
	t.Logf("%d/%d script object indices match", n-bad, n)
}

// TestZen427Hashes checks the Grounded (UE 4.27) zen packages: every name-map
// hash, and the GlobalImportIndex of every public export against
// PackageImportIndex of its full path.
func TestZen427Hashes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "other/grounded/zen_ue4_27/*.uasset"))
	if len(files) == 0 {
		t.Fatal("no Grounded zen packages")
	}
	var nNames, nExports int
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			u32 := func(off int) int { return int(binary.LittleEndian.Uint32(data[off:])) }
			namesOff, namesSize, hashesOff, hashesSize := u32(24), u32(28), u32(32), u32(36)
			exportOff, bundlesOff := u32(44), u32(48)
			names := readInterleavedNames(t, data[namesOff:namesOff+namesSize])
			hashes := readU64s(t, data[hashesOff:hashesOff+hashesSize])
			if hashes[0] != cityhash.NameHashAlgorithmID || len(hashes) != len(names)+1 {
				t.Fatalf("hash list: id %#x, %d hashes for %d names", hashes[0], len(hashes)-1, len(names))
			}
			for i, n := range names {
				if got := n.hash(); got != hashes[i+1] {
					t.Errorf("name %d %q: %#016x, file %#016x", i, n.s, got, hashes[i+1])
				}
			}
			nNames += len(names)

			pkg := mappedName(t, names, binary.LittleEndian.Uint64(data))
			count := (bundlesOff - exportOff) / 72
			objName := func(i int) string {
				return mappedName(t, names, binary.LittleEndian.Uint64(data[exportOff+72*i+16:]))
			}
			var path func(i, depth int) string
			path = func(i, depth int) string {
				if depth > count {
					t.Fatalf("export %d: outer chain loops", i)
				}
				outer := binary.LittleEndian.Uint64(data[exportOff+72*i+24:])
				if outer == ^uint64(0) {
					return pkg + "." + objName(i)
				}
				return path(int(outer), depth+1) + ":" + objName(i)
			}
			for i := range count {
				global := binary.LittleEndian.Uint64(data[exportOff+72*i+56:])
				if global == ^uint64(0) {
					continue
				}
				p := path(i, 0)
				if got := cityhash.PackageImportIndex(p); got != global {
					t.Errorf("export %d %q: %#016x, file %#016x", i, p, got, global)
				}
				nExports++
			}
		})
	}
	t.Logf("%d name hashes, %d public export indices checked", nNames, nExports)
}

// TestZen5Hashes checks the UE 5.4 / 5.6 zen packages: every hash of the
// name batch, and every non-zero PublicExportHash against the export's path.
func TestZen5Hashes(t *testing.T) {
	tests := []struct {
		file    string
		nameMap int // offset of the name batch (summary 52 bytes, + cell offsets on 5.6)
		// export count is (end - ExportMapOffset) / 72; end is the field
		// that follows the export map.
		endField int
	}{
		{"other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uzenasset", 52, 36},
		{"other/ue5_cooked_pairs/UE5.6_SM_Cube.uzenasset", 60, 52},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			data := readCorpus(t, tt.file)
			names, hashes := readSeparatedBatch(t, data[tt.nameMap:])
			for i, n := range names {
				if got := n.hash(); got != hashes[i] {
					t.Errorf("name %d %q: %#016x, file %#016x", i, n.s, got, hashes[i])
				}
			}
			exportOff := int(binary.LittleEndian.Uint32(data[32:]))
			end := int(binary.LittleEndian.Uint32(data[tt.endField:]))
			count := (end - exportOff) / 72
			objName := func(i int) string {
				return mappedName(t, names, binary.LittleEndian.Uint64(data[exportOff+72*i+16:]))
			}
			var path func(i, depth int) string
			path = func(i, depth int) string {
				if depth > count {
					t.Fatalf("export %d: outer chain loops", i)
				}
				outer := binary.LittleEndian.Uint64(data[exportOff+72*i+24:])
				if outer == ^uint64(0) {
					return objName(i)
				}
				return path(int(outer), depth+1) + "/" + objName(i)
			}
			public := 0
			for i := range count {
				h := binary.LittleEndian.Uint64(data[exportOff+72*i+56:])
				if h == 0 {
					continue
				}
				public++
				if got := cityhash.PublicExportHash(path(i, 0)); got != h {
					t.Errorf("export %d %q: %#016x, file %#016x", i, path(i, 0), got, h)
				}
			}
			if public == 0 {
				t.Error("no public export checked")
			}
			t.Logf("%d name hashes, %d of %d exports public and matching", len(names), public, count)
		})
	}
}

// TestContainerIDsOfFixtures checks the ContainerId of every non-global UE 5.8
// fixture .utoc (header offset 56) against its file name.
func TestContainerIDsOfFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "iostore/cue4parse_ue5_8/*/*.utoc"))
	more, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "iostore/cue4parse_ue5_8/*/*/*.utoc"))
	files = append(files, more...)
	checked := 0
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".utoc")
		if base == "global" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil || len(data) < 64 {
			t.Fatalf("%s: %v", f, err)
		}
		if got, want := cityhash.ContainerID(base), binary.LittleEndian.Uint64(data[56:]); got != want {
			t.Errorf("%s: ContainerID %#016x, TOC %#016x", base, got, want)
		}
		checked++
	}
	if checked < 7 {
		t.Errorf("only %d containers checked", checked)
	}
}

func BenchmarkNameHash(b *testing.B) {
	for _, n := range []int{12, 32, 100} {
		name := strings.Repeat("BP_Aphid_Meat_Prop_", 6)[:n]
		b.Run(fmt.Sprintf("ansi_%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				sink = cityhash.NameHash(name)
			}
		})
	}
	path := "/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop"
	b.Run("package_id", func(b *testing.B) {
		b.SetBytes(int64(len(path)))
		b.ReportAllocs()
		for b.Loop() {
			sink = cityhash.PackageID(path)
		}
	})
	// The raw hash over the same bytes: the floor for NameHash.
	raw := []byte(path)
	b.Run("hash64_baseline", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			sink = cityhash.Hash64(raw)
		}
	})
}

var sink uint64

// ---- helpers: minimal readers of the name formats, independent of the code under test ----

type testName struct {
	s     string
	units []uint16 // set for wide names
}

func (n testName) hash() uint64 {
	if n.units != nil {
		return cityhash.NameHashUTF16(n.units)
	}
	return cityhash.NameHash(n.s)
}

func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(corpus.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readInterleavedNames reads a 4.2x name blob: per name a 2-byte header (bit 7
// of the first byte: UTF-16; length in characters), a pad byte before UTF-16
// text at an odd position, then the characters.
func readInterleavedNames(t *testing.T, b []byte) []testName {
	t.Helper()
	var out []testName
	for p := 0; p < len(b); {
		if p+2 > len(b) {
			t.Fatalf("name header at %d truncated", p)
		}
		wide := b[p]&0x80 != 0
		n := int(b[p]&0x7F)<<8 | int(b[p+1])
		p += 2
		if !wide {
			if p+n > len(b) {
				t.Fatalf("name at %d truncated", p)
			}
			out = append(out, testName{s: string(b[p : p+n])})
			p += n
			continue
		}
		if p%2 == 1 {
			p++
		}
		if p+2*n > len(b) {
			t.Fatalf("wide name at %d truncated", p)
		}
		u := make([]uint16, n)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[p+2*i:])
		}
		out = append(out, testName{s: string(utf16.Decode(u)), units: u})
		p += 2 * n
	}
	return out
}

// readSeparatedBatch reads a UE5 name batch: count, string bytes, algorithm
// id, hashes, headers, characters.
func readSeparatedBatch(t *testing.T, b []byte) ([]testName, []uint64) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b))
	strBytes := int(binary.LittleEndian.Uint32(b[4:]))
	if id := binary.LittleEndian.Uint64(b[8:]); id != cityhash.NameHashAlgorithmID {
		t.Fatalf("name batch algorithm id %#x", id)
	}
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = binary.LittleEndian.Uint64(b[16+8*i:])
	}
	hdr := 16 + 8*n
	text := hdr + 2*n
	if text+strBytes > len(b) {
		t.Fatalf("name batch of %d names, %d string bytes, exceeds %d bytes", n, strBytes, len(b))
	}
	names := make([]testName, n)
	for i := range names {
		wide := b[hdr+2*i]&0x80 != 0
		l := int(b[hdr+2*i]&0x7F)<<8 | int(b[hdr+2*i+1])
		if wide {
			u := make([]uint16, l)
			for j := range u {
				u[j] = binary.LittleEndian.Uint16(b[text+2*j:])
			}
			names[i] = testName{s: string(utf16.Decode(u)), units: u}
			text += 2 * l
		} else {
			names[i] = testName{s: string(b[text : text+l])}
			text += l
		}
	}
	return names, hashes
}

// mappedName renders an FMappedName (index in bits 0–29 of the low word,
// number in the high word) as the engine's display string.
func mappedName(t *testing.T, names []testName, v uint64) string {
	t.Helper()
	idx, num := int(uint32(v)&0x3FFFFFFF), uint32(v>>32)
	if idx >= len(names) {
		t.Fatalf("name index %d of %d", idx, len(names))
	}
	if num == 0 {
		return names[idx].s
	}
	return fmt.Sprintf("%s_%d", names[idx].s, num-1)
}

func readU64s(t *testing.T, b []byte) []uint64 {
	t.Helper()
	if len(b)%8 != 0 || len(b) == 0 {
		t.Fatalf("hash list of %d bytes", len(b))
	}
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

func utf16le(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return string(b)
}

// PathHash hashes the lowercased UTF-16 of the text as it is: it is the
// package id of a package name, and a UE5 public export hash of a
// lowercased package-relative path (here the 5.4 pair's BP_Table_Lamp_C,
// whose hash the engine stored), but unlike PublicExportHash it keeps '.'
// and ':' as they are.
func TestPathHash(t *testing.T) {
	for _, s := range []string{"/Game/Billiards/Blueprints/BP_Table_Lamp", "/Game/Ünïcode/Pkg", ""} {
		if cityhash.PathHash(s) != cityhash.PackageID(s) {
			t.Errorf("PathHash(%q) is not the package id", s)
		}
	}
	if got := cityhash.PathHash("bp_table_lamp_c"); got != 0x4292b79c4d283c72 {
		t.Errorf("PathHash(bp_table_lamp_c) = %#016x, the engine stored 0x4292b79c4d283c72", got)
	}
	if cityhash.PathHash("Outer.Inner") == cityhash.PublicExportHash("Outer.Inner") ||
		cityhash.PathHash("outer/inner") != cityhash.PublicExportHash("Outer.Inner") {
		t.Error("PathHash must keep '.' where PublicExportHash turns it into '/'")
	}
}
