package pak

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// lz4Pak builds a version 8 pak holding one file compressed in raw LZ4
// blocks of blockSize bytes, with "LZ4" in the footer's first slot, as
// games that pack with LZ4 write it. damage, when set, changes the first
// block's stored bytes.
func lz4Pak(t *testing.T, data []byte, blockSize int, damage bool) []byte {
	t.Helper()
	const v = VersionFNameBasedCompression
	var stored []byte
	var sizes []int
	for off := 0; off < len(data); off += blockSize {
		block := data[off:min(off+blockSize, len(data))]
		dst := make([]byte, lz4.CompressBlockBound(len(block)))
		n, err := lz4.CompressBlock(block, dst, nil)
		if err != nil || n == 0 {
			t.Fatalf("lz4: %d, %v", n, err)
		}
		stored = append(stored, dst[:n]...)
		sizes = append(sizes, n)
	}
	if damage {
		stored[len(stored)/2] ^= 0xFF
	}
	e := Entry{Size: int64(len(stored)), UncompressedSize: int64(len(data)), Method: 1, BlockSize: uint32(blockSize),
		Hash: sha1.Sum(stored), Blocks: make([]Block, len(sizes))}
	start := e.HeaderSize(v, 5)
	for i, n := range sizes {
		e.Blocks[i] = Block{start, start + int64(n)}
		start += int64(n)
	}
	b := appendEntry(nil, &e, v, 5, 0)
	b = append(b, stored...)
	index := binio.AppendFString32(nil, "../../../")
	index = binary.LittleEndian.AppendUint32(index, 1)
	index = binio.AppendFString32(index, "Game/Content/Data.bin")
	index = appendEntry(index, &e, v, 5, 0)
	f := Footer{Version: v, IndexOffset: int64(len(b)), IndexSize: int64(len(index)), IndexHash: sha1.Sum(index),
		Methods: []string{"LZ4", "", "", "", ""}}
	b = append(b, index...)
	b, err := f.AppendBinary(b)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLZ4 reads a file compressed in raw LZ4 blocks, and reports a
// damaged block as corrupt.
func TestLZ4(t *testing.T) {
	data := bytes.Repeat([]byte("/Game/Maps/Level.Level_C PersistentLevel "), 5000) // 4 blocks of 64 KiB
	good := lz4Pak(t, data, 64<<10, false)
	r, err := Decode(bytes.NewReader(good), int64(len(good)), "lz4.pak", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadFile("Game/Content/Data.bin")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("LZ4 file: %d bytes, %v; want %d", len(got), err, len(data))
	}
	bad := lz4Pak(t, data, 64<<10, true)
	r, err = Decode(bytes.NewReader(bad), int64(len(bad)), "lz4.pak", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ReadFile("Game/Content/Data.bin")
	var fe *ue.FormatError
	if !errors.As(err, &fe) || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrHashMismatch)) {
		t.Errorf("damaged LZ4 block: %v, want a *ue.FormatError", err)
	}
	if !CanDecode("lz4") || CanDecode("Oodle") {
		t.Error("CanDecode: want LZ4 and not Oodle")
	}
}
