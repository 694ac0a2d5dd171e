package report

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// checkShaderLibraries checks the UE5 shader libraries of container c
// (docs/containers.md, "Shader libraries"): each ShaderCodeLibrary chunk
// must decode as a library header; when the directory index names it, its
// id must be the hash of that name, by which the game looks it up; and
// each of its groups the container holds must be a ShaderCode chunk of
// the size the header gives, since the game reads a group by that size
// and decompresses it (or copies it) into the group's uncompressed size.
// Groups the container does not hold are not problems: the engine's
// packer may put a library's groups in other containers of the game. It
// returns how many libraries were checked.
func checkShaderLibraries(file string, c *iostore.Container, r *FileVerify) int {
	v := c.TOC().Header.Version
	checked := 0
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkShaderCodeLibrary {
			continue
		}
		where := fmt.Sprintf("shader library %v", ch.ID)
		data, err := c.ReadChunk(i)
		if err != nil {
			// Not decodable here (an Oodle block without the library) or
			// damaged: the container's own check reports it.
			continue
		}
		checked++
		z, err := convert.DecodeZenShaderArchive(file, data)
		if err != nil {
			r.Problems = append(r.Problems, problem(where, -1, err.Error(), where+": "+err.Error()))
			continue
		}
		if ch.Path != "" {
			if lib, format, ok := convert.ShaderLibraryName(path.Base(ch.Path)); ok {
				if want, err := convert.ShaderLibraryChunkID(lib, format, v); err == nil && want != ch.ID {
					msg := fmt.Sprintf("its path %s gives chunk id %v, by which the game looks the library up", ch.Path, want)
					r.Problems = append(r.Problems, problem(where, -1, msg, where+": "+msg))
				}
			}
		}
		for g, e := range z.Groups {
			k, ok := c.Find(iostore.ChunkID(z.GroupChunkIDs[g]))
			if !ok {
				continue
			}
			gc := c.Chunks()[k]
			var msg string
			switch {
			case gc.Type != iostore.ChunkShaderCode:
				msg = fmt.Sprintf("group %d is chunk %v, a %v chunk", g, gc.ID, gc.Type)
			case gc.Size != uint64(e.CompressedSize):
				msg = fmt.Sprintf("group %d (chunk %v) holds %d bytes; the header gives %d", g, gc.ID, gc.Size, e.CompressedSize)
			}
			if msg != "" {
				r.Problems = append(r.Problems, problem(where, -1, msg, where+": "+msg))
			}
		}
	}
	return checked
}

// ShaderLibraryInfo is the summary of a UE5 shader library file (unrmod
// info): as the cooker writes it (Form "cooked", version 2: every
// shader's code in the file, most of it Oodle-compressed) or its IoStore
// header (Form "iostore", version 1: the shaders in ShaderCode chunks).
type ShaderLibraryInfo struct {
	File    string `json:"file"`
	Kind    string `json:"kind"` // "shader-library"
	Form    string `json:"form"`
	Version uint32 `json:"version"`
	// Library and Format are the names the engine takes from the file
	// name; ChunkID is the ShaderCodeLibrary chunk id they hash to (UE5
	// TOC numbering), "" when the name does not split.
	Library    string `json:"library,omitempty"`
	Format     string `json:"format,omitempty"`
	ChunkID    string `json:"chunk_id,omitempty"`
	ShaderMaps int    `json:"shader_maps"`
	Shaders    int    `json:"shaders"`
	// CompressedShaders counts the shaders a cooked library stores
	// compressed (reading them needs the game's Oodle library), CodeBytes
	// the bytes of code the file holds.
	CompressedShaders int   `json:"compressed_shaders,omitempty"`
	CodeBytes         int64 `json:"code_bytes,omitempty"`
	// Groups counts the ShaderCode chunks: those the header lists, or for
	// a cooked library those the engine's packer would make.
	Groups int `json:"groups"`
	// CompressedGroups counts the groups an IoStore header says are
	// stored compressed.
	CompressedGroups int `json:"compressed_groups,omitempty"`
}

// NewShaderLibraryInfo reads the shader library file named file, size
// bytes through r: only its header (a cooked library's code is not read).
// A version it does not read (3, UE 5.8) is a *ue.FormatError.
func NewShaderLibraryInfo(file string, r io.ReaderAt, size int64) (*ShaderLibraryInfo, error) {
	d, _, err := readShaderLibrary(file, r, size)
	return d, err
}

// readShaderLibrary is NewShaderLibraryInfo, also returning a cooked
// library as read (nil for an IoStore header).
func readShaderLibrary(file string, r io.ReaderAt, size int64) (*ShaderLibraryInfo, *convert.ZenShaderLibrary, error) {
	d := &ShaderLibraryInfo{File: file, Kind: "shader-library"}
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, nil, ue.Errorf(file, "shader library version", 0, ue.ErrCorrupt, "%v", err)
	}
	d.Version = binary.LittleEndian.Uint32(head[:])
	if lib, format, ok := convert.ShaderLibraryName(file); ok {
		d.Library, d.Format = lib, format
		if id, err := convert.ShaderLibraryChunkID(lib, format, iostore.TocVersion(8)); err == nil {
			d.ChunkID = id.String()
		}
	}
	var l *convert.ZenShaderLibrary
	switch d.Version {
	case convert.ShaderArchiveVersion:
		d.Form = "cooked"
		var err error
		if l, err = convert.NewZenShaderLibrary(r, size, file, d.Format, nil); err != nil {
			return nil, nil, err
		}
		a := l.Archive
		d.ShaderMaps, d.Shaders, d.Groups = len(a.ShaderMaps), len(a.Shaders), len(l.Zen.Groups)
		d.CodeBytes = size - int64(len(a.Encode()))
		for _, s := range a.Shaders {
			if s.Size != s.UncompressedSize {
				d.CompressedShaders++
			}
		}
	case convert.ZenShaderArchiveVersion:
		d.Form = "iostore"
		if size > maxShaderLibraryHeader {
			return nil, nil, ue.Errorf(file, "shader library header", 0, ue.ErrCorrupt, "%d bytes: more than a library header holds (%d)", size, int64(maxShaderLibraryHeader))
		}
		data := make([]byte, size)
		if _, err := r.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, ue.Errorf(file, "shader library header", 0, ue.ErrCorrupt, "%v", err)
		}
		z, err := convert.DecodeZenShaderArchive(file, data)
		if err != nil {
			return nil, nil, err
		}
		d.ShaderMaps, d.Shaders, d.Groups = len(z.ShaderMaps), len(z.Shaders), len(z.Groups)
		for _, g := range z.Groups {
			if g.CompressedSize != g.UncompressedSize {
				d.CompressedGroups++
			}
		}
	default:
		return nil, nil, ue.Errorf(file, "shader library version", 0, ue.ErrUnsupportedVersion, "version %d; unrmod reads version %d (as the UE 5.0–5.7 cooker writes it) and %d (the IoStore header)", d.Version, convert.ShaderArchiveVersion, convert.ZenShaderArchiveVersion)
	}
	return d, l, nil
}

// maxShaderLibraryHeader bounds the IoStore header of a library read whole: the
// largest shipped ones are a few MB (their code is in other chunks). It
// is unrmod's bound, not the engine's.
const maxShaderLibraryHeader = 256 << 20

// VerifyShaderLibrary verifies the shader library file named file (size
// bytes through r): its header decodes, and in a cooked library every
// shader's code lies inside the file (a file cut short is one problem,
// saying how many shaders' code it lacks) and is stored no longer than
// uncompressed.
func VerifyShaderLibrary(file string, r io.ReaderAt, size int64) FileVerify {
	v := FileVerify{File: file, Kind: "shader-library", Problems: []Problem{}}
	d, l, err := readShaderLibrary(file, r, size)
	if err != nil {
		v.Problems = append(v.Problems, ReadProblem(err, nil))
		return v
	}
	v.ShaderLibrary = d
	if l != nil {
		var outside, first int
		var end uint64
		for i, s := range l.Archive.Shaders {
			if s.Offset > uint64(d.CodeBytes) || uint64(s.Size) > uint64(d.CodeBytes)-s.Offset {
				if outside == 0 {
					first = i
				}
				outside++
				end = max(end, s.Offset+uint64(s.Size))
			} else if s.Size > s.UncompressedSize {
				where := fmt.Sprintf("shader %d", i)
				msg := fmt.Sprintf("%d bytes stored for %d uncompressed: a shader is stored compressed only when that is shorter", s.Size, s.UncompressedSize)
				v.Problems = append(v.Problems, problem(where, -1, msg, where+": "+msg))
			}
		}
		if outside > 0 {
			msg := fmt.Sprintf("%d of %d shaders' code (the first: shader %d) lies outside the %d bytes of code the file holds; their code reaches %d bytes: the file was cut short", outside, len(l.Archive.Shaders), first, d.CodeBytes, end)
			v.Problems = append(v.Problems, problem("shader code", -1, msg, "shader code: "+msg))
		}
	}
	v.OK = len(v.Problems) == 0
	return v
}
