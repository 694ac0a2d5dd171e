// Package shaderbuild gives tests pak-era shader libraries with code: the
// corpus has real library headers but not their code (about 1 GB).
package shaderbuild

import (
	"bytes"

	"github.com/unrmod/unrmod/convert"
)

// WithCode replaces the code of library a with code of its own, shader s
// of (UncompressedSize mod 500) + 16 bytes, and returns each shader's
// uncompressed code. The code is mostly runs Oodle or Zlib shrink, with
// every fifth shader bytes that do not shrink. compress, when not nil,
// compresses one shader; each is stored compressed when that is
// shorter, raw otherwise, as the cooker stores them.
func WithCode(a *convert.ShaderArchive, compress func(src []byte) ([]byte, error)) (raw [][]byte, err error) {
	a.Code = nil
	for s := range a.Shaders {
		n := int(a.Shaders[s].UncompressedSize%500) + 16
		code := bytes.Repeat([]byte{byte(s), byte(s >> 8), 0, 0, 0, 0, 0, 0}, n/8+1)[:n]
		if s%5 == 0 {
			for i := range code {
				code[i] = byte(i*131 + s*7 + i*i)
			}
		}
		raw = append(raw, code)
		stored := code
		if compress != nil {
			c, err := compress(code)
			if err != nil {
				return nil, err
			}
			if len(c) < len(code) {
				stored = c
			}
		}
		a.Shaders[s].Offset, a.Shaders[s].Size, a.Shaders[s].UncompressedSize = uint64(len(a.Code)), uint32(len(stored)), uint32(n)
		a.Code = append(a.Code, stored...)
	}
	return raw, nil
}
