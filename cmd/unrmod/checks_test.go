package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/internal/zencorpus"
	"github.com/unrmod/unrmod/iostore"
)

// zlibContainer copies a corpus container with Zlib blocks (one
// partition, not encrypted) into dir as name and returns its .utoc, once
// its files are older than checkcache's racy window (100 ms): a check of
// files changed just before it is not remembered.
func zlibContainer(t *testing.T, dir, name string) string {
	t.Helper()
	utoc := zencorpus.CopyContainer(t, zencorpus.ContainersWith(t, "Zlib")[0], dir, name)
	time.Sleep(150 * time.Millisecond)
	return utoc
}

// TestRewriteRemembersCheck: a container rewrite checks its input whole
// and remembers it; the next rewrite of the unchanged input uses the
// remembered check and writes the same bytes; verify remembers a
// container too; --no-check-cache and UNRMOD_CHECK_CACHE=off check every
// time.
func TestRewriteRemembersCheck(t *testing.T) {
	t.Setenv(cacheDirEnv, t.TempDir())
	dir := t.TempDir()
	in := zlibContainer(t, dir, "Game")
	rewrite := func(in, out string, want string, flags ...string) []byte {
		t.Helper()
		stdout, stderr, code := runCLI(t, append(append([]string{"rewrite", "--json"}, flags...), in, "-o", out)...)
		var doc containerRewriteDoc
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
			t.Fatalf("rewrite: exit %d, %v\n%s%s", code, err, stdout, stderr)
		}
		if doc.SourceCheck != want || (want == "checked") != (doc.SourceCheckedAt == nil) {
			t.Fatalf("rewrite %s: source check %q at %v, want %q (note %q)", in, doc.SourceCheck, doc.SourceCheckedAt, want, doc.Note)
		}
		data, err := os.ReadFile(iostore.PartitionPath(out, 0))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first := rewrite(in, filepath.Join(dir, "a"), "recorded")
	if second := rewrite(in, filepath.Join(dir, "b"), "remembered"); !bytes.Equal(first, second) {
		t.Fatal("the rewrite with the remembered check wrote other bytes")
	}
	stdout, _, code := runCLI(t, "rewrite", in, "-o", filepath.Join(dir, "c"))
	if code != 0 || !strings.Contains(stdout, "was checked fully on") || !strings.Contains(stdout, "without decoding them again") {
		t.Errorf("the summary does not say that the remembered check was used:\n%s", stdout)
	}
	rewrite(in, filepath.Join(dir, "d"), "checked", "--no-check-cache")
	t.Setenv(checkCacheEnv, "off")
	rewrite(in, filepath.Join(dir, "e"), "checked")
	t.Setenv(checkCacheEnv, "")

	// Verify, then rewrite: verify's check remembers the container.
	other := zlibContainer(t, dir, "Other")
	if stdout, _, code := runCLI(t, "verify", other); code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, stdout)
	}
	rewrite(other, filepath.Join(dir, "f"), "remembered")
	// A container verified with --no-check-cache is not remembered.
	third := zlibContainer(t, dir, "Third")
	runCLI(t, "verify", "--no-check-cache", third)
	rewrite(third, filepath.Join(dir, "g"), "recorded")
}

// TestApplyRemembersCheck: apply --json says how a mode: full target
// checked its container: the first run remembers it, the second uses it.
func TestApplyRemembersCheck(t *testing.T) {
	t.Setenv(cacheDirEnv, t.TempDir())
	dir := t.TempDir()
	in := zlibContainer(t, dir, "Game")
	c, err := iostore.Open(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkExportBundleData {
			name, _ = c.OutputPath(ch.Index)
			break
		}
	}
	c.Close()
	p := filepath.Join(dir, "patch.yaml")
	if err := os.WriteFile(p, []byte(`unrmod: 1
targets:
  - container: Game.utoc
    output: full/Game.utoc
    mode: full
    packages:
      - package: `+name+`
        ops:
          - add-name: {name: UnrmodRemembered}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"recorded", "remembered"} {
		stdout, stderr, code := runCLI(t, "apply", "--json", p)
		var doc struct {
			Targets []struct {
				Container struct {
					SourceCheck string   `json:"source_check"`
					Notes       []string `json:"notes"`
				} `json:"container"`
			} `json:"targets"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Targets) != 1 {
			t.Fatalf("apply: exit %d, %v\n%s%s", code, err, stdout, stderr)
		}
		if got := doc.Targets[0].Container.SourceCheck; got != want {
			t.Fatalf("source_check %q, want %q", got, want)
		}
	}
	stdout, _, code := runCLI(t, "apply", p)
	if code != 0 || !strings.Contains(stdout, "was checked fully on") {
		t.Errorf("the plan does not say that the remembered check was used:\n%s", stdout)
	}
}

// TestVerifyForgetsDamaged: a container verify finds damaged is no longer
// remembered, even when its files' identities are those a check was
// remembered for (a byte that changed on disk without a write), so that a
// rewrite checks it again and refuses it.
func TestVerifyForgetsDamaged(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(cacheDirEnv, cache)
	dir := t.TempDir()
	in := zlibContainer(t, dir, "Game")
	cas := iostore.PartitionPath(in, 0)
	data, err := os.ReadFile(cas)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x5A
	if err := os.WriteFile(cas, data, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	// The damaged files as a remembered check saw them.
	c, err := iostore.Open(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.FileIDs()
	basis := c.CheckBasis()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	checks := checkcache.Open(filepath.Join(cache, "checks"))
	if err := checks.Record(in, ids, ids, basis, time.Now()); err != nil {
		t.Fatal(err)
	}
	if stdout, _, code := runCLI(t, "verify", in); code == 0 {
		t.Fatalf("verify passed a damaged container:\n%s", stdout)
	}
	if _, err := checks.Lookup(in, ids, basis); !errors.Is(err, checkcache.ErrNotRecorded) {
		t.Fatalf("after verify found damage, the lookup gives %v, want ErrNotRecorded", err)
	}
	if stdout, _, code := runCLI(t, "rewrite", in, "-o", filepath.Join(dir, "out")); code == 0 {
		t.Fatalf("rewrite copied a damaged container:\n%s", stdout)
	}
}
