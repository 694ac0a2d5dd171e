//go:build unix

package iostore

import "syscall"

// maxDirHandles bounds the directory handles Extract keeps open: half of
// the file descriptors the process may open (Go raises the soft limit to
// the hard one at startup), leaving the rest to the .ucas files, the files
// being written and whatever else the process holds; at least 128 and at
// most 16,384.
func maxDirHandles() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return minDirHandles
	}
	return clampDirHandles(uint64(l.Cur))
}
