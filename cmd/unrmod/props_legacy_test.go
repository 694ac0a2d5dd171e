package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// legacyPropsJSON runs props --json on file's objects and returns each
// export's properties as "Name[index] (Type)" → value.
func legacyPropsJSON(t *testing.T, file string, objects ...string) (*propsDoc, []map[string]string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, append([]string{"props", file, "--json"}, objects...)...)
	var doc propsDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
		t.Fatalf("props --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	var out []map[string]string
	for _, e := range doc.Exports {
		m := map[string]string{}
		for _, p := range e.Properties {
			m[p.Name+"["+strconv.Itoa(p.Index)+"] ("+p.Type+")"] = p.Value
		}
		out = append(out, m)
	}
	return &doc, out
}

// TestPropsLegacySetProperty shows a real map's LevelInfo and a real
// texture, changes them with a set-property patch, and shows the new values
// where the patch put them: text and JSON.
func TestPropsLegacySetProperty(t *testing.T) {
	face := corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr")
	crypt := corpus.Path(t, "legacy/ut99_stock/Crypt.utx")
	before := map[string]map[string]string{
		face: {
			"Title[0] (StrProperty)":                  `"Facing Worlds"`,
			"RecommendedEnemies[0] (IntProperty)":     "2",
			"bHighDetailMode[0] (BoolProperty)":       "False",
			"Brightness[0] (FloatProperty)":           "1.5",
			"Song[0] (ObjectProperty)":                "Music'Foregone.Foregone'",
			"AIProfile[7] (IntProperty)":              "201077017",
			"Region[0] (StructProperty(PointRegion))": "(Zone=LevelInfo'CTF-Face.LevelInfo0',iLeaf=-1,ZoneNumber=0)",
			"Rotation[0] (StructProperty(Rotator))":   "(Pitch=0,Yaw=16384,Roll=0)",
			"DefaultGameType[0] (ObjectProperty)":     "Class'Botpack.CTFGame'",
		},
		crypt: {
			"bMasked[0] (BoolProperty)":          "True",
			"UClamp[0] (IntProperty)":            "64",
			"Palette[0] (ObjectProperty)":        "Palette'Crypt.Palette3'",
			"MipZero[0] (StructProperty(Color))": "(R=15,G=11,B=8,A=0)",
			"InternalTime[1] (IntProperty)":      "1090022450",
		},
	}
	objects := map[string]string{face: "LevelInfo0", crypt: "Texture'Mask.C_chnm2'"}
	for file, want := range before {
		_, got := legacyPropsJSON(t, file, objects[file])
		for k, v := range want {
			if got[0][k] != v {
				t.Errorf("%s %s = %q, want %q", filepath.Base(file), k, got[0][k], v)
			}
		}
	}

	dir := t.TempDir()
	outFace, outCrypt := filepath.Join(dir, "CTF-Face.unr"), filepath.Join(dir, "Crypt.utx")
	text := "unrmod: 1\ntargets:\n" +
		"  - file: " + strconv.Quote(face) + "\n    output: " + strconv.Quote(outFace) + "\n    ops:\n" +
		"      - set-property: {object: LevelInfo0, property: Title, value: Facing Worlds II}\n" +
		"      - set-property: {object: LevelInfo0, property: RecommendedEnemies, value: 4}\n" +
		"      - set-property: {object: LevelInfo0, property: bHighDetailMode, value: true}\n" +
		"      - set-property: {object: LevelInfo0, property: Brightness, value: 2.25}\n" +
		"      - set-property: {object: LevelInfo0, property: Song, value: None}\n" +
		"      - set-property: {object: LevelInfo0, property: AIProfile, index: 7, value: 5}\n" +
		"  - file: " + strconv.Quote(crypt) + "\n    output: " + strconv.Quote(outCrypt) + "\n    ops:\n" +
		"      - set-property: {object: Mask.C_chnm2, property: bMasked, value: false}\n" +
		"      - set-property: {object: Mask.C_chnm2, property: UClamp, value: 32}\n" +
		"      - set-property: {object: Mask.C_chnm2, property: Palette, value: Palette1}\n" +
		"      - set-property: {object: Mask.C_chnm2, property: Diffuse, type: float, value: 0.75}\n"
	patchFile := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(patchFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := runCLI(t, "apply", patchFile); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	after := map[string]map[string]string{
		outFace: {
			"Title[0] (StrProperty)":                `"Facing Worlds II"`,
			"RecommendedEnemies[0] (IntProperty)":   "4",
			"bHighDetailMode[0] (BoolProperty)":     "True",
			"Brightness[0] (FloatProperty)":         "2.25",
			"Song[0] (ObjectProperty)":              "None",
			"AIProfile[7] (IntProperty)":            "5",
			"AIProfile[6] (IntProperty)":            "791",
			"Rotation[0] (StructProperty(Rotator))": "(Pitch=0,Yaw=16384,Roll=0)",
		},
		outCrypt: {
			"bMasked[0] (BoolProperty)":          "False",
			"UClamp[0] (IntProperty)":            "32",
			"Palette[0] (ObjectProperty)":        "Palette'Crypt.Palette1'",
			"Diffuse[0] (FloatProperty)":         "0.75",
			"MipZero[0] (StructProperty(Color))": "(R=15,G=11,B=8,A=0)",
		},
	}
	objects[outFace], objects[outCrypt] = objects[face], objects[crypt]
	for file, want := range after {
		doc, got := legacyPropsJSON(t, file, objects[file])
		for k, v := range want {
			if got[0][k] != v {
				t.Errorf("%s %s = %q, want %q", filepath.Base(file), k, got[0][k], v)
			}
		}
		if file == outCrypt && doc.Exports[0].NativeBytes != 21953 {
			t.Errorf("texture native data %d bytes after the patch, want 21953", doc.Exports[0].NativeBytes)
		}
	}
	// Text, with the struct's members in JSON.
	stdout, _, code := runCLI(t, "props", outFace, "LevelInfo0")
	for _, w := range []string{
		"export 0 CTF-Face.LevelInfo0 (class LevelInfo)\n",
		`  Title (StrProperty) = "Facing Worlds II"` + "\n",
		"  AIProfile[7] (IntProperty) = 5\n",
		"  Region (StructProperty(PointRegion)) = (Zone=LevelInfo'CTF-Face.LevelInfo0',iLeaf=-1,ZoneNumber=0)\n",
	} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("props text lacks %q:\n%s", w, stdout)
		}
	}
	doc, _ := legacyPropsJSON(t, outFace, "LevelInfo0")
	for _, p := range doc.Exports[0].Properties {
		if p.Name == "Location" && (p.Struct != "Vector" || len(p.Fields) != 3 || p.Fields[2].Name != "Z" || p.Fields[2].Value != "-32767") {
			t.Errorf("Location %+v", p)
		}
	}
}

// TestPropsClassDefaults shows a class's default properties, as text and
// JSON, and dump --props includes them.
func TestPropsClassDefaults(t *testing.T) {
	engine := corpus.Path(t, "legacy/ut99_stock/Engine.u")
	stdout, stderr, code := runCLI(t, "props", engine, "Class'Engine.LevelInfo'")
	for _, w := range []string{
		"Engine.LevelInfo (class Class): default properties\n",
		`  Title (StrProperty) = "Untitled"` + "\n",
		"  DefaultTexture (ObjectProperty) = Texture'Engine.DefaultTexture'\n",
	} {
		if code != 0 || !strings.Contains(stdout, w) {
			t.Errorf("props: exit %d, lacks %q\n%s%s", code, w, stdout, stderr)
		}
	}
	doc, got := legacyPropsJSON(t, engine, "Engine.Pawn")
	if !doc.Exports[0].Defaults || got[0]["GroundSpeed[0] (FloatProperty)"] != "320" {
		t.Errorf("Pawn: defaults %v, GroundSpeed %q", doc.Exports[0].Defaults, got[0]["GroundSpeed[0] (FloatProperty)"])
	}
	ue2 := corpus.Path(t, "legacy/ue2/TestUC2.u")
	doc, got = legacyPropsJSON(t, ue2, "DefaultProperties")
	if got[0]["Scale[0] (StructProperty(Scale))"] != "(Scale=(X=1,Y=2,Z=3),SheerRate=5,SheerAxis=6)" {
		t.Errorf("UE2 Scale %q", got[0]["Scale[0] (StructProperty(Scale))"])
	}
	for _, p := range doc.Exports[0].Properties {
		if p.Name == "Struct" && (p.Struct != "sStruct" || len(p.Fields) != 13 || p.Fields[12].Name != "Struct2" || p.Fields[12].Fields[0].Value != "1") {
			t.Errorf("tagged struct %+v", p)
		}
	}
	stdout, _, code = runCLI(t, "dump", ue2, "--props")
	if code != 0 || !strings.Contains(stdout, "TestUC2.DefaultProperties (class Class): default properties\n") {
		t.Errorf("dump --props lacks the class defaults:\n%.3000s", stdout)
	}
}

// TestDumpClass lists the exports of a class and its subclasses.
func TestDumpClass(t *testing.T) {
	for _, c := range []struct {
		file, class string
		want        []string
		count       int
	}{
		{"legacy/ut99_stock/BluffFX.utx", "Texture", []string{"FireTexture  BluffFX.DevGarbage.Lball"}, 1},
		{"legacy/ut99_stock/BluffFX.utx", "palette", []string{"Palette  BluffFX.DevGarbage.Lball"}, 1},
		{"legacy/ut99_stock/CTF-Face.unr", "Texture", []string{"CTF-Face.Screenshot"}, 1},
		{"legacy/ut99_stock/CTF-Face.unr", "ZoneInfo", []string{"LevelInfo    CTF-Face.LevelInfo0", "ZoneInfo"}, -1},
		{"legacy/ut99_stock/Entry.unr", "Actor", []string{"LevelInfo", "Light", "PlayerStart", "Brush"}, -1},
		{"legacy/ut99_stock/Entry.unr", "Sound", nil, 0},
	} {
		stdout, stderr, code := runCLI(t, "dump", corpus.Path(t, c.file), "--class", c.class)
		if code != 0 || !strings.HasPrefix(stdout, "Exports of class "+c.class+" (and subclasses): ") || strings.Contains(stdout, "Names:") {
			t.Errorf("%s --class %s: exit %d\n%s%s", c.file, c.class, code, stdout, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s --class %s lacks %q:\n%s", c.file, c.class, w, stdout)
			}
		}
		if c.count >= 0 && !strings.HasPrefix(stdout, "Exports of class "+c.class+" (and subclasses): "+strconv.Itoa(c.count)+"\n") {
			t.Errorf("%s --class %s: want %d exports:\n%s", c.file, c.class, c.count, stdout)
		}
	}
	// With --props and --json: only the class's exports.
	stdout, _, code := runCLI(t, "dump", corpus.Path(t, "legacy/ut99_stock/BluffFX.utx"), "--class", "FractalTexture", "--props", "--json")
	var doc dumpDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || doc.Class != "FractalTexture" || doc.Exports == nil ||
		len(*doc.Exports) != 1 || doc.Properties == nil || len(doc.Properties.Exports) != 1 || doc.Properties.Exports[0].Class != "FireTexture" {
		t.Errorf("dump --class --props --json: exit %d, %v\n%s", code, err, stdout)
	}
	_, stderr, code := runCLI(t, "dump", "../../examples/packages/zen/BP_DemoPickup.uasset", "--class", "Texture")
	if code != 2 || !strings.Contains(stderr, "--class selects exports of a legacy package") {
		t.Errorf("dump --class on a zen package: exit %d\n%s", code, stderr)
	}
}

// TestExportDataClassPath: export-data takes Class'Path' to pick one of two
// objects that share a path.
func TestExportDataClassPath(t *testing.T) {
	bluff := corpus.Path(t, "legacy/ut99_stock/BluffFX.utx")
	for _, c := range []struct {
		args  []string
		code  int
		size  int
		words string
	}{
		{[]string{"FireTexture'DevGarbage.Lball'"}, 0, 184, "(class FireTexture)"},
		{[]string{"Palette'Lball'"}, 0, 1027, "(class Palette)"},
		{[]string{"DevGarbage.Lball"}, 1, 0, "ambiguous"},
		{[]string{"Palette'Lball'", "--class", "palette"}, 0, 1027, "(class Palette)"},
		{[]string{"Palette'Lball'", "--class", "FireTexture"}, 2, 0, "names class Palette, --class says FireTexture"},
		{[]string{"Sound'Lball'"}, 1, 0, `no export "Lball" of class Sound`},
	} {
		stdout, stderr, code := runCLI(t, append([]string{"export-data", bluff, "-o", "-"}, c.args...)...)
		if code != c.code || len(stdout) != c.size || !strings.Contains(stderr, c.words) {
			t.Errorf("%v: exit %d, %d bytes\n%s", c.args, code, len(stdout), stderr)
		}
	}
}
