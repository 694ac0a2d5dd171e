//go:build !unix

package iostore_test

import "time"

// tcCPUTime returns 0 where the process's CPU time is not read: the
// benchmarks then report no per-core ratio.
func tcCPUTime() time.Duration { return 0 }
