//go:build unix

package safefile

import "syscall"

// openNonBlock keeps the open of a named pipe from waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
