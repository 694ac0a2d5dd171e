//go:build unix

package iostore_test

import (
	"syscall"
	"time"
)

// tcCPUTime returns the CPU time the process has used, user and system:
// what a run costs per core, whatever share of the cores other work on
// the machine leaves it.
func tcCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
