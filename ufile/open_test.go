package ufile_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ufile"
)

// TestOpenFiles opens the files a command may be given: each comes back
// with its kind, the kinds read whole with the file's bytes; folders,
// missing and unknown files come back as Unknown with an error naming them.
func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	c, err := iostore.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var header []byte
	for _, ch := range c.Chunks() {
		if ch.Type == iostore.ChunkContainerHeader {
			if header, err = c.ReadChunk(ch.Index); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ue4 := append([]byte{0xC1, 0x83, 0x2A, 0x9E, 0xF9, 0xFF, 0xFF, 0xFF}, make([]byte, 56)...)
	for _, tc := range []struct {
		name string
		path string
		want ufile.Kind
	}{
		{"UE4 zen package", "../examples/packages/zen/DT_DemoItems.uasset", ufile.ZenPackage},
		{"container header", write("header.bin", header), ufile.ContainerHeader},
		{"legacy package", "../examples/packages/UnrmodDemo.u", ufile.LegacyPackage},
		{"cooked UE4 .uasset", write("Cooked.uasset", ue4), ufile.CookedAsset},
		{"tag, version out of range", write("Legacy.uasset", append([]byte{0xC1, 0x83, 0x2A, 0x9E}, make([]byte, 60)...)), ufile.Unknown},
		{"container TOC", "../examples/containers/UnrmodDemo427_P.utoc", ufile.Container},
		{"container TOC, upper case", write("GAME.UTOC", nil), ufile.Container},
		{"container TOC by its magic", write("toc.bin", []byte(iostore.TocMagic+"rest")), ufile.Container},
		{"block store", write("Game.ucas", []byte("blocks")), ufile.ContainerData},
		{"text", write("notes.txt", []byte("not a chunk\n")), ufile.Unknown},
		{"three bytes", write("short.bin", []byte{1, 2, 3}), ufile.Unknown},
		{"folder", dir, ufile.Unknown},
		{"missing", filepath.Join(dir, "missing.uasset"), ufile.Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ufile.Open(tc.path, nil)
			if f.Kind != tc.want {
				t.Fatalf("Open(%s) = %v (%v), want %v", tc.path, f.Kind, err, tc.want)
			}
			data := f.Data
			if f.Kind == ufile.Unknown {
				var nr *ufile.NotRecognisedError
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), tc.path) {
					t.Fatalf("error %v, want a *NotRecognisedError naming the file", err)
				}
				if data != nil {
					t.Fatalf("%d bytes for a file that is no chunk", len(data))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if data == nil {
				return // not read whole
			}
			if want, err := os.ReadFile(tc.path); err != nil || !bytes.Equal(data, want) {
				t.Fatalf("%d bytes, not the file's (%v)", len(data), err)
			}
		})
	}
}

// TestOpenLarge: a file larger than any container header whose first bytes
// cannot start a zen package or a container header is not read: the
// allocations stay far below its size.
func TestOpenLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Intro.bk2")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const size = 256 << 20 // sparse: zeros, no disk space
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	uf, _ := ufile.Open(path, nil)
	runtime.ReadMemStats(&after)
	if uf.Data != nil || uf.Kind != ufile.Unknown {
		t.Fatalf("%d bytes of kind %v for a file of zeros", len(uf.Data), uf.Kind)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("Open allocated %d MiB for a %d MiB file that is no chunk", n>>20, size>>20)
	}
}

// TestOpenMaxRead: Options.MaxRead refuses a package larger than it
// before reading it, with an error naming the file that matches
// safefile.ErrTooLarge; at the package's size it reads it.
func TestOpenMaxRead(t *testing.T) {
	const file = "../examples/packages/UnrmodDemo.u"
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max  int64
		want ufile.Kind
	}{{st.Size() - 1, ufile.Unknown}, {st.Size(), ufile.LegacyPackage}, {0, ufile.LegacyPackage}} {
		f, err := ufile.Open(file, &ufile.Options{MaxRead: tc.max})
		if f.Kind != tc.want {
			t.Errorf("MaxRead %d: %v (%v), want %v", tc.max, f.Kind, err, tc.want)
		}
		if tc.want == ufile.Unknown && (!errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), file)) {
			t.Errorf("MaxRead %d: error %v, want ErrTooLarge naming the file", tc.max, err)
		}
	}
}

// TestOpenUses: a container is locked with its .ucas, any other file
// alone.
func TestOpenUses(t *testing.T) {
	c, _ := ufile.Open("../examples/containers/UnrmodDemo427_P.utoc", nil)
	if u := c.Uses(); len(u) < 2 || !strings.HasSuffix(u[1].Path, ".ucas") {
		t.Errorf("container uses %v", u)
	}
	p, _ := ufile.Open("../examples/packages/UnrmodDemo.u", nil)
	if u := p.Uses(); len(u) != 1 || u[0].Path != p.Path {
		t.Errorf("package uses %v", u)
	}
}
