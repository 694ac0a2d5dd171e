package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/report"
)

// TestContainerHeaderFiles runs info, dump and verify on the real
// container-header chunks of the corpus, saved as files.
func TestContainerHeaderFiles(t *testing.T) {
	tests := []struct {
		rel      string
		packages int
		info     []string
	}{
		{"other/ue4_27_global_chunks/ContainerHeader_1.bin", 52583, []string{
			"Version:           none (the UE 4.25–4.27 layout, which has no version field)\n",
			"Container id:      0x9403ca6a2f5a5899\n",
			"Packages:          52583 (32-byte store entries)\n",
			"Layout:            canonical: unrmod re-encodes it byte for byte from the model\n",
		}},
		{"other/ue5_container_headers/UE5.0_ContainerHeader_1.bin", 22559, []string{
			"Version:           1 LocalizedPackages (UE 5.0)\n",
			"Packages:          22559 (24-byte store entries)\n",
			"Shader map hashes: 2126 of 20 bytes\n",
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.rel), func(t *testing.T) {
			file := corpus.Path(t, tt.rel)
			stdout, stderr, code := runCLI(t, "info", file)
			if code != 0 || stderr != "" {
				t.Fatalf("info: exit %d, stderr %s", code, stderr)
			}
			for _, want := range tt.info {
				if !strings.Contains(stdout, want) {
					t.Errorf("info lacks %q:\n%s", want, stdout)
				}
			}
			stdout, _, code = runCLI(t, "info", "--json", file)
			var info headerInfoDoc
			if err := json.Unmarshal([]byte(stdout), &info); err != nil || code != 0 || info.Kind != "container-header" || info.Packages != tt.packages {
				t.Errorf("info --json: exit %d, %v\n%s", code, err, stdout)
			}

			stdout, _, code = runCLI(t, "dump", file)
			if code != 0 || strings.Count(stdout, "\n") < tt.packages+4 || !strings.Contains(stdout, "INDEX  PACKAGE ID") {
				t.Errorf("dump: exit %d, %d lines", code, strings.Count(stdout, "\n"))
			}
			stdout, _, code = runCLI(t, "dump", "--json", file)
			var dump headerDumpDoc
			if err := json.Unmarshal([]byte(stdout), &dump); err != nil || code != 0 || len(dump.Packages) != tt.packages {
				t.Fatalf("dump --json: exit %d, %v", code, err)
			}
			if id := dump.Packages[0].PackageID; len(id) != 18 || !strings.HasPrefix(id, "0x") {
				t.Errorf("package id %q is not fixed-width hex", id)
			}

			stdout, _, code = runCLI(t, "verify", file)
			if code != 0 || !strings.HasPrefix(stdout, "ok  "+file+" (container header") {
				t.Errorf("verify: exit %d\n%s", code, stdout)
			}
		})
	}
}

// TestContainerHeaderExtracted extracts the container header of a real
// container and reads the file back, the way a modder inspects one.
func TestContainerHeaderExtracted(t *testing.T) {
	out := t.TempDir()
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, ctZlib), "-o", out, "--filter", "chunks/ContainerHeader/*"); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "chunks", "ContainerHeader", "*.bin"))
	if len(files) != 1 {
		t.Fatalf("extracted %v", files)
	}
	stdout, _, code := runCLI(t, "info", files[0])
	for _, want := range []string{"Version:           5 SoftPackageReferencesOffset (UE 5.6–6.0)\n", "Container id:      0xdc74c2edae5549a3\n", "Packages:          97 (16-byte store entries)\n", "Soft references:"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("info: exit %d, lacks %q:\n%s", code, want, stdout)
		}
	}
	if stdout, _, code := runCLI(t, "verify", files[0]); code != 0 {
		t.Errorf("verify: exit %d\n%s", code, stdout)
	}
}

// TestZenPackageFiles runs info, dump, verify and rewrite on the zen
// packages of the corpus given as files: Grounded 4.27 and UE 5.4/5.6.
func TestZenPackageFiles(t *testing.T) {
	for _, tc := range []struct {
		rel, pkg, layout string
		exports          int
	}{
		{"other/grounded/zen_ue4_27/T_Emissive.uasset", "/Engine/Engine_MI_Shaders/T_Emissive", "UE 4.26–4.27", 1},
		{"other/grounded/zen_ue4_27/BP_SpicyChoppingDamage.uasset", "/Game/Blueprints/Attacks/DamageTypes/BP_SpicyChoppingDamage", "UE 4.26–4.27", 2},
		{"other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uzenasset", "/Game/Billiards/Blueprints/BP_Table_Lamp", "UE 5.4–5.5", 9},
		{"other/ue5_cooked_pairs/UE5.6_SM_Cube.uzenasset", "/Game/LevelPrototyping/Meshes/SM_Cube", "UE 5.6+", 3},
	} {
		file := corpus.Path(t, tc.rel)
		stdout, stderr, code := runCLI(t, "info", file)
		if code != 0 || !strings.Contains(stdout, "Package:           "+tc.pkg+"\n") || !strings.Contains(stdout, "zen package ("+tc.layout+")") ||
			!strings.Contains(stdout, "canonical") {
			t.Errorf("info %s: exit %d\n%s%s", tc.rel, code, stdout, stderr)
		}
		var info zenInfoDoc
		stdout, _, code = runCLI(t, "info", "--json", file)
		if err := json.Unmarshal([]byte(stdout), &info); err != nil || code != 0 || info.Exports != tc.exports || info.PackageID != zen.PackageIDFromName(tc.pkg).String() {
			t.Errorf("info --json %s: %v %+v", tc.rel, err, info)
		}
		var dump zenDumpDoc
		stdout, _, code = runCLI(t, "dump", "--json", file)
		if err := json.Unmarshal([]byte(stdout), &dump); err != nil || code != 0 || dump.Exports == nil || len(*dump.Exports) != tc.exports ||
			!strings.HasPrefix((*dump.Exports)[0].Path, tc.pkg+".") {
			t.Errorf("dump --json %s: %v", tc.rel, err)
		}
		stdout, _, code = runCLI(t, "dump", "--names", file)
		if code != 0 || !strings.Contains(stdout, tc.pkg) || strings.Contains(stdout, "Exports:") {
			t.Errorf("dump --names %s: exit %d\n%s", tc.rel, code, stdout)
		}
		stdout, _, code = runCLI(t, "verify", file)
		if code != 0 || !strings.HasPrefix(stdout, "ok  "+file+" (zen package "+tc.pkg) {
			t.Errorf("verify %s: exit %d\n%s", tc.rel, code, stdout)
		}
		out := filepath.Join(t.TempDir(), filepath.Base(file))
		stdout, _, code = runCLI(t, "rewrite", file, "-o", out)
		if got, err := os.ReadFile(out); err != nil || code != 0 || !strings.HasSuffix(stdout, "byte-identical to the input\n") ||
			!bytes.Equal(got, mustRead(t, file)) {
			t.Errorf("rewrite %s: exit %d, %v\n%s", tc.rel, code, err, stdout)
		}
	}
}

// TestZenPackageInContainer reads packages inside a corpus container with
// --package, by package name and by path, with script imports named from
// the global container one folder up.
func TestZenPackageInContainer(t *testing.T) {
	c := corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc")
	for _, name := range []string{"/Game/Fixtures/Blueprints/BP_ComponentsChild", "CUE4ParseFixtures/Content/Fixtures/Blueprints/BP_ComponentsChild.uasset",
		`cue4parsefixtures\content\fixtures\blueprints\bp_componentschild`} {
		stdout, stderr, code := runCLI(t, "dump", c, "--package", name)
		for _, want := range []string{
			"/Script/Engine.BlueprintGeneratedClass",                           // a script import, named from global.utoc
			"/Game/Fixtures/Blueprints/BP_Components.Default__BP_Components_C", // a package import, from the other package
			"BlueprintGeneratedClass      /Game/Fixtures/Blueprints/BP_ComponentsChild.BP_ComponentsChild_C",
		} {
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("dump --package %s: exit %d, lacks %q\n%s%s", name, code, want, stdout, stderr)
			}
		}
	}
	stdout, _, code := runCLI(t, "verify", c, "--package", "/Game/Fixtures/DataTables/DT_AllProperties")
	if code != 0 || !strings.Contains(stdout, "ok  "+c+":CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset (zen package") {
		t.Errorf("verify --package: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "info", c, "--package", "/Game/Fixtures/DataTables/DT_AllProperties")
	if code != 0 || !strings.Contains(stdout, "Versioning:        zen 3, UE4 522, UE5 1018") {
		t.Errorf("info --package: exit %d\n%s", code, stdout)
	}
	_, stderr, code := runCLI(t, "dump", c, "--package", "/Game/Fixtures/DataTables/DT_AllPropertie")
	if code != 1 || !strings.Contains(stderr, "no package") || !strings.Contains(stderr, "close matches: CUE4ParseFixtures/Content/Fixtures/DataTables/DT_AllProperties.uasset") {
		t.Errorf("unknown package: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI(t, "dump", corpus.Path(t, "other/grounded/zen_ue4_27/T_Emissive.uasset"), "--package", "/Game/X")
	if code != 2 || !strings.Contains(stderr, "--package names a package inside an IoStore container") {
		t.Errorf("--package on a file: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI(t, "info", corpus.Path(t, "other/grounded/zen_ue4_27/T_Emissive.uasset"), "--engine", "6.1")
	if code != 2 || !strings.Contains(stderr, "--engine") {
		t.Errorf("--engine 6.1: exit %d\n%s", code, stderr)
	}
}

// mustRead returns the contents of file.
func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestContainerHeaderFileProblems writes container headers made by the
// project's encoder (no corpus needed) and checks verify and dump on them.
func TestContainerHeaderFileProblems(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, h *zen.ContainerHeader) string {
		data, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v := zen.HeaderNoExportInfo
	good := write("good.bin", &zen.ContainerHeader{Version: v, ContainerID: 7, Packages: []zen.StoreEntry{
		{PackageID: 1, ImportedPackages: []zen.PackageID{2}}, {PackageID: 2},
	}})
	bad := write("bad.bin", &zen.ContainerHeader{Version: v, ContainerID: 7, Packages: []zen.StoreEntry{
		{PackageID: 1, ImportedPackages: []zen.PackageID{1}}, {PackageID: 2}, {PackageID: 1},
	}})
	if stdout, _, code := runCLI(t, "verify", good); code != 0 || !strings.Contains(stdout, "container header 3 NoExportInfo (UE 5.3–5.4)") {
		t.Errorf("verify good: exit %d\n%s", code, stdout)
	}
	stdout, _, code := runCLI(t, "verify", bad)
	if code != 1 || !strings.Contains(stdout, "store entry 0 (package 0x0000000000000001): the package imports itself") ||
		!strings.Contains(stdout, "store entry 2 (package 0x0000000000000001): the package is also store entry 0") {
		t.Errorf("verify bad: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "dump", good)
	if code != 0 || !strings.Contains(stdout, "INDEX  PACKAGE ID          IMPORTS  SHADER MAPS\n") {
		t.Errorf("dump: exit %d\n%s", code, stdout)
	}
	if _, stderr, code := runCLI(t, "dump", "--exports", good); code != 2 || !strings.Contains(stderr, "legacy package") {
		t.Errorf("dump --exports: exit %d, %s", code, stderr)
	}
}

// TestDumpContainer checks that dump lists a container's chunks as
// 'ls --long' does, in text and JSON.
func TestDumpContainer(t *testing.T) {
	file := corpus.Path(t, ctZlib)
	dump, _, code := runCLI(t, "dump", file)
	ls, _, _ := runCLI(t, "ls", "--long", file)
	if code != 0 || dump != ls || strings.Count(dump, "\n") != 113 {
		t.Errorf("dump: exit %d, %d lines, same as ls --long: %v", code, strings.Count(dump, "\n"), dump == ls)
	}
	stdout, _, code := runCLI(t, "dump", "--json", file)
	var doc report.ContainerList
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Chunks) != 112 {
		t.Errorf("dump --json: exit %d, %v", code, err)
	}
	if _, stderr, code := runCLI(t, "dump", "--names", file); code != 2 || !strings.Contains(stderr, "IoStore container") {
		t.Errorf("dump --names: exit %d, %s", code, stderr)
	}
}
