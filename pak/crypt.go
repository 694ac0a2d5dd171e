package pak

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"io"
	"strings"
)

// Key is an AES-256 key as the engine uses it: the raw 32 bytes. It has
// the layout of iostore.Key, which converts to it: pak.Key(k).
type Key [32]byte

// String returns the key as 0x-prefixed upper-case hex.
func (k Key) String() string { return "0x" + strings.ToUpper(hex.EncodeToString(k[:])) }

// block returns the key's AES cipher.
func (k *Key) block() cipher.Block {
	b, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // unreachable: the key is always 32 bytes
	}
	return b
}

// decryptECB decrypts b in place with AES-256-ECB; len(b) must be a
// multiple of 16.
func decryptECB(c cipher.Block, b []byte) {
	for i := 0; i+aes.BlockSize <= len(b); i += aes.BlockSize {
		c.Decrypt(b[i:i+aes.BlockSize], b[i:i+aes.BlockSize])
	}
}

// encryptECB encrypts b in place with AES-256-ECB; len(b) must be a
// multiple of 16.
func encryptECB(c cipher.Block, b []byte) {
	for i := 0; i+aes.BlockSize <= len(b); i += aes.BlockSize {
		c.Encrypt(b[i:i+aes.BlockSize], b[i:i+aes.BlockSize])
	}
}

// ecbReader decrypts what it reads from r, whose length must be a multiple
// of 16: it hands out only whole decrypted AES blocks, and a partial block
// at the end is an io.ErrUnexpectedEOF.
type ecbReader struct {
	r        io.Reader
	c        cipher.Block
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
		decryptECB(e.c, e.buf[:e.dec])
	}
	n := copy(p, e.buf[e.off:e.dec])
	e.off += n
	return n, nil
}

// ctrStream returns the AES-CTR keystream of a UE 6.0 encryption unit
// (an index part or a file's stored bytes) from its 16-byte block number
// block on: the counter is the 12-byte IV followed by the block number as
// a big-endian uint32.
func ctrStream(c cipher.Block, iv [ivLen]byte, block uint32) cipher.Stream {
	var counter [aes.BlockSize]byte
	copy(counter[:], iv[:])
	binary.BigEndian.PutUint32(counter[ivLen:], block)
	return cipher.NewCTR(c, counter[:])
}
