package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
)

// demoContainer427 is the demo UE 4.27 container of the examples.
const demoContainer427 = "../../examples/containers/UnrmodDemo427_P.utoc"

// TestPackCLI extracts the demo 4.27 container, packs the files again with
// unrmod pack and checks the output: it verifies, holds the same chunks
// and has its .pak; the dry run writes nothing.
func TestPackCLI(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "ex")
	if _, stderr, code := runCLI(t, "extract", demoContainer427, "-o", ex); code != 0 {
		t.Fatalf("extract: %s", stderr)
	}
	os.MkdirAll(filepath.Join(ex, "UnrmodDemo", "Config"), 0o755)
	os.WriteFile(filepath.Join(ex, "UnrmodDemo", "Config", "DefaultGame.ini"), []byte("[/Script/UnrmodDemo]\r\n"), 0o644)
	out := filepath.Join(dir, "mods", "z_Demo_P")

	stdout, stderr, code := runCLI(t, "pack", ex, "-o", out, "--engine", "4.27", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "would pack 3 packages") || !strings.Contains(stdout, "Config/DefaultGame.ini") {
		t.Fatalf("dry run: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Dir(out)); err == nil {
		t.Fatal("the dry run wrote the output folder")
	}

	stdout, stderr, code = runCLI(t, "pack", ex, "-o", out, "--engine", "4.27", "--json")
	if code != 0 {
		t.Fatalf("pack: exit %d\n%s", code, stderr)
	}
	var doc packDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Packages != 3 || doc.Chunks != 5 || doc.Loose != 1 || doc.TocVersion != 3 || doc.Pak != out+".pak" {
		t.Errorf("report %+v", doc)
	}
	if _, stderr, code := runCLI(t, "verify", out+".utoc"); code != 0 {
		t.Fatalf("verify: %s", stderr)
	}
	src, _ := iostore.Open(demoContainer427, nil)
	defer src.Close()
	got, err := iostore.Open(out+".utoc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	for _, ch := range src.Chunks() {
		if ch.Type == iostore.ChunkContainerHeader {
			continue
		}
		i, ok := got.Find(ch.ID)
		if !ok {
			t.Fatalf("chunk %v missing", ch.ID)
		}
		a, _ := src.ReadChunk(ch.Index)
		b, _ := got.ReadChunk(i)
		if !bytes.Equal(a, b) || got.Chunks()[i].Path != ch.Path {
			t.Errorf("chunk %v differs", ch.ID)
		}
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"pack", ex, "-o", out}, "give the game's engine"},
		{[]string{"pack", ex, "-o", out, "--engine", "4.27", "--compression", "brotli"}, "want zlib, lz4, none or oodle"},
		{[]string{"pack", ex, "-o", out, "--engine", "4.27", "--mount-point", "C:/Games/"}, "--mount-point"},
		{[]string{"pack", filepath.Join(dir, "nope"), "-o", out, "--engine", "4.27"}, "is not a folder"},
	} {
		_, stderr, code := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args[1:], code, stderr, tt.want)
		}
	}
}

// TestRewriteContainerCLI rewrites the demo container in both layouts.
func TestRewriteContainerCLI(t *testing.T) {
	dir := t.TempDir()
	for _, layout := range []string{"preserve", "compact"} {
		out := filepath.Join(dir, layout, "UnrmodDemo427_P")
		stdout, stderr, code := runCLI(t, "rewrite", demoContainer427, "-o", out, "--layout", layout)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", layout, code, stderr)
		}
		// The demo has no gaps: both layouts give its files back.
		if !strings.Contains(stdout, "byte-identical") || !tcSameContainer(t, demoContainer427, out+".utoc") {
			t.Errorf("%s: %s", layout, stdout)
		}
		if _, stderr, code := runCLI(t, "verify", out+".utoc"); code != 0 {
			t.Errorf("%s: verify: %s", layout, stderr)
		}
	}
}

// TestPakCLI shows a written companion pak and a pak mod of the corpus
// with info, ls and verify.
func TestPakCLI(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "ex")
	runCLI(t, "extract", demoContainer427, "-o", ex)
	os.MkdirAll(filepath.Join(ex, "UnrmodDemo", "Config"), 0o755)
	os.WriteFile(filepath.Join(ex, "UnrmodDemo", "Config", "DefaultGame.ini"), []byte("[/Script/UnrmodDemo]\n"), 0o644)
	out := filepath.Join(dir, "z_Demo_P")
	if _, stderr, code := runCLI(t, "pack", ex, "-o", out, "--engine", "4.27"); code != 0 {
		t.Fatal(stderr)
	}
	stdout, _, code := runCLI(t, "info", out+".pak")
	if code != 0 || !strings.Contains(stdout, "11 (Fnv64BugFix)") || !strings.Contains(stdout, "Files:            1 ") || !strings.Contains(stdout, "z_Demo_P.utoc") {
		t.Errorf("info: %s", stdout)
	}
	stdout, _, code = runCLI(t, "ls", out+".pak")
	if code != 0 || !strings.Contains(stdout, "UnrmodDemo/Config/DefaultGame.ini") {
		t.Errorf("ls: %s", stdout)
	}
	stdout, _, code = runCLI(t, "verify", out+".pak", out+".utoc")
	if code != 0 || !strings.Contains(stdout, "ok  "+out+".pak (pak version 11, 1 file read back)") {
		t.Errorf("verify: %s", stdout)
	}
	// A damaged pak is a problem, not a crash.
	data, _ := os.ReadFile(out + ".pak")
	data[len(data)-170] ^= 0xFF // in the footer's SHA-1 of the index
	os.WriteFile(out+".pak", data, 0o644)
	if stdout, _, code := runCLI(t, "verify", out+".pak"); code != 1 || strings.Contains(stdout, "ok  ") {
		t.Errorf("verify of a damaged pak: exit %d\n%s", code, stdout)
	}
}

// TestPackLoadOrderWarningCLI packs the demo's loose 4.27 packages: without
// --base, pack warns once on stderr that the store entries have load order
// 0 and how to give the game's container, and the JSON report lists the
// warning; with --base there is no warning.
func TestPackLoadOrderWarningCLI(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	for rel, src := range map[string]string{
		"UnrmodDemo/Content/Data/DT_DemoItems.uasset":   "../../examples/packages/zen/DT_DemoItems.uasset",
		"UnrmodDemo/Content/Items/BP_DemoPickup.uasset": "../../examples/packages/zen/BP_DemoPickup.uasset",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(loose, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		args []string
		warn bool
	}{
		{"without base", []string{"--engine", "4.27"}, true},
		{"with base", []string{"--base", demoContainer427}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name, "z_Demo_P")
			stdout, stderr, code := runCLI(t, append([]string{"pack", loose, "-o", out, "--json"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var doc packDoc
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			n := strings.Count(stderr, "unrmod: warning: ")
			if !tt.warn {
				if n != 0 || len(doc.Warnings) != 0 {
					t.Errorf("warnings %q\nstderr: %s", doc.Warnings, stderr)
				}
				return
			}
			if n != 1 || !strings.Contains(stderr, "load order 0") || !strings.Contains(stderr, "--base") ||
				len(doc.Warnings) != 1 || !strings.Contains(stderr, doc.Warnings[0]) {
				t.Errorf("want one load-order warning naming --base on stderr and in the report %q\nstderr: %s", doc.Warnings, stderr)
			}
		})
	}
}

// TestPackCookedCLI extracts a real Grounded pak mod (cooked UE 4.27
// DataTables) and packs its cooked assets into a mod container against
// Grounded's container header: every asset becomes a package, the .uexp
// files are not loose files of the .pak, the container verifies.
func TestPackCookedCLI(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join(dir, "ex")
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, "other/grounded/500-CreativeUnlock_P.pak"), "-o", ex); code != 0 {
		t.Fatalf("extract: %s", stderr)
	}
	base := corpus.Path(t, "other/ue4_27_global_chunks/ContainerHeader_1.bin")
	out := filepath.Join(dir, "mods", "z_CreativeUnlock_P")
	stdout, stderr, code := runCLI(t, "pack", ex, "-o", out, "--engine", "4.27", "--base", base, "--dry-run")
	if code != 0 || !strings.Contains(stdout, "would pack 11 packages, 11 chunks") || !strings.Contains(stdout, "cooked export data") {
		t.Fatalf("dry run: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "pack", ex, "-o", out, "--engine", "4.27", "--base", base, "--json", "-j", "2")
	if code != 0 {
		t.Fatalf("pack: exit %d\n%s", code, stderr)
	}
	var doc packDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Packages != 11 || doc.Chunks != 12 || doc.Loose != 0 || len(doc.Warnings) != 0 {
		t.Errorf("report %+v", doc)
	}
	if _, stderr, code := runCLI(t, "verify", out+".utoc"); code != 0 {
		t.Fatalf("verify: %s", stderr)
	}
	if _, stderr, code := runCLI(t, "verify", out+".pak"); code != 0 {
		t.Fatalf("verify the .pak: %s", stderr)
	}
}

// TestCountProgressBar checks the conversion's bar, which counts assets.
func TestCountProgressBar(t *testing.T) {
	var b bytes.Buffer
	if p := newCountProgress(&b, "convert", 4); p != nil {
		t.Error("a bar on a buffer, which is not a terminal")
	}
	p := drawCountProgress(&b, "convert", 4)
	p.set(4, 4)
	p.finish()
	if out := b.String(); !strings.Contains(out, "convert") || !strings.Contains(out, "4 / 4") || !strings.Contains(out, "100 %") {
		t.Errorf("bar output %q", out)
	}
}
