package uasset

import (
	"hash/crc32"
	"unicode"
	"unicode/utf16"
)

// NameHashes returns the two 16-bit hashes the name map stores beside a
// name (UE4 504 and later): the low 16 bits of the engine's deprecated
// case-insensitive CRC over the upper-cased text, and of the standard
// CRC-32 over the text as 32-bit characters. Names the engine stores as
// UTF-16 hash their 16-bit units, two bytes each, for the first.
// Checked against every name map entry of the corpus (see
// docs/cooked-assets.md, "Name map").
func NameHashes(s string) (nonCase, caseHash uint16) {
	wide := !isASCII(s)
	var h uint32
	for _, u := range utf16.Encode([]rune(s)) {
		c := u
		if c < 0x80 || wide {
			c = uint16(unicode.ToUpper(rune(c)))
		}
		h = (h >> 8) ^ crcTableMSB[byte(h)^byte(c)]
		if wide {
			h = (h >> 8) ^ crcTableMSB[byte(h)^byte(c>>8)]
		}
	}
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return uint16(h), uint16(crc32.ChecksumIEEE(b))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// crcTableMSB is the CRC table of polynomial 0x04C11DB7 computed
// most-significant bit first, which the engine's deprecated string hash
// indexes as if it were the reflected one.
var crcTableMSB = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// NewName returns a name map entry for s with its hashes filled in, as
// the engine writes them; append it to Package.Names to add a name (or use
// Package.NewName, which follows the package's own map).
func NewName(s string) Name {
	n := Name{Value: s}
	n.NonCaseHash, n.CaseHash = NameHashes(s)
	return n
}

// NewName returns a name map entry for s as p's map stores its names: with
// its hashes, or with none when every name of the map has none (a map
// saved without hashes, as UE5 cooks write it; the engine computes them
// when it loads), so that the new entry does not stand out in the map.
func (p *Package) NewName(s string) Name {
	if len(p.Names) > 0 && p.namesUnhashed() {
		return Name{Value: s}
	}
	return NewName(s)
}

// namesUnhashed reports whether no name of p's map has a stored hash (a
// map saved without hashes, which the engine computes when it loads).
func (p *Package) namesUnhashed() bool {
	for _, n := range p.Names {
		if n.NonCaseHash != 0 || n.CaseHash != 0 {
			return false
		}
	}
	return true
}
