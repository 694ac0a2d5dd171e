package ufile_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ufile"
)

// countingReaderAt counts the bytes read from it.
type countingReaderAt struct {
	b []byte
	n atomic.Int64
}

func (r *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r.b)) {
		return 0, nil
	}
	n := copy(p, r.b[off:])
	r.n.Add(int64(n))
	if n < len(p) {
		return n, os.ErrClosed // any error: a short read
	}
	return n, nil
}

// fuzzNames are the names the fuzzed bytes are given: Open looks at the
// extension for paks, block stores and TOCs.
var fuzzNames = []string{"f.bin", "Item.uasset", "Game.pak", "Game.ucas", "Game.UTOC"}

// maxPakFooter bounds what pak.DecodeFooter reads.
const maxPakFooter = 1 << 10

// FuzzRecognise feeds arbitrary bytes to RecogniseReaderAt, seeded with
// container headers, the demo's files and the zen packages of the corpus.
// It must never panic, must read every byte at most once more than the
// prefix it starts with (plus a pak's footer), must report an error exactly
// for Unknown, and what it recognises must hold: a container header
// without the UE5 signature decodes, a zen package's layout is the one
// DetectLayout finds.
func FuzzRecognise(f *testing.F) {
	for v := zen.HeaderUE4; v <= zen.HeaderLatest; v++ {
		h := &zen.ContainerHeader{Version: v, ContainerID: 0x1234, Packages: []zen.StoreEntry{
			{PackageID: 1, ImportedPackages: []zen.PackageID{2}}, {PackageID: 2},
		}}
		data, err := h.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	for _, file := range []string{"../examples/packages/UnrmodDemo.u", "../examples/packages/zen/DT_DemoItems.uasset"} {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, uint8(1))
		}
	}
	f.Add([]byte(iostore.TocMagic+"rest of a TOC"), uint8(0))
	f.Add(append([]byte{0xC1, 0x83, 0x2A, 0x9E, 0xF9, 0xFF, 0xFF, 0xFF}, make([]byte, 56)...), uint8(1))
	if dir := os.Getenv("UNRMOD_CORPUS"); dir != "" {
		for _, pattern := range []string{"other/grounded/zen_ue4_27/*.uasset", "other/ue5_cooked_pairs/*.uzenasset", "other/*/*ContainerHeader*.bin"} {
			files, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, file := range files {
				if st, err := os.Stat(file); err != nil || st.Size() > 64<<10 {
					continue
				}
				if b, err := os.ReadFile(file); err == nil {
					f.Add(b, uint8(0))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		name := fuzzNames[int(which)%len(fuzzNames)]
		r := &countingReaderAt{b: data}
		file, err := ufile.RecogniseReaderAt(name, r, int64(len(data)), nil)
		if file == nil {
			t.Fatal("nil File")
		}
		if (err != nil) != (file.Kind == ufile.Unknown) {
			t.Fatalf("kind %v with error %v", file.Kind, err)
		}
		if file.Kind > ufile.ContainerData {
			t.Fatalf("unknown kind %d", file.Kind)
		}
		bound := int64(min(len(data), 64) + len(data))
		if strings.HasSuffix(name, ".pak") {
			bound += maxPakFooter
		}
		if n := r.n.Load(); n > bound {
			t.Fatalf("read %d bytes of a %d-byte file", n, len(data))
		}
		switch file.Kind {
		case ufile.ContainerHeader:
			if len(data) < 4 || binary.LittleEndian.Uint32(data) != zen.HeaderSignature {
				if _, err := file.ContainerHeader(); err != nil {
					t.Fatalf("recognised as a container header but does not decode: %v", err)
				}
			}
		case ufile.ZenPackage:
			if l, err := zen.DetectLayout(file.Data); err != nil || l != file.Layout {
				t.Fatalf("layout %v, DetectLayout says %v (%v)", file.Layout, l, err)
			}
		case ufile.Container:
			if file.TOC == "" {
				t.Fatal("a container without its .utoc")
			}
		}
		if file.Data != nil && len(file.Data) != len(data) {
			t.Fatalf("Data holds %d of %d bytes", len(file.Data), len(data))
		}
	})
}
