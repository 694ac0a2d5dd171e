package reader_test

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// classData returns the data of a UE1 class export (version >= 62) with
// the given script bytes and default property list: UField and UStruct
// fields, the script, UState and UClass fields, then the defaults.
func classData(t *testing.T, p *reader.Package, script []byte, scriptSize int32, defaults []byte) []byte {
	t.Helper()
	d := binio.AppendIndex(nil, 0)                  // SuperField
	d = binio.AppendIndex(d, 0)                     // Next
	d = binio.AppendIndex(d, 0)                     // ScriptText
	d = binio.AppendIndex(d, 0)                     // Children
	d = binio.AppendIndex(d, 0)                     // FriendlyName (None)
	d = binio.AppendI32(d, 12)                      // Line
	d = binio.AppendI32(d, 340)                     // TextPos
	d = binio.AppendI32(d, scriptSize)              // ScriptSize
	d = append(d, script...)                        // bytecode
	d = binary.LittleEndian.AppendUint64(d, 0xFFFF) // ProbeMask
	d = binary.LittleEndian.AppendUint64(d, 0)      // IgnoreMask
	d = binary.LittleEndian.AppendUint16(d, 0xFFFF) // LabelTableOffset
	d = binio.AppendU32(d, 0)                       // StateFlags
	d = binio.AppendU32(d, 0x4000)                  // ClassFlags
	d = append(d, make([]byte, 16)...)              // ClassGuid
	d = binio.AppendIndex(d, 1)                     // one dependency: the class itself
	d = binio.AppendIndex(d, 1)
	d = binio.AppendU32(d, 0)
	d = binio.AppendU32(d, 0xABCDEF01)
	d = binio.AppendIndex(d, 1) // one package import
	d = binio.AppendIndex(d, int32(name(p, "Engine")))
	d = binio.AppendIndex(d, -1)                       // ClassWithin: Core.Object
	d = binio.AppendIndex(d, int32(name(p, "System"))) // ClassConfigName
	return append(d, defaults...)
}

// classPackage returns a version 69 package with one class export whose
// defaults set Speed (float) and Label (str).
func classPackage(t *testing.T, script []byte, scriptSize int32) *reader.Package {
	p := handmade(nil, "Speed", "Label", "Engine", "System", "Object", "Class", "Core", "Package")
	p.Header.Version = reader.Version{File: 69}
	p.Imports = []reader.Import{{ClassPackage: name(p, "Core"), ClassName: name(p, "Class"), Outer: -2, ObjectName: name(p, "Object")},
		{ClassPackage: name(p, "Core"), ClassName: name(p, "Package"), ObjectName: name(p, "Core")}}
	var defaults []byte
	defaults = tagged(t, defaults, writer.PropertyTag{Name: name(p, "Speed"), Type: reader.PropFloat}, f32s(320))
	defaults = tagged(t, defaults, writer.PropertyTag{Name: name(p, "Label"), Type: reader.PropStr}, binio.AppendFString(nil, "hello"))
	defaults = binio.AppendIndex(defaults, 0)
	p.Exports[0].Class = 0
	p.Exports[0].Data = classData(t, p, script, scriptSize, defaults)
	return p
}

func TestClassDefaults(t *testing.T) {
	for _, c := range []struct {
		name       string
		script     []byte
		scriptSize int32
	}{
		{"no script", nil, 0},
		{"script smaller on disk", []byte{0x04, 0x0B, 0x53}, 5},
		{"script larger on disk", []byte{0x1B, 0xC1, 0x80, 0x01, 0x16, 0x53}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := classPackage(t, c.script, c.scriptSize)
			l, err := p.ClassDefaults(0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for k := range l.Props {
				v, err := p.PropertyValue(0, &l.Props[k])
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, p.NameOf(l.Props[k].Name)+"="+p.FormatValue(v))
			}
			if strings.Join(got, " ") != `Speed=320 Label="hello"` || l.End != len(p.Exports[0].Data) {
				t.Errorf("defaults %v, end %d of %d", got, l.End, len(p.Exports[0].Data))
			}
		})
	}
	// What is no class, or no class data, is refused with ErrNoDefaults.
	p := classPackage(t, nil, 0)
	good := p.Exports[0].Data
	for _, c := range []struct {
		name  string
		edit  func(e *reader.Export)
		words string
	}{
		{"not a class", func(e *reader.Export) { e.Class = -1 }, "not a class"},
		{"no data", func(e *reader.Export) { e.Data = nil }, "has no data"},
		{"truncated", func(e *reader.Export) { e.Data = good[:len(good)-3] }, "no place after the class's script"},
		{"bad within", func(e *reader.Export) {
			d := append([]byte(nil), good...)
			at := len(d) - len(good) + strings.Index(string(good), string([]byte{0x81, byte(name(p, "System"))}))
			d[at] = 0x82 // the package Core, not a class
			e.Data = d
		}, "no place"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := *p
			q.Exports = []reader.Export{p.Exports[0]}
			c.edit(&q.Exports[0])
			_, err := q.ClassDefaults(0)
			var fe *reader.FormatError
			if !errors.Is(err, reader.ErrNoDefaults) || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.words) || !strings.Contains(fe.Struct, "class defaults") {
				t.Errorf("error %v", err)
			}
		})
	}
}

// TestClassDefaultsCorpus finds the defaults of every class with data in
// the corpus's script packages, and checks known values.
func TestClassDefaultsCorpus(t *testing.T) {
	files := corpus.Legacy(t)
	next, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "legacy-next", "*", "*"))
	files = append(files, next...)
	values := map[string]string{
		"Engine.Pawn GroundSpeed":          "320",
		"Engine.LevelInfo Title":           `"Untitled"`,
		"Engine.LevelInfo DefaultTexture":  "Texture'Engine.DefaultTexture'",
		"TestUC2.DefaultProperties Coords": "(Origin=(X=0.2,Y=0.4,Z=1),XAxis=(X=1,Y=0,Z=0),YAxis=(X=0,Y=1,Z=0),ZAxis=(X=0,Y=0,Z=1))",
		"TestUC2.DefaultProperties Struct": `(Byte=1,Int=1,Float=1,NameProperty=Name,String="String",Object=Class'TestUC2.DefaultProperties',MetaClass=Class'TestUC2.DefaultProperties',ByteFixedArray=0,ByteFixedArray[1]=0,Vector=(X=1,Y=2,Z=3),ByteArray=0x00,Enum=1,Struct2=(Byte=1))`,
		"LibHTTP4.HttpSock HTTPVER":        `"1.1"`,
	}
	classes, found := 0, 0
	for _, path := range files {
		p, err := reader.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Exports {
			if p.Exports[i].Class != 0 || len(p.Exports[i].Data) == 0 {
				continue
			}
			classes++
			l, err := p.ClassDefaults(i)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			found++
			for k := range l.Props {
				q := &l.Props[k]
				if q.ArrayIndex != 0 {
					continue
				}
				key := p.ExportPath(i) + " " + p.NameOf(q.Name)
				want, ok := values[key]
				if !ok {
					continue
				}
				v, err := p.PropertyValue(i, q)
				if got := p.FormatValue(v); err != nil || got != want {
					t.Errorf("%s = %s (%v), want %s", key, got, err, want)
				}
				delete(values, key)
			}
		}
	}
	for k := range values {
		t.Errorf("%s not found", k)
	}
	t.Logf("%d class exports with data, defaults found for %d", classes, found)
}
