package patch

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
)

// This file keeps a patch from losing work: before anything is read, it
// lists every file the patch reads and writes, refuses outputs that clash
// with another of its files, and locks them all; before a target's output
// replaces an existing file, it checks that the file is that target's
// earlier output.

// targetFiles are the files one target reads and writes.
type targetFiles struct {
	in, out string
	backup  string   // --in-place: INPUT.bak
	parts   []string // a container's other outputs: its .ucas and .pak
	reads   []string // other files the target's operations read
	// container lists a container target's files as it reads and
	// writes them (iostore.ContainerUses): the input's .utoc, .ucas
	// partitions and .pak, the output's.
	container []safefile.Use
	// companions are a cooked asset's .uexp and bulk data files, which
	// its output has beside it too.
	companions []companionFile
}

// fileReader is an operation that reads files besides its target; it lists
// them (as written in the patch) so that Apply checks and locks them too.
type fileReader interface {
	readsFiles() []string
}

func (op *ReplaceExport) readsFiles() []string {
	var out []string
	if op.data != nil && op.data.file != "" {
		out = append(out, op.data.file)
	}
	if op.from != nil && op.from.file != "" {
		out = append(out, op.from.file)
	}
	return out
}

func (op *ReplaceTexture) readsFiles() []string { return []string{op.Image} }

func (op *ReplaceSound) readsFiles() []string { return []string{op.File} }

// opReads lists the files ops read, resolved against dir.
func opReads(dir string, ops []Op) []string {
	var out []string
	for _, op := range ops {
		if r, ok := op.(fileReader); ok {
			for _, p := range r.readsFiles() {
				out = append(out, localPath(dir, p))
			}
		}
	}
	return out
}

// planTarget decides where a target reads and writes, reading nothing.
func planTarget(t *Target, dir string, opt Options) (*targetFiles, error) {
	if ct := t.Container; ct != nil {
		if opt.InPlace {
			return nil, adviseErr(ct.Pos, &ue.Advice{Setting: ue.SettingInPlace, Name: "Options.InPlace",
				After: " does not apply to containers: give the target an output (mode: mod writes a new _P container beside the game's)"})
		}
		in := localPath(dir, ct.Container)
		out := containerOutPath(t, dir, in, opt)
		tf := &targetFiles{in: in, out: out}
		if ct.Pak {
			tf.container = []safefile.Use{{Path: in, What: "the input pak"}, {Path: out, Write: true, What: "the output pak"}}
		} else {
			tf.container = append(iostore.ContainerUses(in, false, true, "input container"),
				iostore.ContainerUses(out, true, ct.Mode == ModeMod, "output container")...)
		}
		for _, u := range tf.container {
			if u.Write && u.Path != out {
				tf.parts = append(tf.parts, u.Path)
			}
		}
		for _, pt := range ct.Packages {
			tf.reads = append(tf.reads, opReads(dir, pt.Ops)...)
		}
		for _, f := range ct.Files {
			if f.Source != "" {
				tf.reads = append(tf.reads, localPath(dir, f.Source))
			}
		}
		return tf, nil
	}
	in := localPath(dir, t.File)
	tf := &targetFiles{in: in, out: outputPath(t, dir, in, opt), reads: opReads(dir, t.Ops)}
	if opt.InPlace {
		tf.backup = in + ".bak"
	}
	tf.companions = cookedCompanions(in, tf.out, opt.InPlace)
	return tf, nil
}

// fileUse is one file a patch reads or writes.
type fileUse struct {
	safefile.Use
	target int    // index in the patch's targets; -1 for the patch file
	role   string // "patch", "input", "output", "backup", "part", "read"
}

// fileUses lists every file of the patch: the patch file, and each target's
// reads and writes.
func fileUses(f *File, plans []*targetFiles) []*fileUse {
	uses := []*fileUse{{Use: safefile.Use{Path: f.Path, What: "the patch file"}, target: -1, role: "patch"}}
	add := func(i int, path, role string, write bool) {
		uses = append(uses, &fileUse{Use: safefile.Use{Path: path, Write: write, What: "the target's " + role}, target: i, role: role})
	}
	for i, tf := range plans {
		if tf.container != nil {
			for _, u := range tf.container {
				role := "part"
				switch {
				case u.Path == tf.in && !u.Write:
					role = "input"
				case u.Path == tf.out && u.Write:
					role = "output"
				case !u.Write:
					role = "input part"
				}
				uses = append(uses, &fileUse{Use: u, target: i, role: role})
			}
		} else {
			add(i, tf.in, "input", false)
			add(i, tf.out, "output", true)
			if tf.backup != "" {
				add(i, tf.backup, "backup", true)
			}
			for _, cf := range tf.companions {
				add(i, cf.in, "input", false)
				if cf.out != cf.in || cf.backup != "" { // bulk data in place is only read
					add(i, cf.out, "output", true)
				}
				if cf.backup != "" {
					add(i, cf.backup, "backup", true)
				}
			}
		}
		for _, r := range tf.reads {
			add(i, r, "read", false)
		}
	}
	return uses
}

// checkClashes refuses a patch that writes a file twice, over the patch
// file, or over a file it reads (but a target's own input with
// --in-place): files are compared by identity (safefile.Clashes), so that
// links, a folder reached through a symbolic link and case-insensitive
// names do not hide a clash, and a container's parts (each .ucas
// partition, the .pak) are compared as well as its .utoc.
func checkClashes(f *File, uses []*fileUse, inPlace bool) error {
	plain := make([]safefile.Use, len(uses))
	for i, u := range uses {
		plain[i] = u.Use
	}
	// Two writes of one file come first: that message explains the others.
	for _, c := range safefile.Clashes(plain) {
		if err := clash(f, uses[c.W], uses[c.U], c.Why, inPlace); err != nil {
			return err
		}
	}
	return nil
}

// clash returns the error for w writing the file u uses, if it is one.
func clash(f *File, w, u *fileUse, why string, inPlace bool) error {
	t := f.Targets[w.target]
	pos := t.Pos
	if t.Container != nil {
		pos = t.Container.Pos
	}
	switch {
	case u.Write:
		return errorf(pos, "this target writes %s, which the target at %s writes too", w.Path, f.Targets[u.target].Pos)
	case u.role == "patch":
		return errorf(pos, "this target's output %s is the patch file itself", w.Path)
	case u.target == w.target && u.role == "input" && w.role == "output" && inPlace:
		return nil
	case t.Container != nil && u.target == w.target:
		ce := &safefile.ClashError{Write: w.Use, Other: u.Use, Why: why}
		return &Error{Pos: pos, Msg: ce.Error(), Err: ce}
	case u.target == w.target && u.role == "input":
		return adviseErr(pos, &ue.Advice{Setting: ue.SettingInPlace, Name: "Options.InPlace",
			Before: fmt.Sprintf("the output %s is the input; use ", w.Path), After: " to overwrite it (a .bak is kept)"})
	case u.target == w.target:
		return errorf(pos, "this target writes %s, which it also reads", w.Path)
	}
	return errorf(pos, "this target writes %s, which the target at %s reads: every file is read before any is written, so write it elsewhere", w.Path, f.Targets[u.target].Pos)
}

// lockUses returns what to lock: every file read, and, unless the run is
// dry, every file written.
func lockUses(uses []*fileUse, dry bool) []safefile.Use {
	var out []safefile.Use
	for _, u := range uses {
		if u.Write && dry {
			continue
		}
		out = append(out, u.Use)
	}
	return out
}

// errNotEarlierOutput builds the error for an output that would replace a
// file that is not the target's earlier output.
func errNotEarlierOutput(pos Pos, path, why string) error {
	return adviseErr(pos, &ue.Advice{Setting: ue.SettingForce, Name: "Options.Force",
		Before: fmt.Sprintf("the output %s already exists and is not this target's earlier output (%s); nothing was written: give the target another output, or use ", path, why),
		After:  " to replace it"})
}

// checkPackageOutput refuses to replace an existing file at a legacy or zen
// target's output unless it is the target's earlier output: a package of
// the same kind that is the same package (a zen package with the same
// name; a legacy package, whose name is its file's, whose exports have the
// names and classes of the output's, in order). data is the new output.
func checkPackageOutput(t *Target, tr *TargetResult, data []byte) error {
	st, err := os.Stat(tr.Output)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errorf(t.Pos, "output %s: %v", tr.Output, err)
	}
	if !st.Mode().IsRegular() {
		return errorf(t.Pos, "the output %s exists and is not a file", tr.Output)
	}
	file, _ := ufile.Open(tr.Output, nil)
	if tr.Kind == "cooked" {
		if file.Kind != ufile.CookedAsset {
			return errNotEarlierOutput(t.Pos, tr.Output, "it is not a cooked asset")
		}
		p, err := file.Asset(nil)
		if err != nil {
			return errNotEarlierOutput(t.Pos, tr.Output, "it does not decode: "+err.Error())
		}
		if len(p.Exports) != tr.Counts.ExportsAfter {
			return errNotEarlierOutput(t.Pos, tr.Output, fmt.Sprintf("it has %d exports, the output %d", len(p.Exports), tr.Counts.ExportsAfter))
		}
		if want := assetprops.PackageName(p); want != "" && !strings.EqualFold(want, tr.Package) {
			return errNotEarlierOutput(t.Pos, tr.Output, fmt.Sprintf("it is the package %s, the output is %s", want, tr.Package))
		}
		return nil
	}
	if tr.Kind == "zen" {
		if file.Kind != ufile.ZenPackage {
			return errNotEarlierOutput(t.Pos, tr.Output, "it is not a zen package")
		}
		p, err := zen.DecodePackage(tr.Output, file.Data, nil)
		if err != nil {
			return errNotEarlierOutput(t.Pos, tr.Output, "it does not decode: "+err.Error())
		}
		if !strings.EqualFold(p.PackageName(), tr.Package) {
			return errNotEarlierOutput(t.Pos, tr.Output, fmt.Sprintf("it is the package %s, the output is %s", p.PackageName(), tr.Package))
		}
		return nil
	}
	old, err := file.Legacy()
	if err != nil {
		return errNotEarlierOutput(t.Pos, tr.Output, "it is not a legacy package")
	}
	q, err := reader.Read(tr.Output, data)
	if err != nil {
		return err
	}
	if why := sameExports(old, q); why != "" {
		return errNotEarlierOutput(t.Pos, tr.Output, why)
	}
	return nil
}

// sameExports says how legacy packages a and b differ in their exports'
// names and classes, or "" when they do not.
func sameExports(a, b *reader.Package) string {
	if len(a.Exports) != len(b.Exports) {
		return fmt.Sprintf("it has %d exports, the output %d", len(a.Exports), len(b.Exports))
	}
	for i := range a.Exports {
		na, nb := a.ObjectName(reader.ExportRef(i)), b.ObjectName(reader.ExportRef(i))
		ca, cb := a.ClassName(i), b.ClassName(i)
		if !strings.EqualFold(na, nb) || !strings.EqualFold(ca, cb) {
			return fmt.Sprintf("its export %d is %s %s, the output's is %s %s", i, ca, na, cb, nb)
		}
	}
	return ""
}

// checkContainerOutput refuses to replace existing files at a container
// target's outputs unless they are the target's earlier output: a .utoc of
// the container id the output gets, with its .ucas and .pak; a .ucas whose
// .utoc is missing (nothing can read it); a .pak whose .utoc is missing
// but that holds no file (a companion, which only makes the game mount the
// container).
func checkContainerOutput(pos Pos, tf *targetFiles, id zen.ContainerID) error {
	utocIsOurs := false
	switch _, err := os.Stat(tf.out); {
	case err == nil:
		data, err := safefile.ReadRegular(tf.out, iostore.MaxTOCFileSize, "a .utoc unrmod reads")
		if err != nil {
			return errorf(pos, "output %s: %v", tf.out, err)
		}
		toc, err := iostore.DecodeTOC(tf.out, data)
		if err != nil {
			return errNotEarlierOutput(pos, tf.out, "it is not an IoStore container")
		}
		if toc.Header.ContainerID != id {
			return errNotEarlierOutput(pos, tf.out, fmt.Sprintf("its container id is %v, the output's %v", toc.Header.ContainerID, id))
		}
		utocIsOurs = true
	case !errors.Is(err, os.ErrNotExist):
		return errorf(pos, "output %s: %v", tf.out, err)
	}
	for _, p := range tf.parts {
		if utocIsOurs {
			break
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if !strings.EqualFold(filepath.Ext(p), ".pak") {
			continue // container data without its .utoc
		}
		r, err := pak.Open(p, nil)
		if err != nil {
			return errNotEarlierOutput(pos, p, "it is not a pak file")
		}
		n := len(r.Files)
		r.Close()
		if n > 0 {
			return errNotEarlierOutput(pos, p, fmt.Sprintf("it is a pak of %d files, not a container's companion", n))
		}
	}
	return nil
}

// alreadyWritten reports whether the file at path holds exactly data.
// extrasWritten reports whether every extra output holds its data.
func extrasWritten(list []extraOutput) bool {
	for _, x := range list {
		if !alreadyWritten(x.path, x.data) {
			return false
		}
	}
	return true
}

func alreadyWritten(path string, data []byte) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(data)) {
		return false
	}
	old, err := safefile.ReadRegular(path, int64(len(data)), "the file it is compared with")
	return err == nil && bytes.Equal(old, data)
}
