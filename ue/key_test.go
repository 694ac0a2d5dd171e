package ue_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/ue"
)

// tcFixtureKey is the AES key of the CUE4Parse fixture containers, given
// as its 32 plain characters.
const tcFixtureKey = "CUE4ParseFixtureAESKey0123456789"

// TestParseKey checks the accepted key spellings and the refusals.
func TestParseKey(t *testing.T) {
	want := ue.Key([]byte(tcFixtureKey))
	hexKey := fmt.Sprintf("%X", want[:])
	punct := "!\"#$%&'()*+,-./0123456789:;<=> ?" // 32 printable characters, a space among them
	for _, tt := range []struct {
		in   string
		want ue.Key
	}{
		{hexKey, want},
		{"0x" + hexKey, want},
		{strings.ToLower(hexKey), want},
		{" 0X" + hexKey + "\n", want},
		{"Q1VFNFBhcnNlRml4dHVyZUFFU0tleTAxMjM0NTY3ODk=", want},
		{"Q1VFNFBhcnNlRml4dHVyZUFFU0tleTAxMjM0NTY3ODk", want},
		{tcFixtureKey, want},
		{"\t" + tcFixtureKey + " \r\n", want},
		{punct, ue.Key([]byte(punct))},
		{"0x" + strings.Repeat("g", 30), ue.Key([]byte("0x" + strings.Repeat("g", 30)))},
	} {
		k, err := ue.ParseKey(tt.in)
		if err != nil || k != tt.want {
			t.Errorf("ParseKey(%q) = %v, %v; want %v", tt.in, k, err, tt.want)
		}
	}
	const forms = "want 64 hex digits (optionally 0x-prefixed), base64 of 32 bytes or 32 printable ASCII characters"
	const short = "32 hex digits is a 16-byte key, and IoStore keys are 32 bytes (64 hex digits)"
	for _, tt := range []struct {
		in, msg string
	}{
		{"", forms + ", got 0 characters"},
		{"0x", forms + ", got 2 characters"},
		{"0x1234", forms + ", got 4 hex digits"},
		{hexKey[:32], short},
		{strings.ToLower(hexKey[:32]), short},
		{"0x" + hexKey[:32], short},
		{" 0X" + hexKey[32:] + " ", short},
		{"0x" + hexKey[:30], forms + ", got 30 hex digits"},
		{hexKey[:62], forms + ", got 62 hex digits"},
		{hexKey[:63], forms + ", got 63 hex digits"},
		{hexKey + "00", forms + ", got 66 hex digits"},
		{"zz" + hexKey[2:], forms + ", got 64 characters"},
		{"not base64!", forms + ", got 11 characters"},
		{tcFixtureKey[:31], forms + ", got 31 characters"},
		{tcFixtureKey + "X", forms + ", got 33 characters"},
		{tcFixtureKey[:16] + "\t" + tcFixtureKey[17:], forms + ", got 32 characters"},
		{strings.Repeat("é", 16), forms + ", got 16 characters"},
		{strings.Repeat("é", 32), forms + ", got 32 characters"},
	} {
		_, err := ue.ParseKey(tt.in)
		if !errors.Is(err, ue.ErrBadKey) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseKey(%q): %v; want %q", tt.in, err, tt.msg)
		}
	}
	if got := want.String(); got != "0x"+hexKey {
		t.Errorf("String %q", got)
	}
}

// TestECB checks the cipher against the AES-256 example of FIPS-197
// (appendix C.3) and that Decrypt undoes Encrypt block by block.
func TestECB(t *testing.T) {
	var k ue.Key
	for i := range k {
		k[i] = byte(i)
	}
	plain := []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	want := []byte{0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89}
	b := append(append([]byte(nil), plain...), plain...)
	if err := ue.EncryptECB(k, b); err != nil {
		t.Fatal(err)
	}
	if string(b[:16]) != string(want) || string(b[16:]) != string(want) {
		t.Fatalf("EncryptECB = %x, want %x twice", b, want)
	}
	ue.NewECB(k).Decrypt(b)
	if string(b[:16]) != string(plain) || string(b[16:]) != string(plain) {
		t.Errorf("Decrypt = %x", b)
	}
	if err := ue.EncryptECB(k, make([]byte, 17)); err == nil {
		t.Error("EncryptECB of 17 bytes: no error")
	}
}

// TestCTR checks the UE 6.0 counter layout: the keystream at block n is
// AES of the 12-byte IV followed by n as a big-endian uint32, so a stream
// started at block 1 is the block-0 stream without its first 16 bytes,
// and the keystream's first block is the ECB encryption of IV ‖ 0.
func TestCTR(t *testing.T) {
	var k ue.Key
	for i := range k {
		k[i] = byte(i)
	}
	c := ue.NewECB(k)
	iv := [ue.IVSize]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, tt := range []struct {
		name  string
		block uint32
		skip  int
	}{{"from block 0", 0, 0}, {"from block 1", 1, 16}, {"from block 3", 3, 48}} {
		zero := make([]byte, 80)
		c.CTR(iv, 0).XORKeyStream(zero, zero)
		got := make([]byte, 80-tt.skip)
		c.CTR(iv, tt.block).XORKeyStream(got, got)
		if string(got) != string(zero[tt.skip:]) {
			t.Errorf("%s: %x, want %x", tt.name, got, zero[tt.skip:])
		}
	}
	counter := make([]byte, 16)
	copy(counter, iv[:])
	counter[15] = 2 // block 2, big-endian
	if err := ue.EncryptECB(k, counter); err != nil {
		t.Fatal(err)
	}
	ks := make([]byte, 48)
	c.CTR(iv, 0).XORKeyStream(ks, ks)
	if string(ks[32:]) != string(counter) {
		t.Errorf("keystream block 2 = %x, want ECB(IV ‖ 00000002) = %x", ks[32:], counter)
	}
	// The highest block number a unit reaches (64 GiB into it) is still
	// the IV followed by the number.
	a := make([]byte, 16)
	c.CTR(iv, 0xFFFFFFFF).XORKeyStream(a, a)
	last := make([]byte, 16)
	copy(last, iv[:])
	last[12], last[13], last[14], last[15] = 0xFF, 0xFF, 0xFF, 0xFF
	ue.NewECB(k).Encrypt(last)
	if string(a) != string(last) {
		t.Errorf("block 0xFFFFFFFF = %x, want %x", a, last)
	}
}

// BenchmarkCipher64K decrypts a 64 KiB compression block with AES-ECB (the
// baseline, what containers before UE 6.0 use) and with AES-CTR.
func BenchmarkCipher64K(b *testing.B) {
	var k ue.Key
	c := ue.NewECB(k)
	buf := make([]byte, 64<<10)
	var iv [ue.IVSize]byte
	b.Run("ECB", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			c.Decrypt(buf)
		}
	})
	b.Run("CTR", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			c.CTR(iv, 0).XORKeyStream(buf, buf)
		}
	})
}
