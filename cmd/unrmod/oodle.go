package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ue/oodle"
)

// oodleEnv names the variable that gives the game's Oodle library when
// --oodle does not.
const oodleEnv = "UNRMOD_OODLE"

// oodleHow is how the command line gives the Oodle library, as messages
// about Oodle data say it.
const oodleHow = "--oodle PATH (or " + oodleEnv + "=PATH)"

// oodleFlag is --oodle PATH, the game's Oodle library that decodes and
// encodes Oodle blocks. Without it the library comes from UNRMOD_OODLE,
// else from beside the game the file read belongs to (oodle.Find); with
// none, Oodle blocks fail with a message saying how to give one. The
// library is loaded once per run, when the first file is opened.
type oodleFlag struct {
	path   string
	loaded bool
	lib    *oodle.Library
	table  *ue.Codecs
	err    error
}

// addOodleFlag registers --oodle on fs.
func addOodleFlag(fs *flag.FlagSet) *oodleFlag {
	o := &oodleFlag{}
	fs.StringVar(&o.path, "oodle", "", "the game's Oodle library `PATH` (oo2core_9_win64.dll, liboo2corelinux64.so.9) for Oodle blocks; default $"+oodleEnv+", else the one beside the game")
	return o
}

// codecs returns the compression methods of the run: the built-in ones,
// and Oodle when a library is given or found beside the game near
// belongs to. A library given that does not load is an error.
func (o *oodleFlag) codecs(near string) (*ue.Codecs, error) {
	if o == nil {
		return nil, nil
	}
	if o.loaded {
		return o.table, o.err
	}
	o.loaded = true
	path, from := o.path, "--oodle"
	if path == "" {
		path, from = os.Getenv(oodleEnv), oodleEnv
	}
	if path == "" && near != "" {
		if p, err := oodle.Find(near); err == nil {
			path, from = p, "the Oodle library beside the game"
		}
	}
	if path == "" {
		return nil, nil
	}
	lib, err := oodle.Open(path)
	if err != nil {
		o.err = fmt.Errorf("%s: %w", from, err)
		return nil, o.err
	}
	o.lib, o.table = lib, lib.Register(nil)
	return o.table, nil
}

// shaderOptions returns how shader libraries' code is decompressed and
// compressed (convert.ShaderLibraryOptions): through the Oodle library
// codecs loaded, with the engine's packer's group compressor (Mermaid,
// level Normal); none when no library was loaded. Call codecs first.
func (o *oodleFlag) shaderOptions() convert.ShaderLibraryOptions {
	if o == nil || o.lib == nil {
		return convert.ShaderLibraryOptions{}
	}
	lib := o.lib
	return convert.ShaderLibraryOptions{
		Decompress: lib.Decompress,
		Compress:   func(dst, src []byte) ([]byte, error) { return lib.Compress(dst, src, oodle.Mermaid, oodle.Normal) },
	}
}

// canWriteOodle reports whether codecs compress Oodle blocks, and if not,
// the error that says how to give the library.
func canWriteOodle(codecs *ue.Codecs) error {
	if c, ok := codecs.Lookup(oodle.Name); ok && c.NewCompressor != nil {
		return nil
	}
	return errors.New("Oodle compression needs the game's own Oodle library (oo2core_9_win64.dll, liboo2corelinux64.so.9): give it with " + oodleHow + ", or compress with zlib")
}
