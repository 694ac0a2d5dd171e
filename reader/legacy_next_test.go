package reader_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// OpenDX.u (Deus Ex, 68/32) stores 37 names as a length-4 string of two
// characters, a zero and the terminating zero. The reader makes of them what
// the engine does (the two characters), Verify accepts them, Warnings lists
// them, and the file encodes back byte for byte.
func TestDeusExNames(t *testing.T) {
	path := corpus.Path(t, "legacy-next/deusex/OpenDX.u")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Verify(); len(probs) > 0 {
		t.Fatalf("%d problems, first %v", len(probs), probs[0])
	}
	var stored int
	for i := range p.Names {
		n := &p.Names[i]
		if strings.ContainsRune(n.Name, 0) {
			t.Errorf("name %d %q holds a zero", i, n.Name)
		}
		if k := n.StoredAfter(); k > 0 {
			stored++
			if raw := n.Raw(); k != 1 || len(n.Name) != 2 || !bytes.Equal(raw[:5], append([]byte{4}, n.Name[0], n.Name[1], 0, 0)) {
				t.Errorf("name %d %q stores %d more, entry % x", i, n.Name, k, raw)
			}
		}
	}
	if w := p.Warnings(); stored != 37 || len(w) != 37 || p.Names[453].Name != "\x11\x14" {
		t.Errorf("%d names store characters after a zero, %d warnings, name 453 %q", stored, len(w), p.Names[453].Name)
	}
	out, _, err := writer.Encode(p, writer.Options{})
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("preserve encode differs (%v)", err)
	}
}
