package report

import (
	"fmt"
	"path"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
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
				if want, err := iostore.NewChunkID(cityhash.ShaderLibraryID(lib, format), 0, iostore.ChunkShaderCodeLibrary, v); err == nil && want != ch.ID {
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
