package iostore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
)

// ErrNotGlobalContainer means a container holds no global script objects:
// neither a UE5 ScriptObjects chunk nor the UE 4.26/4.27 LoaderGlobalNames,
// LoaderGlobalNameHashes and LoaderInitialLoadMeta chunks. Only the game's
// global container (global.utoc) has them.
var ErrNotGlobalContainer = errors.New("not a global container")

// LoadScriptObjectsFrom decodes the global script objects at path: a global
// container (.utoc, see LoadScriptObjects), a UE5 ScriptObjects chunk
// saved as a file, or a folder of chunks saved as files, as 'unrmod extract'
// writes them (chunks/ScriptObjects/*.bin, or the three 4.26/4.27 chunks
// under chunks/LoaderGlobalNames/ and so on) or as files whose names start
// with the chunk types' names (LoaderGlobalNames_1.bin ...).
func LoadScriptObjectsFrom(path string, opts *Options) (*zen.ScriptObjects, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if strings.EqualFold(filepath.Ext(path), ".utoc") {
			return LoadScriptObjects(path, opts)
		}
		data, err := safefile.ReadRegular(path, MaxTOCFileSize, "a script objects chunk unrmod reads")
		if err != nil {
			return nil, err
		}
		return zen.DecodeScriptObjects(path, data)
	}
	find := func(t ChunkType) (string, []byte, error) {
		for _, pattern := range []string{filepath.Join(path, "chunks", t.String(), "*.bin"), filepath.Join(path, t.String()+"*.bin")} {
			files, _ := filepath.Glob(pattern)
			if len(files) == 1 {
				data, err := safefile.ReadRegular(files[0], MaxTOCFileSize, "a script objects chunk unrmod reads")
				return files[0], data, err
			}
		}
		return "", nil, nil
	}
	if f, data, err := find(ChunkScriptObjects); err != nil || f != "" {
		if err != nil {
			return nil, err
		}
		return zen.DecodeScriptObjects(f, data)
	}
	var parts [3][]byte
	for k, t := range []ChunkType{ChunkLoaderGlobalNames, ChunkLoaderGlobalNameHashes, ChunkLoaderInitialLoadMeta} {
		f, data, err := find(t)
		if err != nil {
			return nil, err
		}
		if f == "" {
			return nil, errorf(path, "global chunks", -1, ErrNotGlobalContainer,
				"no ScriptObjects chunk, nor LoaderGlobalNames, LoaderGlobalNameHashes and LoaderInitialLoadMeta chunks (missing %s), saved as files in this folder or its chunks/ folder", t)
		}
		parts[k] = data
	}
	return zen.DecodeScriptObjectsUE4(path, parts[0], parts[1], parts[2])
}

// LoadScriptObjects opens the global container utocPath and decodes the
// script objects it holds: the UE5 ScriptObjects chunk
// (zen.DecodeScriptObjects) or the three UE 4.26/4.27 chunks
// (zen.DecodeScriptObjectsUE4). A container with neither fails with a
// *ue.FormatError naming the file and wrapping ErrNotGlobalContainer; one with
// only some of the 4.2x chunks fails with ErrCorrupt. Errors in the chunks'
// contents are the zen decoders', with the file name and offsets within
// the chunk.
func LoadScriptObjects(utocPath string, opts *Options) (*zen.ScriptObjects, error) {
	c, err := Open(utocPath, opts)
	if err != nil {
		return nil, err
	}
	defer c.Close()

	first := map[ChunkType]int{}
	for i, ch := range c.Chunks() {
		switch ch.Type {
		case ChunkScriptObjects, ChunkLoaderGlobalNames, ChunkLoaderGlobalNameHashes, ChunkLoaderInitialLoadMeta:
			if _, seen := first[ch.Type]; !seen {
				first[ch.Type] = i
			}
		}
	}
	read := func(t ChunkType) ([]byte, error) {
		if err := c.checkReadable(first[t], zen.MaxContainerHeaderSize, "a global metadata chunk"); err != nil {
			return nil, err
		}
		return c.ReadChunk(first[t])
	}
	if _, ok := first[ChunkScriptObjects]; ok {
		data, err := read(ChunkScriptObjects)
		if err != nil {
			return nil, err
		}
		return zen.DecodeScriptObjects(c.File(), data)
	}
	ue4 := []ChunkType{ChunkLoaderGlobalNames, ChunkLoaderGlobalNameHashes, ChunkLoaderInitialLoadMeta}
	var missing []string
	for _, t := range ue4 {
		if _, ok := first[t]; !ok {
			missing = append(missing, t.String())
		}
	}
	switch len(missing) {
	case len(ue4):
		return nil, errorf(c.File(), "global container", -1, ErrNotGlobalContainer,
			"not a global container: no ScriptObjects chunk (UE5) and no LoaderInitialLoadMeta, LoaderGlobalNames and LoaderGlobalNameHashes chunks (UE 4.26/4.27) among its %d chunks; script objects are in the game's global.utoc",
			len(c.Chunks()))
	case 0:
	default:
		return nil, errorf(c.File(), "global container", -1, ErrCorrupt,
			"the UE 4.26/4.27 script objects need the LoaderGlobalNames, LoaderGlobalNameHashes and LoaderInitialLoadMeta chunks; missing: %s",
			strings.Join(missing, ", "))
	}
	var parts [3][]byte
	for k, t := range ue4 {
		if parts[k], err = read(t); err != nil {
			return nil, err
		}
	}
	return zen.DecodeScriptObjectsUE4(c.File(), parts[0], parts[1], parts[2])
}
