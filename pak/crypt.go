package pak

import (
	"crypto/aes"
	"io"

	"github.com/unrmod/unrmod/ue"
)

// newCipher returns the AES-256 cipher of key k.
func newCipher(k *ue.Key) *ue.ECB {
	e := ue.NewECB(*k)
	return &e
}

// ecbReader decrypts what it reads from r, whose length must be a multiple
// of 16: it hands out only whole decrypted AES blocks, and a partial block
// at the end is an io.ErrUnexpectedEOF.
type ecbReader struct {
	r        io.Reader
	c        *ue.ECB
	buf      [4096]byte
	n        int // bytes in buf
	off, dec int // buf[off:dec] is decrypted and not yet handed out
	err      error
}

func (e *ecbReader) Read(p []byte) (int, error) {
	if e.off == e.dec {
		if e.err != nil {
			return 0, e.err
		}
		e.n = copy(e.buf[:], e.buf[e.dec:e.n])
		e.off, e.dec = 0, 0
		for e.n < aes.BlockSize && e.err == nil {
			var m int
			m, e.err = e.r.Read(e.buf[e.n:])
			e.n += m
		}
		if e.n < aes.BlockSize {
			if e.err == io.EOF && e.n > 0 {
				e.err = io.ErrUnexpectedEOF
			}
			return 0, e.err
		}
		e.dec = e.n - e.n%aes.BlockSize
		e.c.Decrypt(e.buf[:e.dec])
	}
	n := copy(p, e.buf[e.off:e.dec])
	e.off += n
	return n, nil
}
