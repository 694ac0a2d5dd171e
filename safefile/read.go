package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// ErrNotRegular is matched by the error of OpenRegular and ReadRegular for
// a path that names a device, a pipe, a socket or a directory: unrmod only
// reads regular files, whose size is known before reading.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is matched by the error of ReadRegular for a file larger than
// its format can be.
var ErrTooLarge = errors.New("file too large")

// OpenRegular opens path for reading when it is a regular file (following
// symbolic links) and returns it with its size. Anything else is refused
// with ErrNotRegular before it is read from, and without blocking: a named
// pipe is opened non-blocking, so that a pipe without a writer cannot hang
// the caller.
func OpenRegular(path string) (*os.File, int64, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, 0, err
	} else if err := checkRegular(path, st); err != nil {
		return nil, 0, err
	}
	// The file may have been replaced since the Stat: check what was opened.
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil {
		err = checkRegular(path, st)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func checkRegular(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	kind := "special file"
	switch t := st.Mode().Type(); {
	case t&fs.ModeDir != 0:
		kind = "directory"
	case t&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case t&fs.ModeSocket != 0:
		kind = "socket"
	case t&fs.ModeDevice != 0:
		kind = "device"
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (a %s)", ErrNotRegular, kind)}
}

// ReadRegular reads the regular file at path, refusing (with ErrNotRegular)
// anything else, and refusing (with ErrTooLarge) a file of more than
// maxSize bytes before reading it. what names the kind of file in the
// error, e.g. "a legacy package".
func ReadRegular(path string, maxSize int64, what string) ([]byte, error) {
	f, size, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, path, size, maxSize, what)
}

// readRegular reads f, of size bytes when opened, for ReadRegular.
func readRegular(f *os.File, path string, size, maxSize int64, what string) ([]byte, error) {
	if size > maxSize {
		return nil, tooLarge(path, size, maxSize, what)
	}
	// The file may grow while it is read: never read past maxSize.
	data := make([]byte, 0, size+1)
	r := io.LimitReader(f, min(maxSize, math.MaxInt64-1)+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(data)) > maxSize {
		return nil, tooLarge(path, int64(len(data)), maxSize, what)
	}
	return data, nil
}

func tooLarge(path string, size, maxSize int64, what string) error {
	return &fs.PathError{Op: "read", Path: path,
		Err: fmt.Errorf("%w: %d bytes, more than the %d %s can hold", ErrTooLarge, size, maxSize, what)}
}
