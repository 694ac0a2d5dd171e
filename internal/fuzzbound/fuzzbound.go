// Package fuzzbound holds the time bound every fuzz target checks for each
// input while it is fuzzed, next to its allocation bounds: decoding a file
// must cost time linear in its size, so an input that takes seconds is a
// finding even when it neither panics nor allocates much.
//
// The bound applies only under 'go test -fuzz': a plain 'go test' (or
// 'go test -race', which is many times slower) runs the same targets on
// their seed inputs and must not fail because the machine is slow or
// loaded. Benchmarks measure the speed of those runs.
package fuzzbound

import (
	"flag"
	"testing"
	"time"
)

// Limit is how long one input of n bytes may take: two seconds, plus two
// microseconds a byte for the large seeds taken from real files (a loaded
// machine does a megabyte-sized file in well under a second).
func Limit(n int) time.Duration {
	return 2*time.Second + time.Duration(n)*2*time.Microsecond
}

// Check fails t when the input of n bytes whose check started at start
// took longer than Limit(n) and the test binary is fuzzing (see the
// package comment). Fuzz targets defer it first thing:
//
//	defer fuzzbound.Check(t, time.Now(), len(data))
func Check(t testing.TB, start time.Time, n int) {
	t.Helper()
	if !fuzzing(flag.CommandLine) {
		return
	}
	if d := time.Since(start); d > Limit(n) {
		t.Errorf("an input of %d bytes took %v (at most %v): the work is not linear in the input", n, d.Round(time.Millisecond), Limit(n))
	}
}

// fuzzing reports whether the test binary whose flags are fs runs with
// -test.fuzz (the coordinator) or -test.fuzzworker (a worker).
func fuzzing(fs *flag.FlagSet) bool {
	if f := fs.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		return true
	}
	if f := fs.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return true
	}
	return false
}
