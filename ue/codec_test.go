package ue_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/ue"
)

// xorCodec is a stand-in for a codec loaded at run time (Oodle): it
// "compresses" by xoring every byte, so any table that lacks it cannot
// read what it wrote.
func xorCodec(name string) ue.Codec {
	return ue.Codec{
		Name: name,
		Decompress: func(dst, src []byte) error {
			if len(src) != len(dst) {
				return errors.New("size")
			}
			for i, b := range src {
				dst[i] = b ^ 0x5A
			}
			return nil
		},
		NewCompressor: func(int) ue.Compressor {
			return func(dst, src []byte) ([]byte, error) {
				dst = dst[:0]
				for _, b := range src {
					dst = append(dst, b^0x5A)
				}
				return dst, nil
			}
		},
	}
}

// TestCodecsBuiltins encodes and decodes a block with each built-in
// method, in memory and as a stream, under any spelling of its name.
func TestCodecsBuiltins(t *testing.T) {
	data := bytes.Repeat([]byte("a block of cooked data, "), 400)
	var nilCodecs *ue.Codecs
	for _, name := range []string{"Zlib", "zlib", "GZIP", "LZ4", "lz4"} {
		t.Run(name, func(t *testing.T) {
			for _, c := range []*ue.Codecs{nilCodecs, ue.NewCodecs()} {
				codec, ok := c.Lookup(name)
				if !ok || !strings.EqualFold(codec.Name, name) || !c.CanDecode(name) {
					t.Fatalf("Lookup(%q) = %q, %v", name, codec.Name, ok)
				}
				if got := c.Canonical(name); got != codec.Name {
					t.Errorf("Canonical(%q) = %q", name, got)
				}
				packed, err := codec.NewCompressor(ue.BestSpeed)(nil, data)
				if err != nil || len(packed) >= len(data) {
					t.Fatalf("compress: %d bytes, %v", len(packed), err)
				}
				out := make([]byte, len(data), len(data)+ue.DecompressSlack)
				if err := codec.Decompress(out, packed); err != nil || !bytes.Equal(out, data) {
					t.Fatalf("decompress: %v", err)
				}
				if err := codec.Decompress(out[:len(data)-1], packed); err == nil {
					t.Errorf("decompress into a block one byte short: no error")
				}
				if codec.NewReader != nil {
					r, err := codec.NewReader(bytes.NewReader(packed))
					if err != nil {
						t.Fatal(err)
					}
					got, err := io.ReadAll(r)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("stream: %d bytes, %v", len(got), err)
					}
				}
			}
		})
	}
	for _, none := range []string{"", "None", "none"} {
		codec, ok := nilCodecs.Lookup(none)
		if !ok || codec.Name != "None" || !ue.IsNone(none) {
			t.Errorf("Lookup(%q) = %q, %v", none, codec.Name, ok)
		}
	}
}

// TestCodecsRegister adds a method the built-ins lack and replaces a
// built-in one, and checks that only the table it was added to knows it.
func TestCodecsRegister(t *testing.T) {
	c := ue.NewCodecs()
	if c.CanDecode("Oodle") {
		t.Fatal("the built-in table decodes Oodle")
	}
	if codec, ok := c.Lookup("Oodle"); ok || codec.Name != "Oodle" || codec.Decompress != nil {
		t.Fatalf("Lookup(Oodle) = %+v, %v", codec.Name, ok)
	}
	c.Register(xorCodec("Oodle"))
	codec, ok := c.Lookup("oodle")
	if !ok || codec.Name != "Oodle" || !c.CanDecode("OODLE") || c.Canonical("oodle") != "Oodle" {
		t.Fatalf("after Register: Lookup = %q, %v", codec.Name, ok)
	}
	if ue.NewCodecs().CanDecode("Oodle") || (*ue.Codecs)(nil).CanDecode("Oodle") {
		t.Error("Register changed another table")
	}
	c.Register(xorCodec("Zlib"))
	packed, _ := func() ([]byte, error) { z, _ := c.Lookup("zlib"); return z.NewCompressor(0)(nil, []byte("abc")) }()
	if string(packed) != "\x3b\x38\x39" {
		t.Errorf("a registered Zlib does not replace the built-in one: %q", packed)
	}
	if z, _ := ue.NewCodecs().Lookup("Zlib"); z.DecompressUnchecked == nil {
		t.Error("the built-in Zlib lost its decoder")
	}
}
