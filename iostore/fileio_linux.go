package iostore

import (
	"os"

	"golang.org/x/sys/unix"
)

// copyFileRange copies up to n bytes of src from off to dst at its offset
// with copy_file_range(2), in the kernel, and returns how many it copied.
// It stops at the first error (another file system on an old kernel, a
// file system without the call, …): copyRange copies the rest itself and
// reports a real failure then.
func copyFileRange(dst, src *os.File, off, n int64) int64 {
	sc, err := src.SyscallConn()
	if err != nil {
		return 0
	}
	dc, err := dst.SyscallConn()
	if err != nil {
		return 0
	}
	var done int64
	dc.Control(func(dfd uintptr) {
		sc.Control(func(sfd uintptr) {
			for done < n {
				roff := off + done
				k, err := unix.CopyFileRange(int(sfd), &roff, int(dfd), nil, int(min(n-done, 1<<30)), 0)
				if err == unix.EINTR {
					continue
				}
				if err != nil || k <= 0 {
					return
				}
				done += int64(k)
			}
		})
	})
	return done
}

// startWriteback asks the system to start writing n bytes of f at off to
// storage (sync_file_range(2) without waiting), so that the disk works
// while the rest is written and the sync before the renames has little
// left to do. It is a hint: errors are the sync's to report.
func startWriteback(f *os.File, off, n int64) {
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	c.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
