package iostore

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Key is an AES-256 key: the raw 32 bytes the engine uses, without a
// derivation step.
type Key [32]byte

// ParseKey reads a key as 64 hex digits (with or without a 0x prefix) or
// as the base64 of 32 bytes, the forms UnrealPak, FModel and CUE4Parse use.
// Surrounding spaces are ignored.
func ParseKey(s string) (Key, error) {
	var k Key
	t := strings.TrimSpace(s)
	h := t
	if len(h) >= 2 && (h[:2] == "0x" || h[:2] == "0X") {
		h = h[2:]
	}
	if len(h) == 64 {
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
	return k, fmt.Errorf("%w: want 64 hex digits (optionally 0x-prefixed) or base64 of 32 bytes, got %d characters", ErrBadKey, len(t))
}

// String returns the key as 0x-prefixed hex.
func (k Key) String() string { return "0x" + strings.ToUpper(hex.EncodeToString(k[:])) }

// ecb decrypts AES-256-ECB, the cipher of IoStore containers.
type ecb struct{ block cipher.Block }

func newECB(k Key) ecb {
	b, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // unreachable: the key is always 32 bytes
	}
	return ecb{b}
}

// decrypt decrypts b in place; len(b) must be a multiple of 16.
func (e ecb) decrypt(b []byte) {
	for i := 0; i+aes.BlockSize <= len(b); i += aes.BlockSize {
		e.block.Decrypt(b[i:i+aes.BlockSize], b[i:i+aes.BlockSize])
	}
}

// encrypt encrypts b in place; len(b) must be a multiple of 16. Tests and
// builders use it.
func (e ecb) encrypt(b []byte) {
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
	newECB(k).encrypt(b)
	return nil
}
