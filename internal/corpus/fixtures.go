package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FixturesEnvVar names the environment variable that points at one engine
// release's output of the CUE4ParseFixtures project (the folder holding
// its manifest.json, LegacyPak/ and IoStore/), which is not in the corpus.
// Tests that read it are opt-in: they skip when it is unset.
const FixturesEnvVar = "UNRMOD_ENGINE_FIXTURES"

// Fixtures is an engine release's output of the CUE4ParseFixtures project:
// the same content cooked as legacy paks (LegacyPak/{Tagged,Unversioned}/
// METHOD/*.pak) and as IoStore containers (IoStore/{Tagged,Unversioned}/
// METHOD/*.utoc, with global.utoc in IoStore/{Tagged,Unversioned}).
type Fixtures struct {
	// Dir is the project's output folder.
	Dir string
	// Major and Minor are the engine release that cooked it, from
	// manifest.json.
	Major, Minor int
	// Revision is the engine's git revision, from manifest.json.
	Revision string
}

// EngineFixtures returns the fixture project UNRMOD_ENGINE_FIXTURES names,
// skipping the test when the variable is unset and failing it when the
// folder has no readable manifest.json naming the engine release.
func EngineFixtures(tb testing.TB) Fixtures {
	tb.Helper()
	dir := os.Getenv(FixturesEnvVar)
	if dir == "" {
		tb.Skip(FixturesEnvVar + " is not set; skipping the check against an engine's CUE4ParseFixtures output")
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		tb.Fatalf("%s=%s: %v", FixturesEnvVar, dir, err)
	}
	var m struct {
		Engine struct {
			Major, Minor int
			GitSha       string
		}
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Engine.Major == 0 {
		tb.Fatalf("%s=%s: manifest.json names no engine release (%v)", FixturesEnvVar, dir, err)
	}
	return Fixtures{Dir: dir, Major: m.Engine.Major, Minor: m.Engine.Minor, Revision: m.Engine.GitSha}
}

// Glob returns the files of the fixture project matching pattern, a
// '/'-separated path relative to its folder, failing the test when none
// match.
func (f Fixtures) Glob(tb testing.TB, pattern string) []string {
	tb.Helper()
	m, err := filepath.Glob(filepath.Join(f.Dir, filepath.FromSlash(pattern)))
	if err != nil || len(m) == 0 {
		tb.Fatalf("no %s in the fixture project %s", pattern, f.Dir)
	}
	return m
}
