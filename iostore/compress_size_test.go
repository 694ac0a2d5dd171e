package iostore_test

import (
	"bytes"
	stdzlib "compress/zlib"
	"crypto/sha256"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// tcCookedBlocks returns the 64 KiB blocks of every chunk that decodes in
// the corpus's containers (each distinct chunk once): real cooked data as
// the Writer compresses it.
func tcCookedBlocks(t *testing.T) [][]byte {
	t.Helper()
	seen := map[[32]byte]bool{}
	var blocks [][]byte
	root := filepath.Join(corpus.Dir(t), "iostore")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".utoc") {
			return err
		}
		c, err := iostore.Open(path, nil)
		if err != nil {
			return nil // a TOC without its .ucas, or one the corpus keeps for its damage
		}
		defer c.Close()
		for i := range c.Chunks() {
			data, err := c.ReadChunk(i)
			if err != nil || seen[sha256.Sum256(data)] {
				continue
			}
			seen[sha256.Sum256(data)] = true
			for len(data) > 0 {
				n := min(len(data), iostore.DefaultBlockSize)
				blocks = append(blocks, data[:n])
				data = data[n:]
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// TestZlibDefaultSize compresses the corpus's cooked blocks with the
// built-in Zlib compressor at the default level, what pack
// --compression zlib stores, and with zlib at level 6, the engine's level
// (Go's port of it): every block zlib shrinks must shrink (a writer stores
// the others raw), and the whole, padded to 16 bytes a block as stored,
// must stay within 2% of zlib's at the default level (the default before,
// klauspost's level 5 with zlib as the only second try, took 2.3% more)
// and within 10% at the fastest.
func TestZlibDefaultSize(t *testing.T) {
	blocks := tcCookedBlocks(t)
	var total int
	for _, b := range blocks {
		total += len(b)
	}
	if total < 1<<20 {
		t.Fatalf("the corpus gives %d bytes of cooked chunks, too few to measure", total)
	}
	codec, _ := (*ue.Codecs)(nil).Lookup("Zlib")
	stored := func(out, b []byte) int { return (min(len(out), len(b)) + 15) &^ 15 }
	for _, tc := range []struct {
		level   int
		maxOver float64
	}{
		{ue.DefaultCompression, 1.02},
		{ue.BestSpeed, 1.10},
	} {
		compress := codec.NewCompressor(tc.level)
		var ours, engine int
		var buf bytes.Buffer
		zw, _ := stdzlib.NewWriterLevel(&buf, 6)
		for k, b := range blocks {
			out, err := compress(nil, b)
			if err != nil {
				t.Fatal(err)
			}
			buf.Reset()
			zw.Reset(&buf)
			zw.Write(b)
			zw.Close()
			if buf.Len() < len(b) && len(out) >= len(b) {
				t.Errorf("level %d: block %d (%d bytes) does not shrink; zlib at level 6 makes %d bytes of it", tc.level, k, len(b), buf.Len())
			}
			dst := make([]byte, len(b), len(b)+ue.DecompressSlack)
			if len(out) < len(b) {
				if err := codec.Decompress(dst, out); err != nil || !bytes.Equal(dst, b) {
					t.Fatalf("level %d: block %d does not decode back (%v)", tc.level, k, err)
				}
			}
			ours += stored(out, b)
			engine += stored(buf.Bytes(), b)
		}
		ratio := float64(ours) / float64(engine)
		t.Logf("level %d: %d blocks, %d bytes: %d stored, %.4fx zlib level 6 (%d)", tc.level, len(blocks), total, ours, ratio, engine)
		if ratio > tc.maxOver {
			t.Errorf("level %d: the blocks take %.4fx what zlib at level 6 makes of them, more than %.2fx", tc.level, ratio, tc.maxOver)
		}
	}
}
