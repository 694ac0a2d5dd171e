package pak_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
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

// rle is a codec of the test's own under another name (runs of equal
// bytes as count, byte), so that a pak written with it reads back only
// through it.
func rle(name string) ue.Codec {
	return ue.Codec{
		Name: name,
		Decompress: func(dst, src []byte) error {
			n := 0
			for i := 0; i+1 < len(src); i += 2 {
				c := int(src[i])
				if n+c > len(dst) {
					return errors.New("a run beyond the block")
				}
				for k := range c {
					dst[n+k] = src[i+1]
				}
				n += c
			}
			if n != len(dst) || len(src)%2 != 0 {
				return errors.New("not a block of the test codec")
			}
			return nil
		},
		NewCompressor: func(int) ue.Compressor {
			return func(dst, src []byte) ([]byte, error) {
				dst = dst[:0]
				for i := 0; i < len(src); {
					j := i
					for j < len(src) && j-i < 255 && src[j] == src[i] {
						j++
					}
					dst = append(dst, byte(j-i), src[i])
					i = j
				}
				return dst, nil
			}
		},
	}
}

// TestWriteThroughCodecs writes paks whose files are compressed with
// WriterOptions.Method from WriterOptions.Codecs (the way an Oodle library
// is used), and checks the writer's refusals: Oodle without a library,
// a method a version before 8 cannot name, a compressor that hands back
// its input.
func TestWriteThroughCodecs(t *testing.T) {
	codecs := ue.NewCodecs()
	codecs.Register(rle("Oodle"))
	// The test codec shrinks the zeros, not the text, which is stored.
	zeros := bytes.Repeat([]byte{0}, 200000)
	files := []testFile{{"Game/Content/Zeros.bin", zeros}, {"Game/Content/Text.txt", bytes.Repeat([]byte("abc"), 30000)}}
	for _, tc := range []struct {
		name   string
		opts   pak.WriterOptions
		method string // the footer's first slot
		err    string
	}{
		{"zlib by default", pak.WriterOptions{Compress: true}, "Zlib", ""},
		{"gzip", pak.WriterOptions{Compress: true, Method: "gzip"}, "Gzip", ""},
		{"oodle through the table", pak.WriterOptions{Compress: true, Method: "oodle", Codecs: codecs}, "Oodle", ""},
		{"oodle without a library", pak.WriterOptions{Compress: true, Method: "Oodle"}, "", "give it with WriterOptions.Codecs"},
		{"unknown method", pak.WriterOptions{Compress: true, Method: "Brotli"}, "", "no compressor"},
		{"none", pak.WriterOptions{Compress: true, Method: "None"}, "", "leave Compress unset"},
		{"oodle in a version 7 pak", pak.WriterOptions{Version: 7, Compress: true, Method: "Oodle", Codecs: codecs}, "", "needs version 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := pak.NewWriter(&buf, &tc.opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("NewWriter: %v, want %q", err, tc.err)
				}
				if tc.method == "" && strings.Contains(tc.err, "Codecs") && !errors.Is(err, pak.ErrUnsupportedMethod) {
					t.Errorf("%v does not match ErrUnsupportedMethod", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := writePak(t, &tc.opts, files)
			r, err := pak.Decode(bytes.NewReader(b), int64(len(b)), "test.pak", &pak.Options{Codecs: codecs})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Footer.Methods[0]; got != tc.method {
				t.Errorf("method slot 1 = %q, want %q", got, tc.method)
			}
			for _, f := range files {
				got, err := r.ReadFile(f.path)
				if err != nil || !bytes.Equal(got, f.data) {
					t.Errorf("%s: %v", f.path, err)
				}
				if compressed := r.Lookup(f.path).Method != 0; compressed != (f.path == "Game/Content/Zeros.bin" || tc.method != "Oodle") {
					t.Errorf("%s: compressed %v", f.path, compressed)
				}
			}
		})
	}
	// A compressor that hands back its input (as the built-in LZ4 may
	// when its buffer is short) leaves a block that would be read as
	// compressed: the writer refuses the file.
	echo := ue.NewCodecs()
	echo.Register(ue.Codec{Name: "Echo", NewCompressor: func(int) ue.Compressor {
		return func(dst, src []byte) ([]byte, error) {
			if src[0] != 0 {
				return src, nil
			}
			return append(dst[:0], 0), nil
		}
	}})
	random := make([]byte, 70000)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range random {
		random[i] = byte(rng.Uint32()) | 1
	}
	mixed := append(bytes.Repeat([]byte{0}, 200000), random...)
	var buf bytes.Buffer
	w, err := pak.NewWriter(&buf, &pak.WriterOptions{Compress: true, Method: "Echo", Codecs: echo})
	if err != nil {
		t.Fatal(err)
	}
	err = w.WriteFile("Game/Mixed.bin", mixed)
	if err == nil {
		err = w.Close() // writes the pending file
	}
	if err == nil || !strings.Contains(err.Error(), "the Echo compressor left block 4 as it is") {
		t.Errorf("a file with a block its compressor left as it is: %v", err)
	}
}
