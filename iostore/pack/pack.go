// Package pack turns a folder of loose cooked files into an IoStore
// container: zen packages (.uasset, .umap) with their bulk data (.ubulk,
// .uptnl, .m.ubulk) become chunks of a .utoc/.ucas pair, named and checked
// as the engine's packer does (docs/containers.md, "Packing"), and the
// container header is built from the packages. Cooked assets in the legacy
// format (.uasset/.umap with .uexp) are converted to zen packages first,
// all together (ConvertCooked). Files that are not package
// data are listed for the companion .pak.
//
// The folder is laid out like the game's root, as unrmod extract writes it:
// Maine/Content/Data/DT_Items.uasset is the package /Game/Data/DT_Items,
// Engine/Content/… is /Engine/…, and …/Plugins/…/<Plugin>/Content/… is
// /<Plugin>/…. Chunks extract writes without a path
// (chunks/<Type>/<id>.bin) are stored under their ids again; an extracted
// container header gives the parts of the store entries no package holds.
package pack

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
)

// Kind is what a loose file becomes.
type Kind uint8

const (
	// Loose is a file that is not package data: it goes into the
	// companion .pak.
	Loose Kind = iota
	// Package is a zen package: an ExportBundleData chunk.
	Package
	// BulkData, OptionalBulkData and MemoryMappedBulkData are a package's
	// .ubulk, .uptnl and .m.ubulk files.
	BulkData
	OptionalBulkData
	MemoryMappedBulkData
	// Chunk is a chunk extract wrote without a path, stored under its id.
	Chunk
	// Header is an extracted container header: it is not stored (the
	// writer builds the header again) but gives the store entries' fields
	// no package holds.
	Header
	// Cooked is a cooked asset (.uasset/.umap in the legacy format, with
	// its .uexp): Pack converts it to the zen package the engine makes of
	// it (ConvertCooked), which becomes the ExportBundleData chunk.
	Cooked
	// CookedExports is a cooked asset's .uexp: read with the asset, not
	// stored on its own.
	CookedExports
	// ShaderLibrary is a UE5 shader library in its IoStore form (the
	// library header extract writes to the chunk's path,
	// ShaderArchive-<Library>-<Format>.ushaderbytecode): a ShaderCodeLibrary
	// chunk whose id is the hash of its name (ShaderLibraryChunkID). Its
	// groups are ShaderCode chunks, which extract writes without a path.
	ShaderLibrary
	// ShaderArchive is a pak-era UE5 shader library (a .ushaderbytecode
	// of version 2, what the cooker writes): Pack converts it to its
	// IoStore form as the engine's packer does, a ShaderCodeLibrary chunk
	// (ID, at Path) and one ShaderCode chunk per group of shaders
	// (convert.NewZenShaderLibrary). A game running from IoStore does not
	// read a .ushaderbytecode from a .pak.
	ShaderArchive
	// ShaderAssetInfo is the cooker's ShaderAssetInfo-*.assetinfo.json:
	// which packages use which shader maps. Not stored: Pack puts each
	// packed package's shader maps in its store entry.
	ShaderAssetInfo
)

var kindNames = [...]string{"loose file", "package", "bulk data", "optional bulk data", "memory-mapped bulk data", "chunk", "container header", "cooked asset", "cooked export data", "shader library", "pak-era shader library", "shader asset info"}

func (k Kind) String() string { return kindNames[k] }

// MaxFileSize is the largest file pack stores: the largest chunk
// (ufile.MaxChunkSize), since zen packages use 32-bit offsets and unrmod
// keeps every chunk under 4 GiB.
const MaxFileSize = ufile.MaxChunkSize

// File is one file of the folder and what it becomes.
type File struct {
	// Path is relative to the folder, '/'-separated.
	Path string
	Kind Kind
	Size int64
	// Package is the package name the path maps to (packages and bulk
	// data), e.g. "/Game/Data/DT_Items".
	Package string
	// ID is the chunk id (everything but loose files and headers).
	ID iostore.ChunkID
}

// Plan is what Scan found: the files in the order they are stored.
type Plan struct {
	Dir   string
	Files []File
	// Header is the extracted container header found in the folder, or nil.
	Header *zen.ContainerHeader
}

// Count returns how many files of kind k the plan has.
func (p *Plan) Count(k Kind) int {
	n := 0
	for _, f := range p.Files {
		if f.Kind == k {
			n++
		}
	}
	return n
}

// Bytes returns the total size of the files that become chunks.
func (p *Plan) Bytes() int64 {
	var n int64
	for _, f := range p.Files {
		if f.Kind != Loose && f.Kind != Header && f.Kind != ShaderAssetInfo {
			n += f.Size // a cooked asset's .uasset and .uexp stand for its package
		}
	}
	return n
}

// PackageName maps a path relative to the game's root to the package name
// the engine gives it, and says what kind of file it is: "<Game>/Content/X"
// is /Game/X, "Engine/Content/X" is /Engine/X, ".../Plugins/.../P/Content/X"
// is /P/X. ok is false for a file that is not package data.
func PackageName(rel string) (name string, kind Kind, ok bool) {
	base := path.Base(rel)
	stem, kind := "", Loose
	lower := strings.ToLower(base)
	switch {
	case strings.HasSuffix(lower, ".m.ubulk"):
		stem, kind = base[:len(base)-len(".m.ubulk")], MemoryMappedBulkData
	case strings.HasSuffix(lower, ".uasset"), strings.HasSuffix(lower, ".umap"):
		stem, kind = strings.TrimSuffix(base, path.Ext(base)), Package
	case strings.HasSuffix(lower, ".ubulk"):
		stem, kind = base[:len(base)-len(".ubulk")], BulkData
	case strings.HasSuffix(lower, ".uptnl"):
		stem, kind = base[:len(base)-len(".uptnl")], OptionalBulkData
	default:
		return "", Loose, false
	}
	parts := strings.Split(path.Dir(rel), "/")
	content := -1
	for i := len(parts) - 1; i >= 0; i-- {
		if strings.EqualFold(parts[i], "Content") {
			content = i
			break
		}
	}
	if content < 1 || stem == "" {
		return "", Loose, false
	}
	var root string
	switch {
	case content == 1 && strings.EqualFold(parts[0], "Engine"):
		root = "/Engine"
	case content == 1:
		root = "/Game"
	default:
		plugin := false
		for _, p := range parts[:content-1] {
			if strings.EqualFold(p, "Plugins") {
				plugin = true
			}
		}
		if !plugin {
			return "", Loose, false
		}
		root = "/" + parts[content-1]
	}
	name = root
	for _, p := range parts[content+1:] {
		name += "/" + p
	}
	return name + "/" + stem, kind, true
}

// chunkTypes is the chunk type of each package-data kind.
var chunkTypes = map[Kind]iostore.ChunkType{
	Package:              iostore.ChunkExportBundleData,
	BulkData:             iostore.ChunkBulkData,
	OptionalBulkData:     iostore.ChunkOptionalBulkData,
	MemoryMappedBulkData: iostore.ChunkMemoryMappedBulkData,
}

// ChunkID returns the chunk id of a file of package name and package-data
// kind (see PackageName) in a container of TOC version v: the package id
// with the kind's chunk type.
func ChunkID(name string, kind Kind, v iostore.TocVersion) (iostore.ChunkID, error) {
	typ, ok := chunkTypes[kind]
	if !ok {
		return iostore.ChunkID{}, fmt.Errorf("a %s is not package data", kind)
	}
	return iostore.NewChunkID(uint64(zen.PackageIDFromName(name)), 0, typ, v)
}

// Scan walks dir and classifies every regular file for a container of TOC
// version v: package data, extracted chunks and headers, loose files. It
// fails on what the engine could not load: two files for one chunk, a bulk
// file without its package, names too long, files too large, links.
func Scan(dir string, v iostore.TocVersion) (*Plan, error) {
	plan := &Plan{Dir: dir}
	byID := map[iostore.ChunkID]string{}
	packages := map[string]bool{}
	stems := map[string]bool{} // cooked assets' paths without extension, lower-case
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && safefile.IsWorkFile(d.Name()) {
				return fs.SkipDir // the staging folder of an interrupted extract
			}
			return nil
		}
		// A copy: the relative path is part of the walk's full path, which
		// the plan would otherwise keep for every file.
		rel = strings.Clone(filepath.ToSlash(rel))
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (links and devices are not packed)", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if len(rel) > iostore.MaxPathLen {
			return fmt.Errorf("%s: the path is %d bytes long, more than the %d a container path may have", p, len(rel), iostore.MaxPathLen)
		}
		for _, c := range strings.Split(rel, "/") {
			if len(c) > 255 {
				return fmt.Errorf("%s: a path component is %d bytes long (at most 255)", p, len(c))
			}
		}
		if base := path.Base(rel); strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".tmp") || safefile.IsWorkFile(base) {
			return nil // a file of an interrupted write
		}
		f := File{Path: rel, Size: info.Size()}
		if f.Size > MaxFileSize {
			return fmt.Errorf("%s: %d bytes; unrmod packs files under 4 GiB", p, f.Size)
		}
		if name, kind, ok := PackageName(rel); ok {
			f.Package, f.Kind = name, kind
			id, err := ChunkID(name, kind, v)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			f.ID = id
			if kind == Package {
				packages[strings.ToLower(name)] = true
				if cooked, err := isCooked(p); err != nil {
					return err
				} else if cooked {
					f.Kind = Cooked
					stems[strings.ToLower(strings.TrimSuffix(rel, path.Ext(rel)))] = true
				}
			}
		} else if kind, id, err := shaderFile(p, rel, v); err != nil {
			return err
		} else if kind != Loose {
			f.ID, f.Kind = id, kind
		} else if id, typ, ok := extractedChunk(rel, v); ok {
			f.ID, f.Kind = id, Chunk
			if typ == iostore.ChunkContainerHeader {
				f.Kind = Header
				if plan.Header != nil {
					return fmt.Errorf("%s: a second container header (the first is in %s)", p, byID[id])
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if plan.Header, err = zen.DecodeContainerHeader(p, data); err != nil {
					return err
				}
			}
		}
		if f.Kind != Loose && f.Kind != ShaderAssetInfo {
			if other, dup := byID[f.ID]; dup {
				return fmt.Errorf("%s and %s are both chunk %v (one package in two files, or names differing only in case)", other, rel, f.ID)
			}
			byID[f.ID] = rel
		}
		plan.Files = append(plan.Files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range plan.Files {
		f := &plan.Files[k]
		if f.Kind == Loose && strings.EqualFold(path.Ext(f.Path), ".uexp") {
			if !stems[strings.ToLower(strings.TrimSuffix(f.Path, path.Ext(f.Path)))] {
				return nil, fmt.Errorf("%s: the export data of a cooked asset, but the folder has no cooked %s.uasset or .umap beside it", filepath.Join(dir, filepath.FromSlash(f.Path)), strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)))
			}
			f.Kind = CookedExports
		}
	}
	for _, f := range plan.Files {
		if (f.Kind == BulkData || f.Kind == OptionalBulkData || f.Kind == MemoryMappedBulkData) && !packages[strings.ToLower(f.Package)] {
			return nil, fmt.Errorf("%s: %s of package %s, but the folder has no %s.uasset or .umap", filepath.Join(dir, filepath.FromSlash(f.Path)), f.Kind, f.Package, path.Base(f.Path[:len(f.Path)-len(path.Ext(f.Path))]))
		}
	}
	// Packages and their data first, in path order, then extracted chunks.
	sort.SliceStable(plan.Files, func(a, b int) bool {
		ka, kb := plan.Files[a].Kind == Chunk, plan.Files[b].Kind == Chunk
		if ka != kb {
			return kb
		}
		return plan.Files[a].Path < plan.Files[b].Path
	})
	return plan, nil
}

// extractedChunk recognises chunks/<Type>/<24 hex digits>.bin.
func extractedChunk(rel string, v iostore.TocVersion) (iostore.ChunkID, iostore.ChunkType, bool) {
	parts := strings.Split(rel, "/")
	if len(parts) != 3 || parts[0] != "chunks" || !strings.HasSuffix(parts[2], ".bin") {
		return iostore.ChunkID{}, 0, false
	}
	raw, err := hex.DecodeString(strings.TrimSuffix(parts[2], ".bin"))
	if err != nil || len(raw) != 12 {
		return iostore.ChunkID{}, 0, false
	}
	id := iostore.ChunkID(raw)
	return id, id.Type(v), true
}

// Options configures Pack.
type Options struct {
	// Engine is the release the container is for: it selects the TOC
	// version, the container-header version and the chunk-meta hash, and
	// the package layout the packages must have.
	Engine zen.Engine
	// Base is the game's container the packed packages belong with, or
	// nil: the store entries take from it what no package holds (the UE4
	// LoadOrder, UE5 shader map hashes).
	Base *zen.ContainerHeader
	// BaseTOC is the TOC of the game's container when Base comes from
	// one, or nil. A cooked shader library whose chunk it already holds
	// is refused: the mod's library would replace the game's for every
	// material of the game.
	BaseTOC *iostore.TOC
	// Writer holds the container's settings (method, key, block size,
	// partitions, mount point, progress). Its Version is set from Engine,
	// and its CTR when a key is given: TOC version 10 and later (UE 6.0)
	// encrypt with AES-CTR unless ECB is set.
	Writer iostore.WriterOptions
	// ECB encrypts a container of TOC version 10 or later with AES-ECB
	// (header method 1), which UE 6.0 reads too, rather than AES-CTR.
	ECB bool
	// TocVersion, when not 0, replaces the version Engine selects (a game
	// whose containers use another, e.g. Grounded 2's mix of 6 and 8).
	TocVersion iostore.TocVersion
	// Jobs is how many cooked assets are converted at once (see
	// ConvertCooked); 0 means one per CPU.
	Jobs int
	// ConvertProgress, when not nil, is called as cooked assets are
	// converted (ConvertOptions.Progress), before any chunk is written.
	ConvertProgress func(done, total int)
	// NoPak leaves out the companion .pak (see WriteCompanion), which Pack
	// otherwise writes beside the .utoc with the loose files, together
	// with the container.
	NoPak bool
	// Shaders decompresses and compresses the shader code of pak-era
	// shader libraries (ShaderArchive files) through the game's Oodle
	// library: Decompress is needed when their shaders are stored
	// compressed (they are refused otherwise, convert.ErrOodleRequired),
	// and without Compress every group is stored raw, which the game
	// reads too. The engine compresses groups with Oodle Mermaid at level
	// Normal.
	Shaders convert.ShaderLibraryOptions
	// NoPerfectHash leaves out the perfect-hash seeds, which Pack writes
	// for every TOC version that has an overflow list (UE 5.0 and later),
	// as the engine's packer does: without them the game builds a map of
	// the chunks when it mounts the container.
	NoPerfectHash bool
}

// TocVersionFor returns the TOC version the engine's packer writes (its
// row in ue.Releases), 0 for a release the table does not know it of.
func TocVersionFor(e zen.Engine) iostore.TocVersion {
	row, _ := ue.Release(e).Info()
	return iostore.TocVersion(row.TocVersion)
}

// TocVersions lists the TOC version each release Pack knows writes, for
// help texts: "4.26: 2, 4.27: 3, 5.0-5.3: 5, 5.4: 6, 5.5+: 8".
func TocVersions() string {
	var parts []string
	es := zen.Engines()
	for i := 0; i < len(es); {
		v := TocVersionFor(es[i])
		j := i
		for j+1 < len(es) && TocVersionFor(es[j+1]) == v {
			j++
		}
		span := es[i].String()
		switch {
		case j > i && j == len(es)-1:
			span += "+" // the newest releases: new ones will follow
		case j > i:
			span += "-" + es[j].String()
		}
		parts = append(parts, fmt.Sprintf("%s: %d", span, v))
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Result says what Pack wrote.
type Result struct {
	Plan     *Plan
	Packages int
	Chunks   int
	Bytes    int64 // uncompressed bytes stored
	// Stored is the size of the .ucas files written (every partition):
	// the blocks as stored, with their padding.
	Stored int64
	// Loose lists the files that are not package data, which the .pak
	// holds.
	Loose []File
	// Pak is the companion .pak written, or "".
	Pak string
	// ShaderLibraries counts the shader libraries stored (pak-era ones
	// converted, and IoStore ones as extract wrote them).
	ShaderLibraries int
	// Warnings are what the container holds that the game may not expect;
	// it was written all the same.
	Warnings []Warning
}

// WarningKind says what a Warning is about.
type WarningKind uint8

const (
	// NoLoadOrder: UE 4.26/4.27 store entries were written with load order
	// 0. The load order is a game-wide order the cooker computes; only the
	// game's container header has it (Options.Base, or a header extracted
	// with the packages), and it had no entry for these packages.
	NoLoadOrder WarningKind = iota + 1
	// MissingShaderGroups: a shader library was stored whose groups
	// (ShaderCode chunks) are not all in the folder. The game finds a
	// group in any mounted container, so they may be the game's; if not,
	// the shaders in them fail to load. Packages names the library, Of
	// counts its groups and Missing those not packed.
	MissingShaderGroups
	// UncheckedShaderLibrary: a cooked shader library was packed into a
	// mod container without the game's container (Options.BaseTOC) to
	// check that the game has no library of its name, which the mod's
	// would replace. Packages names the libraries.
	UncheckedShaderLibrary
)

// Warning is something Pack wrote that may not be what the game expects.
type Warning struct {
	Kind WarningKind
	// Packages names the packages concerned, e.g. "/Game/Data/DT_Items".
	Packages []string
	// Of is how many packages Pack stored in all.
	Of int
	// BaseGiven says that a container header was given (Options.Base or
	// one extracted with the packages): for NoLoadOrder, the packages are
	// not in it, e.g. new ones a mod adds.
	BaseGiven bool
	// Missing counts, for MissingShaderGroups, the groups not packed.
	Missing int
}

// String describes the warning.
func (w Warning) String() string {
	switch w.Kind {
	case NoLoadOrder:
		if w.BaseGiven {
			return fmt.Sprintf("%d of %d packages have no store entry in the container header given, so their UE 4.26/4.27 load order was written as 0 (%s)", len(w.Packages), w.Of, strings.Join(w.Packages, ", "))
		}
		return fmt.Sprintf("%d of %d store entries have UE 4.26/4.27 load order 0: the cooker computes the load order for the whole game, and no container header of the game was given to take it from", len(w.Packages), w.Of)
	case UncheckedShaderLibrary:
		return fmt.Sprintf("the shader libraries %s were packed without the game's container to check them against: if the game has a library of the same name (the game's own is named after its project), the mod's replaces it for every material of the game", strings.Join(w.Packages, ", "))
	case MissingShaderGroups:
		return fmt.Sprintf("the shader library %s lists %d groups, %d of which the folder does not hold (chunks/ShaderCode/<id>.bin): the game must find them in another container", strings.Join(w.Packages, ", "), w.Of, w.Missing)
	}
	return fmt.Sprintf("warning %d", w.Kind)
}

// Pack stores the package data of plan in a container written to utocPath
// (atomically, through iostore.Writer) and returns the loose files, which
// belong in the companion .pak.
func Pack(plan *Plan, utocPath string, opts *Options) (*Result, error) {
	if !opts.Engine.Known() {
		return nil, fmt.Errorf("pack: engine %v is not one unrmod knows (%s)", opts.Engine, zen.EngineNames())
	}
	hv := opts.Engine.HeaderVersion()
	lo, hi := hv.PackageLayouts()
	wo := opts.Writer
	wo.Version = TocVersionFor(opts.Engine)
	if opts.TocVersion != 0 {
		wo.Version = opts.TocVersion
	}
	wo.CTR = wo.Key != nil && wo.Version.HasEncryptionMethod() && !opts.ECB
	if !opts.NoPerfectHash && wo.Version.HasPerfectHashOverflow() {
		wo.PerfectHash = true
	}
	w, err := iostore.NewWriter(utocPath, &wo)
	if err != nil {
		return nil, err
	}
	res := &Result{Plan: plan}
	fail := func(err error) (*Result, error) {
		w.Abort()
		return nil, err
	}
	var own map[zen.PackageID]*zen.StoreEntry
	tmpl := &zen.ContainerHeader{Version: hv}
	if plan.Header != nil {
		// An extracted header: the container it came from is being packed
		// again, so it keeps what the header holds beyond the entries.
		h := *plan.Header
		if h.Version != hv {
			return fail(fmt.Errorf("%s: the extracted container header is version %d (%s, UE %s), the container is packed for UE %v", plan.Dir, int32(h.Version), h.Version, h.Version.Engine(), opts.Engine))
		}
		own = map[zen.PackageID]*zen.StoreEntry{}
		for k := range h.Packages {
			own[h.Packages[k].PackageID] = &h.Packages[k]
		}
		h.Packages = nil
		tmpl = &h
	}
	baseIndex := opts.Base.Index() // one lookup per package: no search of the base
	base := func(id zen.PackageID) *zen.StoreEntry {
		if e := own[id]; e != nil {
			return e
		}
		return baseIndex.Entry(id)
	}
	// The shader libraries' headers and asset infos are read first: the
	// store entries list the shader maps the libraries hold.
	shaders, err := openShaderLibraries(plan, opts, wo.Version, isModName(utocPath))
	if err != nil {
		return fail(err)
	}
	defer shaders.close()
	// The cooked assets are converted together, before anything is
	// stored: a 4.26/4.27 package's bundles depend on the others'.
	var cookedAssets []CookedAsset
	for _, f := range plan.Files {
		if f.Kind == Cooked {
			cookedAssets = append(cookedAssets, CookedAsset{Path: filepath.Join(plan.Dir, filepath.FromSlash(f.Path)), Package: f.Package})
		}
	}
	cooked := map[string]*CookedPackage{}
	if len(cookedAssets) > 0 {
		conv, err := ConvertCooked(cookedAssets, &ConvertOptions{Engine: opts.Engine, Jobs: opts.Jobs, Progress: opts.ConvertProgress})
		if err != nil {
			return fail(err)
		}
		for i := range conv {
			cooked[cookedAssets[i].Path] = &conv[i]
		}
	}
	var noOrder []string             // UE4 packages no base entry gives a load order
	var localized []localizedPackage // UE4 localized packages packed
	packed := map[zen.PackageID]bool{}
	for _, f := range plan.Files {
		if f.Kind == Loose {
			res.Loose = append(res.Loose, f)
			continue
		}
		if f.Kind == Header || f.Kind == CookedExports || f.Kind == ShaderAssetInfo {
			continue
		}
		if f.Kind == ShaderArchive {
			n, size, err := writeShaderLibrary(w, shaders.open[f.Path], f.ID, f.Path, opts.Jobs)
			if err != nil {
				return fail(err)
			}
			res.Chunks += n
			res.Bytes += size
			res.ShaderLibraries++
			continue
		}
		if f.Kind == ShaderLibrary {
			res.ShaderLibraries++
		}
		file := filepath.Join(plan.Dir, filepath.FromSlash(f.Path))
		// Shader chunks are stored uncompressed by the Writer, as the
		// engine's packer does.
		h := &iostore.ChunkHeader{ID: f.ID, MemoryMapped: f.Kind == MemoryMappedBulkData}
		if f.Kind != Chunk {
			h.Path = f.Path
		}
		var r io.Reader
		var closer io.Closer
		size := f.Size
		if f.Kind == Cooked {
			c := cooked[file]
			p := c.Package
			if p.Layout < lo || p.Layout > hi {
				return fail(fmt.Errorf("%s: converted for %v, the container is for UE %v, which reads %v", file, p.Layout, opts.Engine, lo))
			}
			be := base(p.ID())
			e, err := p.StoreEntry(hv, be)
			if err != nil {
				return fail(fmt.Errorf("%s: %w", file, err))
			}
			if hv == zen.HeaderUE4 {
				// The conversion knows what the engine writes: the
				// imported packages in import-map order and, when the
				// game's header has no entry to keep, the load order of
				// the converted packages among themselves.
				e.ImportedPackages = c.ImportedPackages
				if be == nil {
					e.LoadOrder = c.LoadOrder
				}
			}
			packed[p.ID()] = true
			if source, culture, ok := zen.LocalizedSource(p.PackageName()); ok && hv == zen.HeaderUE4 && strings.EqualFold(p.SourcePackageName(), source) {
				localized = append(localized, localizedPackage{id: p.ID(), source: zen.PackageIDFromName(source), culture: culture})
			}
			shaders.storeEntryShaderMaps(&e, p.PackageName())
			w.AddStoreEntry(e)
			res.Packages++
			r, size = bytes.NewReader(c.Data), int64(len(c.Data))
		} else if f.Kind == Package {
			// The header is decoded from the file's first bytes and the
			// package streamed into the container: memory follows the
			// header, not the package.
			fh, err := os.Open(file)
			if err != nil {
				return fail(err)
			}
			p, err := openPackage(file, fh, f.Size)
			if err != nil {
				fh.Close()
				return fail(err)
			}
			r, closer = io.NewSectionReader(fh, 0, f.Size), &sizeCheck{fh, file, f.Size}
			if got := p.PackageName(); !strings.EqualFold(got, f.Package) {
				return fail(fmt.Errorf("%s: the package is named %s, but its path makes it %s: move it to the path of its name, or rename the package", file, got, f.Package))
			}
			if p.Layout < lo || p.Layout > hi {
				return fail(fmt.Errorf("%s: the package is cooked for %v, the container is for UE %v, which reads %v", file, p.Layout, opts.Engine, lo))
			}
			be := base(p.ID())
			if be == nil && hv == zen.HeaderUE4 {
				noOrder = append(noOrder, p.PackageName())
			}
			e, err := p.StoreEntry(hv, be)
			if err != nil {
				return fail(fmt.Errorf("%s: %w", file, err))
			}
			packed[p.ID()] = true
			if source, culture, ok := zen.LocalizedSource(p.PackageName()); ok && hv == zen.HeaderUE4 && strings.EqualFold(p.SourcePackageName(), source) {
				localized = append(localized, localizedPackage{id: p.ID(), source: zen.PackageIDFromName(source), culture: culture})
			}
			shaders.storeEntryShaderMaps(&e, p.PackageName())
			w.AddStoreEntry(e)
			res.Packages++
		} else {
			fh, err := os.Open(file)
			if err != nil {
				return fail(err)
			}
			r, closer = fh, fh
		}
		err := w.AddChunkHeader(h, r)
		if closer != nil {
			if cerr := closer.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fail(err)
		}
		res.Chunks++
		res.Bytes += size
	}
	if len(noOrder) > 0 {
		res.Warnings = append(res.Warnings, Warning{Kind: NoLoadOrder, Packages: noOrder, Of: res.Packages, BaseGiven: opts.Base != nil || plan.Header != nil})
	}
	res.Warnings = append(res.Warnings, shaders.missingGroups(plan)...)
	if len(shaders.open) > 0 && opts.BaseTOC == nil && isModName(utocPath) {
		w := Warning{Kind: UncheckedShaderLibrary}
		for _, f := range plan.Files {
			if f.Kind == ShaderArchive {
				w.Packages = append(w.Packages, f.Path)
			}
		}
		res.Warnings = append(res.Warnings, w)
	}
	addCultures(tmpl, localized, packed)
	if res.Packages > 0 || plan.Header != nil {
		w.SetContainerHeader(tmpl)
		res.Chunks++
	}
	if !opts.NoPak {
		res.Pak = strings.TrimSuffix(utocPath, filepath.Ext(utocPath)) + ".pak"
		f, err := w.CreateCompanion(res.Pak)
		if err != nil {
			return fail(err)
		}
		var files []CompanionFile
		for _, lf := range res.Loose {
			full := filepath.Join(plan.Dir, filepath.FromSlash(lf.Path))
			files = append(files, CompanionFile{Path: lf.Path, Open: func() (CompanionReader, error) { return os.Open(full) }})
		}
		if err := WriteCompanion(f, res.Pak, pak.GUID(wo.KeyGUID), files); err != nil {
			return fail(err)
		}
	}
	if res.Chunks == 0 {
		return fail(fmt.Errorf("%s: no package data to pack (no .uasset, .umap, .ubulk, .uptnl or extracted chunk under <Game>/Content, Engine/Content or a plugin's Content)", plan.Dir))
	}
	if err := w.Stage(); err != nil {
		return nil, err
	}
	res.Stored = w.StoredBytes()
	if err := w.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// legacyTag is the first four bytes of a cooked asset's .uasset (the
// package file tag 0x9E2A83C1, little-endian); no zen package starts so.
var legacyTag = []byte{0xC1, 0x83, 0x2A, 0x9E}

// isCooked reports whether the .uasset/.umap at p is a cooked asset in the
// legacy format rather than a zen package.
func isCooked(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	return n == 4 && bytes.Equal(head, legacyTag), nil
}

// localizedPackage is a UE 4.26/4.27 package named /…/L10N/<culture>/…:
// its id, its source package's and its culture.
type localizedPackage struct {
	id, source zen.PackageID
	culture    string
}

// addCultures adds to a 4.26/4.27 container header the culture package map
// entries of the localized packages packed whose source package is packed
// too, as the engine's packer does (it maps a localized package to its
// source only when both are in the container): cultures in the order of
// their first package and pairs in the order of the localized packages'
// ids, as the packer, which goes through the packages sorted by id, adds
// them. Entries h already holds (an extracted header's) are kept.
func addCultures(h *zen.ContainerHeader, localized []localizedPackage, packed map[zen.PackageID]bool) {
	sort.Slice(localized, func(a, b int) bool { return localized[a].id < localized[b].id })
	// The template may share its slices with an extracted header.
	h.Cultures = slices.Clone(h.Cultures)
	for k := range h.Cultures {
		h.Cultures[k].Packages = slices.Clone(h.Cultures[k].Packages)
	}
	for _, l := range localized {
		if !packed[l.source] {
			continue
		}
		k := slices.IndexFunc(h.Cultures, func(c zen.Culture) bool { return c.Culture == l.culture })
		if k < 0 {
			k = len(h.Cultures)
			h.Cultures = append(h.Cultures, zen.Culture{Culture: l.culture})
		}
		pair := zen.LocalizedPair{SourcePackageID: l.source, LocalizedPackageID: l.id}
		if !slices.Contains(h.Cultures[k].Packages, pair) {
			h.Cultures[k].Packages = append(h.Cultures[k].Packages, pair)
		}
	}
}

// openPackage decodes the header of the zen package file fh of size bytes
// (see zen.DecodePackageHeader).
func openPackage(file string, fh *os.File, size int64) (*zen.Package, error) {
	return zen.DecodePackageHeader(file, fh, size, nil)
}

// sizeCheck closes a package file streamed into the container, and fails
// when the file no longer has the size its header was checked against:
// the package changed while it was packed.
type sizeCheck struct {
	f    *os.File
	name string
	size int64
}

func (s *sizeCheck) Close() error {
	st, err := s.f.Stat()
	cerr := s.f.Close()
	switch {
	case err != nil:
		return err
	case st.Size() != s.size:
		return fmt.Errorf("%s: the file changed while it was packed (%d bytes, then %d)", s.name, s.size, st.Size())
	}
	return cerr
}
