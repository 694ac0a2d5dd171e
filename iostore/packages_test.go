package iostore_test

import (
	"path"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
)

// TestFindPackage names the demo container's packages every way a user
// may.
func TestFindPackage(t *testing.T) {
	c, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name, want string // want: the chunk's path, or the words of the error
		ok         bool
	}{
		{"/Game/Data/DT_DemoItems", "Data/DT_DemoItems.uasset", true},
		{"UnrmodDemo/Content/Data/DT_DemoItems.uasset", "Data/DT_DemoItems.uasset", true},
		{`unrmoddemo\content\data\dt_demoitems`, "Data/DT_DemoItems.uasset", true},
		{"DT_DemoItems", "Data/DT_DemoItems.uasset", true},
		{"dt_demoitems.uasset", "Data/DT_DemoItems.uasset", true},
		{" DemoArena ", "Maps/DemoArena.umap", true},
		{"/Game/Data/DT_DemoItem", "close matches: UnrmodDemo/Content/Data/DT_DemoItems.uasset", false},
		{"Data/DT_DemoItems", "Data/DT_DemoItems.uasset", true}, // the path inside the mount point
		{"DemoArena.ubulk", "no package", false},
	} {
		i, err := c.FindPackage(tc.name)
		switch {
		case tc.ok && err != nil:
			t.Errorf("FindPackage(%q): %v", tc.name, err)
		case tc.ok && c.Chunks()[i].Path != tc.want:
			t.Errorf("FindPackage(%q) = chunk %d (%s), want %s", tc.name, i, c.Chunks()[i].Path, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("FindPackage(%q) = %d, %v; want an error with %q", tc.name, i, err, tc.want)
		}
	}
}

// findPackageScan is FindPackage as it was before it indexed the paths: a
// walk over every package chunk per name. TestFindPackagePaths checks the
// index against it.
func findPackageScan(c *iostore.Container, name string) (int, string) {
	name = strings.ReplaceAll(strings.TrimSpace(name), `\`, "/")
	want := strings.ToLower(strings.TrimPrefix(name, "/"))
	var base []string
	baseIndex := -1
	for i, ch := range c.Chunks() {
		if ch.Type != iostore.ChunkExportBundleData || ch.Path == "" {
			continue
		}
		shown, err := c.OutputPath(i)
		if err != nil {
			continue
		}
		for _, p := range []string{strings.ToLower(shown), strings.ToLower(ch.Path)} {
			if p == want || strings.TrimSuffix(p, path.Ext(p)) == want {
				return i, ""
			}
		}
		if b := strings.ToLower(path.Base(shown)); !strings.Contains(want, "/") && (b == want || strings.TrimSuffix(b, path.Ext(b)) == want) {
			base, baseIndex = append(base, shown), i
		}
	}
	switch len(base) {
	case 0:
		return -1, "no package"
	case 1:
		return baseIndex, ""
	}
	return -1, "ambiguous: " + strings.Join(base, ", ")
}

// TestFindPackagePaths names packages of a container whose paths share
// file names, stems and dotted folders, and checks FindPackage's answer
// (the chunk, or the error) against the rule: the first package chunk
// whose path is the name, with or without its extension; else the only
// one whose file name it is.
func TestFindPackagePaths(t *testing.T) {
	v := iostore.VersionReplaceIoChunkHashWithIoHash
	b := &iostorebuild.Container{Version: v, ContainerID: 1, MountPoint: "../../../Mod/Content/", Method: "None"}
	add := func(n uint64, typ iostore.ChunkType, p string) {
		id, err := iostore.NewChunkID(n, 0, typ, v)
		if err != nil {
			t.Fatal(err)
		}
		b.Chunks = append(b.Chunks, iostorebuild.Chunk{ID: id, Path: p, Data: []byte(p)})
	}
	add(1, iostore.ChunkExportBundleData, "A/Item.uasset")
	add(2, iostore.ChunkExportBundleData, "B/Item.uasset")
	add(3, iostore.ChunkExportBundleData, "X/Both.uasset")
	add(4, iostore.ChunkExportBundleData, "Both.uasset") // a path equal to the name beats an earlier file name
	add(5, iostore.ChunkExportBundleData, "Maps/Map.umap")
	add(6, iostore.ChunkExportBundleData, "Maps/Map.uasset")
	add(7, iostore.ChunkExportBundleData, "V1.5/Thing.uasset")
	add(7, iostore.ChunkBulkData, "V1.5/Lone.ubulk")
	add(8, iostore.ChunkExportBundleData, "")
	utoc, err := b.WriteFiles(t.TempDir(), "Paths")
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name string
		want string // the chunk's path, or words of the error
	}{
		{"Item", "ambiguous: Mod/Content/A/Item.uasset, Mod/Content/B/Item.uasset"},
		{"item.uasset", "ambiguous"},
		{"A/Item", "A/Item.uasset"},
		{"mod/content/b/item.UASSET", "B/Item.uasset"},
		{"Both", "Both.uasset"},
		{"both.uasset", "Both.uasset"},
		{"X/Both", "X/Both.uasset"},
		{"Maps/Map", "Maps/Map.umap"},
		{"Maps/Map.uasset", "Maps/Map.uasset"},
		{"Map", "ambiguous: Mod/Content/Maps/Map.umap, Mod/Content/Maps/Map.uasset"},
		{"Map.umap", "Maps/Map.umap"},
		{"v1.5/thing", "V1.5/Thing.uasset"},
		{"Thing", "V1.5/Thing.uasset"},
		{"Thing.uexp", "no package"},
		{"V1", "no package"},
		{"Lone", "no package"},
		{"A/Item/", "no package"},
		{"", "no package"},
	} {
		i, err := c.FindPackage(tc.name)
		got := tc.want
		if err != nil {
			got = err.Error()
			if !strings.Contains(got, tc.want) {
				t.Errorf("FindPackage(%q): %v; want %q", tc.name, err, tc.want)
			}
		} else if got = c.Chunks()[i].Path; got != tc.want {
			t.Errorf("FindPackage(%q) = chunk %d (%s), want %s", tc.name, i, got, tc.want)
		}
		// The same answer as the walk over every chunk.
		j, why := findPackageScan(c, tc.name)
		switch {
		case err == nil && (why != "" || j != i):
			t.Errorf("FindPackage(%q) = chunk %d; the walk gives %d, %q", tc.name, i, j, why)
		case err != nil && (why == "" || !strings.Contains(err.Error(), why)):
			t.Errorf("FindPackage(%q): %v; the walk gives %d, %q", tc.name, err, j, why)
		}
	}
}
