package pak_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// fuzzSeeds returns small written paks: every version, stored and
// compressed (in several blocks), with encrypted indexes and files.
func fuzzSeeds(f *testing.F) [][]byte {
	files := []testFile{
		{"Game/Config/DefaultGame.ini", bytes.Repeat([]byte("[/Script/EngineSettings.GeneralProjectSettings]\n"), 3000)},
		{"Game/a.txt", []byte("a")},
		{"b", nil},
	}
	var out [][]byte
	for v := pak.Version(1); v <= pak.LatestVersion; v++ {
		out = append(out, writePak(f, &pak.WriterOptions{Version: v}, files[1:]))
		if v.HasBlocks() {
			out = append(out, writePak(f, &pak.WriterOptions{Version: v, Compress: true}, files))
		}
		if v.HasIndexEncryption() {
			out = append(out, writePak(f, &pak.WriterOptions{Version: v, Compress: true, EncryptIndex: true, EncryptFiles: true, Key: &testKey}, files))
		}
	}
	return append(out, writePak(f, nil, nil))
}

// FuzzPak decodes arbitrary bytes as a pak, walks it as a file system and
// reads every file: no
// panic, no allocation beyond the input's size (decompressed data is
// discarded as it streams), and decoding errors are *ue.FormatError values.
func FuzzPak(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	// The corpus paks too, read directly from the environment so that the
	// target runs without the corpus.
	if dir := os.Getenv(corpus.EnvVar); dir != "" {
		filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(file), ".pak") {
				return err
			}
			if st, err := d.Info(); err == nil && st.Size() <= 64<<10 {
				if b, err := os.ReadFile(file); err == nil {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		fuzzOne(t, data)
		// Most mutations break an index's SHA-1; fix them so that the
		// decoder's structure checks are reached too.
		if fixed := fixHashes(data); fixed != nil {
			fuzzOne(t, fixed)
		}
	})
}

// fuzzOne decodes data, walks it and reads every file.
func fuzzOne(t *testing.T, data []byte) {
	r, err := pak.Decode(bytes.NewReader(data), int64(len(data)), "fuzz.pak", &pak.Options{Key: &testKey})
	if err != nil {
		var fe *ue.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("decoding error %v (%T) is not a *FormatError", err, err)
		}
		return
	}
	r.CheckIndex()
	fs.WalkDir(r, ".", func(string, fs.DirEntry, error) error { return nil })
	for _, file := range r.Files {
		rc, err := file.Open()
		if err != nil {
			continue
		}
		io.Copy(io.Discard, rc)
		rc.Close()
	}
}

// fixHashes returns a copy of an unencrypted pak with the SHA-1s of its
// index and (version 10+) secondary indexes recomputed, or nil when the
// footer does not decode or nothing changed.
func fixHashes(data []byte) []byte {
	f, err := pak.DecodeFooter(bytes.NewReader(data), int64(len(data)), "fuzz.pak")
	if err != nil || f.IndexEncrypted {
		return nil
	}
	b := bytes.Clone(data)
	le := binary.LittleEndian
	if f.Version.HasPathHashIndex() {
		pos := f.IndexOffset
		end := f.IndexOffset + f.IndexSize
		if pos+4 > end {
			return nil
		}
		n := int64(int32(le.Uint32(b[pos:])))
		if n < 0 {
			n *= -2
		}
		pos += 4 + n + 4 + 8
		for range 2 { // the path-hash index, then the directory index
			if pos < 0 || pos+4 > end {
				return nil
			}
			if le.Uint32(b[pos:]) != 1 {
				pos += 4
				continue
			}
			if pos+40 > end {
				return nil
			}
			off, size := int64(le.Uint64(b[pos+4:])), int64(le.Uint64(b[pos+12:]))
			if off >= 0 && size >= 0 && off <= int64(len(b)) && size <= int64(len(b))-off {
				sum := sha1.Sum(b[off : off+size])
				copy(b[pos+20:], sum[:])
			}
			pos += 40
		}
	}
	sum := sha1.Sum(b[f.IndexOffset : f.IndexOffset+f.IndexSize])
	copy(b[footerHashAt(b, f.Size()):], sum[:])
	if bytes.Equal(b, data) {
		return nil
	}
	return b
}
