// Package oodle decodes and encodes Oodle blocks through the game's own
// Oodle library, loaded at run time without cgo: purego's dlopen on Linux
// and macOS, LoadLibrary on Windows.
//
// Oodle is proprietary: unrmod neither bundles nor downloads it. Every game
// that uses it ships the library (oo2core_9_win64.dll beside the game's
// executable or under Engine/Binaries/ThirdParty/Oodle; Linux builds ship
// liboo2corelinux64.so.9). Open loads one by path, Find looks for the one
// a game ships beside a file of that game, and Library.Codec gives the
// ue.Codec that containers and paks decode and encode "Oodle" blocks
// with, once registered in the ue.Codecs given to them:
//
//	lib, err := oodle.Open(path)
//	...
//	codecs := ue.NewCodecs()
//	codecs.Register(lib.Codec(oodle.Kraken, oodle.DefaultLevel))
//	c, err := iostore.Open("pakchunk0-Windows.utoc", &iostore.Options{Codecs: codecs})
//
// The library is called through its C ABI (docs/ue.md): OodleLZ_Decompress
// and OodleLZ_Compress, and OodleLZ_GetCompressedBufferSizeNeeded when the
// library has it.
package oodle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// Name is the compression method's name as the engine writes it in a
// container's or a pak's method names.
const Name = "Oodle"

// Compressor is an Oodle compressor (OodleLZ_Compressor).
type Compressor int32

// The compressors UE games use. Kraken is what the engine packages with
// by default.
const (
	Kraken    Compressor = 8
	Mermaid   Compressor = 9
	Selkie    Compressor = 11
	Leviathan Compressor = 13
)

// String names the compressor.
func (c Compressor) String() string {
	switch c {
	case Kraken:
		return "Kraken"
	case Mermaid:
		return "Mermaid"
	case Selkie:
		return "Selkie"
	case Leviathan:
		return "Leviathan"
	}
	return fmt.Sprintf("Compressor(%d)", int32(c))
}

// ParseCompressor reads a compressor's name (case-insensitive).
func ParseCompressor(s string) (Compressor, error) {
	for _, c := range []Compressor{Kraken, Mermaid, Selkie, Leviathan} {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown Oodle compressor %q (want Kraken, Mermaid, Selkie or Leviathan)", s)
}

// Level is an Oodle compression level (OodleLZ_CompressionLevel): higher
// is smaller and slower; Optimal levels are far slower than Normal.
type Level int32

// Compression levels.
const (
	SuperFast Level = 1
	VeryFast  Level = 2
	Fast      Level = 3
	Normal    Level = 4
	Optimal1  Level = 5
	Optimal2  Level = 6
	Optimal3  Level = 7
	Optimal4  Level = 8
	Optimal5  Level = 9
)

// DefaultLevel is the level Codec uses for ue.DefaultCompression: Normal,
// which the engine's test and development packaging uses too, and which
// compresses a 64 KiB block in well under a millisecond (the Optimal
// levels of shipping builds take many times longer for a few percent).
const DefaultLevel = Normal

// Errors.
var (
	// ErrNotLoaded means the library could not be loaded, or lacks the
	// functions unrmod calls.
	ErrNotLoaded = errors.New("Oodle library not loaded")
	// ErrNotFound means Find found no Oodle library beside the game.
	ErrNotFound = errors.New("no Oodle library found beside the game")
	// ErrDecode means the library refused a block or decoded it to
	// another size than the block entry says. It matches ue.ErrCorrupt.
	ErrDecode = ue.NewSentinel("Oodle block does not decode", ue.ErrCorrupt)
)

// Library is a loaded Oodle library. Its methods may be called from
// several goroutines at once (the library's functions are thread-safe).
// A Library stays loaded for the life of the process.
type Library struct {
	path string
	fns  funcs
}

// funcs are the library's entry points, bound by the platform's loader.
type funcs interface {
	decompress(dst, src []byte) int64
	compress(c Compressor, level Level, dst, src []byte) int64
	// bound returns OodleLZ_GetCompressedBufferSizeNeeded(c, n), or -1
	// when the library does not export it.
	bound(c Compressor, n int) int64
}

// Open loads the Oodle library at path. An error wraps ErrNotLoaded and
// says why (no such file, not a library for this system, no
// OodleLZ_Decompress).
func Open(path string) (*Library, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: no path given", ErrNotLoaded)
	}
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotLoaded, err)
	} else if st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a folder, not the library file (%s)", ErrNotLoaded, path, strings.Join(Names(), ", "))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotLoaded, err)
	}
	f, err := load(abs)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotLoaded, path, err)
	}
	return &Library{path: path, fns: f}, nil
}

// Path returns the path the library was opened from.
func (l *Library) Path() string { return l.path }

// Decompress decodes the Oodle block src into dst, whose length is the
// block's uncompressed size. The library is called fuzz-safe, so damaged
// input fails rather than reads or writes out of bounds; an error wraps
// ErrDecode.
func (l *Library) Decompress(dst, src []byte) error {
	if len(dst) == 0 {
		if len(src) == 0 {
			return nil
		}
		return fmt.Errorf("%w: a %d-byte block for 0 bytes", ErrDecode, len(src))
	}
	if len(src) == 0 {
		return fmt.Errorf("%w: an empty block for %d bytes", ErrDecode, len(dst))
	}
	n := l.fns.decompress(dst, src)
	if n != int64(len(dst)) {
		if n <= 0 {
			return fmt.Errorf("%w: the library refused the %d-byte block (damaged, or not Oodle)", ErrDecode, len(src))
		}
		return fmt.Errorf("%w: the %d-byte block decodes to %d bytes, the block entry says %d", ErrDecode, len(src), n, len(dst))
	}
	return nil
}

// Bound returns how large a buffer Compress may need for n bytes.
func (l *Library) Bound(c Compressor, n int) int {
	// The library's own answer when it has one (oo2core 2.9 takes the
	// compressor first; an older library reads our compressor as the size
	// and answers too little, so the generous bound below stays the floor):
	// a 256 KiB Oodle block expands by at most a few hundred bytes.
	floor := n + n/8 + 1024
	if b := l.fns.bound(c, n); b > int64(floor) && b < int64(2*n+1<<20) {
		return int(b)
	}
	return floor
}

// Compress appends the Oodle-compressed form of src to dst[:0] and
// returns it.
func (l *Library) Compress(dst, src []byte, c Compressor, level Level) ([]byte, error) {
	if len(src) == 0 {
		return nil, errors.New("Oodle: cannot compress an empty block")
	}
	need := l.Bound(c, len(src))
	if cap(dst) < need {
		dst = make([]byte, need)
	}
	dst = dst[:need]
	n := l.fns.compress(c, level, dst, src)
	if n <= 0 || n > int64(need) {
		return nil, fmt.Errorf("Oodle %s level %d: the library did not compress the %d-byte block (it returned %d)", c, level, len(src), n)
	}
	return dst[:n], nil
}

// Codec returns the "Oodle" method for a ue.Codecs table: blocks decode
// through the library, and its compressor encodes with c at level, or at
// the level a writer asks for when that is one of Oodle's (1 to 9;
// ue.DefaultCompression and the zlib levels beyond 9 mean level).
func (l *Library) Codec(c Compressor, level Level) ue.Codec {
	return ue.Codec{
		Name:       Name,
		Decompress: l.Decompress,
		NewCompressor: func(lv int) ue.Compressor {
			use := level
			if lv >= int(SuperFast) && lv <= int(Optimal5) && lv != ue.DefaultCompression {
				use = Level(lv)
			}
			return func(dst, src []byte) ([]byte, error) { return l.Compress(dst, src, c, use) }
		},
	}
}

// Register adds the library's "Oodle" method (Kraken at DefaultLevel) to
// codecs, which may be nil, and returns the table.
func (l *Library) Register(codecs *ue.Codecs) *ue.Codecs {
	if codecs == nil {
		codecs = ue.NewCodecs()
	}
	codecs.Register(l.Codec(Kraken, DefaultLevel))
	return codecs
}

// Names returns the file names of the Oodle library on this system, the
// newest first.
func Names() []string { return namesFor(runtime.GOOS) }

func namesFor(goos string) []string {
	switch goos {
	case "windows":
		return []string{"oo2core_9_win64.dll", "oo2core_8_win64.dll", "oo2core_7_win64.dll", "oo2core_6_win64.dll", "oo2core_5_win64.dll"}
	case "darwin":
		return []string{"liboo2coremac64.2.9.dylib", "liboo2coremac64.dylib"}
	}
	return []string{"liboo2corelinux64.so.9", "liboo2corelinux64.so"}
}

// maxUp is how many folders Find climbs from the file it is given: a
// container sits at <Game>/Content/Paks/[~mods/…], a few below the root.
const maxUp = 6

// Find looks for the Oodle library a game ships, starting from file, a
// container, pak or any file of the game: it climbs from the file's folder
// to the game's root and looks in each folder's Binaries/<platform> and
// Engine/Binaries/ThirdParty/Oodle/<platform>, and in the folders of each
// game project below the root (<Root>/<Game>/Binaries/Win64). It returns
// the first library found, or an error wrapping ErrNotFound that lists
// where it looked.
func Find(file string) (string, error) { return find(file, runtime.GOOS) }

func find(file, goos string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	plat := map[string][]string{"windows": {"Win64"}, "darwin": {"Mac"}}[goos]
	if plat == nil {
		plat = []string{"Linux"}
	}
	names := namesFor(goos)
	seen := map[string]bool{}
	try := func(dir string) string {
		if seen[dir] {
			return ""
		}
		seen[dir] = true
		for _, n := range names {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p
			}
		}
		return ""
	}
	dir := filepath.Dir(abs)
	for up := 0; up <= maxUp; up++ {
		cands := []string{dir}
		for _, p := range plat {
			cands = append(cands, filepath.Join(dir, "Binaries", p),
				filepath.Join(dir, "Engine", "Binaries", "ThirdParty", "Oodle", p))
		}
		// The root holds Engine/ and one folder per game project, each with
		// its own Binaries: look into those beside Engine/.
		if st, err := os.Stat(filepath.Join(dir, "Engine")); err == nil && st.IsDir() {
			if ents, err := os.ReadDir(dir); err == nil {
				for _, e := range ents {
					if e.IsDir() && e.Name() != "Engine" {
						for _, p := range plat {
							cands = append(cands, filepath.Join(dir, e.Name(), "Binaries", p))
						}
					}
				}
			}
		}
		for _, c := range cands {
			if p := try(c); p != "" {
				return p, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("%w (%s) in the folders above %s", ErrNotFound, strings.Join(names, ", "), file)
}
