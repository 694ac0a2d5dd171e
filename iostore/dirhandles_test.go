package iostore_test

import (
	"testing"

	"github.com/unrmod/unrmod/iostore"
)

// TestClampDirHandles checks how many directory handles Extract takes for
// a descriptor limit: half of it, at least 128 and at most 16,384.
func TestClampDirHandles(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		want  int
	}{
		{0, 128}, {256, 128}, {1024, 512}, {20000, 10000}, {1 << 20, 16384}, {1<<64 - 1, 16384},
	} {
		if got := iostore.ClampDirHandles(tc.limit); got != tc.want {
			t.Errorf("limit %d: %d handles, want %d", tc.limit, got, tc.want)
		}
	}
}
