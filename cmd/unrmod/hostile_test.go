package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
)

// runBounded runs the CLI and fails the test when the run allocates more
// than maxAlloc bytes. (BenchmarkHostile measures the time of such runs.)
func runBounded(t *testing.T, maxAlloc uint64, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stdout, stderr, code = runCLI(t, args...)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > maxAlloc {
		t.Errorf("unrmod %s allocated %d MB", strings.Join(args, " "), n>>20)
	}
	return stdout, stderr, code
}

// TestDeepOuters runs dump, diff and a patch lookup on packages of deep
// outer chains: one whose paths pass the engine's 1024 characters (250
// levels of 1000-character names) is refused at once by each command, and
// one just within the limit (200 levels) is handled in bounded time and
// memory.
func TestDeepOuters(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		levels, nameLen int
		refused         bool
	}{
		{250, 1000, true},
		{200, 4, false},
	} {
		data, err := fixture.DeepOuters(c.levels, c.nameLen)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Join(dir, "DeepOuters.u")
		if err := os.WriteFile(pkg, data, 0o644); err != nil {
			t.Fatal(err)
		}
		last := strconv.Itoa(c.levels - 1)
		deepest := last + strings.Repeat("n", max(c.nameLen-len(last), 0)) // the innermost export
		patch := filepath.Join(dir, "deep.yaml")
		text := "unrmod: 1\ntargets:\n  - file: DeepOuters.u\n    output: out/DeepOuters.u\n    ops:\n" +
			"      - set-property:\n          object: " + deepest + "\n          property: Level\n          value: 1\n"
		if err := os.WriteFile(patch, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		const maxAlloc = 64 << 20
		for _, args := range [][]string{
			{"dump", pkg},
			{"diff", pkg, pkg},
			{"apply", "--dry-run", patch},
		} {
			stdout, stderr, code := runBounded(t, maxAlloc, args...)
			refused := code != 0 && strings.Contains(stdout+stderr, "1024 characters")
			if refused != c.refused || !c.refused && code != 0 {
				t.Errorf("%d levels of %d-character names: unrmod %s: exit %d, refused %v, want %v; stderr:\n%.500s",
					c.levels, c.nameLen, strings.Join(args, " "), code, refused, c.refused, stderr)
			}
		}
	}
}

// TestDeepZenOuters runs dump on a zen package of 250 levels of
// 1000-character names (31 MB of paths in 275 KB): it is refused at once,
// saying why.
func TestDeepZenOuters(t *testing.T) {
	s := zenbuild.Spec{Name: "/Game/Deep", Layout: zen.LayoutUE4, Imports: []string{"/Script/Engine.Actor"}}
	for i := range 250 {
		n := strconv.Itoa(i)
		s.Exports = append(s.Exports, zenbuild.Export{Name: n + strings.Repeat("n", 1000-len(n)),
			Class: "/Script/Engine.Actor", Outer: i - 1, Data: []byte{0, 0, 0, 0}})
	}
	data, err := zenbuild.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(t.TempDir(), "Deep.uasset")
	if err := os.WriteFile(pkg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBounded(t, 64<<20, "dump", pkg)
	if code == 0 || !strings.Contains(stderr, "grow with the square of their size") {
		t.Fatalf("dump: exit %d, %d bytes of output; stderr:\n%.500s", code, len(stdout), stderr)
	}
}

// TestDeepOutersDumpText requires dump's text to grow with what it prints,
// not with the longest path times the number of rows: a column is never
// padded to a cell wider than maxColumnWidth, so each export line is its
// path plus the other, bounded, columns.
func TestDeepOutersDumpText(t *testing.T) {
	data, err := fixture.DeepOuters(200, 4)
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(t.TempDir(), "DeepOuters.u")
	if err := os.WriteFile(pkg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBounded(t, 64<<20, "dump", "--exports", pkg)
	if code != 0 {
		t.Fatalf("dump: exit %d\n%s", code, stderr)
	}
	rows := 0
	for line := range strings.Lines(stdout) {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[2], "DeepOuters.") {
			continue
		}
		rows++
		// INDEX, CLASS, SIZE, OFFSET, XXH3 and FLAGS take well under 150
		// bytes, and padding to the column's width at most another 150
		// (paths here are 15 to 1000 bytes long).
		if len(line) > len(f[2])+300 {
			t.Fatalf("a %d-byte line for a %d-byte path: the path column is padded to the longest path\n%.300s",
				len(line), len(f[2]), line)
		}
	}
	if rows != 200 {
		t.Fatalf("%d export rows, want 200:\n%.1000s", rows, stdout)
	}
}

// manyAddNamesPatch writes a copy of the demo package file (a path below
// examples/packages) into dir and, next to it, a patch of n add-name
// operations on it; it returns the patch's path.
func manyAddNamesPatch(tb testing.TB, dir, file string, n int) string {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "packages", filepath.FromSlash(file)))
	if err != nil {
		tb.Fatal(err)
	}
	base := filepath.Base(file)
	if err := os.WriteFile(filepath.Join(dir, base), src, 0o644); err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("unrmod: 1\ntargets:\n  - file: " + base + "\n    output: out/" + base + "\n    ops:\n")
	for i := range n {
		b.WriteString("      - add-name: {name: Name" + strconv.Itoa(i) + "}\n")
	}
	patch := filepath.Join(dir, "names.yaml")
	if err := os.WriteFile(patch, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return patch
}

// manyObjectsPatch writes into dir a package of n exports and a patch of
// n set-property operations, each on its own export; it returns the
// patch's path.
func manyObjectsPatch(tb testing.TB, dir string, n int) string {
	tb.Helper()
	data, err := fixture.SizedLike(n * 64)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SizedLike.u"), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("unrmod: 1\ntargets:\n  - file: SizedLike.u\n    output: out/SizedLike.u\n    ops:\n")
	for i := range n {
		b.WriteString("      - set-property: {object: Object" + strconv.Itoa(i) + ", property: B, value: 7}\n")
	}
	patch := filepath.Join(dir, "objects.yaml")
	if err := os.WriteFile(patch, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return patch
}

// TestManyAddNames applies patches of 40,000 add-name operations to a
// legacy and a zen package (dry run). How long it takes (each name is
// looked up in a table that grows to 40,000 names, which must not be a
// scan of the table) is measured by BenchmarkManyOps.
func TestManyAddNames(t *testing.T) {
	for _, file := range []string{"UnrmodDemo.u", "zen/BP_DemoPickup.uasset"} {
		patch := manyAddNamesPatch(t, t.TempDir(), file, 40000)
		stdout, stderr, code := runCLI(t, "apply", "--dry-run", patch)
		if code != 0 || !strings.Contains(stdout, "would write") {
			t.Fatalf("%s: apply: exit %d\n%.500s\n%.500s", file, code, stdout, stderr)
		}
	}
}

// TestManyObjectLookups applies a patch of 5,000 set-property operations,
// each on its own export of a package of 5,000 exports (dry run). How
// long it takes (finding each object must not build the path of every
// export) is measured by BenchmarkManyOps.
func TestManyObjectLookups(t *testing.T) {
	patch := manyObjectsPatch(t, t.TempDir(), 5000)
	stdout, stderr, code := runCLI(t, "apply", "--dry-run", patch)
	if code != 0 || !strings.Contains(stdout, "would write") {
		t.Fatalf("apply: exit %d\n%.500s\n%.500s", code, stdout, stderr)
	}
}
