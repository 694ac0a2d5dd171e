package props_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/ue"
)

// isDelegateType reports whether a property type holds a delegate, a
// multicast delegate or a field path.
func isDelegateType(t string) bool {
	return t == "FieldPathProperty" || strings.HasSuffix(t, "DelegateProperty")
}

// delegateValues calls fn for every value of l (properties, struct fields
// and array elements) whose type is a delegate or field path type.
func delegateValues(l *props.List, fn func(p *props.Property, v props.Value)) {
	for _, q := range l.Properties {
		if isDelegateType(q.Type.Name.Text) {
			fn(q, q.Value)
		}
		if a, ok := q.Value.(*props.Array); ok && isDelegateType(a.Inner.Name.Text) {
			for _, e := range a.Elements {
				fn(q, e.Value)
			}
		}
		if s, ok := q.Value.(*props.Struct); ok && s.Tagged != nil {
			delegateValues(s.Tagged, fn)
		}
	}
}

// checkNamed fails unless v is the model of its type with every name in
// the name map and every object reference inside the package's imports
// and exports, named by the package's resolver.
func checkNamed(t *testing.T, what string, ctx *props.Context, typ string, v props.Value) {
	t.Helper()
	object := func(o props.Object) {
		t.Helper()
		if i, ok := o.Import(); ok && i >= ctx.Imports || o > 0 && int(o) > ctx.Exports {
			t.Errorf("%s: object %d outside the %d imports and %d exports", what, o, ctx.Imports, ctx.Exports)
		}
		if o != 0 && ctx.ObjectName != nil {
			if n := ctx.ObjectName(int32(o)); n == "" || strings.HasPrefix(n, "import ") || strings.HasPrefix(n, "export ") {
				t.Errorf("%s: object %d is not named by the resolver: %q", what, o, n)
			}
		}
	}
	name := func(n props.Name) {
		t.Helper()
		if n.Index < 0 || int(n.Index) >= len(ctx.Names) || n.Text == "" {
			t.Errorf("%s: name %+v not in the %d names", what, n, len(ctx.Names))
		}
	}
	switch x := v.(type) {
	case *props.Delegate:
		if typ != "DelegateProperty" {
			t.Errorf("%s: a %s reads as a delegate", what, typ)
		}
		object(x.Object)
		name(x.Function)
	case *props.MulticastDelegate:
		if !strings.HasPrefix(typ, "Multicast") {
			t.Errorf("%s: a %s reads as a multicast delegate", what, typ)
		}
		for _, d := range x.Delegates {
			object(d.Object)
			name(d.Function)
		}
	case *props.FieldPath:
		if typ != "FieldPathProperty" {
			t.Errorf("%s: a %s reads as a field path", what, typ)
		}
		for _, n := range x.Path {
			name(n)
		}
		if x.Owner != nil {
			object(*x.Owner)
		}
	default:
		t.Errorf("%s: %s value is %T (%v), not the names it holds", what, typ, v, v)
	}
}

// TestCorpusDelegates reads every delegate, multicast delegate and field
// path of the corpus zen packages (tagged, and the unversioned fixture
// container with its mappings): each is the model of its type, its names
// and objects are the package's, the text and JSON forms show names (no
// bytes), and the export encodes back byte for byte. The packages are
// FuzzProperties' seeds: every kind found here is one the fuzzer starts
// from.
func TestCorpusDelegates(t *testing.T) {
	count := map[string]int{}
	for _, sl := range decodedSeeds(t) {
		ctx, data, l := sl.ctx, sl.data, sl.l
		found := false
		mode := "tagged"
		if ctx.Schema != nil {
			mode = "unversioned"
		}
		delegateValues(l, func(p *props.Property, v props.Value) {
			found = true
			what := mode + " " + ctx.Class + " " + p.Label()
			checkNamed(t, what, ctx, p.Type.Name.Text, v)
			count[mode+" "+p.Type.Name.Text]++
			text := props.Display(v, ctx.ObjectName)
			if strings.HasPrefix(text, "0x") || text == "" {
				t.Errorf("%s: shown as %q", what, text)
			}
			if !strings.HasPrefix(text, "None") {
				for _, want := range names(v) {
					if !strings.Contains(text, want) {
						t.Errorf("%s: %q does not show %q", what, text, want)
					}
				}
			}
			b, err := json.Marshal(p)
			if err != nil || bytes.Contains(b, []byte(`"hex"`)) {
				t.Errorf("%s: JSON %s (%v)", what, b, err)
			}
		})
		if !found {
			continue
		}
		out, err := props.Encode(l, ctx)
		if err != nil || !bytes.Equal(out, data) {
			t.Errorf("%s: encode: %v (%d bytes, want %d)", ctx.Class, err, len(out), len(data))
		}
	}
	t.Logf("values read: %v", count)
	for _, want := range []string{"tagged DelegateProperty", "tagged MulticastInlineDelegateProperty", "tagged FieldPathProperty",
		"unversioned DelegateProperty", "unversioned MulticastDelegateProperty", "unversioned FieldPathProperty"} {
		if count[want] == 0 {
			t.Errorf("no %s value in the corpus packages", want)
		}
	}
}

// names returns the names a delegate or field path value holds.
func names(v props.Value) []string {
	var out []string
	switch x := v.(type) {
	case *props.Delegate:
		out = append(out, x.Function.Text)
	case *props.MulticastDelegate:
		for _, d := range x.Delegates {
			out = append(out, d.Function.Text)
		}
	case *props.FieldPath:
		for _, n := range x.Path {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestDelegatesDamaged patches the counts and names of the corpus's
// delegates and field paths (tagged and unversioned): each damaged value
// is a *ue.FormatError at the patched field, found before anything is
// allocated for the count. (A count one too large is found at the count in
// tags, whose size bounds the value; unversioned data has no size.)
func TestDelegatesDamaged(t *testing.T) {
	cases := 0
	for _, sl := range decodedSeeds(t) {
		ctx, data, l := sl.ctx, sl.data, sl.l
		for _, p := range l.Properties {
			if !isDelegateType(p.Type.Name.Text) || p.Zero {
				continue
			}
			patch := func(at int, v uint32) []byte {
				b := append([]byte(nil), data...)
				binary.LittleEndian.PutUint32(b[at:], v)
				return b
			}
			at := p.ValueOffset
			type damage struct {
				what string
				at   int
				v    uint32
			}
			var ds []damage
			switch x := p.Value.(type) {
			case *props.Delegate:
				ds = []damage{{"function name index 2^31-1", at + 4, 0x7FFFFFFF}, {"function name index -1", at + 4, 0xFFFFFFFF}}
			case *props.MulticastDelegate:
				n := uint32(len(x.Delegates))
				ds = []damage{{"count 2^31-1", at, 0x7FFFFFFF}, {"count -1", at, 0xFFFFFFFF}, {"count one too many", at, n + 1},
					{"function name index 2^31-1", at + 8, 0x7FFFFFFF}}
			case *props.FieldPath:
				n := uint32(len(x.Path))
				ds = []damage{{"length 2^31-1", at, 0x7FFFFFFF}, {"length -1", at, 0xFFFFFFFF}, {"length one too many", at, n + 1},
					{"name index 2^31-1", at + 4, 0x7FFFFFFF}}
			}
			for _, d := range ds {
				if ctx.Schema != nil && strings.HasSuffix(d.what, "one too many") {
					// Unversioned values have no size: one more element
					// reads into the next value, and fails there.
					continue
				}
				cases++
				what := ctx.Class + " " + p.Label() + " " + d.what
				_, err := props.Decode(patch(d.at, d.v), ctx)
				checkCorrupt(t, what, err)
				var fe *ue.FormatError
				if errors.As(err, &fe) && fe.Offset != int64(d.at) {
					t.Errorf("%s: error at offset %d, want %d: %v", what, fe.Offset, d.at, err)
				}
			}
		}
	}
	if cases == 0 {
		t.Error("no delegate or field path damaged")
	}
	t.Logf("%d damaged values refused", cases)
}

// TestDelegateSetRefused checks that Set refuses delegates and field paths
// (tagged and unversioned) with the reason.
func TestDelegateSetRefused(t *testing.T) {
	refused := 0
	for _, sl := range decodedSeeds(t) {
		ctx, data, l := sl.ctx, sl.data, sl.l
		for _, p := range l.Properties {
			if !isDelegateType(p.Type.Name.Text) {
				continue
			}
			_, _, err := props.Set(data, ctx, props.Target{Path: p.Label()}, props.Input{Text: "None"})
			if !errors.Is(err, props.ErrUnsupported) || !strings.Contains(err.Error(), "cannot set") {
				t.Errorf("%s %s: Set: %v, want a refusal with ErrUnsupported", ctx.Class, p.Label(), err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Error("no delegate to set")
	}
}

// TestDelegateSetAbsentRefused removes the delegates and field paths from
// the unversioned corpus lists that hold them (as if left at their
// defaults) and sets them: Set gives each its zero value's bytes first, as
// for any absent property, and then refuses it with the reason.
func TestDelegateSetAbsentRefused(t *testing.T) {
	refused := 0
	for _, sl := range decodedSeeds(t) {
		ctx, l := sl.ctx, sl.l
		if ctx.Schema == nil {
			continue
		}
		var kept, removed []*props.Property
		for _, p := range l.Properties {
			if isDelegateType(p.Type.Name.Text) {
				removed = append(removed, p)
			} else {
				kept = append(kept, p)
			}
		}
		if len(removed) == 0 {
			continue
		}
		l.Properties, l.Header = kept, nil
		absent, err := props.Encode(l, ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range removed {
			_, _, err := props.Set(absent, ctx, props.Target{Path: p.Label()}, props.Input{Text: "None"})
			if !errors.Is(err, props.ErrUnsupported) || !strings.Contains(err.Error(), "cannot set") {
				t.Errorf("%s %s (absent): Set: %v, want a refusal with ErrUnsupported", ctx.Class, p.Label(), err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Error("no unversioned delegate to set")
	}
}

// TestDelegateZero marks the unversioned corpus delegates and field paths
// zero (no bytes stored, as the cooker writes unbound ones): they read as
// an unbound delegate, an empty invocation list and an empty path, and
// the list encodes back to the same bytes.
func TestDelegateZero(t *testing.T) {
	zeros := 0
	for _, sl := range decodedSeeds(t) {
		ctx, l := sl.ctx, sl.l
		if ctx.Schema == nil {
			continue
		}
		marked := map[string]string{}
		for _, p := range l.Properties {
			if isDelegateType(p.Type.Name.Text) {
				p.Zero = true
				marked[p.Label()] = p.Type.Name.Text
			}
		}
		if len(marked) == 0 {
			continue
		}
		l.Header = nil
		zeroed, err := props.Encode(l, ctx)
		if err != nil {
			t.Fatal(err)
		}
		back, err := props.Decode(zeroed, ctx)
		if err != nil {
			t.Fatalf("%s: %v", ctx.Class, err)
		}
		for _, p := range back.Properties {
			typ, ok := marked[p.Label()]
			if !ok {
				continue
			}
			zeros++
			want := map[string]string{"DelegateProperty": "None", "MulticastDelegateProperty": "()", "FieldPathProperty": "None"}[typ]
			if !p.Zero || props.Display(p.Value, nil) != want {
				t.Errorf("%s %s: zero %v, value %v, want %q", ctx.Class, p.Label(), p.Zero, p.Value, want)
			}
		}
		if again, err := props.Encode(back, ctx); err != nil || !bytes.Equal(again, zeroed) {
			t.Errorf("%s: zero values encode differently (%v)", ctx.Class, err)
		}
	}
	if zeros < 3 {
		t.Errorf("%d zero delegates and field paths read", zeros)
	}
}

// seedList is a fuzz seed that decodes as a property list, with its
// context.
type seedList struct {
	ctx  *props.Context
	data []byte
	l    *props.List
}

// decodedSeeds returns the fuzz seeds (fuzzContexts) that decode.
func decodedSeeds(t *testing.T) []seedList {
	ctxs, seeds := fuzzContexts(t)
	var out []seedList
	for i, data := range seeds {
		if l, err := props.Decode(data, ctxs[i]); err == nil {
			out = append(out, seedList{ctxs[i], data, l})
		}
	}
	return out
}
