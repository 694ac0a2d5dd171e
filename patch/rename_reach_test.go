package patch_test

import (
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
)

// TestRenameReach: the plan of a rename says what the name reaches besides
// its table entry, counted over the tables and the property lists.
func TestRenameReach(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join(examplesDir, "..", "packages", "UnrmodDemoMap.unr"))
	if err != nil {
		t.Fatal(err)
	}
	type rn struct{ from, to, note string }
	cases := []struct {
		file    string
		corpus  bool
		renames []rn
	}{
		{demo, false, []rn{
			{"Skins", "Pics", "reaches 1 export name, the outer of 2 objects"},
			{"Title", "Name2", "reaches 1 property tag"},
			{"Light", "Lamp", "reaches 1 import name, the class of 1 export, 1 name value"},
			{"Engine", "Engine2", "reaches 1 import name, the outer of 4 objects"},
			{"Tag", "Label", "reaches 1 property tag"},
			{"Sky", "Clouds", "reaches 1 export name"},
		}},
		{"legacy/ut99_stock/CTF-Face.unr", true, []rn{
			{"Light", "Lamp", "reaches 1 import name, the class of 81 exports, 81 name values"},
			{"LightBrightness", "LightBright", "reaches 82 property tags"},
			{"SkyCity", "SkyTown", "reaches 1 import name, the outer of 6 objects"},
			{"Vector", "Vec", "reaches 1227 struct tags"},
		}},
	}
	for _, c := range cases {
		file := c.file
		if c.corpus {
			file = corpus.Path(t, c.file)
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			ops := ""
			for _, r := range c.renames {
				ops += "      - rename: {from: " + r.from + ", to: " + r.to + "}\n"
			}
			res, _ := applyText(t, oneTarget(file, ops))
			for k, ch := range changesOf(res) {
				if ch.Note != c.renames[k].note {
					t.Errorf("rename %s: note %q, want %q", c.renames[k].from, ch.Note, c.renames[k].note)
				}
			}
		})
	}
}
