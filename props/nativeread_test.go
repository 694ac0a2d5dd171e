package props_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/props"
)

// nativeBytes builds the bytes of a native struct.
type nativeBytes []byte

func (b nativeBytes) u8(v uint8) nativeBytes   { return append(b, v) }
func (b nativeBytes) u16(v uint16) nativeBytes { return binary.LittleEndian.AppendUint16(b, v) }
func (b nativeBytes) i32(v int32) nativeBytes  { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
func (b nativeBytes) f32(v float32) nativeBytes {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}
func (b nativeBytes) f64(v float64) nativeBytes {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
func (b nativeBytes) name(n props.Name) nativeBytes { return b.i32(n.Index).i32(int32(n.Number)) }

// TestNativeReaders builds tagged lists holding native structs of the
// layouts the corpus has no instance of (a tag flagged native gives their
// size), decodes them and checks the fields read, that they encode back to
// the same bytes, and that a struct one byte short or long is kept as its
// bytes with the reason.
func TestNativeReaders(t *testing.T) {
	s := &synth{}
	android := s.name("Android")
	for _, tc := range []struct {
		typ  string
		data nativeBytes
		want string // the struct's Display
	}{
		{"PerQualityLevelInt", nativeBytes{}.i32(1).i32(2).i32(2).i32(0).i32(1).i32(3).i32(4),
			"(bCooked=1,Default=2,PerQuality=[(QualityLevel=0,Value=1),(QualityLevel=3,Value=4)])"},
		{"PerQualityLevelFloat", nativeBytes{}.i32(1).f32(0.5).i32(0), "(bCooked=1,Default=0.5,PerQuality=[])"},
		{"PerPlatformInt", nativeBytes{}.i32(0).i32(7).i32(1).name(android).i32(3),
			"(bCooked=0,Default=7,PerPlatform=[(Platform=Android,Value=3)])"},
		{"PerPlatformFrameRate", nativeBytes{}.i32(1).i32(30).i32(1),
			"(bCooked=1,Default.Numerator=30,Default.Denominator=1)"},
		{"MovieSceneTimeWarpVariant", nativeBytes{}.i32(0).u8(1).i32(-3), "(bIsLiteral=0,Type=1,Custom=import 2)"},
		{"MovieSceneTimeWarpVariant", nativeBytes{}.i32(0).u8(0), "(bIsLiteral=0,Type=0)"},
		{"MidiEvent", nativeBytes{}.i32(480).u8(2).u8(7).u16(0xA120),
			"(Tick=480,Message.Type=2,Message.MicsPerQuarterNoteH=7,Message.MicsPerQuarterNoteL=41248)"},
		{"MidiEvent", nativeBytes{}.i32(0).u8(16), "(Tick=0,Message.Type=16)"},
		{"FontData", nativeBytes{}.i32(1).i32(0).i32(4).u8('a').u8('.').u8('f').u8(0).u8(1).u8(2).i32(3),
			`(bIsCooked=1,FontFaceAsset=0,FontFilename="a.f",Hinting=1,LoadingPolicy=2,SubFaceIndex=3)`},
		{"MovieSceneDoubleChannel", func() nativeBytes {
			b := nativeBytes{}.u8(1).u8(2).i32(4).i32(1).i32(100).i32(32).i32(1).f64(2.5)
			b = b.f32(0).f32(0).f32(0).f32(0).u8(0).u8(0).u8(0).u8(0).u8(3).u8(1).u8(0).u8(0)
			return b.f64(1.5).i32(1).i32(24000).i32(1).i32(0)
		}(), "(PreInfinityExtrap=1,PostInfinityExtrap=2,Times.ElementSize=4,Times=[(Value=100)],Values.ElementSize=32," +
			"Values=[(Value=2.5,Tangent.ArriveTangent=0,Tangent.LeaveTangent=0,Tangent.ArriveTangentWeight=0," +
			"Tangent.LeaveTangentWeight=0,Tangent.TangentWeightMode=0,Tangent.Padding0=0,Tangent.Padding1=0," +
			"Tangent.Padding2=0,InterpMode=3,TangentMode=1,Padding0=0,Padding1=0)],DefaultValue=1.5," +
			"bHasDefaultValue=1,TickResolution.Numerator=24000,TickResolution.Denominator=1,bShowCurve=0)"},
		{"InstancedStruct", nativeBytes{}.i32(0).i32(0), "(ScriptStruct=None,Data=0x)"},
		{"RigVMPropertyBag", nativeBytes{}.i32(0), "(bHasData=0)"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			for _, extra := range []int{0, -1, 1} {
				data := append(nativeBytes(nil), tc.data...)
				switch extra {
				case -1:
					data = data[:len(data)-1]
				case 1:
					data = append(data, 0)
				}
				typ := s.typ("StructProperty", s.typ(tc.typ, s.typ("/Script/Engine")))
				p := s.prop("Value", typ, &props.Struct{Type: tc.typ, Raw: data})
				p.Flags |= props.FlagHasBinaryOrNativeSerialize
				in := s.list(p)
				ctx := &props.Context{Names: s.names, FileVersionUE5: 1018, Object: false}
				b, err := props.Encode(in, ctx)
				if err != nil {
					t.Fatal(err)
				}
				l, err := props.Decode(b, ctx)
				if err != nil {
					t.Fatal(err)
				}
				q := l.Properties[0]
				v, ok := q.Value.(*props.Struct)
				if extra != 0 {
					if _, raw := q.Value.(*props.Raw); !raw && (!ok || v.Raw == nil) || !strings.Contains(q.Problem, tc.typ) {
						t.Errorf("%d bytes of %d: %s (%q), want the bytes kept with the reason", len(data), len(tc.data),
							props.Display(q.Value, nil), q.Problem)
					}
					continue
				}
				if !ok || v.Native == nil {
					t.Fatalf("%s is not read field by field: %s (%s)", tc.typ, props.Display(q.Value, nil), q.Problem)
				}
				if got := props.Display(v, nil); got != tc.want {
					t.Errorf("%s reads\n %s\nwant\n %s", tc.typ, got, tc.want)
				}
				if out, err := props.Encode(l, ctx); err != nil || string(out) != string(b) {
					t.Errorf("%s encodes to %x (%v), want %x", tc.typ, out, err, b)
				}
			}
		})
	}
}
