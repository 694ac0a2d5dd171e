package iostore_test

import (
	"strings"
	"testing"

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
