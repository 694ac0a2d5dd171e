package iostore_test

import (
	"os"

	"golang.org/x/sys/unix"
)

// tcEvict drops the cached pages of a file that is on disk (and synced),
// so that the next read comes from the disk. It does nothing on tmpfs,
// whose pages are the file.
func tcEvict(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return &os.PathError{Op: "fadvise", Path: name, Err: err}
	}
	return nil
}
