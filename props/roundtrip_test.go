package props_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// TestCorpusDecodeEncode decodes the property list of every export of every
// tagged corpus package and encodes it back byte for byte. Exports that are
// classes, structs, functions or enums are counted apart: their list holds
// the type object's own properties, and the type's data follows as Rest.
func TestCorpusDecodeEncode(t *testing.T) {
	var pkgs, exports, types, properties, raw, custom, unversioned int
	kinds := map[string]int{}
	for _, cp := range corpusPackages(t) {
		p := cp.pkg
		if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
			unversioned++
			if _, err := zenprops.ContextFor(p, 0); !errors.Is(err, props.ErrUnversioned) {
				t.Errorf("%s: ContextFor: %v, want ErrUnversioned", cp.name, err)
			}
			continue
		}
		pkgs++
		for i := range p.Exports {
			ctx, err := zenprops.ContextFor(p, i)
			if err != nil {
				t.Fatal(err)
			}
			data := p.Exports[i].Data
			l, err := props.Decode(data, ctx)
			if class, ok := customClasses[p.Exports[i].Class]; ok {
				// No property list: the decoder must say so, not
				// invent one.
				custom++
				if err == nil {
					t.Errorf("%s export %d (%s, no property list): decoded %d properties", cp.name, i, class, len(l.Properties))
				} else if !errors.Is(err, zen.ErrCorrupt) {
					t.Errorf("%s export %d (%s): %v does not wrap ErrCorrupt", cp.name, i, class, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s export %d %s: %v", cp.name, i, p.ExportPath(i), err)
				continue
			}
			if isStructExport(p, i) {
				types++
			} else {
				exports++
			}
			properties += l.Count()
			walk(l, func(q *props.Property) {
				kinds[q.Type.Name.Text]++
				if q.Problem != "" {
					raw++
					t.Logf("%s export %d %s: %s (%s) kept raw: %s", cp.name, i, p.ExportName(i), q.Label(), q.Type, q.Problem)
				}
			})
			out, err := props.Encode(l, ctx)
			if err != nil || !bytes.Equal(out, data) {
				t.Errorf("%s export %d %s: encode: %v (%d bytes, want %d; first difference at %d)",
					cp.name, i, p.ExportPath(i), err, len(out), len(data), firstDiff(out, data))
			}
		}
	}
	t.Logf("%d tagged packages: %d object exports and %d class/struct/enum exports decoded and re-encoded byte for byte, %d properties (%d kept raw with a problem); %d exports of classes that write no property list refused; %d unversioned packages refused",
		pkgs, exports, types, properties, raw, custom, unversioned)
	t.Logf("property types: %v", kinds)
	if exports == 0 || properties == 0 {
		t.Error("nothing decoded")
	}
}

// walk calls fn for every property of l and of the structs and arrays in it.
func walk(l *props.List, fn func(*props.Property)) {
	for _, q := range l.Properties {
		fn(q)
		walkValue(q.Value, fn)
	}
}

func walkValue(v props.Value, fn func(*props.Property)) {
	switch x := v.(type) {
	case *props.Struct:
		if x.Tagged != nil {
			walk(x.Tagged, fn)
		}
	case *props.Array:
		for _, e := range x.Elements {
			walkValue(e.Value, fn)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
