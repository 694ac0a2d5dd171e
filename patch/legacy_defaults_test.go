package patch_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/patch"
	"github.com/unrmod/unrmod/reader"
)

// readBack reads property path (Name, or Name.Member...) of export obj in
// the package at path the way props does, independently of the patch
// code: class defaults for a class, the property list otherwise, struct
// members through StructFields.
func readBack(t *testing.T, path, obj, prop string) string {
	t.Helper()
	p := readPkg(t, path)
	i := exportByPath(t, p, obj)
	var l *reader.PropertyList
	var err error
	if p.Exports[i].Class == 0 {
		l, err = p.ClassDefaults(i)
	} else {
		l, err = p.Properties(i)
	}
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(prop, ".")
	q := l.Find(p, parts[0], 0)
	if q == nil {
		t.Fatalf("%s has no %s", obj, parts[0])
	}
	v, err := p.PropertyValue(i, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) == 1 {
		return p.FormatValue(v)
	}
	fields, ok := p.StructFields(v)
	for _, m := range parts[1:] {
		if !ok {
			t.Fatalf("%s: no struct members", prop)
		}
		var next *reader.StructField
		for k := range fields {
			if strings.EqualFold(fields[k].Name, m) {
				next = &fields[k]
			}
		}
		if next == nil {
			t.Fatalf("%s: no member %s", prop, m)
		}
		v, fields, ok = next.Value, next.Fields, next.Fields != nil
	}
	return p.FormatValue(v)
}

// TestLegacyClassDefaultsAndMembers sets class default properties and
// struct members in real UT99 and UT2004 packages: the output verifies,
// the values read back in the independent reading props uses, every other
// property of the object keeps its value, and the patch applied again
// changes nothing.
func TestLegacyClassDefaultsAndMembers(t *testing.T) {
	type set struct{ obj, prop, value, want string }
	for _, c := range []struct {
		rel  string
		sets []set
	}{
		{"legacy/ut99_mods/EnergySword.u", []set{
			{"EnergySword.EnergySword", "Damage", "75", "75"},
			{"EnergySword.EnergySword", "AIRating", "0.9", "0.9"},
			{"EnergySword.EnergySword", "PlayerViewOffset.Z", "-2.5", "-2.5"},
			{"EnergySword.EnergySword", "NameColor.B", "128", "128"},
		}},
		{"legacy/ut99_stock/CTF-Face.unr", []set{
			{"CTF-Face.Light0", "Location.X", "12", "12"},
		}},
		{"legacy-next/ue2/LibHTTP4.u", []set{
			{"LibHTTP4.HttpSock", "iVerbose", "2", "2"},
			{"LibHTTP4.HttpSock", "HTTPVER", "1.0", `"1.0"`},
		}},
		{"legacy-next/ue2/KF-Menu.ut2", []set{
			{"KF-Menu.Light0", "Location.Z", "-100.5", "-100.5"},
			{"KF-Menu.Light0", "Region.iLeaf", "7", "7"},
		}},
	} {
		t.Run(c.rel, func(t *testing.T) {
			in := corpus.Path(t, c.rel)
			var ops strings.Builder
			for _, s := range c.sets {
				obj := s.obj
				if p := readPkg(t, in); p.Exports[exportByPath(t, p, s.obj)].Class == 0 {
					obj = "Class'" + s.obj + "'"
				}
				fmt.Fprintf(&ops, "      - set-property: {object: %q, property: %s, value: %q}\n", obj, s.prop, s.value)
			}
			res, out := applyText(t, oneTarget(in, ops.String()))
			tr := res.Targets[0]
			if len(tr.Changes) != len(c.sets) {
				t.Fatalf("%d changes for %d operations: %s", len(tr.Changes), len(c.sets), tr.Summary())
			}
			outPath := filepath.Join(out, filepath.Base(in))
			q := readPkg(t, outPath) // fails when the output does not verify
			_ = q
			for _, s := range c.sets {
				if got := readBack(t, outPath, s.obj, s.prop); got != s.want {
					t.Errorf("%s %s reads back %s, want %s", s.obj, s.prop, got, s.want)
				}
			}
			// Every other property of the changed objects keeps its value.
			a, b := readPkg(t, in), q
			for _, s := range c.sets {
				i := exportByPath(t, a, s.obj)
				la, lb := propsOf(t, a, i), propsOf(t, b, i)
				if len(la.Props) != len(lb.Props) {
					t.Fatalf("%s: %d properties, had %d", s.obj, len(lb.Props), len(la.Props))
				}
				for k := range la.Props {
					name := a.NameOf(la.Props[k].Name)
					changed := false
					for _, s2 := range c.sets {
						changed = changed || s2.obj == s.obj && strings.EqualFold(strings.Split(s2.prop, ".")[0], name)
					}
					va, _ := a.PropertyValue(i, &la.Props[k])
					vb, _ := b.PropertyValue(i, &lb.Props[k])
					if !changed && a.FormatValue(va) != b.FormatValue(vb) {
						t.Errorf("%s %s: %s → %s, not asked for", s.obj, name, a.FormatValue(va), b.FormatValue(vb))
					}
				}
			}
			again, err := patch.Apply(parsePatch(t, filepath.Join(t.TempDir(), "p.yaml"), oneTarget(outPath, ops.String())), patch.Options{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range again.Targets[0].Changes {
				if !ch.Already {
					t.Errorf("again: %s is not already in effect", ch)
				}
			}
		})
	}
}

// propsOf is export i's property list, or its class defaults.
func propsOf(t *testing.T, p *reader.Package, i int) *reader.PropertyList {
	t.Helper()
	var l *reader.PropertyList
	var err error
	if p.Exports[i].Class == 0 {
		l, err = p.ClassDefaults(i)
	} else {
		l, err = p.Properties(i)
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLegacyPropertyPathRefusals checks the property paths a legacy
// set-property refuses, each with the form to use, and the "did you
// mean" for a misspelt name.
func TestLegacyPropertyPathRefusals(t *testing.T) {
	in := corpus.Path(t, "legacy/ut99_mods/EnergySword.u")
	cls := "Class'EnergySword.EnergySword'"
	for _, c := range []struct {
		name, op, want string
	}{
		{"static array", `{object: "` + cls + `", property: "HitAnims[2]", value: Hit9, type: name}`, "index: (property: HitAnims, index: 2)"},
		{"static array without type", `{object: "` + cls + `", property: "HitAnims[2]", value: Hit9}`, "index: 2"},
		{"no such member", `{object: "` + cls + `", property: PlayerViewOffset.Q, value: 1}`, "its members: X, Y, Z"},
		{"member of a non-struct", `{object: "` + cls + `", property: Damage.X, value: 1}`, "not a struct"},
		{"whole nested struct", `{object: "` + cls + `", property: PlayerViewOffset.Z.W, value: 1}`, "not a struct with a member W"},
		{"member type", `{object: "` + cls + `", property: PlayerViewOffset.Z, value: 1, type: int}`, "stored as Float, not Int"},
		{"misspelt", `{object: "` + cls + `", property: Damag, value: 1}`, `did you mean "Damage"?`},
		{"empty member", `{object: "` + cls + `", property: "PlayerViewOffset.", value: 1}`, "empty part"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			f := parsePatch(t, filepath.Join(dir, "p.yaml"), oneTarget(in, "      - set-property: "+c.op+"\n"))
			_, err := patch.Apply(f, patch.Options{OutputDir: filepath.Join(dir, "out")})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	// A misspelt name given a type is added, with the warning that names
	// the close one.
	res, _ := applyText(t, oneTarget(in, `      - set-property: {object: "`+cls+`", property: Damge, value: 1, type: int}`+"\n"))
	if w := res.Targets[0].Changes[0].Warning; !strings.Contains(w, `did you mean "Damage"?`) {
		t.Errorf("warning %q does not name Damage", w)
	}
}
