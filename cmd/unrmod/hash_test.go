package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore/zen"
)

// The package paths of the hash vectors (docs: hashing.md §5.2).
const (
	aphidPackage = "/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop"
	aphidClass   = aphidPackage + ".BP_Aphid_Meat_Prop_C"
	aphidCDO     = aphidPackage + ".Default__BP_Aphid_Meat_Prop_C"
	poolPackage  = "/Game/Billiards/Blueprints/BP_Russian_pool_table"
	cubePackage  = "/Game/Meshes/SM_Cube"
)

// TestHashVectors checks every value the engine-written files and the
// algorithm vectors fix, one command line each, exact output.
func TestHashVectors(t *testing.T) {
	tests := []struct {
		args []string
		want string // the whole standard output
	}{
		// Algorithm vectors: the bytes hashed are the lowercased name.
		{[]string{"--name", "a"}, `name "a": 0xb3454265b6df75e3`},
		{[]string{"--name", "none"}, `name "none": 0x75370f5ba6352dc2`},
		{[]string{"--name", "/script/coreuobject"}, `name "/script/coreuobject": 0x040ddb344f8a1052`},
		{[]string{"--package", "/script/coreuobject"}, `package "/script/coreuobject": 0x21febf02cdde2af3`},
		{[]string{"--name", strings.Repeat("0123456789", 4)}, `name "` + strings.Repeat("0123456789", 4) + `": 0x8f744a4a769724d5`},
		{[]string{"--name", strings.Repeat("abcdefghij", 10)}, `name "` + strings.Repeat("abcdefghij", 10) + `": 0xc471484ef528aa29`},
		// Values stored in engine-written files.
		{[]string{"--name", "ByteProperty"}, `name "ByteProperty": 0x73ccc841a7c628ee`},
		{[]string{"--name", "BYTEPROPERTY"}, `name "BYTEPROPERTY": 0x73ccc841a7c628ee`},
		{[]string{"--name", "None"}, `name "None": 0x75370f5ba6352dc2`},
		{[]string{"--package", "/Script/CoreUObject"}, `package "/Script/CoreUObject": 0x21febf02cdde2af3`},
		{[]string{"--script", "/Script/CoreUObject"}, `script "/Script/CoreUObject": 0x61febf02cdde2af3`},
		{[]string{"--package", aphidPackage}, `package "` + aphidPackage + `": 0x14f2082da820101a`},
		{[]string{"--script", "/Script/Engine.BlueprintGeneratedClass"}, `script "/Script/Engine.BlueprintGeneratedClass": 0x6b62d0815847a520`},
		{[]string{"--package", "/game/tags/objects/vehicles/human/pelican/attachments/pelican_chin_gun/weapons/pelican_chin_gun-weapon"},
			`package "/game/tags/objects/vehicles/human/pelican/attachments/pelican_chin_gun/weapons/pelican_chin_gun-weapon": 0x1fbc7bbc2072a331`},
		{[]string{"--export", aphidClass, "--engine", "4.27"}, lines(
			`export "`+aphidClass+`" GlobalImportIndex (UE 4.26/4.27): 0xafc1982bef454b5f`,
			`export "`+aphidClass+`" package id:                       0x14f2082da820101a`)},
		{[]string{"--engine=4.26", "--export", aphidCDO}, lines(
			`export "`+aphidCDO+`" GlobalImportIndex (UE 4.26/4.27): 0x8bb9e62e8951d666`,
			`export "`+aphidCDO+`" package id:                       0x14f2082da820101a`)},
		{[]string{"--export", poolPackage + ".BP_Russian_pool_table_C", "--engine", "5.4"}, lines(
			`export "`+poolPackage+`.BP_Russian_pool_table_C" PublicExportHash (UE 5.x): 0xc3dcb93ca3a6c24e`,
			`export "`+poolPackage+`.BP_Russian_pool_table_C" package id:                0x11dfb84fb675d532`)},
		{[]string{"--export", poolPackage + ".Default__BP_Russian_pool_table_C", "--engine", "UE5.5"}, lines(
			`export "`+poolPackage+`.Default__BP_Russian_pool_table_C" PublicExportHash (UE 5.x): 0x00af41eb54792c90`,
			`export "`+poolPackage+`.Default__BP_Russian_pool_table_C" package id:                0x11dfb84fb675d532`)},
		{[]string{"--export", cubePackage + ".SM_Cube", "--engine", "5"}, lines(
			`export "`+cubePackage+`.SM_Cube" PublicExportHash (UE 5.x): 0xf4cc3f86cf165e55`,
			`export "`+cubePackage+`.SM_Cube" package id:                0x516e7b3842b88189`)},
		// Container ids of the engine-cooked UE 5.8 fixtures.
		{[]string{"--container", "CUE4ParseFixtures-Minimal-Zlib-Windows"}, `container "CUE4ParseFixtures-Minimal-Zlib-Windows": 0xdc74c2edae5549a3`},
		{[]string{"--container", "CUE4ParseFixtures-Minimal-Uncompressed-Windows"}, `container "CUE4ParseFixtures-Minimal-Uncompressed-Windows": 0x8e31e2f0b7de84f2`},
		{[]string{"--container", "CUE4ParseFixtures-Minimal-Oodle-Windows"}, `container "CUE4ParseFixtures-Minimal-Oodle-Windows": 0x49875bb3cb76703d`},
		{[]string{"--container", "CUE4ParseFixtures-Minimal-OodleEncrypted-Windows"}, `container "CUE4ParseFixtures-Minimal-OodleEncrypted-Windows": 0x26fb0e45365ce187`},
		{[]string{"--container", "CUE4ParseFixtures-Minimal-OodlePartitioned-Windows"}, `container "CUE4ParseFixtures-Minimal-OodlePartitioned-Windows": 0xff61f5b2df869ac5`},
		{[]string{"--container", "CUE4ParseFixtures-PatchBase"}, `container "CUE4ParseFixtures-PatchBase": 0xfd08e8c9c074e95e`},
		{[]string{"--container", "CUE4ParseFixtures-PatchBase_0_P"}, `container "CUE4ParseFixtures-PatchBase_0_P": 0xaba9e1cf9cfd6859`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"hash"}, tt.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if want := strings.TrimSuffix(tt.want, "\n") + "\n"; stdout != want {
				t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
			}
			// The hash of the name not lowercased (a bug) is never printed.
			if strings.Contains(stdout, "0x2a039da78cda8e86") {
				t.Errorf("ByteProperty hashed without lowercasing:\n%s", stdout)
			}
		})
	}
}

// lines joins output lines.
func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

// TestHashBothForms checks that --export without --engine prints the UE4
// and UE5 forms, each labelled, then the package id.
func TestHashBothForms(t *testing.T) {
	stdout, stderr, code := runCLI(t, "hash", "--export", poolPackage+".BP_Russian_pool_table_C")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	p := `export "` + poolPackage + `.BP_Russian_pool_table_C" `
	want := lines(
		p+"GlobalImportIndex (UE 4.26/4.27): "+zen.ObjectIndex(cityhash.PackageImportIndex(poolPackage+".BP_Russian_pool_table_C")).String(),
		p+"PublicExportHash (UE 5.x):        0xc3dcb93ca3a6c24e",
		p+"package id:                       0x11dfb84fb675d532")
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	stdout, _, _ = runCLI(t, "hash", "--export", aphidCDO)
	for _, v := range []string{"0x8bb9e62e8951d666", "0x14f2082da820101a", hex64(cityhash.PublicExportHash("Default__BP_Aphid_Meat_Prop_C"))} {
		if !strings.Contains(stdout, v) {
			t.Errorf("output lacks %s:\n%s", v, stdout)
		}
	}
}

// TestHashOrderAndAlignment checks that values of several flags print in
// command-line order with their values in one column, whether the flags
// come in one group or not.
func TestHashOrderAndAlignment(t *testing.T) {
	stdout, stderr, code := runCLI(t, "hash",
		"--package", "/Script/CoreUObject", "--name", "ByteProperty", "--container", "MyMod_P",
		"--script=/Script/Engine.BlueprintGeneratedClass", "-name", "None", "--export", aphidClass, "--engine", "4.27")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	pad := func(label string) string {
		const width = len(`export "` + aphidClass + `" GlobalImportIndex (UE 4.26/4.27):`)
		return label + strings.Repeat(" ", width-len(label)+1)
	}
	want := lines(
		pad(`package "/Script/CoreUObject":`)+"0x21febf02cdde2af3",
		pad(`name "ByteProperty":`)+"0x73ccc841a7c628ee",
		pad(`container "MyMod_P":`)+zen.ContainerIDFromName("MyMod_P").String(),
		pad(`script "/Script/Engine.BlueprintGeneratedClass":`)+"0x6b62d0815847a520",
		pad(`name "None":`)+"0x75370f5ba6352dc2",
		pad(`export "`+aphidClass+`" GlobalImportIndex (UE 4.26/4.27):`)+"0xafc1982bef454b5f",
		pad(`export "`+aphidClass+`" package id:`)+"0x14f2082da820101a",
	)
	if stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
	}
	// The same value twice prints twice.
	stdout, _, _ = runCLI(t, "hash", "--name", "None", "--name", "None")
	if stdout != lines(`name "None": 0x75370f5ba6352dc2`, `name "None": 0x75370f5ba6352dc2`) {
		t.Errorf("repeated value:\n%s", stdout)
	}
}

// TestHashJSON decodes the --json document and compares every field.
func TestHashJSON(t *testing.T) {
	stdout, stderr, code := runCLI(t, "hash", "--json",
		"--name", "ByteProperty", "--package", aphidPackage, "--container", "CUE4ParseFixtures-PatchBase_0_P",
		"--script", "/Script/CoreUObject", "--export", aphidClass,
		"--export", poolPackage+".Default__BP_Russian_pool_table_C")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var got []map[string]string
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("not one JSON array of objects of strings: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Errorf("more than one JSON document:\n%s", stdout)
	}
	pool := poolPackage + ".Default__BP_Russian_pool_table_C"
	poolID := "0x11dfb84fb675d532"
	want := []map[string]string{
		{"kind": "name", "input": "ByteProperty", "form": "NameHash", "value": "0x73ccc841a7c628ee"},
		{"kind": "package", "input": aphidPackage, "form": "FPackageId", "value": "0x14f2082da820101a"},
		{"kind": "container", "input": "CUE4ParseFixtures-PatchBase_0_P", "form": "FIoContainerId", "value": "0xaba9e1cf9cfd6859"},
		{"kind": "script", "input": "/Script/CoreUObject", "form": "ScriptImport", "value": "0x61febf02cdde2af3"},
		{"kind": "export", "input": aphidClass, "form": "GlobalImportIndex", "value": "0xafc1982bef454b5f", "engine": "4.26/4.27",
			"package": aphidPackage, "package_id": "0x14f2082da820101a", "relative_path": "BP_Aphid_Meat_Prop_C"},
		{"kind": "export", "input": aphidClass, "form": "PublicExportHash", "value": hex64(cityhash.PublicExportHash("BP_Aphid_Meat_Prop_C")), "engine": "5.x",
			"package": aphidPackage, "package_id": "0x14f2082da820101a", "relative_path": "BP_Aphid_Meat_Prop_C"},
		{"kind": "export", "input": pool, "form": "GlobalImportIndex", "value": zen.ObjectIndex(cityhash.PackageImportIndex(pool)).String(), "engine": "4.26/4.27",
			"package": poolPackage, "package_id": poolID, "relative_path": "Default__BP_Russian_pool_table_C"},
		{"kind": "export", "input": pool, "form": "PublicExportHash", "value": "0x00af41eb54792c90", "engine": "5.x",
			"package": poolPackage, "package_id": poolID, "relative_path": "Default__BP_Russian_pool_table_C"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d objects, want %d:\n%s", len(got), len(want), stdout)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("object %d has fields %v, want %v", i, got[i], want[i])
		}
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("object %d: %s = %q, want %q", i, k, got[i][k], v)
			}
		}
	}

	// --engine keeps one form; the subobject's relative path joins outers with '/'.
	stdout, _, code = runCLI(t, "hash", "--json", "--engine", "5.6", "--export", `\Game\Maps\Arena.Arena:PersistentLevel.Floor`)
	var one []hashDoc
	if err := json.Unmarshal([]byte(stdout), &one); code != 0 || err != nil || len(one) != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	wantOne := hashDoc{Kind: "export", Input: "/Game/Maps/Arena.Arena:PersistentLevel.Floor", Form: "PublicExportHash",
		Value: hex64(cityhash.PublicExportHash("arena/persistentlevel/floor")), Engine: "5.x",
		Package: "/Game/Maps/Arena", PackageID: zen.PackageIDFromName("/game/maps/arena").String(), RelativePath: "Arena/PersistentLevel/Floor"}
	if one[0] != wantOne {
		t.Errorf("got %+v\nwant %+v", one[0], wantOne)
	}
}

// utf16Hash is CityHash64 of the UTF-16LE code units of s, computed here
// without the cityhash helpers: the expected value for a wide input whose
// ASCII letters the caller has already lowercased.
func utf16Hash(s string) uint64 {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return cityhash.Hash64(b)
}

// TestHashWideAndWindowsInput checks non-ASCII text (hashed as UTF-16LE,
// lowercased in A-Z only) and backslash paths.
func TestHashWideAndWindowsInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		// Wide names hash UTF-16LE; Ö keeps its case, only A-Z are lowered.
		{[]string{"--name", "GrÖße"}, `name "GrÖße": ` + hex64(utf16Hash("grÖße"))},
		{[]string{"--name", "名前"}, `name "名前": ` + hex64(utf16Hash("名前"))},
		{[]string{"--name", "Emoji😀"}, `name "Emoji😀": ` + hex64(utf16Hash("emoji😀"))}, // a surrogate pair
		{[]string{"--package", "/Game/Maps/Ärena"}, `package "/Game/Maps/Ärena": ` + hex64(utf16Hash("/game/maps/Ärena"))},
		{[]string{"--container", "Mod_Ünïcode_P"}, `container "Mod_Ünïcode_P": ` + hex64(utf16Hash("mod_Ünïcode_p"))},
		{[]string{"--script", `\Script\CoreUObject`}, `script "/Script/CoreUObject": 0x61febf02cdde2af3`},
		{[]string{"--package", `\Game\Blueprints\Items\Props\BP_Aphid_Meat_Prop`}, `package "` + aphidPackage + `": 0x14f2082da820101a`},
		{[]string{"--export", strings.ReplaceAll(aphidClass, "/", `\`), "--engine", "4.27"}, lines(
			`export "`+aphidClass+`" GlobalImportIndex (UE 4.26/4.27): 0xafc1982bef454b5f`,
			`export "`+aphidClass+`" package id:                       0x14f2082da820101a`)},
		// A subobject after ':' or '.' hashes the same.
		{[]string{"--export", "/Game/Maps/Arena.Arena:PersistentLevel", "--engine", "5.0"}, lines(
			`export "/Game/Maps/Arena.Arena:PersistentLevel" PublicExportHash (UE 5.x): `+hex64(utf16Hash("arena/persistentlevel")),
			`export "/Game/Maps/Arena.Arena:PersistentLevel" package id:                `+hex64(utf16Hash("/game/maps/arena")))},
		{[]string{"--export", "/Game/Maps/Arena.Arena.PersistentLevel", "--engine", "4.26"}, lines(
			`export "/Game/Maps/Arena.Arena.PersistentLevel" GlobalImportIndex (UE 4.26/4.27): `+hex64(utf16Hash("/game/maps/arena/arena/persistentlevel")&^(3<<62)|2<<62),
			`export "/Game/Maps/Arena.Arena.PersistentLevel" package id:                       `+hex64(utf16Hash("/game/maps/arena")))},
		// A UE 5 optional segment.
		{[]string{"--package", "/Game/Maps/Arena.o"}, `package "/Game/Maps/Arena.o": ` + hex64(utf16Hash("/game/maps/arena.o"))},
		// Container file paths are reduced to the base name.
		{[]string{"--container", "Paks/MyMod_P.utoc"}, `container "MyMod_P": ` + hex64(utf16Hash("mymod_p"))},
		{[]string{"--container", `C:\Game\Content\Paks\MyMod_P.UCAS`}, `container "MyMod_P": ` + hex64(utf16Hash("mymod_p"))},
		{[]string{"--container", "MyMod_P_s12.ucas"}, `container "MyMod_P": ` + hex64(utf16Hash("mymod_p"))},
		{[]string{"--container", "pakchunk0-WindowsNoEditor.pak"}, `container "pakchunk0-WindowsNoEditor": ` + hex64(utf16Hash("pakchunk0-windowsnoeditor"))},
		{[]string{"--container", "MyMod_s1"}, `container "MyMod_s1": ` + hex64(utf16Hash("mymod_s1"))},
		// A name that starts with '-' is a value, not a flag.
		{[]string{"--name", "-Foo"}, `name "-Foo": ` + hex64(cityhash.Hash64([]byte("-foo")))},
		// Control characters are shown escaped.
		{[]string{"--name", "a\tb"}, `name "a\tb": ` + hex64(cityhash.Hash64([]byte("a\tb")))},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"hash"}, tt.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if want := strings.TrimSuffix(tt.want, "\n") + "\n"; stdout != want {
				t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
			}
		})
	}
}

// TestHashNotes checks the notes on standard error for values the engine
// stores differently, and that other values print none.
func TestHashNotes(t *testing.T) {
	tests := []struct {
		args       []string
		stdout     string
		note       string // "" for no note
		notOnStdin bool
	}{
		{[]string{"--name", ""}, `name "": 0x9ae16a3b2f90404f`, `empty name into None; name maps hold the hash of "None" (0x75370f5ba6352dc2)`, false},
		{[]string{"--name="}, `name "": 0x9ae16a3b2f90404f`, `empty name into None`, false},
		{[]string{"--name", "Light_0"}, `name "Light_0": ` + hex64(cityhash.NameHash("Light_0")), `"Light_0" as "Light" plus the number suffix _0; name maps hold the hash of "Light": unrmod hash --name Light`, false},
		{[]string{"--name", "Actor 2_17"}, `name "Actor 2_17": ` + hex64(cityhash.NameHash("Actor 2_17")), `unrmod hash --name 'Actor 2'`, false},
		{[]string{"--name", "Rocket_04"}, `name "Rocket_04": ` + hex64(cityhash.NameHash("Rocket_04")), "", false},
		{[]string{"--name", "Big_2147483647"}, `name "Big_2147483647": ` + hex64(cityhash.NameHash("Big_2147483647")), "", false},
		{[]string{"--name", "_5"}, `name "_5": ` + hex64(cityhash.NameHash("_5")), "", false},
		{[]string{"--container", "global"}, `container "global": ` + hex64(utf16Hash("global")), "do not store this hash", false},
		{[]string{"--json", "--name", "Light_0"}, "", "plus the number suffix", true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"hash"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if tt.notOnStdin {
				if strings.Contains(stdout, "note") || !json.Valid([]byte(stdout)) {
					t.Errorf("--json output is not pure JSON:\n%s", stdout)
				}
			} else if stdout != tt.stdout+"\n" {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.stdout)
			}
			switch {
			case tt.note == "" && stderr != "":
				t.Errorf("unexpected note:\n%s", stderr)
			case tt.note != "" && (!strings.HasPrefix(stderr, "unrmod: note: ") || !strings.Contains(stderr, tt.note)):
				t.Errorf("stderr lacks note %q:\n%s", tt.note, stderr)
			}
		})
	}
}

// TestHashUsageErrors checks that bad command lines exit 2 with a reason
// that says what a valid value looks like, and print nothing on stdout.
func TestHashUsageErrors(t *testing.T) {
	exportForm := "/Game/Props/BP_Crate.BP_Crate_C"
	tests := []struct {
		args []string
		want []string // substrings of the reason
	}{
		{nil, []string{"nothing to hash", "--name", "--export"}},
		{[]string{"--json"}, []string{"nothing to hash"}},
		{[]string{"--engine", "5.4"}, []string{"nothing to hash"}},
		{[]string{"/Game/Maps/Arena"}, []string{`unexpected argument "/Game/Maps/Arena"`, "--package /Game/Maps/Arena"}},
		{[]string{"/Game/Maps/Arena.Arena"}, []string{"--export /Game/Maps/Arena.Arena"}},
		{[]string{"/Script/Engine.Actor"}, []string{"--script /Script/Engine.Actor"}},
		{[]string{"Byte Property"}, []string{"--name 'Byte Property'"}},
		{[]string{"--name", "x", "Paks/MyMod_P.utoc"}, []string{"--container Paks/MyMod_P.utoc"}},
		{[]string{"--name"}, []string{"needs an argument"}},
		{[]string{"--bogus", "x"}, []string{"bogus"}},
		{[]string{"--name", "\xff\xfe"}, []string{"not valid UTF-8"}},
		{[]string{"--package", ""}, []string{`--package ""`, "empty", "/Game/Maps/Arena"}},
		{[]string{"--package", "Game/Maps/Arena"}, []string{"does not start with '/'", "/Game/Maps/Arena"}},
		{[]string{"--package", "/Game/Maps/Arena.umap"}, []string{"has a '.'", "without extension or object"}},
		{[]string{"--package", "/Game/Maps/Arena.Arena"}, []string{"has a '.'", "--export"}},
		{[]string{"--package", "/Game"}, []string{"only a root"}},
		{[]string{"--package", "/Game//Arena"}, []string{"empty folder"}},
		{[]string{"--package", "/Game/Maps/"}, []string{"empty folder"}},
		{[]string{"--package", " /Game/Maps/Arena"}, []string{"white space"}},
		{[]string{"--container", ""}, []string{"no container name", "MyMod_P"}},
		{[]string{"--container", "Paks/"}, []string{"no container name"}},
		{[]string{"--container", ".utoc"}, []string{"no container name"}},
		{[]string{"--container", "MyMod_P "}, []string{"white space"}},
		{[]string{"--export", ""}, []string{"empty", exportForm}},
		{[]string{"--export", "Arena.Arena"}, []string{"does not start with '/'", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena"}, []string{"no object", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena."}, []string{"no object name", exportForm}},
		{[]string{"--export", "/Game/Maps/.Arena"}, []string{"empty folder", exportForm}},
		{[]string{"--export", "/Game.Arena"}, []string{"only a root", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena.Arena:"}, []string{"empty name", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena.Arena..Floor"}, []string{"empty name", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena.:Floor"}, []string{"empty name", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena.Arena/Floor"}, []string{"'/' after the object name", exportForm}},
		{[]string{"--export", "/Game/Maps/Arena:Arena"}, []string{"':' right after the package name", exportForm}},
		{[]string{"--export", "/Game/Ma:ps/Arena.Arena"}, []string{"has a ':'", exportForm}},
		{[]string{"--export", "/Script/Engine.Actor"}, []string{"use --script"}},
		{[]string{"--export", "/Game/A.B", "--engine", "4.25"}, []string{`engine "4.25"`, "4.27", "5.8"}},
		{[]string{"--export", "/Game/A.B", "--engine", ""}, []string{"engine", "4.26"}},
		{[]string{"--script", ""}, []string{"empty", "/Script/Engine.Actor"}},
		{[]string{"--script", "/Game/Props/BP_Crate.BP_Crate_C"}, []string{"not under /Script/", "--export"}},
		{[]string{"--script", "/Script"}, []string{"not under /Script/"}},
		{[]string{"--script", "/Script/"}, []string{"empty folder"}},
		{[]string{"--script", "/Script/Engine."}, []string{"no object name", "/Script/Engine.Actor"}},
		{[]string{"--script", "/Script/Engine:Actor"}, []string{"':' right after"}},
		// A bad value anywhere fails the whole command line, with no output.
		{[]string{"--name", "None", "--package", "nope"}, []string{`--package "nope"`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"hash"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "unrmod: ") || lines[1] != "see 'unrmod hash --help'" {
				t.Errorf("stderr is not a reason plus \"see 'unrmod hash --help'\":\n%s", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("reason lacks %q:\n%s", w, lines[0])
				}
			}
			if !utf8.ValidString(stderr) {
				t.Errorf("stderr is not valid UTF-8: %q", stderr)
			}
		})
	}
}

// TestHashHelp checks that the help teaches by example.
func TestHashHelp(t *testing.T) {
	for _, args := range [][]string{{"hash", "--help"}, {"help", "hash"}, {"hash", "--name", "x", "-h"}} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
		for _, want := range []string{
			"Usage: unrmod hash", "Examples:", "unrmod hash --export /Game/", "--engine 4.27",
			"--name S", "--package PATH", "--container NAME", "--export PATH", "--script PATH", "--json",
			"GlobalImportIndex", "PublicExportHash", "FPackageId", "FIoContainerId", "ScriptImport",
			"Backslashes", "UTF-16", "empty",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: help lacks %q", args, want)
			}
		}
	}
	// The example in the description is what the command prints.
	stdout, _, _ := runCLI(t, "hash", "--help")
	example, _, _ := runCLI(t, "hash", "--name", "ByteProperty", "--package", "/Script/CoreUObject")
	if !strings.Contains(stdout, "  $ unrmod hash --name ByteProperty --package /Script/CoreUObject\n"+indent(example, "  ")) {
		t.Errorf("the help's example output differs from:\n%s", example)
	}
	// Every example line runs.
	for _, ex := range hashCommand().examples {
		args := strings.Fields(ex)[1:]
		if _, stderr, code := runCLI(t, args...); code != 0 || stderr != "" {
			t.Errorf("example %q: exit %d, stderr:\n%s", ex, code, stderr)
		}
	}
	top, _, _ := runCLI(t, "help")
	if !strings.Contains(top, "unrmod hash --export") {
		t.Errorf("main help has no hash example:\n%s", top)
	}
}

// TestHashCorpusContainers checks --container against the container id
// stored in every real .utoc of the corpus, given as a file path: equal for
// every container but the global ones, which store all ones.
func TestHashCorpusContainers(t *testing.T) {
	dir := corpus.Dir(t)
	var tocs []string
	err := filepath.WalkDir(filepath.Join(dir, "iostore"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".utoc") {
			tocs = append(tocs, path)
		}
		return err
	})
	if err != nil || len(tocs) == 0 {
		t.Fatalf("no .utoc under %s/iostore: %v", dir, err)
	}
	for _, toc := range tocs {
		t.Run(filepath.Base(toc), func(t *testing.T) {
			info, stderr, code := runCLI(t, "info", "--json", toc)
			var doc struct {
				ContainerID string `json:"container_id"`
			}
			if code != 0 || json.Unmarshal([]byte(info), &doc) != nil || doc.ContainerID == "" {
				t.Fatalf("info: exit %d, stderr:\n%s", code, stderr)
			}
			out, stderr, code := runCLI(t, "hash", "--json", "--container", toc)
			var got []hashDoc
			if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got) != 1 {
				t.Fatalf("hash: exit %d, stderr:\n%s", code, stderr)
			}
			base := strings.TrimSuffix(filepath.Base(toc), ".utoc")
			if got[0].Input != base {
				t.Errorf("hashed %q, want the base name %q", got[0].Input, base)
			}
			if base == "global" {
				if doc.ContainerID != "0xffffffffffffffff" || !strings.Contains(stderr, "do not store this hash") {
					t.Errorf("global container stores %s; stderr:\n%s", doc.ContainerID, stderr)
				}
				return
			}
			if got[0].Value != doc.ContainerID {
				t.Errorf("hash --container %s = %s, the .utoc stores %s", base, got[0].Value, doc.ContainerID)
			}
		})
	}
}

// isHexValue reports whether s is 0x and 16 lowercase hex digits.
func isHexValue(s string) bool {
	if len(s) != 18 || s[:2] != "0x" {
		return false
	}
	for _, c := range []byte(s[2:]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// FuzzHashInputs feeds any text to every kind of value: hashing must never
// panic, and must print valid UTF-8 text and JSON with fixed-width hex
// values. What the export path parser accepts must split the input exactly.
func FuzzHashInputs(f *testing.F) {
	for _, s := range []string{
		"", "a", "none", "None", "ByteProperty", "/script/coreuobject", "/Script/CoreUObject",
		strings.Repeat("0123456789", 4), strings.Repeat("abcdefghij", 10),
		aphidPackage, aphidClass, aphidCDO, "/Script/Engine.BlueprintGeneratedClass",
		poolPackage + ".BP_Russian_pool_table_C", poolPackage + ".Default__BP_Russian_pool_table_C", cubePackage + ".SM_Cube",
		"CUE4ParseFixtures-Minimal-Zlib-Windows", "CUE4ParseFixtures-PatchBase_0_P", "Paks/MyMod_P_s1.ucas", "global",
		`\Game\Maps\Arena.Arena:PersistentLevel.Floor`, "/Game/Maps/Arena.o", "/Game/Pkg:Obj", "/Game/Pkg.Obj/Sub",
		"GrÖße", "名前", "Emoji😀", "Light_0", "Rocket_04", "\xff", "/Game/\xff.A", "/", ".", ":", "/.", "/A/.:",
	} {
		f.Add(s)
	}
	engines := []*zen.Engine{nil, &zen.Engine427, {Major: 5, Minor: 4}}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzbound.Check(t, time.Now(), len(s))
		for _, k := range hashKinds {
			for _, e := range engines {
				if k.kind != hashExport && e != nil {
					continue
				}
				h, err := hashValue(hashInput{kind: k.kind, text: s}, e)
				if err != nil {
					if !utf8.ValidString(err.Error()) {
						t.Fatalf("--%s %q: error is not valid UTF-8: %q", k.kind, s, err)
					}
					continue
				}
				if len(h.docs) == 0 || len(h.lines) < len(h.docs) {
					t.Fatalf("--%s %q: %d objects, %d lines", k.kind, s, len(h.docs), len(h.lines))
				}
				var b bytes.Buffer
				if err := writeHashLines(&b, h.lines); err != nil {
					t.Fatal(err)
				}
				if !utf8.Valid(b.Bytes()) || strings.Count(b.String(), "\n") != len(h.lines) {
					t.Fatalf("--%s %q: text output is not %d lines of UTF-8: %q", k.kind, s, len(h.lines), b.String())
				}
				b.Reset()
				if err := writeJSON(&b, h.docs); err != nil {
					t.Fatal(err)
				}
				if !utf8.Valid(b.Bytes()) || !json.Valid(b.Bytes()) {
					t.Fatalf("--%s %q: JSON output is not valid: %q", k.kind, s, b.String())
				}
				for _, n := range h.notes {
					if !utf8.ValidString(n) {
						t.Fatalf("--%s %q: note is not valid UTF-8: %q", k.kind, s, n)
					}
				}
				for _, d := range h.docs {
					if !isHexValue(d.Value) || d.PackageID != "" && !isHexValue(d.PackageID) {
						t.Fatalf("--%s %q: value %q, package id %q", k.kind, s, d.Value, d.PackageID)
					}
				}
			}
		}

		p, err := zen.ParseObjectPath(s)
		if err != nil {
			return
		}
		rest, ok := strings.CutPrefix(s, p.Package)
		if !ok || rest != "."+p.Object {
			t.Fatalf("zen.ParseObjectPath(%q) = %+v: not the input split at a '.'", s, p)
		}
		if strings.ContainsAny(p.Package, ".:") || strings.Contains(p.Object, "/") || p.Object == "" {
			t.Fatalf("zen.ParseObjectPath(%q) = %+v: separators in the wrong part", s, p)
		}
		if again, err := zen.ParseObjectPath(p.Package + "." + p.Object); err != nil || again != p {
			t.Fatalf("zen.ParseObjectPath(%q) = %+v, but its join gives %+v, %v", s, p, again, err)
		}
		rel := p.Relative()
		if len(rel) != len(p.Object) || strings.ContainsAny(rel, ".:") || strings.Contains(rel, "//") ||
			strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") {
			t.Fatalf("zen.ParseObjectPath(%q).Relative() = %q", s, rel)
		}
		if cityhash.PublicExportHash(rel) != cityhash.PublicExportHash(p.Object) ||
			cityhash.PackageImportIndex(s) != cityhash.PackageImportIndex(p.Package+"/"+rel) {
			t.Fatalf("zen.ParseObjectPath(%q): the parts hash differently from the path", s)
		}
		if err := zen.CheckPackageName(p.Package); err != nil {
			t.Fatalf("zen.ParseObjectPath(%q) accepted package %q: %v", s, p.Package, err)
		}
	})
}
