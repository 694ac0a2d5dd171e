package props_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
)

// leaf is a value a path names.
type leaf struct {
	path  string
	value props.Value
}

// leaves returns every value of l that Set can change, with its path.
func leaves(l *props.List, prefix string, out []leaf) []leaf {
	for _, p := range l.Properties {
		if strings.ContainsAny(p.Name.Text, ".[] ") {
			continue
		}
		out = leafValues(prefix+p.Label(), p.Value, out)
	}
	return out
}

func leafValues(path string, v props.Value, out []leaf) []leaf {
	switch x := v.(type) {
	case *props.Struct:
		switch {
		case x.Tagged != nil:
			return leaves(x.Tagged, path+".", out)
		case len(x.Native) == 1 && x.Native[0].Name == "":
			return append(out, leaf{path, x.Native[0].Value})
		}
		for _, f := range x.Native {
			switch f.Value.(type) {
			case *props.Struct, *props.Array:
				// Arrays and nested lists in a native struct's fields
				// (MovieScene channels and trees, Niagara variables):
				// paths do not name their members.
				continue
			}
			out = leafValues(path+"."+f.Name, f.Value, out)
		}
		return out
	case *props.Array:
		for i, e := range x.Elements {
			out = leafValues(fmt.Sprintf("%s[%d]", path, i), e.Value, out)
		}
		return out
	case *props.Raw:
		return out
	}
	return append(out, leaf{path, v})
}

// alternative returns a different value for v and the text that sets v
// back; ok is false when the test has no alternative for it.
func alternative(ctx *props.Context, v props.Value) (alt, back string, ok bool) {
	switch x := v.(type) {
	case props.Bool:
		return strconv.FormatBool(!bool(x)), x.String(), true
	case props.Int8, props.Int16, props.Int, props.Int64:
		n, _ := strconv.ParseInt(v.String(), 10, 64)
		if n == 0 {
			return "1", "0", true
		}
		return "0", v.String(), true
	case props.Byte, props.UInt16, props.UInt32, props.UInt64:
		if v.String() == "0" {
			return "1", "0", true
		}
		return "0", v.String(), true
	case props.Float:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.Signbit(float64(x)) && x == 0 {
			return "", "", false
		}
		return strconv.FormatFloat(float64(x)+1, 'g', -1, 32), x.String(), float32(x)+1 != float32(x)
	case props.Double:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.Signbit(float64(x)) && x == 0 {
			return "", "", false
		}
		return strconv.FormatFloat(float64(x)+1, 'g', -1, 64), x.String(), float64(x)+1 != float64(x)
	case *props.String:
		return x.Text + " and more", x.Text, true
	case props.NameValue:
		if props.Name(x).IsNone() {
			return ctx.Names[0], "None", true
		}
		return "None", x.Text, true
	case props.EnumValue:
		prefix, _, found := strings.Cut(x.Text, "::")
		if !found {
			return "", "", false
		}
		for _, n := range ctx.Names {
			if strings.HasPrefix(n, prefix+"::") && n != x.Text {
				return n, x.Text, true
			}
		}
	case props.Object:
		if x == 0 {
			return "", "", false
		}
		return "0", strconv.Itoa(int(x)), true
	case props.GUIDValue, props.LazyObject:
		return "00000000000000000000000000000001", v.String(), v.String() != "00000000000000000000000000000001"
	case *props.SoftObject:
		if x.Path() == "None" {
			return "", "", false
		}
		return "None", x.Path(), true
	}
	return "", "", false
}

// TestCorpusSetRoundTrip changes every value of every tagged corpus
// export that Set can change (to another value of its type), checks that
// the result decodes with the new value and encodes back, and sets the old
// value back: the original bytes.
func TestCorpusSetRoundTrip(t *testing.T) {
	var changed, skipped int
	kinds := map[string]int{}
	for _, cp := range corpusPackages(t) {
		p := cp.pkg
		if p.PackageFlags&zen.FlagUnversionedProperties != 0 {
			continue
		}
		for i := range p.Exports {
			if _, ok := customClasses[p.Exports[i].Class]; ok {
				continue
			}
			ctx, err := zenprops.ContextFor(p, i)
			if err != nil {
				t.Fatal(err)
			}
			ctx.AddName = nil // the corpus packages are shared
			data := p.Exports[i].Data
			type target struct {
				row string
				leaf
			}
			var targets []target
			if tb, err := props.DecodeDataTable(data, ctx); err == nil && len(tb.Rows) > 0 && len(tb.Rest) == 0 {
				for _, r := range tb.Rows {
					for _, lf := range leaves(r.Properties, "", nil) {
						targets = append(targets, target{r.Name.Text, lf})
					}
				}
			}
			l, err := props.Decode(data, ctx)
			if err != nil {
				t.Fatalf("%s export %d: %v", cp.name, i, err)
			}
			for _, lf := range leaves(l, "", nil) {
				targets = append(targets, target{"", lf})
			}
			for _, tg := range targets {
				alt, back, ok := alternative(ctx, tg.value)
				if !ok {
					skipped++
					continue
				}
				where := fmt.Sprintf("%s export %d %s", cp.name, i, props.Target{Row: tg.row, Path: tg.path})
				target := props.Target{Row: tg.row, Path: tg.path}
				out, ch, err := props.Set(data, ctx, target, props.Input{Text: alt})
				if errors.Is(err, props.ErrUnsupported) && strings.Contains(err.Error(), "name map") {
					skipped++
					continue
				}
				if err != nil || ch.Already {
					t.Errorf("%s = %q: %+v, %v", where, alt, ch, err)
					continue
				}
				if tg.row == "" {
					nl, err := props.Decode(out, ctx)
					if err != nil {
						t.Errorf("%s: %v", where, err)
						continue
					}
					if enc, err := props.Encode(nl, ctx); err != nil || !bytes.Equal(enc, out) {
						t.Errorf("%s: the changed list does not encode back (%v)", where, err)
					}
				}
				restored, ch2, err := props.Set(out, ctx, target, props.Input{Text: back})
				if err != nil || !bytes.Equal(restored, data) {
					t.Errorf("%s: setting %q back: %+v, %v (first difference at %d)", where, back, ch2, err, firstDiff(restored, data))
					continue
				}
				changed++
				kinds[fmt.Sprintf("%T", tg.value)]++
			}
		}
	}
	t.Logf("%d values changed and set back byte for byte (%d without an alternative); by kind: %v", changed, skipped, kinds)
	if changed == 0 {
		t.Error("nothing changed")
	}
}
