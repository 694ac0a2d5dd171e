//go:build linux || darwin

package oodle

import (
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// unixFuncs calls the library through purego, which needs no cgo.
type unixFuncs struct {
	dec   func(comp unsafe.Pointer, compLen int64, raw unsafe.Pointer, rawLen int64, fuzzSafe, checkCRC, verbosity int32, decBufBase unsafe.Pointer, decBufSize int64, cb, cbData, decMem unsafe.Pointer, decMemSize int64, threadPhase int32) int64
	comp  func(compressor int32, raw unsafe.Pointer, rawLen int64, comp unsafe.Pointer, level int32, opts, dictBase, lrm, scratch unsafe.Pointer, scratchSize int64) int64
	bnd   func(compressor int32, rawLen int64) int64
	hasBd bool
}

func load(path string) (funcs, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	f := &unixFuncs{}
	dec, err := purego.Dlsym(h, "OodleLZ_Decompress")
	if err != nil {
		purego.Dlclose(h)
		return nil, err
	}
	purego.RegisterFunc(&f.dec, dec)
	if comp, err := purego.Dlsym(h, "OodleLZ_Compress"); err == nil {
		purego.RegisterFunc(&f.comp, comp)
	}
	if bnd, err := purego.Dlsym(h, "OodleLZ_GetCompressedBufferSizeNeeded"); err == nil {
		purego.RegisterFunc(&f.bnd, bnd)
		f.hasBd = true
	}
	return f, nil
}

func (f *unixFuncs) decompress(dst, src []byte) int64 {
	n := f.dec(unsafe.Pointer(&src[0]), int64(len(src)), unsafe.Pointer(&dst[0]), int64(len(dst)),
		1, 0, 0, nil, 0, nil, nil, nil, 0, 3)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dst)
	return n
}

func (f *unixFuncs) compress(c Compressor, level Level, dst, src []byte) int64 {
	if f.comp == nil {
		return -1
	}
	n := f.comp(int32(c), unsafe.Pointer(&src[0]), int64(len(src)), unsafe.Pointer(&dst[0]), int32(level), nil, nil, nil, nil, 0)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dst)
	return n
}

func (f *unixFuncs) bound(c Compressor, n int) int64 {
	if !f.hasBd {
		return -1
	}
	return f.bnd(int32(c), int64(n))
}
