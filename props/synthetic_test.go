package props_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/props"
)

// The corpus has tagged packages of UE 4.27 and UE 5.8 only. These tests
// build property lists in memory in the other tag layouts (UE 5.0–5.3,
// version 1011) and with what the corpus UE4 packages lack (older arrays
// of structs with their inner tag), encode them, and check that they decode
// to the same model and that Set keeps every size consistent.

// synth builds property lists over a name map.
type synth struct {
	names []string
}

func (s *synth) name(text string) props.Name {
	for i, n := range s.names {
		if n == text {
			return props.Name{Index: int32(i), Text: text}
		}
	}
	s.names = append(s.names, text)
	return props.Name{Index: int32(len(s.names) - 1), Text: text}
}

func (s *synth) typ(name string, params ...props.TypeName) props.TypeName {
	return props.TypeName{Name: s.name(name), Params: params}
}

func (s *synth) prop(name string, t props.TypeName, v props.Value) *props.Property {
	p := &props.Property{Value: v}
	p.Name, p.Type = s.name(name), t
	return p
}

func (s *synth) list(ps ...*props.Property) *props.List {
	return &props.List{Properties: ps, None: s.name("None")}
}

// sample returns an object's list using every kind of value, for the
// layout of version ue5 (0 for UE4).
func (s *synth) sample(ue5 int32) *props.List {
	real := func(f float64) props.Value {
		if ue5 >= props.VersionLargeWorldCoordinates {
			return props.Double(f)
		}
		return props.Float(f)
	}
	vector := func(x, y, z float64) *props.Struct {
		return &props.Struct{Type: "Vector", Native: []props.Field{{Name: "X", Value: real(x)}, {Name: "Y", Value: real(y)}, {Name: "Z", Value: real(z)}}}
	}
	structType := func(name string) props.TypeName {
		if ue5 >= props.VersionCompleteTypeName {
			return s.typ("StructProperty", s.typ(name, s.typ("/Script/CoreUObject")))
		}
		return s.typ("StructProperty", s.typ(name))
	}
	item := func(count int32, label string, on bool) *props.Struct {
		return &props.Struct{Type: "Item", Tagged: s.list(
			s.prop("Count", s.typ("IntProperty"), props.Int(count)),
			s.prop("Label", s.typ("StrProperty"), &props.String{Text: label}),
			s.prop("bOn", s.typ("BoolProperty"), props.Bool(on)),
		)}
	}
	byteType := s.typ("ByteProperty", s.typ("None"))
	enumByteType := s.typ("ByteProperty", s.typ("EColor"))
	if ue5 >= props.VersionCompleteTypeName {
		byteType = s.typ("ByteProperty")
		enumByteType = s.typ("ByteProperty", s.typ("EColor", s.typ("/Script/Game")))
	}
	soft := &props.SoftObject{AssetPath: s.name("/Game/A.A"), SubPath: &props.String{Zero: true}}
	if ue5 >= props.VersionSoftObjectPathTopLevel {
		soft = &props.SoftObject{TopLevel: true, PackageName: s.name("/Game/A"), AssetName: s.name("A"), SubPath: &props.String{Zero: true}}
	}
	points := &props.Array{Inner: s.typ("StructProperty"), Elements: []props.Element{{Value: vector(1, 2, 3)}, {Value: vector(-1, -2, -3)}}}
	items := &props.Array{Inner: s.typ("StructProperty"), Elements: []props.Element{{Value: item(1, "one", true)}, {Value: item(2, "two", false)}}}
	pointsType := s.typ("ArrayProperty", points.Inner)
	itemsType := s.typ("ArrayProperty", items.Inner)
	if ue5 >= props.VersionCompleteTypeName {
		points.Inner, items.Inner = structType("Vector"), structType("Item")
		pointsType, itemsType = s.typ("ArrayProperty", points.Inner), s.typ("ArrayProperty", items.Inner)
	} else {
		points.InnerTag = &props.Tag{Name: s.name("Points"), Type: structType("Vector")}
		items.InnerTag = &props.Tag{Name: s.name("Items"), Type: structType("Item")}
	}
	owner := props.Object(-1)
	l := s.list(
		s.prop("Health", s.typ("FloatProperty"), props.Float(100)),
		s.prop("bAlive", s.typ("BoolProperty"), props.Bool(true)),
		s.prop("Level", byteType, props.Byte(3)),
		s.prop("Color", enumByteType, props.EnumValue(s.name("EColor::Red"))),
		s.prop("Title", s.typ("StrProperty"), &props.String{Text: "Hero"}),
		s.prop("Tag", s.typ("NameProperty"), props.NameValue(s.name("Player"))),
		s.prop("Owner", s.typ("ObjectProperty"), props.Object(-1)),
		s.prop("Icon", s.typ("SoftObjectProperty"), soft),
		s.prop("Where", structType("Vector"), vector(10, 20, 30)),
		s.prop("Main", structType("Item"), item(7, "main", true)),
		s.prop("Points", pointsType, points),
		s.prop("Items", itemsType, items),
		s.prop("Flags", s.typ("ArrayProperty", s.typ("BoolProperty")), &props.Array{Inner: s.typ("BoolProperty"),
			Elements: []props.Element{{Value: props.Bool(true)}, {Value: props.Bool(false)}}}),
		s.prop("Lookup", s.typ("MapProperty", s.typ("NameProperty"), s.typ("IntProperty")), &props.Raw{Bytes: make([]byte, 8)}),
		s.prop("OnHit", s.typ("DelegateProperty"), &props.Delegate{Object: 1, Function: s.name("HandleHit")}),
		s.prop("Unbound", s.typ("DelegateProperty"), &props.Delegate{Function: s.name("None")}),
		s.prop("OnDeath", s.typ("MulticastSparseDelegateProperty"), &props.MulticastDelegate{Delegates: []props.Delegate{
			{Object: 1, Function: s.name("HandleHit")}, {Object: -3, Function: s.name("Die")}}}),
		s.prop("Watched", s.typ("FieldPathProperty"), &props.FieldPath{Path: []props.Name{s.name("Health")}, Owner: &owner}),
		// Saved before the owner was: the path runs up to the package.
		s.prop("OldWatched", s.typ("FieldPathProperty"), &props.FieldPath{Path: []props.Name{s.name("Health"), s.name("Hero_C"), s.name("/Game/Hero")}}),
		s.prop("Fields", s.typ("ArrayProperty", s.typ("FieldPathProperty")), &props.Array{Inner: s.typ("FieldPathProperty"),
			Elements: []props.Element{{Value: &props.FieldPath{Path: []props.Name{s.name("Value"), s.name("Inner")}, Owner: &owner}}}}),
	)
	// A static array element and a property GUID.
	w := s.prop("Weights", s.typ("IntProperty"), props.Int(5))
	w.ArrayIndex = 2
	g := props.GUID{1, 2, 3}
	w.PropertyGUID = &g
	if ue5 >= props.VersionCompleteTypeName {
		w.Flags = props.FlagHasArrayIndex | props.FlagHasPropertyGUID
		for _, p := range l.Properties {
			if x, ok := p.Value.(*props.Struct); ok && x.Native != nil {
				p.Flags |= props.FlagHasBinaryOrNativeSerialize
			}
		}
		l.Properties[10].Flags |= props.FlagHasBinaryOrNativeSerialize // Points
	}
	l.Properties = append(l.Properties, w)
	if ue5 >= props.VersionTagExtensions {
		l.Control = &props.Control{}
		if ue5 < props.VersionCompleteTypeName {
			for _, p := range l.Properties {
				p.Extensions = &props.Extensions{}
			}
		}
		// One tag with the overridable-information extension.
		l.Properties[0].Extensions = &props.Extensions{Flags: props.ExtensionOverridableInformation, OverrideOperation: 2}
		if ue5 >= props.VersionCompleteTypeName {
			l.Properties[0].Flags |= props.FlagHasPropertyExtensions
		}
	}
	l.HasGUIDField = true
	return l
}

func TestSyntheticLayouts(t *testing.T) {
	for _, ue5 := range []int32{0, 1000, 1004, 1007, 1010, 1011, 1012, 1018} {
		s := &synth{}
		l := s.sample(ue5)
		ctx := &props.Context{Names: s.names, FileVersionUE5: ue5, Object: true}
		ctx.AddName = func(n string) (int32, error) {
			ctx.Names = append(ctx.Names, n)
			return int32(len(ctx.Names) - 1), nil
		}
		data, err := props.Encode(l, ctx)
		if err != nil {
			t.Fatalf("version %d: %v", ue5, err)
		}
		got, err := props.Decode(data, ctx)
		if err != nil {
			t.Fatalf("version %d: %v", ue5, err)
		}
		text := got.String()
		for _, want := range []string{
			"Health (FloatProperty) = 100\n",
			"bAlive (BoolProperty) = true\n",
			"Level (ByteProperty) = 3\n",
			"Color (ByteProperty(EColor)) = EColor::Red\n",
			`Title (StrProperty) = "Hero"`,
			"Icon (SoftObjectProperty) = \"/Game/A.A\"\n",
			"Where (StructProperty(Vector)) = (X=10,Y=20,Z=30)\n",
			"Points (ArrayProperty(StructProperty(Vector))) = 2 elements\n",
			"  [1] = (X=-1,Y=-2,Z=-3)\n",
			"Items (ArrayProperty(StructProperty(Item))) = 2 elements\n",
			"    Label (StrProperty) = \"two\"\n",
			"Flags (ArrayProperty(BoolProperty)) = 2 elements\n",
			"Lookup (MapProperty(NameProperty,IntProperty)) = 0 entries\n",
			"Weights[2] (IntProperty) = 5\n",
			"OnHit (DelegateProperty) = export 0.HandleHit\n",
			"Unbound (DelegateProperty) = None\n",
			"OnDeath (MulticastSparseDelegateProperty) = (export 0.HandleHit,import 2.Die)\n",
			"Watched (FieldPathProperty) = import 0:Health\n",
			"OldWatched (FieldPathProperty) = /Game/Hero.Hero_C:Health\n",
			"  [0] = import 0:Inner:Value\n",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("version %d: missing %q in\n%s", ue5, want, text)
			}
		}
		if again, err := props.Encode(got, ctx); err != nil || !bytes.Equal(again, data) {
			t.Errorf("version %d: decoded list encodes differently: %v", ue5, err)
		}
		if (got.Control != nil) != (ue5 >= props.VersionTagExtensions) || !got.HasGUIDField || got.TailEnd != len(data) {
			t.Errorf("version %d: control %v, tail %v/%d of %d", ue5, got.Control, got.HasGUIDField, got.TailEnd, len(data))
		}
		if e := got.Properties[0].Extensions; ue5 >= props.VersionTagExtensions && (e == nil || e.OverrideOperation != 2) {
			t.Errorf("version %d: extensions %+v", ue5, e)
		}

		// Changes of each size, deep in older struct arrays too; each set
		// back restores the bytes.
		for _, c := range []struct{ path, value, back string }{
			{"Items[1].Label", "a much longer label", "two"},
			{"Items[0].Count", "-5", "1"},
			{"Items[0].bOn", "false", "true"},
			{"Points[1].Y", "0.5", "-2"},
			{"Main.Label", "", "main"},
			{"Flags[1]", "true", "false"},
			{"Color", "Blue", "EColor::Red"},
			{"Level", "255", "3"},
			{"Icon", "/Game/Dir/Other.Other:Sub", "/Game/A.A"},
			{"Weights[2]", "6", "5"},
			{"bAlive", "false", "true"},
		} {
			out, ch, err := props.Set(data, ctx, props.Target{Path: c.path}, props.Input{Text: c.value})
			if err != nil {
				t.Errorf("version %d: %s: %v", ue5, c.path, err)
				continue
			}
			nl, err := props.Decode(out, ctx)
			if err != nil {
				t.Errorf("version %d: %s: %v", ue5, c.path, err)
				continue
			}
			if enc, err := props.Encode(nl, ctx); err != nil || !bytes.Equal(enc, out) {
				t.Errorf("version %d: %s: sizes not consistent after the change (%v)", ue5, c.path, err)
			}
			back, _, err := props.Set(out, ctx, props.Target{Path: c.path}, props.Input{Text: c.back})
			if err != nil || !bytes.Equal(back, data) {
				t.Errorf("version %d: %s: set back: %v (change %+v)", ue5, c.path, err, ch)
			}
		}
		// Adding in every layout: the tag decodes, and the list encodes.
		for _, c := range []struct{ path, value, typ string }{
			{"Armor", "12", "int"}, {"Main.bShiny", "true", "bool"}, {"Items[1].Weight", "0.5", "double"}, {"Speed[1]", "3", "uint16"},
		} {
			out, ch, err := props.Set(data, ctx, props.Target{Path: c.path}, props.Input{Text: c.value, Type: c.typ})
			if err != nil {
				t.Errorf("version %d: add %s: %v", ue5, c.path, err)
				continue
			}
			nl, err := props.Decode(out, ctx)
			if err != nil {
				t.Errorf("version %d: add %s: %v", ue5, c.path, err)
				continue
			}
			if v, _, _, err := nl.Lookup(c.path); err != nil || props.Display(v, nil) != ch.New {
				t.Errorf("version %d: add %s: %v, %v", ue5, c.path, v, err)
			}
			if enc, err := props.Encode(nl, ctx); err != nil || !bytes.Equal(enc, out) {
				t.Errorf("version %d: add %s: sizes not consistent (%v)", ue5, c.path, err)
			}
		}
	}
}
