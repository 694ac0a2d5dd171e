package patch

import (
	"math"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// writerTag returns the tag header for a property, keeping an existing
// tag's name index, struct name and array index.
func writerTag(c *legacyContext, name string, typ reader.PropertyType, index int, q *reader.Property) writer.PropertyTag {
	if q != nil {
		return writer.PropertyTag{Name: q.Name, Type: q.Type, StructName: q.StructName, ArrayIndex: q.ArrayIndex}
	}
	return writer.PropertyTag{Name: c.addName(name), Type: typ, ArrayIndex: index}
}

func appendTag(t writer.PropertyTag, value []byte) ([]byte, error) {
	return writer.AppendPropertyTag(nil, t, value)
}

// formatValue shows a stored property value.
func (c *legacyContext) formatValue(i int, q *reader.Property) string {
	v, err := c.p.PropertyValue(i, q)
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return c.p.FormatValue(v)
}

// encodeValue turns the patch's value text into the bytes of a property of
// type typ, and returns how to show it.
func (c *legacyContext) encodeValue(op *SetProperty, typ reader.PropertyType) ([]byte, string, error) {
	s := op.Value
	bad := func(want string) ([]byte, string, error) {
		return nil, "", errorf(op.valuePos, "%s is a %s property: %q is not %s", op.Property, strings.ToLower(typ.String()), s, want)
	}
	switch typ {
	case reader.PropInt:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 0, 32)
		if err != nil {
			return bad("a 32-bit integer")
		}
		return binio.AppendI32(nil, int32(v)), strconv.FormatInt(v, 10), nil
	case reader.PropFloat:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return bad("a finite number")
		}
		f := float32(v)
		return binio.AppendU32(nil, math.Float32bits(f)), strconv.FormatFloat(float64(f), 'g', -1, 32), nil
	case reader.PropByte:
		v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 8)
		if err != nil {
			return bad("a byte (0 to 255)")
		}
		return []byte{byte(v)}, strconv.FormatUint(v, 10), nil
	case reader.PropBool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "on", "1":
			return []byte{1}, "True", nil
		case "false", "no", "off", "0":
			return []byte{0}, "False", nil
		}
		return bad("true or false")
	case reader.PropName:
		if c.findName(s) < 0 {
			if err := checkName(op.valuePos, s); err != nil {
				return nil, "", err
			}
		}
		return binio.AppendIndex(nil, int32(c.addName(s))), s, nil
	case reader.PropStr:
		if !binio.IsLatin1(s) && c.p.Header.Version.File < reader.VerUE2 {
			return nil, "", errorf(op.valuePos, "%q has characters outside Latin-1; Unreal Engine 1 packages store 8-bit text only", s)
		}
		return binio.AppendFString(nil, s), strconv.Quote(s), nil
	case reader.PropObject:
		if strings.EqualFold(strings.TrimSpace(s), "None") || strings.TrimSpace(s) == "" {
			return binio.AppendIndex(nil, 0), "None", nil
		}
		r, err := c.resolve(op.valuePos, s, true, true)
		if err != nil {
			return nil, "", err
		}
		return binio.AppendIndex(nil, int32(r)), describe(c.p, r), nil
	}
	return nil, "", errorf(op.Pos, "%s is a %s property; set-property edits int, float, bool, byte, name, str and object properties",
		op.Property, typ)
}
