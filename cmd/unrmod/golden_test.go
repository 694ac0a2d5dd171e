package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata with the current output")

// TestGolden compares the text output of info and dump for Entry.unr with
// the files in testdata. Run "go test ./cmd/unrmod -update" (with
// UNRMOD_CORPUS set) to regenerate them after an intended change.
func TestGolden(t *testing.T) {
	entry := corpus.Path(t, entryFile)
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	// Run from the file's directory so the output names it as a user would
	// type it, independent of where the corpus lives.
	t.Chdir(filepath.Dir(entry))
	tests := []struct {
		golden string
		args   []string
	}{
		{"info_Entry.golden", []string{"info", "Entry.unr"}},
		{"dump_Entry.golden", []string{"dump", "Entry.unr"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) { checkGolden(t, filepath.Join(testdata, tt.golden), tt.args...) })
	}
}

// checkGolden runs unrmod with args, which must succeed silently on stderr,
// and compares its standard output with the golden file (rewriting the file
// with -update).
func checkGolden(t *testing.T, golden string, args ...string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if *update {
		if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/unrmod -update to create it)", err)
	}
	if stdout != string(want) {
		t.Errorf("unrmod %v differs from %s (run go test ./cmd/unrmod -update if the change is intended)\ngot:\n%s\nwant:\n%s",
			args, filepath.Base(golden), stdout, want)
	}
}
