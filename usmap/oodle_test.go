package usmap_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/unrmod/unrmod/internal/oodletest"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ue/oodle"
	"github.com/unrmod/unrmod/usmap"
)

// TestOodleThroughLibrary reads the corpus's Oodle .usmap through a
// run-time Oodle library (UNRMOD_OODLE's, or a stand-in built here that
// answers the file's payload with its uncompressed twin's): it gives the
// schema of the uncompressed file.
func TestOodleThroughLibrary(t *testing.T) {
	files := corpusMappings(t)
	f, plain := files[usmap.CompressionOodle], files[usmap.CompressionNone]
	if f == "" || plain == "" {
		t.Fatal("the corpus lacks the Oodle or the uncompressed mappings")
	}
	// The payload the file hands the decoder, and its decompressed size.
	var comp []byte
	n := 0
	capture := ue.NewCodecs()
	capture.Register(ue.Codec{Name: "Oodle", Decompress: func(dst, src []byte) error {
		comp, n = bytes.Clone(src), len(dst)
		return errors.New("captured")
	}})
	if _, err := usmap.Open(f, &usmap.Options{Codecs: capture}); n == 0 {
		t.Fatalf("the payload never reached the codec: %v", err)
	}
	pb, err := os.ReadFile(plain)
	if err != nil || len(pb) < n {
		t.Fatalf("%s: %v", plain, err)
	}
	path, _ := oodletest.Library(t, []oodletest.Record{{Comp: comp, Raw: pb[len(pb)-n:]}})
	lib, err := oodle.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := usmap.Open(f, &usmap.Options{Codecs: lib.Register(nil)})
	if err != nil {
		t.Fatal(err)
	}
	want, err := usmap.Open(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Compression != usmap.CompressionOodle || !reflect.DeepEqual(m.Structs, want.Structs) || !reflect.DeepEqual(m.Enums, want.Enums) {
		t.Errorf("the Oodle mappings (%s) read through the library differ from the uncompressed ones", m.Compression)
	}
}
