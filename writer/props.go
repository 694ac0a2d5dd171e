package writer

import (
	"encoding/binary"
	"fmt"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
)

// PropertyTag is the header of one tagged property, as UE1/UE2 write it.
type PropertyTag struct {
	Name       reader.NameRef
	Type       reader.PropertyType
	StructName reader.NameRef // only for reader.PropStruct
	ArrayIndex int            // 0 for element 0 or a single value
	Bool       bool           // the value of a Bool property
}

// SizeCode returns the size code the engine uses for a value of size bytes:
// 1, 2, 4, 12 and 16 have their own codes; other sizes store the size in a
// BYTE (code 5), WORD (6) or INT (7) after the info byte.
func SizeCode(size int) byte {
	switch size {
	case 1:
		return 0
	case 2:
		return 1
	case 4:
		return 2
	case 12:
		return 3
	case 16:
		return 4
	}
	switch {
	case size <= 0xFF:
		return 5
	case size <= 0xFFFF:
		return 6
	}
	return 7
}

// AppendPropertyTag appends a property tag followed by its value in the
// engine's encoding. Bool properties carry their value in the tag (size code
// 5 with a zero size byte, as the engine writes them) and take no value bytes.
func AppendPropertyTag(dst []byte, t PropertyTag, value []byte) ([]byte, error) {
	if t.ArrayIndex < 0 || t.ArrayIndex >= 1<<30 {
		return dst, fmt.Errorf("array index %d out of range", t.ArrayIndex)
	}
	if t.Type == reader.PropBool {
		if len(value) != 0 {
			return dst, fmt.Errorf("bool properties have no value bytes")
		}
		if t.ArrayIndex != 0 {
			return dst, fmt.Errorf("UE1/UE2 have no bool arrays: bit 7 of a bool tag is its value")
		}
		info := byte(reader.PropBool) | 5<<4
		if t.Bool {
			info |= 0x80
		}
		dst = binio.AppendIndex(dst, int32(t.Name))
		return append(dst, info, 0), nil
	}
	code := SizeCode(len(value))
	info := byte(t.Type) | code<<4
	if t.ArrayIndex != 0 {
		info |= 0x80
	}
	dst = binio.AppendIndex(dst, int32(t.Name))
	dst = append(dst, info)
	if t.Type == reader.PropStruct {
		dst = binio.AppendIndex(dst, int32(t.StructName))
	}
	switch code {
	case 5:
		dst = append(dst, byte(len(value)))
	case 6:
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(value)))
	case 7:
		dst = binio.AppendI32(dst, int32(len(value)))
	}
	if t.ArrayIndex != 0 {
		switch i := t.ArrayIndex; {
		case i < 0x80:
			dst = append(dst, byte(i))
		case i < 0x4000:
			dst = append(dst, byte(i>>8)|0x80, byte(i))
		default:
			dst = append(dst, byte(i>>24)|0xC0, byte(i>>16), byte(i>>8), byte(i))
		}
	}
	return append(dst, value...), nil
}
