package pak_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// storedBytes returns the bytes f's pak stores for it, as they are.
func storedBytes(t testing.TB, pakBytes []byte, f *pak.File) []byte {
	t.Helper()
	n := f.Size
	if f.Encrypted {
		n = (n + 15) &^ 15
	}
	return pakBytes[f.DataOffset() : f.DataOffset()+n]
}

// copyAll writes a pak with opts (its Methods set to src's) holding every
// file of src copied as stored, and returns it.
func copyAll(t *testing.T, src *pak.Reader, opts pak.WriterOptions) []byte {
	t.Helper()
	opts.Methods = src.Footer.Methods
	var buf bytes.Buffer
	w, err := pak.NewWriter(&buf, &opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range src.Files {
		if err := w.CopyFile(f.Path, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkCopy checks that the pak copy holds src's files with the same
// stored bytes and, where they decode, the same contents.
func checkCopy(t *testing.T, src *pak.Reader, srcBytes, copied []byte, key *ue.Key) {
	t.Helper()
	r, err := pak.Decode(bytes.NewReader(copied), int64(len(copied)), "copy.pak", &pak.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CheckIndex(); err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != len(src.Files) {
		t.Fatalf("%d files, want %d", len(r.Files), len(src.Files))
	}
	for i, f := range r.Files {
		g := src.Files[i]
		if f.Path != g.Path || f.Method != g.Method || f.UncompressedSize != g.UncompressedSize {
			t.Fatalf("file %d: %s method %d size %d; want %s %d %d", i, f.Path, f.Method, f.UncompressedSize, g.Path, g.Method, g.UncompressedSize)
		}
		if !bytes.Equal(storedBytes(t, copied, f), storedBytes(t, srcBytes, g)) {
			t.Errorf("%s: the stored bytes differ from the source's", f.Path)
		}
		want, werr := g.ReadAll()
		got, err := f.ReadAll()
		if werr != nil {
			if err == nil || !errors.Is(err, pak.ErrUnsupportedMethod) {
				t.Errorf("%s: the source reads with %v, the copy with %v", f.Path, werr, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want the source's %d", f.Path, len(got), err, len(want))
		}
	}
}

// TestCopyFileVariants copies every file of paks of every version and
// option into a pak of the same kind: the stored bytes are the source's
// and every file reads back.
func TestCopyFileVariants(t *testing.T) {
	files := testFiles()
	for v := pak.Version(1); v <= pak.LatestVersion; v++ {
		variants := map[string]pak.WriterOptions{"stored": {}}
		if v.HasBlocks() {
			variants["zlib"] = pak.WriterOptions{Compress: true}
			variants["zlib-encrypted"] = pak.WriterOptions{Compress: true, EncryptFiles: true, EncryptIndex: v.HasIndexEncryption(), Key: &testKey}
		}
		if v.HasEncryptionMethod() {
			variants["ctr"] = pak.WriterOptions{Compress: true, EncryptFiles: true, Key: &testKey, CTR: true}
		}
		for name, opts := range variants {
			opts.Version = v
			t.Run(v.String()+"/"+name, func(t *testing.T) {
				srcBytes := writePak(t, &opts, files)
				src := decodePak(t, srcBytes, &testKey)
				checkCopy(t, src, srcBytes, copyAll(t, src, opts), &testKey)
			})
		}
	}
}

// TestCopyFileCorpus copies every file of every corpus pak (Oodle ones
// included: their blocks are copied without being decoded).
func TestCopyFileCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".pak") {
			return err
		}
		n++
		rel, _ := filepath.Rel(dir, p)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			srcBytes, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			src := decodePak(t, srcBytes, nil)
			opts := pak.WriterOptions{Version: src.Footer.Version, MountPoint: src.MountPoint, EncryptionKeyGUID: src.Footer.EncryptionKeyGUID}
			checkCopy(t, src, srcBytes, copyAll(t, src, opts), nil)
		})
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walked %d corpus paks: %v", n, err)
	}
}

// TestCopyFileRefuses checks that a file the pak written cannot hold as
// stored is refused with ErrCannotCopy before anything is written, and
// that the Writer goes on.
func TestCopyFileRefuses(t *testing.T) {
	files := testFiles()
	otherKey := ue.Key([]byte("another key of thirty-two bytes!"))
	zlib12 := pak.WriterOptions{Version: 12, Compress: true}
	enc12 := pak.WriterOptions{Version: 12, Compress: true, EncryptFiles: true, Key: &testKey}
	cases := []struct {
		name     string
		src, dst pak.WriterOptions
		methods  []string
	}{
		{"version", zlib12, pak.WriterOptions{Version: 11, Compress: true}, nil},
		{"encrypted into plain", enc12, zlib12, nil},
		{"plain into encrypted", zlib12, enc12, nil},
		{"other key", enc12, pak.WriterOptions{Version: 12, Compress: true, EncryptFiles: true, Key: &otherKey}, nil},
		{"other slot", zlib12, pak.WriterOptions{Version: 12, Compress: true}, []string{"Oodle", "Zlib", "", "", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := decodePak(t, writePak(t, &tc.src, files), &testKey)
			var f *pak.File
			for _, g := range src.Files {
				if g.Method != 0 || g.Encrypted {
					f = g
					break
				}
			}
			if f == nil {
				t.Fatal("no compressed or encrypted file in the source")
			}
			opts := tc.dst
			opts.Methods = src.Footer.Methods
			if tc.methods != nil {
				opts.Methods = tc.methods
			}
			var buf bytes.Buffer
			w, err := pak.NewWriter(&buf, &opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.CopyFile(f.Path, f); !errors.Is(err, pak.ErrCannotCopy) {
				t.Fatalf("CopyFile: %v, want ErrCannotCopy", err)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written by a refused copy", buf.Len())
			}
			if err := w.WriteFile(f.Path, []byte("the file's contents, added instead")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r := decodePak(t, buf.Bytes(), opts.Key)
			if got, err := r.ReadFile(f.Path); err != nil || string(got) != "the file's contents, added instead" {
				t.Errorf("the file added after the refusal reads %q, %v", got, err)
			}
		})
	}
}

// TestWriterMethodsAddsZlib checks that Compress with source slots that
// lack Zlib takes the first free slot for it, keeping the others.
func TestWriterMethodsAddsZlib(t *testing.T) {
	var buf bytes.Buffer
	w, err := pak.NewWriter(&buf, &pak.WriterOptions{Version: 12, Compress: true, Methods: []string{"Oodle", "", "", "", ""}})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("compressible "), 10000)
	if err := w.WriteFile("a.bin", data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := decodePak(t, buf.Bytes(), nil)
	f := r.Files[0]
	if got := r.Footer.Methods; len(got) != 5 || got[0] != "Oodle" || got[1] != "Zlib" {
		t.Fatalf("footer methods %q, want Oodle then Zlib", got)
	}
	if f.Method != 2 || r.Footer.MethodName(f.Method) != "Zlib" {
		t.Errorf("the file uses slot %d (%s), want 2 (Zlib)", f.Method, r.Footer.MethodName(f.Method))
	}
	if got, err := f.ReadAll(); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, %v", len(got), err)
	}
	if _, err := pak.NewWriter(&buf, &pak.WriterOptions{Version: 12, Compress: true, Methods: []string{"A", "B", "C", "D", "E"}}); err == nil {
		t.Error("a writer with every slot taken and none Zlib compresses")
	}
}
