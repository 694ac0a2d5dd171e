package pak_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// TestReadThroughCodecs reads a Zlib pak with tables of codecs: the
// built-in one streams, a Zlib that only decodes blocks in memory (as an
// Oodle binding might) gives the same bytes and is called once per block,
// and a table whose Zlib cannot decode refuses the file with a
// *MethodError.
func TestReadThroughCodecs(t *testing.T) {
	data := bytes.Repeat([]byte("cooked bytes compress well; "), 10000) // 280000 bytes: 5 blocks
	b := writePak(t, &pak.WriterOptions{Version: pak.LatestVersion, Compress: true}, []testFile{{"Game/Content/Big.bin", data}})

	builtin, _ := ue.NewCodecs().Lookup("Zlib")
	calls := 0
	inMemory := ue.NewCodecs()
	inMemory.Register(ue.Codec{Name: "Zlib", Decompress: func(dst, src []byte) error {
		calls++
		return builtin.Decompress(dst, src)
	}})
	noDecoder := ue.NewCodecs()
	noDecoder.Register(ue.Codec{Name: "Zlib", NewCompressor: builtin.NewCompressor})

	for _, tc := range []struct {
		name      string
		codecs    *ue.Codecs
		wantCalls int
		wantErr   error
	}{
		{"built-in", nil, 0, nil},
		{"in memory", inMemory, 5, nil},
		{"no decoder", noDecoder, 0, pak.ErrUnsupportedMethod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			r, err := pak.Decode(bytes.NewReader(b), int64(len(b)), "codecs.pak", &pak.Options{Codecs: tc.codecs})
			if err != nil {
				t.Fatal(err)
			}
			f := r.Files[0]
			if f.Method == 0 {
				t.Fatal("the file was stored, not compressed")
			}
			rc, err := f.Open()
			if tc.wantErr != nil {
				var me *pak.MethodError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &me) || me.Method != "Zlib" {
					t.Fatalf("got %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes, %v", len(got), err)
			}
			if calls != tc.wantCalls {
				t.Errorf("%d calls of the codec, want %d", calls, tc.wantCalls)
			}
		})
	}
}
