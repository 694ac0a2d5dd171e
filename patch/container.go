package patch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// ContainerPackage is a package a container target changed or added.
type ContainerPackage struct {
	Package string   `json:"package"`
	Path    string   `json:"path"`
	Changes []Change `json:"changes,omitempty"`
	OldSize int64    `json:"old_size"` // 0 for an added package
	NewSize int64    `json:"new_size"`
	OldHash string   `json:"old_hash,omitempty"`
	NewHash string   `json:"new_hash"`
	// Store lists the store-entry fields that change.
	Store []StoreChange `json:"store,omitempty"`
}

// ContainerFile is a file a container target replaced, added or removed.
type ContainerFile struct {
	Op      string `json:"op"`
	Path    string `json:"path"`
	Chunk   string `json:"chunk,omitempty"` // a container's chunk id; none in a pak
	OldSize int64  `json:"old_size"`
	NewSize int64  `json:"new_size"`
}

// ContainerResult is what a container target did.
type ContainerResult struct {
	Mode     string             `json:"mode"`
	Pak      string             `json:"pak,omitempty"`
	Packages []ContainerPackage `json:"packages"`
	Files    []ContainerFile    `json:"files,omitempty"`
	// Chunks counts the output container's chunks, Copied those whose
	// stored blocks were copied as they are.
	Chunks int `json:"chunks"`
	Copied int `json:"copied"`
	// SourceCheck says how mode full checked the game container it
	// copies: "checked" (every chunk decoded and hashed, as it was
	// copied), "recorded" (checked so, found sound and remembered for the
	// next run), or "remembered" (it passed that check before, at
	// SourceCheckedAt, and its files are unchanged since: copied without
	// decoding again). Empty for mode mod and dry runs.
	SourceCheck     string     `json:"source_check,omitempty"`
	SourceCheckedAt *time.Time `json:"source_checked_at,omitempty"`
	// Notes say what the modder should know about the output.
	Notes []string `json:"notes,omitempty"`
	// streamed counts the packages patched without holding them.
	streamed int
}

// containerJob is one container target being applied: what it changes,
// decided and checked in memory before anything is written.
type containerJob struct {
	// schema reads unversioned properties (nil: they are refused).
	schema *schema
	t      *Target
	ct     *ContainerTarget
	dir    string
	in     string
	c      *iostore.Container
	hdr    *zen.ContainerHeader
	// index finds hdr's store entries by id (built once: a patch may name
	// many packages of a container of many).
	index *zen.StoreIndex
	v     iostore.TocVersion
	res   *ContainerResult
	// data holds each changed or added chunk's new content by id; removed
	// ones map to nil.
	data  map[iostore.ChunkID][]byte
	paths map[iostore.ChunkID]string // added chunks' paths
	order []iostore.ChunkID          // changed and added chunks, in patch order
	// entries are the store entries of changed and added packages;
	// removed lists removed packages.
	entries map[zen.PackageID]zen.StoreEntry
	removed map[zen.PackageID]bool
	// streams hold the changed packages written without holding them
	// (container_stream.go): their data entry is the stream's header.
	streams map[iostore.ChunkID]*zen.Stream
	// streamAbove is the package size from which packages are streamed;
	// spooled are the temporary files they are read from.
	streamAbove int64
	spooled     []*os.File
	// out is the output container: packages are spooled beside it, named
	// as its temporary files (which recover removes), when its folder
	// exists: a place the patch writes to anyway, on the output's volume
	// (the system's temporary folder may be held in memory).
	out string
	// unchanged counts packages whose operations were all in effect.
	unchanged int
	sess      *safefile.Session // locks and tracks the output's files
	codecs    *ue.Codecs        // Options.Codecs
	checks    *checkcache.Cache // Options.Checks
}

// applyContainerTarget applies a container target: it patches the packages
// and files it names in memory, then (unless dry) stages the output
// container, which the caller commits with the other outputs.
func applyContainerTarget(t *Target, dir string, tf *targetFiles, opt Options) (*TargetResult, *iostore.Writer, error) {
	ct := t.Container
	in, out := tf.in, tf.out
	c, err := iostore.Open(in, &iostore.Options{Key: ct.Key, Codecs: opt.Codecs})
	if err != nil {
		return nil, nil, &Error{Pos: ct.Pos, Msg: err.Error(), Err: err}
	}
	defer c.Close()
	if _, err := c.DirectoryIndex(); err != nil {
		return nil, nil, &Error{Pos: ct.Pos, Msg: err.Error(), Err: err}
	}
	j := &containerJob{t: t, ct: ct, dir: dir, in: in, out: out, c: c, v: c.Header().Version, sess: opt.Session, codecs: opt.Codecs, checks: opt.Checks,
		res:  &ContainerResult{Mode: ct.Mode.String(), Packages: []ContainerPackage{}},
		data: map[iostore.ChunkID][]byte{}, paths: map[iostore.ChunkID]string{},
		entries: map[zen.PackageID]zen.StoreEntry{}, removed: map[zen.PackageID]bool{},
		streams: map[iostore.ChunkID]*zen.Stream{}, streamAbove: streamThreshold}
	if opt.streamAbove > 0 {
		j.streamAbove = opt.streamAbove
	}
	defer j.removeSpooled()
	if m, err := loadMappings(t, dir, opt.Codecs); err != nil {
		return nil, nil, err
	} else if m != nil {
		so, err := loadScript(t, dir, in)
		if err != nil {
			return nil, nil, err
		}
		j.schema = &schema{m: m, r: c.Resolver(so)}
	}
	if _, ok := c.ContainerHeaderChunk(); ok {
		if j.hdr, err = c.ContainerHeader(); err != nil {
			return nil, nil, &Error{Pos: ct.Pos, Msg: err.Error(), Err: err}
		}
		j.index = j.hdr.Index()
	}
	if ct.Mode == ModeMod {
		// A mod copies the header's versions and the bulk data of the
		// packages it changes: the input's TOC and header must verify (the
		// packages are checked as they are patched; a full rewrite checks
		// the rest of the input itself).
		if err := c.VerifyInput(nil, false, 0); err != nil {
			return nil, nil, &Error{Pos: ct.Pos, Msg: err.Error(), Err: err}
		}
	}
	for _, pt := range ct.Packages {
		if err := j.patchPackage(pt); err != nil {
			return nil, nil, err
		}
	}
	for _, f := range ct.Files {
		if err := j.fileOp(f); err != nil {
			return nil, nil, err
		}
	}
	tr := &TargetResult{Kind: "container", Input: in, Output: out, Container: j.res}
	for _, p := range j.res.Packages {
		tr.Changes = append(tr.Changes, p.Changes...)
	}
	tr.Changed = len(j.order) > j.unchanged || len(j.res.Files) > 0
	if len(j.order) == 0 {
		if opt.DryRun {
			j.res.Notes = append(j.res.Notes, "every operation was already in effect: the container would be written unchanged")
		} else {
			j.res.Notes = append(j.res.Notes, "every operation was already in effect: the container is written unchanged")
		}
	}
	if (len(j.entries) > 0 || len(j.removed) > 0) && j.hdr == nil {
		return nil, nil, errorf(ct.Pos, "%s has no container header, so the engine could not register the changed packages", in)
	}
	if ct.Mode == ModeMod {
		if err := j.checkModName(out); err != nil {
			return nil, nil, err
		}
	}
	if !opt.Force {
		id := zen.ContainerIDFromName(strings.TrimSuffix(filepath.Base(out), filepath.Ext(out)))
		if ct.Mode == ModeFull {
			id = c.Header().ContainerID
		}
		if err := checkContainerOutput(ct.Pos, tf, id); err != nil {
			return nil, nil, err
		}
	}
	if opt.DryRun {
		if ct.Mode == ModeMod {
			j.res.Chunks = len(j.order) + len(j.bulkToCopy())
			if len(j.entries) > 0 {
				j.res.Chunks++
			}
			j.res.Copied = len(j.bulkToCopy())
		}
		return tr, nil, nil
	}
	var w *iostore.Writer
	if ct.Mode == ModeMod {
		w, err = j.writeMod(out)
	} else {
		w, err = j.writeFull(out)
	}
	if err != nil {
		return nil, nil, &Error{Pos: ct.Pos, Msg: err.Error(), Err: err}
	}
	return tr, w, nil
}

// containerOutPath decides where a container target writes its .utoc.
func containerOutPath(t *Target, dir, in string, opt Options) string {
	base := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
	if t.Container.Pak {
		base = strings.TrimSuffix(base, "_P")
	}
	if t.Container.Mode == ModeMod {
		base += "_Mod_P"
	}
	var out string
	switch {
	case opt.OutputDir != "" && t.Output != "":
		out = filepath.Join(opt.OutputDir, filepath.Base(filepath.FromSlash(t.Output)))
	case opt.OutputDir != "":
		out = filepath.Join(opt.OutputDir, base)
	case t.Output != "":
		out = filepath.FromSlash(t.Output)
		if !filepath.IsAbs(out) {
			out = filepath.Join(dir, out)
		}
	default:
		out = filepath.Join(dir, "patched", base)
	}
	if t.Container.Pak {
		return strings.TrimSuffix(out, filepath.Ext(out)) + ".pak"
	}
	return iostore.TocPath(out)
}

// hashText prints a chunk hash.
func hashText(h [20]byte) string { return fmt.Sprintf("0x%x", h[:]) }

// patchPackage applies one package's operations.
func (j *containerJob) patchPackage(pt *PackageTarget) error {
	c := j.c
	i, err := c.FindPackage(pt.Package)
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	ch := c.Chunks()[i]
	if _, dup := j.data[ch.ID]; dup {
		return errorf(pt.Pos, "package %s is changed twice in this target; put all its operations in one entry", pt.Package)
	}
	if ch.Size > zen.MaxPackageSize {
		return errorf(pt.Pos, "package %s is %d bytes; a zen package is at most %d", pt.Package, ch.Size, uint64(zen.MaxPackageSize))
	}
	if int64(ch.Size) >= j.streamAbove {
		if done, err := j.patchStreamed(pt, i); done || err != nil {
			return err
		}
	}
	src, err := c.ReadChunk(i)
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	opts := &zen.DecodeOptions{}
	p, err := zen.DecodePackage(c.PackageName(i), src, opts)
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	old, _ := zen.DecodePackage(c.PackageName(i), src, opts)
	// A container write verifies every package it writes: a package that
	// already fails verification is refused, not patched (the encoder would
	// rebuild damaged fields, or the output would keep the problems).
	if probs := p.Problems(j.verifyOptions(i)); len(probs) > 0 {
		err := &zen.InputProblemsError{File: j.in, Part: "package " + pt.Package, Problems: probs,
			Rebuilds: "a container write refuses a package that fails verification"}
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	before := p.Problems(nil)
	changes, err := applyZen(p, pt.Ops, j.dir, j.schema)
	if err != nil {
		return err
	}
	if err := checkInlineBulkData(pt.Pos, old, p); err != nil {
		return err
	}
	data, err := p.Encode()
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: err.Error(), Err: err}
	}
	q, err := zen.DecodePackage(p.PackageName(), data, nil)
	if err != nil {
		return &Error{Pos: pt.Pos, Msg: "the patched package does not decode, nothing was written: " + err.Error(), Err: err}
	}
	if fresh := newProblems(before, q.Problems(nil)); len(fresh) > 0 {
		return &Error{Pos: pt.Pos, Msg: "the patched package fails verification, nothing was written: " + strings.Join(fresh, "; ")}
	}
	cp := ContainerPackage{Package: p.PackageName(), Path: mustOutputPath(c, i), Changes: changes, OldSize: int64(len(src)),
		NewSize: int64(len(data)), OldHash: hashText(ch.Meta.Hash20()), NewHash: hashText(iostore.HashChunk(j.v, data)),
		Store: storeChanges(old, len(src), q, len(data))}
	j.res.Packages = append(j.res.Packages, cp)
	if bytes.Equal(data, src) {
		j.unchanged++
		if j.ct.Mode == ModeFull {
			return nil // every operation already in effect: the chunk stays
		}
		// A mod holds the packages it names, changed or not, so that
		// applying a patch to its own output gives the same mod.
	}
	if err := j.setEntry(q, pt.Pos); err != nil {
		return err
	}
	j.data[ch.ID] = data
	j.order = append(j.order, ch.ID)
	return nil
}

// verifyOptions returns what verify checks package chunk i against: its
// chunk's package id and, when the container has a header, its store
// entry there.
func (j *containerJob) verifyOptions(i int) *zen.VerifyOptions {
	id := j.c.Chunks()[i].ID.PackageID()
	opts := &zen.VerifyOptions{ChunkPackageID: id}
	if j.hdr != nil {
		opts.Entry = j.index.Entry(id)
		opts.Header = j.hdr
	}
	return opts
}

// setEntry derives the store entry of a changed or added package.
func (j *containerJob) setEntry(q *zen.Package, pos Pos) error {
	if j.hdr == nil {
		return nil
	}
	e, err := q.StoreEntry(j.hdr.Version, j.index.Entry(q.ID()))
	if err != nil {
		return &Error{Pos: pos, Msg: err.Error(), Err: err}
	}
	j.entries[q.ID()] = e
	return nil
}

func mustOutputPath(c *iostore.Container, i int) string {
	p, err := c.OutputPath(i)
	if err != nil {
		return ""
	}
	return p
}

// findPath returns the chunk listed at path (as ls shows it).
func findPath(c *iostore.Container, path string) (int, bool) {
	for _, ch := range c.Chunks() {
		if ch.Path == "" {
			continue
		}
		if p, err := c.OutputPath(ch.Index); err == nil && strings.EqualFold(p, path) {
			return ch.Index, true
		}
	}
	return 0, false
}

// fileOp applies a replace-file, add-file or remove-file operation.
func (j *containerJob) fileOp(f *FileOp) error {
	c := j.c
	var data []byte
	var src string
	if f.Source != "" {
		src = filepath.FromSlash(f.Source)
		if !filepath.IsAbs(src) {
			src = filepath.Join(j.dir, src)
		}
		st, err := os.Stat(src)
		if err != nil {
			return errorf(f.Pos, "%s: %v", f.Kind, err)
		}
		if !st.Mode().IsRegular() {
			return errorf(f.Pos, "%s: %s is not a regular file", f.Kind, src)
		}
		if st.Size() > pack.MaxFileSize {
			return errorf(f.Pos, "%s: %s is %d bytes; unrmod stores files under 4 GiB", f.Kind, src, st.Size())
		}
		if data, err = safefile.ReadRegular(src, pack.MaxFileSize, "a file in a container"); err != nil {
			return errorf(f.Pos, "%s: %v", f.Kind, err)
		}
	}
	i, exists := findPath(c, f.Path)
	var id iostore.ChunkID
	name, kind, isPkgData := pack.PackageName(f.Path)
	switch f.Kind {
	case "add-file":
		if exists {
			return errorf(f.Pos, "add-file: %s is already in the container; use replace-file", f.Path)
		}
		if !isPkgData {
			if j.ct.Mode == ModeFull {
				return errorf(f.Pos, "add-file: %s is not package data (a .uasset, .umap, .ubulk, .uptnl or .m.ubulk under a Content folder): such files live in .pak files, which mode: full does not write; use mode: mod", f.Path)
			}
			return errorf(f.Pos, "add-file: %s is not package data (a .uasset, .umap, .ubulk, .uptnl or .m.ubulk under a Content folder); loose files go into a .pak (unrmod pack)", f.Path)
		}
		var err error
		if id, err = pack.ChunkID(name, kind, j.v); err != nil {
			return errorf(f.Pos, "add-file: %v", err)
		}
		if _, taken := c.Find(id); taken {
			return errorf(f.Pos, "add-file: %s maps to chunk %v, which the container already has under another path", f.Path, id)
		}
		if mount := c.MountPoint(); !strings.HasPrefix("../../../"+f.Path, mount) {
			return errorf(f.Pos, "add-file: %s is outside the container's mount point %s", f.Path, mount)
		}
		j.paths[id] = f.Path
	case "replace-file", "remove-file":
		if !exists {
			return errorf(f.Pos, "%s: the container lists no %s (see unrmod ls %s)", f.Kind, f.Path, filepath.Base(j.in))
		}
		id = c.Chunks()[i].ID
	}
	if _, dup := j.data[id]; dup {
		return errorf(f.Pos, "%s: %s is changed twice in this target", f.Kind, f.Path)
	}
	cf := ContainerFile{Op: f.Kind, Path: f.Path, Chunk: id.String(), NewSize: int64(len(data))}
	if exists {
		cf.OldSize = int64(c.Chunks()[i].Size)
	}
	isPackage := id.Type(j.v) == iostore.ChunkExportBundleData
	switch {
	case f.Kind == "remove-file":
		if isPackage {
			j.removed[id.PackageID()] = true
		}
	case id.Type(j.v) == iostore.ChunkShaderCodeLibrary:
		// The game reads this chunk as a library header in its IoStore
		// form, whose groups are other chunks: a library as the cooker
		// writes it (all its code in one file) must be converted.
		if _, err := convert.DecodeZenShaderArchive(f.Source, data); err != nil {
			if len(data) >= 4 && binary.LittleEndian.Uint32(data) == convert.ShaderArchiveVersion {
				return errorf(f.Pos, "%s: %s is a shader library as the cooker writes it; %s holds its IoStore form (the header, with the shaders in ShaderCode chunks): pack the cooked library with unrmod pack, which converts it, or give the header extract wrote", f.Kind, f.Source, f.Path)
			}
			return errorf(f.Pos, "%s: %s is not a shader library header, which %s holds: %v", f.Kind, f.Source, f.Path, err)
		}
	case isPackage:
		var cooked *pack.CookedPackage
		if pack.IsCooked(data) {
			// A cooked asset: the package is what the engine's packer
			// makes of it.
			var err error
			if cooked, err = j.convert(f, src, name); err != nil {
				return err
			}
			data = cooked.Data
			cf.NewSize = int64(len(data))
		}
		q, err := zen.DecodePackage(f.Source, data, nil)
		if err != nil {
			return errorf(f.Pos, "%s: %s is not a zen package this container can hold: %v", f.Kind, f.Source, err)
		}
		if q.ID() != id.PackageID() {
			want := name
			if want == "" {
				want = id.PackageID().String()
			}
			return errorf(f.Pos, "%s: %s is the package %s, but the path %s is the package %s: the path and the package's name must agree", f.Kind, f.Source, q.PackageName(), f.Path, want)
		}
		if j.hdr != nil {
			if lo, hi := j.hdr.Version.PackageLayouts(); q.Layout < lo || q.Layout > hi {
				return errorf(f.Pos, "%s: %s is cooked for %v; this container's packages are %v", f.Kind, f.Source, q.Layout, lo)
			}
		}
		if err := j.setEntry(q, f.Pos); err != nil {
			return err
		}
		if e, ok := j.entries[q.ID()]; ok && cooked != nil && j.hdr.Version == zen.HeaderUE4 {
			// The conversion knows the imported packages in the
			// engine's order.
			e.ImportedPackages = cooked.ImportedPackages
			j.entries[q.ID()] = e
		}
	}
	j.data[id] = data
	if f.Kind == "remove-file" {
		j.data[id] = nil
	}
	j.order = append(j.order, id)
	j.res.Files = append(j.res.Files, cf)
	return nil
}

// checkModSuffix refuses a mod output (a container, what; or a pak) whose
// name does not end in _P: the engine gives _P files the higher priority,
// and without it the game's own chunks or files (of) win over the mod's.
// It returns the output's base name.
func checkModSuffix(pos Pos, out, what, of string) (string, error) {
	base := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	if !strings.HasSuffix(strings.ToUpper(base), "_P") {
		return base, errorf(pos, "output %s: a mod %s's name must end in _P, or the game's own %s win over it (e.g. z_%s_P)", out, what, of, base)
	}
	return base, nil
}

// checkModName refuses a mod container the game would not prefer to its
// own (docs/containers.md, "Mod containers"): without the _P suffix its
// chunks lose to the game's; on UE 4.26/4.27 the first store entry
// registered wins, so a changed entry needs the mod's pak to sort after the
// game's.
func (j *containerJob) checkModName(out string) error {
	base, err := checkModSuffix(j.ct.Pos, out, "container", "chunks")
	if err != nil {
		return err
	}
	if j.hdr == nil || j.hdr.Version != zen.HeaderUE4 {
		return nil
	}
	modPak, _ := filepath.Abs(strings.TrimSuffix(out, filepath.Ext(out)) + ".pak")
	gamePak, _ := filepath.Abs(strings.TrimSuffix(j.in, filepath.Ext(j.in)) + ".pak")
	if strings.ToLower(filepath.ToSlash(modPak)) > strings.ToLower(filepath.ToSlash(gamePak)) {
		return nil // the mod is mounted first: its entries are registered
	}
	for _, cp := range j.res.Packages {
		for _, s := range cp.Store {
			if s.Field != "ExportBundlesSize" {
				return errorf(j.ct.Pos, "the patch changes %s of %s, and UE 4.27 uses the store entry of the pak mounted first, which is the one whose path sorts last: %s sorts before the game's %s, so the game's entry would describe the mod's data; name the output so that it sorts after it (e.g. z_%s, or a folder ~mods beside the game's paks)",
					s.Field, cp.Package, modPak, gamePak, base)
			}
		}
	}
	return nil
}

// method returns the compression of new chunks.
func (j *containerJob) method() string {
	switch j.ct.Compression {
	case "none":
		return "None"
	case "zlib":
		return "Zlib"
	case "lz4":
		return "LZ4"
	case "oodle":
		return "Oodle"
	}
	m, substituted := j.c.WriteMethod(j.codecs)
	if substituted {
		j.res.Notes = append(j.res.Notes, "the container's compression is Oodle and no Oodle library was given to write it; new chunks are Zlib-compressed, which the game reads too")
	}
	return m
}

// bulkToCopy lists the chunks a mod container copies from the game's: the
// other chunks (bulk data) of each changed package, which go with it as
// they are, since the engine reads a package's chunks from the container
// that wins its lookups.
func (j *containerJob) bulkToCopy() []int {
	changed := func(id iostore.ChunkID) bool {
		return id.Type(j.v) == iostore.ChunkExportBundleData && j.data[id] != nil
	}
	// One pass over the chunks, by package id, rather than one per changed
	// package: a patch may change many packages of a container of many.
	byPackage := map[uint64][]int{}
	for _, id := range j.order {
		if changed(id) {
			byPackage[id.Value()] = nil
		}
	}
	if len(byPackage) == 0 {
		return nil
	}
	chunks := j.c.Chunks()
	for i := range chunks {
		ch := &chunks[i]
		v := ch.ID.Value()
		if _, ok := byPackage[v]; !ok || ch.Type == iostore.ChunkContainerHeader {
			continue
		}
		if _, own := j.data[ch.ID]; own {
			continue
		}
		byPackage[v] = append(byPackage[v], ch.Index)
	}
	var out []int
	for _, id := range j.order {
		if changed(id) {
			out = append(out, byPackage[id.Value()]...)
		}
	}
	return out
}

// writeMod stages a mod container holding the changed and added chunks,
// the bulk data of changed packages, a container header for its packages
// and the companion .pak.
func (j *containerJob) writeMod(out string) (*iostore.Writer, error) {
	c := j.c
	h := c.Header()
	_, psize := h.Partitions()
	if psize == ^uint64(0) {
		psize = 0
	}
	// Perfect-hash seeds as the engine's packer writes them, for every
	// version with an overflow list (UE 5.0 on).
	w, err := iostore.NewWriter(out, &iostore.WriterOptions{Version: h.Version, BlockSize: h.CompressionBlockSize, Method: j.method(),
		Key: j.ct.Key, KeyGUID: h.EncryptionKeyGUID, MountPoint: c.MountPoint(), Session: j.sess, Codecs: j.codecs,
		PerfectHash: h.Version.HasPerfectHashOverflow(),
		// TOC version 10 (UE 6.0): the game's cipher, AES-CTR unless it
		// uses AES-ECB, as pack writes.
		CTR: j.ct.Key != nil && h.Version.HasEncryptionMethod() && h.Encryption() != iostore.EncryptionAESECB})
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*iostore.Writer, error) {
		w.Abort()
		return nil, err
	}
	for _, id := range j.order {
		path := j.paths[id]
		var mm bool
		if i, ok := c.Find(id); ok {
			path = c.GamePath(i)
			mm = c.Chunks()[i].Meta.Flags&iostore.MetaMemoryMapped != 0
		}
		if err := w.AddChunkHeader(&iostore.ChunkHeader{ID: id, Path: path, MemoryMapped: mm}, j.reader(id)); err != nil {
			return fail(err)
		}
		j.res.Chunks++
	}
	for _, i := range j.bulkToCopy() {
		if err := w.CopyChunk(c, i, c.GamePath(i)); err != nil {
			return fail(err)
		}
		j.res.Chunks++
		j.res.Copied++
	}
	if len(j.entries) > 0 {
		ids := make([]zen.PackageID, 0, len(j.entries))
		for id := range j.entries {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		for _, id := range ids {
			w.AddStoreEntry(j.entries[id])
		}
		w.SetContainerHeader(&zen.ContainerHeader{Version: j.hdr.Version, ShaderMapHashSize: j.hdr.ShaderMapHashSize, CompactStoreEntries: j.hdr.CompactStoreEntries})
		j.res.Chunks++
	}
	pakPath := strings.TrimSuffix(out, filepath.Ext(out)) + ".pak"
	f, err := w.CreateCompanion(pakPath)
	if err != nil {
		return fail(err)
	}
	if err := pack.WriteCompanion(f, pakPath, pak.GUID(h.EncryptionKeyGUID), nil); err != nil {
		return fail(err)
	}
	j.res.Pak = pakPath
	if err := w.Stage(); err != nil {
		return nil, err
	}
	if n := w.UncheckedChunks(); n > 0 {
		j.res.Notes = append(j.res.Notes, uncheckedNote(n))
	}
	return w, nil
}

// writeFull stages the whole container again with the changes, and a
// container header with the changed store entries.
func (j *containerJob) writeFull(out string) (*iostore.Writer, error) {
	var changes []iostore.ChunkChange
	for _, id := range j.order {
		ch := iostore.ChunkChange{ID: id, Path: j.paths[id]}
		if j.data[id] != nil {
			ch.Data = j.reader(id)
		}
		changes = append(changes, ch)
	}
	if len(j.entries) > 0 || len(j.removed) > 0 {
		hi, _ := j.c.ContainerHeaderChunk()
		h := *j.hdr
		var pkgs []zen.StoreEntry
		seen := map[zen.PackageID]bool{}
		for _, e := range h.Packages {
			if j.removed[e.PackageID] {
				continue
			}
			if n, ok := j.entries[e.PackageID]; ok {
				e = n
			}
			seen[e.PackageID] = true
			pkgs = append(pkgs, e)
		}
		for id, e := range j.entries {
			if !seen[id] {
				pkgs = append(pkgs, e)
			}
		}
		sort.SliceStable(pkgs, func(a, b int) bool { return pkgs[a].PackageID < pkgs[b].PackageID })
		h.Packages = pkgs
		data, err := h.Encode()
		if err != nil {
			return nil, fmt.Errorf("container header: %w", err)
		}
		changes = append(changes, iostore.ChunkChange{ID: j.c.Chunks()[hi].ID, Data: bytes.NewReader(data)})
	}
	// The game container's files, as read: when they passed the full
	// check before and are unchanged, their chunks are copied without
	// decoding them again.
	chk := j.checks.Begin(j.in, j.c)
	w, res, err := iostore.RewriteStaged(j.c, out, changes, &iostore.RewriteOptions{Layout: j.ct.Layout, Method: j.method(), Key: j.ct.Key, Session: j.sess, Codecs: j.codecs,
		SourceChecked: chk.Remembered != nil})
	if err != nil {
		return nil, err
	}
	o, err := chk.Finish(res.SourceVerified)
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("%s changed while it was copied; nothing was written", j.in)
	}
	j.sourceCheck(chk.Remembered, o)
	j.res.Chunks, j.res.Copied = res.Chunks, res.Copied
	if res.DeadBytes > 0 {
		j.res.Notes = append(j.res.Notes, fmt.Sprintf("the preserve layout leaves %d dead bytes in the .ucas; layout: compact drops them", res.DeadBytes))
	}
	if res.Unchecked > 0 {
		j.res.Notes = append(j.res.Notes, uncheckedNote(res.Unchecked))
	}
	if res.DroppedSignature {
		j.res.Notes = append(j.res.Notes, "the container was signed; the output is not (a game that checks signatures needs a signature bypass)")
	}
	return w, nil
}

// sourceCheck reports how writeFull checked the game container (rec: the
// remembered check it relied on, if any).
func (j *containerJob) sourceCheck(rec *checkcache.Record, o checkcache.Outcome) {
	r := j.res
	r.SourceCheck, r.SourceCheckedAt = o.State, o.At
	switch {
	case rec != nil:
		r.Notes = append(r.Notes, fmt.Sprintf("%s was checked fully on %s and is unchanged since: its chunks were copied without decoding them again (checks remembered in %s)",
			filepath.Base(j.in), rec.When(), j.checks.Dir()))
	case o.NotRecorded != nil:
		r.Notes = append(r.Notes, fmt.Sprintf("the full check of %s is not remembered: %s", filepath.Base(j.in), o.Why()))
	}
}

// uncheckedNote says that n chunks were copied without the check against
// their hashes, which needs a decoder for their blocks.
func uncheckedNote(n int) string {
	return fmt.Sprintf("%d chunks copied from the base were not checked against their hashes: no decoder reads their blocks (Oodle); they keep their hashes", n)
}

// containerSummary is Summary for a container target.
func (tr *TargetResult) containerSummary() string {
	r := tr.Container
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s (mode %s", tr.Input, tr.Output, r.Mode)
	if r.Pak != "" {
		fmt.Fprintf(&b, ", with %s", filepath.Base(r.Pak))
	}
	fmt.Fprintf(&b, "): %d chunks, %d copied as stored", r.Chunks, r.Copied)
	for _, p := range r.Packages {
		fmt.Fprintf(&b, "\n  package %s: %d → %d bytes, hash %s → %s; %s", p.Package, p.OldSize, p.NewSize, p.OldHash, p.NewHash, storeText(p.Store))
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "\n    %s", c.String())
		}
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "\n  %s %s (%s): %d → %d bytes", f.Op, f.Path, f.Chunk, f.OldSize, f.NewSize)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n  note: %s", n)
	}
	return b.String()
}

// convert converts the cooked asset at src (with its .uexp beside it) for
// the container's engine, as package name (from the file's path in the
// container; "" takes it from the asset). The engine is the asset's own
// release when it records it or its layout tells it, and the container
// reads that release's packages; else each release that writes the
// container's header version: when the asset converts to different
// packages for two of them, it is refused, since the container does not
// say which release made it. In a mod container the packages the
// asset depends on are the game's, whose bundles the engine names −1; in
// the game's own container (mode: full) they are packed with it.
func (j *containerJob) convert(f *FileOp, src, name string) (*pack.CookedPackage, error) {
	if j.hdr == nil {
		return nil, errorf(f.Pos, "%s: %s is a cooked asset, and the container has no container header to tell the engine release to convert it for", f.Kind, f.Source)
	}
	// The asset's own release, when it records it or its layout tells it.
	lo, hi := j.hdr.Version.PackageLayouts()
	conv, err := pack.ConvertCooked([]pack.CookedAsset{{Path: src, Package: name}},
		&pack.ConvertOptions{Jobs: 1, ImportsInContainer: j.ct.Mode == ModeFull})
	if err == nil && conv[0].Package.Layout >= lo && conv[0].Package.Layout <= hi {
		j.res.Notes = append(j.res.Notes, fmt.Sprintf("%s: converted the cooked asset %s to a zen package for its own release (%v)", f.Path, f.Source, conv[0].Package.Layout))
		return &conv[0], nil
	}
	var got *pack.CookedPackage
	var engine zen.Engine
	var firstErr error
	for _, e := range zen.Engines() {
		if e.HeaderVersion() != j.hdr.Version {
			continue
		}
		conv, err := pack.ConvertCooked([]pack.CookedAsset{{Path: src, Package: name}},
			&pack.ConvertOptions{Engine: e, Jobs: 1, ImportsInContainer: j.ct.Mode == ModeFull})
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if got != nil && !bytes.Equal(got.Data, conv[0].Data) {
			return nil, errorf(f.Pos, "%s: %s converts to different packages for UE %s and UE %s, which both write this container's header (version %s); convert it with unrmod convert --engine and add the package", f.Kind, f.Source, engine, e, j.hdr.Version)
		}
		if got == nil {
			got, engine = &conv[0], e
		}
	}
	if got == nil {
		if firstErr == nil {
			firstErr = fmt.Errorf("no engine release unrmod knows writes container header version %s", j.hdr.Version)
		}
		return nil, errorf(f.Pos, "%s: %s: %v", f.Kind, f.Source, firstErr)
	}
	j.res.Notes = append(j.res.Notes, fmt.Sprintf("%s: converted the cooked asset %s to a zen package for UE %s", f.Path, f.Source, engine))
	return got, nil
}
