//go:build linux

package faults

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fullFractions are how much of a scenario's new output fits on the file
// system when the command runs.
var fullFractions = []float64{0, 0.1, 0.5, 0.9}

// diskFullSection runs every write scenario with too little free space: on
// a small tmpfs when this process may mount one, otherwise under
// RLIMIT_FSIZE (prlimit --fsize).
func (h *harness) diskFullSection() {
	extracted, err := h.extractedInput()
	if err != nil {
		h.t.Fatalf("disk full: %v", err)
	}
	mnt := filepath.Join(h.work, "mnt")
	os.MkdirAll(mnt, 0o755)
	method := *fullFlag
	switch method {
	case "auto":
		method = "tmpfs"
		if err := mountTmpfs(mnt); err != nil {
			method = "rlimit"
			h.t.Logf("disk full: cannot mount a tmpfs (%v); limiting the file size with prlimit --fsize instead", err)
		} else {
			syscall.Unmount(mnt, 0)
		}
	case "tmpfs", "rlimit":
	default:
		h.t.Fatalf("-full %q: want tmpfs, rlimit or auto", method)
	}
	for _, sc := range h.scenarios(extracted) {
		if !h.selected("diskfull", sc.name) {
			continue
		}
		r := h.row("diskfull", sc.name)
		ref := h.prepare(sc)
		if ref.fail != "" {
			h.fail(r, -1, strings.Join(sc.args, " "), "cannot run the scenario: %s", ref.fail)
			continue
		}
		r.note = fmt.Sprintf("%s; %d output bytes; free space %v of it", method, ref.outSize, fullFractions)
		// Each share of free space, with no output yet and, where the
		// command has one, over an old output.
		olds := []bool{false}
		if sc.oldArgs != nil {
			olds = append(olds, true)
		}
		i := 0
		for _, frac := range fullFractions {
			for _, withOld := range olds {
				h.diskFullRun(r, sc, ref, i, frac, withOld, method, mnt)
				i++
			}
		}
	}
}

func mountTmpfs(mnt string) error {
	return syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64m,mode=0755")
}

// diskFullRun runs a scenario with frac of its new output's size free, over
// an old output when withOld is set.
func (h *harness) diskFullRun(r *tally, sc *scenario, ref *reference, i int, frac float64, withOld bool, method, mnt string) {
	free := int64(frac * float64(ref.outSize))
	var dir string
	var wrap func([]string) []string
	if method == "tmpfs" {
		if err := mountTmpfs(mnt); err != nil {
			h.t.Fatalf("disk full: mount: %v", err)
		}
		defer syscall.Unmount(mnt, syscall.MNT_DETACH)
		dir = filepath.Join(mnt, "w")
	} else {
		dir = filepath.Join(h.work, "diskfull", sc.name, fmt.Sprint(i))
		defer os.RemoveAll(dir)
		wrap = func(argv []string) []string {
			return append([]string{"prlimit", fmt.Sprintf("--fsize=%d", free)}, argv...)
		}
	}
	if err := sc.setup(h, dir); err != nil {
		h.t.Fatalf("disk full %s: setup: %v", sc.name, err)
	}
	if withOld {
		if res := h.run(dir, sc.oldArgs...); res.code != 0 {
			h.fail(r, i, cmdline(dir, sc.oldArgs), "the run writing the old output failed: %s", firstLine(res.stderr))
			return
		}
	}
	orig := sc.inputHashes(dir)
	pre := sc.outputHashes(dir, ref)
	before := snapshot(dir)
	filler := filepath.Join(mnt, "filler")
	if method == "tmpfs" {
		if err := fill(filler, mnt, free); err != nil {
			h.t.Fatalf("disk full: filling the tmpfs: %v", err)
		}
	}
	cmd := cmdline(dir, sc.args) + fmt.Sprintf("  # %s, %d bytes free (%.0f%% of the output), old output: %v", method, free, frac*100, withOld)

	r.runs++
	res := h.start(dir, -1, wrap, sc.args...)
	switch {
	case res.hung:
		r.hangs++
		h.fail(r, i, cmd, "no exit after %v", h.hang)
		return
	case res.panicked():
		r.panics++
		h.fail(r, i, cmd, "panic: %s", panicLine(res.stderr))
		return
	case res.code == 0:
		// It fitted after all (the file system rounds to pages): the
		// output must then be the complete new one.
		r.ok++
		if out, why := sc.judge(sc.outputHashes(dir, ref), pre, ref, pre[sc.inPlace]); out != outForward {
			h.fail(r, i, cmd, "exit 0 on a full disk without the complete output: %s", why)
		}
	case res.code == 1:
		r.refused++
		msg := strings.ToLower(res.stderr)
		if !strings.Contains(msg, "no space left") && !strings.Contains(msg, "file too large") && !strings.Contains(msg, "disk full") {
			h.fail(r, i, cmd, "the message does not say the disk is full: %s", firstLine(res.stderr))
		}
		if ch := changedInputs(orig, sc.inputHashes(dir)); len(ch) > 0 {
			h.fail(r, i, cmd, "inputs changed: %s", list(ch, ", "))
		}
		if out, why := sc.judge(sc.outputHashes(dir, ref), pre, ref, pre[sc.inPlace]); out != outUntouched {
			if why == "" {
				why = "outputs were replaced by a run that failed"
			}
			h.fail(r, i, cmd, "old outputs not left as they were: %s", why)
		}
		var left []string
		after := snapshot(dir)
		for f := range after {
			if _, ok := before[f]; !ok {
				left = append(left, f)
			}
		}
		if len(left) > 0 {
			h.fail(r, i, cmd, "files left by a failed run: %s", list(left, ", "))
		}
	default:
		h.fail(r, i, cmd, "exit status %d (signal %v), want 1: %s", res.code, res.signal, firstLine(res.stderr))
	}

	// With space again, a normal run completes the output.
	os.Remove(filler)
	again := h.run(dir, sc.args...)
	follow := cmdline(dir, sc.args) + "  # with space again, after " + cmd
	if again.code != 0 {
		h.fail(r, i, follow, "the run with space again failed (exit %d): %s", again.code, firstLine(again.stderr+again.stdout))
		return
	}
	if out, why := sc.judge(sc.outputHashes(dir, ref), pre, ref, pre[sc.inPlace]); out != outForward {
		h.fail(r, i, follow, "the run with space again did not complete the output: %s", why)
	}
	if tmp := tempFiles(dir); len(tmp) > 0 {
		h.fail(r, i, follow, "temporary files left: %s", list(tmp, ", "))
	}
}

// fill writes a file at path until the file system of dir has about free
// bytes left.
func fill(path, dir string, free int64) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return err
	}
	avail := int64(st.Bavail) * int64(st.Bsize)
	n := avail - free
	if n <= 0 {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, int64(len(buf)))
		w, err := f.Write(buf[:k])
		n -= int64(w)
		if err != nil {
			f.Close()
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
	return f.Close()
}
