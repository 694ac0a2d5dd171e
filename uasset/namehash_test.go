package uasset

import "testing"

// TestNameHashes checks NameHashes on names whose hashes the engine wrote
// in corpus files (UE 4.27 and 5.8 cooks).
func TestNameHashes(t *testing.T) {
	tests := []struct {
		name            string
		nonCase, casePr uint16
	}{
		{"BlockAll", 0x3bf8, 0x095b},
		{"BlueprintType", 0x110c, 0xdf92},
	}
	for _, tt := range tests {
		n := NewName(tt.name)
		if n.NonCaseHash != tt.nonCase || n.CaseHash != tt.casePr {
			t.Errorf("NameHashes(%q) = %04x, %04x; want %04x, %04x", tt.name, n.NonCaseHash, n.CaseHash, tt.nonCase, tt.casePr)
		}
	}
}
