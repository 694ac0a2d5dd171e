package iostore_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// TestBadMethodIndex opens the demo 4.27 container with one block entry
// naming method 9 of a TOC that has 1, and checks every path that uses a
// block's method: reading the chunk, Verify, Extract and CopyChunk fail
// with an ErrMethodIndex *ue.FormatError naming the container, the block and
// its entry's offset (no panic), Rewrite in both layouts refuses the input
// as damaged (an *InputProblemsError naming the same), and none leaves a
// file; a rewrite that replaces the broken chunk drops its blocks and
// succeeds.
func TestBadMethodIndex(t *testing.T) {
	const demo = "../examples/containers/UnrmodDemo427_P.utoc"
	dir := t.TempDir()
	toc, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := os.ReadFile(strings.TrimSuffix(demo, ".utoc") + ".ucas")
	if err != nil {
		t.Fatal(err)
	}
	d, err := iostore.DecodeTOC(demo, toc)
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 2 // BP_DemoPickup's package
	block := int(d.OffsetLengths[chunk].Offset / uint64(d.Header.CompressionBlockSize))
	var off int64
	for _, s := range d.Sections {
		if s.Name == "compression blocks" {
			off = s.Offset + 12*int64(block)
		}
	}
	toc[off+11] = 9
	src := filepath.Join(dir, "Bad_P.utoc")
	os.WriteFile(src, toc, 0o644)
	os.WriteFile(filepath.Join(dir, "Bad_P.ucas"), cas, 0o644)
	c, err := iostore.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := c.Chunks()[chunk].ID
	if got := c.Chunks()[chunk].FirstBlock; got != block {
		t.Fatalf("chunk %d starts at block %d, want %d", chunk, got, block)
	}
	out := filepath.Join(dir, "out")
	check := func(what string, err error) {
		t.Helper()
		var fe *ue.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, iostore.ErrMethodIndex) || !errors.Is(err, iostore.ErrCorrupt) ||
			fe.File != src || !strings.HasPrefix(fe.Struct, fmt.Sprintf("compression block %d", block)) || fe.Offset != off {
			t.Errorf("%s: %v, want an ErrMethodIndex FormatError for %s, compression block %d at 0x%X", what, err, src, block, off)
		}
	}
	_, err = c.ReadChunk(chunk)
	check("ReadChunk", err)
	if r := c.Verify(nil); r.OK() {
		t.Error("Verify: no problem")
	} else {
		found := false
		for _, p := range r.Problems {
			found = found || strings.Contains(fmt.Sprint(p), "method index 9")
		}
		if !found {
			t.Errorf("Verify: %v", r.Problems)
		}
	}
	_, err = c.Extract(filepath.Join(out, "extract"), nil)
	check("Extract", err)
	// A rewrite verifies its input first: it refuses the container as
	// damaged, naming the block and its entry's offset.
	for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
		_, err = iostore.Rewrite(c, filepath.Join(out, layout.String()+"_P.utoc"), nil, &iostore.RewriteOptions{Layout: layout})
		var ie *iostore.InputProblemsError
		if !errors.As(err, &ie) || !errors.Is(err, iostore.ErrInputDamaged) || ie.File != src || len(ie.Problems) != 1 ||
			ie.Problems[0].Struct != fmt.Sprintf("compression block %d", block) || ie.Problems[0].Offset != off {
			t.Errorf("Rewrite %s: %v, want an InputProblemsError for %s, compression block %d at 0x%X", layout, err, src, block, off)
		}
	}
	w, err := iostore.NewWriter(filepath.Join(out, "Copy_P.utoc"), &iostore.WriterOptions{Version: d.Header.Version})
	if err != nil {
		t.Fatal(err)
	}
	check("CopyChunk", w.CopyChunk(c, chunk, ""))
	w.Abort()
	left, _ := filepath.Glob(filepath.Join(out, "*", "*"))
	more, _ := filepath.Glob(filepath.Join(out, "*"))
	for _, p := range append(left, more...) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			t.Errorf("left behind: %s", p)
		}
	}

	// Replacing the broken chunk drops its blocks: both layouts write.
	for _, layout := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
		dst := filepath.Join(out, "fixed-"+layout.String(), "Fixed_P.utoc")
		data := bytes.Repeat([]byte("new package bytes "), 100)
		if _, err := iostore.Rewrite(c, dst, []iostore.ChunkChange{{ID: id, Data: bytes.NewReader(data)}}, &iostore.RewriteOptions{Layout: layout, Verify: iostore.VerifyStructure}); err != nil {
			t.Errorf("Rewrite %s replacing the broken chunk: %v", layout, err)
		}
	}
}
