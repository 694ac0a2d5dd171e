package reader_test

import (
	"errors"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/reader"
)

// FuzzValues decodes and formats every property value, every class's
// default properties and every struct member of arbitrary packages: none of
// it may panic, and errors name the file.
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
				}
			}
			_ = p.ClassLineage(i)
		}
	})
}
