package zencorpus

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
)

// ShaderLibrary is a ShaderCodeLibrary chunk of an engine-written corpus
// container: the file name the directory index gives it, its id and the
// container's TOC version.
type ShaderLibrary struct {
	Container string // relative to the corpus root
	Name      string // e.g. ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode
	ID        iostore.ChunkID
	Version   iostore.TocVersion
}

// ShaderLibraries returns, by kind, every shader library chunk with a path
// of the corpus's containers whose directory index can be read (only the
// .utoc is needed); it skips the test when there is none.
func ShaderLibraries(tb testing.TB) []ShaderLibrary {
	tb.Helper()
	dir := corpus.Dir(tb)
	var out []ShaderLibrary
	err := filepath.WalkDir(filepath.Join(dir, "iostore"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".utoc") {
			return err
		}
		c, err := iostore.Open(p, nil)
		if err != nil {
			return nil // encrypted: the paths need the key
		}
		defer c.Close()
		rel, _ := filepath.Rel(dir, p)
		for _, ch := range c.Chunks() {
			if ch.Type == iostore.ChunkShaderCodeLibrary && ch.Path != "" {
				out = append(out, ShaderLibrary{Container: filepath.ToSlash(rel), Name: path.Base(ch.Path), ID: ch.ID, Version: c.TOC().Header.Version})
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Skip("no container of the corpus lists a shader library")
	}
	return out
}
