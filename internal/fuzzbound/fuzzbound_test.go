package fuzzbound

import (
	"flag"
	"testing"
	"time"
)

// recorder is a testing.TB that records whether it was failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

// TestCheckOnlyWhileFuzzing: an input that took an hour fails the check
// only when the binary fuzzes; a plain (or -race) test run measures no
// time.
func TestCheckOnlyWhileFuzzing(t *testing.T) {
	r := &recorder{TB: t}
	Check(r, time.Now().Add(-time.Hour), 10)
	if r.failed && !fuzzing(flag.CommandLine) {
		t.Error("a test run that does not fuzz failed on the time an input took")
	}
}

func TestFuzzing(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"plain", nil, false},
		{"run", []string{"-test.run=X"}, false},
		{"coordinator", []string{"-test.fuzz=FuzzX"}, true},
		{"worker", []string{"-test.fuzzworker"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.String("test.run", "", "")
			fs.String("test.fuzz", "", "")
			fs.Bool("test.fuzzworker", false, "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if got := fuzzing(fs); got != tc.want {
				t.Errorf("fuzzing(%v) = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}
