//go:build linux

package faults

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
)

// damage is one change made to a copy of an input file.
type damage struct {
	file  string // the file changed (relative to the run's folder)
	where string // the region aimed at, if any
	op    string // flip, zero or truncate
	off   int64
	n     int64 // bytes zeroed; the xor mask of a flip
}

func (d damage) String() string {
	s := d.describe()
	if d.where != "" {
		s += " (" + d.where + ")"
	}
	return s
}

func (d damage) describe() string {
	switch d.op {
	case "flip":
		return fmt.Sprintf("%s: byte 0x%x xor 0x%02x", d.file, d.off, d.n)
	case "zero":
		return fmt.Sprintf("%s: %d bytes zeroed at 0x%x", d.file, d.n, d.off)
	case "replace":
		return fmt.Sprintf("%s: byte 0x%x set to %q", d.file, d.off, rune(d.n))
	case "delete":
		return fmt.Sprintf("%s: %d bytes deleted at 0x%x", d.file, d.n, d.off)
	}
	return fmt.Sprintf("%s: truncated to %d bytes", d.file, d.off)
}

// region is a part of a file that damage is aimed at: the structures a
// reader trusts (headers, tables, block entries). With stride set, the
// damage hits byte at of one of its stride-sized entries (a block entry's
// method index, say).
type region struct {
	name       string
	off, size  int64
	stride, at int64
}

// pick returns an offset inside the region.
func (r region) pick(rng *rand.Rand) int64 {
	if r.stride > 0 && r.size >= r.stride {
		return r.off + r.stride*rng.Int64N(r.size/r.stride) + r.at
	}
	return r.off + rng.Int64N(r.size)
}

// planDamage picks a damage to a file of size bytes: three times in four
// inside one of regions (picked evenly, so that small tables are hit as
// often as big ones), otherwise anywhere in the file.
func planDamage(rng *rand.Rand, file string, size int64, regions []region) damage {
	d := damage{file: file}
	if size <= 0 {
		return damage{file: file, op: "truncate"}
	}
	var in []region
	for _, r := range regions {
		if r.size > 0 && r.off+r.size <= size {
			in = append(in, r)
		}
	}
	d.off = rng.Int64N(size)
	if len(in) > 0 && rng.IntN(4) != 0 {
		r := in[rng.IntN(len(in))]
		d.off, d.where = r.pick(rng), r.name
	}
	switch p := rng.IntN(10); {
	case p < 5:
		d.op, d.n = "flip", int64(1+rng.IntN(255))
	case p < 8:
		d.op, d.n = "zero", min(int64(1+rng.IntN(64)), size-d.off)
	default:
		d.op = "truncate"
	}
	return d
}

// legacyRegions are the header and the starts of the name, export and
// import tables of a legacy package (the offsets its header gives).
func legacyRegions(b []byte) []region {
	rs := []region{{name: "header", off: 0, size: min(64, int64(len(b)))}}
	if len(b) < 36 {
		return rs
	}
	le := func(at int) int64 { return int64(binary.LittleEndian.Uint32(b[at:])) }
	for _, t := range []struct {
		name string
		at   int
	}{{"name table", 16}, {"export table", 24}, {"import table", 32}} {
		if off := le(t.at); off < int64(len(b)) {
			rs = append(rs, region{name: t.name, off: off, size: min(256, int64(len(b))-off)})
		}
	}
	return rs
}

// tocRegions are the sections of a .utoc, with the method index of the
// compression block entries as a region of its own.
func tocRegions(b []byte) []region {
	toc, err := iostore.DecodeTOC("toc", b)
	if err != nil {
		return nil
	}
	var rs []region
	for _, s := range toc.Sections {
		rs = append(rs, region{name: s.Name, off: s.Offset, size: s.Size})
		if s.Name == "compression blocks" {
			rs = append(rs, region{name: "block method index", off: s.Offset, size: s.Size, stride: 12, at: 11})
		}
	}
	return rs
}

// yamlChars are what a text damage writes into a patch: characters that
// keep it text, many of them meaningful to YAML.
const yamlChars = "abcXYZ019 :-{}[],'\"#\n\t./|>&*!%@"

// planTextDamage picks a damage to a text file (a patch) that keeps it
// text, so that the parser gets past the first byte more often: a
// character replaced, a range deleted, or the file truncated.
func planTextDamage(rng *rand.Rand, file string, size int64) damage {
	d := damage{file: file}
	if size <= 0 {
		return damage{file: file, op: "truncate"}
	}
	d.off = rng.Int64N(size)
	switch p := rng.IntN(10); {
	case p < 6:
		d.op, d.n = "replace", int64(yamlChars[rng.IntN(len(yamlChars))])
	case p < 9:
		d.op, d.n = "delete", min(int64(1+rng.IntN(16)), size-d.off)
	default:
		d.op = "truncate"
	}
	return d
}

// apply makes the damage to the file under dir.
func (d damage) apply(dir string) error {
	path := filepath.Join(dir, d.file)
	if d.op == "truncate" {
		return os.Truncate(path, d.off)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	switch d.op {
	case "flip":
		b[d.off] ^= byte(d.n)
	case "zero":
		clear(b[d.off : d.off+d.n])
	case "replace":
		b[d.off] = byte(d.n)
	case "delete":
		b = append(b[:d.off], b[d.off+d.n:]...)
	}
	return os.WriteFile(path, b, 0o644)
}

// damageTarget is an input file and the regions of it damage aims at.
type damageTarget struct {
	file    string
	regions func(b []byte) []region
	weight  int  // how often it is picked, relative to the kind's other files
	text    bool // a text file: damaged so that it stays text
}

// writeCmd is a write command run on a damaged input.
type writeCmd struct {
	name      string
	args      []string
	outputs   []string          // files (or a folder) the command writes, verified after exit 0
	preserve  map[string]string // output file → the input it is byte for byte when the undamaged input is
	container bool              // the outputs are a container: a damaged block must not come out with a valid hash
	apply     bool              // apply: an input that already fails verify may keep its problems (documented)
}

// damageKind is one kind of input and the commands run on its damaged
// copies.
type damageKind struct {
	name    string
	inputs  []string                                                    // one per damaged copy in turn
	setup   func(h *harness, dir, input string) ([]damageTarget, error) // lays out the undamaged input
	inputOf func(input string) string                                   // the input's local name
}

// damageKinds are the inputs the damaged-input section breaks.
func damageKinds() []damageKind {
	single := func(regions func([]byte) []region) func(h *harness, dir, input string) ([]damageTarget, error) {
		return func(h *harness, dir, input string) ([]damageTarget, error) {
			local := filepath.Base(input)
			if err := copyFile(filepath.Join(h.corpus, input), filepath.Join(dir, local)); err != nil {
				return nil, err
			}
			patch := fmt.Sprintf("unrmod: 1\ntargets:\n  - file: %s\n    output: out/a-%s\n    ops:\n      - add-name: {name: FaultsNew}\n", local, local)
			return []damageTarget{{file: local, regions: regions, weight: 1}}, os.WriteFile(filepath.Join(dir, "patch.yaml"), []byte(patch), 0o644)
		}
	}
	container := func(h *harness, dir, input string) ([]damageTarget, error) {
		if err := h.containerFiles(dir, input); err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(input), ".utoc")
		for _, mode := range []string{"mod", "full"} {
			out := "out/z_Faults_P"
			if mode == "full" {
				out = "full/" + name + ".utoc"
			}
			p := strings.ReplaceAll(containerPatch(mode, out, "FaultsNew"), zlibName, name)
			if err := os.WriteFile(filepath.Join(dir, mode+".yaml"), []byte(p), 0o644); err != nil {
				return nil, err
			}
		}
		// The .utoc indexes every block: it is damaged more often.
		return []damageTarget{{file: name + ".utoc", regions: tocRegions, weight: 3}, {file: name + ".ucas", weight: 2}}, nil
	}
	base := func(input string) string { return filepath.Base(input) }
	return []damageKind{
		{name: "legacy", inputs: []string{smallLegacy, "legacy/ut99_mods/DeveloperMutator.u", "legacy/ue2/TestUC2.u"}, setup: single(legacyRegions), inputOf: base},
		{name: "zen", inputs: []string{"other/grounded/zen_ue4_27/BP_SpicyChoppingDamage.uasset", "other/ue5_cooked_pairs/UE5.4_BP_Table_Lamp.uzenasset"}, setup: single(zenRegions), inputOf: base},
		{name: "container", inputs: []string{plainUtoc, zlibUtoc}, setup: container, inputOf: base},
		{
			name:   "patch",
			inputs: []string{"legacy", "container"},
			setup: func(h *harness, dir, input string) ([]damageTarget, error) {
				if input == "legacy" {
					_, err := single(nil)(h, dir, smallLegacy)
					return []damageTarget{{file: "patch.yaml", weight: 1, text: true}}, err
				}
				_, err := container(h, dir, zlibUtoc)
				return []damageTarget{{file: "mod.yaml", weight: 1, text: true}}, err
			},
			inputOf: func(input string) string {
				return map[string]string{"legacy": "patch.yaml", "container": "mod.yaml"}[input]
			},
		},
	}
}

// commands returns the read and write commands of a kind's input f (its
// local name).
func (k damageKind) commands(f string) ([][]string, []writeCmd) {
	switch k.name {
	case "legacy", "zen":
		reads := [][]string{{"info", f}, {"ls", f}, {"verify", f}, {"dump", f}, {"props", f}}
		writes := []writeCmd{
			{name: "rewrite", args: []string{"rewrite", f, "-o", "outp/" + f}, outputs: []string{"outp/" + f}, preserve: map[string]string{"outp/" + f: f}},
			{name: "rewrite-compact", args: []string{"rewrite", f, "-o", "outc/" + f, "--layout", "compact"}, outputs: []string{"outc/" + f}},
			{name: "apply", args: []string{"apply", "patch.yaml"}, outputs: []string{"out/a-" + f}, apply: true},
		}
		return reads, writes
	case "container":
		reads := [][]string{{"info", f}, {"ls", f}, {"verify", f}, {"dump", f}, {"dump", f, "--package", curveFloat}, {"props", f, "--package", curveFloat}}
		name := strings.TrimSuffix(f, ".utoc")
		writes := []writeCmd{
			{name: "rewrite", args: []string{"rewrite", f, "-o", "outp/P"}, outputs: []string{"outp/P.utoc"}, preserve: map[string]string{"outp/P.utoc": f, "outp/P.ucas": name + ".ucas"}, container: true},
			{name: "rewrite-compact", args: []string{"rewrite", f, "-o", "outc/C", "--layout", "compact"}, outputs: []string{"outc/C.utoc"}, container: true},
			{name: "apply-mod", args: []string{"apply", "mod.yaml"}, outputs: []string{"out/z_Faults_P.utoc"}, container: true, apply: true},
			{name: "apply-full", args: []string{"apply", "full.yaml"}, outputs: []string{"full/" + f}, container: true, apply: true},
			{name: "extract", args: []string{"extract", f, "-o", "ex"}, outputs: []string{"ex"}, container: true},
		}
		return reads, writes
	}
	// A patch file: apply is its only command.
	if f == "patch.yaml" {
		return [][]string{{"apply", f, "--dry-run"}}, []writeCmd{{name: "apply", args: []string{"apply", f}, outputs: []string{"out/a-Entry.unr"}, apply: true}}
	}
	return [][]string{{"apply", f, "--dry-run"}}, []writeCmd{{name: "apply", args: []string{"apply", f}, outputs: []string{"out/z_Faults_P.utoc"}, container: true, apply: true}}
}

// damageRef is what the commands do with an undamaged input.
type damageRef struct {
	outs      map[string]map[string]string // write name → its output folder's files
	identical map[string]bool              // write name → preserve output is the input byte for byte
}

// outFolder is the folder a write command's outputs are in.
func (w writeCmd) outFolder() string {
	return strings.SplitN(w.outputs[0], "/", 2)[0]
}

// damageSection breaks copies of every kind of input and runs the read and
// write commands on them.
func (h *harness) damageSection() {
	for _, k := range damageKinds() {
		if !h.selected("damage", k.name) {
			continue
		}
		r := h.row("damage", k.name)
		refs := map[string]*damageRef{}
		var st damageStats
		for i := 0; i < h.runs; i++ {
			input := k.inputs[i%len(k.inputs)]
			ref := refs[input]
			if ref == nil {
				var err error
				if ref, err = h.damageReference(k, input); err != nil {
					h.fail(r, -1, input, "cannot run on the undamaged input: %v", err)
					break
				}
				refs[input] = ref
			}
			h.damageRun(r, &st, k, input, ref, i)
		}
		r.note = fmt.Sprintf("%d damaged copies of %d files; verify rejected %d of them; writes that succeeded: %d (%d on a rejected input, whose output kept the problems, with a warning, %d times)",
			st.copies, len(k.inputs), st.rejected, st.writesOK, st.writesOKRejected, st.kept)
	}
}

type damageStats struct {
	copies, rejected, writesOK, writesOKRejected, kept int
}

// damageReference runs the write commands on the undamaged input.
func (h *harness) damageReference(k damageKind, input string) (*damageRef, error) {
	dir := filepath.Join(h.work, "damage-ref", k.name, filepath.Base(input))
	if _, err := k.setup(h, dir, input); err != nil {
		return nil, err
	}
	f := k.inputOf(input)
	ref := &damageRef{outs: map[string]map[string]string{}, identical: map[string]bool{}}
	if k.name != "patch" {
		if v := h.run(dir, "verify", f); v.code != 0 {
			return nil, fmt.Errorf("verify %s: %s", f, firstLine(v.stdout+v.stderr))
		}
	}
	_, writes := k.commands(f)
	for _, w := range writes {
		res := h.run(dir, w.args...)
		if res.code != 0 {
			return nil, fmt.Errorf("%s: %s", cmdline(dir, w.args), firstLine(res.stderr))
		}
		if v := h.run(dir, append([]string{"verify"}, w.outputs...)...); v.code != 0 {
			return nil, fmt.Errorf("verify of %s's output: %s", w.name, firstLine(v.stdout+v.stderr))
		}
		ref.outs[w.name] = snapshot(filepath.Join(dir, w.outFolder()))
		same := len(w.preserve) > 0
		for out, in := range w.preserve {
			same = same && hashFile(filepath.Join(dir, out)) == hashFile(filepath.Join(dir, in))
		}
		ref.identical[w.name] = same
	}
	return ref, nil
}

// damageRun damages one copy of input and runs every command on it.
func (h *harness) damageRun(r *tally, st *damageStats, k damageKind, input string, ref *damageRef, i int) {
	rng := h.rng("damage/"+k.name, i)
	dir := filepath.Join(h.work, "damage", k.name, fmt.Sprint(i))
	defer os.RemoveAll(dir)
	targets, err := k.setup(h, dir, input)
	if err != nil {
		h.t.Fatalf("damage %s: setup: %v", k.name, err)
	}
	total := 0
	for _, t := range targets {
		total += t.weight
	}
	pick := rng.IntN(total)
	var target damageTarget
	for _, t := range targets {
		if pick < t.weight {
			target = t
			break
		}
		pick -= t.weight
	}
	b, err := os.ReadFile(filepath.Join(dir, target.file))
	if err != nil {
		h.t.Fatalf("damage %s: %v", k.name, err)
	}
	var regions []region
	if target.regions != nil {
		regions = target.regions(b)
	}
	d := planDamage(rng, target.file, int64(len(b)), regions)
	if target.text {
		d = planTextDamage(rng, target.file, int64(len(b)))
	}
	if err := d.apply(dir); err != nil {
		h.t.Fatalf("damage %s: %v", k.name, err)
	}
	st.copies++
	orig := snapshot(dir)
	f := k.inputOf(input)
	where := fmt.Sprintf("  # %s damaged: %s", input, d)

	rejected := false
	if k.name != "patch" {
		v := h.run(dir, "verify", f)
		rejected = v.code != 0
		if rejected {
			st.rejected++
		}
	}

	// check classifies one run; it reports whether the command succeeded.
	check := func(res result) bool {
		cmd := cmdline(dir, res.args) + where
		r.runs++
		switch {
		case res.hung:
			r.hangs++
			h.fail(r, i, cmd, "no exit after %v", h.hang)
		case res.panicked():
			r.panics++
			h.fail(r, i, cmd, "panic: %s", panicLine(res.stderr))
		case res.code == 0:
			r.ok++
			return true
		case res.code == 1:
			r.refused++
			if *refusalsFlag {
				h.t.Logf("refused: %s: %s", cmd, firstLine(res.stderr))
			}
			if strings.TrimSpace(res.stderr+res.stdout) == "" {
				h.fail(r, i, cmd, "exit 1 without a message")
			}
		default:
			h.fail(r, i, cmd, "exit status %d (signal %v), want 0 or 1: %s", res.code, res.signal, firstLine(res.stderr))
		}
		return false
	}

	reads, writes := k.commands(f)
	for _, args := range reads {
		check(h.run(dir, args...))
	}
	for _, w := range writes {
		res := h.run(dir, w.args...)
		if !check(res) {
			continue
		}
		st.writesOK++
		if rejected {
			st.writesOKRejected++
		}
		cmd := cmdline(dir, w.args) + where
		h.checkWrite(r, st, i, cmd, dir, w, ref, rejected, orig, res)
	}
	now := snapshot(dir)
	var changed []string
	for file, sum := range orig {
		if now[file] != sum {
			changed = append(changed, file)
		}
	}
	if len(changed) > 0 {
		h.fail(r, i, "the commands above"+where, "inputs changed: %s", list(changed, ", "))
	}
}

// checkWrite judges the output of a write that exited 0 on a damaged input.
func (h *harness) checkWrite(r *tally, st *damageStats, i int, cmd, dir string, w writeCmd, ref *damageRef, rejected bool, orig map[string]string, res result) {
	outputs := w.outputs
	if r.name == "patch" {
		// A damaged patch may name other outputs: verify every new file.
		outputs = nil
		for f := range snapshot(dir) {
			if _, ok := orig[f]; !ok && !strings.HasSuffix(f, ".ucas") {
				outputs = append(outputs, f)
			}
		}
		if len(outputs) == 0 {
			return // every operation was already in effect: nothing written
		}
	}
	for _, o := range outputs {
		if _, err := os.Stat(filepath.Join(dir, o)); err != nil {
			h.fail(r, i, cmd, "exit 0 but no output %s", o)
			return
		}
	}
	v := h.run(dir, append([]string{"verify"}, outputs...)...)
	sameAsRef := mapsEqual(snapshot(filepath.Join(dir, w.outFolder())), ref.outs[w.name])
	copied := len(w.preserve) > 0
	for out, in := range w.preserve {
		copied = copied && hashFile(filepath.Join(dir, out)) == hashFile(filepath.Join(dir, in))
	}
	said := res.stdout + res.stderr
	switch {
	case v.code != 0 && rejected && (w.apply && r.name == "legacy" || r.name == "zen") && strings.Contains(said, "the output keeps"):
		// Documented: apply goes on when a legacy input's problems lie
		// outside what it changes, warns, and the output keeps them; a
		// zen package write goes on when its output keeps every problem
		// of the input byte for byte, and warns.
		st.kept++
	case v.code != 0 && copied:
		h.fail(r, i, cmd, "exit 0 copying an input verify rejects byte for byte, without a word: %s", firstLine(v.stdout+v.stderr))
	case v.code != 0 && rejected:
		h.fail(r, i, cmd, "exit 0 on an input verify rejects, and the output does not verify: %s", firstLine(v.stdout+v.stderr))
	case v.code != 0:
		h.fail(r, i, cmd, "exit 0 on an input that verifies, but the output does not verify: %s", firstLine(v.stdout+v.stderr))
	case rejected && !sameAsRef && w.apply && r.name == "legacy" && strings.Contains(said, "no longer has"):
		// Documented: the plan notes the input's problems the patch removed.
	case rejected && !sameAsRef:
		what := "package"
		if w.container {
			what = "container"
		}
		h.fail(r, i, cmd, "laundered: verify rejects the damaged input, yet the command wrote a %s that verifies and differs from what the undamaged input gives", what)
	}
	if ref.identical[w.name] && !copied {
		h.fail(r, i, cmd, "preserve layout exited 0 but its output is not the input byte for byte: the damage was changed, not kept or refused")
	}
}

// zenRegions is the start of a zen package: its summary and the tables
// that follow it.
func zenRegions(b []byte) []region {
	return []region{{name: "summary", off: 0, size: min(64, int64(len(b)))}, {name: "tables", off: 0, size: min(512, int64(len(b)))}}
}
