package iostore_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// halvesCodec stands for a codec loaded at run time (Oodle): a block whose
// two halves are equal is stored as its first half.
func halvesCodec() ue.Codec {
	return ue.Codec{
		Name: "Halves",
		Decompress: func(dst, src []byte) error {
			if 2*len(src) != len(dst) {
				return errors.New("not half the block")
			}
			copy(dst, src)
			copy(dst[len(src):], src)
			return nil
		},
		NewCompressor: func(int) ue.Compressor {
			return func(dst, src []byte) ([]byte, error) {
				h := len(src) / 2
				if len(src)%2 != 0 || !bytes.Equal(src[:h], src[h:]) {
					return src, nil // stored
				}
				return append(dst[:0], src[:h]...), nil
			}
		},
	}
}

// TestCodecsRegistered writes a container with a method the built-ins
// lack, added to the writer's Codecs, and reads it back with and without
// that method in the reader's Codecs.
func TestCodecsRegistered(t *testing.T) {
	codecs := ue.NewCodecs()
	codecs.Register(halvesCodec())
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*iostore.DefaultBlockSize/16)
	out := filepath.Join(t.TempDir(), "Halves-Windows.utoc")

	id, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, iostore.VersionReplaceIoChunkHashWithIoHash)
	w0, err := iostore.NewWriter(filepath.Join(t.TempDir(), "NoCodec-Windows.utoc"), &iostore.WriterOptions{Method: "Halves"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w0.AddChunk(id, "Game/Content/Halves.ubulk", bytes.NewReader(data)); err == nil {
		t.Fatal("the built-in codecs wrote Halves")
	}
	w0.Close()
	w, err := iostore.NewWriter(out, &iostore.WriterOptions{Method: "halves", Codecs: codecs})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddChunk(id, "Game/Content/Halves.ubulk", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	c, err := iostore.Open(out, &iostore.Options{Codecs: codecs})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.TOC().Methods; len(got) != 1 || got[0] != "Halves" {
		t.Fatalf("TOC methods %q, want [Halves]", got)
	}
	got, err := c.ReadChunk(0)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("with the codec: %d bytes, %v", len(got), err)
	}

	plain, err := iostore.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, err = plain.ReadChunk(0)
	var me *iostore.MethodError
	if !errors.As(err, &me) || me.Method != "Halves" || !errors.Is(err, ue.ErrUnsupportedMethod) {
		t.Fatalf("without the codec: %v, want a *MethodError for Halves", err)
	}
}
