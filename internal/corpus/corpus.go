// Package corpus locates the shared corpus of real Unreal files for tests.
// The corpus lives outside the repository; tests find it through the
// UNRMOD_CORPUS environment variable (absolute, or relative to the module
// root) and skip when it is not set.
package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// EnvVar names the environment variable that points at the corpus root.
const EnvVar = "UNRMOD_CORPUS"

// Dir returns the corpus root, skipping the test when UNRMOD_CORPUS is unset
// and failing it when the variable points at a missing directory.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(EnvVar)
	if dir == "" {
		tb.Skip("UNRMOD_CORPUS is not set; skipping tests on real files")
	}
	if !filepath.IsAbs(dir) {
		// Relative to the module root, not to the package under test.
		if root := moduleRoot(); root != "" {
			dir = filepath.Join(root, dir)
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		tb.Fatalf("UNRMOD_CORPUS=%s is not a directory", dir)
	}
	return dir
}

// Path returns the absolute path of a corpus file given relative to the root.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("corpus file %s: %v", rel, err)
	}
	return p
}

// LegacyDirs are the corpus folders that hold legacy packages, one folder
// per origin below each: legacy/ (UE1 and a UE2 script package) and
// legacy-next/ (UE2 maps, static meshes and textures, and a Deus Ex package).
var LegacyDirs = []string{"legacy", "legacy-next"}

// Legacy returns every legacy package in the corpus (legacy/*/* and
// legacy-next/*/*), sorted.
func Legacy(tb testing.TB) []string {
	tb.Helper()
	dir := Dir(tb)
	var files []string
	for _, d := range LegacyDirs {
		m, err := filepath.Glob(filepath.Join(dir, d, "*", "*"))
		if err != nil || len(m) == 0 {
			tb.Fatalf("no legacy packages under %s", filepath.Join(dir, d))
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

// moduleRoot returns the directory holding go.mod above the working directory.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
