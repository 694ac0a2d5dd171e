//go:build windows

package oodle

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// winFuncs calls the library through LoadLibrary and GetProcAddress.
type winFuncs struct {
	dec, comp, bnd *windows.Proc
}

func load(path string) (funcs, error) {
	dll, err := windows.LoadDLL(path)
	if err != nil {
		return nil, err
	}
	f := &winFuncs{}
	if f.dec, err = dll.FindProc("OodleLZ_Decompress"); err != nil {
		dll.Release()
		return nil, err
	}
	f.comp, _ = dll.FindProc("OodleLZ_Compress")
	f.bnd, _ = dll.FindProc("OodleLZ_GetCompressedBufferSizeNeeded")
	return f, nil
}

func (f *winFuncs) decompress(dst, src []byte) int64 {
	// Proc.Call keeps the pointers converted in its argument list alive.
	n, _, _ := f.dec.Call(uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), uintptr(unsafe.Pointer(&dst[0])), uintptr(len(dst)),
		1, 0, 0, 0, 0, 0, 0, 0, 0, 3)
	return int64(n)
}

func (f *winFuncs) compress(c Compressor, level Level, dst, src []byte) int64 {
	if f.comp == nil {
		return -1
	}
	n, _, _ := f.comp.Call(uintptr(c), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), uintptr(unsafe.Pointer(&dst[0])), uintptr(level), 0, 0, 0, 0, 0)
	return int64(n)
}

func (f *winFuncs) bound(c Compressor, n int) int64 {
	if f.bnd == nil {
		return -1
	}
	r, _, _ := f.bnd.Call(uintptr(c), uintptr(n))
	return int64(r)
}
