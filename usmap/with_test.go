package usmap_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// mapSource is a Source of fixed structs and enums; names in fail give
// their error.
type mapSource struct {
	structs map[string]*usmap.Struct
	enums   map[string]*usmap.Enum
	fail    map[string]error
}

func (s *mapSource) Struct(name string) (*usmap.Struct, error) {
	if err := s.fail[name]; err != nil {
		return nil, err
	}
	return s.structs[name], nil
}

func (s *mapSource) Enum(name string) (*usmap.Enum, error) { return s.enums[name], nil }

// TestWith checks that a Source gives what the mappings lack and nothing
// they have, that a chain runs from a source's class through the mappings'
// classes, that a source's error says which name failed, and that the
// mappings given to With are unchanged.
func TestWith(t *testing.T) {
	m, err := usmap.Open(corpusMappings(t)[usmap.CompressionNone], nil)
	if err != nil {
		t.Fatal(err)
	}
	actor, err := m.Schema("Actor")
	if err != nil {
		t.Fatal(err)
	}
	fake := &usmap.Struct{Name: "Actor", Super: "", PropertyCount: 1, Properties: []*usmap.Property{{Name: "Fake", ArrayDim: 1, Type: &usmap.Type{Kind: usmap.IntProperty}}}}
	bp := &usmap.Struct{Name: "BP_Crate_C", Super: "Actor", PropertyCount: 3,
		Properties: []*usmap.Property{{Index: 0, ArrayDim: 2, Name: "Slots", Type: &usmap.Type{Kind: usmap.IntProperty}},
			{Index: 2, ArrayDim: 1, Name: "Mesh", Type: &usmap.Type{Kind: usmap.ObjectProperty}}}}
	child := &usmap.Struct{Name: "BP_Child_C", Super: "BP_Broken_C"}
	src := &mapSource{
		structs: map[string]*usmap.Struct{"BP_Crate_C": bp, "Actor": fake, "BP_Child_C": child},
		enums:   map[string]*usmap.Enum{"E_Crate": {Name: "E_Crate", Entries: []usmap.EnumEntry{{Value: 0, Name: "E_Crate::A"}}}},
		fail:    map[string]error{"BP_Broken_C": fmt.Errorf("defined by /Game/Broken, not at hand: %w", usmap.ErrMissing)},
	}
	w := m.With(src)

	slots, err := w.Schema("BP_Crate_C")
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 3+len(actor) || slots[1].Property.Name != "Slots" || slots[1].ArrayIndex != 1 || slots[2].Owner != bp || slots[3].Property != actor[0].Property {
		t.Errorf("BP_Crate_C: %d slots (Actor %d), %+v", len(slots), len(actor), slots[:4])
	}
	if s, _ := w.Schema("Actor"); len(s) != len(actor) || s[0].Property != actor[0].Property {
		t.Error("the source replaced a class the mappings hold")
	}
	if w.Enum("E_Crate") == nil || w.Struct("BP_Crate_C") != bp || w.Struct("Vector") != m.Struct("Vector") {
		t.Error("lookups through With")
	}
	if m.Struct("BP_Crate_C") != nil || m.Enum("E_Crate") != nil {
		t.Error("With changed the mappings it was given")
	}
	if _, err := m.Schema("BP_Crate_C"); !errors.Is(err, usmap.ErrMissing) {
		t.Errorf("the mappings alone: %v", err)
	}
	_, err = w.Schema("BP_Child_C")
	if !errors.Is(err, usmap.ErrMissing) || !strings.Contains(err.Error(), `"BP_Broken_C", the super of BP_Child_C's chain: defined by /Game/Broken`) {
		t.Errorf("a super the source cannot give: %v", err)
	}
	if w.Struct("BP_Broken_C") != nil {
		t.Error("a failing name is a struct")
	}
	// A second source is asked after the first.
	w2 := w.With(&mapSource{structs: map[string]*usmap.Struct{"BP_Crate_C": child, "BP_Other_C": {Name: "BP_Other_C", Super: "BP_Crate_C"}}})
	if w2.Struct("BP_Crate_C") != bp {
		t.Error("a later source overrode an earlier one")
	}
	if s, err := w2.Schema("BP_Other_C"); err != nil || len(s) != len(slots) {
		t.Errorf("a chain through two sources: %d slots, %v", len(s), err)
	}
	// A loop through a source is damage.
	loop := m.With(&mapSource{structs: map[string]*usmap.Struct{"A_C": {Name: "A_C", Super: "B_C"}, "B_C": {Name: "B_C", Super: "A_C"}}})
	if _, err := loop.Schema("A_C"); !errors.Is(err, ue.ErrCorrupt) {
		t.Errorf("a loop: %v", err)
	}
}
