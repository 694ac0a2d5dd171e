package iostore

import (
	"fmt"
	"io"
	"os"
)

// copyRange appends n bytes of src, from off, to dst at its offset. When
// src is an *os.File and the bytes land at the same place within a 4 KiB
// page as they come from, the system copies them (copyFileRange): in the
// kernel, or by sharing the file system's blocks when it can, and without
// moving src's offset, which others may share. The rest goes through buf.
// (On a file system that copies page by page, a copy between different
// places within a page is slower in the kernel than through a buffer.)
func copyRange(dst *os.File, src io.ReaderAt, off, n int64, buf []byte) error {
	if f, ok := src.(*os.File); ok {
		if at, err := dst.Seek(0, io.SeekCurrent); err == nil && (off-at)%4096 == 0 {
			done := copyFileRange(dst, f, off, n)
			off, n = off+done, n-done
		}
	}
	for n > 0 {
		b := buf[:min(int64(len(buf)), n)]
		if k, err := src.ReadAt(b, off); k < len(b) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("read %d bytes at 0x%X: %w", len(b), off, err)
		}
		if _, err := dst.Write(b); err != nil {
			return err
		}
		off += int64(len(b))
		n -= int64(len(b))
	}
	return nil
}
