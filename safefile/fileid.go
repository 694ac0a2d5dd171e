package safefile

import (
	"fmt"
	"os"
)

// FileID is what the system says of an open file that changes when the
// file's content may have changed or another file took its name: its size,
// its modification time, its change time where the system keeps one (the
// time of the last write or change of its metadata, which a program cannot
// set back as it can the modification time), and the file's number on its
// volume (device and inode on Unix, volume serial and file index on
// Windows), which a file renamed over it does not share. Two FileIDs taken
// of one file are equal while nothing wrote to it.
//
// A FileID is taken from an open handle (FileIDOf), not from a path: it
// describes the file that was read, even when another has taken its name
// since.
type FileID struct {
	Size int64
	// ModTime and ChangeTime are in nanoseconds since 1970 (UTC);
	// ChangeTime is 0 where HasChange is false.
	ModTime    int64
	ChangeTime int64
	// Device and Inode number the file: device and inode on Unix, volume
	// serial number and file index on Windows; 0 where HasInode is false.
	Device uint64
	Inode  uint64
	// HasChange and HasInode say that the system gave a change time and a
	// file number.
	HasChange bool
	HasInode  bool
}

// FileIDOf returns the FileID of the open file f (fstat on Unix,
// GetFileInformationByHandle on Windows).
func FileIDOf(f *os.File) (FileID, error) {
	st, err := f.Stat()
	if err != nil {
		return FileID{}, err
	}
	if !st.Mode().IsRegular() {
		return FileID{}, fmt.Errorf("%s: %w", f.Name(), ErrNotRegular)
	}
	id := FileID{Size: st.Size(), ModTime: st.ModTime().UnixNano()}
	if err := sysFileID(f, st, &id); err != nil {
		return FileID{}, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return id, nil
}

// String prints the FileID for messages.
func (id FileID) String() string {
	s := fmt.Sprintf("size %d, modified %d", id.Size, id.ModTime)
	if id.HasChange {
		s += fmt.Sprintf(", changed %d", id.ChangeTime)
	}
	if id.HasInode {
		s += fmt.Sprintf(", file %d:%d", id.Device, id.Inode)
	}
	return s
}

// ReadRegularID is ReadRegular returning also the FileID of the file that
// was read, taken from the handle it was read through before and after
// reading: a file that changed while it was read gives ErrChangedWhileRead.
func ReadRegularID(path string, maxSize int64, what string) ([]byte, FileID, error) {
	f, size, err := OpenRegular(path)
	if err != nil {
		return nil, FileID{}, err
	}
	defer f.Close()
	before, err := FileIDOf(f)
	if err != nil {
		return nil, FileID{}, err
	}
	data, err := readRegular(f, path, size, maxSize, what)
	if err != nil {
		return nil, FileID{}, err
	}
	after, err := FileIDOf(f)
	if err != nil {
		return nil, FileID{}, err
	}
	if after != before {
		return nil, FileID{}, &os.PathError{Op: "read", Path: path, Err: ErrChangedWhileRead}
	}
	return data, before, nil
}

// ErrChangedWhileRead is matched by the error of ReadRegularID for a file
// that was written to while it was read.
var ErrChangedWhileRead = fmt.Errorf("the file changed while it was read")
