package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsNameFlags checks that the advice in a library error, which
// names the library's setting (Options.InPlace, Options.Force, …), is
// printed with the flag that gives it.
func TestErrorsNameFlags(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "UnrmodDemoMap.unr")
	os.WriteFile(in, data, 0o644)
	os.MkdirAll(filepath.Join(dir, "mod"), 0o755)
	os.WriteFile(filepath.Join(dir, "mod", "UnrmodDemoMap.unr"), []byte("my notes\n"), 0o644)
	write := func(name, targets string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("unrmod: 1\ntargets:\n"+targets), 0o644)
		return p
	}
	const op = "    ops: [{add-name: {name: Advice}}]\n"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"hash of an asset as a script path", []string{"hash", "--script", "/Game/A.B"}, "(for an asset's export use --export)"},
		{"output is the input", []string{"apply", write("same.yaml", "  - file: UnrmodDemoMap.unr\n    output: UnrmodDemoMap.unr\n"+op)},
			"use --in-place to overwrite it (a .bak is kept)"},
		{"output is the input, JSON", []string{"apply", "--json", write("same.yaml", "  - file: UnrmodDemoMap.unr\n    output: UnrmodDemoMap.unr\n"+op)},
			"use --in-place to overwrite it (a .bak is kept)"},
		{"output exists", []string{"apply", write("force.yaml", "  - file: UnrmodDemoMap.unr\n    output: mod/UnrmodDemoMap.unr\n"+op)},
			"or use --force to replace it"},
		{"a container in place", []string{"apply", "--in-place", write("ct.yaml",
			"  - container: Mod_P.utoc\n    mode: full\n    packages:\n      - package: DT_DemoItems\n        ops:\n          - rename: {from: Pebble, to: X}\n")},
			": --in-place does not apply to containers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code == 0 || !strings.Contains(stdout+stderr, tt.want) || strings.Contains(stdout+stderr, "Options.") {
				t.Errorf("exit %d, want %q\nstdout: %s\nstderr: %s", code, tt.want, stdout, stderr)
			}
		})
	}
}
