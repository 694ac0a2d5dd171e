package zen

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/binio"
)

// This file holds the name batches of zen packages and container headers
// (docs/zen.md, "Name batches"): a 2-byte header per name (bit 7 of the
// first byte: UTF-16; 15 bits of length in characters), the text without a
// terminator, and a hash list that starts with cityhash.NameHashAlgorithmID.
// 4.2x stores names and hashes as two blobs ("interleaved": header then
// text, name after name); UE5 stores one "separated" batch: count, string
// bytes, algorithm id, hashes, headers, then all the text.

// MappedName is an FMappedName: IndexAndType holds the name index in bits
// 0–29 and the name-map type in bits 30–31 (0 package, 1 container, 2
// global); Number is the FName number (0: no suffix, n: suffix "_<n-1>").
type MappedName struct {
	IndexAndType uint32 `json:"index_and_type"`
	Number       uint32 `json:"number"`
}

// Index returns the name's index in its name map (bits 0–29).
func (n MappedName) Index() uint32 { return n.IndexAndType & 0x3FFFFFFF }

// MapType returns the name map the index refers to: 0 the package's, 1 the
// container's, 2 the global one.
func (n MappedName) MapType() uint32 { return n.IndexAndType >> 30 }

// MaxNameLength is the longest name the 15-bit length of a name header can
// hold, in UTF-16 units. The engine itself allows fewer (NAME_SIZE, 1024
// characters with the terminator); patch operations check that limit.
const MaxNameLength = 0x7FFF

// nameHeader reads a 2-byte name header.
func nameHeader(b0, b1 byte) (wide bool, chars int) {
	return b0&0x80 != 0, int(b0&0x7F)<<8 | int(b1)
}

// nameString converts stored name text: UTF-16LE when wide, else one byte
// per character (Latin-1).
func nameString(b []byte, wide bool) string {
	if wide {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u))
	}
	return binio.Latin1(b)
}

// decodeNameBlob decodes a 4.2x names blob (interleaved batch) that starts
// at position at: per name a 2-byte header, a zero byte before UTF-16 text
// that would start at an odd position, then the text.
func decodeNameBlob(c *binio.Cursor, b []byte, at int) []string {
	var names []string
	for p := 0; p < len(b); {
		if len(b)-p < 2 {
			c.FailAt(at+p, fmt.Sprintf("name %d", len(names)), fmt.Errorf("header truncated"))
			return nil
		}
		wide, n := nameHeader(b[p], b[p+1])
		p += 2
		if wide && p%2 == 1 {
			p++
		}
		size := n
		if wide {
			size = 2 * n
		}
		if size > len(b)-p {
			c.FailAt(at+p, fmt.Sprintf("name %d", len(names)), fmt.Errorf("%d characters run past the end of the names blob", n))
			return nil
		}
		names = append(names, nameString(b[p:p+size], wide))
		p += size
	}
	return names
}

// decodeNameBatch decodes a UE5 name batch (separated format): uint32 count;
// if non-zero, uint32 string bytes, uint64 hash algorithm id, the hashes, the
// 2-byte headers, then the text of all names. It returns the names with the
// hashes and algorithm id as stored.
func decodeNameBatch(c *binio.Cursor, what string) (names []string, hashes []uint64, algorithm uint64) {
	at := c.Pos()
	n := c.U32(what + " count")
	if c.Err() != nil || n == 0 {
		return nil, nil, 0
	}
	strBytes := c.U32(what + " string bytes")
	algorithm = c.U64(what + " hash algorithm id")
	if c.Err() != nil {
		return nil, nil, 0
	}
	if need := 10*uint64(n) + uint64(strBytes); need > uint64(c.Len()) {
		c.FailAt(at, what, fmt.Errorf("%d names with %d string bytes need %d bytes, %d left",
			n, strBytes, need, c.Len()))
		return nil, nil, 0
	}
	hb := c.Bytes(8*int(n), what)
	hashes = make([]uint64, n)
	for i := range hashes {
		hashes[i] = binary.LittleEndian.Uint64(hb[8*i:])
	}
	headers := c.Bytes(2*int(n), what)
	textAt := c.Pos()
	text := c.Bytes(int(strBytes), what)
	names = make([]string, n)
	p := 0
	for i := range names {
		wide, l := nameHeader(headers[2*i], headers[2*i+1])
		size := l
		if wide {
			size = 2 * l
		}
		if size > len(text)-p {
			c.FailAt(textAt+p, fmt.Sprintf("%s name %d", what, i),
				fmt.Errorf("%d characters run past the %d string bytes of the batch", l, strBytes))
			return nil, nil, 0
		}
		names[i] = nameString(text[p:p+size], wide)
		p += size
	}
	return names, hashes, algorithm
}

// nameParts returns how a name is stored: UTF-16LE when it has a character
// above 0x7F, else one byte per character; chars counts the characters
// (UTF-16 units) for the 2-byte name header.
func nameParts(name string) (wide bool, text []byte, chars int) {
	if !cityhash.IsWideName(name) {
		return false, []byte(name), len(name)
	}
	u := utf16.Encode([]rune(name))
	text = make([]byte, 2*len(u))
	for i, x := range u {
		binary.LittleEndian.PutUint16(text[2*i:], x)
	}
	return true, text, len(u)
}

func appendNameHeader(dst []byte, wide bool, chars int) []byte {
	b0 := byte(chars >> 8)
	if wide {
		b0 |= 0x80
	}
	return append(dst, b0, byte(chars))
}

// nameLength returns the length of name in the units of a name header.
func nameLength(name string) int {
	if cityhash.IsWideName(name) {
		return len(utf16.Encode([]rune(name)))
	}
	return len(name)
}

// checkNames refuses names too long for a name header; prefix starts the
// structure named in the error, e.g. "container header ".
func checkNames(names []string, prefix string) error {
	for i, n := range names {
		if l := nameLength(n); l > MaxNameLength {
			return encodeError(fmt.Sprintf("%sname %d", prefix, i), "%d characters exceed the 15-bit length of a name header", l)
		}
	}
	return nil
}

// encodeError builds the error of a model an encoder cannot write.
func encodeError(structure, format string, args ...any) error {
	return errorf("", structure, -1, ErrNotEncodable, format, args...)
}

// appendNameBlob appends a 4.2x names blob (interleaved batch); start is
// the position of the blob in its chunk, which decides the alignment pad
// before UTF-16 text.
func appendNameBlob(dst []byte, names []string, start int) []byte {
	for _, n := range names {
		wide, text, chars := nameParts(n)
		dst = appendNameHeader(dst, wide, chars)
		if wide && (len(dst)-start)%2 == 1 {
			dst = append(dst, 0)
		}
		dst = append(dst, text...)
	}
	return dst
}

// appendNameHashes appends the algorithm id and one hash per name.
func appendNameHashes(dst []byte, names []string) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, cityhash.NameHashAlgorithmID)
	for _, n := range names {
		dst = binary.LittleEndian.AppendUint64(dst, cityhash.NameHash(n))
	}
	return dst
}

// appendNameBlobs writes the UE4 container header's Names (interleaved
// batch) and NameHashes byte arrays, each with its int32 size.
func appendNameBlobs(dst []byte, names []string) ([]byte, error) {
	if err := checkNames(names, "container header "); err != nil {
		return nil, err
	}
	blob := appendNameBlob(nil, names, 0)
	if len(blob) > math.MaxInt32 {
		return nil, encodeError("container header names", "%d bytes exceed the format's int32 size", len(blob))
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(blob)))
	dst = append(dst, blob...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(8+8*len(names)))
	return appendNameHashes(dst, names), nil
}

// appendNameBatch writes a UE5 name batch (separated format); prefix and
// what name it in errors (e.g. "container header ", "redirects name map").
func appendNameBatch(dst []byte, names []string, prefix, what string) ([]byte, error) {
	if err := checkNames(names, prefix); err != nil {
		return nil, err
	}
	what = prefix + what
	le := binary.LittleEndian
	if len(names) > math.MaxInt32 {
		return nil, encodeError(what, "%d names exceed the format's count", len(names))
	}
	dst = le.AppendUint32(dst, uint32(len(names)))
	if len(names) == 0 {
		return dst, nil
	}
	var text, headers []byte
	for _, name := range names {
		wide, t, chars := nameParts(name)
		headers = appendNameHeader(headers, wide, chars)
		text = append(text, t...)
	}
	if len(text) > math.MaxUint32 {
		return nil, encodeError(what, "%d string bytes exceed the format's limit", len(text))
	}
	dst = le.AppendUint32(dst, uint32(len(text)))
	dst = appendNameHashes(dst, names)
	dst = append(dst, headers...)
	return append(dst, text...), nil
}

func appendMappedName(dst []byte, n MappedName) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, n.IndexAndType)
	return binary.LittleEndian.AppendUint32(dst, n.Number)
}
