package props

// This file lists the native structs whose binary layout the package
// knows: the engine's core math and misc structs that serialize with their
// own Serialize function instead of as a tag list.

// fieldKind is the binary type of a native struct field.
type fieldKind uint8

const (
	fkReal   fieldKind = iota // float before large world coordinates, double after
	fkFloat                   // float32
	fkDouble                  // float64
	fkInt32
	fkUInt32
	fkInt64
	fkUInt64
	fkUInt8
	fkUInt16
	fkGUID // 16 bytes, shown as one GUID
)

// size returns the field's size in bytes.
func (k fieldKind) size(lwc bool) int {
	switch k {
	case fkReal:
		if lwc {
			return 8
		}
		return 4
	case fkFloat, fkInt32, fkUInt32:
		return 4
	case fkDouble, fkInt64, fkUInt64:
		return 8
	case fkUInt8:
		return 1
	case fkUInt16:
		return 2
	case fkGUID:
		return 16
	}
	return 0
}

type nativeField struct {
	name string
	kind fieldKind
}

// Special native structs handled in code rather than by a field list.
const (
	nativeSoftPath = "\x00softpath" // SoftObjectPath and its aliases
	nativeTags     = "\x00tags"     // GameplayTagContainer
)

func fields(kind fieldKind, names ...string) []nativeField {
	out := make([]nativeField, len(names))
	for i, n := range names {
		out[i] = nativeField{n, kind}
	}
	return out
}

func prefixed(prefix string, f []nativeField) []nativeField {
	out := make([]nativeField, len(f))
	for i, x := range f {
		out[i] = nativeField{prefix + x.name, x.kind}
	}
	return out
}

func concat(parts ...[]nativeField) []nativeField {
	var out []nativeField
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var (
	xyz   = []string{"X", "Y", "Z"}
	xy    = []string{"X", "Y"}
	xyzw  = []string{"X", "Y", "Z", "W"}
	pyr   = []string{"Pitch", "Yaw", "Roll"}
	rgba  = []string{"R", "G", "B", "A"}
	vec   = fields(fkReal, xyz...)
	vec2  = fields(fkReal, xy...)
	vec3f = fields(fkFloat, xyz...)
	vec3d = fields(fkDouble, xyz...)
	vec2f = fields(fkFloat, xy...)
	one   = []string{""}
)

// matrixFields returns the 16 fields of a 4×4 matrix, M[row][column].
func matrixFields(kind fieldKind) []nativeField {
	var out []nativeField
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			out = append(out, nativeField{"M[" + string(rune('0'+r)) + "][" + string(rune('0'+c)) + "]", kind})
		}
	}
	return out
}

// nativeStructs maps a struct name to its fields, or to a special layout.
// Facts: the engine's Serialize of each struct (large world coordinates
// make the FReal structs doubles from package version 1004); FColor is
// stored as its uint32, bytes B, G, R, A.
var nativeStructs = map[string][]nativeField{
	"Vector":        vec,
	"Vector2D":      vec2,
	"Vector4":       fields(fkReal, xyzw...),
	"Vector3f":      vec3f,
	"Vector3d":      vec3d,
	"Vector2f":      vec2f,
	"Vector4f":      fields(fkFloat, xyzw...),
	"Vector4d":      fields(fkDouble, xyzw...),
	"Rotator":       fields(fkReal, pyr...),
	"Rotator3f":     fields(fkFloat, pyr...),
	"Rotator3d":     fields(fkDouble, pyr...),
	"Quat":          fields(fkReal, xyzw...),
	"Quat4f":        fields(fkFloat, xyzw...),
	"Quat4d":        fields(fkDouble, xyzw...),
	"Plane":         fields(fkReal, xyzw...),
	"Plane4f":       fields(fkFloat, xyzw...),
	"Plane4d":       fields(fkDouble, xyzw...),
	"Sphere":        concat(prefixed("Center.", vec), fields(fkReal, "W")),
	"Sphere3f":      concat(prefixed("Center.", vec3f), fields(fkFloat, "W")),
	"Sphere3d":      concat(prefixed("Center.", vec3d), fields(fkDouble, "W")),
	"Box":           concat(prefixed("Min.", vec), prefixed("Max.", vec), fields(fkUInt8, "IsValid")),
	"Box3f":         concat(prefixed("Min.", vec3f), prefixed("Max.", vec3f), fields(fkUInt8, "IsValid")),
	"Box3d":         concat(prefixed("Min.", vec3d), prefixed("Max.", vec3d), fields(fkUInt8, "IsValid")),
	"Box2D":         concat(prefixed("Min.", vec2), prefixed("Max.", vec2), fields(fkUInt8, "bIsValid")),
	"Box2f":         concat(prefixed("Min.", vec2f), prefixed("Max.", vec2f), fields(fkUInt8, "bIsValid")),
	"TwoVectors":    concat(prefixed("v1.", vec), prefixed("v2.", vec)),
	"Matrix":        matrixFields(fkReal),
	"Matrix44f":     matrixFields(fkFloat),
	"Matrix44d":     matrixFields(fkDouble),
	"LinearColor":   fields(fkFloat, rgba...),
	"Color":         fields(fkUInt8, "B", "G", "R", "A"),
	"IntPoint":      fields(fkInt32, xy...),
	"Int32Point":    fields(fkInt32, xy...),
	"IntVector2":    fields(fkInt32, xy...),
	"Int32Vector2":  fields(fkInt32, xy...),
	"UintPoint":     fields(fkUInt32, xy...),
	"Uint32Point":   fields(fkUInt32, xy...),
	"UintVector2":   fields(fkUInt32, xy...),
	"IntVector":     fields(fkInt32, xyz...),
	"UintVector":    fields(fkUInt32, xyz...),
	"IntVector4":    fields(fkInt32, xyzw...),
	"UintVector4":   fields(fkUInt32, xyzw...),
	"Int64Point":    fields(fkInt64, xy...),
	"Int64Vector2":  fields(fkInt64, xy...),
	"Int64Vector":   fields(fkInt64, xyz...),
	"Int64Vector4":  fields(fkInt64, xyzw...),
	"UInt64Point":   fields(fkUInt64, xy...),
	"UInt64Vector2": fields(fkUInt64, xy...),
	"UInt64Vector":  fields(fkUInt64, xyz...),
	"UInt64Vector4": fields(fkUInt64, xyzw...),
	"Guid":          fields(fkGUID, one...),
	"DateTime":      fields(fkInt64, "Ticks"),
	"Timespan":      fields(fkInt64, "Ticks"),
	"FrameNumber":   fields(fkInt32, "Value"),
	"RichCurveKey": concat(fields(fkUInt8, "InterpMode", "TangentMode", "TangentWeightMode"),
		fields(fkFloat, "Time", "Value", "ArriveTangent", "ArriveTangentWeight", "LeaveTangent", "LeaveTangentWeight")),
	"SimpleCurveKey": fields(fkFloat, "Time", "Value"),
	// MovieScene's TRange<FFrameNumber>, a uint32 sequence ID and a
	// font's glyph (four int32, a byte, an int32: 21 bytes, unpadded).
	"MovieSceneFrameRange": frameRange,
	"MovieSceneSequenceID": fields(fkUInt32, "Value"),
	// A Slate vector kept for old data: an FVector2f.
	"DeprecateSlateVector2D": vec2f,
	"FontCharacter": concat(fields(fkInt32, "StartU", "StartV", "USize", "VSize"), fields(fkUInt8, "TextureIndex"),
		fields(fkInt32, "VerticalOffset")),
	"SoftObjectPath":       {{nativeSoftPath, 0}},
	"SoftClassPath":        {{nativeSoftPath, 0}},
	"StringAssetReference": {{nativeSoftPath, 0}},
	"StringClassReference": {{nativeSoftPath, 0}},
	"GameplayTagContainer": {{nativeTags, 0}},
}

// layoutSize returns the size of a fixed layout, or -1 for a layout of
// variable size (or none).
func layoutSize(layout []nativeField, lwc bool) int {
	if len(layout) == 0 || layout[0].name == nativeSoftPath || layout[0].name == nativeTags {
		return -1
	}
	n := 0
	for _, f := range layout {
		n += f.kind.size(lwc)
	}
	return n
}

// nativeLayout returns the layout of a native struct, or nil.
func nativeLayout(name string) []nativeField { return nativeStructs[name] }
