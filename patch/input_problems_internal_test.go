package patch

import (
	"slices"
	"testing"

	"github.com/unrmod/unrmod/reader"
)

// The output's problems are paired with the input's by part and message,
// offsets aside (they move with the data and tables); the rest are the
// patch's.
func TestMatchProblems(t *testing.T) {
	seek := func(i int, at int64, was, want string) reader.Problem {
		return reader.Problem{Struct: "export Mips[0]", Offset: at, Msg: "lazy array SeekPos " + was + " should be " + want,
			Part: reader.PartExportData, Index: i}
	}
	flags := func(i int) reader.Problem {
		return reader.Problem{Struct: "name", Offset: -1, Msg: "flags 0x00000000 have no LoadForClient/Server/Edit bit", Part: reader.PartName, Index: i}
	}
	cases := []struct {
		name          string
		input, output []reader.Problem
		kept          []bool
		fresh         []reader.Problem
	}{
		{name: "none"},
		{name: "kept where it was", input: []reader.Problem{seek(3, 0x100, "0x120", "0x11C")},
			output: []reader.Problem{seek(3, 0x100, "0x120", "0x11C")}, kept: []bool{true}},
		{name: "kept, moved", input: []reader.Problem{seek(3, 0x100, "0x120", "0x11C")},
			output: []reader.Problem{seek(3, 0x900, "0x920", "0x91C")}, kept: []bool{true}},
		{name: "fixed", input: []reader.Problem{seek(3, 0x100, "0x120", "0x11C"), flags(2)},
			output: []reader.Problem{flags(2)}, kept: []bool{false, true}},
		{name: "same rule, another export", input: []reader.Problem{seek(3, 0x100, "0x120", "0x11C")},
			output: []reader.Problem{seek(4, 0x100, "0x120", "0x11C")}, kept: []bool{false}, fresh: []reader.Problem{seek(4, 0x100, "0x120", "0x11C")}},
		{name: "one kept, one new of the same kind", input: []reader.Problem{flags(2)},
			output: []reader.Problem{flags(2), flags(2)}, kept: []bool{true}, fresh: []reader.Problem{flags(2)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kept, fresh := matchProblems(c.input, c.output)
			if !slices.Equal(kept, c.kept) && len(kept)+len(c.kept) > 0 {
				t.Errorf("kept %v, want %v", kept, c.kept)
			}
			if !slices.Equal(fresh, c.fresh) {
				t.Errorf("fresh %v, want %v", fresh, c.fresh)
			}
		})
	}
}
