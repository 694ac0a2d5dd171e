package reader_test

import (
	"errors"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/reader"
)

// FuzzValues decodes and formats every property value, every class's
// default properties and every struct member of arbitrary packages, and
// finds every member StructFields shows with StructMember: none of it may
// panic, errors name the file, and each member's span lies in its value.
//
//	go test ./reader -run '^$' -fuzz FuzzValues -fuzztime 60s
func FuzzValues(f *testing.F) {
	for _, b := range fuzzSeeds() {
		f.Add(b)
	}
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		p, err := reader.Read(fuzzFile, data)
		if err != nil {
			return
		}
		for i := range p.Exports {
			l, err := p.Properties(i)
			if errors.Is(err, reader.ErrNoPropertyList) {
				l, err = p.ClassDefaults(i)
				var fe *reader.FormatError
				if err != nil && (!errors.As(err, &fe) || fe.File != fuzzFile) {
					t.Fatalf("ClassDefaults error %T %v", err, err)
				}
			}
			if err != nil {
				continue
			}
			if l.End > len(p.Exports[i].Data) || l.Start > l.End {
				t.Fatalf("list %d..%d of %d bytes", l.Start, l.End, len(p.Exports[i].Data))
			}
			for k := range l.Props {
				v, err := p.PropertyValue(i, &l.Props[k])
				if err != nil {
					continue
				}
				_ = p.FormatValue(v)
				if fields, ok := p.StructFields(v); ok {
					_ = p.FormatFields(fields)
					checkMembers(t, p, v, fields, nil)
				}
			}
			_ = p.ClassLineage(i)
		}
	})
}

// checkMembers finds every member of fields (below path) with StructMember:
// its span must lie inside the struct's bytes; a member that is not there
// must be refused with ErrNoMember.
func checkMembers(t *testing.T, p *reader.Package, v reader.Value, fields []reader.StructField, path []string) {
	for _, f := range fields {
		if f.Index != 0 {
			continue
		}
		at := append(append([]string(nil), path...), f.Name)
		s, err := p.StructMember(v, at)
		if err != nil {
			continue // a name two members share, or a layout read only one way
		}
		if s.Offset < 0 || s.Size < 0 || s.Offset+s.Size > len(v.Raw) {
			t.Fatalf("member %v: span %d+%d outside the %d bytes of the struct", at, s.Offset, s.Size, len(v.Raw))
		}
		if len(f.Fields) > 0 && len(at) < 4 {
			checkMembers(t, p, v, f.Fields, at)
		}
	}
	if _, err := p.StructMember(v, append(append([]string(nil), path...), "NoSuchMember\x00")); !errors.Is(err, reader.ErrNoMember) {
		t.Fatalf("a member that is not there: %v, want ErrNoMember", err)
	}
}
