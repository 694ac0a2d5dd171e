package ue

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrBadKey means an AES key given as text is not 32 bytes in any form
// ParseKey accepts: hex, 0x hex, base64 or 32 plain characters.
var ErrBadKey = errors.New("bad AES key")

// Key is an AES-256 key: the raw 32 bytes the engine uses, without a
// derivation step. Containers and paks take the same key.
type Key [32]byte

// ParseKey reads a key in one of the forms UnrealPak, FModel and CUE4Parse
// users pass around, tried in this order:
//
//   - 64 hex digits, with or without a 0x prefix;
//   - the base64 of 32 bytes (43 or 44 characters, standard or URL
//     alphabet, padded or not);
//   - 32 printable ASCII characters, used as the raw key bytes (e.g.
//     "CUE4ParseFixtureAESKey0123456789").
//
// Surrounding spaces are ignored. 32 hex digits are refused rather than
// taken as plain characters: they are a 16-byte key, most likely a
// truncated hex key. Errors wrap ErrBadKey.
func ParseKey(s string) (Key, error) {
	var k Key
	t := strings.TrimSpace(s)
	h := t
	if len(h) >= 2 && (h[:2] == "0x" || h[:2] == "0X") {
		h = h[2:]
	}
	if len(h) == 2*len(k) {
		if _, err := hex.Decode(k[:], []byte(h)); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding.Strict(), base64.URLEncoding.Strict(), base64.RawStdEncoding.Strict(), base64.RawURLEncoding.Strict()} {
		if b, err := enc.DecodeString(t); err == nil && len(b) == len(k) {
			copy(k[:], b)
			return k, nil
		}
	}
	hexOnly := isHexDigits(h)
	if hexOnly && len(h) == len(k) {
		return k, fmt.Errorf("%w: 32 hex digits is a 16-byte key, and IoStore keys are 32 bytes (64 hex digits); is the key cut short?", ErrBadKey)
	}
	if !hexOnly && len(t) == len(k) && isPrintableASCII(t) {
		copy(k[:], t)
		return k, nil
	}
	got := fmt.Sprintf("%d characters", utf8.RuneCountInString(t))
	if hexOnly {
		got = fmt.Sprintf("%d hex digits", len(h))
	}
	return k, fmt.Errorf("%w: want 64 hex digits (optionally 0x-prefixed), base64 of 32 bytes or 32 printable ASCII characters, got %s", ErrBadKey, got)
}

// isHexDigits reports whether s is non-empty and all hex digits.
func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// isPrintableASCII reports whether every byte of s is a printable ASCII
// character (space to tilde).
func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// String returns the key as 0x-prefixed hex.
func (k Key) String() string { return "0x" + strings.ToUpper(hex.EncodeToString(k[:])) }

// ECB is AES-256 in ECB mode, the cipher of IoStore containers and paks:
// each 16-byte block is encrypted on its own. The zero ECB is not usable;
// make one with NewECB.
type ECB struct{ block cipher.Block }

// NewECB returns the cipher of key k.
func NewECB(k Key) ECB {
	b, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // unreachable: the key is always 32 bytes
	}
	return ECB{b}
}

// Block returns the AES block cipher itself, for the modes built on it
// (UE 6.0 paks encrypt with AES-CTR).
func (e ECB) Block() cipher.Block { return e.block }

// IVSize is the length of a UE 6.0 AES-CTR IV (FIoStoreEncryptionIV):
// the first 12 bytes of the counter block.
const IVSize = 12

// CTR returns the AES-CTR keystream UE 6.0 encrypts one unit with (a pak
// index part or file, an IoStore compression block or directory index),
// starting at the unit's 16-byte block number block: the counter block is
// the 12-byte IV followed by the block number as a big-endian uint32, so
// each unit's stream starts at counter 0 and runs independently of the
// others.
func (e ECB) CTR(iv [IVSize]byte, block uint32) cipher.Stream {
	var counter [aes.BlockSize]byte
	copy(counter[:], iv[:])
	binary.BigEndian.PutUint32(counter[IVSize:], block)
	return cipher.NewCTR(e.block, counter[:])
}

// Decrypt decrypts the whole 16-byte blocks of b in place; callers give
// a length that is a multiple of 16.
func (e ECB) Decrypt(b []byte) {
	for i := 0; i+aes.BlockSize <= len(b); i += aes.BlockSize {
		e.block.Decrypt(b[i:i+aes.BlockSize], b[i:i+aes.BlockSize])
	}
}

// Encrypt encrypts the whole 16-byte blocks of b in place; callers give
// a length that is a multiple of 16.
func (e ECB) Encrypt(b []byte) {
	for i := 0; i+aes.BlockSize <= len(b); i += aes.BlockSize {
		e.block.Encrypt(b[i:i+aes.BlockSize], b[i:i+aes.BlockSize])
	}
}

// EncryptECB encrypts b in place with AES-256-ECB, as the engine encrypts
// padded blocks and the directory index; len(b) must be a multiple of 16.
// It exists for writers and test builders.
func EncryptECB(k Key, b []byte) error {
	if len(b)%aes.BlockSize != 0 {
		return fmt.Errorf("AES-ECB: %d bytes is not a multiple of 16", len(b))
	}
	NewECB(k).Encrypt(b)
	return nil
}
