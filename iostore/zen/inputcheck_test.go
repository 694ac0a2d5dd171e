package zen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// TestCheckOutputProblems checks the rule's comparison: offsets in the
// messages and the Offset field move with the tables and do not count;
// hashes and counts do; a problem gone from the output is refused, one
// kept is returned, a new one is returned as fresh.
func TestCheckOutputProblems(t *testing.T) {
	hash := ue.Problem{Struct: `name 3 "Tinx"`, Offset: -1, Msg: "stored hash 0x27d3fd1980883f9c, the name hashes to 0xf0b1d0001e257a04"}
	moved := ue.Problem{Struct: "export 1", Offset: 0x86A, Msg: "its data at 0x86A overlaps another export's"}
	movedOut := ue.Problem{Struct: "export 1", Offset: 0x90A, Msg: "its data at 0x90A overlaps another export's"}
	rehashed := ue.Problem{Struct: hash.Struct, Offset: -1, Msg: "stored hash 0x0000000000000001, the name hashes to 0xf0b1d0001e257a04"}
	for _, tt := range []struct {
		name          string
		input, output []ue.Problem
		kept, fresh   int
		refused       bool
	}{
		{"sound", nil, nil, 0, 0, false},
		{"kept", []ue.Problem{hash}, []ue.Problem{hash}, 1, 0, false},
		{"kept, moved", []ue.Problem{moved}, []ue.Problem{movedOut}, 1, 0, false},
		{"gone", []ue.Problem{hash, moved}, []ue.Problem{movedOut}, 0, 0, true},
		{"hash changed", []ue.Problem{hash}, []ue.Problem{rehashed}, 0, 1, true},
		{"fresh", nil, []ue.Problem{hash}, 0, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kept, fresh, err := zen.CheckOutputProblems("P.uasset", tt.input, tt.output)
			var ie *zen.InputProblemsError
			if tt.refused != (err != nil) || err != nil && (!errors.As(err, &ie) || !errors.Is(err, zen.ErrInputDamaged) ||
				!strings.HasPrefix(err.Error(), "P.uasset: the input already has") || !strings.Contains(err.Error(), "nothing was written")) {
				t.Fatalf("err %v, want refused %v", err, tt.refused)
			}
			if len(kept) != tt.kept || len(fresh) != tt.fresh {
				t.Errorf("kept %v, fresh %v, want %d and %d", kept, fresh, tt.kept, tt.fresh)
			}
		})
	}
}
