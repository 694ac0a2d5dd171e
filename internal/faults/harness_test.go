//go:build linux

package faults

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
)

// EnvVar turns the harness on; without it TestFaults skips.
const EnvVar = "UNRMOD_FAULTS"

var (
	seedFlag     = flag.Uint64("seed", 1, "faults: the seed every random choice derives from")
	runsFlag     = flag.Int("runs", 100, "faults: kills per scenario and damaged copies per kind of input")
	onlyFlag     = flag.String("only", "", "faults: run only the scenarios whose name matches this regexp")
	fullFlag     = flag.String("full", "auto", "faults: how to fill the disk: tmpfs (mount a small one), rlimit (prlimit --fsize) or auto (tmpfs when mounting works)")
	refusalsFlag = flag.Bool("refusals", false, "faults: log why each command on a damaged input was refused")
	timeoutFlag  = flag.Duration("hang", 60*time.Second, "faults: a command still running after this long is a hang")
)

// tempFile matches the temporary files of safefile: .NAME.unrmod-DIGITS.tmp.
var tempFile = regexp.MustCompile(`^\..*\.unrmod-[0-9]+\.tmp$`)

// harness is the state of one TestFaults run.
type harness struct {
	t       *testing.T
	bin     string // the unrmod binary under test
	corpus  string // the corpus root
	work    string // scratch root
	seed    uint64
	runs    int
	only    *regexp.Regexp
	hang    time.Duration
	rows    []*tally // in the order they were first used
	byName  map[string]*tally
	viols   []violation
	started time.Time
}

// tally counts the outcomes of one scenario.
type tally struct {
	section, name string
	runs          int // commands started with a fault (kill, full disk, damaged input)
	kills         int // kills that landed while the command ran
	finished      int // the command ended before the kill
	forward       int // the output is the complete new one
	interrupted   int // killed in its commit: verify names it, recover or the next run finishes it
	untouched     int // the output is absent or the old one
	partial       int // extract over an old output: some files renamed into place, none broken
	runsNew       int // extract: runs without an old output (a new folder, all or nothing)
	ok            int // damaged input: the command succeeded
	refused       int // the command failed cleanly (exit 1)
	panics        int
	hangs         int
	violations    int
	note          string
}

// violation is one broken invariant, with what a person needs to reproduce it.
type violation struct {
	section, scenario string
	kind              string // the message up to its details, to count alike violations
	run               int
	cmd               string
	what              string
}

func (h *harness) row(section, name string) *tally {
	key := section + "/" + name
	if r := h.byName[key]; r != nil {
		return r
	}
	r := &tally{section: section, name: name}
	h.byName[key] = r
	h.rows = append(h.rows, r)
	return r
}

// fail records a violation of scenario's invariants in run (its index, which
// with -seed and -only reproduces it).
func (h *harness) fail(r *tally, run int, cmd, format string, args ...any) {
	r.violations++
	kind := format
	if i := strings.IndexAny(kind, ":%("); i >= 0 {
		kind = kind[:i]
	}
	v := violation{section: r.section, scenario: r.name, run: run, cmd: cmd, what: fmt.Sprintf(format, args...), kind: strings.TrimSpace(kind)}
	h.viols = append(h.viols, v)
	h.t.Logf("VIOLATION %s/%s run %d (seed %d): %s\n    command: %s", v.section, v.scenario, run, h.seed, v.what, cmd)
}

// selected reports whether the scenario runs under -only.
func (h *harness) selected(section, name string) bool {
	return h.only == nil || h.only.MatchString(section+"/"+name)
}

// rng returns the random source of one run of one scenario: it depends on the
// seed, the scenario and the run index only, so that -only reproduces a run
// without the others.
func (h *harness) rng(scenario string, run int) *rand.Rand {
	f := fnv.New64a()
	io.WriteString(f, scenario)
	return rand.New(rand.NewPCG(h.seed, f.Sum64()^uint64(run)*0x9e3779b97f4a7c15))
}

// TestFaults is the kill, disk-full and damaged-input harness. It runs only
// with UNRMOD_FAULTS=1.
func TestFaults(t *testing.T) {
	if os.Getenv(EnvVar) == "" {
		t.Skipf("set %s=1 to run the kill and fault harness (a few minutes)", EnvVar)
	}
	if os.Getenv(corpus.EnvVar) == "" {
		t.Fatalf("the harness needs the corpus: set %s", corpus.EnvVar)
	}
	h := &harness{
		t:       t,
		corpus:  corpus.Dir(t),
		work:    t.TempDir(),
		seed:    *seedFlag,
		runs:    *runsFlag,
		hang:    *timeoutFlag,
		byName:  map[string]*tally{},
		started: time.Now(),
	}
	if *onlyFlag != "" {
		h.only = regexp.MustCompile(*onlyFlag)
	}
	h.bin = filepath.Join(h.work, "unrmod")
	build := exec.Command("go", "build", "-o", h.bin, "github.com/unrmod/unrmod/cmd/unrmod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building unrmod: %v\n%s", err, out)
	}
	t.Logf("seed %d, runs %d, unrmod built at %s", h.seed, h.runs, h.bin)

	h.killSection()
	h.diskFullSection()
	h.damageSection()

	h.report()
	if len(h.viols) > 0 {
		t.Errorf("%d invariant violations (each is listed above with its scenario, run and command; rerun with -seed %d -runs %d -only SECTION/SCENARIO)", len(h.viols), h.seed, h.runs)
	}
}

// report prints the summary table, as Markdown, on standard output.
func (h *harness) report() {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\nunrmod fault harness: seed %d, runs %d, %s\n\n", h.seed, h.runs, time.Since(h.started).Round(time.Second))
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| section\t scenario\t runs\t kills\t done first\t rolled forward\t untouched\t mid-commit\t partial\t ok\t refused\t panics\t hangs\t violations\t")
	fmt.Fprintln(tw, "|---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t")
	var sum tally
	for _, r := range h.rows {
		fmt.Fprintf(tw, "| %s\t %s\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t\n", r.section, r.name, r.runs, r.kills, r.finished, r.forward, r.untouched, r.interrupted, r.partial, r.ok, r.refused, r.panics, r.hangs, r.violations)
		sum.runs += r.runs
		sum.kills += r.kills
		sum.finished += r.finished
		sum.forward += r.forward
		sum.interrupted += r.interrupted
		sum.untouched += r.untouched
		sum.partial += r.partial
		sum.ok += r.ok
		sum.refused += r.refused
		sum.panics += r.panics
		sum.hangs += r.hangs
		sum.violations += r.violations
	}
	fmt.Fprintf(tw, "| **total**\t \t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t %d\t\n", sum.runs, sum.kills, sum.finished, sum.forward, sum.untouched, sum.interrupted, sum.partial, sum.ok, sum.refused, sum.panics, sum.hangs, sum.violations)
	tw.Flush()
	// tabwriter.Debug separates columns with '|'; the Markdown needs the
	// leading one only once.
	out := strings.ReplaceAll(b.String(), "||", "|")
	for _, r := range h.rows {
		if r.note != "" {
			out += fmt.Sprintf("\n%s/%s: %s", r.section, r.name, r.note)
		}
	}
	if len(h.viols) > 0 {
		count := map[string]int{}
		for _, v := range h.viols {
			count[v.section+"/"+v.scenario+": "+v.kind]++
		}
		out += "\n\nViolations by kind:\n"
		for _, k := range keys(count) {
			out += fmt.Sprintf("  %4d  %s\n", count[k], k)
		}
		out += "\nViolations:\n"
		for _, v := range h.viols {
			out += fmt.Sprintf("  %s/%s run %d: %s\n      $ %s\n", v.section, v.scenario, v.run, v.what, v.cmd)
		}
		out += fmt.Sprintf("Reproduce one with: UNRMOD_FAULTS=1 go test ./internal/faults -run TestFaults -v -args -seed %d -runs %d -only 'SECTION/SCENARIO'\n", h.seed, h.runs)
		out += "(damage and disk-full runs repeat exactly; a kill lands at the same share of the measured run time, not always at the same point of the work)\n"
	}
	fmt.Println(out)
}

// result is how one unrmod run ended.
type result struct {
	args    []string
	code    int // exit status; -1 when killed by a signal
	stdout  string
	stderr  string
	dur     time.Duration
	killed  bool // our SIGKILL ended it
	hung    bool // the hang timeout ended it
	signal  syscall.Signal
	started bool
}

// cmdline is how a person types the command, run in dir.
func cmdline(dir string, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " '\"*?[]$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return "(cd " + dir + " && unrmod " + strings.Join(q, " ") + ")"
}

// panicked reports whether the run died in a Go panic or runtime fault, or
// recovered from one (the CLI prints "internal error" and the stack).
func (r result) panicked() bool {
	return strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") && strings.Contains(r.stderr, "[running]") ||
		strings.Contains(r.stderr, "fatal error:")
}

// panicLine returns the line of stderr that says how the run died.
func panicLine(stderr string) string {
	for _, key := range []string{"panic:", "fatal error:", "internal error:", "goroutine "} {
		if i := strings.Index(stderr, key); i >= 0 {
			return firstLine(stderr[i:])
		}
	}
	return firstLine(stderr)
}

// run runs unrmod in dir and waits for it (at most the hang timeout).
func (h *harness) run(dir string, args ...string) result {
	return h.start(dir, -1, nil, args...)
}

// start runs unrmod in dir; with kill >= 0 it sends SIGKILL after kill.
// wrap, when set, turns the command line into another one (a shell applying
// a resource limit).
func (h *harness) start(dir string, kill time.Duration, wrap func([]string) []string, args ...string) result {
	res := result{args: args}
	argv := append([]string{h.bin}, args...)
	if wrap != nil {
		argv = wrap(argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	// The runs lock files and remember checked containers in folders of
	// their own, not the user's cache; the remembered checks are shared
	// by all runs, so that a run killed or damaged after another checked
	// its input meets that record.
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "UNRMOD_LOCK_DIR="+filepath.Join(h.work, "locks"),
		"UNRMOD_CACHE_DIR="+filepath.Join(h.work, "cache"))
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		res.code = -1
		res.stderr = err.Error()
		return res
	}
	res.started = true
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var killC <-chan time.Time
	if kill >= 0 {
		kt := time.NewTimer(kill)
		defer kt.Stop()
		killC = kt.C
	}
	hang := time.NewTimer(h.hang)
	defer hang.Stop()
	var err error
	select {
	case err = <-done:
	case <-killC:
		cmd.Process.Signal(syscall.SIGKILL)
		err = <-done
	case <-hang.C:
		res.hung = true
		cmd.Process.Signal(syscall.SIGKILL)
		err = <-done
	}
	res.dur = time.Since(t0)
	res.stdout, res.stderr = so.String(), se.String()
	res.code = 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal()
			res.killed = ws.Signal() == syscall.SIGKILL && !res.hung && kill >= 0
		}
	} else if err != nil {
		res.code = -1
	}
	return res
}

// hashFile returns the SHA-256 of path, or "" when it does not exist.
func hashFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := sha256.New()
	if _, err := io.Copy(s, f); err != nil {
		return "unreadable:" + err.Error()
	}
	return hex.EncodeToString(s.Sum(nil))
}

// snapshot maps every regular file under dir (relative, slash-separated) to
// its hash.
func snapshot(dir string) map[string]string {
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = hashFile(p)
		return nil
	})
	return m
}

// tempFiles lists the temporary files of unrmod left under dir.
func tempFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && tempFile.MatchString(d.Name()) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// copyFile copies src to dst (creating dst's folder) with mode 0644.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyTree copies the regular files under src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return copyFile(p, filepath.Join(dst, rel))
	})
}

// firstLine returns the first line of s, cut to a readable length.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// keys returns the sorted keys of m.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
