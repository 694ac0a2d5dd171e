package oodle_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ue/oodle"
)

// open loads the test library: UNRMOD_OODLE's, or the stand-in.
func open(t testing.TB, recs []oodletest.Record) (*oodle.Library, bool) {
	t.Helper()
	path, real := oodletest.Library(t, recs)
	lib, err := oodle.Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return lib, real
}

// blocks are inputs of the kinds a container holds.
func blocks() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	mixed := make([]byte, 64<<10)
	for i := range mixed {
		if i%7 == 0 {
			mixed[i] = byte(i / 7)
		}
	}
	return map[string][]byte{
		"one byte":    {42},
		"zeros":       make([]byte, 64<<10),
		"text":        bytes.Repeat([]byte("/Game/Maps/Level_01.Level_01\x00"), 2000),
		"sparse":      mixed,
		"random":      random,
		"big zeros":   make([]byte, 1<<20),
		"odd size":    bytes.Repeat([]byte{0, 0, 0, 7, 9}, 13107),
		"single zero": {0},
	}
}

// TestRoundTrip compresses blocks with every compressor at a few levels
// through the library and decodes them back, also through the ue.Codec a
// table hands out.
func TestRoundTrip(t *testing.T) {
	lib, _ := open(t, nil)
	codecs := lib.Register(nil)
	codec, ok := codecs.Lookup("oodle")
	if !ok || codec.Name != oodle.Name || !codecs.CanDecode("OODLE") || codec.NewCompressor == nil {
		t.Fatalf("the table has no Oodle codec: %+v", codec)
	}
	for name, src := range blocks() {
		for _, c := range []oodle.Compressor{oodle.Kraken, oodle.Mermaid, oodle.Selkie, oodle.Leviathan} {
			for _, lv := range []oodle.Level{oodle.SuperFast, oodle.Normal} {
				t.Run(name+"/"+c.String(), func(t *testing.T) {
					comp, err := lib.Compress(nil, src, c, lv)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]byte, len(src))
					if err := lib.Decompress(got, comp); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, src) {
						t.Fatal("decoded bytes differ")
					}
				})
			}
		}
		comp, err := codec.NewCompressor(ue.DefaultCompression)(make([]byte, 0, 16), src)
		if err != nil {
			t.Fatalf("%s: codec compressor: %v", name, err)
		}
		got := make([]byte, len(src))
		if err := codec.Decompress(got, comp); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%s: codec round trip: %v", name, err)
		}
	}
}

// TestStandInArguments checks, on the stand-in, that the level and
// compressor reach the library in their places (the stand-in writes them
// in its header) and that Bound asks the library.
func TestStandInArguments(t *testing.T) {
	lib, err := oodle.Open(oodletest.StandIn(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	codec := lib.Codec(oodle.Leviathan, oodle.Fast)
	for _, tc := range []struct {
		level int
		want  oodle.Level
	}{{ue.DefaultCompression, oodle.Fast}, {9, oodle.Optimal5}, {1, oodle.SuperFast}, {12, oodle.Fast}} {
		comp, err := codec.NewCompressor(tc.level)(nil, []byte("abc"))
		if err != nil {
			t.Fatal(err)
		}
		if comp[1] != byte(oodle.Leviathan) || comp[2] != byte(tc.want) {
			t.Errorf("level %d: the library was called with compressor %d, level %d; want %d, %d", tc.level, comp[1], comp[2], oodle.Leviathan, tc.want)
		}
	}
	if got := lib.Bound(oodle.Kraken, 1<<20); got != 2<<20+4 {
		t.Errorf("Bound = %d, want the library's 2n+4", got)
	}
}

// TestDecompressRefuses checks that blocks the library refuses, or that
// decode to another size, fail with ErrDecode.
func TestDecompressRefuses(t *testing.T) {
	lib, _ := open(t, nil)
	src := bytes.Repeat([]byte("abcd\x00\x00\x00\x00"), 4096)
	comp, err := lib.Compress(nil, src, oodle.Kraken, oodle.Normal)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		dst     int
		src     []byte
		wantErr bool
	}{
		{"exact", len(src), comp, false},
		{"empty block for empty", 0, nil, false},
		{"one byte short", len(src) - 1, comp, true},
		{"one byte long", len(src) + 1, comp, true},
		{"truncated", len(src), comp[:len(comp)/2], true},
		{"garbage", len(src), bytes.Repeat([]byte{0xFF}, 100), true},
		{"empty block", 10, nil, true},
		{"bytes for nothing", 0, comp, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := lib.Decompress(make([]byte, tc.dst), tc.src)
			if tc.wantErr != (err != nil) || (err != nil && (!errors.Is(err, oodle.ErrDecode) || !errors.Is(err, ue.ErrCorrupt))) {
				t.Errorf("err = %v, want error %v (ErrDecode)", err, tc.wantErr)
			}
		})
	}
}

// TestOpenRefuses checks the libraries Open refuses, each with
// ErrNotLoaded and the reason.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "oo2core_9_win64.dll")
	os.WriteFile(text, []byte("not a library"), 0o644)
	noDecode := oodletest.BuildC(t, "int OodleLZ_Something(void) { return 1; }\n")
	for _, tc := range []struct{ name, path, want string }{
		{"empty", "", "no path"},
		{"missing", filepath.Join(dir, "nothing.so"), "nothing.so"},
		{"folder", dir, "is a folder"},
		{"not a library", text, "oo2core_9_win64.dll"},
		{"no OodleLZ_Decompress", noDecode, "OodleLZ_Decompress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lib, err := oodle.Open(tc.path)
			if lib != nil || !errors.Is(err, oodle.ErrNotLoaded) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want ErrNotLoaded naming %q", err, tc.want)
			}
		})
	}
	// A library without OodleLZ_Compress decodes but refuses to compress.
	lib, err := oodle.Open(oodletest.BuildC(t, "#include <stdint.h>\nintptr_t OodleLZ_Decompress(void) { return 0; }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Compress(nil, []byte("abc"), oodle.Kraken, oodle.Normal); err == nil {
		t.Error("Compress through a library without OodleLZ_Compress succeeded")
	}
}

// TestFind lays out games as they ship and checks that Find goes from a
// container up to the game's Oodle library, and says where it looked
// when there is none.
func TestFind(t *testing.T) {
	lib := oodle.Names()[0]
	for _, tc := range []struct {
		name, lib, from string
	}{
		{"game binaries", "Game/Binaries/" + plat() + "/" + lib, "Game/Content/Paks/pakchunk0-Windows.utoc"},
		{"mods folder", "Game/Binaries/" + plat() + "/" + lib, "Game/Content/Paks/~mods/z_Mod_P.utoc"},
		{"engine third party", "Engine/Binaries/ThirdParty/Oodle/" + plat() + "/" + lib, "Game/Content/Paks/pakchunk0-Windows.utoc"},
		{"beside the container", "Game/Content/Paks/" + lib, "Game/Content/Paks/a.pak"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range []string{tc.lib, tc.from, "Engine/Config/BaseGame.ini"} {
				os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
				os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644)
			}
			got, err := oodle.Find(filepath.Join(root, tc.from))
			if err != nil || got != filepath.Join(root, tc.lib) {
				t.Errorf("Find = %q, %v; want %s", got, err, tc.lib)
			}
		})
	}
	root := t.TempDir()
	from := filepath.Join(root, "Game", "Content", "Paks", "a.utoc")
	os.MkdirAll(filepath.Dir(from), 0o755)
	if got, err := oodle.Find(from); !errors.Is(err, oodle.ErrNotFound) || !strings.Contains(err.Error(), lib) {
		t.Errorf("Find without a library = %q, %v; want ErrNotFound naming %s", got, err, lib)
	}
}

func plat() string {
	switch filepath.Base(oodle.Names()[0]) {
	case "oo2core_9_win64.dll":
		return "Win64"
	case "liboo2coremac64.2.9.dylib":
		return "Mac"
	}
	return "Linux"
}

// TestTwins decodes the corpus' Oodle containers and paks through the
// library and compares every chunk and file with its Zlib or uncompressed
// twin; containers also verify, every chunk hash checked. With the
// stand-in, the library answers each block with its twin's bytes, so the
// test proves that each block reaches the library whole and that the
// answer lands in its place; with UNRMOD_OODLE, it proves the decoding.
func TestTwins(t *testing.T) {
	twins := oodletest.Twins(t)
	var containers, paks int
	for _, tw := range twins {
		if tw.Pak {
			paks++
		} else {
			containers++
		}
	}
	if containers < 3 || paks < 2 {
		t.Fatalf("found %d Oodle containers and %d Oodle paks with twins; the corpus has at least 3 and 2", containers, paks)
	}
	lib, _ := open(t, oodletest.Records(t, twins))
	codecs := lib.Register(nil)
	for _, tw := range twins {
		t.Run(filepath.Base(tw.Oodle), func(t *testing.T) {
			if tw.Pak {
				comparePaks(t, tw, codecs)
			} else {
				compareContainers(t, tw, codecs)
			}
		})
	}
}

func compareContainers(t *testing.T, tw oodletest.Twin, codecs *ue.Codecs) {
	c, err := iostore.Open(tw.Oodle, &iostore.Options{Key: tw.Key, Codecs: codecs})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := iostore.Open(tw.Plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	oodleBlocks := 0
	for _, b := range c.TOC().Blocks {
		if b.Method > 0 && c.TOC().Methods[b.Method-1] == "Oodle" {
			oodleBlocks++
		}
	}
	if oodleBlocks == 0 {
		t.Fatal("no Oodle block")
	}
	for i, ch := range c.Chunks() {
		got, err := c.ReadChunk(i)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		j, ok := d.Find(ch.ID)
		if !ok && ch.Type == iostore.ChunkContainerHeader {
			continue // it names its own container
		}
		want, err := d.ReadChunk(j)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("chunk %d (%s) differs from its twin", i, ch.Path)
		}
	}
	rep := c.Verify(nil)
	if !rep.OK() || rep.NotChecked != 0 || rep.HashesChecked != len(c.Chunks()) {
		t.Errorf("verify: ok %v, %d hashes checked of %d, %d not checked (%s): %v", rep.OK(), rep.HashesChecked, len(c.Chunks()), rep.NotChecked, rep.NotCheckedWhy, rep.Problems)
	}
	// Without the library the same chunks fail, naming Oodle.
	bare, err := iostore.Open(tw.Oodle, &iostore.Options{Key: tw.Key})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	failed := 0
	for i := range bare.Chunks() {
		if _, err := bare.ReadChunk(i); errors.Is(err, iostore.ErrOodle) {
			failed++
		}
	}
	if failed == 0 {
		t.Error("without the library no chunk failed with ErrOodle")
	}
}

func comparePaks(t *testing.T, tw oodletest.Twin, codecs *ue.Codecs) {
	r, err := pak.Open(tw.Oodle, &pak.Options{Codecs: codecs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := pak.Open(tw.Plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for _, f := range r.Files {
		got, err := r.ReadFile(f.Path)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		want, err := s.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from its twin", f.Path)
		}
		if r.Footer.MethodName(f.Method) == "Oodle" {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no Oodle file")
	}
}
