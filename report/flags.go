package report

// Flags is a flag word: the value as fixed-width hex and the names of the
// set bits.
type Flags struct {
	Value string   `json:"value" yaml:"value"`
	Names []string `json:"names" yaml:"names"`
}

// NewFlags describes the flag word v whose set bits have the given names.
func NewFlags(v uint32, names []string) Flags {
	if names == nil {
		names = []string{}
	}
	return Flags{Value: hex32(v), Names: names}
}

// hex32 formats a 32-bit value as fixed-width hex: 0x0007001f.
func hex32(v uint32) string { return hexPadded(uint64(v), 8) }

// hex64 formats a 64-bit value (a hash) as fixed-width hex.
func hex64(v uint64) string { return hexPadded(v, 16) }

// hexPadded formats v as 0x followed by digits lower-case hex digits; dumps
// call it for every row, so it avoids fmt.
func hexPadded(v uint64, digits int) string {
	var b [18]byte
	b[0], b[1] = '0', 'x'
	for i := digits + 1; i >= 2; i-- {
		b[i] = "0123456789abcdef"[v&0xf]
		v >>= 4
	}
	return string(b[:digits+2])
}
