package pak_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// Offsets in the primary index of a version 10+ pak mounted at
// "../../../" (an FString of 14 bytes).
const (
	primaryNumEntries  = 14
	primaryPHIOffset   = 30
	primaryFDIOffset   = 70
	primaryFDIHash     = 86
	primaryEncodedSize = 106
	primaryEncoded     = 110
)

// footerHashAt returns where the footer of b (of size footerSize) keeps
// the index hash.
func footerHashAt(b []byte, footerSize int) int {
	at := len(b) - footerSize + 4 + 4 + 8 + 8
	if footerSize > 44 {
		at++
	}
	if footerSize > 45 {
		at += 16
	}
	return at
}

// rehash recomputes the index hash in the footer after the index of an
// unencrypted pak was changed.
func rehash(t testing.TB, b []byte) []byte {
	t.Helper()
	f, err := pak.DecodeFooter(bytes.NewReader(b), int64(len(b)), "x")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum(b[f.IndexOffset : f.IndexOffset+f.IndexSize])
	copy(b[footerHashAt(b, f.Size()):], sum[:])
	return b
}

// put32 and put64 store little-endian values.
func put32(b []byte, at int64, v uint32) { binary.LittleEndian.PutUint32(b[at:], v) }
func put64(b []byte, at int64, v uint64) { binary.LittleEndian.PutUint64(b[at:], v) }

// TestMalformed damages written paks in the ways a bad file can be bad and
// checks that each gives a *ue.FormatError with the right sentinel, never a
// panic.
func TestMalformed(t *testing.T) {
	files := []testFile{{"Game/Config/DefaultGame.ini", []byte("[Core.Log]\nLogPakFile=Verbose\n")}, {"Game/b.txt", []byte("bee")}}
	v11 := writePak(t, nil, files)
	v3 := writePak(t, &pak.WriterOptions{Version: 3}, files)
	v9 := writePak(t, &pak.WriterOptions{Version: 9}, files)
	enc := writePak(t, &pak.WriterOptions{EncryptIndex: true, Key: &testKey}, files)
	f11, _ := pak.DecodeFooter(bytes.NewReader(v11), int64(len(v11)), "x")
	f3, _ := pak.DecodeFooter(bytes.NewReader(v3), int64(len(v3)), "x")
	ix := f11.IndexOffset
	fdiOffset := int64(binary.LittleEndian.Uint64(v11[ix+primaryFDIOffset:]))
	phiOffset := int64(binary.LittleEndian.Uint64(v11[ix+primaryPHIOffset:]))

	tests := []struct {
		name    string
		data    func() []byte
		want    error
		message string // part of the error text
	}{
		{"empty", func() []byte { return nil }, pak.ErrNotPak, "too short"},
		{"truncated footer", func() []byte { return v11[:len(v11)-1] }, pak.ErrNotPak, "no pak footer"},
		{"truncated to the index", func() []byte { return v11[:ix+20] }, pak.ErrNotPak, "no pak footer"},
		{"wrong magic", func() []byte {
			b := bytes.Clone(v11)
			b[len(b)-221+17] ^= 0xFF
			return b
		}, pak.ErrNotPak, "no pak footer"},
		{"version 16", func() []byte {
			b := bytes.Clone(v11)
			put32(b, int64(len(b)-221+21), 16)
			return b
		}, pak.ErrUnsupportedVersion, "version 16"},
		{"longer footer of a newer version", func() []byte {
			b := append(bytes.Clone(v11), make([]byte, 50)...)
			put32(b, int64(len(b)-221+21-50), 16)
			return b
		}, pak.ErrUnsupportedVersion, "version 16"},
		{"version 14 in a version 11 footer", func() []byte {
			b := bytes.Clone(v11)
			put32(b, int64(len(b)-221+21), 14)
			return b
		}, pak.ErrCorrupt, "does not have a 221-byte footer"},
		{"version 3 in a version 11 footer", func() []byte {
			b := bytes.Clone(v11)
			put32(b, int64(len(b)-221+21), 3)
			return b
		}, pak.ErrCorrupt, "does not have a 221-byte footer"},
		{"frozen index", func() []byte {
			b := bytes.Clone(v9)
			b[len(b)-222+61] = 1
			return b
		}, pak.ErrUnsupportedVersion, "frozen"},
		{"index past the footer", func() []byte {
			b := bytes.Clone(v11)
			put64(b, int64(len(b)-221+25), uint64(len(b)))
			return b
		}, pak.ErrCorrupt, "not inside the file"},
		{"negative index size", func() []byte {
			b := bytes.Clone(v3)
			put64(b, int64(len(b)-44+16), 1<<63)
			return b
		}, pak.ErrCorrupt, "not inside the file"},
		{"index hash", func() []byte {
			b := bytes.Clone(v11)
			b[footerHashAt(b, 221)] ^= 1
			return b
		}, pak.ErrCorrupt, "SHA-1"},
		{"legacy entry count larger than the bytes left", func() []byte {
			b := bytes.Clone(v3)
			put32(b, f3.IndexOffset+14, 1_000_000)
			return rehash(t, b)
		}, pak.ErrCorrupt, "entry count"},
		{"legacy entry outside the file", func() []byte {
			b := bytes.Clone(v3)
			// The first entry: path "Game/Config/DefaultGame.ini" (4+28 bytes), then offset, size, uncompressed size.
			put64(b, f3.IndexOffset+14+4+4+28+8, 1<<40)
			put64(b, f3.IndexOffset+14+4+4+28+16, 1<<40)
			return rehash(t, b)
		}, pak.ErrCorrupt, "outside the file"},
		{"legacy entry with a huge block count", func() []byte {
			b := writePak(t, &pak.WriterOptions{Version: 3, Compress: true}, []testFile{{"a.txt", bytes.Repeat([]byte("a"), 1000)}})
			f, _ := pak.DecodeFooter(bytes.NewReader(b), int64(len(b)), "x")
			// mount (14), count (4), path "a.txt" (10), offset, size, usize, flags, hash.
			put32(b, f.IndexOffset+14+4+10+24+4+20, 0x7FFFFFFF)
			return rehash(t, b)
		}, pak.ErrCorrupt, "compression block count"},
		{"negative entry count", func() []byte {
			b := bytes.Clone(v11)
			put32(b, ix+primaryNumEntries, 0xFFFFFFFF)
			return rehash(t, b)
		}, pak.ErrCorrupt, "negative count"},
		{"encoded entries larger than the bytes left", func() []byte {
			b := bytes.Clone(v11)
			put32(b, ix+primaryEncodedSize, 0x7FFFFFFF)
			return rehash(t, b)
		}, pak.ErrCorrupt, "encoded entries size"},
		{"encoded entry outside the file", func() []byte {
			b := bytes.Clone(v11)
			put32(b, ix+primaryEncoded+4, 0xFFFFFF00) // the first entry's offset
			return rehash(t, b)
		}, pak.ErrCorrupt, "outside the file"},
		{"unencoded entry count larger than the bytes left", func() []byte {
			b := bytes.Clone(v11)
			n := int64(binary.LittleEndian.Uint32(b[ix+primaryEncodedSize:]))
			put32(b, ix+primaryEncoded+n, 1_000_000)
			return rehash(t, b)
		}, pak.ErrCorrupt, "unencoded entry count"},
		{"bool that is not 0 or 1", func() []byte {
			b := bytes.Clone(v11)
			put32(b, ix+primaryFDIOffset-4, 2)
			return rehash(t, b)
		}, pak.ErrCorrupt, "not 0 or 1"},
		{"directory index outside the file", func() []byte {
			b := bytes.Clone(v11)
			put64(b, ix+primaryFDIOffset, 1<<62)
			return rehash(t, b)
		}, pak.ErrCorrupt, "not inside the file"},
		{"directory index hash", func() []byte {
			b := bytes.Clone(v11)
			b[fdiOffset] ^= 1
			return b
		}, pak.ErrCorrupt, "full directory index"},
		{"directory count larger than the bytes left", func() []byte {
			b := bytes.Clone(v11)
			put32(b, fdiOffset, 1_000_000)
			fdiSize := int64(binary.LittleEndian.Uint64(b[ix+primaryFDIOffset+8:]))
			sum := sha1.Sum(b[fdiOffset : fdiOffset+fdiSize])
			copy(b[ix+primaryFDIHash:], sum[:])
			return rehash(t, b)
		}, pak.ErrCorrupt, "directory count"},
		{"path hash count larger than the bytes left", func() []byte {
			b := bytes.Clone(v11)
			put32(b, phiOffset, 1_000_000)
			phiSize := int64(binary.LittleEndian.Uint64(b[ix+primaryPHIOffset+8:]))
			sum := sha1.Sum(b[phiOffset : phiOffset+phiSize])
			copy(b[ix+primaryPHIOffset+16:], sum[:])
			return rehash(t, b)
		}, pak.ErrCorrupt, "path hash index count"},
		{"encrypted index without a key", func() []byte { return enc }, pak.ErrKeyRequired, "key GUID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.data()
			_, err := pak.Decode(bytes.NewReader(b), int64(len(b)), "bad.pak", nil)
			checkFormatError(t, err, tc.want, tc.message)
		})
	}

	t.Run("wrong key", func(t *testing.T) {
		wrong := testKey
		wrong[0] ^= 1
		_, err := pak.Decode(bytes.NewReader(enc), int64(len(enc)), "bad.pak", &pak.Options{Key: &wrong})
		checkFormatError(t, err, pak.ErrWrongKey, "wrong AES key")
	})
}

// TestMalformedData damages what reading a file depends on: the record
// before its data, its blocks, the method and the key.
func TestMalformedData(t *testing.T) {
	text := bytes.Repeat([]byte("Unreal pak test data. "), 10000) // 4 blocks
	files := []testFile{{"Game/a.txt", text}}
	zlib := writePak(t, &pak.WriterOptions{Compress: true}, files)
	stored := writePak(t, &pak.WriterOptions{Version: 8}, files)
	encFiles := writePak(t, &pak.WriterOptions{EncryptFiles: true, Key: &testKey}, files)

	read := func(b []byte, key *ue.Key) error {
		r, err := pak.Decode(bytes.NewReader(b), int64(len(b)), "bad.pak", &pak.Options{Key: key})
		if err != nil {
			return err
		}
		_, err = r.Files[0].ReadAll()
		return err
	}
	tests := []struct {
		name    string
		data    func() []byte
		key     *ue.Key
		want    error
		message string
	}{
		{"record size differs from the index", func() []byte {
			b := bytes.Clone(stored)
			put64(b, 8, 5)
			return b
		}, nil, pak.ErrCorrupt, "size is 5"},
		{"stored byte changed", func() []byte {
			b := bytes.Clone(stored)
			b[100] ^= 1
			return b
		}, nil, pak.ErrHashMismatch, "SHA-1"},
		{"compressed byte changed", func() []byte {
			b := bytes.Clone(zlib)
			b[200] ^= 0xFF
			return b
		}, nil, pak.ErrCorrupt, "data of"},
		{"record hash changed", func() []byte {
			b := bytes.Clone(zlib)
			b[30] ^= 1 // offset, size, usize, method: the hash starts at 28
			return b
		}, nil, pak.ErrHashMismatch, "SHA-1"},
		{"encrypted file without a key", func() []byte { return encFiles }, nil, pak.ErrKeyRequired, "encrypted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkFormatError(t, read(tc.data(), tc.key), tc.want, tc.message)
		})
	}

	t.Run("unsupported method", func(t *testing.T) {
		b := bytes.Clone(zlib)
		copy(b[len(b)-5*32:], "Oodle\x00")
		err := read(b, nil)
		var me *pak.MethodError
		if !errors.As(err, &me) || !errors.Is(err, pak.ErrUnsupportedMethod) || me.Method != "Oodle" {
			t.Errorf("got %v, want a *MethodError for Oodle", err)
		}
	})
	t.Run("wrong file key", func(t *testing.T) {
		// The hash covers the encrypted bytes, so only decompression
		// notices a wrong key.
		wrong := testKey
		wrong[5] ^= 1
		b := writePak(t, &pak.WriterOptions{Compress: true, EncryptFiles: true, Key: &testKey}, files)
		checkFormatError(t, read(b, &wrong), pak.ErrCorrupt, "compression block 0")
	})
	t.Run("read after close", func(t *testing.T) {
		r := decodePak(t, zlib, nil)
		rc, err := r.Files[0].Open()
		if err != nil {
			t.Fatal(err)
		}
		rc.Close()
		if _, err := io.ReadAll(rc); err == nil {
			t.Error("read after Close succeeded")
		}
	})
}

// checkFormatError checks that err is a *ue.FormatError matching want whose
// text contains message.
func checkFormatError(t *testing.T, err, want error, message string) {
	t.Helper()
	var fe *ue.FormatError
	switch {
	case err == nil:
		t.Fatalf("no error, want %v", want)
	case !errors.As(err, &fe):
		t.Fatalf("%v (%T), want a *FormatError", err, err)
	case !errors.Is(err, want):
		t.Fatalf("%v, want it to match %v", err, want)
	case !strings.Contains(err.Error(), message):
		t.Fatalf("%v, want it to mention %q", err, message)
	}
}

// TestCheckIndex damages the path-hash index of a written pak (keeping
// its SHA-1 right): decoding still works, as in an engine that reads the
// directory index, but CheckIndex reports the disagreement.
func TestCheckIndex(t *testing.T) {
	b := writePak(t, nil, []testFile{{"Game/a.ini", []byte("a")}, {"Game/b.ini", []byte("b")}})
	f, _ := pak.DecodeFooter(bytes.NewReader(b), int64(len(b)), "x")
	ix := f.IndexOffset
	phiOffset := int64(binary.LittleEndian.Uint64(b[ix+primaryPHIOffset:]))
	phiSize := int64(binary.LittleEndian.Uint64(b[ix+primaryPHIOffset+8:]))
	for _, tc := range []struct {
		name    string
		at      int64 // in the path-hash index
		message string
	}{
		{"hash", 4, "has no hash"},
		{"location", 4 + 8, "location"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := bytes.Clone(b)
			d[phiOffset+tc.at] ^= 0x20
			sum := sha1.Sum(d[phiOffset : phiOffset+phiSize])
			copy(d[ix+primaryPHIOffset+16:], sum[:])
			r := decodePak(t, rehash(t, d), nil)
			checkFormatError(t, r.CheckIndex(), pak.ErrCorrupt, tc.message)
		})
	}
	t.Run("entry count", func(t *testing.T) {
		d := bytes.Clone(b)
		put32(d, ix+primaryNumEntries, 3)
		r := decodePak(t, rehash(t, d), nil)
		checkFormatError(t, r.CheckIndex(), pak.ErrCorrupt, "counts 3 entries")
	})
	if err := decodePak(t, b, nil).CheckIndex(); err != nil {
		t.Errorf("undamaged: %v", err)
	}
}
