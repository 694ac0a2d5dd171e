package patch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// doc wraps ops (YAML flow or block text, indented for the ops list) in a
// patch with one target.
func doc(ops string) string {
	return "unrmod: 1\ntargets:\n  - file: a.u\n    ops:\n" + ops
}

func TestParse(t *testing.T) {
	type check func(t *testing.T, f *patch.File)
	op := func(k int) func(f *patch.File) patch.Op {
		return func(f *patch.File) patch.Op { return f.Targets[0].Ops[k] }
	}
	first := op(0)
	cases := []struct {
		name string
		text string
		ok   check
	}{
		{"minimal", doc("      - add-name: {name: Foo}\n"), func(t *testing.T, f *patch.File) {
			tg := f.Targets[0]
			if f.Version != 1 || len(f.Targets) != 1 || tg.File != "a.u" || tg.Output != "" ||
				tg.GUID != patch.GUIDRegenerate || tg.Layout != writer.Preserve || len(tg.Ops) != 1 {
				t.Errorf("%+v %+v", f, tg)
			}
			if o, ok := first(f).(*patch.AddName); !ok || o.Name != "Foo" || o.Kind() != "add-name" {
				t.Errorf("%#v", first(f))
			}
			if p := first(f).Position(); p.Line != 5 || p.Col != 9 || p.File != "p.yaml" {
				t.Errorf("op position %v", p)
			}
			if p := tg.Pos; p.Line != 3 || p.Col != 5 {
				t.Errorf("target position %v", p)
			}
		}},
		{"target keys", "unrmod: 1\ntargets:\n  - file: maps/a.unr\n    output: out/a.unr\n    guid: keep\n    layout: compact\n    ops: [add-name: {name: x}]\n",
			func(t *testing.T, f *patch.File) {
				tg := f.Targets[0]
				if tg.Output != "out/a.unr" || tg.GUID != patch.GUIDKeep || tg.Layout != writer.Compact {
					t.Errorf("%+v", tg)
				}
			}},
		{"guid regenerate, any case", "unrmod: 1\ntargets:\n  - file: a\n    guid: Regenerate\n    layout: PRESERVE\n    ops: [add-name: {name: x}]\n",
			func(t *testing.T, f *patch.File) {
				if tg := f.Targets[0]; tg.GUID != patch.GUIDRegenerate || tg.Layout != writer.Preserve {
					t.Errorf("%+v", tg)
				}
			}},
		{"explicit guid with braces and dashes", "unrmod: 1\ntargets:\n  - file: a\n    guid: '{01234567-89AB-CDEF-0123-456789abcdef}'\n    ops: [add-name: {name: x}]\n",
			func(t *testing.T, f *patch.File) {
				tg := f.Targets[0]
				if tg.GUID != patch.GUIDExplicit || tg.SetTo != (reader.GUID{0x01234567, 0x89ABCDEF, 0x01234567, 0x89ABCDEF}) {
					t.Errorf("%v %v", tg.GUID, tg.SetTo)
				}
			}},
		{"two targets", "unrmod: 1\ntargets:\n  - file: a\n    ops: [add-name: {name: x}]\n  - file: b\n    ops:\n      - add-name: {name: y}\n      - add-name: {name: z}\n",
			func(t *testing.T, f *patch.File) {
				if len(f.Targets) != 2 || f.Targets[1].File != "b" || len(f.Targets[1].Ops) != 2 || f.Targets[1].Pos.Line != 5 {
					t.Errorf("%+v", f.Targets)
				}
			}},
		{"rename", doc("      - rename:\n          from: Old\n          to: New_Name-2\n"), func(t *testing.T, f *patch.File) {
			if o, ok := first(f).(*patch.Rename); !ok || o.From != "Old" || o.To != "New_Name-2" {
				t.Errorf("%#v", first(f))
			}
		}},
		{"package flags by name, prefix, case and number", doc("      - package-flags: {set: [pkg_allowdownload, 0x8000, '2'], clear: ServerSideOnly}\n"), func(t *testing.T, f *patch.File) {
			o, ok := first(f).(*patch.PackageFlags)
			if !ok || flagTexts(o.Flags.Set) != "pkg_allowdownload 0x8000 2" || flagTexts(o.Flags.Clear) != "ServerSideOnly" ||
				o.Flags.Set[1].Pos.Col != 50 {
				t.Errorf("%#v", first(f))
			}
		}},
		{"object flags", doc("      - object-flags: {object: \"Texture'Skins.Sky'\", clear: [RF_LoadForServer, notforedit], set: [0x1, 4]}\n"), func(t *testing.T, f *patch.File) {
			o, ok := first(f).(*patch.ObjectFlags)
			if !ok || o.Object != "Texture'Skins.Sky'" || flagTexts(o.Flags.Set) != "0x1 4" || flagTexts(o.Flags.Clear) != "RF_LoadForServer notforedit" {
				t.Errorf("%#v", first(f))
			}
		}},
		{"object flags: only clear", doc("      - object-flags: {object: X, clear: Public}\n"), func(t *testing.T, f *patch.File) {
			if o := first(f).(*patch.ObjectFlags); len(o.Flags.Set) != 0 || flagTexts(o.Flags.Clear) != "Public" {
				t.Errorf("%#v", o)
			}
		}},
		{"set-property", doc("      - set-property: {object: LevelInfo0, property: Title, value: Demo Arena II}\n" +
			"      - set-property: {object: Light0, property: LightHue, type: BYTE, index: 3, value: 170}\n" +
			"      - set-property: {object: LevelInfo0, property: bHighDetailMode, value: false}\n" +
			"      - set-property: {object: LevelInfo0, property: Title, value: '  spaced  '}\n" +
			"      - set-property: {object: LevelInfo0, property: Title, type: string, value: \"12\"}\n"), func(t *testing.T, f *patch.File) {
			want := []patch.SetProperty{
				{Object: "LevelInfo0", Property: "Title", Value: "Demo Arena II"},
				{Object: "Light0", Property: "LightHue", Type: "byte", Index: 3, Value: "170"},
				{Object: "LevelInfo0", Property: "bHighDetailMode", Value: "false"},
				{Object: "LevelInfo0", Property: "Title", Value: "  spaced  "},
				{Object: "LevelInfo0", Property: "Title", Type: "string", Value: "12"},
			}
			for k, w := range want {
				o, ok := op(k)(f).(*patch.SetProperty)
				if !ok || o.Object != w.Object || o.Property != w.Property || o.Type != w.Type || o.Index != w.Index || o.Value != w.Value {
					t.Errorf("op %d: %#v, want %#v", k, op(k)(f), w)
				}
			}
		}},
		{"set-property types", doc("      - set-property: {object: a, property: b, type: int, value: 1}\n" +
			"      - set-property: {object: a, property: b, type: float, value: 1}\n" +
			"      - set-property: {object: a, property: b, type: bool, value: 1}\n" +
			"      - set-property: {object: a, property: b, type: name, value: x}\n" +
			"      - set-property: {object: a, property: b, type: str, value: x}\n" +
			"      - set-property: {object: a, property: b, type: Object, value: None}\n"), func(t *testing.T, f *patch.File) {
			want := []string{"int", "float", "bool", "name", "str", "object"}
			for k, w := range want {
				if o := op(k)(f).(*patch.SetProperty); o.Type != w {
					t.Errorf("op %d: type %v, want %v", k, o.Type, w)
				}
			}
		}},
		{"retarget-import", doc("      - retarget-import: {import: Engine.Light, package: MyLights}\n"), func(t *testing.T, f *patch.File) {
			if o, ok := first(f).(*patch.RetargetImport); !ok || o.Import != "Engine.Light" || o.Package != "MyLights" {
				t.Errorf("%#v", first(f))
			}
		}},
		{"replace-export forms", doc("      - replace-export: {object: A, data: {hex: '0x00 01:02\n\t03'}}\n" +
			"      - replace-export: {object: A, data: {base64: \"AAEC\n  Aw==\"}}\n" +
			"      - replace-export: {object: A, data: {file: 'data\\a.bin'}}\n" +
			"      - replace-export: {object: A, from: {object: B}}\n" +
			"      - replace-export: {object: A, from: {file: other.u, object: B}}\n"), func(t *testing.T, f *patch.File) {
			for k := range 5 {
				if o, ok := op(k)(f).(*patch.ReplaceExport); !ok || o.Object != "A" || o.Kind() != "replace-export" {
					t.Errorf("op %d: %#v", k, op(k)(f))
				}
			}
		}},
		{"Windows line endings and separators", strings.ReplaceAll("unrmod: 1\ntargets:\n  - file: maps\\a.unr\n    output: 'out\\sub\\a.unr'\n    ops:\n      - set-property:\n          object: LevelInfo0\n          property: Title\n          value: Windows\n", "\n", "\r\n"),
			func(t *testing.T, f *patch.File) {
				tg := f.Targets[0]
				o := first(f).(*patch.SetProperty)
				if tg.File != "maps/a.unr" || tg.Output != "out/sub/a.unr" || o.Value != "Windows" || o.Position().Line != 6 {
					t.Errorf("%+v %+v", tg, o)
				}
			}},
		{"comments and a byte-order mark", "\ufeff# a patch\nunrmod: 1 # version\ntargets: # list\n  - file: a\n    ops: [add-name: {name: x}] # done\n",
			func(t *testing.T, f *patch.File) {
				if len(f.Targets[0].Ops) != 1 {
					t.Errorf("%+v", f)
				}
			}},
		{"a single flag is a list of one", doc("      - package-flags: {clear: AllowDownload}\n"), func(t *testing.T, f *patch.File) {
			if o := first(f).(*patch.PackageFlags); flagTexts(o.Flags.Clear) != "AllowDownload" || len(o.Flags.Set) != 0 {
				t.Errorf("%#v", o)
			}
		}},
		{"63-character name", doc("      - add-name: {name: " + strings.Repeat("n", 63) + "}\n"), func(t *testing.T, f *patch.File) {
			if o := first(f).(*patch.AddName); len(o.Name) != 63 {
				t.Errorf("%#v", o)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := patch.Parse("p.yaml", []byte(c.text))
			if err != nil {
				t.Fatalf("%v\n%s", err, c.text)
			}
			if f.Path != "p.yaml" {
				t.Errorf("Path %q", f.Path)
			}
			c.ok(t, f)
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		pos   string // line:col, or "" for errors about the whole file
		words []string
	}{
		{"empty", "", "", []string{"empty", "unrmod: 1"}},
		{"only a comment", "# nothing\n", "", []string{"empty"}},
		{"a list", "- unrmod: 1\n", "1:1", []string{"the patch file must be a mapping", "not a list"}},
		{"a scalar", "hello\n", "1:1", []string{"must be a mapping", `"hello"`}},
		{"no targets", "unrmod: 1\n", "1:1", []string{`missing the required key "targets"`}},
		{"version text", "unrmod: one\ntargets: []\n", "1:9", []string{"format version number"}},
		{"version float", "unrmod: 1.5\ntargets: []\n", "1:9", []string{"format version number"}},
		{"empty targets", "unrmod: 1\ntargets: []\n", "2:10", []string{"non-empty list"}},
		{"targets mapping", "unrmod: 1\ntargets: {file: a}\n", "2:10", []string{"non-empty list"}},
		{"target scalar", "unrmod: 1\ntargets: [a.u]\n", "2:11", []string{"a target must be a mapping"}},
		{"target alias", "unrmod: 1\ntargets:\n  - &t {file: a, ops: [add-name: {name: x}]}\n  - *t\n", "4:5", []string{"not an alias"}},
		{"duplicate key", "unrmod: 1\ntargets:\n  - file: a\n    file: b\n    ops: [add-name: {name: x}]\n", "4:5", []string{`key "file" appears twice`}},
		{"missing file", "unrmod: 1\ntargets:\n  - ops: [add-name: {name: x}]\n", "3:5", []string{`missing the required key "file"`}},
		{"missing ops", "unrmod: 1\ntargets:\n  - file: a\n", "3:5", []string{`missing the required key "ops"`}},
		{"empty file", "unrmod: 1\ntargets:\n  - file: ''\n    ops: [add-name: {name: x}]\n", "3:11", []string{"file is empty"}},
		{"null file", "unrmod: 1\ntargets:\n  - file:\n    ops: [add-name: {name: x}]\n", "3:10", []string{"file must be a text value", "not nothing"}},
		{"file list", "unrmod: 1\ntargets:\n  - file: [a]\n    ops: [add-name: {name: x}]\n", "3:11", []string{"file must be a text value", "not a list"}},
		{"empty ops", "unrmod: 1\ntargets:\n  - file: a\n    ops: []\n", "4:10", []string{"non-empty list of operations", "rename"}},
		{"op scalar", doc("      - rename\n"), "5:9", []string{"mapping with one key", "rename"}},
		{"op two keys", doc("      - rename: {from: a, to: b}\n        add-name: {name: x}\n"), "5:9", []string{"mapping with one key"}},
		{"unknown op", doc("      - set-propety: {}\n"), "5:9", []string{`unknown operation "set-propety"`, `did you mean "set-property"?`}},
		{"unknown op, no suggestion", doc("      - frobnicate: {}\n"), "5:9", []string{`unknown operation "frobnicate"`, "operations: add-name"}},
		{"op null body", doc("      - rename:\n"), "5:16", []string{"rename must be a mapping", "not nothing"}},
		{"unknown op key", doc("      - rename: {from: a, too: b}\n"), "5:27", []string{`unknown key "too" in rename`, `did you mean "to"?`}},
		{"missing op key", doc("      - rename: {from: a}\n"), "5:17", []string{`rename is missing the required key "to"`}},
		{"rename to None", doc("      - rename: {from: a, to: none}\n"), "5:31", []string{"None is reserved"}},
		{"add-name empty", doc("      - add-name: {name: ''}\n"), "5:26", []string{"add-name name is empty"}},
		{"flags without set or clear", doc("      - package-flags: {}\n"), "5:24", []string{"set: [...] and/or clear: [...]"}},
		{"object-flags without set or clear", doc("      - object-flags: {object: X}\n"), "5:23", []string{"set: [...] and/or clear: [...]"}},
		{"object-flags without object", doc("      - object-flags: {set: [Public]}\n"), "5:23", []string{`missing the required key "object"`}},
		{"unknown flag", doc("      - package-flags: {set: [Download]}\n"), "5:31", []string{`unknown flag "Download"`, "AllowDownload"}},
		{"flag mapping", doc("      - package-flags: {set: {a: b}}\n"), "5:30", []string{"must be a list such as [AllowDownload]"}},
		{"flag null entry", doc("      - package-flags: {set: [~]}\n"), "5:31", []string{"set entry must be a text value"}},
		{"set and clear the same flag", doc("      - object-flags: {object: X, set: [Public], clear: [4]}\n"), "5:23", []string{"both set and cleared"}},
		{"empty flag lists", doc("      - package-flags: {set: [], clear: []}\n"), "5:24", []string{"name no flag"}},
		{"set-property with an empty value", doc("      - set-property: {object: X, property: Y, value: }\n"), "5:55", []string{"value is missing", `""`}},
		{"set-property index text", doc("      - set-property: {object: X, property: Y, index: two, value: 1}\n"), "5:55", []string{"index must be"}},
		{"set-property without value", doc("      - set-property: {object: X, property: Y}\n"), "5:23", []string{`missing the required key "value"`}},
		{"set-property list value", doc("      - set-property: {object: X, property: Y, value: [1]}\n"), "5:55", []string{"value must be a single value", "not a list"}},
		{"set-property bad type", doc("      - set-property: {object: X, property: Y, type: struct, value: 1}\n"), "5:54", []string{"type must be one of"}},
		{"set-property index text", doc("      - set-property: {object: X, property: Y, index: first, value: 1}\n"), "5:55", []string{"index must be a static-array index"}},
		{"set-property index negative", doc("      - set-property: {object: X, property: Y, index: -2, value: 1}\n"), "5:55", []string{"0 or more"}},
		{"set-property empty property", doc("      - set-property: {object: X, property: '', value: 1}\n"), "5:45", []string{"property is empty"}},
		{"replace-export without data or from", doc("      - replace-export: {object: X}\n"), "5:25", []string{"exactly one of data"}},
		{"replace-export with both", doc("      - replace-export: {object: X, data: {hex: '00'}, from: {object: Y}}\n"), "5:25", []string{"exactly one of data"}},
		{"data with two sources", doc("      - replace-export: {object: X, data: {hex: '00', base64: AA==}}\n"), "5:43", []string{"exactly one of file, hex or base64"}},
		{"data empty", doc("      - replace-export: {object: X, data: {}}\n"), "5:43", []string{"exactly one of file, hex or base64"}},
		{"data unknown key", doc("      - replace-export: {object: X, data: {bytes: '00'}}\n"), "5:44", []string{`unknown key "bytes" in data`}},
		{"data odd hex", doc("      - replace-export: {object: X, data: {hex: '000'}}\n"), "5:49", []string{"not valid hexadecimal"}},
		{"data bad base64", doc("      - replace-export: {object: X, data: {base64: 'A*'}}\n"), "5:52", []string{"not valid base64"}},
		{"data empty file", doc("      - replace-export: {object: X, data: {file: ' '}}\n"), "5:50", []string{"data file is empty"}},
		{"from without object", doc("      - replace-export: {object: X, from: {file: b.u}}\n"), "5:43", []string{`from is missing the required key "object"`}},
		{"from unknown key", doc("      - replace-export: {object: X, from: {objct: Y}}\n"), "5:44", []string{`unknown key "objct" in from`, `did you mean "object"?`}},
		{"bad guid", "unrmod: 1\ntargets:\n  - file: a\n    guid: 0123\n    ops: [add-name: {name: x}]\n", "4:11", []string{"keep, regenerate or 32 hex digits"}},
		{"bad layout", "unrmod: 1\ntargets:\n  - file: a\n    layout: tight\n    ops: [add-name: {name: x}]\n", "4:13", []string{`unknown layout "tight"`}},
		{"tab indentation", "unrmod: 1\ntargets:\n\t- file: a\n", "3", []string{"not valid YAML", "line 3"}},
		{"unclosed flow", "unrmod: 1\ntargets: [\n", "2", []string{"not valid YAML", "line 2"}},
		{"bracket in a flow value", doc("      - rename: {from: Foo[0], to: Bar}\n"), "5",
			[]string{"not valid YAML", "line 5:", `the value Foo[0] of from must be quoted: from: "Foo[0]"`}},
		{"bracket in the last flow value", doc("      - rename: {from: Foo, to: Bar[1]}\n"), "5",
			[]string{`the value Bar[1] of to must be quoted: to: "Bar[1]"`}},
		{"closing bracket in a flow value", doc("      - set-property: {object: X, property: Arr], value: 1}\n"), "5",
			[]string{`the value Arr] of property must be quoted: property: "Arr]"`}},
		{"bracket on a continued flow line", doc("      - set-property: {object: X,\n          property: Arr[2], value: 1}\n"), "6",
			[]string{`the value Arr[2] of property must be quoted`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := patch.Parse("p.yaml", []byte(c.text))
			if err == nil {
				t.Fatalf("no error for\n%s", c.text)
			}
			var pe *patch.Error
			if !errors.As(err, &pe) {
				t.Fatalf("%T is not a *patch.Error: %v", err, err)
			}
			if pe.Pos.File != "p.yaml" {
				t.Errorf("Pos.File %q", pe.Pos.File)
			}
			want := "p.yaml: "
			if c.pos != "" {
				want = "p.yaml:" + c.pos + ": "
			}
			if got := strings.TrimPrefix(pe.Pos.String(), "p.yaml:"); c.pos != "" && got != c.pos {
				t.Errorf("position %s, want %s (%v)", got, c.pos, err)
			}
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error does not start with %q: %v", want, err)
			}
			for _, w := range c.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %v", w, err)
				}
			}
		})
	}
}

// TestParseRejectsLaterDocuments checks that a second YAML document in a
// patch file is an error rather than silently ignored.
func TestParsePropertyIndex(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{{"3", 3}, {"0x10", 16}, {"0", 0}} {
		f, err := patch.Parse("p.yaml", []byte(doc("      - set-property: {object: X, property: Y, index: "+c.text+", value: 1}\n")))
		if err != nil {
			t.Fatalf("index %s: %v", c.text, err)
		}
		if got := f.Targets[0].Ops[0].(*patch.SetProperty).Index; got != c.want {
			t.Errorf("index %s parsed as %d, want %d", c.text, got, c.want)
		}
	}
}

func TestChangeString(t *testing.T) {
	for _, c := range []struct {
		ch   patch.Change
		want string
	}{
		{patch.Change{Op: "add-name", Target: "name 40", New: "MyNewName"}, "add-name: name 40: added MyNewName"},
		{patch.Change{Op: "rename", Target: "name 12", Old: "a", New: "b"}, "rename: name 12: a → b"},
		{patch.Change{Op: "rename", Target: "name 12", Old: "a", New: "b", Note: "reaches 2 property tags", Warning: "w"},
			"rename: name 12: a → b (reaches 2 property tags)\n    warning: w"},
		{patch.Change{Op: "package-flags", Target: "header", Field: "flags", New: "AllowDownload", Already: true},
			"package-flags: header flags: already AllowDownload (no change)"},
	} {
		if got := c.ch.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestParseRejectsLaterDocuments(t *testing.T) {
	text := doc("      - add-name: {name: x}\n") + "---\nunrmod: 1\ntargets: 5\n"
	_, err := patch.Parse("p.yaml", []byte(text))
	if err == nil || !strings.Contains(err.Error(), "one YAML document") || !strings.HasPrefix(err.Error(), "p.yaml:6:") {
		t.Fatalf("second document: got %v", err)
	}
}

func TestParseFile(t *testing.T) {
	if _, err := patch.ParseFile(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(examplesDir, "rename.yaml")
	f, err := patch.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != path || f.Targets[0].Ops[0].Position().File != path {
		t.Errorf("Path %q, op at %v", f.Path, f.Targets[0].Ops[0].Position())
	}
}

// ---- the JSON Schema ----

// opSamples holds a minimal valid use of every operation.
var opSamples = map[string]string{
	"rename":          "rename: {from: a, to: b}",
	"add-name":        "add-name: {name: x}",
	"package-flags":   "package-flags: {set: [AllowDownload]}",
	"object-flags":    "object-flags: {object: X, clear: [Public]}",
	"replace-export":  "replace-export: {object: X, from: {object: Y}}",
	"set-property":    "set-property: {object: X, property: Y, value: 1}",
	"retarget-import": "retarget-import: {import: Engine.Light, package: Other}",
	"replace-texture": "replace-texture: {object: X, image: a.png, palette: new, mips: keep-count, dither: true}",
	"replace-sound":   "replace-sound: {object: X, file: x.wav}",
	"prune-imports":   "prune-imports: {}",
	"add-row":         "add-row: {object: X, row: R, copy-of: S}",
	"remove-row":      "remove-row: {object: X, row: R}",
	"rename-row":      "rename-row: {object: X, row: R, to: S}",
	"remove-element":  "remove-element: {object: X, row: R, property: \"V[1]\"}",
}

// parserOps returns the operation names the parser accepts, as it lists
// them for an unknown operation.
func parserOps(t *testing.T) []string {
	t.Helper()
	_, err := patch.Parse("p.yaml", []byte(doc("      - no-such-op: {}\n")))
	if err == nil {
		t.Fatal("an unknown operation parses")
	}
	_, list, ok := strings.Cut(err.Error(), "operations: ")
	if !ok {
		t.Fatalf("the error does not list the operations: %v", err)
	}
	names := strings.Split(list, ", ")
	sort.Strings(names)
	return names
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../docs/patch.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("patch.schema.json: %v", err)
	}
	return s
}

func TestSchemaMatchesParser(t *testing.T) {
	s := loadSchema(t)
	if s["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("$schema %v: the YAML language server supports draft-07 best", s["$schema"])
	}
	defs := s["definitions"].(map[string]any)
	var schemaOps []string
	for _, alt := range defs["op"].(map[string]any)["oneOf"].([]any) {
		m := alt.(map[string]any)
		req := m["required"].([]any)
		props := m["properties"].(map[string]any)
		if len(req) != 1 || len(props) != 1 || m["additionalProperties"] != false {
			t.Errorf("op alternative %v is not an object with exactly one key", req)
		}
		schemaOps = append(schemaOps, req[0].(string))
	}
	sort.Strings(schemaOps)
	ops := parserOps(t)
	if !reflect.DeepEqual(schemaOps, ops) {
		t.Errorf("schema ops %v, parser ops %v", schemaOps, ops)
	}
	var samples []string
	for k := range opSamples {
		samples = append(samples, k)
	}
	sort.Strings(samples)
	if !reflect.DeepEqual(samples, ops) {
		t.Errorf("opSamples covers %v, parser ops %v", samples, ops)
	}
	for _, name := range ops {
		text := doc("      - " + opSamples[name] + "\n")
		f, err := patch.Parse("p.yaml", []byte(text))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if k := f.Targets[0].Ops[0].Kind(); k != name {
			t.Errorf("%s parses as %s", name, k)
		}
		if errs := validate(t, s, yamlValue(t, text)); len(errs) > 0 {
			t.Errorf("%s: the schema rejects %s: %v", name, opSamples[name], errs)
		}
	}

	// The enums are the parser's.
	tprops := defs["target"].(map[string]any)["properties"].(map[string]any)
	if got := tprops["layout"].(map[string]any)["enum"]; !reflect.DeepEqual(got, []any{"preserve", "compact"}) {
		t.Errorf("layout enum %v", got)
	}
	for _, l := range tprops["layout"].(map[string]any)["enum"].([]any) {
		if _, err := writer.ParseLayout(l.(string)); err != nil {
			t.Errorf("layout %v: %v", l, err)
		}
	}
	// The flag enums hold every named flag of legacy and zen packages, each
	// with and without its prefix, and nothing else.
	type flagKind struct {
		parse func(string) error
		names func(bit uint32) []string
	}
	for def, kinds := range map[string][]flagKind{
		"packageFlag": {
			{func(s string) error { _, err := reader.ParsePackageFlag(s); return err }, func(b uint32) []string { return reader.PackageFlags(b).Names() }},
			{func(s string) error { _, err := zen.ParsePackageFlag(s); return err }, func(b uint32) []string { return zen.PackageFlags(b).Names() }},
		},
		"objectFlag": {
			{func(s string) error { _, err := reader.ParseObjectFlag(s); return err }, func(b uint32) []string { return reader.ObjectFlags(b).Names() }},
			{func(s string) error { _, err := zen.ParseObjectFlag(s); return err }, func(b uint32) []string { return zen.ObjectFlags(b).Names() }},
		},
	} {
		enum := defs[def].(map[string]any)["anyOf"].([]any)[0].(map[string]any)["enum"].([]any)
		inEnum := map[string]bool{}
		for _, n := range enum {
			inEnum[n.(string)] = true
			parsed := false
			for _, k := range kinds {
				parsed = parsed || k.parse(n.(string)) == nil
			}
			if !parsed {
				t.Errorf("%s %v is no flag of any package kind", def, n)
			}
		}
		named := map[string]bool{}
		for _, k := range kinds {
			for bit := uint32(1); bit != 0; bit <<= 1 {
				if n := k.names(bit)[0]; !strings.HasPrefix(n, "0x") {
					named[n] = true
					if !inEnum[n] {
						t.Errorf("%s enum lacks %s", def, n)
					}
				}
			}
		}
		if len(enum) != 2*len(named) {
			t.Errorf("%s enum has %d entries for %d named flags (each with and without prefix)", def, len(enum), len(named))
		}
	}
	setProp := defs["op"].(map[string]any)["oneOf"].([]any)
	for _, alt := range setProp {
		body := alt.(map[string]any)["properties"].(map[string]any)
		sp, ok := body["set-property"].(map[string]any)
		if !ok {
			continue
		}
		for _, ty := range sp["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any) {
			text := doc("      - set-property: {object: X, property: Y, type: " + ty.(string) + ", value: 1}\n")
			if _, err := patch.Parse("p.yaml", []byte(text)); err != nil {
				t.Errorf("type %v: %v", ty, err)
			}
		}
	}
}

func TestSchemaValidatesExamples(t *testing.T) {
	s := loadSchema(t)
	checkSchemaKeywords(t, s)
	for _, path := range examplePatches(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if errs := validate(t, s, yamlValue(t, string(data))); len(errs) > 0 {
			t.Errorf("%s does not match the schema:\n  %s", path, strings.Join(errs, "\n  "))
		}
	}
	// Patches the parser rejects are rejected by the schema too (so the
	// validator is not vacuous and the schema is as strict as the parser).
	for _, text := range []string{
		"unrmod: 2\ntargets:\n  - file: a\n    ops: [add-name: {name: x}]\n",
		"unrmod: 1\ntargets: []\n",
		"unrmod: 1\ntargets:\n  - file: a\n    outptu: b\n    ops: [add-name: {name: x}]\n",
		"unrmod: 1\ntargets:\n  - file: a\n    ops: []\n",
		"unrmod: 1\ntargets:\n  - file: a\n    layout: tight\n    ops: [add-name: {name: x}]\n",
		"unrmod: 1\ntargets:\n  - file: a\n    guid: '0123'\n    ops: [add-name: {name: x}]\n",
		doc("      - {rename: {from: a, to: b}, add-name: {name: x}}\n"),
		doc("      - renam: {from: a, to: b}\n"),
		doc("      - rename: {from: a}\n"),
		doc("      - rename: {from: a, to: None}\n"),
		doc("      - package-flags: {}\n"),
		doc("      - package-flags: {set: [AllowDownlaod]}\n"),
		doc("      - object-flags: {object: X}\n"),
		doc("      - object-flags: {object: X, set: [Publik]}\n"),
		doc("      - set-property: {object: X, property: Y}\n"),
		doc("      - set-property: {object: X, property: Y, type: vector, value: 1}\n"),
		doc("      - set-property: {object: X, property: Y, index: -1, value: 1}\n"),
		doc("      - set-property: {object: X, property: Y, value: [1]}\n"),
		doc("      - replace-export: {object: X}\n"),
		doc("      - replace-export: {object: X, data: {hex: '00'}, from: {object: Y}}\n"),
		doc("      - replace-export: {object: X, data: {hex: '00', file: a.bin}}\n"),
		doc("      - replace-export: {object: X, data: {hex: 'zz'}}\n"),
		doc("      - replace-export: {object: X, from: {file: a.u}}\n"),
		doc("      - retarget-import: {import: Engine.Light}\n"),
		doc("      - replace-sound: {object: X}\n"),
		doc("      - replace-sound: {object: X, file: a.wav, data: {hex: '00'}}\n"),
		doc("      - prune-imports: {all: true}\n"),
		doc("      - prune-imports: [a]\n"),
		doc("      - prune-imports: yes\n"),
	} {
		if _, err := patch.Parse("p.yaml", []byte(text)); err == nil {
			t.Errorf("the parser accepts\n%s", text)
		}
		if errs := validate(t, s, yamlValue(t, text)); len(errs) == 0 {
			t.Errorf("the schema accepts\n%s", text)
		}
	}
}

// yamlValue decodes YAML into plain Go values, as the YAML language server
// sees them.
func yamlValue(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return v
}

// schemaKeywords are the JSON Schema keywords validate understands; the
// annotations are ignored.
var schemaKeywords = map[string]bool{
	"$ref": true, "type": true, "properties": true, "additionalProperties": true, "required": true,
	"enum": true, "const": true, "items": true, "minItems": true, "oneOf": true, "anyOf": true, "not": true,
	"pattern": true, "minLength": true, "maxLength": true, "minimum": true, "maximum": true,
	"$schema": true, "$id": true, "title": true, "description": true, "default": true, "definitions": true,
}

// checkSchemaKeywords fails on keywords validate would silently ignore, and
// checks that every object schema forbids unknown keys.
func checkSchemaKeywords(t *testing.T, s any) {
	t.Helper()
	var walk func(path string, v any)
	walk = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, x := range m {
			if !schemaKeywords[k] {
				t.Errorf("%s: keyword %q is not understood by the test's validator", path, k)
			}
			switch k {
			case "properties", "definitions":
				for name, sub := range x.(map[string]any) {
					walk(path+"/"+k+"/"+name, sub)
				}
			case "items", "not":
				walk(path+"/"+k, x)
			case "oneOf", "anyOf":
				for i, sub := range x.([]any) {
					walk(fmt.Sprintf("%s/%s/%d", path, k, i), sub)
				}
			}
		}
		if m["type"] == "object" && m["additionalProperties"] != false {
			t.Errorf("%s: an object schema without additionalProperties: false", path)
		}
		if _, ok := m["description"]; !ok && m["$ref"] == nil && !strings.Contains(path, "Of/") && !strings.HasSuffix(path, "/not") && !strings.HasSuffix(path, "/items") {
			t.Errorf("%s: no description", path)
		}
	}
	walk("#", s)
}

// validate checks v against the subset of JSON Schema draft-07 that
// docs/patch.schema.json uses, and returns what does not match.
func validate(t *testing.T, root map[string]any, v any) []string {
	t.Helper()
	var check func(path string, s map[string]any, v any) []string
	check = func(path string, s map[string]any, v any) []string {
		var errs []string
		bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			sub, ok := root["definitions"].(map[string]any)[name].(map[string]any)
			if !ok {
				t.Fatalf("bad $ref %s", ref)
			}
			errs = append(errs, check(path, sub, v)...)
		}
		if ty, ok := s["type"]; ok {
			var types []string
			switch x := ty.(type) {
			case string:
				types = []string{x}
			case []any:
				for _, y := range x {
					types = append(types, y.(string))
				}
			}
			match := false
			for _, ty := range types {
				match = match || hasType(v, ty)
			}
			if !match {
				bad("%v is not of type %v", v, ty)
				return errs
			}
		}
		if c, ok := s["const"]; ok && !sameJSON(c, v) {
			bad("%v is not %v", v, c)
		}
		if enum, ok := s["enum"].([]any); ok {
			found := false
			for _, e := range enum {
				found = found || sameJSON(e, v)
			}
			if !found {
				bad("%v is not one of %v", v, enum)
			}
		}
		if str, ok := v.(string); ok {
			if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
				bad("%q does not match %s", str, p)
			}
			if n, ok := s["minLength"].(float64); ok && utf8.RuneCountInString(str) < int(n) {
				bad("%q is shorter than %v", str, n)
			}
			if n, ok := s["maxLength"].(float64); ok && utf8.RuneCountInString(str) > int(n) {
				bad("%q is longer than %v", str, n)
			}
		}
		if num, ok := toFloat(v); ok {
			if n, ok := s["minimum"].(float64); ok && num < n {
				bad("%v < %v", num, n)
			}
			if n, ok := s["maximum"].(float64); ok && num > n {
				bad("%v > %v", num, n)
			}
		}
		if m, ok := v.(map[string]any); ok {
			props, _ := s["properties"].(map[string]any)
			for _, r := range asList(s["required"]) {
				if _, ok := m[r.(string)]; !ok {
					bad("missing %q", r)
				}
			}
			for k, x := range m {
				if sub, ok := props[k].(map[string]any); ok {
					errs = append(errs, check(path+"/"+k, sub, x)...)
				} else if s["additionalProperties"] == false {
					bad("unknown key %q", k)
				}
			}
		}
		if l, ok := v.([]any); ok {
			if n, ok := s["minItems"].(float64); ok && len(l) < int(n) {
				bad("fewer than %v items", n)
			}
			if items, ok := s["items"].(map[string]any); ok {
				for i, x := range l {
					errs = append(errs, check(fmt.Sprintf("%s/%d", path, i), items, x)...)
				}
			}
		}
		if alts := asList(s["oneOf"]); len(alts) > 0 {
			n := 0
			for _, a := range alts {
				if len(check(path, a.(map[string]any), v)) == 0 {
					n++
				}
			}
			if n != 1 {
				bad("matches %d of the oneOf alternatives, want exactly 1", n)
			}
		}
		if alts := asList(s["anyOf"]); len(alts) > 0 {
			n := 0
			for _, a := range alts {
				if len(check(path, a.(map[string]any), v)) == 0 {
					n++
				}
			}
			if n == 0 {
				bad("matches none of the anyOf alternatives")
			}
		}
		if not, ok := s["not"].(map[string]any); ok && len(check(path, not, v)) == 0 {
			bad("matches a schema it must not")
		}
		return errs
	}
	return check("#", root, v)
}

func asList(v any) []any { l, _ := v.([]any); return l }

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func hasType(v any, ty string) bool {
	switch ty {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := toFloat(v)
		return ok
	case "integer":
		f, ok := toFloat(v)
		return ok && f == math.Trunc(f)
	case "null":
		return v == nil
	}
	return false
}

func sameJSON(a, b any) bool {
	if x, ok := toFloat(a); ok {
		y, ok := toFloat(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

// flagTexts joins the texts of a flag list with spaces.
func flagTexts(l []patch.FlagName) string {
	var out []string
	for _, n := range l {
		out = append(out, n.Text)
	}
	return strings.Join(out, " ")
}
