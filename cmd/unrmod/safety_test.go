package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
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
	case <-beforeTimeout(t):
		t.Fatal("the helper did not start writing (it hangs)")
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
	for stop := beforeTimeout(t); !strings.Contains(stderr.String(), want); {
		if expired(stop) {
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

// verify takes the shared locks of every part of a container it reads: while
// another run holds them to replace the container (here halfway: its new
// .utoc is in place, its new .ucas not yet), verify waits and says so, and
// never reports the half-replaced container as corrupt. When its wait ends
// first, the file is "not checked"; when the writer finishes first, verify
// checks the new container.
func TestVerifyWaitsForWriter(t *testing.T) {
	dir := t.TempDir()
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	old, next := *demos[0].Container, *demos[0].Container
	next.BlockSize = 4096 // other blocks: the old .ucas does not fit the new .utoc
	utoc, err := old.WriteFiles(dir, "Game_P")
	if err != nil {
		t.Fatal(err)
	}
	nextUtoc, err := next.WriteFiles(filepath.Join(dir, "next"), "Game_P")
	if err != nil {
		t.Fatal(err)
	}
	writer := &safefile.Session{LockDir: os.Getenv("UNRMOD_LOCK_DIR")}
	w, err := iostore.NewWriter(utoc, &iostore.WriterOptions{Session: writer})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := os.Rename(nextUtoc, utoc); err != nil {
		t.Fatal(err)
	}
	const waiting = "unrmod: waiting for another unrmod run that writes "

	// A wait that ends at once: the container is not checked.
	var out, errb bytes.Buffer
	sess := newSession(&errb)
	sess.LockWait = time.Nanosecond
	code := runSession(sess, []string{"verify", utoc}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || !strings.Contains(errb.String(), waiting+dir) || len(lines) != 1 ||
		!strings.HasPrefix(lines[0], utoc+": not checked: ") || !strings.Contains(lines[0], "another unrmod run still writes it") {
		t.Fatalf("verify while a writer holds the container: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}

	// A run that waits reads the container once the writer is done.
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"verify", utoc}, &stdout, &stderr) }()
	for !strings.Contains(stderr.String(), waiting+dir) {
		select {
		case code := <-done:
			t.Fatalf("verify did not wait for the writer: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
		default:
			time.Sleep(time.Millisecond)
		}
	}
	if err := os.Rename(iostore.PartitionPath(nextUtoc, 0), iostore.PartitionPath(utoc, 0)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if code := <-done; code != 0 || !strings.HasPrefix(stdout.String(), "ok  "+utoc) {
		t.Fatalf("verify after the writer finished: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// ls, info and dump read a container under the shared locks of its parts
// too: while another run holds them to write the container, they wait and
// fail when the wait ends, naming the file, rather than read it.
func TestReadersWaitForWriter(t *testing.T) {
	dir := t.TempDir()
	utoc := copyFile(t, "../../examples/containers/UnrmodDemo427_P.utoc", dir)
	copyFile(t, "../../examples/containers/UnrmodDemo427_P.ucas", dir)
	writer := &safefile.Session{LockDir: os.Getenv("UNRMOD_LOCK_DIR")}
	w, err := iostore.NewWriter(utoc, &iostore.WriterOptions{Session: writer})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for name, args := range map[string][]string{"ls": {"ls", utoc}, "info": {"info", utoc}, "dump": {"dump", utoc},
		"info --package": {"info", utoc, "--package", "DT_DemoItems"}} {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			sess := newSession(&errb)
			sess.LockWait = time.Nanosecond
			code := runSession(sess, args, &out, &errb)
			if code != 1 || out.Len() > 0 || !strings.Contains(errb.String(), "unrmod: waiting for another unrmod run that writes "+dir) ||
				!strings.Contains(errb.String(), "another unrmod run still writes it") {
				t.Errorf("%v while a writer holds the container: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errb.String())
			}
		})
	}
}

// A pack killed (SIGKILL) before each step of the commit that renames the
// container's .ucas, .utoc and .pak into place: verify names the
// interrupted write and how to finish it, and recover (or the next pack)
// finishes it; the container then verifies and is the new one, byte for
// byte.
func TestKilledCommitIsFinished(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper is killed with a Unix signal")
	}
	dir := t.TempDir()
	ex := filepath.Join(dir, "ex")
	if _, stderr, code := runCLI(t, "extract", demoContainer427, "-o", ex); code != 0 {
		t.Fatalf("extract: %s", stderr)
	}
	ini := filepath.Join(ex, "UnrmodDemo", "Config", "DefaultGame.ini")
	os.MkdirAll(filepath.Dir(ini), 0o755)
	pack := func(out string) {
		t.Helper()
		if _, stderr, code := runCLI(t, "pack", ex, "-o", out, "--engine", "4.27"); code != 0 {
			t.Fatalf("pack: %s", stderr)
		}
	}
	os.WriteFile(ini, []byte("[/Script/UnrmodDemo]\n"), 0o644)
	old := filepath.Join(dir, "old", "z_Demo_P")
	pack(old)
	os.WriteFile(ini, []byte("[/Script/UnrmodDemo]\nLevel=2\n"), 0o644)
	want := filepath.Join(dir, "new", "z_Demo_P")
	pack(want)
	exts := []string{".utoc", ".ucas", ".pak"}
	for k := 0; ; k++ {
		mods := filepath.Join(dir, "mods"+strconv.Itoa(k))
		out := filepath.Join(mods, "z_Demo_P")
		os.Mkdir(mods, 0o755)
		for _, e := range exts {
			data, _ := os.ReadFile(old + e)
			os.WriteFile(out+e, data, 0o644)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "UNRMOD_TEST_HELPER=stop-in-commit", "UNRMOD_TEST_COMMIT_STEP="+strconv.Itoa(k),
			"UNRMOD_TEST_ARGS="+strings.Join([]string{"pack", ex, "-o", out, "--engine", "4.27"}, "\n"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stopped := false
		for r := bufio.NewReader(stdout); ; {
			line, err := r.ReadString('\n')
			if line == "commit step "+strconv.Itoa(k)+"\n" {
				stopped = true
				break
			}
			if err != nil {
				break
			}
		}
		if !stopped {
			if err := cmd.Wait(); err != nil || k < 6 {
				t.Fatalf("the helper ran %d steps: %v\n%s", k, err, stderr.String())
			}
			break
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		recs, _ := safefile.FindCommits(mods)
		if k < 6 && len(recs) != 1 {
			t.Fatalf("step %d: records %v", k, recs)
		}
		if len(recs) == 1 {
			stdout, _, code := runCLI(t, "verify", mods)
			if code != 1 || !strings.Contains(stdout, "was interrupted while it renamed them into place") || !strings.Contains(stdout, "run 'unrmod recover "+mods+"'") {
				t.Errorf("step %d: verify: exit %d\n%s", k, code, stdout)
			}
			var stderr string
			if k%2 == 0 {
				_, stderr, code = runCLI(t, "recover", mods)
			} else {
				_, stderr, code = runCLI(t, "pack", ex, "-o", out, "--engine", "4.27")
			}
			if code != 0 || !strings.Contains(stderr, "unrmod: finished an interrupted unrmod write of 3 files in "+mods) {
				t.Fatalf("step %d: exit %d\n%s", k, code, stderr)
			}
		}
		if stdout, stderr, code := runCLI(t, "verify", out+".utoc", out+".pak"); code != 0 {
			t.Fatalf("step %d: verify: %s%s", k, stdout, stderr)
		}
		for _, e := range exts {
			a, _ := os.ReadFile(want + e)
			b, _ := os.ReadFile(out + e)
			if !bytes.Equal(a, b) {
				t.Errorf("step %d: %s is not the new one", k, filepath.Base(out+e))
			}
		}
		if ents, _ := os.ReadDir(mods); len(ents) != 3 {
			t.Errorf("step %d: %d files left", k, len(ents))
		}
	}
}

// verify lists a commit record found in a folder beside none of the files
// it writes (the new file not renamed into place yet, the old one kept
// aside), and recover finishes it.
func TestVerifyListsLoneRecord(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".Map.unr.unrmod-1.tmp"), src, 0o644)
	os.WriteFile(filepath.Join(dir, ".Map.unr.unrmod-1.old"), []byte("the old map"), 0o644)
	os.WriteFile(filepath.Join(dir, ".Map.unr.unrmod-commit"), []byte(`{"unrmod": "commit 1",
  "files": [{"temp": ".Map.unr.unrmod-1.tmp", "target": "Map.unr", "old": ".Map.unr.unrmod-1.old"}],
  "records": [".Map.unr.unrmod-commit"]}`), 0o644)
	stdout, _, code := runCLI(t, "verify", dir)
	if code != 1 || !strings.Contains(stdout, ".Map.unr.unrmod-commit: commit record: an unrmod write of Map.unr was interrupted") {
		t.Fatalf("verify: exit %d\n%s", code, stdout)
	}
	_, stderr, code := runCLI(t, "recover", dir)
	if code != 0 || !strings.Contains(stderr, "finished an interrupted unrmod write of 1 file in "+dir+" (Map.unr)") {
		t.Fatalf("recover: exit %d\n%s", code, stderr)
	}
	if stdout, _, code := runCLI(t, "verify", dir); code != 0 {
		t.Fatalf("verify after recover: %s", stdout)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
	stdout, _, code = runCLI(t, "recover", dir)
	if code != 0 || stdout != dir+": no interrupted unrmod write to finish\n" {
		t.Errorf("recover again: exit %d %q", code, stdout)
	}
}
