package patch

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
	"github.com/unrmod/unrmod/usmap"
)

// A container target whose container is a .pak patches the cooked assets
// and files of a pak (docs/patch-format.md, "Pak targets"). Mode mod
// writes a _P pak holding only the changed assets (their .uasset and
// .uexp) and the files added or replaced, which the engine prefers to the
// game's because of the _P suffix; mode full writes the whole pak again,
// every unchanged file copied as it is stored. Either output has the
// input's version, mount point, key GUID and encryption, is read back
// whole (every file against its hash, every changed asset decoded) before
// it replaces anything, and is renamed into place with the patch's other
// outputs.

// isPakPath reports whether a container target's path names a pak.
func isPakPath(p string) bool { return strings.EqualFold(path.Ext(slashes(p)), ".pak") }

// pakJob is one pak target being applied.
type pakJob struct {
	ct  *ContainerTarget
	dir string
	in  string
	r   *pak.ReadCloser
	res *ContainerResult
	// codecs are Options.Codecs: the compression methods files are read
	// and written with (nil: the built-in ones).
	codecs *ue.Codecs
	// mappings are the target's mappings: (unversioned properties), or nil.
	mappings *usmap.Mappings
	// data holds each changed or added file's new contents by its
	// lower-cased path; removed files map to nil. paths keeps the paths
	// as written, order the patch's order.
	data      map[string][]byte
	paths     map[string]string
	order     []string
	unchanged int // packages whose operations were all in effect
}

// applyPakTarget applies a pak target: it patches the assets and files it
// names in memory and (unless dry) stages the output pak in a batch of
// its own, which the caller joins to the patch's commit.
func applyPakTarget(t *Target, dir string, tf *targetFiles, opt Options) (*TargetResult, *safefile.Batch, error) {
	ct := t.Container
	in, out := tf.in, tf.out
	fail := func(err error) (*TargetResult, *safefile.Batch, error) {
		var pe *Error
		if errors.As(err, &pe) {
			return nil, nil, err
		}
		return nil, nil, &Error{Pos: ct.Pos, Msg: err.Error(), Err: err}
	}
	r, err := pak.Open(in, &pak.Options{Key: ct.Key, Codecs: opt.Codecs})
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	if err := r.CheckIndex(); err != nil {
		return fail(err)
	}
	m, err := loadMappings(t, dir, opt.Codecs)
	if err != nil {
		return nil, nil, err
	}
	j := &pakJob{ct: ct, dir: dir, in: in, r: r, codecs: opt.Codecs, mappings: m, res: &ContainerResult{Mode: ct.Mode.String(), Packages: []ContainerPackage{}},
		data: map[string][]byte{}, paths: map[string]string{}}
	for _, pt := range ct.Packages {
		if err := j.patchPackage(pt); err != nil {
			return fail(err)
		}
	}
	for _, f := range ct.Files {
		if err := j.fileOp(f); err != nil {
			return fail(err)
		}
	}
	tr := &TargetResult{Kind: "pak", Input: in, Output: out, Container: j.res}
	for _, p := range j.res.Packages {
		tr.Changes = append(tr.Changes, p.Changes...)
	}
	tr.Changed = len(j.res.Packages) > j.unchanged || len(j.res.Files) > 0
	if !tr.Changed {
		j.res.Notes = append(j.res.Notes, "every operation was already in effect")
	}
	if ct.Mode == ModeMod {
		if _, err := checkModSuffix(ct.Pos, out, "pak", "files"); err != nil {
			return fail(err)
		}
	}
	if !opt.Force {
		if err := checkPakOutput(ct.Pos, out, r.MountPoint); err != nil {
			return fail(err)
		}
	}
	opts, err := j.writerOptions()
	if err != nil {
		return fail(err)
	}
	if opt.DryRun {
		var cw countWriter
		if err := j.write(&cw, opts); err != nil {
			return fail(err)
		}
		return tr, nil, nil
	}
	b := &safefile.Batch{Session: opt.Session}
	file, err := b.Create(out, 0o644)
	if err == nil {
		if err = j.write(file, opts); err == nil {
			err = j.readBack(file, out)
		}
	}
	if err != nil {
		b.Abort()
		return fail(err)
	}
	return tr, b, nil
}

// countWriter counts what is written to it (a dry run's pak).
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// patchPackage applies one package's operations to its cooked asset.
func (j *pakJob) patchPackage(pt *PackageTarget) error {
	f, err := ufile.FindPakAsset(&j.r.Reader, pt.Package)
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	key := strings.ToLower(f.Path)
	if _, dup := j.data[key]; dup {
		return errorf(pt.Pos, "package %s is changed twice in this target; put all its operations in one entry", pt.Package)
	}
	a, err := ufile.ReadPakAsset(&j.r.Reader, f)
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	uexpPath := strings.TrimSuffix(f.Path, path.Ext(f.Path)) + ".uexp"
	uf := j.r.Lookup(uexpPath)
	header, uexp := a.Data, a.UexpData()
	decode := func() (*uasset.Package, error) { return a.Asset(nil) }
	cp, err := patchCooked(pt.Pos, a.Path, a.Path, decode, pt.Ops, j.dir, j.mappings)
	if err != nil {
		return err
	}
	if cp.split && uf == nil {
		return errorf(pt.Pos, "%s: the asset's export data is in %s, which the pak does not hold", j.r.Name, uexpPath)
	}
	sum := func(a, b []byte) string {
		h := sha1.New()
		h.Write(a)
		h.Write(b)
		return fmt.Sprintf("0x%x", h.Sum(nil))
	}
	j.res.Packages = append(j.res.Packages, ContainerPackage{Package: cp.pkg, Path: f.Path, Changes: cp.changes,
		OldSize: int64(len(header) + len(uexp)), NewSize: int64(len(cp.header) + len(cp.uexp)),
		OldHash: sum(header, uexp), NewHash: sum(cp.header, cp.uexp)})
	if !cp.changed {
		j.unchanged++
		if j.ct.Mode == ModeFull {
			return nil // every operation already in effect: the files stay
		}
		// A mod holds the assets it names, changed or not, so that
		// applying a patch to its own output gives the same mod.
	}
	j.set(f.Path, cp.header)
	if uf != nil {
		j.set(uf.Path, cp.uexp)
	}
	return nil
}

// set records a file's new contents (nil: removed).
func (j *pakJob) set(p string, data []byte) {
	k := strings.ToLower(p)
	if _, ok := j.data[k]; !ok {
		j.order = append(j.order, k)
	}
	j.data[k], j.paths[k] = data, p
}

// pakPath returns the path p, as a patch writes it, relative to the mount
// point: as it is when the pak lists it (ls shows paths so), else without
// the mount point's path from the game's root when it starts with it
// (Maine/Content/X for a pak mounted at ../../../Maine/Content/).
func (j *pakJob) pakPath(p string) string {
	if j.r.Lookup(p) != nil {
		return p
	}
	mount, inGame := strings.CutPrefix(j.r.MountPoint, "../../../")
	if inGame && mount != "" && len(p) > len(mount) && strings.EqualFold(p[:len(mount)], mount) {
		return p[len(mount):]
	}
	return p
}

// fileOp applies a replace-file, add-file or remove-file operation.
func (j *pakJob) fileOp(f *FileOp) error {
	p := j.pakPath(f.Path)
	existing := j.r.Lookup(p)
	if existing != nil && existing.Deleted {
		existing = nil
	}
	if existing == nil && f.Kind != "add-file" {
		return errorf(f.Pos, "%s: the pak lists no %s (see unrmod ls %s)", f.Kind, f.Path, filepath.Base(j.in))
	}
	var data []byte
	if f.Source != "" {
		src := localPath(j.dir, f.Source)
		var err error
		if data, err = safefile.ReadRegular(src, ufile.MaxAssetSize, "a file added to a pak"); err != nil {
			return errorf(f.Pos, "%s: %v", f.Kind, err)
		}
	}
	if f.Kind == "add-file" && existing != nil {
		return errorf(f.Pos, "add-file: %s is already in the pak; use replace-file", f.Path)
	}
	if existing != nil {
		p = existing.Path
	}
	if _, dup := j.data[strings.ToLower(p)]; dup {
		return errorf(f.Pos, "%s: %s is changed twice in this target", f.Kind, f.Path)
	}
	cf := ContainerFile{Op: f.Kind, Path: p, NewSize: int64(len(data))}
	if existing != nil {
		cf.OldSize = existing.UncompressedSize
	}
	j.set(p, data)
	j.res.Files = append(j.res.Files, cf)
	return nil
}

// writerOptions returns the output pak's options: the input's version,
// mount point, key GUID, method slots and encryption, and the compression
// the target asks for.
func (j *pakJob) writerOptions() (*pak.WriterOptions, error) {
	r := j.r
	v := r.Footer.Version
	o := &pak.WriterOptions{Version: v, MountPoint: r.MountPoint, EncryptionKeyGUID: r.Footer.EncryptionKeyGUID,
		PathHashSeed: r.PathHashSeed, Methods: r.Footer.Methods}
	if !v.HasMethodNames() {
		o.Methods = nil
	}
	used := "" // the first compression method the pak's files use
	for _, f := range r.Files {
		if f.Encrypted {
			o.EncryptFiles = true
		}
		if f.Method != 0 && used == "" {
			used = r.Footer.MethodName(f.Method)
		}
	}
	o.EncryptIndex = r.Footer.IndexEncrypted
	if o.EncryptFiles || o.EncryptIndex {
		if j.ct.Key == nil {
			return nil, errorf(j.ct.Pos, "%s is encrypted: the target needs its aes-key to write the output with it", j.in)
		}
		o.Key, o.CTR = j.ct.Key, r.Footer.CTR()
	}
	o.Codecs = j.codecs
	switch j.ct.Compression {
	case "zlib":
		o.Compress, o.Method = true, "Zlib"
	case "oodle":
		o.Compress, o.Method = true, "Oodle"
	case "keep":
		o.Compress, o.Method = used != "", "Zlib"
		if codec, _ := j.codecs.Lookup(used); codec.NewCompressor != nil && v.HasMethodNames() {
			o.Method = codec.Name
		} else if used != "" && !strings.EqualFold(used, "Zlib") {
			j.res.Notes = append(j.res.Notes, fmt.Sprintf("unrmod cannot write the pak's compression (%s) here; changed files are Zlib-compressed, which the game reads too", used))
		}
	}
	if o.Compress && !v.HasBlocks() {
		o.Compress = false
	}
	return o, nil
}

// write writes the output pak to w: for a mod, the changed and added files
// in the patch's order; for a full rewrite, the input's files in order,
// changed ones with their new contents and the others copied as stored,
// then the added ones.
func (j *pakJob) write(w io.Writer, opts *pak.WriterOptions) error {
	pw, err := pak.NewWriter(w, opts)
	if err != nil {
		return err
	}
	j.res.Chunks, j.res.Copied = 0, 0
	add := func(k string) error {
		if j.data[k] == nil {
			return nil // removed
		}
		j.res.Chunks++
		return pw.WriteFile(j.paths[k], j.data[k])
	}
	if j.ct.Mode == ModeMod {
		keys := append([]string(nil), j.order...)
		sort.Strings(keys)
		for _, k := range keys {
			if err := add(k); err != nil {
				return err
			}
		}
		return pw.Close()
	}
	done := map[string]bool{}
	for _, f := range j.r.Files {
		if f.Deleted {
			return fmt.Errorf("%s: %s is a delete record, which a full rewrite cannot copy; use mode: mod", j.r.Name, f.Path)
		}
		k := strings.ToLower(f.Path)
		if _, changed := j.data[k]; changed {
			done[k] = true
			if err := add(k); err != nil {
				return err
			}
			continue
		}
		err := pw.CopyFile(f.Path, f)
		if errors.Is(err, pak.ErrCannotCopy) {
			var data []byte
			if data, err = f.ReadAll(); err == nil {
				err = pw.WriteFile(f.Path, data)
			}
		} else if err == nil {
			j.res.Copied++
		}
		if err != nil {
			return err
		}
		j.res.Chunks++
	}
	for _, k := range j.order {
		if !done[k] {
			if err := add(k); err != nil {
				return err
			}
		}
	}
	return pw.Close()
}

// readBack reads the staged pak: its index, every file against its hash,
// the files the patch changed against their new contents, and each
// changed asset decoded.
func (j *pakJob) readBack(f *os.File, name string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := pak.Decode(f, st.Size(), name, &pak.Options{Key: j.ct.Key, Codecs: j.codecs})
	if err == nil {
		err = r.CheckIndex()
	}
	if err != nil {
		return fmt.Errorf("the pak written does not read back: %w", err)
	}
	if len(r.Files) != j.res.Chunks {
		return fmt.Errorf("%s: the pak written lists %d files, %d were written", name, len(r.Files), j.res.Chunks)
	}
	unchecked := 0
	defer func() {
		if unchecked > 0 {
			j.res.Notes = append(j.res.Notes, fmt.Sprintf("%d files copied as stored were not checked against their hashes: no decoder reads their blocks (Oodle); they keep their hashes", unchecked))
		}
	}()
	for _, g := range r.Files {
		k := strings.ToLower(g.Path)
		want, changed := j.data[k]
		if !changed {
			rc, err := g.Open()
			if err == nil {
				_, err = io.Copy(io.Discard, rc)
				rc.Close()
			}
			if errors.Is(err, pak.ErrUnsupportedMethod) {
				unchecked++
				continue
			}
			if err != nil {
				return fmt.Errorf("the pak written does not read back: %w", err)
			}
			continue
		}
		got, err := g.ReadAll()
		if err != nil {
			return fmt.Errorf("the pak written does not read back: %w", err)
		}
		if string(got) != string(want) {
			return fmt.Errorf("%s: %s reads back other bytes than were written", name, g.Path)
		}
	}
	// The files written were just read back equal to j.data: the assets'
	// checks take those bytes; what was copied is read again.
	written := func(p string) []byte {
		if b, ok := j.data[strings.ToLower(p)]; ok {
			return b
		}
		b, _ := r.ReadFile(p)
		return b
	}
	for _, p := range j.res.Packages {
		header := written(p.Path)
		uexp := written(strings.TrimSuffix(p.Path, path.Ext(p.Path)) + ".uexp")
		if header == nil && j.ct.Mode == ModeFull {
			continue
		}
		q, err := uasset.Decode(r.MountPoint+p.Path, header, uexp, nil)
		if err == nil {
			if probs := q.Problems(); len(probs) > 0 {
				err = fmt.Errorf("%s", probs[0])
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %s in the pak written fails verification: %w", name, p.Path, err)
		}
	}
	return nil
}

// checkPakOutput refuses to replace an existing file at a pak target's
// output unless it is a pak with the input's mount point (an earlier
// output of the target).
func checkPakOutput(pos Pos, out, mount string) error {
	st, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errorf(pos, "output %s: %v", out, err)
	}
	if !st.Mode().IsRegular() {
		return errorf(pos, "the output %s exists and is not a file", out)
	}
	r, err := pak.Open(out, nil)
	if err != nil && !errors.Is(err, pak.ErrKeyRequired) {
		return errNotEarlierOutput(pos, out, "it is not a pak")
	}
	if err == nil {
		defer r.Close()
		if r.MountPoint != mount {
			return errNotEarlierOutput(pos, out, fmt.Sprintf("it is mounted at %s, the output at %s", r.MountPoint, mount))
		}
	}
	return nil
}

// pakSummary is Summary for a pak target.
func (tr *TargetResult) pakSummary() string {
	r := tr.Container
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s (mode %s): %d files, %d copied as stored", tr.Input, tr.Output, r.Mode, r.Chunks, r.Copied)
	for _, p := range r.Packages {
		fmt.Fprintf(&b, "\n  asset %s (%s): %d → %d bytes with its .uexp, hash %s → %s", p.Package, p.Path, p.OldSize, p.NewSize, p.OldHash, p.NewHash)
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "\n    %s", c.String())
		}
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "\n  %s %s: %d → %d bytes", f.Op, f.Path, f.OldSize, f.NewSize)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n  note: %s", n)
	}
	return b.String()
}
