package props

// This file reads the engine structs whose own Serialize writes a layout
// of variable size: counted arrays, a variant chosen by a leading byte, or
// a property list of another struct nested in native fields. Each reader
// walks the bytes as the engine's serializer wrote them and returns the
// struct's fields; a nested property list is read as the data around it is
// (tagged in a tagged package, unversioned with the mappings in an
// unversioned one), so the two forms of a package show the same document.
// Facts: the engine's Serialize functions of each struct (UE 5.4–5.8).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// nativeReader reads the fields of one native struct.
type nativeReader func(r *fieldReader) error

// nativeReaders maps a struct name to the reader of its native layout.
var nativeReaders map[string]nativeReader

func init() {
	nativeReaders = map[string]nativeReader{
		"MovieSceneFloatChannel":              func(r *fieldReader) error { return r.channel(fkFloat) },
		"MovieSceneDoubleChannel":             func(r *fieldReader) error { return r.channel(fkDouble) },
		"MovieSceneTimeWarpVariant":           (*fieldReader).timeWarp,
		"MovieSceneEvaluationFieldEntityTree": func(r *fieldReader) error { return r.evaluationTree(entityAndMetaData) },
		"MovieSceneSubSequenceTree":           func(r *fieldReader) error { return r.evaluationTree(subSequenceEntry) },
		"NiagaraVariableBase":                 func(r *fieldReader) error { return r.niagaraVariable("") },
		"NiagaraVariableWithOffset":           func(r *fieldReader) error { return r.niagaraVariable("Offset") },
		"NiagaraVariable":                     func(r *fieldReader) error { return r.niagaraVariable("VarData") },
		"InstancedStruct":                     (*fieldReader).instancedStruct,
		"InstancedPropertyBag":                (*fieldReader).propertyBag,
		"RigVMPropertyBag":                    (*fieldReader).propertyBag,
		"MidiEvent":                           (*fieldReader).midiEvent,
		"FontData":                            (*fieldReader).fontData,
		"SkeletalMeshSamplingLODBuiltData":    (*fieldReader).weightedSampler,
		"MovieSceneSequenceInstanceDataPtr":   (*fieldReader).inlineValue,
		"PerPlatformFloat":                    func(r *fieldReader) error { return r.perPlatform(fields(fkFloat, "Default")) },
		"PerPlatformInt":                      func(r *fieldReader) error { return r.perPlatform(fields(fkInt32, "Default")) },
		"PerPlatformBool":                     func(r *fieldReader) error { return r.perPlatform(fields(fkUInt32, "Default")) },
		"PerQualityLevelInt":                  func(r *fieldReader) error { return r.perQuality(fkInt32) },
		"PerQualityLevelFloat":                func(r *fieldReader) error { return r.perQuality(fkFloat) },
		"PerPlatformFrameRate": func(r *fieldReader) error {
			return r.perPlatform(fields(fkInt32, "Default.Numerator", "Default.Denominator"))
		},
	}
}

// Layouts of the fixed-size parts the readers use.
var (
	// TRange<FFrameNumber>: each bound is its type (0 exclusive, 1
	// inclusive, 2 open) and its frame.
	frameRange = concat(fields(fkUInt8, "LowerBound.Type"), fields(fkInt32, "LowerBound.Value"),
		fields(fkUInt8, "UpperBound.Type"), fields(fkInt32, "UpperBound.Value"))
	// An evaluation tree's node: its range, its parent's handle (children
	// entry and index), its children's entry and its data's entry.
	treeNode = concat(frameRange, fields(fkInt32, "Parent.ChildrenHandle", "Parent.Index", "ChildrenID", "DataID"))
	// TEvaluationTreeEntryContainer's FEntry.
	treeEntry = fields(fkInt32, "StartIndex", "Size", "Capacity")
	// FEntityAndMetaDataIndex and FMovieSceneSubSequenceTreeEntry.
	entityAndMetaData = fields(fkInt32, "EntityIndex", "MetaDataIndex")
	subSequenceEntry  = concat(fields(fkUInt32, "SequenceID"), fields(fkUInt8, "Flags"))
	// FMovieSceneFloatValue and FMovieSceneDoubleValue as bulk arrays hold
	// them (their memory): the value, the tangent (four floats, the weight
	// mode and three bytes of padding), the interpolation and tangent
	// modes and padding to the value's alignment.
	tangent = concat(fields(fkFloat, "Tangent.ArriveTangent", "Tangent.LeaveTangent", "Tangent.ArriveTangentWeight",
		"Tangent.LeaveTangentWeight"), fields(fkUInt8, "Tangent.TangentWeightMode", "Tangent.Padding0", "Tangent.Padding1",
		"Tangent.Padding2"))
	floatValue  = concat(fields(fkFloat, "Value"), tangent, fields(fkUInt8, "InterpMode", "TangentMode", "Padding0", "Padding1"))
	doubleValue = concat(fields(fkDouble, "Value"), tangent, fields(fkUInt8, "InterpMode", "TangentMode", "Padding0", "Padding1"))
)

// fieldReader reads a native struct's fields from c into s.
type fieldReader struct {
	d    *decoder
	c    *binio.Cursor
	s    *Struct
	name string
}

// readNative reads native struct name with its reader.
func (d *decoder) readNative(c *binio.Cursor, name string, read nativeReader) (*Struct, error) {
	if d.depth >= MaxDepth {
		return nil, d.depthError(c.Pos())
	}
	d.depth++
	defer func() { d.depth-- }()
	r := &fieldReader{d: d, c: c, s: &Struct{Type: name, Offset: c.Pos(), Native: []Field{}}, name: name}
	if err := read(r); err != nil {
		return nil, err
	}
	if c.Err() != nil {
		return nil, d.fail(c)
	}
	r.s.Size = c.Pos() - r.s.Offset
	return r.s, nil
}

// errorAt returns a *ue.FormatError at off naming the struct.
func (r *fieldReader) errorAt(off int, format string, args ...any) error {
	return r.d.errorAt(off, "%s: %s", r.name, fmt.Sprintf(format, args...))
}

// refuse returns a *ue.FormatError at off naming the struct that also
// matches sentinel.
func (r *fieldReader) refuse(off int, sentinel error, format string, args ...any) error {
	return &ue.FormatError{Struct: r.d.where(), Offset: int64(off), Msg: r.name + ": " + fmt.Sprintf(format, args...),
		Err: fmt.Errorf("%w: %w", sentinel, ue.ErrCorrupt)}
}

// add appends a field that starts at at and ends at the cursor.
func (r *fieldReader) add(name string, at int, v Value) {
	r.s.Native = append(r.s.Native, Field{Name: name, Offset: at, Size: r.c.Pos() - at, Value: v})
}

// scalar reads one field of a fixed kind.
func (r *fieldReader) scalar(name string, k fieldKind) (Value, error) {
	at, c := r.c.Pos(), r.c
	var v Value
	switch k {
	case fkFloat:
		v = Float(math.Float32frombits(c.U32(name)))
	case fkDouble:
		v = Double(math.Float64frombits(c.U64(name)))
	case fkInt32:
		v = Int(c.I32(name))
	case fkUInt32:
		v = UInt32(c.U32(name))
	case fkUInt8:
		v = Byte(c.U8(name))
	case fkUInt16:
		v = UInt16(c.U16(name))
	case fkInt64:
		v = Int64(c.I64(name))
	default:
		return nil, r.errorAt(at, "field %s of kind %d", name, k)
	}
	if c.Err() != nil {
		return nil, r.d.fail(c)
	}
	r.add(name, at, v)
	return v, nil
}

// switchField reads a field whose value decides what follows (a variant's
// type, a has-data bool, an element size). It is kept as its bytes, which
// Set refuses to change: another value would need other bytes after it.
func (r *fieldReader) switchField(name string, k fieldKind) (uint64, error) {
	v, err := r.scalar(name, k)
	if err != nil {
		return 0, err
	}
	f := &r.s.Native[len(r.s.Native)-1]
	var n uint64
	switch x := v.(type) {
	case UInt32:
		n = uint64(x)
	case Int:
		n = uint64(uint32(x))
	case Byte:
		n = uint64(x)
	}
	f.Value = &Raw{Bytes: r.d.data[f.Offset : f.Offset+f.Size : f.Offset+f.Size], Text: fmt.Sprint(v)}
	return n, nil
}

// layout reads fields of fixed kinds, their names prefixed.
func (r *fieldReader) layout(prefix string, l []nativeField) error {
	for _, f := range l {
		if _, err := r.scalar(prefix+f.name, f.kind); err != nil {
			return err
		}
	}
	return nil
}

// count reads an int32 element count, checked against the bytes left for
// elements of at least min bytes.
func (r *fieldReader) count(what string, min int) (int, error) {
	at := r.c.Pos()
	n := r.c.I32(what + " count")
	if r.c.Err() != nil {
		return 0, r.d.fail(r.c)
	}
	if n < 0 || int64(n)*int64(max(min, 1)) > int64(r.c.Len()) {
		return 0, r.errorAt(at, "%d %s of at least %d bytes; %d bytes left", n, what, min, r.c.Len())
	}
	return int(n), nil
}

// structArray reads a counted array of structs of fixed layout l (each
// size bytes) as one field.
func (r *fieldReader) structArray(name, typ string, l []nativeField) error {
	size := layoutSize(l, r.d.ctx.lwc())
	n, err := r.count(name, size)
	if err != nil {
		return err
	}
	at := r.c.Pos() - 4
	a := &Array{Inner: structType(typ), Elements: make([]Element, 0, min(n, 64))}
	for i := 0; i < n; i++ {
		eat := r.c.Pos()
		s, err := r.d.native(r.c, typ, l)
		if err != nil {
			return err
		}
		a.Elements = append(a.Elements, Element{Offset: eat, Size: r.c.Pos() - eat, Value: s})
	}
	r.add(name, at, a)
	return nil
}

// list reads the property list of struct typ nested in the native data:
// unversioned in an unversioned package, tagged otherwise.
func (r *fieldReader) list(name, typ string) error {
	at := r.c.Pos()
	var s *Struct
	if r.d.ctx.unversioned() {
		if r.d.ctx.Schema.Struct(typ) == nil {
			return r.refuse(at, usmap.ErrMissing, "the mappings have no struct %s for its %s", typ, name)
		}
		l, err := r.d.ulist(r.c, typ)
		if err != nil {
			return err
		}
		l.TailEnd = l.End
		s = &Struct{Type: typ, Tagged: l, Offset: at, Size: r.c.Pos() - at}
	} else {
		var err error
		if s, err = r.d.taggedStruct(r.c, typ); err != nil {
			return err
		}
	}
	r.add(name, at, s)
	return nil
}

// structType is the TypeName of a struct of the given name.
func structType(name string) TypeName {
	return TypeName{Name: Name{Index: -1, Text: "StructProperty"}, Params: []TypeName{{Name: Name{Index: -1, Text: name}}}}
}

// channel reads FMovieSceneFloatChannel or FMovieSceneDoubleChannel
// (TMovieSceneCurveChannelImpl::Serialize): the pre- and post-infinity
// extrapolation bytes, the key times and values as bulk arrays (each its
// element size, its count and the elements' memory), the default value, a
// 4-byte has-default bool, the tick resolution and a 4-byte show-curve
// bool.
func (r *fieldReader) channel(k fieldKind) error {
	if err := r.layout("", fields(fkUInt8, "PreInfinityExtrap", "PostInfinityExtrap")); err != nil {
		return err
	}
	values := floatValue
	if k == fkDouble {
		values = doubleValue
	}
	for _, b := range []struct {
		name, typ string
		layout    []nativeField
	}{{"Times", "FrameNumber", fields(fkInt32, "Value")}, {"Values", "MovieSceneValue", values}} {
		at := r.c.Pos()
		v, err := r.switchField(b.name+".ElementSize", fkInt32)
		if err != nil {
			return err
		}
		if want := layoutSize(b.layout, false); v != uint64(want) {
			return r.errorAt(at, "%s of %d-byte elements; the engine writes %d", b.name, int32(v), want)
		}
		if err := r.structArray(b.name, b.typ, b.layout); err != nil {
			return err
		}
	}
	return r.layout("", concat(fields(k, "DefaultValue"), fields(fkUInt32, "bHasDefaultValue"),
		fields(fkInt32, "TickResolution.Numerator", "TickResolution.Denominator"), fields(fkUInt32, "bShowCurve")))
}

// timeWarp reads FMovieSceneTimeWarpVariant (through
// FMovieSceneNumericVariant::SerializeCustom): a 4-byte is-literal bool;
// a literal is the play rate (a double), anything else is the type byte
// and its payload: an object for Custom (1), the property list of its
// struct for FixedTime (2) … ClampFloat (7), nothing for FixedPlayRate (0).
func (r *fieldReader) timeWarp() error {
	lit, err := r.switchField("bIsLiteral", fkUInt32)
	if err != nil {
		return err
	}
	if lit != 0 {
		_, err := r.scalar("PlayRate", fkDouble)
		return err
	}
	at := r.c.Pos()
	t, err := r.switchField("Type", fkUInt8)
	if err != nil {
		return err
	}
	payload := map[uint64]string{2: "MovieSceneTimeWarpFixedFrame", 3: "FrameRate", 4: "MovieSceneTimeWarpLoop",
		5: "MovieSceneTimeWarpClamp", 6: "MovieSceneTimeWarpLoopFloat", 7: "MovieSceneTimeWarpClampFloat"}
	switch {
	case t == 0:
		return nil
	case t == 1:
		oat := r.c.Pos()
		o := Object(r.c.I32("custom time warp"))
		if r.c.Err() != nil {
			return r.d.fail(r.c)
		}
		r.add("Custom", oat, o)
		return nil
	case payload[t] != "":
		return r.list("Payload", payload[t])
	default:
		return r.errorAt(at, "time warp type %d (the engine has 0 to 7)", t)
	}
}

// evaluationTree reads a TMovieSceneEvaluationTree (as
// FMovieSceneEvaluationFieldEntityTree and FMovieSceneSubSequenceTree hold
// one): the root node, the child nodes' container and the data container,
// each container an array of entries and an array of items.
func (r *fieldReader) evaluationTree(item []nativeField) error {
	if err := r.layout("RootNode.", treeNode); err != nil {
		return err
	}
	for _, p := range []struct {
		prefix, typ string
		layout      []nativeField
	}{{"ChildNodes", "MovieSceneEvaluationTreeNode", treeNode}, {"Data", r.name + "Item", item}} {
		if err := r.structArray(p.prefix+".Entries", "EvaluationTreeEntry", treeEntry); err != nil {
			return err
		}
		if err := r.structArray(p.prefix+".Items", p.typ, p.layout); err != nil {
			return err
		}
	}
	return nil
}

// niagaraVariable reads FNiagaraVariableBase: its name, then its type
// definition by value (the property list of NiagaraTypeDefinition);
// FNiagaraVariableWithOffset adds its int32 Offset, FNiagaraVariable its
// value bytes (a counted byte array).
func (r *fieldReader) niagaraVariable(extra string) error {
	at := r.c.Pos()
	n, ok := r.d.name(r.c, "Niagara variable name")
	if !ok {
		return r.d.fail(r.c)
	}
	r.add("Name", at, NameValue(n))
	if err := r.list("TypeDef", "NiagaraTypeDefinition"); err != nil {
		return err
	}
	switch extra {
	case "Offset":
		_, err := r.scalar("Offset", fkInt32)
		return err
	case "VarData":
		n, err := r.count("VarData bytes", 1)
		if err != nil {
			return err
		}
		at := r.c.Pos() - 4
		b := r.c.Bytes(n, "VarData")
		if r.c.Err() != nil {
			return r.d.fail(r.c)
		}
		r.add("VarData", at, &Raw{Bytes: r.d.data[at:r.c.Pos():r.c.Pos()], Text: fmt.Sprintf("%d bytes", len(b))})
	}
	return nil
}

// Package versions before which some native layouts had a version byte
// (the struct's custom version did not exist yet).
const (
	versionInstancedStructCustom = 1010 // UE 5.3
	versionPropertyBagCustom     = 1008 // UE 5.1
)

// instancedStruct reads FInstancedStruct: before UE 5.3 a version byte
// (after a 0xABABABAB marker in editor data), then the struct's object,
// the int32 size of its data and the data, the struct's property list.
// The data is read as that list when the struct's name is known (and,
// unversioned, in the mappings) and it fills the size exactly; it is kept
// as its bytes otherwise.
func (r *fieldReader) instancedStruct() error {
	if r.d.ctx.FileVersionUE5 < versionInstancedStructCustom {
		if r.c.Len() >= 4 && binary.LittleEndian.Uint32(r.d.data[r.c.Pos():]) == 0xABABABAB {
			if _, err := r.switchField("EditorHeader", fkUInt32); err != nil {
				return err
			}
		}
		if _, err := r.switchField("Version", fkUInt8); err != nil {
			return err
		}
	}
	at := r.c.Pos()
	o := Object(r.c.I32("instanced struct type"))
	if r.c.Err() != nil {
		return r.d.fail(r.c)
	}
	r.add("ScriptStruct", at, o)
	sat := r.c.Pos()
	size := r.c.I32("instanced struct size")
	if r.c.Err() != nil {
		return r.d.fail(r.c)
	}
	if size < 0 || int(size) > r.c.Len() {
		return r.errorAt(sat, "data of %d bytes; %d bytes left", size, r.c.Len())
	}
	start, end := r.c.Pos(), r.c.Pos()+int(size)
	defer r.sized()
	if typ := r.structName(o); typ != "" && size > 0 {
		sub := &fieldReader{d: r.d, c: r.d.cursor(start, end), s: r.s, name: r.name}
		n := len(r.s.Native)
		err := sub.list("Data", typ)
		if errors.Is(err, errDepth) {
			return err
		}
		if err == nil && sub.c.Len() == 0 {
			r.c.Seek(end, "")
			r.s.Native[n].Offset = sat
			r.s.Native[n].Size = end - sat
			return nil
		}
		r.s.Native = r.s.Native[:n]
	}
	r.c.Bytes(int(size), "instanced struct data")
	r.add("Data", sat, &Raw{Bytes: r.d.data[start:end:end]})
	return nil
}

// sized marks the last field as stored after its int32 size.
func (r *fieldReader) sized() {
	if n := len(r.s.Native); n > 0 {
		r.s.Native[n-1].Sized = true
	}
}

// structName returns the short name of the struct object o names, or "".
func (r *fieldReader) structName(o Object) string {
	if o == 0 || r.d.ctx.ObjectName == nil {
		return ""
	}
	return usmap.ShortName(r.d.ctx.ObjectName(int32(o)))
}

// propertyBag reads FInstancedPropertyBag (RigVMPropertyBag derives from
// it): before UE 5.1 a version byte (1: the value's size is stored), a
// 4-byte has-data bool, then the property descriptors, the int32
// size of the value and the value (a property list of a struct made at
// run time from the descriptors, kept as its bytes). Descriptors are
// refused: their layout changed with a custom version (meta class,
// property flags, key types) that cooked packages do not record.
func (r *fieldReader) propertyBag() error {
	if r.d.ctx.FileVersionUE5 < versionPropertyBagCustom {
		at := r.c.Pos()
		v, err := r.switchField("Version", fkUInt8)
		if err != nil {
			return err
		}
		if v == 0 {
			return r.refuse(at, ErrNoSchema, "a property bag of version 0, which stores no size for its value")
		}
	}
	has, err := r.switchField("bHasData", fkUInt32)
	if err != nil || has == 0 {
		return err
	}
	at := r.c.Pos()
	n, err := r.count("property descriptors", 34)
	if err != nil {
		return err
	}
	if n != 0 {
		return r.refuse(at, ErrNoSchema, "%d property descriptors, whose layout depends on a custom version the package does not record", n)
	}
	r.add("PropertyDescs", at, &Array{Inner: structType("PropertyBagPropertyDesc"), Elements: []Element{}})
	sat := r.c.Pos()
	size := r.c.I32("property bag size")
	if r.c.Err() != nil {
		return r.d.fail(r.c)
	}
	if size < 0 || int(size) > r.c.Len() {
		return r.errorAt(sat, "value of %d bytes; %d bytes left", size, r.c.Len())
	}
	vat := r.c.Pos()
	r.c.Bytes(int(size), "property bag value")
	r.add("Value", sat, &Raw{Bytes: r.d.data[vat:r.c.Pos():r.c.Pos()]})
	r.sized()
	return nil
}

// midiEvent reads FMidiEvent: the int32 tick, then the message: its type
// byte and the bytes of that type (standard 3, tempo 3, time signature 2,
// text 3, runtime none).
func (r *fieldReader) midiEvent() error {
	if _, err := r.scalar("Tick", fkInt32); err != nil {
		return err
	}
	at := r.c.Pos()
	t, err := r.switchField("Message.Type", fkUInt8)
	if err != nil {
		return err
	}
	var l []nativeField
	switch t {
	case 1:
		l = fields(fkUInt8, "Status", "Data1", "Data2")
	case 2:
		l = concat(fields(fkUInt8, "MicsPerQuarterNoteH"), fields(fkUInt16, "MicsPerQuarterNoteL"))
	case 4:
		l = fields(fkUInt8, "Numerator", "Denominator")
	case 8:
		l = concat(fields(fkUInt8, "TextType"), fields(fkUInt16, "TextIndex"))
	case 16:
	default:
		return r.errorAt(at, "MIDI message type %d (the engine has 1, 2, 4, 8 and 16)", t)
	}
	return r.layout("Message.", l)
}

// perPlatform reads TPerPlatformProperty: a 4-byte cooked bool, the
// default value and, when not cooked, the per-platform overrides (a map
// of platform names to values).
func (r *fieldReader) perPlatform(value []nativeField) error {
	cooked, err := r.switchField("bCooked", fkUInt32)
	if err != nil {
		return err
	}
	if err := r.layout("", value); err != nil {
		return err
	}
	if cooked != 0 {
		return nil
	}
	size := 8 + layoutSize(value, false)
	n, err := r.count("per-platform values", size)
	if err != nil {
		return err
	}
	at := r.c.Pos() - 4
	a := &Array{Inner: structType("PerPlatformValue"), Elements: make([]Element, 0, min(n, 64))}
	for i := 0; i < n; i++ {
		eat := r.c.Pos()
		e := &fieldReader{d: r.d, c: r.c, s: &Struct{Type: "PerPlatformValue", Offset: eat}, name: r.name}
		nat := r.c.Pos()
		name, ok := r.d.name(r.c, "platform name")
		if !ok {
			return r.d.fail(r.c)
		}
		e.add("Platform", nat, NameValue(name))
		for _, f := range value {
			if _, err := e.scalar(strings.Replace(f.name, "Default", "Value", 1), f.kind); err != nil {
				return err
			}
		}
		e.s.Size = r.c.Pos() - eat
		a.Elements = append(a.Elements, Element{Offset: eat, Size: e.s.Size, Value: e.s})
	}
	r.add("PerPlatform", at, a)
	return nil
}

// scalarArray reads a counted array of values of kind k as one field.
func (r *fieldReader) scalarArray(name string, k fieldKind, inner string) error {
	size := k.size(r.d.ctx.lwc())
	n, err := r.count(name, size)
	if err != nil {
		return err
	}
	at := r.c.Pos() - 4
	a := &Array{Inner: TypeName{Name: Name{Index: -1, Text: inner}}, Elements: make([]Element, 0, min(n, 64))}
	e := &fieldReader{d: r.d, c: r.c, s: &Struct{}, name: r.name}
	for i := 0; i < n; i++ {
		eat := r.c.Pos()
		v, err := e.scalar(name, k)
		if err != nil {
			return err
		}
		a.Elements = append(a.Elements, Element{Offset: eat, Size: r.c.Pos() - eat, Value: v})
	}
	r.add(name, at, a)
	return nil
}

// weightedSampler reads FSkeletalMeshSamplingLODBuiltData, an
// FWeightedRandomSampler: the probabilities (floats), the aliases (int32)
// and the total weight.
func (r *fieldReader) weightedSampler() error {
	if err := r.scalarArray("AreaWeightedTriangleSampler.Prob", fkFloat, "FloatProperty"); err != nil {
		return err
	}
	if err := r.scalarArray("AreaWeightedTriangleSampler.Alias", fkInt32, "IntProperty"); err != nil {
		return err
	}
	_, err := r.scalar("AreaWeightedTriangleSampler.TotalWeight", fkFloat)
	return err
}

// inlineValue reads MovieScene's inline value pointers
// (FMovieSceneSequenceInstanceDataPtr): the path of the value's struct as
// a string, then, when it is not empty, that struct's property list.
func (r *fieldReader) inlineValue() error {
	at := r.c.Pos()
	t, err := r.d.fstring(r.c, "inline value type")
	if err != nil {
		return err
	}
	r.add("TypeName", at, t)
	if t.Text == "" {
		return nil
	}
	return r.list("Value", usmap.ShortName(t.Text))
}

// fontData reads FFontData as cooked: a 4-byte is-cooked bool, the font
// face object and, when there is none, the font file name, hinting and
// loading policy bytes; then the int32 sub-face index. The form saved
// uncooked is refused.
func (r *fieldReader) fontData() error {
	at := r.c.Pos()
	cooked, err := r.switchField("bIsCooked", fkUInt32)
	if err != nil {
		return err
	}
	if cooked == 0 {
		return r.refuse(at, ErrNoSchema, "font data saved uncooked, whose layout unrmod does not read")
	}
	face, err := r.switchField("FontFaceAsset", fkInt32)
	if err != nil {
		return err
	}
	if face == 0 {
		fat := r.c.Pos()
		f, err := r.d.fstring(r.c, "font file name")
		if err != nil {
			return err
		}
		r.add("FontFilename", fat, f)
		if err := r.layout("", fields(fkUInt8, "Hinting", "LoadingPolicy")); err != nil {
			return err
		}
	}
	_, err = r.scalar("SubFaceIndex", fkInt32)
	return err
}

// perQuality reads FPerQualityLevelProperty: a 4-byte cooked bool, the
// default value and the per-quality-level overrides (a map of int32
// quality levels to values), written cooked or not.
func (r *fieldReader) perQuality(k fieldKind) error {
	if _, err := r.scalar("bCooked", fkUInt32); err != nil {
		return err
	}
	if _, err := r.scalar("Default", k); err != nil {
		return err
	}
	n, err := r.count("per-quality values", 4+k.size(false))
	if err != nil {
		return err
	}
	at := r.c.Pos() - 4
	a := &Array{Inner: structType("PerQualityLevelValue"), Elements: make([]Element, 0, min(n, 64))}
	for i := 0; i < n; i++ {
		eat := r.c.Pos()
		s, err := r.d.native(r.c, "PerQualityLevelValue", concat(fields(fkInt32, "QualityLevel"), fields(k, "Value")))
		if err != nil {
			return err
		}
		a.Elements = append(a.Elements, Element{Offset: eat, Size: r.c.Pos() - eat, Value: s})
	}
	r.add("PerQuality", at, a)
	return nil
}

// nativeError names struct name in err, a *ue.FormatError that does not
// name it yet (the cursor's errors name only the field).
func nativeError(err error, name string) error {
	var fe *ue.FormatError
	if !errors.As(err, &fe) || strings.HasPrefix(fe.Msg, name+": ") {
		return err
	}
	named := *fe
	named.Msg = name + ": " + fe.Msg
	return &named
}
