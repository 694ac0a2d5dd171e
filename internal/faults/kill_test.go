//go:build linux

package faults

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/unrmod/unrmod/safefile"
)

// killSection runs every write scenario -runs times, each time killing the
// command with SIGKILL after a random delay spread over its run time.
func (h *harness) killSection() {
	extracted, err := h.extractedInput()
	if err != nil {
		h.t.Fatalf("kill: %v", err)
	}
	for _, sc := range h.scenarios(extracted) {
		if !h.selected("kill", sc.name) {
			continue
		}
		r := h.row("kill", sc.name)
		ref := h.prepare(sc)
		if ref.fail != "" {
			h.fail(r, -1, strings.Join(sc.args, " "), "cannot run the scenario: %s", ref.fail)
			continue
		}
		for i := 0; i < h.runs; i++ {
			h.killRun(r, sc, ref, i)
		}
		r.note = fmt.Sprintf("normal run %v (median of %d); kills at 0–110%% of it", ref.runTime().Round(time.Millisecond), len(ref.durs))
		if sc.outDir != "" {
			r.note += fmt.Sprintf("; %d runs into a new folder (a partial one is a violation), %d over an old output", r.runsNew, r.runs-r.runsNew)
		}
	}
}

// killRun is one run of a kill scenario.
func (h *harness) killRun(r *tally, sc *scenario, ref *reference, i int) {
	rng := h.rng("kill/"+sc.name, i)
	dir := filepath.Join(h.work, "kill", sc.name, fmt.Sprint(i))
	defer os.RemoveAll(dir)
	if err := sc.setup(h, dir); err != nil {
		h.t.Fatalf("kill %s: setup: %v", sc.name, err)
	}
	withOld := sc.oldArgs != nil && rng.IntN(2) == 0
	if withOld {
		if res := h.run(dir, sc.oldArgs...); res.code != 0 {
			h.fail(r, i, cmdline(dir, sc.oldArgs), "the run writing the old output failed: %s", firstLine(res.stderr))
			return
		}
	}
	orig := sc.inputHashes(dir)
	pre := sc.outputHashes(dir, ref)
	// The seed picks where in the run the kill lands; the delay is that
	// share of the run time measured so far.
	share := rng.Float64() * 1.1
	delay := time.Duration(share * float64(ref.runTime()))
	cmd := cmdline(dir, sc.args) + fmt.Sprintf("  # SIGKILL after %v (%.0f%% of a normal run), old output: %v", delay.Round(time.Microsecond), share*100, withOld)

	r.runs++
	if sc.outDir != "" && !withOld {
		r.runsNew++
	}
	res := h.start(dir, delay, nil, sc.args...)
	switch {
	case res.hung:
		r.hangs++
		h.fail(r, i, cmd, "no exit after %v", h.hang)
		return
	case res.panicked():
		r.panics++
		h.fail(r, i, cmd, "panic: %s", panicLine(res.stderr))
		return
	case res.killed:
		r.kills++
	case res.code == 0:
		r.finished++
	default:
		h.fail(r, i, cmd, "the command failed without a fault (exit %d): %s", res.code, firstLine(res.stderr))
		return
	}

	if ch := changedInputs(orig, sc.inputHashes(dir)); len(ch) > 0 {
		h.fail(r, i, cmd, "inputs changed: %s", list(ch, ", "))
	}
	out, why := sc.judge(sc.outputHashes(dir, ref), pre, ref, pre[sc.inPlace])
	switch out {
	case outForward:
		r.forward++
	case outUntouched:
		r.untouched++
	case outPartial:
		// A new output folder is staged and renamed whole: only a merge
		// into an existing one may be left part done.
		if !withOld {
			h.fail(r, i, cmd, "after the kill: part of the new output folder %s is there", sc.outDir)
			break
		}
		r.partial++
	case outBroken:
		// A kill during a commit's renames leaves a mix of old and new
		// files with the commit record beside them: that state is promised
		// to be reported by verify and finished by recover or by the next
		// write (docs/writes.md), and it is judged by that.
		recs := commitRecords(dir)
		if len(recs) == 0 {
			h.fail(r, i, cmd, "after the kill: %s", why)
			break
		}
		r.interrupted++
		for _, d := range recordDirs(dir, recs) {
			v := h.run(dir, "verify", d)
			if v.code != 1 || !strings.Contains(v.stdout, "commit record: ") {
				h.fail(r, i, cmd, "after the kill: %s, and verify %s does not name the interrupted write (exit %d): %s", why, d, v.code, firstLine(v.stdout+v.stderr))
			}
		}
		if rng.IntN(2) == 0 {
			break // the normal run below finishes it
		}
		for _, d := range recordDirs(dir, recs) {
			if rec := h.run(dir, "recover", d); rec.code != 0 || !strings.Contains(rec.stderr, "finished an interrupted unrmod write") {
				h.fail(r, i, cmd, "recover %s after the kill failed (exit %d): %s", d, rec.code, firstLine(rec.stderr+rec.stdout))
			}
		}
		if out, why := sc.judge(sc.outputHashes(dir, ref), pre, ref, pre[sc.inPlace]); out != outForward {
			h.fail(r, i, cmd, "recover did not complete the interrupted write: %s", why)
		}
		if len(commitRecords(dir)) > 0 {
			h.fail(r, i, cmd, "recover left commit records: %s", list(commitRecords(dir), ", "))
		}
	}

	// A person runs the command again: it must complete the output and
	// leave nothing behind.
	again := h.run(dir, sc.args...)
	follow := cmdline(dir, sc.args) + "  # the normal run after " + cmd
	if again.code != 0 || again.panicked() || again.hung {
		h.fail(r, i, follow, "the run after the kill failed (exit %d): %s", again.code, firstLine(again.stderr+again.stdout))
		return
	}
	ref.durs = append(ref.durs, again.dur)
	if ch := changedInputs(orig, sc.inputHashes(dir)); len(ch) > 0 {
		h.fail(r, i, follow, "inputs changed: %s", list(ch, ", "))
	}
	now := sc.outputHashes(dir, ref)
	var wrong []string
	for f, sum := range ref.new {
		if now[f] != sum {
			wrong = append(wrong, f+" is "+describe(now[f], pre[f], sum))
		}
	}
	if len(wrong) > 0 {
		h.fail(r, i, follow, "the run after the kill did not complete the output: %s", list(wrong, ", "))
	}
	if tmp := tempFiles(dir); len(tmp) > 0 {
		h.fail(r, i, follow, "temporary files left: %s", list(tmp, ", "))
	} else if s := strays(dir, ref); len(s) > 0 {
		h.fail(r, i, follow, "files a normal run does not leave: %s", list(s, ", "))
	}
}

// commitRecords lists the commit records (safefile.IsRecord) below dir,
// relative to it: what a run killed during its renames leaves.
func commitRecords(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && safefile.IsRecord(d.Name()) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// recordDirs returns the folders, relative to dir, that hold the records.
func recordDirs(dir string, recs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		d := path.Dir(r)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
