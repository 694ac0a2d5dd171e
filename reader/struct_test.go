package reader_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// StructTags decodes a struct value stored as a tag list, and refuses bytes
// that are not exactly one.
func TestStructTags(t *testing.T) {
	b := fixture.New("Tags", reader.Version{File: 128, Licensee: 29}, fixture.DemoGUID)
	list := b.Props().Float("Min", 1).Float("Max", 2).Bytes()
	b.Export(b.Class("Engine", "Palette"), 0, "Pal", reader.RFPublic|reader.RFLoadContext, b.Palette(1))
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read("Tags.utx", data)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		value []byte
		tags  int
		err   string
	}{
		{"two floats", list, 2, ""},
		{"empty list", list[len(list)-1:], 0, ""},
		{"bytes after None", append(append([]byte(nil), list...), 0), 0, "ends after 13 of its 14 bytes"},
		{"no None", list[:len(list)-1], 0, "property name at value offset 12"},
		{"name out of range", []byte{0x3F}, 0, "name index 63 out of range"},
		{"no bytes", nil, 0, "property name at value offset 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := p.StructTags(c.value)
			if c.err == "" {
				if err != nil || len(l.Props) != c.tags || l.End != len(c.value) {
					t.Fatalf("%+v, %v", l, err)
				}
				return
			}
			var fe *reader.FormatError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &fe) || fe.Struct != "struct value" {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
		})
	}
}
