package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/iostore"
)

// TestMain keeps the lock files of the tests in a folder of their own,
// removes the containers BenchmarkScale generated, and
// runs the test binary as a helper process when UNRMOD_TEST_HELPER says so.
func TestMain(m *testing.M) {
	if mode := os.Getenv("UNRMOD_TEST_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	dir, err := os.MkdirTemp("", "unrmod-locks-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("UNRMOD_LOCK_DIR", dir)
	// Remembered checks go to a folder of the tests', not the user's.
	cache, err := os.MkdirTemp("", "unrmod-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("UNRMOD_CACHE_DIR", cache)
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(cache)
	scaleRemove()
	os.Exit(code)
}

// helperMain is the test binary run as a helper process.
func helperMain(mode string) int {
	switch mode {
	case "slow-writer":
		return slowWriter(os.Getenv("UNRMOD_TEST_OUT"))
	case "stop-in-commit":
		k, _ := strconv.Atoi(os.Getenv("UNRMOD_TEST_COMMIT_STEP"))
		return stopInCommit(k, strings.Split(os.Getenv("UNRMOD_TEST_ARGS"), "\n"))
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", mode)
	return 2
}

// slowWriter writes a container to out as the unrmod commands do (a
// Session, the interrupt handler of main), from a reader that gives 1 MiB,
// prints "ready" and then never ends: an interrupt finds it writing.
func slowWriter(out string) int {
	sess := newSession(os.Stderr)
	stop := onInterrupt(sess, os.Stderr, os.Exit)
	defer stop()
	w, err := iostore.NewWriter(out, &iostore.WriterOptions{Session: sess, Method: "None", Workers: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionReplaceIoChunkHashWithIoHash)
	r := &slowReader{left: 1 << 20, ready: os.Stdout}
	if err := w.AddChunk(id, "Game/Content/Big.ubulk", r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// stopInCommit runs the command line args as unrmod does, but stops before
// step k of a multi-file commit: it prints "commit step K" and blocks, for
// the test to kill it there.
func stopInCommit(k int, args []string) int {
	sess := newSession(os.Stderr)
	sess.CommitHook = func(step int) error {
		if step == k {
			fmt.Printf("commit step %d\n", step)
			for {
				time.Sleep(time.Hour)
			}
		}
		return nil
	}
	return runSession(sess, args, os.Stdout, os.Stderr)
}

// slowReader gives left zero bytes, then writes "ready" and blocks.
type slowReader struct {
	left  int
	ready io.Writer
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		fmt.Fprintln(r.ready, "ready")
		select {}
	}
	n := min(len(p), r.left)
	clear(p[:n])
	r.left -= n
	return n, nil
}

// staged lists the temporary files in dir.
func staged(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if m, _ := filepath.Match(".*.unrmod-*.tmp", e.Name()); m {
			out = append(out, e.Name())
		}
	}
	return out
}

// beforeTimeout returns a channel that receives shortly before the test
// binary's -timeout ends it, so that a test waiting for something that
// never happens fails naming what it waited for instead of in the binary's
// panic. Without a timeout the channel never receives. It sets no time
// limit of its own: a slow machine (or -race) only makes the wait longer.
func beforeTimeout(t *testing.T) <-chan time.Time {
	deadline, ok := t.Deadline()
	if !ok {
		return nil
	}
	// Leave the binary the time to report the failure and clean up.
	margin := time.Until(deadline) / 20
	return time.After(time.Until(deadline) - margin)
}

// expired reports whether the channel of beforeTimeout has received.
func expired(stop <-chan time.Time) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
