package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/ue/oodle"
)

// oodleLibrary returns the Oodle library of the CLI tests: UNRMOD_OODLE's,
// or a stand-in answering the corpus' Oodle blocks with their twins'
// bytes; and the twins.
func oodleLibrary(t *testing.T) (string, []oodletest.Twin) {
	t.Helper()
	twins := oodletest.Twins(t)
	lib, _ := oodletest.Library(t, oodletest.Records(t, twins))
	return lib, twins
}

// noOodle makes sure the test's runs find no library: no UNRMOD_OODLE
// (the corpus has no game folder with one).
func noOodle(t *testing.T) { t.Setenv(oodleEnv, "") }

// tree reads every file under dir by its slash path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameTrees compares two extracted trees; a container's header chunk,
// which names its own container, is left out.
func sameTrees(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	n := 0
	for p, w := range want {
		if strings.HasPrefix(p, "chunks/ContainerHeader/") {
			continue
		}
		n++
		if g, ok := got[p]; !ok || !bytes.Equal(g, w) {
			t.Errorf("%s: missing or different (%d bytes, want %d)", p, len(g), len(w))
		}
	}
	if n == 0 || len(got) != len(want) {
		t.Errorf("%d files extracted, the twin has %d", len(got), len(want))
	}
}

// TestOodleExtractVerify extracts and verifies every Oodle container and
// pak of the corpus through the run-time library, given with --oodle and
// with UNRMOD_OODLE, and compares the files with their twin's.
func TestOodleExtractVerify(t *testing.T) {
	lib, twins := oodleLibrary(t)
	for _, tw := range twins {
		t.Run(filepath.Base(tw.Oodle), func(t *testing.T) {
			noOodle(t)
			var key []string
			if tw.Key != nil {
				key = []string{"--aes-key", oodletest.FixtureKey}
			}
			dir := t.TempDir()
			if _, stderr, code := runCLI(t, append([]string{"extract", tw.Plain, "-o", filepath.Join(dir, "plain")}, key...)...); code != 0 {
				t.Fatalf("extract of the twin: %s", stderr)
			}
			if _, stderr, code := runCLI(t, append([]string{"extract", tw.Oodle, "-o", filepath.Join(dir, "flag"), "--oodle", lib}, key...)...); code != 0 {
				t.Fatalf("extract --oodle: %s", stderr)
			}
			want := tree(t, filepath.Join(dir, "plain"))
			sameTrees(t, tree(t, filepath.Join(dir, "flag")), want)
			out, stderr, code := runCLI(t, append([]string{"verify", tw.Oodle, "--oodle", lib}, key...)...)
			if code != 0 || !strings.HasPrefix(out, "ok ") || strings.Contains(out, "not checked") {
				t.Errorf("verify --oodle: exit %d\n%s%s", code, out, stderr)
			}
			t.Setenv(oodleEnv, lib)
			if _, stderr, code := runCLI(t, append([]string{"extract", tw.Oodle, "-o", filepath.Join(dir, "env")}, key...)...); code != 0 {
				t.Fatalf("extract with %s: %s", oodleEnv, stderr)
			}
			sameTrees(t, tree(t, filepath.Join(dir, "env")), want)
		})
	}
}

// TestOodleMissing checks every command that meets Oodle data without a
// library: exit 1 and a message saying how to give one; and a library
// that does not load: exit 1 naming where it came from.
func TestOodleMissing(t *testing.T) {
	noOodle(t)
	dir := t.TempDir()
	utoc := corpus.Path(t, ctOodle)
	oodlePak := corpus.Path(t, "pak/cue4parse_ue5_8/Pak/Oodle/CUE4ParseFixtures-Minimal-Oodle.pak")
	loose := filepath.Join(dir, "loose")
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, ctZlib), "-o", loose); code != 0 {
		t.Fatal(stderr)
	}
	patchFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(patchFile, []byte(modPatch(utoc, "zlib")), 0o644)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"extract container", []string{"extract", utoc, "-o", filepath.Join(dir, "x1")}},
		{"extract pak", []string{"extract", oodlePak, "-o", filepath.Join(dir, "x2")}},
		{"verify container", []string{"verify", utoc}},
		{"verify pak", []string{"verify", oodlePak}},
		{"props", []string{"props", utoc, "--package", "DT_AllProperties"}},
		{"pack container", []string{"pack", loose, "-o", filepath.Join(dir, "o", "z_A_P"), "--engine", "5.8", "--compression", "oodle"}},
		{"pack pak", []string{"pack", loose, "-o", filepath.Join(dir, "o", "z_A_P.pak"), "--engine", "5.8", "--compression", "oodle"}},
		{"apply", []string{"apply", patchFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if msg := stdout + stderr; code != 1 || !strings.Contains(msg, "--oodle PATH") || !strings.Contains(msg, oodleEnv) {
				t.Errorf("exit %d, want 1 and a message naming --oodle and %s:\n%s", code, oodleEnv, msg)
			}
		})
	}
	missing := filepath.Join(dir, "oo2core_9_win64.dll")
	if _, stderr, code := runCLI(t, "extract", utoc, "-o", filepath.Join(dir, "x3"), "--oodle", missing); code != 1 || !strings.Contains(stderr, "--oodle: Oodle library not loaded") {
		t.Errorf("--oodle of a missing file: exit %d\n%s", code, stderr)
	}
	// A rewrite copies the blocks as they are, unchecked, and says how to
	// check them.
	stdout, stderr, code := runCLI(t, "rewrite", utoc, "-o", filepath.Join(dir, "r", "Re-Windows"), "--layout", "compact")
	if code != 0 || !strings.Contains(stdout, "111 not checked") || !strings.Contains(stdout, "--oodle PATH") {
		t.Errorf("rewrite without the library: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Setenv(oodleEnv, missing)
	if stdout, stderr, code := runCLI(t, "verify", utoc); code != 1 || !strings.Contains(stdout+stderr, oodleEnv+": Oodle library not loaded") {
		t.Errorf("%s of a missing file: exit %d\n%s%s", oodleEnv, code, stdout, stderr)
	}
}

// modPatch is a patch that adds a name to a package of the fixture
// container utoc, into a mod container.
func modPatch(utoc, compression string) string {
	return fmt.Sprintf("unrmod: 1\ntargets:\n  - container: %q\n    output: out/z_OodleMod_P\n    mode: mod\n    compression: %s\n    packages:\n      - package: DT_AllProperties\n        ops:\n          - add-name: {name: Acorn}\n", utoc, compression)
}

// TestOodleMod makes a mod from the Oodle base container, Zlib and
// Oodle-compressed (keep, given the library, keeps Oodle): it verifies,
// and the package holds the change.
func TestOodleMod(t *testing.T) {
	lib, _ := oodleLibrary(t)
	noOodle(t)
	utoc := corpus.Path(t, ctOodle)
	for _, comp := range []string{"zlib", "keep", "oodle"} {
		t.Run(comp, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "p.yaml")
			os.WriteFile(p, []byte(modPatch(utoc, comp)), 0o644)
			if out, stderr, code := runCLI(t, "apply", p, "--oodle", lib); code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", code, out, stderr)
			}
			mod := filepath.Join(dir, "out", "z_OodleMod_P.utoc")
			if out, stderr, code := runCLI(t, "verify", mod, "--oodle", lib); code != 0 || strings.Contains(out, "not checked") {
				t.Fatalf("verify of the mod: exit %d\n%s%s", code, out, stderr)
			}
			out, stderr, code := runCLI(t, "ls", mod)
			wantMethod := map[string]string{"zlib": "Zlib", "keep": "Oodle", "oodle": "Oodle"}[comp]
			if code != 0 || !strings.Contains(out, wantMethod) {
				t.Errorf("ls of the mod: want %s blocks\n%s%s", wantMethod, out, stderr)
			}
			out, stderr, code = runCLI(t, "dump", mod, "--package", "DT_AllProperties", "--names", "--oodle", lib)
			if code != 0 || !strings.Contains(out, "Acorn") {
				t.Errorf("the mod's package lacks the added name: exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestOodlePack packs loose packages with --compression oodle into a
// container and into a pak, through the library: they verify, hold Oodle
// blocks, and extract back to the same bytes.
func TestOodlePack(t *testing.T) {
	lib, _ := oodletest.Library(t, nil)
	noOodle(t)
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	if _, stderr, code := runCLI(t, "extract", corpus.Path(t, ctZlib), "-o", loose); code != 0 {
		t.Fatal(stderr)
	}
	want := tree(t, loose)
	for _, tc := range []struct{ name, out, check string }{
		{"container", filepath.Join(dir, "o", "z_Pk_P"), filepath.Join(dir, "o", "z_Pk_P.utoc")},
		{"pak", filepath.Join(dir, "o", "z_Pk_P.pak"), filepath.Join(dir, "o", "z_Pk_P.pak")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, stderr, code := runCLI(t, "pack", loose, "-o", tc.out, "--engine", "5.8", "--compression", "oodle", "--oodle", lib); code != 0 {
				t.Fatalf("pack: exit %d\n%s%s", code, out, stderr)
			}
			if out, stderr, code := runCLI(t, "verify", tc.check, "--oodle", lib); code != 0 || strings.Contains(out, "not checked") {
				t.Fatalf("verify: exit %d\n%s%s", code, out, stderr)
			}
			// Without the library the output cannot be read: its blocks are Oodle.
			if _, stderr, code := runCLI(t, "extract", tc.check, "-o", filepath.Join(dir, "bare"+tc.name)); code != 1 || !strings.Contains(stderr, "Oodle") {
				t.Errorf("extract without the library: exit %d\n%s", code, stderr)
			}
			back := filepath.Join(dir, "back"+tc.name)
			if _, stderr, code := runCLI(t, "extract", tc.check, "-o", back, "--oodle", lib); code != 0 {
				t.Fatal(stderr)
			}
			got := tree(t, back)
			if tc.name == "pak" {
				sameTrees(t, got, want)
				return
			}
			for p, w := range want {
				if !strings.HasPrefix(p, "chunks/ContainerHeader/") && !bytes.Equal(got[p], w) {
					t.Errorf("%s differs after the round trip", p)
				}
			}
		})
	}
}

// TestOodleRewriteCompact lays an Oodle container out again: every chunk
// is checked through the library, and the output verifies.
func TestOodleRewriteCompact(t *testing.T) {
	lib, _ := oodleLibrary(t)
	noOodle(t)
	out := filepath.Join(t.TempDir(), "Re-Windows")
	stdout, stderr, code := runCLI(t, "rewrite", corpus.Path(t, ctOodle), "-o", out, "--layout", "compact", "--oodle", lib)
	if code != 0 || strings.Contains(stdout, "not checked") {
		t.Fatalf("rewrite: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runCLI(t, "verify", out+".utoc", "--oodle", lib); code != 0 || strings.Contains(stdout, "not checked") {
		t.Errorf("verify of the rewrite: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestOodleBesideGame lays an Oodle container out as a shipped game does,
// with the library in <Game>/Binaries/<platform>: extract finds it without
// --oodle or UNRMOD_OODLE, and --oodle still wins over it.
func TestOodleBesideGame(t *testing.T) {
	lib, twins := oodleLibrary(t)
	noOodle(t)
	var tw oodletest.Twin
	for _, x := range twins {
		if !x.Pak && x.Key == nil && len(iostorePartitions(t, x.Oodle)) == 1 {
			tw = x
			break
		}
	}
	if tw.Oodle == "" {
		t.Fatal("no plain Oodle container among the twins")
	}
	root := t.TempDir()
	paks := filepath.Join(root, "Game", "Content", "Paks")
	bin := filepath.Join(root, "Game", "Binaries", map[string]string{"oo2core_9_win64.dll": "Win64", "liboo2coremac64.2.9.dylib": "Mac"}[oodle.Names()[0]])
	if strings.HasSuffix(bin, "Binaries") {
		bin = filepath.Join(bin, "Linux")
	}
	for _, d := range []string{paks, bin, filepath.Join(root, "Engine", "Config")} {
		os.MkdirAll(d, 0o755)
	}
	copyAs(t, lib, filepath.Join(bin, oodle.Names()[0]))
	utoc := copyFile(t, tw.Oodle, paks)
	copyFile(t, strings.TrimSuffix(tw.Oodle, ".utoc")+".ucas", paks)
	if out, stderr, code := runCLI(t, "extract", utoc, "-o", filepath.Join(root, "out")); code != 0 {
		t.Fatalf("extract beside the game: exit %d\n%s%s", code, out, stderr)
	}
	// --oodle names another library: that one is used (and fails here).
	other := filepath.Join(root, "other.so")
	os.WriteFile(other, []byte("not a library"), 0o644)
	if stdout, stderr, code := runCLI(t, "verify", utoc, "--oodle", other); code != 1 || !strings.Contains(stdout+stderr, "--oodle: Oodle library not loaded") {
		t.Errorf("--oodle beside a game's library: exit %d\n%s%s", code, stdout, stderr)
	}
}

// iostorePartitions returns the .ucas files of a container.
func iostorePartitions(t *testing.T, utoc string) []string {
	t.Helper()
	m, _ := filepath.Glob(strings.TrimSuffix(utoc, ".utoc") + "*.ucas")
	return m
}

// copyAs copies from to the path to.
func copyAs(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestOodlePakTarget patches a DataTable inside the engine's Oodle pak
// (a pak target) through the library, with zlib, keep and oodle: the _P
// pak verifies and holds the change; mode full copies every other file as
// stored; without a library the patch fails naming --oodle.
func TestOodlePakTarget(t *testing.T) {
	lib, _ := oodleLibrary(t)
	noOodle(t)
	src := corpus.Path(t, "pak/cue4parse_ue5_8/LegacyPak/Tagged/Oodle/CUE4ParseFixtures-Legacy-Tagged-Oodle.pak")
	patchText := func(mode, comp string) string {
		return "unrmod: 1\ntargets:\n  - container: " + filepath.ToSlash(src) + "\n    output: out/z_Oodle_P\n    mode: " + mode +
			"\n    compression: " + comp + "\n    packages:\n      - package: DT_AllProperties\n        ops:\n" +
			"          - set-property: {object: DT_AllProperties, row: Alpha, property: Message, value: \"Through the game's Oodle\"}\n"
	}
	for _, tc := range []struct{ mode, comp, method string }{
		{"mod", "zlib", "Zlib"}, {"mod", "keep", "Oodle"}, {"mod", "oodle", "Oodle"}, {"full", "keep", "Oodle"},
	} {
		t.Run(tc.mode+"/"+tc.comp, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "p.yaml")
			os.WriteFile(p, []byte(patchText(tc.mode, tc.comp)), 0o644)
			if out, stderr, code := runCLI(t, "apply", p, "--oodle", lib); code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", code, out, stderr)
			}
			mod := filepath.Join(dir, "out", "z_Oodle_P.pak")
			if out, stderr, code := runCLI(t, "verify", mod, "--oodle", lib); code != 0 {
				t.Fatalf("verify: exit %d\n%s%s", code, out, stderr)
			}
			out, _, _ := runCLI(t, "ls", mod)
			if !strings.Contains(out, "DT_AllProperties.uexp") || !strings.Contains(out, tc.method) {
				t.Errorf("ls: want DT_AllProperties with %s blocks\n%s", tc.method, out)
			}
			props, stderr, code := runCLI(t, "props", mod, "--package", "DT_AllProperties", "--row", "Alpha", "--oodle", lib)
			if code != 0 || !strings.Contains(props, "Through the game's Oodle") {
				t.Errorf("props: exit %d\n%s%s", code, props, stderr)
			}
		})
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "p.yaml")
	os.WriteFile(p, []byte(patchText("mod", "zlib")), 0o644)
	if _, stderr, code := runCLI(t, "apply", p); code != 1 || !strings.Contains(stderr, "--oodle") {
		t.Errorf("apply without a library: exit %d, %q", code, stderr)
	}
}
