package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/safefile"
)

// startSlowWriter starts the test binary writing dir/z_Big_P.utoc through
// a slow reader and returns once it has staged files.
func startSlowWriter(t *testing.T, dir string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UNRMOD_TEST_HELPER=slow-writer", "UNRMOD_TEST_OUT="+filepath.Join(dir, "z_Big_P.utoc"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line == "ready\n"
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatalf("the helper did not start writing:\n%s", stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the helper did not start writing in a minute")
	}
	if len(staged(t, dir)) == 0 {
		t.Fatal("the helper stages no file")
	}
	return cmd, &stderr
}

// Ctrl-C and SIGTERM stop a run that is writing: its temporary files are
// removed and it exits with status 130.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, stderr := startSlowWriter(t, dir)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("exit %v, want status 130; stderr:\n%s", err, stderr)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the interrupted run left %v", ents)
			}
			if !strings.Contains(stderr.String(), "stopped; removed 1 temporary file of this run") {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}

// A run killed outright (SIGKILL) leaves its temporary files; the next run
// that writes the same output removes them and says so.
func TestLaterRunRemovesLeftovers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper is stopped with a Unix signal")
	}
	dir := t.TempDir()
	cmd, _ := startSlowWriter(t, dir)
	cmd.Process.Kill()
	cmd.Wait()
	left := staged(t, dir)
	if len(left) != 1 {
		t.Fatalf("the killed run left %v", left)
	}
	_, stderr, code := runCLI(t, "rewrite", "../../examples/containers/UnrmodDemo427_P.utoc", "-o", filepath.Join(dir, "z_Big_P"))
	if code != 0 {
		t.Fatalf("rewrite: exit %d\n%s", code, stderr)
	}
	if want := "unrmod: removed 1 temporary file a killed unrmod run left in " + dir; !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant %q", stderr, want)
	}
	if left := staged(t, dir); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// apply waits for another run that holds its file, saying so, and goes on
// once the file is free.
func TestApplyWaitsForAnotherRun(t *testing.T) {
	dir := t.TempDir()
	path := copyFile(t, "../../examples/packages/UnrmodDemoMap.unr", dir)
	pf := filepath.Join(dir, "p.yaml")
	os.WriteFile(pf, []byte("unrmod: 1\ntargets:\n  - file: UnrmodDemoMap.unr\n    ops:\n      - add-name: {name: Waited}\n"), 0o644)
	other := &safefile.Session{LockDir: os.Getenv("UNRMOD_LOCK_DIR")}
	held, err := other.Lock(safefile.Use{Path: path, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	done := make(chan int)
	go func() { done <- run([]string{"apply", pf, "--in-place"}, &stdout, &stderr) }()
	want := "unrmod: waiting for another unrmod run that reads or writes " + path
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), want); {
		if time.Now().After(deadline) {
			held.Release()
			t.Fatalf("stderr %q, want %q", stderr.String(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case code := <-done:
		t.Fatalf("apply ended (exit %d) while another run held its file", code)
	default:
	}
	held.Release()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

// apply refuses to replace a file that is not the target's earlier output
// unless --force, and a second run says the output is already written.
func TestApplyForceAndAlreadyWritten(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "../../examples/packages/UnrmodDemoMap.unr", dir)
	pf := filepath.Join(dir, "p.yaml")
	os.WriteFile(pf, []byte("unrmod: 1\ntargets:\n  - file: UnrmodDemoMap.unr\n    output: mod/Map.unr\n    ops:\n      - add-name: {name: Forced}\n"), 0o644)
	out := filepath.Join(dir, "mod", "Map.unr")
	os.MkdirAll(filepath.Dir(out), 0o755)
	os.WriteFile(out, []byte("my own map notes"), 0o644)
	_, stderr, code := runCLI(t, "apply", pf)
	if code != 1 || !strings.Contains(stderr, out) || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "my own map notes" {
		t.Fatal("the existing file was replaced")
	}
	if _, stderr, code := runCLI(t, "apply", pf, "--force"); code != 0 {
		t.Fatalf("--force: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "apply", pf)
	if code != 0 || !strings.Contains(stdout, "already written by an earlier run") {
		t.Fatalf("again: exit %d\n%s%s", code, stdout, stderr)
	}
}

// copyFile copies src into dir and returns the copy's path.
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}
