package ue

import (
	"reflect"
	"strings"
	"testing"
)

func TestMatchProblems(t *testing.T) {
	key := func(s string) string { return strings.ToLower(s) }
	for _, tc := range []struct {
		name          string
		input, output []string
		kept          []bool
		fresh         []string
	}{
		{"none", nil, nil, []bool{}, nil},
		{"all kept", []string{"a", "b"}, []string{"B", "A"}, []bool{true, true}, nil},
		{"one gone", []string{"a", "b"}, []string{"a"}, []bool{true, false}, nil},
		{"one new", []string{"a"}, []string{"a", "c"}, []bool{true}, []string{"c"}},
		{"counted", []string{"a", "a"}, []string{"a", "a", "a"}, []bool{true, true}, []string{"a"}},
		{"fewer", []string{"a", "a"}, []string{"a"}, []bool{true, false}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, fresh := MatchProblems(tc.input, tc.output, key)
			if !reflect.DeepEqual(kept, tc.kept) || !reflect.DeepEqual(fresh, tc.fresh) {
				t.Errorf("kept %v fresh %v, want %v %v", kept, fresh, tc.kept, tc.fresh)
			}
		})
	}
}
