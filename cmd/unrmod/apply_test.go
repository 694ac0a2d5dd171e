package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// applySetup writes the demo map and a patch (with Windows line endings and
// separators, as a modder on Windows writes it) into a temporary directory.
func applySetup(t *testing.T, ops string) (dir, patchPath, input string) {
	t.Helper()
	dir = t.TempDir()
	data, err := fixture.DemoMap(reader.Version{File: 69})
	if err != nil {
		t.Fatal(err)
	}
	input = filepath.Join(dir, "maps", "UnrmodDemoMap.unr")
	if err := os.MkdirAll(filepath.Dir(input), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, data, 0o644); err != nil {
		t.Fatal(err)
	}
	text := "unrmod: 1\ntargets:\n  - file: maps\\UnrmodDemoMap.unr\n    ops:\n" + ops
	patchPath = filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(patchPath, []byte(strings.ReplaceAll(text, "\n", "\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, patchPath, input
}

func TestApplyCommand(t *testing.T) {
	const ops = "      - package-flags: {set: [ServerSideOnly], clear: [AllowDownload]}\n" +
		"      - set-property: {object: LevelInfo0, property: Title, value: \"Patched Arena\"}\n"
	dir, p, input := applySetup(t, ops)
	orig, _ := os.ReadFile(input)
	out := filepath.Join(dir, "patched", "UnrmodDemoMap.unr")

	// --dry-run: the plan, nothing written.
	stdout, stderr, code := runCLI(t, "apply", p, "--dry-run")
	if code != 0 || stderr != "" {
		t.Fatalf("dry run: exit %d, stderr %s", code, stderr)
	}
	for _, w := range []string{"package-flags: header flags: AllowDownload → ServerSideOnly", `Title: "Demo Arena" → "Patched Arena"`,
		"data: UnrmodDemoMap.LevelInfo0:", "guid: ", "would write (dry run)"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("plan lacks %q:\n%s", w, stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("dry run wrote the output")
	}

	// A real run writes the default output, verified, and leaves the input.
	if stdout, stderr, code = runCLI(t, "apply", p); code != 0 || stderr != "" || !strings.Contains(stdout, "wrote: ") {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	q, err := reader.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if probs := q.Verify(); len(probs) != 0 {
		t.Errorf("output does not verify: %v", probs)
	}
	if q.Header.Flags&reader.PkgAllowDownload != 0 || q.Header.Flags&reader.PkgServerSideOnly == 0 {
		t.Errorf("flags %s", q.Header.Flags)
	}
	if now, _ := os.ReadFile(input); !bytes.Equal(now, orig) {
		t.Error("the input was modified")
	}
	first, _ := os.ReadFile(out)

	// Again, as JSON: the same bytes; nothing new to do on the output.
	stdout, _, code = runCLI(t, "apply", "--json", p)
	var res struct {
		Targets []struct {
			Output  string `json:"output"`
			Changed bool   `json:"changed"`
			Changes []struct {
				Op string `json:"op"`
			} `json:"changes"`
		} `json:"targets"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Targets) != 1 || len(res.Targets[0].Changes) != 2 {
		t.Fatalf("--json: exit %d\n%s", code, stdout)
	}
	if second, _ := os.ReadFile(out); !bytes.Equal(first, second) {
		t.Error("applying the same patch twice gave different files")
	}

	// --in-place keeps a backup of the original.
	if stdout, stderr, code = runCLI(t, "apply", p, "--in-place"); code != 0 {
		t.Fatalf("--in-place: exit %d\n%s%s", code, stdout, stderr)
	}
	if bak, _ := os.ReadFile(input + ".bak"); !bytes.Equal(bak, orig) {
		t.Error("--in-place did not keep the original as .bak")
	}
	if now, _ := os.ReadFile(input); !bytes.Equal(now, first) {
		t.Error("--in-place result differs from the normal output")
	}
	// Applied to its own output, the patch changes nothing.
	if stdout, _, code = runCLI(t, "apply", p, "--in-place"); code != 0 || !strings.Contains(stdout, "already") {
		t.Errorf("second --in-place: exit %d\n%s", code, stdout)
	}
}

func TestApplyErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		ops  string
		args []string
		code int
		want string
	}{
		{"unknown object", "      - object-flags: {object: NoSuchLight, set: [Public]}\n", nil, 1, `no export "NoSuchLight"`},
		{"syntax", "      - rename: {from: a\n", nil, 1, "not valid YAML: line "},
		{"both outputs", "      - add-name: {name: X}\n", []string{"--in-place", "--output-dir", "x"}, 2, "exclude each other"},
		{"no patch", "", []string{"extra.yaml"}, 2, "unrmod apply --help"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, p, _ := applySetup(t, c.ops)
			stdout, stderr, code := runCLI(t, append([]string{"apply", p}, c.args...)...)
			if code != c.code || stdout != "" || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, c.code, stdout, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "patched")); err == nil {
				t.Error("output written despite the error")
			}
		})
	}
}

// A real texture package damaged in the test (one texture's Mips[1] SeekPos
// 4 bytes off): apply names the input's problem instead of blaming the
// patch, goes on when the patch does not change the damaged texture (and
// warns that the output keeps the problem), and stops when it does.
func TestApplyDamagedInput(t *testing.T) {
	orig := corpus.Path(t, "legacy/ut99_stock/ArenaTex.utx")
	p, err := reader.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := p.Lookup("GreyTrim1")[0].Export()
	nl, err := p.Native(i)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), p.Source()...)
	at := int(p.Exports[i].SerialOffset) + nl.Lazy[1].SeekPosAt
	binary.LittleEndian.PutUint32(damaged[at:], uint32(nl.Lazy[1].SeekPos+4))
	problem := fmt.Sprintf(`export 18 "GreyTrim1" Mips[1] at 0x%X: lazy array SeekPos 0x%X should be 0x%X`,
		at, nl.Lazy[1].SeekPos+4, nl.Lazy[1].SeekPos)
	for _, c := range []struct {
		name   string
		op     string
		code   int
		stdout []string
		stderr []string
	}{
		{name: "outside the patch", op: "package-flags: {set: [ServerSideOnly]}", code: 0,
			stdout: []string{"  warning: the input already has 1 problem, outside what this patch changes; the output keeps it:\n    " + problem,
				"wrote: "}},
		{name: "in what the patch changes", op: "object-flags: {object: GreyTrim1, set: [Transactional]}", code: 1,
			stderr: []string{"p.yaml:3:5: ", "ArenaTex.utx: the input already has 1 problem: " + problem,
				"this patch changes export ArenaTex.GreyTrim1, where it is, so nothing was written", "unrmod verify "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "ArenaTex.utx"), damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			patchPath := filepath.Join(dir, "p.yaml")
			text := "unrmod: 1\ntargets:\n  - file: ArenaTex.utx\n    ops:\n      - " + c.op + "\n"
			if err := os.WriteFile(patchPath, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, "apply", patchPath)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "the patched package fails verification") {
				t.Errorf("the error blames the patch:\n%s", stderr)
			}
			_, err := os.Stat(filepath.Join(dir, "patched", "ArenaTex.utx"))
			if written := err == nil; written != (c.code == 0) {
				t.Errorf("output written: %v, want %v", written, c.code == 0)
			}
		})
	}
}

// TestApplyReports checks the lines a modder reads after apply: the dead
// bytes the preserve layout leaves, the file written when nothing changed,
// and the JSON error object of a failed patch.
func TestApplyReports(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile("../../examples/packages/UnrmodDemoMap.unr")
	os.WriteFile(filepath.Join(dir, "Map.unr"), data, 0o644)
	patchFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(patchFile, []byte("unrmod: 1\r\ntargets:\r\n  - file: Map.unr\r\n    output: out/Map.unr\r\n    ops:\r\n      - set-property: {object: LevelInfo0, property: Title, value: A much longer title than before}\r\n"), 0o644)
	stdout, stderr, code := runCLI(t, "apply", patchFile)
	if code != 0 || !strings.Contains(stdout, "dead bytes (layout: compact drops them)") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// The same patch on its output changes nothing, and says what it wrote.
	os.WriteFile(patchFile, []byte("unrmod: 1\ntargets:\n  - file: out/Map.unr\n    output: again/Map.unr\n    ops:\n      - set-property: {object: LevelInfo0, property: Title, value: A much longer title than before}\n"), 0o644)
	stdout, _, code = runCLI(t, "apply", patchFile)
	if code != 0 || !strings.Contains(stdout, "no changes") || !strings.Contains(stdout, "wrote "+filepath.Join(dir, "again", "Map.unr")) {
		t.Errorf("exit %d\n%s", code, stdout)
	}
	// A failing patch with --json: a JSON error object, exit 1.
	os.WriteFile(patchFile, []byte("unrmod: 1\ntargets:\n  - file: Map.unr\n    ops:\n      - set-property: {object: NoSuchObject, property: Title, value: x}\n"), 0o644)
	stdout, _, code = runCLI(t, "apply", "--json", patchFile)
	var doc struct {
		OK    bool `json:"ok"`
		Error struct {
			Message string `json:"message"`
			Line    int    `json:"line"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 1 || doc.OK || doc.Error.Line != 5 || !strings.Contains(doc.Error.Message, "NoSuchObject") {
		t.Errorf("exit %d, %v: %s", code, err, stdout)
	}
}

// TestDryRunSaysWouldWrite runs every command that has --dry-run on inputs of
// each kind, among them targets whose operations are already in effect:
// the output says what would be written, never that anything was, and no
// output file appears.
func TestDryRunSaysWouldWrite(t *testing.T) {
	dir := t.TempDir()
	demo, err := filepath.Abs(demoPackage)
	if err != nil {
		t.Fatal(err)
	}
	container, err := filepath.Abs(demoContainer427)
	if err != nil {
		t.Fatal(err)
	}
	writePatch := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ex := filepath.Join(dir, "extracted")
	if _, stderr, code := runCLI(t, "extract", demoContainer427, "-o", ex); code != 0 {
		t.Fatalf("extract: %s", stderr)
	}
	runs := [][]string{
		{"apply", "--dry-run", writePatch("noop.yaml", fmt.Sprintf(
			"unrmod: 1\ntargets:\n  - file: %q\n    output: out/noop/UnrmodDemo.u\n    ops:\n      - add-name: {name: Stripes}\n", demo))},
		{"apply", "--dry-run", writePatch("noop-container.yaml", fmt.Sprintf(
			"unrmod: 1\ntargets:\n  - container: %q\n    output: out/z_Noop_P\n    mode: mod\n    packages:\n      - package: /Game/Items/BP_DemoPickup\n        ops:\n          - add-name: {name: Acorn}\n", container))},
		{"apply", "--dry-run", "--json", filepath.Join(dir, "noop-container.yaml")},
		{"pack", ex, "-o", filepath.Join(dir, "out", "Packed_P"), "--engine", "4.27", "--dry-run"},
	}
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "patches", "*.yaml"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example patches: %v", err)
	}
	for _, e := range examples {
		runs = append(runs, []string{"apply", "--dry-run", "--output-dir", filepath.Join(dir, "out", "examples"), e})
	}
	for _, args := range runs {
		t.Run(strings.Join(args[:2], " ")+" "+filepath.Base(args[len(args)-1]), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
			}
			all := strings.ToLower(stdout + stderr)
			if strings.Contains(all, "wrote") || strings.Contains(all, "is written") {
				t.Errorf("a dry run says it wrote:\n%s%s", stdout, stderr)
			}
			if !strings.Contains(all, "would write") && !strings.Contains(all, "would pack") && !strings.Contains(all, `"dry_run": true`) {
				t.Errorf("a dry run does not say what it would write:\n%s%s", stdout, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote into %s: %v", filepath.Join(dir, "out"), err)
	}
}
