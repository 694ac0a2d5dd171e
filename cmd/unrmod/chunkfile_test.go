package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore/zen"
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
	for _, want := range []string{"Version:           5 SoftPackageReferencesOffset (UE 5.6–5.8)\n", "Container id:      0xdc74c2edae5549a3\n", "Packages:          97 (16-byte store entries)\n", "Soft references:"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("info: exit %d, lacks %q:\n%s", code, want, stdout)
		}
	}
	if stdout, _, code := runCLI(t, "verify", files[0]); code != 0 {
		t.Errorf("verify: exit %d\n%s", code, stdout)
	}
}

// TestZenPackageFiles checks that zen packages given as files are named
// as such, with what unrmod can do with them instead.
func TestZenPackageFiles(t *testing.T) {
	for _, rel := range []string{"other/grounded/zen_ue4_27/T_Emissive.uasset", "other/ue5_cooked_pairs/UE5.6_SM_Cube.uzenasset"} {
		file := corpus.Path(t, rel)
		kind := "UE 4.26/4.27 zen package"
		if strings.HasSuffix(rel, ".uzenasset") {
			kind = "UE 5 zen package"
		}
		for _, cmd := range []string{"info", "dump", "verify"} {
			stdout, stderr, code := runCLI(t, cmd, file)
			if code != 1 || !strings.Contains(stdout+stderr, kind) || !strings.Contains(stdout+stderr, "does not decode zen packages yet") {
				t.Errorf("%s %s: exit %d\n%s%s", cmd, rel, code, stdout, stderr)
			}
		}
	}
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
	var doc lsDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Chunks) != 112 {
		t.Errorf("dump --json: exit %d, %v", code, err)
	}
	if _, stderr, code := runCLI(t, "dump", "--names", file); code != 2 || !strings.Contains(stderr, "IoStore container") {
		t.Errorf("dump --names: exit %d, %s", code, stderr)
	}
}
