package pak

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/ue"
)

// The index parts a pak encodes, for FuzzIndexParts: a fuzz input is a
// part kind, a version (its top bit set for a pak encrypted with AES-CTR,
// whose encrypted entries carry an IV) and the part's bytes.
const (
	partFooter    = iota // the footer (the input ends with it)
	partRecord           // a serialized entry (FPakEntry), as records and legacy indexes hold them
	partEncoded          // a bit-encoded entry (version 10+)
	partFlatIndex        // a flat full directory index (version 13+)
	partKinds
)

// indexPart builds a fuzz input.
func indexPart(kind int, v Version, b []byte) []byte {
	return append([]byte{byte(kind), byte(v)}, b...)
}

// indexPartsOf returns the index parts of a decoded pak as fuzz inputs,
// each one its decoder takes and its encoder writes back byte for byte.
func indexPartsOf(tb testing.TB, data []byte, key *ue.Key) [][]byte {
	tb.Helper()
	r, err := Decode(bytes.NewReader(data), int64(len(data)), "seed.pak", &Options{Key: key})
	if err != nil {
		tb.Fatal(err)
	}
	v := r.Footer.Version
	// The footer alone: its index then starts at 0 and has no bytes.
	foot := bytes.Clone(data[len(data)-r.Footer.Size():])
	at := 8
	if v.HasIndexEncryption() {
		at++
	}
	if v.HasKeyGUID() {
		at += 16
	}
	clear(foot[at : at+16])
	out := [][]byte{indexPart(partFooter, v, foot)}
	for _, f := range r.Files {
		if f.Deleted {
			continue
		}
		out = append(out, indexPart(partRecord, v, data[f.Offset:f.Offset+f.HeaderSize(v, len(r.Footer.Methods))]))
		if loc, ok := r.locations[f]; ok && loc >= 0 {
			ev := v
			if r.Footer.CTR() {
				ev |= 0x80
			}
			out = append(out, indexPart(partEncoded, ev, r.encoded[loc:]))
		}
	}
	if v.HasFlatDirectoryIndex() && !r.Footer.IndexEncrypted && r.fdiAt[1] > 0 {
		out = append(out, indexPart(partFlatIndex, v, data[r.fdiAt[0]:r.fdiAt[0]+r.fdiAt[1]]))
	}
	return out
}

// indexSeeds returns the index parts of small paks of every version (and
// of the corpus paks when UNRMOD_CORPUS is set).
func indexSeeds(tb testing.TB) [][]byte {
	key := ue.Key([]byte("unrmod pak test key, 32 bytes!!!"))
	files := map[string][]byte{
		"Game/Config/DefaultGame.ini":      bytes.Repeat([]byte("[/Script/EngineSettings.GeneralProjectSettings]\n"), 3000),
		"Game/Content/Maps/Level.umap":     []byte("level"),
		"Game/Content/Maps/Level.uexp":     []byte("exports"),
		"Game/Content/Textures/T_A.uasset": []byte("texture"),
		"Top.txt":                          nil,
	}
	var out [][]byte
	for v := VersionInitial; v <= LatestVersion; v++ {
		for _, o := range []WriterOptions{
			{Version: v},
			{Version: v, Compress: v.HasBlocks()},
			{Version: v, Compress: v.HasBlocks(), EncryptFiles: v.HasBlocks(), Key: &key, CTR: v.HasEncryptionMethod()},
		} {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, &o)
			if err != nil {
				tb.Fatal(err)
			}
			for _, name := range []string{"Game/Config/DefaultGame.ini", "Game/Content/Maps/Level.uexp", "Game/Content/Maps/Level.umap", "Game/Content/Textures/T_A.uasset", "Top.txt"} {
				if err := w.WriteFile(name, files[name]); err != nil {
					tb.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				tb.Fatal(err)
			}
			out = append(out, indexPartsOf(tb, buf.Bytes(), &key)...)
		}
	}
	if dir := os.Getenv(corpus.EnvVar); dir != "" {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".pak") {
				return err
			}
			if st, err := d.Info(); err == nil && st.Size() <= 1<<20 {
				if b, err := os.ReadFile(p); err == nil {
					out = append(out, indexPartsOf(tb, b, nil)...)
				}
			}
			return nil
		})
	}
	return out
}

// TestIndexPartsRoundTrip checks the property FuzzIndexParts relies on:
// each index part of real and written paks decodes and encodes back to
// the same bytes.
func TestIndexPartsRoundTrip(t *testing.T) {
	seeds := indexSeeds(t)
	kinds := map[int]int{}
	for i, s := range seeds {
		enc, used, ok := roundTripPart(t, s)
		if !ok {
			t.Fatalf("seed %d (kind %d, version %d) does not decode", i, s[0], s[1])
		}
		if want := partBytes(s, used); !bytes.Equal(enc, want) {
			t.Fatalf("seed %d (kind %d, version %d): encoded %x, decoded from %x", i, s[0], s[1], enc, want)
		}
		kinds[int(s[0])]++
	}
	for k := range partKinds {
		if kinds[k] == 0 {
			t.Errorf("no seed of part kind %d", k)
		}
	}
}

// partBytes returns the bytes of a fuzz input's part its decoder used.
func partBytes(in []byte, used int) []byte {
	b := in[2:]
	if in[0] == partFooter {
		return b[len(b)-used:]
	}
	return b[:used]
}

// FuzzIndexParts decodes arbitrary bytes as an index part of every
// version (footer, serialized entry, bit-encoded entry, flat directory
// index): no panic and no allocation beyond the input's size; what decodes
// encodes back to bytes that decode to the same value and encode to
// themselves again, and seeds encode back to their own bytes.
func FuzzIndexParts(f *testing.F) {
	for _, s := range indexSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		enc, used, ok := roundTripPart(t, data)
		if !ok {
			return
		}
		again := append([]byte{data[0], data[1]}, enc...)
		if data[0] == partFooter {
			// Where the footer lies decides whether its index fits before it.
			again = append(bytes.Clone(data[:len(data)-used]), enc...)
		}
		enc2, used, ok := roundTripPart(t, again)
		if !ok || used != len(enc) || !bytes.Equal(enc2, enc) {
			t.Fatalf("re-encoding is not stable: %x then %x (%v)", enc, enc2, ok)
		}
	})
}

// roundTripPart decodes the part in a fuzz input and encodes it again; it
// returns the encoding, how many bytes the decoder used and whether the
// part decoded.
func roundTripPart(t *testing.T, data []byte) ([]byte, int, bool) {
	if len(data) < 2 {
		return nil, 0, false
	}
	kind, v, b := int(data[0]), Version(data[1]&0x7F), data[2:]
	ctr := data[1]&0x80 != 0 && v.HasEncryptionMethod()
	if !v.Known() {
		return nil, 0, false
	}
	switch kind {
	case partFooter:
		foot, err := DecodeFooter(bytes.NewReader(b), int64(len(b)), "fuzz.pak")
		if err != nil {
			return nil, 0, false
		}
		enc, err := foot.AppendBinary(nil)
		if err != nil {
			// Decodable but not encodable: a method name of other bytes.
			return nil, 0, false
		}
		return enc, foot.Size(), true
	case partRecord:
		slots := 5
		c := newCursor(b, 0)
		e := decodeEntry(c, v, slots)
		if c.Err() != nil {
			return nil, 0, false
		}
		return appendEntry(nil, &e, v, slots, e.Offset), c.Pos(), true
	case partEncoded:
		if !v.HasPathHashIndex() {
			return nil, 0, false
		}
		c := newCursor(b, 0)
		e := decodeEncodedEntry(c, v, ctr)
		if c.Err() != nil || !encodable(&e, v) {
			return nil, 0, false
		}
		enc := appendEncodedEntry(nil, &e, ctr)
		c2 := newCursor(enc, 0)
		if e2 := decodeEncodedEntry(c2, v, ctr); c2.Err() != nil || !reflect.DeepEqual(e2, e) {
			t.Fatalf("encoded entry %+v re-decodes as %+v (%v)", e, e2, c2.Err())
		}
		return enc, c.Pos(), true
	case partFlatIndex:
		c := newCursor(b, 0)
		files, table, dirs := decodeFlatDirectories(c)
		if c.Err() != nil {
			return nil, 0, false
		}
		enc := appendFlatDirectoryIndex(nil, dirs, table)
		c2 := newCursor(enc, 0)
		files2, table2, _ := decodeFlatDirectories(c2)
		if c2.Err() != nil || len(files2) != len(files) || !reflect.DeepEqual(table2, table) {
			t.Fatalf("flat index re-decodes differently: %v", c2.Err())
		}
		for i := range files {
			if files[i].path != files2[i].path || files[i].location != files2[i].location {
				t.Fatalf("flat index file %d: %+v re-decodes as %+v", i, files[i], files2[i])
			}
		}
		return enc, c.Pos(), true
	}
	return nil, 0, false
}

// TestFlatIndexMalformed damages a flat directory index written by the
// writer: every damage is an error naming the structure, never a panic.
func TestFlatIndexMalformed(t *testing.T) {
	var flat []byte
	for _, s := range indexSeeds(t) {
		if s[0] == partFlatIndex {
			flat = s[2:]
			break
		}
	}
	put := func(at int, v uint32) []byte {
		b := bytes.Clone(flat)
		b[at], b[at+1], b[at+2], b[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"huge directory count", put(4, 1<<30), "directory count"},
		{"huge file count", put(8, 1<<30), "file count"},
		{"zero restart interval", put(12, 0), "restart interval"},
		{"negative blob size", put(16, 0xFFFFFFFF), "directory blob size"},
		{"truncated", flat[:len(flat)-3], "flat index tables"},
		{"hash count over the bytes", put(24, 1<<20), "path hash count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCursor(tc.b, 1000)
			decodeFlatDirectoryIndex(c)
			err := cursorError("x.pak", "full directory index ", c.Err())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "x.pak") {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			var fe *ue.FormatError
			if !asFormatError(err, &fe) || fe.Offset < 1000 {
				t.Errorf("error %v is not a *ue.FormatError with an offset in the index", err)
			}
		})
	}
}

func asFormatError(err error, fe **ue.FormatError) bool {
	e, ok := err.(*ue.FormatError)
	if ok {
		*fe = e
	}
	return ok && fmt.Sprint(e) != ""
}
