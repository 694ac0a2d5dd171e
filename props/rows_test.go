package props_test

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/usmap"
)

// dtUnversioned returns the unversioned twin of the UE 5.8 fixture
// DataTable and its context with the project's mappings.
func dtUnversioned(tb testing.TB) (*zen.Package, *props.Context) {
	tb.Helper()
	m, err := usmap.Open(corpus.Path(tb, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Uncompressed.usmap"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	so, err := iostore.LoadScriptObjects(corpus.Path(tb, "iostore/cue4parse_ue5_8/Tagged/global.utoc"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := iostore.Open(corpus.Path(tb, unversioned), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	i, err := c.FindPackage("/Game/Fixtures/DataTables/DT_AllProperties")
	if err != nil {
		tb.Fatal(err)
	}
	p, err := c.ReadPackage(i, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, err := zenprops.ContextWith(p, c.Resolver(so), 0, m)
	if err != nil {
		tb.Fatal(err)
	}
	return p, ctx
}

// dtContexts returns the fixture DataTable's data and context, tagged
// and unversioned.
func dtContexts(tb testing.TB) map[string]struct {
	data []byte
	ctx  *props.Context
} {
	tp, tctx := dtAllProperties(tb)
	up, uctx := dtUnversioned(tb)
	return map[string]struct {
		data []byte
		ctx  *props.Context
	}{"tagged": {tp.Exports[0].Data, tctx}, "unversioned": {up.Exports[0].Data, uctx}}
}

// rowText returns a row's values as Format shows them, without offsets.
func rowText(tb testing.TB, data []byte, ctx *props.Context, row string) string {
	tb.Helper()
	tab, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		tb.Fatal(err)
	}
	r := tab.Row(row)
	if r == nil {
		tb.Fatalf("no row %s", row)
	}
	return r.Properties.String()
}

// TestRowOps adds (as a copy and as defaults), renames and removes rows
// of the fixture DataTable, tagged and unversioned: every other row keeps
// its bytes, the new rows read back as asked, and removing what was added
// gives the original bytes.
func TestRowOps(t *testing.T) {
	for kind, dt := range dtContexts(t) {
		t.Run(kind, func(t *testing.T) {
			data, ctx := dt.data, dt.ctx
			names := len(ctx.Names)
			// A copy of Alpha.
			out, ch, err := props.AddRow(data, ctx, "Gamma", "Alpha")
			if err != nil {
				t.Fatal(err)
			}
			if !ch.Added || len(ch.Warnings) == 0 || len(ctx.Names) != names+1 {
				t.Errorf("change %+v, %d names (was %d)", ch, len(ctx.Names), names)
			}
			if got, want := rowText(t, out, ctx, "Gamma"), rowText(t, data, ctx, "Alpha"); got != want {
				t.Errorf("Gamma:\n%s\nwant Alpha's:\n%s", got, want)
			}
			tab, err := props.DecodeDataTable(out, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Rows) != 4 || tab.Rows[3].Name.Text != "Gamma" {
				t.Fatalf("rows: %v", tab.Rows)
			}
			if !bytes.Equal(out[:tab.RowsOffset], data[:tab.RowsOffset]) || !bytes.Equal(out[tab.RowsOffset+4:tab.Rows[3].Offset], data[tab.RowsOffset+4:]) {
				t.Error("the bytes before the new row changed beyond the row count")
			}
			// Defaults.
			out2, _, err := props.AddRow(out, ctx, "Delta_2", "")
			if err != nil {
				t.Fatal(err)
			}
			delta := rowText(t, out2, ctx, "Delta_2")
			if kind == "unversioned" {
				// All zero: what the cooker wrote for the Defaults row.
				if want := rowText(t, data, ctx, "Defaults"); delta != want {
					t.Errorf("Delta_2:\n%s\nwant the Defaults row:\n%s", delta, want)
				}
			} else if strings.TrimSpace(delta) != "" {
				t.Errorf("tagged default row: %q, want no properties", delta)
			}
			// A value set in the new row.
			out3, _, err := props.Set(out2, ctx, props.Target{Row: "Delta_2", Path: "Number"}, props.Input{Text: "42", Type: "int"})
			if err != nil {
				t.Fatal(err)
			}
			if v, _, _, err := mustTable(t, out3, ctx).Lookup("Delta_2", "Number"); err != nil || props.Display(v, nil) != "42" {
				t.Errorf("Delta_2 Number: %v %v", v, err)
			}
			// Rename.
			out4, ch, err := props.RenameRow(out3, ctx, "Beta", "Epsilon")
			if err != nil {
				t.Fatal(err)
			}
			if ch.Old != "Beta" || ch.New != "Epsilon" {
				t.Errorf("rename: %+v", ch)
			}
			if got, want := rowText(t, out4, ctx, "Epsilon"), rowText(t, data, ctx, "Beta"); got != want {
				t.Errorf("Epsilon:\n%s\nwant Beta's:\n%s", got, want)
			}
			if mustTable(t, out4, ctx).Row("Beta") != nil {
				t.Error("Beta is still there")
			}
			// Back: rename, remove the added rows.
			back, _, err := props.RenameRow(out4, ctx, "Epsilon", "Beta")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []string{"Delta_2", "Gamma"} {
				if back, _, err = props.RemoveRow(back, ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(back, data) {
				t.Error("adding, renaming and removing back does not give the original bytes")
			}
			// Refusals.
			for _, c := range []struct {
				name string
				run  func() error
				want error
			}{
				{"add existing", func() error { _, _, err := props.AddRow(data, ctx, "alpha", ""); return err }, props.ErrUnsupported},
				{"add None", func() error { _, _, err := props.AddRow(data, ctx, "None", ""); return err }, props.ErrType},
				{"copy missing", func() error { _, _, err := props.AddRow(data, ctx, "X", "Nope"); return err }, props.ErrNotFound},
				{"remove missing", func() error { _, _, err := props.RemoveRow(data, ctx, "Nope"); return err }, props.ErrNotFound},
				{"rename onto", func() error { _, _, err := props.RenameRow(data, ctx, "Alpha", "Beta"); return err }, props.ErrUnsupported},
				{"rename empty", func() error { _, _, err := props.RenameRow(data, ctx, "Alpha", ""); return err }, props.ErrType},
			} {
				if err := c.run(); !errors.Is(err, c.want) {
					t.Errorf("%s: %v, want %v", c.name, err, c.want)
				}
			}
		})
	}
}

func mustTable(tb testing.TB, data []byte, ctx *props.Context) *props.Table {
	tb.Helper()
	tab, err := props.DecodeDataTable(data, ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return tab
}

// TestArraysAndWholeValues grows and shrinks arrays of the fixture
// DataTable's rows and sets whole structs and arrays from the text Display
// prints, tagged and unversioned: each reads back as asked, and setting
// the old text back gives the original bytes.
func TestArraysAndWholeValues(t *testing.T) {
	for kind, dt := range dtContexts(t) {
		t.Run(kind, func(t *testing.T) {
			data, ctx := dt.data, dt.ctx
			get := func(b []byte, row, path string) string {
				t.Helper()
				v, _, _, err := mustTable(t, b, ctx).Lookup(row, path)
				if err != nil {
					t.Fatalf("%s %s: %v", row, path, err)
				}
				return props.Display(v, ctx.ObjectName)
			}
			cases := []struct {
				row, path, value, want string
			}{
				{"Alpha", "Values[4]", "55", "[11,22,33,44,55]"},                         // append
				{"Defaults", "Values[0]", "9", "[9]"},                                    // append to an empty array
				{"Beta", "Nested.Samples[3]", "1.5", "[0.125,-2.5,99.75,1.5]"},           // append in a struct
				{"Alpha", "Values", "[1,2]", "[1,2]"},                                    // whole array, shrinking
				{"Beta", "Values", "[-7,0,7,2147483647,8,9]", "[-7,0,7,2147483647,8,9]"}, // whole array, growing
				{"Alpha", "Nested.Position", "(X=1,Y=2,Z=3)", "(X=1,Y=2,Z=3)"},           // whole native struct
				{"Beta", "Nested", `(Marker=5,Label="a, b",Samples=[1])`, ""},            // whole tagged struct
				{"Defaults", "Nested.Label", "x", `"x"`},
			}
			for _, c := range cases {
				path := c.path
				if _, idx, ok := strings.Cut(path, "["); ok && !strings.Contains(idx, ".") && c.value[0] != '[' {
					path = c.path[:strings.LastIndexByte(c.path, '[')]
				}
				old := get(data, c.row, path)
				out, ch, err := props.Set(data, ctx, props.Target{Row: c.row, Path: c.path}, props.Input{Text: c.value})
				if err != nil {
					t.Errorf("%s %s = %s: %v", c.row, c.path, c.value, err)
					continue
				}
				if ch.Already {
					t.Errorf("%s %s: already", c.row, c.path)
				}
				got := get(out, c.row, path)
				if c.want != "" && got != c.want {
					t.Errorf("%s %s = %s reads %s, want %s", c.row, c.path, c.value, got, c.want)
				}
				if c.want == "" && (!strings.Contains(got, `Marker=5`) || !strings.Contains(got, `Label="a, b"`) || !strings.Contains(got, "Samples=[1]")) {
					t.Errorf("%s %s reads %s", c.row, c.path, got)
				}
				// Every other row is unchanged.
				for _, r := range []string{"Alpha", "Beta", "Defaults"} {
					if r != c.row && rowText(t, out, ctx, r) != rowText(t, data, ctx, r) {
						t.Errorf("%s %s changed row %s", c.row, c.path, r)
					}
				}
				backText := old
				if u, err := strconv.Unquote(old); err == nil {
					backText = u
				}
				back, _, err := props.Set(out, ctx, props.Target{Row: c.row, Path: path}, props.Input{Text: backText})
				if err != nil {
					t.Errorf("%s %s back to %s: %v", c.row, path, old, err)
					continue
				}
				if kind == "tagged" || !strings.Contains(c.path, "[") && c.row != "Defaults" {
					if !bytes.Equal(back, data) {
						t.Errorf("%s %s: setting %s back does not give the original bytes", c.row, path, old)
					}
				} else if get(back, c.row, path) != old {
					t.Errorf("%s %s: back reads %s, want %s", c.row, path, get(back, c.row, path), old)
				}
			}
			// RemoveElement.
			out, ch, err := props.RemoveElement(data, ctx, props.Target{Row: "Alpha", Path: "Values[1]"})
			if err != nil || ch.Old != "22" || get(out, "Alpha", "Values") != "[11,33,44]" {
				t.Errorf("remove Values[1]: %v %+v", err, ch)
			}
			for _, c := range []struct {
				path string
				want error
			}{{"Values[4]", props.ErrNotFound}, {"Values", props.ErrNotFound}, {"Number[0]", props.ErrNotFound}} {
				if _, _, err := props.RemoveElement(data, ctx, props.Target{Row: "Alpha", Path: c.path}); !errors.Is(err, c.want) {
					t.Errorf("remove %s: %v, want %v", c.path, err, c.want)
				}
			}
			// Bad literals.
			for _, v := range []string{"(X=1", "(X)", "[1,(2]", "(Nope=1)"} {
				if _, _, err := props.Set(data, ctx, props.Target{Row: "Alpha", Path: "Nested.Position"}, props.Input{Text: v}); err == nil {
					t.Errorf("Position = %s: no error", v)
				}
			}
		})
	}
}

// FuzzSetLiteral sets whole structs and arrays of the fixture DataTable,
// tagged and unversioned, from fuzzed literals (the text Display prints,
// read by Set): a literal is applied or refused, never a panic, and what
// Set returns decodes.
func FuzzSetLiteral(f *testing.F) {
	dts := dtContexts(f)
	for _, s := range []string{"(X=1,Y=2,Z=3)", `(Marker=5,Label="a, b",Samples=[1])`, "[1,2,3]", "[]", "(Position=(X=1),Samples=[0.5,2])",
		`(Label="\"q\"")`, "[(", "(X=1", "[1,[2]]"} {
		for _, path := range []string{"Nested", "Nested.Position", "Values", "Nested.Samples"} {
			f.Add(path, s)
		}
	}
	f.Fuzz(func(t *testing.T, path, text string) {
		defer fuzzbound.Check(t, time.Now(), len(text))
		if len(text) > 4096 {
			return
		}
		for _, dt := range dts {
			ctx := *dt.ctx
			ctx.AddName = nil
			out, _, err := props.Set(dt.data, &ctx, props.Target{Row: "Alpha", Path: path}, props.Input{Text: text})
			if err != nil {
				continue
			}
			if _, err := props.DecodeDataTable(out, &ctx); err != nil {
				t.Fatalf("%s = %q: the data Set returns does not decode: %v", path, text, err)
			}
		}
	})
}
