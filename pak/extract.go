package pak

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/safefile"
)

// ExtractOptions configures Reader.Extract.
type ExtractOptions struct {
	// Filter selects files by their output path (see OutputPath); nil
	// selects every file.
	Filter func(f *File, outPath string) bool
	// Progress, when set, is called with the bytes written so far and the
	// total.
	Progress func(done, total int64)
	// Sync flushes every file to stable storage before it is renamed into
	// place, and the folders: those of a staging folder before it is
	// renamed and its parent after, else after the renames.
	Sync bool
	// Session, when set, locks the output folder for the run, tracks the
	// temporary files and the staging folder (an interrupt removes them)
	// and removes those a killed run left beside the files to write and
	// beside the output folder.
	Session *safefile.Session
}

// ExtractResult says what Extract wrote.
type ExtractResult struct {
	Files int      // files written
	Bytes int64    // bytes written
	Paths []string // the output paths, relative to the folder, in index order
}

// OutputPath returns where Extract writes f, relative to the output folder
// and '/'-separated: the mount point without its leading "../" (and "./",
// "/") followed by the file's path, e.g. "Game/Content/Maps/Level.umap"
// for a pak mounted at "../../../". A path that would leave the folder
// (an absolute path, "..", a drive letter, a backslash) is an error.
func (p *Reader) OutputPath(f *File) (string, error) {
	mount := p.MountPoint
	for {
		t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(mount, "../"), "./"), "/")
		if t == mount {
			break
		}
		mount = t
	}
	out := f.Path
	if mount != "" {
		out = strings.TrimSuffix(mount, "/") + "/" + f.Path
	}
	err := safefile.CheckRelPath(out)
	if err == nil {
		err = safefile.CheckNameLengths(out)
	}
	if err != nil {
		return "", errorf(p.Name, f.describe(), f.at, ErrCorrupt, "output path %q: %v; refusing to write outside the output folder", out, err)
	}
	return out, nil
}

// Extract writes the selected files of the pak under dir, each checked
// against the SHA-1 and sizes its entry records as it is read. Nothing is
// written outside dir: paths are checked and every write goes through an
// os.Root, which also refuses symbolic links leading out of it. Before
// anything is written every selected file is opened (its method, key and
// record checked) and every output name checked: two names that would be
// one file on Windows or macOS, a folder in the way of a file, a file in
// the way of a folder. Delete records are skipped.
//
// When dir does not exist, the whole tree is written into one staging
// folder beside it (safefile.Session.StageDir), each file under its final
// name, and that folder is renamed to dir at the end: a failure, an
// interrupt or a killed run leaves no dir at all (a killed run leaves the
// staging folder, which the next run that locks dir removes). When dir
// exists, the files are merged into it: each is written under a temporary
// name beside its final name and the temporary files are renamed only when
// all of them are complete, so a failure leaves no new file under a real
// name (a run killed during those renames leaves some renamed and others
// not). Either way a failure removes the folders it created.
func (p *Reader) Extract(dir string, opts *ExtractOptions) (_ *ExtractResult, err error) {
	if opts == nil {
		opts = &ExtractOptions{}
	}
	var jobs []job
	seen := map[string]*File{}
	var total int64
	for _, f := range p.Files {
		if f.Deleted {
			continue
		}
		out, err := p.OutputPath(f)
		if err != nil {
			return nil, err
		}
		if opts.Filter != nil && !opts.Filter(f, out) {
			continue
		}
		key := safefile.FoldName(out)
		if g, dup := seen[key]; dup {
			return nil, errorf(p.Name, f.describe(), f.at, ErrCorrupt, "output path %q is also the path of %q", out, g.Path)
		}
		seen[key] = f
		rc, err := f.Open() // checks the method, the key and the record
		if err != nil {
			return nil, err
		}
		rc.Close()
		jobs = append(jobs, job{f, out})
		total += f.UncompressedSize
	}
	for _, j := range jobs {
		for d := path.Dir(j.out); d != "."; d = path.Dir(d) {
			if g, clash := seen[safefile.FoldName(d)]; clash {
				return nil, errorf(p.Name, g.describe(), g.at, ErrCorrupt, "output path %q is also a folder of %q", d, j.out)
			}
		}
	}
	res := &ExtractResult{}
	if len(jobs) == 0 {
		return res, nil
	}

	locks, err := opts.Session.Lock(safefile.Use{Path: dir, Write: true})
	if err != nil {
		return nil, err
	}
	defer locks.Release()
	outs := make([]string, len(jobs))
	for k, j := range jobs {
		outs[k] = j.out
	}
	created := safefile.NewDirs(dir, outs)
	defer func() {
		if err != nil {
			safefile.RemoveDirs(created)
		}
	}()
	// A new output folder is written whole beside its name and renamed
	// into place at the end; an existing one gets the files merged in.
	stage, writeDir, err := opts.Session.OutputDir(dir)
	if err != nil {
		return nil, err
	}
	if stage != nil {
		defer func() {
			if err != nil {
				stage.Abort()
			}
		}()
	}
	root, err := os.OpenRoot(writeDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	byDir := map[string][]string{}
	for _, j := range jobs {
		d := path.Dir(j.out)
		if err := root.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Join(dir, filepath.FromSlash(d)), err)
		}
		byDir[d] = append(byDir[d], path.Base(j.out))
	}
	var done int64
	report := func(n int) {
		done += int64(n)
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	if stage != nil {
		if err := p.extractStaged(root, stage, jobs, opts.Sync, report); err != nil {
			return nil, err
		}
		// Windows renames no folder with a handle open in it.
		root.Close()
		if err := stage.Commit(opts.Sync); err != nil {
			return nil, err
		}
		return extracted(res, jobs), nil
	}
	if err := checkDestinations(root, dir, byDir, opts.Session); err != nil {
		return nil, err
	}

	tag := fmt.Sprintf("%d", os.Getpid())
	var staged []string // temporary names, as jobs
	removeStaged := func() {
		for k, tmp := range staged {
			root.Remove(tmp)
			opts.Session.Forget(filepath.Join(dir, filepath.FromSlash(path.Dir(jobs[k].out)), path.Base(tmp)))
		}
	}
	for _, j := range jobs {
		tmp := path.Join(path.Dir(j.out), safefile.TempName(path.Base(j.out), tag))
		staged = append(staged, tmp)
		if err := p.extractOne(root, dir, j.f, tmp, opts, report); err != nil {
			removeStaged()
			return nil, fmt.Errorf("%w (writing %s)", err, j.out)
		}
	}
	end, err := opts.Session.BeginCommit()
	if err != nil {
		removeStaged()
		return nil, err
	}
	defer end()
	for k, j := range jobs {
		if err := root.Rename(staged[k], j.out); err != nil {
			staged = staged[k:]
			jobs = jobs[k:]
			removeStaged()
			return nil, fmt.Errorf("replace %s: %w", j.out, err)
		}
		opts.Session.Forget(filepath.Join(dir, filepath.FromSlash(staged[k])))
	}
	if opts.Sync {
		for d := range byDir {
			safefile.SyncDir(filepath.Join(dir, filepath.FromSlash(d)))
		}
		for _, d := range created {
			safefile.SyncDir(filepath.Dir(d))
		}
	}
	return extracted(res, jobs), nil
}

// extracted fills res with the files jobs wrote.
func extracted(res *ExtractResult, jobs []job) *ExtractResult {
	for _, j := range jobs {
		res.Paths = append(res.Paths, j.out)
		res.Bytes += j.f.UncompressedSize
	}
	res.Files = len(jobs)
	return res
}

// extractStaged writes every file of jobs under its final name into the
// staging folder stage, whose root is root. A failure leaves the files
// written for the caller to remove with the folder.
func (p *Reader) extractStaged(root *os.Root, stage *safefile.StagedDir, jobs []job, sync bool, report func(int)) error {
	for _, j := range jobs {
		var out *os.File
		err := stage.Create(func() error {
			var err error
			out, err = root.OpenFile(j.out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			return err
		})
		if err == nil {
			err = p.copyOut(out, j.f, sync, report)
		}
		if err != nil {
			return fmt.Errorf("%w (writing %s)", err, j.out)
		}
	}
	return nil
}

// extractOne writes f's contents, checked, to the temporary file tmp.
func (p *Reader) extractOne(root *os.Root, dir string, f *File, tmp string, opts *ExtractOptions, report func(int)) error {
	var out *os.File
	err := opts.Session.Create(func() (string, error) {
		var err error
		out, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		return filepath.Join(dir, filepath.FromSlash(tmp)), err
	})
	if err != nil {
		return err
	}
	return p.copyOut(out, f, opts.Sync, report)
}

// copyOut writes f's contents, checked, to out, which it closes.
func (p *Reader) copyOut(out *os.File, f *File, sync bool, report func(int)) error {
	rc, err := f.Open()
	if err == nil {
		_, err = io.Copy(out, &reportReader{rc, report})
		rc.Close()
	}
	if err == nil && sync {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// job is one file Extract writes, with its output path.
type job struct {
	f   *File
	out string
}

// reportReader reports the bytes read through it.
type reportReader struct {
	r      io.Reader
	report func(int)
}

func (r *reportReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.report(n)
	return n, err
}

// checkDestinations checks, before anything is written, that no folder is
// in the way of a file (nor one whose name is the same on Windows or
// macOS). With a Session it also removes the temporary files a killed run
// left beside the files to write.
func checkDestinations(root *os.Root, dir string, byDir map[string][]string, sess *safefile.Session) error {
	for d, finals := range byDir {
		h, err := root.Open(d)
		if err != nil {
			return err
		}
		ents, err := h.ReadDir(-1)
		h.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(dir, filepath.FromSlash(d)), err)
		}
		folders := map[string]string{}
		for _, e := range ents {
			if e.IsDir() {
				folders[safefile.FoldName(e.Name())] = e.Name()
			}
		}
		for _, f := range finals {
			if name, ok := folders[safefile.FoldName(f)]; ok {
				return fmt.Errorf("%s: the folder %s is in the way of the file %s; nothing was written", filepath.Join(dir, filepath.FromSlash(d)), name, f)
			}
		}
		if sess == nil {
			continue
		}
		prefixes := map[string]string{} // TempPrefix → name
		for _, f := range finals {
			prefixes[safefile.TempPrefix(f)] = f
		}
		removed := 0
		for _, e := range ents {
			n := e.Name()
			k := strings.LastIndex(n, ".unrmod-")
			if k < 0 || !e.Type().IsRegular() {
				continue
			}
			if f, ok := prefixes[n[:k+len(".unrmod-")]]; ok && safefile.IsTempOf(n, f) && root.Remove(path.Join(d, n)) == nil {
				removed++
			}
		}
		sess.ReportLeftovers(filepath.Join(dir, filepath.FromSlash(d)), removed)
	}
	return nil
}
