package pak_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/pak"
)

// TestAddMatchesCreate streams the test files with Add, to a file (where
// the writer goes back for each record) and to a buffer (where it reads
// each file twice), and checks that both give the bytes Create gives, for
// every option. The incompressible file comes last, so that the file
// output is cut after its index; the file output starts after bytes that
// are not the pak's.
func TestAddMatchesCreate(t *testing.T) {
	files := testFiles()
	// The incompressible file last: stored as it is after its compressed
	// blocks, which were longer, it leaves bytes past the index.
	for i, f := range files {
		if f.path == "Game/Content/Noise.bin" {
			files = append(append(files[:i:i], files[i+1:]...), f)
			break
		}
	}
	for v := pak.Version(1); v <= pak.LatestVersion; v++ {
		variants := map[string]pak.WriterOptions{"stored": {}}
		if v.HasBlocks() {
			variants["zlib"] = pak.WriterOptions{Compress: true}
			variants["zlib-encrypted-files"] = pak.WriterOptions{Compress: true, EncryptFiles: true, Key: &testKey}
			variants["encrypted-files"] = pak.WriterOptions{EncryptFiles: true, Key: &testKey}
		}
		for name, opts := range variants {
			opts.Version = v
			t.Run(fmt.Sprintf("v%d/%s", v, name), func(t *testing.T) {
				want := writePak(t, &opts, files)
				add := func(w *pak.Writer) {
					for _, f := range files {
						if err := w.Add(f.path, bytes.NewReader(f.data), int64(len(f.data))); err != nil {
							t.Fatal(err)
						}
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
				}
				var buf bytes.Buffer
				w, err := pak.NewWriter(&buf, &opts)
				if err != nil {
					t.Fatal(err)
				}
				add(w)
				if !bytes.Equal(buf.Bytes(), want) {
					t.Errorf("Add to a buffer: %d bytes differ from Create's %d", buf.Len(), len(want))
				}
				const prefix = "not the pak's"
				path := filepath.Join(t.TempDir(), "out.pak")
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				f.WriteString(prefix)
				if w, err = pak.NewWriter(f, &opts); err != nil {
					t.Fatal(err)
				}
				add(w)
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, append([]byte(prefix), want...)) {
					t.Errorf("Add to a file: %d bytes differ from Create's %d after the prefix", len(got)-len(prefix), len(want))
				}
			})
		}
	}
}

// shortReader has fewer bytes than the size given to Add.
type shortReader struct{ n int64 }

func (r shortReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.n {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), r.n-off))
	clear(p[:n])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestAddFileChanged: a file that ends before its size is refused with
// ErrFileChanged, on both kinds of output.
func TestAddFileChanged(t *testing.T) {
	for _, seek := range []bool{false, true} {
		var out io.Writer = new(bytes.Buffer)
		if seek {
			f, err := os.Create(filepath.Join(t.TempDir(), "out.pak"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			out = f
		}
		w, err := pak.NewWriter(out, &pak.WriterOptions{Compress: true})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Add("Game/Movies/Intro.bk2", shortReader{100000}, 200000)
		if !errors.Is(err, pak.ErrFileChanged) {
			t.Errorf("seekable output %v: Add of a file shorter than its size: %v", seek, err)
		}
	}
}
