//go:build linux

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Corpus files the scenarios use (relative to the corpus root).
const (
	zlibUtoc    = "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	plainUtoc   = "iostore/cue4parse_ue5_8/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
	bigLegacy   = "legacy/ut99_stock/CTF-Face.unr"
	smallLegacy = "legacy/ut99_stock/Entry.unr"
	zlibName    = "CUE4ParseFixtures-Minimal-Zlib-Windows"
	plainName   = "CUE4ParseFixtures-Minimal-Uncompressed-Windows"
	curveFloat  = "/Game/Fixtures/Curves/Curve_Float"
)

// scenario is one write command run on fresh copies of its inputs.
type scenario struct {
	name     string
	setup    func(h *harness, dir string) error // lays the inputs into dir
	inputs   []string                           // files that must not change
	inputDir string                             // a folder whose files must not change
	args     []string                           // the command
	oldArgs  []string                           // writes an earlier output to the same place; nil: none
	outputs  [][]string                         // files that are written together
	outDir   string                             // every file under it is an output of its own (extract)
	inPlace  string                             // the file apply --in-place replaces (keeping FILE.bak)
	verify   []string                           // what `unrmod verify` must accept after a complete run
}

// reference is what a normal run of a scenario does.
type reference struct {
	orig    map[string]string // input file → hash
	old     map[string]string // output file → hash after oldArgs
	new     map[string]string // output file → hash after args
	listing map[string]bool   // every file in the folder after both
	durs    []time.Duration   // run times of normal runs of args (the kill section adds its own)
	outSize int64             // bytes of the new outputs
	fail    string            // why the scenario cannot run ("" when it can)
}

// containerFiles copies a corpus container (.utoc and its .ucas) into dir.
func (h *harness) containerFiles(dir, utoc string) error {
	for _, ext := range []string{".utoc", ".ucas"} {
		src := filepath.Join(h.corpus, strings.TrimSuffix(utoc, ".utoc")+ext)
		if err := copyFile(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			return err
		}
	}
	return nil
}

func containerOf(path string) []string { return []string{path + ".utoc", path + ".ucas"} }

// containerPatch is a patch that adds the name `name` to a package of the
// zlib container, written as mode (mod or full) to out.
func containerPatch(mode, out, name string) string {
	return fmt.Sprintf(`unrmod: 1
targets:
  - container: %s.utoc
    output: %s
    mode: %s
    packages:
      - package: %s
        ops:
          - add-name: {name: %s}
`, zlibName, out, mode, curveFloat, name)
}

// scenarios returns the write commands the kill and disk-full sections run.
// extracted is a folder holding the plain container extracted (pack's input).
func (h *harness) scenarios(extracted string) []*scenario {
	zlib := func(h *harness, dir string) error { return h.containerFiles(dir, zlibUtoc) }
	withPatch := func(mode, out string) func(*harness, string) error {
		return func(h *harness, dir string) error {
			if err := zlib(h, dir); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "new.yaml"), []byte(containerPatch(mode, out, "FaultsNew")), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "old.yaml"), []byte(containerPatch(mode, out, "FaultsOld")), 0o644)
		}
	}
	zin := containerOf(zlibName)
	return []*scenario{
		{
			name: "pack",
			setup: func(h *harness, dir string) error {
				if err := copyTree(extracted, filepath.Join(dir, "in")); err != nil {
					return err
				}
				return h.containerFiles(dir, plainUtoc)
			},
			inputs:   containerOf(plainName),
			inputDir: "in",
			args:     []string{"pack", "in", "-o", "out/z_Pack_P", "--base", plainName + ".utoc"},
			oldArgs:  []string{"pack", "in", "-o", "out/z_Pack_P", "--base", plainName + ".utoc", "--compression", "none"},
			outputs:  [][]string{{"out/z_Pack_P.utoc", "out/z_Pack_P.ucas", "out/z_Pack_P.pak"}},
			verify:   []string{"out/z_Pack_P.utoc"},
		},
		{
			name:    "rewrite-container-preserve",
			setup:   zlib,
			inputs:  zin,
			args:    []string{"rewrite", zlibName + ".utoc", "-o", "out/Game"},
			oldArgs: []string{"rewrite", zlibName + ".utoc", "-o", "out/Game", "--layout", "compact"},
			outputs: [][]string{containerOf("out/Game")},
			verify:  []string{"out/Game.utoc"},
		},
		{
			name:    "rewrite-container-compact",
			setup:   zlib,
			inputs:  zin,
			args:    []string{"rewrite", zlibName + ".utoc", "-o", "out/Game", "--layout", "compact"},
			oldArgs: []string{"rewrite", zlibName + ".utoc", "-o", "out/Game"},
			outputs: [][]string{containerOf("out/Game")},
			verify:  []string{"out/Game.utoc"},
		},
		{
			name: "rewrite-legacy-compact",
			setup: func(h *harness, dir string) error {
				if err := copyFile(filepath.Join(h.corpus, smallLegacy), filepath.Join(dir, "Entry.unr")); err != nil {
					return err
				}
				return copyFile(filepath.Join(h.corpus, bigLegacy), filepath.Join(dir, "CTF-Face.unr"))
			},
			inputs: []string{"CTF-Face.unr", "Entry.unr"},
			args:   []string{"rewrite", "CTF-Face.unr", "-o", "out/CTF-Face.unr", "--layout", "compact"},
			// The corpus packages come out of compact byte for byte, so
			// the old output is another package written there before.
			oldArgs: []string{"rewrite", "Entry.unr", "-o", "out/CTF-Face.unr"},
			outputs: [][]string{{"out/CTF-Face.unr"}},
			verify:  []string{"out/CTF-Face.unr"},
		},
		{
			name:    "apply-container-mod",
			setup:   withPatch("mod", "out/z_Faults_P"),
			inputs:  append(slices.Clone(zin), "new.yaml", "old.yaml"),
			args:    []string{"apply", "new.yaml"},
			oldArgs: []string{"apply", "old.yaml"},
			outputs: [][]string{{"out/z_Faults_P.utoc", "out/z_Faults_P.ucas", "out/z_Faults_P.pak"}},
			verify:  []string{"out/z_Faults_P.utoc"},
		},
		{
			name:    "apply-container-full",
			setup:   withPatch("full", "full/"+zlibName+".utoc"),
			inputs:  append(slices.Clone(zin), "new.yaml", "old.yaml"),
			args:    []string{"apply", "new.yaml"},
			oldArgs: []string{"apply", "old.yaml"},
			outputs: [][]string{containerOf("full/" + zlibName)},
			verify:  []string{"full/" + zlibName + ".utoc"},
		},
		{
			name: "apply-legacy-in-place",
			setup: func(h *harness, dir string) error {
				if err := copyFile(filepath.Join(h.corpus, bigLegacy), filepath.Join(dir, "CTF-Face.unr")); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(dir, "patch.yaml"), []byte("unrmod: 1\ntargets:\n  - file: CTF-Face.unr\n    ops:\n      - add-name: {name: FaultsNew}\n"), 0o644)
			},
			inputs:  []string{"patch.yaml"},
			args:    []string{"apply", "patch.yaml", "--in-place"},
			inPlace: "CTF-Face.unr",
			outputs: [][]string{{"CTF-Face.unr", "CTF-Face.unr.bak"}},
			verify:  []string{"CTF-Face.unr"},
		},
		{
			name:    "extract",
			setup:   zlib,
			inputs:  zin,
			args:    []string{"extract", zlibName + ".utoc", "-o", "ex"},
			oldArgs: []string{"extract", zlibName + ".utoc", "-o", "ex", "--filter", "*.umap"},
			outDir:  "ex",
			verify:  []string{"ex"},
		},
	}
}

// inputHashes hashes the scenario's inputs in dir.
func (sc *scenario) inputHashes(dir string) map[string]string {
	m := map[string]string{}
	for _, f := range sc.inputs {
		m[f] = hashFile(filepath.Join(dir, f))
	}
	if sc.inputDir != "" {
		for f, sum := range snapshot(filepath.Join(dir, sc.inputDir)) {
			m[sc.inputDir+"/"+f] = sum
		}
	}
	return m
}

// outputHashes hashes the scenario's outputs in dir ("" for a missing file).
func (sc *scenario) outputHashes(dir string, ref *reference) map[string]string {
	m := map[string]string{}
	for _, g := range sc.outputs {
		for _, f := range g {
			m[f] = hashFile(filepath.Join(dir, f))
		}
	}
	if sc.outDir != "" {
		for f, sum := range snapshot(filepath.Join(dir, sc.outDir)) {
			// A killed run may leave its temporary files: they are
			// checked after the run that follows it.
			if !tempFile.MatchString(filepath.Base(f)) {
				m[sc.outDir+"/"+f] = sum
			}
		}
		if ref != nil {
			for f := range ref.new {
				if _, ok := m[f]; !ok {
					m[f] = ""
				}
			}
		}
	}
	return m
}

// groups returns the files that are committed together: the declared
// groups, or one group per file under outDir.
func (sc *scenario) groups(outs map[string]string) [][]string {
	if sc.outDir == "" {
		return sc.outputs
	}
	var gs [][]string
	for _, f := range keys(outs) {
		gs = append(gs, []string{f})
	}
	return gs
}

// changedInputs lists the inputs whose bytes differ from orig.
func changedInputs(orig, now map[string]string) []string {
	var out []string
	for f, sum := range orig {
		if now[f] != sum {
			out = append(out, f)
		}
	}
	for f := range now {
		if _, ok := orig[f]; !ok {
			out = append(out, f+" (new file among the inputs)")
		}
	}
	sort.Strings(out)
	return out
}

// outcome names the state of a scenario's outputs after an interrupted run.
type outcome int

const (
	outUntouched outcome = iota // every output absent or as before
	outForward                  // every output the complete new one
	outPartial                  // some outputs new, the others as before (per-file outputs only)
	outBroken                   // a file or group in none of these states
)

// judge compares the outputs now with what they were before the run (pre)
// and with the complete new outputs; it returns the outcome and, when
// broken, why.
func (sc *scenario) judge(now, pre map[string]string, ref *reference, origInPlace string) (outcome, string) {
	var news, olds, both int
	var problems []string
	for _, g := range sc.groups(now) {
		canOld, canNew := true, true
		var desc []string
		for _, f := range g {
			cur := now[f]
			isOld := cur == pre[f]
			isNew := cur == ref.new[f]
			canOld = canOld && isOld
			canNew = canNew && isNew
			desc = append(desc, fmt.Sprintf("%s is %s", f, describe(cur, pre[f], ref.new[f])))
		}
		// apply --in-place may copy the original to FILE.bak before it
		// replaces FILE: the original in both places is still untouched.
		if sc.inPlace != "" && !canOld && !canNew && now[sc.inPlace] == origInPlace && now[sc.inPlace+".bak"] == origInPlace {
			canOld = true
		}
		switch {
		case canNew && canOld: // the old output is the new one
			both++
		case canNew:
			news++
		case canOld:
			olds++
		default:
			problems = append(problems, strings.Join(desc, ", "))
		}
	}
	switch {
	case len(problems) > 0:
		return outBroken, "outputs in no consistent state: " + list(problems, "; ")
	case news > 0 && olds > 0:
		if sc.outDir == "" {
			return outBroken, "some outputs new, others old"
		}
		return outPartial, ""
	case news > 0 || both > 0 && olds == 0:
		return outForward, ""
	}
	return outUntouched, ""
}

// describe names the state of a file's bytes.
func describe(cur, pre, new string) string {
	switch {
	case cur == "" && pre == "":
		return "absent"
	case cur == "":
		return "gone (it existed before)"
	case cur == pre && cur == new:
		return "old = new"
	case cur == pre:
		return "old"
	case cur == new:
		return "new"
	case pre == "":
		return "neither absent nor the new output (partial or foreign)"
	}
	return "neither the old nor the new output (partial or foreign)"
}

// strays lists files in dir that a normal run does not leave, including
// unrmod temporary files.
func strays(dir string, ref *reference) []string {
	var out []string
	for f := range snapshot(dir) {
		if !ref.listing[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// prepare runs the scenario normally in fresh folders: it records the
// inputs, old and new outputs and the run time, and checks that the new
// outputs verify and are the same every time.
func (h *harness) prepare(sc *scenario) *reference {
	ref := &reference{}
	var durs []time.Duration
	for i := 0; i < 3; i++ {
		dir := filepath.Join(h.work, "ref", sc.name, fmt.Sprint(i))
		if err := sc.setup(h, dir); err != nil {
			ref.fail = "setup: " + err.Error()
			return ref
		}
		orig := sc.inputHashes(dir)
		var old map[string]string
		if sc.oldArgs != nil {
			if r := h.run(dir, sc.oldArgs...); r.code != 0 {
				ref.fail = fmt.Sprintf("the old run failed: %s: %s", cmdline(dir, sc.oldArgs), firstLine(r.stderr))
				return ref
			}
			old = sc.outputHashes(dir, nil)
		}
		r := h.run(dir, sc.args...)
		if r.code != 0 {
			ref.fail = fmt.Sprintf("a normal run failed: %s: %s", cmdline(dir, sc.args), firstLine(r.stderr))
			return ref
		}
		durs = append(durs, r.dur)
		newOut := sc.outputHashes(dir, nil)
		if i == 0 {
			ref.orig, ref.old, ref.new = orig, old, newOut
			if v := h.run(dir, append([]string{"verify"}, sc.verify...)...); v.code != 0 {
				ref.fail = fmt.Sprintf("the output of a normal run does not verify: %s", firstLine(v.stdout+v.stderr))
				return ref
			}
			ref.listing = map[string]bool{}
			for f := range snapshot(dir) {
				ref.listing[f] = true
			}
			for f := range newOut {
				if strings.HasSuffix(f, ".bak") {
					continue // the original, renamed: not written anew
				}
				if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
					ref.outSize += st.Size()
				}
			}
		} else if !mapsEqual(newOut, ref.new) {
			ref.fail = "two normal runs wrote different outputs; the harness needs a deterministic command"
			return ref
		}
		os.RemoveAll(dir)
	}
	ref.durs = durs
	return ref
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// extractedInput extracts the plain container once: pack's input.
func (h *harness) extractedInput() (string, error) {
	dir := filepath.Join(h.work, "cache")
	if err := h.containerFiles(dir, plainUtoc); err != nil {
		return "", err
	}
	if r := h.run(dir, "extract", plainName+".utoc", "-o", "ex"); r.code != 0 {
		return "", fmt.Errorf("extract for pack's input: %s", firstLine(r.stderr))
	}
	return filepath.Join(dir, "ex"), nil
}

// list joins items, naming only the first few of a long list.
func list(items []string, sep string) string {
	const most = 4
	if len(items) > most {
		return strings.Join(items[:most], sep) + fmt.Sprintf("%s… and %d more", sep, len(items)-most)
	}
	return strings.Join(items, sep)
}

// runTime is the median of the normal runs' times: the machine's load
// changes while the harness runs, so each normal run after a kill adds its
// time.
func (ref *reference) runTime() time.Duration {
	d := slices.Clone(ref.durs)
	slices.Sort(d)
	return d[len(d)/2]
}
