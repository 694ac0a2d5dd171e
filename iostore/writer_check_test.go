package iostore_test

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// TestWriterCheckReadsBackStoredBytes writes real cooked chunks of the
// corpus again with Zlib, plain and encrypted, damages one stored byte of
// one chunk after the Writer wrote it and before its check reads it back,
// and expects Stage to refuse the output and leave nothing. The check
// compares the stored bytes read back with the sums of what the Writer
// encoded (it does not decode them again), so a chunk given compressed by
// the caller (AddCompressedChunk), which the check used to leave alone, is
// caught as well; a package chunk is still decoded and checked as a zen
// package, and caught either way.
func TestWriterCheckReadsBackStoredBytes(t *testing.T) {
	src := tcOpen(t, tcUncompressed, nil)
	v := iostore.VersionReplaceIoChunkHashWithIoHash
	// The largest chunk of the fixture as bulk data, the first package as
	// a package, and the package's bytes compressed by the caller as bulk
	// data.
	big, pkg := -1, -1
	for i, ch := range src.Chunks() {
		if big < 0 || ch.Size > src.Chunks()[big].Size {
			big = i
		}
		if pkg < 0 && ch.Type == iostore.ChunkExportBundleData {
			pkg = i
		}
	}
	if big < 0 || pkg < 0 {
		t.Fatal("the fixture has no package chunk")
	}
	bulk, err := src.ReadChunk(big)
	if err != nil {
		t.Fatal(err)
	}
	pkgData, err := src.ReadChunk(pkg)
	if err != nil {
		t.Fatal(err)
	}
	const bs = 4096
	var given [][]byte
	for off := 0; off < len(pkgData); off += bs {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(pkgData[off:min(off+bs, len(pkgData))])
		zw.Close()
		given = append(given, z.Bytes())
	}
	bulkID, _ := iostore.NewChunkID(1, 0, iostore.ChunkBulkData, v)
	givenID, _ := iostore.NewChunkID(2, 0, iostore.ChunkBulkData, v)
	pkgID := src.Chunks()[pkg].ID

	for _, tc := range []struct {
		name   string
		key    *ue.Key
		damage iostore.ChunkID // zero: none
		want   string          // in the error; "" for none
		ctr    bool            // AES-CTR (TOC version 10): each block's sum covers its IV
	}{
		{"Intact", nil, iostore.ChunkID{}, "", false},
		{"IntactEncrypted", tcKey(), iostore.ChunkID{}, "", false},
		{"Bulk", nil, bulkID, "differ from what was written", false},
		{"BulkEncrypted", tcKey(), bulkID, "differ from what was written", false},
		{"GivenCompressed", nil, givenID, "differ from what was written", false},
		{"GivenCompressedEncrypted", tcKey(), givenID, "differ from what was written", false},
		{"Package", nil, pkgID, "fails verification", false},
		{"IntactCTR", tcKey(), iostore.ChunkID{}, "", true},
		{"BulkCTR", tcKey(), bulkID, "differ from what was written", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "Check-Windows.utoc")
			ver := v
			if tc.ctr {
				ver = iostore.VersionContainerEncryptionMethod
			}
			w, err := iostore.NewWriter(out, &iostore.WriterOptions{Version: ver, BlockSize: bs, Method: "Zlib", Key: tc.key, CTR: tc.ctr})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddChunk(bulkID, "Game/Content/Check/Big.ubulk", bytes.NewReader(bulk)); err != nil {
				t.Fatal(err)
			}
			if err := w.AddCompressedChunk(&iostore.ChunkHeader{ID: givenID, Path: "Game/Content/Check/Given.ubulk"}, "Zlib", given, pkgData); err != nil {
				t.Fatal(err)
			}
			if err := w.AddChunk(pkgID, "Game/Content/Check/Package.uasset", bytes.NewReader(pkgData)); err != nil {
				t.Fatal(err)
			}
			damaged := false
			iostore.BeforeCheck(w, func(parts []*os.File, blocks []iostore.CompressionBlock) {
				if tc.damage == (iostore.ChunkID{}) {
					return
				}
				// The chunks are in the order added, each a run of
				// blocks: damage the middle byte of the chunk's second
				// block (its first for a one-block chunk).
				first, n := 0, 0
				for _, c := range []struct {
					id   iostore.ChunkID
					size int
				}{{bulkID, len(bulk)}, {givenID, len(pkgData)}, {pkgID, len(pkgData)}} {
					n = (c.size + bs - 1) / bs
					if c.id == tc.damage {
						break
					}
					first += n
				}
				k := first + min(1, n-1)
				b := blocks[k]
				at := int64(b.Offset) + int64(b.CompressedSize)/2
				one := make([]byte, 1)
				if _, err := parts[0].ReadAt(one, at); err != nil {
					t.Fatal(err)
				}
				one[0] ^= 0x20
				if _, err := parts[0].WriteAt(one, at); err != nil {
					t.Fatal(err)
				}
				damaged = true
			})
			err = w.Close()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				c, err := iostore.Open(out, &iostore.Options{Key: tc.key})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if r := c.Verify(nil); !r.OK() || r.HashesChecked != 3 {
					t.Fatalf("the output does not verify: %v (%d hashes checked)", r.Problems, r.HashesChecked)
				}
				return
			}
			if !damaged {
				t.Fatal("nothing was damaged")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Close with a damaged block: %v, want an error saying %q", err, tc.want)
			}
			if _, serr := os.Stat(out); !os.IsNotExist(serr) {
				t.Fatalf("the refused output exists: %v", serr)
			}
		})
	}
}
