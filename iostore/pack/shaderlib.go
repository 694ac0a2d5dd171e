package pack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// Shader libraries in a UE5 container (docs/containers.md, "Shader
// libraries"): the library header is a ShaderCodeLibrary chunk listed in
// the directory index under the pak-era file name,
// <Game>/Content/ShaderArchive-<Library>-<Format>.ushaderbytecode, and each
// group of shaders is a ShaderCode chunk without a path. extract writes the
// header to its path; pack makes it that chunk again. A pak-era library
// (what the cooker writes) is converted to that form, as the engine's
// packer does: a game running from IoStore never reads a .ushaderbytecode
// file from a .pak (ShouldLookForLooseCookedChunks in the engine's shader
// library code), so putting it in the .pak would silently leave the
// packages without their shaders.

// ioStoreShaderLibraryVersion is the first uint32 of a library header in
// its IoStore form (FIoStoreShaderCodeArchive's version); a pak-era
// .ushaderbytecode starts with convert.ShaderArchiveVersion.
const ioStoreShaderLibraryVersion = 1

// shaderLibraryPrefix, shaderLibraryExt, assetInfoPrefix and assetInfoExt
// frame the file names of shader libraries and their asset info.
const (
	shaderLibraryPrefix = "shaderarchive-"
	shaderLibraryExt    = ".ushaderbytecode"
	assetInfoPrefix     = "shaderassetinfo-"
	assetInfoExt        = ".assetinfo.json"
)

// ShaderLibraryChunkID returns the ShaderCodeLibrary chunk id of the shader
// library file named base (ShaderArchive-<Library>-<Format>.ushaderbytecode,
// case-insensitive) in a container of TOC version v, and false when base
// is not such a name. The engine's packer splits the name at its first and
// last '-' (convert.ShaderLibraryName) and hashes "<Library>-<Format>"
// (cityhash.ShaderLibraryID): ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6
// hashes "Global-PCD3D_SM6" and "PCD3D_SM6".
func ShaderLibraryChunkID(base string, v iostore.TocVersion) (iostore.ChunkID, bool) {
	lower := strings.ToLower(base)
	if !strings.HasPrefix(lower, shaderLibraryPrefix) || !strings.HasSuffix(lower, shaderLibraryExt) {
		return iostore.ChunkID{}, false
	}
	lib, format, ok := convert.ShaderLibraryName(base)
	if !ok {
		return iostore.ChunkID{}, false
	}
	id, err := convert.ShaderLibraryChunkID(lib, format, v)
	return id, err == nil
}

// shaderFile says what the file at p (rel in the folder) is for a
// container of TOC version v: a shader library in its IoStore form
// (ShaderLibrary), a pak-era one (ShaderArchive), the cooker's shader
// asset info (ShaderAssetInfo), or none of them (Loose). Only UE5
// containers hold shader libraries as chunks: for UE 4.26/4.27 these
// files stay files of the .pak, where those engines read them.
func shaderFile(p, rel string, v iostore.TocVersion) (Kind, iostore.ChunkID, error) {
	if !v.UsesUE5ChunkTypes() {
		return Loose, iostore.ChunkID{}, nil
	}
	base := path.Base(rel)
	if lower := strings.ToLower(base); strings.HasPrefix(lower, assetInfoPrefix) && strings.HasSuffix(lower, assetInfoExt) {
		return ShaderAssetInfo, iostore.ChunkID{}, nil
	}
	id, ok := ShaderLibraryChunkID(base, v)
	if !ok {
		return Loose, iostore.ChunkID{}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return Loose, iostore.ChunkID{}, err
	}
	defer f.Close()
	var head [4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return Loose, iostore.ChunkID{}, fmt.Errorf("%s: a shader library shorter than the 4 bytes of its version", p)
		}
		return Loose, iostore.ChunkID{}, err
	}
	switch version := binary.LittleEndian.Uint32(head[:]); version {
	case ioStoreShaderLibraryVersion:
		// The header is decoded whole (it is small: the shaders' code is
		// in the groups), so that a damaged one is refused here, not by
		// the game.
		data, err := os.ReadFile(p)
		if err != nil {
			return Loose, iostore.ChunkID{}, err
		}
		if _, err := convert.DecodeZenShaderArchive(p, data); err != nil {
			return Loose, iostore.ChunkID{}, err
		}
		return ShaderLibrary, id, nil
	case convert.ShaderArchiveVersion:
		return ShaderArchive, id, nil
	default:
		return Loose, iostore.ChunkID{}, fmt.Errorf("%s: a shader library of version %d; unrmod packs version %d (UE 5.0–5.7, as the cooker writes it) and version %d (its IoStore form, as extract writes it)", p, version, convert.ShaderArchiveVersion, ioStoreShaderLibraryVersion)
	}
}

// shaderLibraries are the shader libraries of a plan being packed: the
// pak-era ones opened for conversion (by path in the folder), the shader
// maps every library of the folder holds, and the asset infos read.
type shaderLibraries struct {
	open  map[string]*convert.ZenShaderLibrary
	files []*os.File
	held  map[convert.ShaderHash]bool
	infos []*convert.ShaderAssetInfo
	// groups are the group chunk ids of each library in its IoStore form
	// (as extract writes it), by path: its groups are other files.
	groups map[string][][12]byte
}

// openShaderLibraries reads the headers of the plan's shader libraries and
// its asset infos. UE 5.8 and later are refused: their shader map hashes
// are XXH3-64 values rather than SHA-1 and their group ids are scoped by
// library (docs/convert.md §8), which unrmod does not write.
//
// A cooked library must not replace one of the game's: the game opens its
// libraries by name (Global, its project's, <Project>_Chunk<N> for the
// pak chunk of that number: GetShaderLibraryNameForChunk in the engine's
// shader library code) and reads the chunk of that name from the
// container that wins, a mod's _P one. So a cooked library whose chunk
// the game's container (Options.BaseTOC) holds is refused, and so is a
// cooked Global library in a mod container (mod is true).
func openShaderLibraries(plan *Plan, opts *Options, v iostore.TocVersion, mod bool) (_ *shaderLibraries, err error) {
	s := &shaderLibraries{open: map[string]*convert.ZenShaderLibrary{}, held: map[convert.ShaderHash]bool{}, groups: map[string][][12]byte{}}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	for _, f := range plan.Files {
		if f.Kind != ShaderLibrary && f.Kind != ShaderArchive && f.Kind != ShaderAssetInfo {
			continue
		}
		file := filepath.Join(plan.Dir, filepath.FromSlash(f.Path))
		if f.Kind != ShaderLibrary && !opts.Engine.Less(zen.Engine{Major: 5, Minor: 8}) {
			return nil, fmt.Errorf("%s: a %s for UE %v: unrmod converts shader libraries for UE 5.0–5.7 (5.8 changed shader map hashes to XXH3-64 and scopes group chunk ids by library)", file, f.Kind, opts.Engine)
		}
		switch f.Kind {
		case ShaderLibrary:
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			z, err := convert.DecodeZenShaderArchive(file, data)
			if err != nil {
				return nil, err
			}
			s.hold(z.ShaderMapHashes)
			s.groups[f.Path] = z.GroupChunkIDs
		case ShaderArchive:
			if err := checkNoReplace(file, f.ID, opts.BaseTOC, mod); err != nil {
				return nil, err
			}
			fh, err := os.Open(file)
			if err != nil {
				return nil, err
			}
			s.files = append(s.files, fh)
			sh := opts.Shaders
			l, err := convert.NewZenShaderLibrary(fh, f.Size, file, "", &sh)
			if err != nil {
				return nil, err
			}
			if id, err := l.LibraryChunkID(v); err != nil || id != f.ID {
				return nil, fmt.Errorf("%s: the library's chunk id %v (%v) is not the one its name gives, %v", file, id, err, f.ID)
			}
			s.open[f.Path] = l
			s.hold(l.Zen.ShaderMapHashes)
		case ShaderAssetInfo:
			fh, err := os.Open(file)
			if err != nil {
				return nil, err
			}
			info, err := convert.ReadShaderAssetInfo(file, fh)
			fh.Close()
			if err != nil {
				return nil, err
			}
			s.infos = append(s.infos, info)
		}
	}
	return s, nil
}

// replaceAdvice is how a mod brings shaders of its own without replacing
// a library of the game.
const replaceAdvice = "give the mod's shaders a library of their own (assign the mod's content to a chunk of its own when cooking, which names the library <Project>_Chunk<N>, and pack it as pakchunk<N>-<Platform>_P), or cook with Share Material Shader Code off so that the materials hold their shaders"

// checkNoReplace refuses the cooked shader library file whose chunk is id
// when it would replace a library of the game: one the game's container
// base holds, or the Global library in a mod container.
func checkNoReplace(file string, id iostore.ChunkID, base *iostore.TOC, mod bool) error {
	if base != nil && slices.Contains(base.ChunkIDs, id) {
		return fmt.Errorf("%s: the game's container already holds this shader library (chunk %v); the mod's would replace it for every material of the game: %s", file, id, replaceAdvice)
	}
	if lib, _, ok := convert.ShaderLibraryName(file); ok && mod && strings.HasPrefix(strings.ToLower(lib), "global-") {
		return fmt.Errorf("%s: a mod's Global shader library would replace the game's global shaders: leave ShaderArchive-Global-* and ShaderAssetInfo-Global-* out of the folder (the game has its own)", file)
	}
	return nil
}

// isModName reports whether the container at utocPath is a mod's: its
// name ends in _P, so that its chunks win over the game's.
func isModName(utocPath string) bool {
	base := strings.TrimSuffix(filepath.Base(utocPath), filepath.Ext(utocPath))
	return strings.HasSuffix(strings.ToUpper(base), "_P")
}

// missingGroups warns of each library in its IoStore form whose groups
// the plan does not all hold.
func (s *shaderLibraries) missingGroups(plan *Plan) []Warning {
	if len(s.groups) == 0 {
		return nil
	}
	have := map[iostore.ChunkID]bool{}
	for _, f := range plan.Files {
		if f.Kind == Chunk {
			have[f.ID] = true
		}
	}
	var out []Warning
	for _, f := range plan.Files {
		ids, ok := s.groups[f.Path]
		if !ok {
			continue
		}
		missing := 0
		for _, id := range ids {
			if !have[iostore.ChunkID(id)] {
				missing++
			}
		}
		if missing > 0 {
			out = append(out, Warning{Kind: MissingShaderGroups, Packages: []string{f.Path}, Of: len(ids), Missing: missing})
		}
	}
	return out
}

func (s *shaderLibraries) hold(hs []convert.ShaderHash) {
	for _, h := range hs {
		s.held[h] = true
	}
}

func (s *shaderLibraries) close() {
	for _, f := range s.files {
		f.Close()
	}
}

// storeEntryShaderMaps sets the shader map hashes of the store entry e of
// package name from the asset infos, as the engine's packer does: the
// shader maps they list for it that a library of the folder holds, sorted
// (convert.StoreEntryShaderMaps). An entry the asset infos do not name
// keeps what it has (from an extracted or base container header).
func (s *shaderLibraries) storeEntryShaderMaps(e *zen.StoreEntry, name string) {
	if len(s.infos) == 0 {
		return
	}
	hs := convert.StoreEntryShaderMaps(name, func(h convert.ShaderHash) bool { return s.held[h] }, s.infos...)
	if len(hs) == 0 {
		return
	}
	e.ShaderMapHashes = make([][]byte, len(hs))
	for k := range hs {
		e.ShaderMapHashes[k] = hs[k][:]
	}
}

// chunkAdder is the part of iostore.Writer writeShaderLibrary uses.
type chunkAdder interface {
	AddChunkHeader(h *iostore.ChunkHeader, r io.Reader) error
}

// writeShaderLibrary writes the pak-era library l, the file at rel in the
// folder, as the engine's packer does: every group a ShaderCode chunk in
// the engine's order (convert.ZenShaderLibrary.GroupLoadOrder), built
// jobs at a time, then the header a ShaderCodeLibrary chunk at rel (the
// Writer stores shader chunks uncompressed, as the engine does). It returns the chunks and bytes written.
func writeShaderLibrary(w chunkAdder, l *convert.ZenShaderLibrary, id iostore.ChunkID, rel string, jobs int) (chunks int, size int64, err error) {
	order := make([]int, len(l.Zen.Groups))
	for g := range order {
		order[g] = g
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return int(l.GroupLoadOrder(a)) - int(l.GroupLoadOrder(b))
	})
	// A window of jobs groups (0: one per CPU, as Options.Jobs) is built
	// at once and written in order: memory follows the window, not the
	// library.
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	built := make([][]byte, jobs)
	sizes := make([]int, len(order))
	for start := 0; start < len(order); start += len(built) {
		window := order[start:min(start+len(built), len(order))]
		if err := parallel(len(window), len(built), func(i int) error {
			var err error
			built[i], err = l.Group(window[i], nil)
			return err
		}); err != nil {
			return 0, 0, err
		}
		for i, g := range window {
			if err := w.AddChunkHeader(&iostore.ChunkHeader{ID: l.GroupChunkID(g)}, bytes.NewReader(built[i])); err != nil {
				return 0, 0, err
			}
			chunks++
			size += int64(len(built[i]))
			sizes[g] = len(built[i])
			built[i] = nil
		}
	}
	header, err := l.EncodeHeader()
	if err != nil {
		return 0, 0, err
	}
	// The header must read back as what was built: every group at the
	// size it was written with.
	z, err := convert.DecodeZenShaderArchive(l.File, header)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: the shader library header made does not read back: %w", l.File, err)
	}
	if len(z.Groups) != len(sizes) {
		return 0, 0, fmt.Errorf("%s: the shader library header made reads back with %d groups, %d were written", l.File, len(z.Groups), len(sizes))
	}
	for g, e := range z.Groups {
		if int(e.CompressedSize) != sizes[g] {
			return 0, 0, fmt.Errorf("%s: the shader library header made gives group %d %d bytes, %d were written", l.File, g, e.CompressedSize, sizes[g])
		}
	}
	if err := w.AddChunkHeader(&iostore.ChunkHeader{ID: id, Path: rel}, bytes.NewReader(header)); err != nil {
		return 0, 0, err
	}
	return chunks + 1, size + int64(len(header)), nil
}
