package iostore

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/unrmod/unrmod/safefile"
)

// ExtractOptions configures Extract.
type ExtractOptions struct {
	// Filter selects chunks by their output path (see OutputPath); nil
	// selects every chunk.
	Filter func(ch *Chunk, outPath string) bool
	// Workers is the number of chunks decoded and written at once; 0 means
	// GOMAXPROCS.
	Workers int
	// Progress, when set, is called with the uncompressed bytes written so
	// far and the total, after each block. Calls are serialized.
	Progress func(done, total int64)
	// Sync flushes every file to stable storage before it is renamed into
	// place. Off by default: extracted files can be extracted again, and
	// a sync per file makes extracting thousands of files many times
	// slower. Every file is still written under a temporary name (or into
	// a staging folder) and renamed, so a failed run never leaves partial
	// files under real names. With Sync, the folders are synced too: those
	// of a staging folder before it is renamed, its parent after.
	Sync bool
	// Session, when set, locks the output folder for the run, tracks the
	// temporary files and the staging folder (an interrupt removes them)
	// and removes those a killed run left beside the files written and
	// beside the output folder.
	Session *safefile.Session
}

// ExtractResult says what Extract wrote.
type ExtractResult struct {
	Files int   // files written
	Bytes int64 // uncompressed bytes written
	// Paths are the output paths written, relative to the directory, in
	// TOC order.
	Paths []string
}

// OutputPath returns where Extract writes chunk i, relative to the output
// directory and '/'-separated: the mount point without its leading "../"
// followed by the chunk's path (e.g. "Game/Content/Maps/Level.umap"), or
// "chunks/<Type>/<24 hex digits of the id>.bin" for a chunk without a path.
// A path that would leave the directory (".." in the middle, an absolute
// path, a drive letter, a backslash) is an error.
func (c *Container) OutputPath(i int) (string, error) {
	ch := &c.chunks[i]
	if ch.Path == "" {
		return fmt.Sprintf("chunks/%s/%s.bin", ch.Type, ch.ID.Hex()), nil
	}
	mount := strings.ReplaceAll(c.MountPoint(), "\\", "/")
	for {
		t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(mount, "../"), "./"), "/")
		if t == mount {
			break
		}
		mount = t
	}
	p := ch.Path
	if mount != "" {
		p = strings.TrimSuffix(mount, "/") + "/" + ch.Path
	}
	if err := safefile.CheckRelPath(p); err != nil {
		return "", errorf(c.file, c.chunkStruct(i), -1, ErrCorrupt, "output path %q: %v; refusing to write outside the output directory", p, err)
	}
	return p, nil
}

// stagedFile is a written temporary file waiting for its rename, both
// names relative to the directory handle.
type stagedFile struct {
	dir        dirHandle
	tmp, final string
}

// minDirHandles and maxDirHandlesCap bound maxDirHandles (its per-system
// file): a game's container lists thousands of directories, and a file in
// a directory without a handle costs a walk of its whole path through the
// root for each system call (create, rename), so Extract takes as many
// handles as the process can spare.
const (
	minDirHandles    = 128
	maxDirHandlesCap = 16384
)

// clampDirHandles is half of a descriptor limit, within the bounds.
func clampDirHandles(limit uint64) int {
	return int(min(max(limit/2, minDirHandles), maxDirHandlesCap))
}

// dirHandle addresses one output directory: its own os.Root, or the output
// root with the directory as a path prefix.
type dirHandle struct {
	root   *os.Root
	prefix string
	path   string            // the directory, for the Session
	sess   *safefile.Session // tracks the temporary files
	// stage, when set, is the staging folder the files are written into
	// under their final names (the output folder did not exist).
	stage *safefile.StagedDir
}

func (h dirHandle) create(name string) (f *os.File, err error) {
	open := func() error {
		f, err = h.root.OpenFile(h.prefix+name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		return err
	}
	if h.stage != nil {
		err = h.stage.Create(open)
		return f, err
	}
	err = h.sess.Create(func() (string, error) {
		return filepath.Join(h.path, name), open()
	})
	return f, err
}

func (h dirHandle) rename(from, to string) error {
	err := h.root.Rename(h.prefix+from, h.prefix+to)
	if err == nil {
		h.sess.Forget(filepath.Join(h.path, from))
	}
	return err
}

func (h dirHandle) remove(name string) {
	h.root.Remove(h.prefix + name)
	h.sess.Forget(filepath.Join(h.path, name))
}

// Extract writes the selected chunks as files under dir, decoding them in
// parallel with bounded memory (one block per worker). Every file is
// checked against its chunk-meta hash before it is kept. Nothing is
// written outside dir: paths are checked, and all writes go through an
// os.Root, which also refuses symbolic links that lead out of dir.
//
// When dir does not exist, the whole tree is written into one staging
// folder beside it (safefile.Session.StageDir), each file under its final
// name, and that folder is renamed to dir at the end: a failure, an
// interrupt or a killed run leaves no dir at all, and a run killed before
// the rename leaves only the staging folder, which the next run that locks
// dir removes. When dir exists, the files are merged into it: each is
// first written under a temporary name beside its final name and the
// temporary files are renamed at the end, so a failure leaves no new or
// half-written file under a real name (a run killed during those renames
// leaves some files renamed and others not).
//
// Before writing anything Extract checks that every selected chunk can be
// decoded (an Oodle block, a missing key or .ucas fail at once) and that
// every file can take its name (see checkDestinations); a failed extract
// removes the folders it created.
func (c *Container) Extract(dir string, opts *ExtractOptions) (_ *ExtractResult, err error) {
	if opts == nil {
		opts = &ExtractOptions{}
	}
	if c.casErr != nil {
		return nil, c.casErr
	}
	h := &c.toc.Header
	if h.Encryption() != EncryptionNone && c.key == nil {
		return nil, keyRequired(c.file, "container data", -1, "", h)
	}

	// Select and check before touching the disk.
	res := &ExtractResult{}
	var sel []int
	outPath := make(map[int]string)
	seen := map[string]int{}
	var total int64
	for i := range c.chunks {
		ch := &c.chunks[i]
		p, err := c.OutputPath(i)
		if err != nil {
			return nil, err
		}
		if opts.Filter != nil && !opts.Filter(ch, p) {
			continue
		}
		if err := safefile.CheckNameLengths(p); err != nil {
			return nil, errorf(c.file, c.chunkStruct(i), -1, ErrCorrupt, "output path %q: %v", p, err)
		}
		key := safefile.FoldName(p)
		if j, dup := seen[key]; dup {
			return nil, errorf(c.file, c.chunkStruct(i), -1, ErrCorrupt, "output path %q is also the path of chunk %d", p, j)
		}
		seen[key] = i
		if ch.badRange {
			return nil, errorf(c.file, c.chunkStruct(i), c.chunkEntryOffset(i), ErrCorrupt, "%s", c.rangeErr(i))
		}
		if why := c.shareProblem(i); why != "" {
			return nil, errorf(c.file, c.chunkStruct(i), c.chunkEntryOffset(i), ErrCorrupt,
				"%s; engine-written containers never share blocks, refusing to extract", why)
		}
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			if _, _, _, err := c.blockPlace(k); err != nil {
				return nil, err
			}
			b := c.toc.Blocks[k]
			if name := c.toc.MethodName(b.Method); b.Method != 0 && !c.codecs.CanDecode(name) {
				return nil, fmt.Errorf("%s: %s: %w", c.file, c.chunkStruct(i), &MethodError{Method: name, Block: k})
			}
		}
		sel = append(sel, i)
		outPath[i] = p
		total += int64(ch.Size)
	}
	// Directories whose names are also files would make renames fail late.
	for _, i := range sel {
		for d := path.Dir(outPath[i]); d != "."; d = path.Dir(d) {
			if j, clash := seen[safefile.FoldName(d)]; clash {
				return nil, errorf(c.file, c.chunkStruct(j), -1, ErrCorrupt, "output path %q is also a directory of %q", outPath[j], outPath[i])
			}
		}
	}
	if len(sel) == 0 {
		return res, nil
	}

	locks, err := opts.Session.Lock(safefile.Use{Path: dir, Write: true})
	if err != nil {
		return nil, err
	}
	defer locks.Release()
	created := safefile.NewDirs(dir, slices.Collect(maps.Values(outPath)))
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
	// Every handle is closed before the staging folder is renamed (Windows
	// renames no folder with a handle open in it).
	dirs := map[string]dirHandle{}
	closeAll := func() {
		for d, h := range dirs {
			if h.root != root {
				h.root.Close()
			}
			delete(dirs, d)
		}
		root.Close()
	}
	defer closeAll()
	// A handle per output directory lets files be created and renamed with
	// single-component names, one system call each, instead of a walk of
	// the whole path per file. The busiest directories get one, up to
	// maxDirHandles so as not to run out of file descriptors; the others
	// go through the root with the full path.
	handles := maxDirHandles()
	perDir := map[string]int{}
	for _, i := range sel {
		perDir[path.Dir(outPath[i])]++
	}
	names := make([]string, 0, len(perDir))
	for d := range perDir {
		names = append(names, d)
	}
	sort.Slice(names, func(a, b int) bool {
		if perDir[names[a]] != perDir[names[b]] {
			return perDir[names[a]] > perDir[names[b]]
		}
		return names[a] < names[b]
	})
	for n, d := range names {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
		h := dirHandle{root: root, path: filepath.Join(writeDir, filepath.FromSlash(d)), sess: opts.Session, stage: stage}
		switch {
		case d == ".":
		case n < handles:
			r, err := root.OpenRoot(d)
			if err != nil {
				return nil, fmt.Errorf("open %s: %w", d, err)
			}
			h.root = r
		default:
			h.prefix = d + "/"
		}
		dirs[d] = h
	}
	if stage == nil {
		if err := checkDestinations(dirs, sel, outPath, opts.Session); err != nil {
			return nil, err
		}
	}

	var (
		mu       sync.Mutex
		staged   []stagedFile
		firstErr error
		failed   atomic.Bool
		progMu   sync.Mutex
		done     int64
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		failed.Store(true)
	}
	report := func(n int) {
		if opts.Progress != nil {
			progMu.Lock()
			done += int64(n)
			opts.Progress(done, total)
			progMu.Unlock()
		}
	}
	tag := fmt.Sprintf("%d", os.Getpid())
	c.forEachChunk(sel, opts.Workers, func(i int, s *scratch) {
		if failed.Load() {
			return
		}
		d := dirs[path.Dir(outPath[i])]
		final := path.Base(outPath[i])
		if stage != nil {
			// The staging folder is removed whole if the run fails.
			if err := c.extractOne(d, i, final, s, opts.Sync, report); err != nil {
				fail(fmt.Errorf("%w (writing %s)", err, outPath[i]))
			}
			return
		}
		tmp := safefile.TempName(final, tag)
		if err := c.extractOne(d, i, tmp, s, opts.Sync, report); err != nil {
			d.remove(tmp)
			fail(fmt.Errorf("%w (writing %s)", err, outPath[i]))
			return
		}
		mu.Lock()
		staged = append(staged, stagedFile{d, tmp, final})
		mu.Unlock()
	})
	if firstErr != nil {
		for _, f := range staged {
			f.dir.remove(f.tmp)
		}
		return nil, firstErr
	}
	if stage != nil {
		closeAll()
		if err := stage.Commit(opts.Sync); err != nil {
			return nil, err
		}
		return c.extracted(res, sel, outPath), nil
	}
	end, err := opts.Session.BeginCommit()
	if err != nil {
		for _, f := range staged {
			f.dir.remove(f.tmp)
		}
		return nil, err
	}
	defer end()
	for n, f := range staged {
		if err := f.dir.rename(f.tmp, f.final); err != nil {
			for _, r := range staged[n:] {
				r.dir.remove(r.tmp)
			}
			return nil, fmt.Errorf("replace %s: %w", f.final, err)
		}
	}
	if opts.Sync {
		syncDirs(dirs, created)
	}
	return c.extracted(res, sel, outPath), nil
}

// extracted fills res with the chunks sel written to outPath.
func (c *Container) extracted(res *ExtractResult, sel []int, outPath map[int]string) *ExtractResult {
	for _, i := range sel {
		res.Paths = append(res.Paths, outPath[i])
		res.Bytes += int64(c.chunks[i].Size)
	}
	res.Files = len(sel)
	return res
}

// extractOne decodes chunk i into the temporary file tmp and checks its hash.
func (c *Container) extractOne(dir dirHandle, i int, tmp string, s *scratch, sync bool, report func(int)) error {
	// The chunk hash is checked below: zlib's Adler-32 of the same bytes
	// need not be.
	s.hashChecked = true
	f, err := dir.create(tmp)
	if err != nil {
		return err
	}
	h := c.newChunkHasher(s)
	err = c.eachPart(i, s, func(p []byte) error {
		if _, err := f.Write(p); err != nil {
			return fmt.Errorf("write %s: %w", tmp, err)
		}
		h.Write(p)
		report(len(p))
		return nil
	})
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", tmp, cerr)
	}
	if err != nil {
		return err
	}
	ok, sum := h.matches(c, i, s.hash)
	s.hash = sum
	if ok {
		return nil
	}
	m := c.chunks[i].Meta.Hash20()
	msg := fmt.Sprintf("the data does not match the chunk meta hash %x", m[:]) + c.wrongKeyHint()
	return errorf(c.file, c.chunkStruct(i), -1, ErrHashMismatch, "%s", msg)
}
