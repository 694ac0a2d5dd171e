package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/report"
)

// TestVerifyShaderLibraries verifies UE5 containers holding the corpus's
// shader library header (its IoStore form) and some of its groups: a
// library at the path its id is the hash of, with groups of the sizes its
// header gives, is clean; a library whose path names another id (the game
// would not find it), a group of another size than the header's (the game
// would read a wrong group) and a library chunk that is no library are
// each one problem naming the library.
func TestVerifyShaderLibraries(t *testing.T) {
	header, err := os.ReadFile(corpus.Path(t, "other/ue5_shader_libraries/ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.uzenshaderbytecode"))
	if err != nil {
		t.Fatal(err)
	}
	z, err := convert.DecodeZenShaderArchive("header", header)
	if err != nil {
		t.Fatal(err)
	}
	const v = iostore.TocVersion(8)
	libID := func(name string) iostore.ChunkID {
		lib, format, _ := convert.ShaderLibraryName(name)
		id, err := iostore.NewChunkID(cityhash.ShaderLibraryID(lib, format), 0, iostore.ChunkShaderCodeLibrary, v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	name := "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"
	group := func(g int, extra int) iostorebuild.Chunk {
		return iostorebuild.Chunk{ID: iostore.ChunkID(z.GroupChunkIDs[g]), Data: bytes.Repeat([]byte{byte(g)}, int(z.Groups[g].CompressedSize)+extra), Raw: true}
	}
	clean := []iostorebuild.Chunk{
		{ID: libID(name), Path: name, Data: header, Raw: true},
		group(0, 0), group(1, 0), group(7, 0),
	}
	for _, tc := range []struct {
		name   string
		chunks []iostorebuild.Chunk
		want   []string // one problem per entry, containing it
	}{
		{"clean", clean, nil},
		{"wrong id", []iostorebuild.Chunk{{ID: libID("ShaderArchive-Other-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"), Path: name, Data: header, Raw: true}},
			[]string{"by which the game looks the library up"}},
		{"group size", append(clean[:3:3], group(7, 5)), []string{"group 7", "the header gives"}},
		{"not a library", append(clean[:4:4], iostorebuild.Chunk{ID: libID("ShaderArchive-Broken-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"), Path: "ShaderArchive-Broken-PCD3D_SM6-PCD3D_SM6.ushaderbytecode", Data: []byte{1, 0, 0, 0, 9, 9}, Raw: true}),
			[]string{"shader library"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &iostorebuild.Container{Version: v, ContainerID: 0x1234, MountPoint: "../../../Demo/Content/", Method: "Zlib", Chunks: tc.chunks}
			utoc, err := b.WriteFiles(t.TempDir(), "Shaders-Windows")
			if err != nil {
				t.Fatal(err)
			}
			c, err := iostore.Open(utoc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r := report.VerifyContainer(filepath.Base(utoc), c, nil)
			libs := 0
			for _, ch := range tc.chunks {
				if ch.ID.Type(v) == iostore.ChunkShaderCodeLibrary {
					libs++
				}
			}
			if r.Container.ShaderLibrariesChecked != libs {
				t.Errorf("%d shader libraries checked, want %d", r.Container.ShaderLibrariesChecked, libs)
			}
			if len(tc.want) == 0 {
				if !r.OK {
					t.Errorf("problems %v, want none", r.Problems)
				}
				return
			}
			if r.OK || len(r.Problems) != 1 {
				t.Fatalf("problems %v, want one", r.Problems)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Problems[0].Text, w) {
					t.Errorf("problem %q does not say %q", r.Problems[0].Text, w)
				}
			}
		})
	}
}
