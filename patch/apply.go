package patch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/writer"
)

// Options control Apply.
type Options struct {
	// DryRun does everything but write: every target is decoded, patched,
	// encoded and verified in memory.
	DryRun bool
	// InPlace writes each output over its input and keeps the original as
	// INPUT.bak (an existing .bak, the older original, is kept). The
	// output keeps the input's mode; an input that is a symbolic link is
	// written through, and the link stays.
	InPlace bool
	// OutputDir, when set, receives every output under its input's name.
	OutputDir string
	// Force lets an output replace an existing file that is not the
	// target's earlier output (see Apply).
	Force bool
	// Session, when set, locks every file the patch reads or writes for
	// the whole run and tracks the temporary files, which an interrupt
	// removes (cmd/unrmod sets it); nil locks nothing.
	Session *safefile.Session
	// Codecs are the compression methods containers are read and written
	// with; nil means the built-in ones. Register the game's Oodle library
	// here (package ue/oodle) for containers with Oodle blocks.
	Codecs *ue.Codecs
	// Checks remembers which game containers passed the full check
	// (package checkcache): a container target in mode full whose
	// container passed it before and is unchanged since is copied without
	// decoding its chunks again, and one checked whole is remembered.
	// nil remembers nothing.
	Checks *checkcache.Cache

	// beforeCommit, when set, runs once every output is staged, before
	// the renames (for tests).
	beforeCommit func()
	// streamAbove, when set, replaces streamThreshold (for tests that run
	// both paths on one package).
	streamAbove int64
}

// Result is what Apply did (or, with DryRun, would do).
type Result struct {
	Patch string `json:"patch"`
	// OK is true: Apply returns a Result only when every target applied
	// (apply --json prints {"ok": false, "error": …} otherwise).
	OK      bool            `json:"ok"`
	DryRun  bool            `json:"dry_run"`
	Targets []*TargetResult `json:"targets"`
}

// TargetResult describes one patched package.
type TargetResult struct {
	// Kind is "legacy", "zen", "cooked", "container" or "pak".
	Kind    string     `json:"kind"`
	Package string     `json:"package,omitempty"` // a zen package's name
	Input   string     `json:"input"`
	Output  string     `json:"output"`
	Backup  string     `json:"backup,omitempty"`
	Changes []Change   `json:"changes"`
	Changed bool       `json:"changed"` // false when every operation was already in effect
	GUID    GUIDChange `json:"guid"`
	Layout  string     `json:"layout"`
	Size    int64      `json:"size"`
	// DeadBytes counts the bytes of a legacy output that no structure uses
	// (left behind by the preserve layout; layout: compact drops them).
	DeadBytes int64          `json:"dead_bytes"`
	Report    *writer.Report `json:"report"`
	Counts    Counts         `json:"counts"`
	// Data lists the exports whose data the operations changed, with
	// where the data was and where it is in the output.
	Data []DataChange `json:"data,omitempty"`
	// Store lists the fields of a zen package's store entry the change
	// touches (what its container's header must say of it).
	Store []StoreChange `json:"store,omitempty"`
	// InputProblems lists what verification finds wrong in a legacy input
	// before the patch, each saying whether the output keeps it (it lies
	// outside what the patch changes) or no longer has it.
	InputProblems []InputProblem `json:"input_problems,omitempty"`
	// Container is what a container or pak target did (Kind
	// "container" or "pak").
	Container *ContainerResult `json:"container,omitempty"`

	// AlreadyWritten says that the output held exactly this result
	// already (an earlier run wrote it), so it was not written again.
	AlreadyWritten bool `json:"already_written,omitempty"`

	// extra are the files the target writes besides Output: a cooked
	// asset's .uexp and the bulk data files copied beside it.
	extra []extraOutput

	// dryRun says that the result is the plan of a dry run: nothing
	// was written, and Summary says what would be.
	dryRun bool
}

// DataChange is an export whose serialised data changed.
type DataChange struct {
	Export    string `json:"export"`
	OldOffset int64  `json:"old_offset"`
	OldSize   int64  `json:"old_size"`
	NewOffset int64  `json:"new_offset"`
	NewSize   int64  `json:"new_size"`
}

// String returns "EXPORT: N bytes at 0xOFF → M bytes at 0xOFF".
func (d DataChange) String() string {
	return fmt.Sprintf("%s: %d bytes at 0x%X → %d bytes at 0x%X", d.Export, d.OldSize, d.OldOffset, d.NewSize, d.NewOffset)
}

// GUIDChange says what happened to the package GUID and generations.
type GUIDChange struct {
	Old         string `json:"old"`
	New         string `json:"new"`
	Generations int    `json:"generations"`
	Policy      string `json:"policy"`
}

// Counts compares table sizes before and after.
type Counts struct {
	NamesBefore    int `json:"names_before"`
	NamesAfter     int `json:"names_after"`
	ImportsBefore  int `json:"imports_before"`
	ImportsAfter   int `json:"imports_after"`
	ExportsBefore  int `json:"exports_before"`
	ExportsAfter   int `json:"exports_after"`
	ChangedExports int `json:"changed_exports"` // exports whose data or table entry changed
}

// Apply applies every target of f. All operations of all targets are
// applied in memory and every output is encoded and verified before anything
// is written; then every output is written atomically, or none is. A
// target whose file is a pattern stands for one target per file it
// matches (a pattern that matches nothing is an error wrapping
// ErrNoMatch).
//
// Before reading anything, Apply lists every file the patch reads and
// writes and refuses outputs that are one file with another output, with
// an input (but a target's own with InPlace) or with the patch file,
// comparing the files' identities (links, folders reached through links,
// case-insensitive names). With a Session it then locks them all for the
// whole run.
//
// An output may replace an existing file only when that file is the
// target's earlier output, or with Force: for a legacy package, a legacy
// package whose exports have the names and classes of the new output's;
// for a zen package, a zen package of the same name; for a container, a
// .utoc of the same container id (with its .ucas and .pak), a .ucas
// without its .utoc, or a .pak without its .utoc that holds no file. An
// output that holds exactly the new result already is not written again
// (TargetResult.AlreadyWritten).
func Apply(f *File, opt Options) (*Result, error) {
	res := &Result{Patch: f.Path, OK: true, DryRun: opt.DryRun}
	dir := filepath.Dir(f.Path)
	targets, err := expandTargets(f, dir)
	if err != nil {
		return nil, err
	}
	expanded := *f
	expanded.Targets = targets
	f = &expanded
	plans := make([]*targetFiles, len(f.Targets))
	for i, t := range f.Targets {
		tf, err := planTarget(t, dir, opt)
		if err != nil {
			return nil, err
		}
		plans[i] = tf
	}
	uses := fileUses(f, plans)
	if err := checkClashes(f, uses, opt.InPlace); err != nil {
		return nil, err
	}
	locks, err := opt.Session.Lock(lockUses(uses, opt.DryRun)...)
	if err != nil {
		return nil, err
	}
	defer locks.Release()

	cache := map[string]*reader.Package{}
	load := func(path string) (*reader.Package, error) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if p, ok := cache[abs]; ok {
			return p, nil
		}
		p, err := reader.ReadFile(path)
		if err != nil {
			return nil, err
		}
		cache[abs] = p
		return p, nil
	}
	type staged struct {
		out, backup string
		data, orig  []byte
		// stream is the output of a target patched without holding it
		// (data nil), origPath its input, which its backup copies.
		stream   io.Reader
		origPath string
		mode     os.FileMode
	}
	var outs []staged
	var inputs []io.Closer // the files streamed outputs read
	defer func() {
		for _, c := range inputs {
			c.Close()
		}
	}()
	var containers []stagedOutput
	abortContainers := func() {
		for _, w := range containers {
			w.Abort()
		}
	}
	for i, t := range f.Targets {
		tf := plans[i]
		if t.Container != nil {
			tr, w, err := applyStagedTarget(t, dir, tf, opt)
			if err != nil {
				abortContainers()
				return nil, err
			}
			res.Targets = append(res.Targets, tr)
			if w == nil {
				continue
			}
			if w.Unchanged() {
				w.Abort()
				tr.AlreadyWritten = true
				continue
			}
			containers = append(containers, w)
			continue
		}
		if so, err := applyZenStreamed(t, dir, tf, opt); err != nil || so != nil {
			if err != nil {
				abortContainers()
				return nil, err
			}
			inputs = append(inputs, so.in)
			tr := so.tr
			res.Targets = append(res.Targets, tr)
			if opt.InPlace {
				if !tr.Changed {
					_, err := os.Stat(tr.Backup)
					tr.AlreadyWritten = err == nil
					continue
				}
			} else if same, _ := sameAsFile(tr.Output, so.s, so.s.Size()); same {
				tr.AlreadyWritten = true
				continue
			} else if !opt.Force {
				if err := checkZenOutputHeader(t, tr); err != nil {
					abortContainers()
					return nil, err
				}
			}
			mode := os.FileMode(0o644)
			if st, err := os.Stat(tr.Input); err == nil {
				mode = st.Mode().Perm()
			}
			outs = append(outs, staged{out: tr.Output, backup: tr.Backup, stream: so.s.NewReader(), origPath: tr.Input, mode: mode})
			continue
		}
		tr, data, src, err := applyTarget(t, dir, tf, opt, load)
		if err != nil {
			abortContainers()
			return nil, err
		}
		res.Targets = append(res.Targets, tr)
		if opt.InPlace {
			if !tr.Changed {
				// Nothing to write over the input; with a .bak beside
				// it, an earlier run wrote it.
				_, err := os.Stat(tr.Backup)
				tr.AlreadyWritten = err == nil
				continue
			}
		} else if alreadyWritten(tr.Output, data) && extrasWritten(tr.extra) {
			tr.AlreadyWritten = true
			continue
		} else if !opt.Force {
			if err := checkPackageOutput(t, tr, data); err != nil {
				abortContainers()
				return nil, err
			}
		}
		mode := os.FileMode(0o644)
		if st, err := os.Stat(tr.Input); err == nil {
			mode = st.Mode().Perm()
		}
		outs = append(outs, staged{out: tr.Output, backup: tr.Backup, data: data, orig: src, mode: mode})
		for _, x := range tr.extra {
			outs = append(outs, staged{out: x.path, backup: x.backup, data: x.data, orig: x.orig, mode: mode})
		}
	}
	if opt.DryRun {
		for _, tr := range res.Targets {
			tr.dryRun = true
		}
		return res, nil
	}
	batch := safefile.Batch{Session: opt.Session}
	for _, s := range outs {
		if s.backup != "" {
			if _, err := os.Stat(s.backup); errors.Is(err, os.ErrNotExist) {
				if s.origPath != "" {
					err = copyIntoBatch(&batch, s.backup, s.origPath, s.mode)
				} else {
					err = batch.Add(s.backup, s.orig, s.mode)
				}
				if err != nil {
					batch.Abort()
					abortContainers()
					return nil, err
				}
			}
		}
		var err error
		if s.stream != nil {
			err = streamIntoBatch(&batch, s.out, s.stream)
		} else {
			err = batch.Add(s.out, s.data, 0o644)
		}
		if err != nil {
			batch.Abort()
			abortContainers()
			return nil, err
		}
	}
	// The streamed outputs are staged: close the files they read before
	// the renames (an in-place output replaces its input, which Windows
	// refuses while the input is open).
	for _, c := range inputs {
		c.Close()
	}
	inputs = nil
	// The containers' files join the batch, so that every output of the
	// patch is renamed into place as one commit; the Writers keep their
	// locks until it is done.
	defer abortContainers()
	for _, w := range containers {
		if err := w.Hand(&batch); err != nil {
			batch.Abort()
			return nil, err
		}
	}
	if opt.beforeCommit != nil {
		opt.beforeCommit()
	}
	// Every output is staged and checked: rename them all into place, as
	// one commit section, which an interrupt lets finish.
	end, err := opt.Session.BeginCommit()
	if err != nil {
		batch.Abort()
		return nil, err
	}
	defer end()
	if err := batch.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// stagedOutput is a container or pak target's output, staged under
// temporary names and checked: an *iostore.Writer, or a pakOutput.
type stagedOutput interface {
	// Unchanged reports whether the staged files are the ones they would
	// replace, byte for byte.
	Unchanged() bool
	// Hand passes the staged files to b, which renames them into place
	// with the patch's other outputs.
	Hand(b *safefile.Batch) error
	// Abort removes the staged files.
	Abort()
}

// pakOutput is a pak target's staged output.
type pakOutput struct{ b *safefile.Batch }

func (o pakOutput) Unchanged() bool                 { return o.b.Unchanged() }
func (o pakOutput) Hand(into *safefile.Batch) error { into.Take(o.b); return nil }
func (o pakOutput) Abort()                          { o.b.Abort() }

// applyStagedTarget applies a container or pak target and returns its
// staged output (nil for a dry run).
func applyStagedTarget(t *Target, dir string, tf *targetFiles, opt Options) (*TargetResult, stagedOutput, error) {
	if t.Container.Pak {
		tr, b, err := applyPakTarget(t, dir, tf, opt)
		if b == nil {
			return tr, nil, err
		}
		return tr, pakOutput{b}, err
	}
	tr, w, err := applyContainerTarget(t, dir, tf, opt)
	if w == nil {
		return tr, nil, err
	}
	return tr, w, err
}

// applyTarget patches the package one target names, in memory, and returns
// its encoded, verified output and the input's bytes.
func applyTarget(t *Target, dir string, tf *targetFiles, opt Options, load func(string) (*reader.Package, error)) (*TargetResult, []byte, []byte, error) {
	f, _ := ufile.Open(tf.in, nil)
	switch f.Kind {
	case ufile.ZenPackage:
		return applyZenTarget(t, dir, tf.in, f.Data, tf.out, opt)
	case ufile.CookedAsset:
		return applyCookedTarget(t, dir, f, tf, opt)
	}
	return applyLegacyTarget(t, dir, f, tf.out, opt, load)
}

// outputPath decides where a target is written.
func outputPath(t *Target, dir, in string, opt Options) string {
	switch {
	case opt.InPlace:
		return in
	case opt.OutputDir != "":
		return filepath.Join(opt.OutputDir, filepath.Base(in))
	case t.Output != "":
		return localPath(dir, t.Output)
	}
	return filepath.Join(dir, "patched", filepath.Base(in))
}

// Summary returns one line describing a target's result.
func (tr *TargetResult) Summary() string {
	if !tr.Changed {
		if tr.Output != tr.Input && tr.AlreadyWritten {
			return fmt.Sprintf("%s: no changes (every operation was already in effect); %s holds the same package", tr.Input, tr.Output)
		}
		if tr.Output != tr.Input && tr.dryRun {
			return fmt.Sprintf("%s: no changes (every operation was already in effect); would write %s, the same package", tr.Input, tr.Output)
		}
		if tr.Output != tr.Input {
			return fmt.Sprintf("%s: no changes (every operation was already in effect); wrote %s, the same package", tr.Input, tr.Output)
		}
		return fmt.Sprintf("%s: no changes (every operation was already in effect)", tr.Input)
	}
	switch tr.Kind {
	case "zen":
		return tr.zenSummary()
	case "container":
		return tr.containerSummary()
	case "pak":
		return tr.pakSummary()
	case "cooked":
		return tr.cookedSummary()
	}
	var parts []string
	c := tr.Counts
	if c.NamesAfter != c.NamesBefore {
		parts = append(parts, fmt.Sprintf("names %d → %d", c.NamesBefore, c.NamesAfter))
	}
	if c.ImportsAfter != c.ImportsBefore {
		parts = append(parts, fmt.Sprintf("imports %d → %d", c.ImportsBefore, c.ImportsAfter))
	}
	if c.ChangedExports > 0 {
		parts = append(parts, fmt.Sprintf("%d export(s) changed", c.ChangedExports))
	}
	if tr.Report != nil && tr.Report.MovedExports > 0 {
		parts = append(parts, fmt.Sprintf("%d moved, %d offsets rebased", tr.Report.MovedExports, tr.Report.Rebased))
	}
	parts = append(parts, fmt.Sprintf("%d bytes, layout %s", tr.Size, tr.Layout))
	if tr.DeadBytes > 0 && tr.Layout == writer.Preserve.String() {
		parts = append(parts, fmt.Sprintf("%d dead bytes (layout: compact drops them)", tr.DeadBytes))
	}
	guid := "GUID kept " + tr.GUID.New
	if tr.GUID.New != tr.GUID.Old {
		guid = fmt.Sprintf("GUID %s → %s", tr.GUID.Old, tr.GUID.New)
	}
	return fmt.Sprintf("%s → %s: %s; %s", tr.Input, tr.Output, strings.Join(parts, ", "), guid)
}

// zenSummary is Summary for a zen package.
func (tr *TargetResult) zenSummary() string {
	var parts []string
	c := tr.Counts
	if c.NamesAfter != c.NamesBefore {
		parts = append(parts, fmt.Sprintf("names %d → %d", c.NamesBefore, c.NamesAfter))
	}
	if c.ChangedExports > 0 {
		parts = append(parts, fmt.Sprintf("%d export(s) changed", c.ChangedExports))
	}
	parts = append(parts, fmt.Sprintf("%d bytes, layout %s", tr.Size, tr.Layout))
	return fmt.Sprintf("%s → %s: zen package %s: %s; %s", tr.Input, tr.Output, tr.Package, strings.Join(parts, ", "), storeText(tr.Store))
}

// storeText says which store-entry fields change.
func storeText(store []StoreChange) string {
	if len(store) == 0 {
		return "store entry unchanged"
	}
	s := make([]string, len(store))
	for i, sc := range store {
		s[i] = sc.String()
	}
	return "store entry: " + strings.Join(s, ", ")
}
