package pak_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// testKey is the AES key of the encrypted test paks.
var testKey = ue.Key([]byte("unrmod pak test key, 32 bytes!!!"))

// testGUID is the key GUID the test paks name.
var testGUID = pak.GUID{0x11223344, 0x55667788, 0x99AABBCC, 0xDDEEFF00}

type testFile struct {
	path string
	data []byte
}

// testFiles returns files of every shape the writer handles: empty, tiny,
// compressible across several blocks, incompressible, nested and at the
// root, with non-ASCII names.
func testFiles() []testFile {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := []byte(strings.Repeat("[/Script/Engine.GameSession]\nMaxPlayers=4\n", 5000)) // 4 blocks of 64 KiB
	return []testFile{
		{"Game/Config/DefaultGame.ini", text},
		{"Game/Content/Localization/Game/en/Game.locres", []byte{0x0E, 0x14, 0x74, 0x75, 0x67, 0x4A, 0x03, 0xFC}},
		{"Game/Content/Empty.txt", nil},
		{"Game/Content/Noise.bin", random},
		{"Top.txt", []byte("at the mount point\n")},
		{"Game/Content/Localization/Game/fr/Résumé.txt", []byte("é")},
		{"Game/Content/Localization/Game/ja/日本語.txt", []byte("日本語")},
	}
}

// writePak writes files into a pak with opts.
func writePak(t testing.TB, opts *pak.WriterOptions, files []testFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pak.NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fw, err := w.Create(f.path)
		if err != nil {
			t.Fatal(err)
		}
		// Write in pieces, as io.Copy would.
		for data := f.data; len(data) > 0; {
			n := min(len(data), 10000)
			if _, err := fw.Write(data[:n]); err != nil {
				t.Fatal(err)
			}
			data = data[n:]
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodePak decodes a pak held in memory.
func decodePak(t testing.TB, b []byte, key *ue.Key) *pak.Reader {
	t.Helper()
	r, err := pak.Decode(bytes.NewReader(b), int64(len(b)), "test.pak", &pak.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWriteRead writes paks of every version with every option the
// version allows and reads them back: same files, same bytes, indexes
// that agree.
func TestWriteRead(t *testing.T) {
	type variant struct {
		name string
		opts pak.WriterOptions
	}
	var variants []variant
	for v := pak.Version(1); v <= pak.LatestVersion; v++ {
		add := func(name string, o pak.WriterOptions) {
			o.Version = v
			variants = append(variants, variant{fmt.Sprintf("v%d/%s", v, name), o})
		}
		add("stored", pak.WriterOptions{})
		if v.HasBlocks() {
			add("zlib", pak.WriterOptions{Compress: true})
			add("zlib-encrypted-files", pak.WriterOptions{Compress: true, EncryptFiles: true, Key: &testKey})
			add("encrypted-files", pak.WriterOptions{EncryptFiles: true, Key: &testKey})
		}
		if v.HasIndexEncryption() {
			add("encrypted-index", pak.WriterOptions{EncryptIndex: true, Key: &testKey, MountPoint: "../../../Game/"})
			add("all-encrypted", pak.WriterOptions{Compress: true, EncryptIndex: true, EncryptFiles: true, Key: &testKey})
		}
		if v.HasEncryptionMethod() {
			add("ctr-all-encrypted", pak.WriterOptions{Compress: true, EncryptIndex: true, EncryptFiles: true, Key: &testKey, CTR: true})
			add("ctr-encrypted-files", pak.WriterOptions{EncryptFiles: true, Key: &testKey, CTR: true})
		}
		if v.HasKeyGUID() {
			add("guid", pak.WriterOptions{EncryptionKeyGUID: testGUID, PathHashSeed: 0x1234ABCD})
		}
	}
	files := testFiles()
	for _, tc := range variants {
		t.Run(tc.name, func(t *testing.T) {
			b := writePak(t, &tc.opts, files)
			r := decodePak(t, b, &testKey)
			wantMount := tc.opts.MountPoint
			if wantMount == "" {
				wantMount = pak.DefaultMountPoint
			}
			if r.Footer.Version != tc.opts.Version || r.MountPoint != wantMount || r.Footer.EncryptionKeyGUID != tc.opts.EncryptionKeyGUID ||
				r.Footer.IndexEncrypted != tc.opts.EncryptIndex || tc.opts.Version.HasPathHashIndex() && r.PathHashSeed != tc.opts.PathHashSeed {
				t.Fatalf("footer %+v, mount %q, seed %x; want options %+v", r.Footer, r.MountPoint, r.PathHashSeed, tc.opts)
			}
			if r.Footer.CTR() != tc.opts.CTR {
				t.Errorf("footer says AES-CTR %v, want %v", r.Footer.CTR(), tc.opts.CTR)
			}
			if tc.opts.Version.HasPathHashIndex() && !(r.HasPathHashIndex && r.HasFullDirectoryIndex) {
				t.Error("a version 10+ pak without both secondary indexes")
			}
			if err := r.CheckIndex(); err != nil {
				t.Error(err)
			}
			if len(r.Files) != len(files) {
				t.Fatalf("%d files, want %d", len(r.Files), len(files))
			}
			compressed := 0
			for _, want := range files {
				f := r.Lookup(want.path)
				if f == nil {
					t.Fatalf("%s is missing", want.path)
				}
				got, err := f.ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want.data) {
					t.Errorf("%s: %d bytes read back, want %d", want.path, len(got), len(want.data))
				}
				if f.Encrypted != tc.opts.EncryptFiles {
					t.Errorf("%s: encrypted %v", f.Path, f.Encrypted)
				}
				if f.Method != 0 {
					compressed++
					if r.Footer.MethodName(f.Method) != "Zlib" {
						t.Errorf("%s: method %q", f.Path, r.Footer.MethodName(f.Method))
					}
				}
			}
			// The text compresses (in 4 blocks), the noise does not.
			if tc.opts.Compress != (compressed > 0) {
				t.Errorf("%d files compressed with Compress %v", compressed, tc.opts.Compress)
			}
			if f := r.Lookup("Game/Config/DefaultGame.ini"); tc.opts.Compress && len(f.Blocks) != 4 {
				t.Errorf("the ini has %d blocks, want 4", len(f.Blocks))
			}
			if f := r.Lookup("Game/Content/Noise.bin"); f.Method != 0 {
				t.Error("incompressible data was stored compressed")
			}
		})
	}
}

// TestWriteDeterministic: the same files and options give the same bytes.
func TestWriteDeterministic(t *testing.T) {
	opts := &pak.WriterOptions{Compress: true, EncryptIndex: true, Key: &testKey}
	a, b := writePak(t, opts, testFiles()), writePak(t, opts, testFiles())
	if !bytes.Equal(a, b) {
		t.Error("two writes of the same pak differ")
	}
}

// TestEmptyPak checks the empty companion pak the container writer needs,
// field by field: what retoc, repak and UnrealReZen write for UE 4.26 to
// 5.x.
func TestEmptyPak(t *testing.T) {
	b := writePak(t, nil, nil)
	if len(b) != 347 {
		t.Errorf("empty v11 pak of %d bytes, want 347", len(b))
	}
	r := decodePak(t, b, nil)
	switch {
	case r.Footer.Version != pak.VersionFnv64BugFix, r.Footer.Size() != 221, r.MountPoint != "../../../",
		len(r.Files) != 0, r.Footer.IndexOffset != 0, r.Footer.IndexSize != 114,
		!r.HasPathHashIndex, !r.HasFullDirectoryIndex, r.PathHashSeed != 0, r.Footer.IndexEncrypted:
		t.Errorf("empty pak: footer %+v, mount %q, %d files, seed %x", r.Footer, r.MountPoint, len(r.Files), r.PathHashSeed)
	}
	for _, m := range r.Footer.Methods {
		if m != "" {
			t.Errorf("method names %q, want none", r.Footer.Methods)
		}
	}
}

// TestEmptyPakMatchesCorpus compares the empty pak byte for byte with the
// one UnrealReZen ships (the layout retoc and repak write too).
func TestEmptyPakMatchesCorpus(t *testing.T) {
	want, err := os.ReadFile(corpus.Path(t, "other/grounded/UnrealReZen_Packed_P.pak"))
	if err != nil {
		t.Fatal(err)
	}
	if got := writePak(t, &pak.WriterOptions{Version: 11, MountPoint: "../../../"}, nil); !bytes.Equal(got, want) {
		t.Errorf("empty v11 pak differs from UnrealReZen's:\n got %x\nwant %x", got, want)
	}
}

// TestVersion3MatchesCorpus writes the contents of UEcastoc's version 3
// companion pak again and compares the two field by field (the compressed
// bytes differ: another zlib).
func TestVersion3MatchesCorpus(t *testing.T) {
	orig, err := pak.Open(corpus.Path(t, "other/grounded/Packed_P.pak"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	of := orig.Files[0]
	data, err := of.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	b := writePak(t, &pak.WriterOptions{Version: 3, Compress: true}, []testFile{{of.Path, data}})
	r := decodePak(t, b, nil)
	f := r.Files[0]
	got := fmt.Sprintf("v%d footer %d mount %q files %d path %q offset %d header %d method %s usize %d blocks %d first block at %d",
		r.Footer.Version, r.Footer.Size(), r.MountPoint, len(r.Files), f.Path, f.Offset, f.HeaderSize(3, 0), r.Footer.MethodName(f.Method),
		f.UncompressedSize, len(f.Blocks), f.Blocks[0].Start)
	want := fmt.Sprintf("v%d footer %d mount %q files %d path %q offset %d header %d method %s usize %d blocks %d first block at %d",
		orig.Footer.Version, orig.Footer.Size(), orig.MountPoint, len(orig.Files), of.Path, of.Offset, of.HeaderSize(3, 0), orig.Footer.MethodName(of.Method),
		of.UncompressedSize, len(of.Blocks), of.Blocks[0].Start)
	if got != want {
		t.Errorf("written:  %s\noriginal: %s", got, want)
	}
	// The index follows the data and the footer follows the index, as in
	// the original.
	if r.Footer.IndexOffset != f.Blocks[0].End || r.Footer.IndexOffset+r.Footer.IndexSize != int64(len(b)-r.Footer.Size()) {
		t.Errorf("index at %d, %d bytes, in a pak of %d", r.Footer.IndexOffset, r.Footer.IndexSize, len(b))
	}
	if orig.Footer.IndexOffset != of.Blocks[0].End || orig.Footer.IndexSize-int64(len(of.Path)) != r.Footer.IndexSize-int64(len(f.Path)) {
		t.Errorf("index sizes differ: %d (original) and %d", orig.Footer.IndexSize, r.Footer.IndexSize)
	}
}

// TestWriterErrors checks what the writer refuses.
func TestWriterErrors(t *testing.T) {
	opts := []struct {
		name string
		opts pak.WriterOptions
	}{
		{"version 16", pak.WriterOptions{Version: 16}},
		{"AES-CTR before version 15", pak.WriterOptions{Version: 12, CTR: true, EncryptFiles: true, Key: &testKey}},
		{"mount point without slash", pak.WriterOptions{MountPoint: "../../.."}},
		{"GUID before version 7", pak.WriterOptions{Version: 6, EncryptionKeyGUID: testGUID}},
		{"compression before version 3", pak.WriterOptions{Version: 2, Compress: true}},
		{"index encryption before version 4", pak.WriterOptions{Version: 3, EncryptIndex: true, Key: &testKey}},
		{"encryption without a key", pak.WriterOptions{EncryptFiles: true}},
	}
	for _, tc := range opts {
		if _, err := pak.NewWriter(io.Discard, &tc.opts); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}

	w, err := pak.NewWriter(io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "/Game/x.ini", "Game//x.ini", "Game/../x.ini", "./x.ini", "Game\\x.ini", "Game/x.ini/", "."} {
		if _, err := w.Create(bad); err == nil {
			t.Errorf("Create(%q): no error", bad)
		}
	}
	fw, err := w.Create("Game/Config/DefaultGame.ini")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create("game/config/DEFAULTGAME.INI"); err == nil {
		t.Error("a path differing only in case was accepted")
	}
	if err := w.WriteFile("Game/Other.ini", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write([]byte("x")); err == nil {
		t.Error("writing to a file after the next Create succeeded")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create("Game/Late.ini"); err == nil {
		t.Error("Create after Close succeeded")
	}

	// A failing destination: the error comes back, and stays.
	w, _ = pak.NewWriter(failingWriter{}, nil)
	if err := w.WriteFile("a.ini", []byte("x")); err != nil {
		t.Fatal(err) // buffered until the next file or Close
	}
	if err := w.Close(); err == nil || !errors.Is(err, errFull) {
		t.Errorf("Close on a failing writer: %v", err)
	}
}

var errFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errFull }
