package props

// This file finds where an FText ends, which tagged data gives by the tag
// and unversioned data does not: FText::Serialize as cooked data holds it
// (editor-only parts stripped).

import (
	"errors"
	"fmt"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// FText history types (ETextHistoryType).
const (
	textNone             = -1
	textBase             = 0
	textNamedFormat      = 1
	textOrderedFormat    = 2
	textArgumentFormat   = 3
	textAsNumber         = 4
	textAsPercent        = 5
	textAsCurrency       = 6
	textAsDate           = 7
	textAsTime           = 8
	textAsDateTime       = 9
	textTransform        = 10
	textStringTableEntry = 11
	textGenerator        = 12
)

// skipText moves past an FText: its uint32 flags, its int8 history type
// and the history's data: none, a culture-invariant string when a 4-byte
// bool says so; base, namespace, key and source strings; the format
// histories, the format text and its arguments (named: a count of string
// and value pairs; ordered: a count of values; argument data: a count of
// name and value pairs); as number, percent or currency, the currency
// code (currency only), the value, a 4-byte bool and the formatting
// options when set, the target culture; as date, time or date and time,
// the int64 ticks, the style bytes, the time zone and the culture;
// transform, the text and a byte; a string table entry, the table's name
// and the key string; a text generator without a generator.
func (d *decoder) skipText(c *binio.Cursor) error {
	if d.depth >= MaxDepth {
		return d.depthError(c.Pos())
	}
	d.depth++
	defer func() { d.depth-- }()
	at := c.Pos()
	c.U32("text flags")
	history := int8(c.U8("text history"))
	if c.Err() != nil {
		return d.fail(c)
	}
	str := func(what string) error {
		if _, err := d.fstring(c, what); err != nil && !errors.Is(err, errRaw) {
			return err
		}
		return nil
	}
	strs := func(what ...string) error {
		for _, w := range what {
			if err := str(w); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	switch history {
	case textNone:
		if bool32(c, "has culture-invariant string") {
			err = str("text")
		}
	case textBase:
		err = strs("text namespace", "text key", "text source string")
	case textNamedFormat, textOrderedFormat, textArgumentFormat:
		if err = d.skipText(c); err != nil {
			return err
		}
		cat := c.Pos()
		n := c.I32("format argument count")
		if c.Err() != nil {
			return d.fail(c)
		}
		if n < 0 || int64(n) > int64(c.Len()) {
			return d.errorAt(cat, "Text format with %d arguments; %d bytes left", n, c.Len())
		}
		for i := 0; i < int(n) && err == nil; i++ {
			if history != textOrderedFormat {
				if err = str("format argument name"); err != nil {
					return err
				}
			}
			err = d.skipFormatArgument(c)
		}
	case textAsNumber, textAsPercent, textAsCurrency:
		if history == textAsCurrency {
			if err = str("currency code"); err != nil {
				return err
			}
		}
		if err = d.skipFormatArgument(c); err != nil {
			return err
		}
		if bool32(c, "has format options") {
			// AlwaysSign and UseGrouping (4-byte bools), the rounding
			// mode (a byte), four int32 digit counts.
			c.Bytes(4+4+1+16, "number formatting options")
		}
		err = str("target culture")
	case textAsDate, textAsTime, textAsDateTime:
		c.Bytes(8, "date and time")
		c.U8("date or time style")
		if history == textAsDateTime {
			c.U8("time style")
		}
		err = strs("time zone", "target culture")
	case textTransform:
		if err = d.skipText(c); err != nil {
			return err
		}
		c.U8("text transform")
	case textStringTableEntry:
		c.Bytes(8, "string table name")
		err = str("string table key")
	case textGenerator:
		n, ok := d.name(c, "text generator type")
		if ok && !n.IsNone() {
			return d.noTextSchema(at, "a Text made by generator %s, whose data unrmod does not read", n.Text)
		}
	default:
		return d.noTextSchema(at, "Text with history %d, whose length unrmod cannot tell without tags", history)
	}
	if err != nil {
		return err
	}
	if c.Err() != nil {
		return d.fail(c)
	}
	return nil
}

// skipFormatArgument moves past an FFormatArgumentValue: an int8 type,
// then an int64 (Int), uint64 (UInt), float, double, a Text or a gender
// byte.
func (d *decoder) skipFormatArgument(c *binio.Cursor) error {
	at := c.Pos()
	t := int8(c.U8("format argument type"))
	if c.Err() != nil {
		return d.fail(c)
	}
	switch t {
	case 0, 1, 3:
		c.Bytes(8, "format argument")
	case 2:
		c.Bytes(4, "format argument")
	case 4:
		return d.skipText(c)
	case 5:
		c.U8("format argument gender")
	default:
		return d.errorAt(at, "Text format argument of type %d (the engine has 0 to 5)", t)
	}
	if c.Err() != nil {
		return d.fail(c)
	}
	return nil
}

// noTextSchema refuses a Text whose end cannot be told.
func (d *decoder) noTextSchema(at int, format string, args ...any) error {
	return &ue.FormatError{Struct: d.where(), Offset: int64(at), Err: fmt.Errorf("%w: %w", ErrNoSchema, ue.ErrCorrupt),
		Msg: fmt.Sprintf(format, args...)}
}
