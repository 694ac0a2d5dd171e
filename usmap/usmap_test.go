package usmap_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// corpusMappings returns the .usmap files of the corpus by compression.
func corpusMappings(t testing.TB) map[usmap.Compression]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "mappings", "*", "*.usmap"))
	if len(files) == 0 {
		t.Fatal("the corpus has no .usmap files")
	}
	out := map[usmap.Compression]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 8 {
			t.Fatalf("%s: too short", f)
		}
		// The method byte follows the magic, the version and (from
		// version 1) the 4-byte has-versioning bool, which is 0 here.
		at := 3
		if b[2] >= 1 {
			at = 7
		}
		out[usmap.Compression(b[at])] = f
	}
	return out
}

// TestCorpusSameSchema reads the corpus mappings stored without
// compression, with Zstandard and with Brotli, and checks they give the
// same schema.
func TestCorpusSameSchema(t *testing.T) {
	files := corpusMappings(t)
	var want *usmap.Mappings
	for _, c := range []usmap.Compression{usmap.CompressionNone, usmap.CompressionZstandard, usmap.CompressionBrotli} {
		f, ok := files[c]
		if !ok {
			t.Fatalf("the corpus has no %s mappings", c)
		}
		m, err := usmap.Open(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m.Compression != c {
			t.Errorf("%s: compression %s, want %s", f, m.Compression, c)
		}
		if len(m.Structs) == 0 || len(m.Enums) == 0 {
			t.Fatalf("%s: %d structs, %d enums", f, len(m.Structs), len(m.Enums))
		}
		if want == nil {
			want = m
			continue
		}
		if !reflect.DeepEqual(m.Structs, want.Structs) || !reflect.DeepEqual(m.Enums, want.Enums) || !reflect.DeepEqual(m.Names, want.Names) {
			t.Errorf("%s: the schema differs from the uncompressed one's", f)
		}
	}
}

// TestCorpusSchema checks what the engine's schema says of a few classes
// and structs the fixture project uses: the super chain, static arrays,
// containers, enums.
func TestCorpusSchema(t *testing.T) {
	m, err := usmap.Open(corpusMappings(t)[usmap.CompressionNone], nil)
	if err != nil {
		t.Fatal(err)
	}
	slots, err := m.Schema("Texture2D")
	if err != nil {
		t.Fatal(err)
	}
	// Texture2D's own slots come first, then Texture's, and so on to Object.
	var owners []string
	for _, s := range slots {
		if s.Property == nil {
			t.Fatalf("Texture2D schema has an empty slot")
		}
		if len(owners) == 0 || owners[len(owners)-1] != s.Owner.Name {
			owners = append(owners, s.Owner.Name)
		}
	}
	if got := strings.Join(owners, ">"); !strings.HasPrefix(got, "Texture2D>Texture>") {
		t.Errorf("Texture2D schema owners %s", got)
	}
	var compression *usmap.Property
	for _, s := range slots {
		if s.Property.Name == "CompressionSettings" {
			compression = s.Property
		}
	}
	if compression == nil || compression.Type.Kind != usmap.EnumProperty || compression.Type.Inner == nil ||
		compression.Type.Inner.Kind != usmap.ByteProperty {
		t.Errorf("Texture.CompressionSettings: %+v", compression)
	} else if e := m.Enum(compression.Type.Enum); e == nil || len(e.Entries) == 0 {
		t.Errorf("enum %s missing", compression.Type.Enum)
	} else if name, ok := e.Lookup(0); !ok || name == "" {
		t.Errorf("enum %s has no value 0", e.Name)
	}
	row := m.Struct("FixtureTableRow")
	if row == nil {
		t.Fatal("no FixtureTableRow")
	}
	kinds := map[string]string{}
	for _, p := range row.Properties {
		kinds[p.Name] = p.Type.String()
	}
	for name, want := range map[string]string{
		"Number": "IntProperty", "Kind": "EnumProperty(EFixtureEnum,ByteProperty)",
		"Nested": "StructProperty(FixtureNestedStruct)", "Values": "ArrayProperty(IntProperty)",
	} {
		if kinds[name] != want {
			t.Errorf("FixtureTableRow.%s: %s, want %s", name, kinds[name], want)
		}
	}
	if _, err := m.Schema("NoSuchClass"); !errors.Is(err, usmap.ErrMissing) {
		t.Errorf("missing class: %v", err)
	}
}

// TestOodleNeedsCodec checks that Oodle-compressed mappings are refused
// with ErrOodleUnavailable without a codec, and decoded through one.
func TestOodleNeedsCodec(t *testing.T) {
	files := corpusMappings(t)
	f, ok := files[usmap.CompressionOodle]
	if !ok {
		t.Fatal("the corpus has no Oodle mappings")
	}
	_, err := usmap.Open(f, nil)
	if !errors.Is(err, usmap.ErrOodleUnavailable) || !errors.Is(err, ue.ErrUnsupportedMethod) {
		t.Fatalf("Oodle without a codec: %v", err)
	}
	var fe *ue.FormatError
	if !errors.As(err, &fe) || fe.File != f {
		t.Errorf("error does not name the file: %v", err)
	}
	// A codec registered under the name Oodle is used: this one fails,
	// and its failure is reported.
	codecs := ue.NewCodecs()
	called := false
	codecs.Register(ue.Codec{Name: "Oodle", Decompress: func(dst, src []byte) error {
		called = true
		return errors.New("test codec")
	}})
	_, err = usmap.Open(f, &usmap.Options{Codecs: codecs})
	if !called || err == nil || !strings.Contains(err.Error(), "test codec") {
		t.Errorf("registered Oodle codec: called %v, err %v", called, err)
	}
}

// build returns a version-4 uncompressed file with the given payload.
func build(payload []byte) []byte {
	b := []byte{0xC4, 0x30, 4, 0, 0, 0, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// TestMalformed checks that bad files give *ue.FormatError values that
// name the structure, without panics or huge allocations.
func TestMalformed(t *testing.T) {
	le := binary.LittleEndian
	big := le.AppendUint32(nil, 0xFFFFFFFF)
	names := le.AppendUint32(nil, 1)
	names = append(le.AppendUint16(names, 1), 'A')
	loop := append([]byte(nil), names...)
	loop = le.AppendUint32(loop, 0) // enums
	loop = le.AppendUint32(loop, 1) // structs
	loop = le.AppendUint32(loop, 0) // name A
	loop = le.AppendUint32(loop, 0) // super A: itself
	loop = append(loop, 0, 0, 0, 0)
	for _, tc := range []struct {
		name string
		data []byte
		want string
		kind error
	}{
		{"magic", []byte{1, 2, 3}, "magic", ue.ErrCorrupt},
		{"version", []byte{0xC4, 0x30, 9}, "version 9", ue.ErrUnsupportedVersion},
		{"method", append([]byte{0xC4, 0x30, 0, 7}, le.AppendUint32(le.AppendUint32(nil, 0), 0)...), "compression method 7", ue.ErrUnsupportedMethod},
		{"huge size", append([]byte{0xC4, 0x30, 0, 3}, le.AppendUint32(le.AppendUint32(nil, 1), 0xFFFFFFF0)...), "beyond the limit", ue.ErrCorrupt},
		{"compressed size", append([]byte{0xC4, 0x30, 0, 0}, le.AppendUint32(le.AppendUint32(nil, 100), 100)...), "compressed size 100", ue.ErrCorrupt},
		{"name count", build(big), "name count", ue.ErrCorrupt},
		{"enum count", build(append(append([]byte(nil), names...), big...)), "enum count", ue.ErrCorrupt},
		{"bad zstd", append([]byte{0xC4, 0x30, 0, 3}, append(le.AppendUint32(le.AppendUint32(nil, 4), 10), 1, 2, 3, 4)...), "Zstandard", ue.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := usmap.Read(tc.data, &usmap.Options{Name: "x.usmap"})
			var fe *ue.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.kind) || fe.File != "x.usmap" {
				t.Errorf("got %v, want a FormatError with %q", err, tc.want)
			}
		})
	}
	m, err := usmap.Read(build(loop), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Schema("A"); !errors.Is(err, ue.ErrCorrupt) {
		t.Errorf("looping super chain: %v", err)
	}
}
