package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
