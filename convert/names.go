package convert

import (
	"github.com/unrmod/unrmod/iostore/zen"
)

// nameMap builds a zen package's name map as FPackageStoreNameMapBuilder
// does: names added in order, a name referenced later appended only when
// it is not in the map yet, and a reference mapped to the index of its
// text with the FName number beside it. Names are told apart by their
// text, case included (the builder keys on FDisplayNameEntryId).
type nameMap struct {
	names []string
	index map[string]int
	fold  bool // compare without ASCII case
}

func newNameMap(n int) *nameMap {
	return &nameMap{names: make([]string, 0, n), index: make(map[string]int, n)}
}

// newFoldedNameMap returns a name map that tells names apart without ASCII
// case, as the 4.26/4.27 builder does (it keys on the FName comparison id).
func newFoldedNameMap(n int) *nameMap {
	m := newNameMap(n)
	m.fold = true
	return m
}

func (m *nameMap) key(s string) string {
	if m.fold {
		return lowerASCII(s)
	}
	return s
}

// add appends a name even if it is there already; a later reference maps
// to the last copy, as the engine's TMap::Add keeps the last value.
func (m *nameMap) add(s string) {
	m.names = append(m.names, s)
	m.index[m.key(s)] = len(m.names) - 1
}

// ref marks a name as referenced, appending it when it is new, and returns
// its mapped form.
func (m *nameMap) ref(s string, number int32) zen.MappedName {
	i, ok := m.index[m.key(s)]
	if !ok {
		m.add(s)
		i = len(m.names) - 1
	}
	return zen.MappedName{IndexAndType: uint32(i), Number: uint32(number)}
}

// splitName splits an FName's text into the name-map entry and the number
// the engine keeps beside it (0: no suffix; n: "_<n-1>").
func splitName(s string) (string, int32) {
	base, digits, ok := zen.SplitNameNumber(s)
	if !ok {
		return s, 0
	}
	n := int32(0)
	for _, c := range digits {
		n = n*10 + int32(c-'0')
	}
	return base, n + 1
}
