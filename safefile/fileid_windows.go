//go:build windows

package safefile

import (
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fileBasicInfo is FILE_BASIC_INFO: times in 100 ns since 1601.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// sysFileID adds the volume serial number and file index of f, and its
// change time where the file system keeps one (NTFS does).
func sysFileID(f *os.File, _ fs.FileInfo, id *FileID) error {
	h := windows.Handle(f.Fd())
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return err
	}
	id.Device = uint64(info.VolumeSerialNumber)
	id.Inode = uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)
	id.HasInode = true
	var basic fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))); err == nil && basic.ChangeTime != 0 {
		// 100 ns intervals since 1601 → ns since 1970.
		id.ChangeTime = (basic.ChangeTime - 116444736000000000) * 100
		id.HasChange = true
	}
	return nil
}
