package iostore_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// tcCorpusTOCs returns every .utoc under the corpus's iostore folder,
// failing when there is none.
func tcCorpusTOCs(t *testing.T) []string {
	t.Helper()
	root := filepath.Join(corpus.Dir(t), "iostore")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".utoc") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no .utoc under %s (%v)", root, err)
	}
	return files
}

// tcRoundTrip decodes toc and checks that AppendBinary (after a prefix, to
// check that it appends) and MarshalBinary give it back.
func tcRoundTrip(t *testing.T, name string, toc []byte) *iostore.TOC {
	t.Helper()
	d, err := iostore.DecodeTOC(name, toc)
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte("prefix")
	out, err := d.AppendBinary(bytes.Clone(prefix))
	if err != nil {
		t.Fatalf("AppendBinary: %v", err)
	}
	if !bytes.HasPrefix(out, prefix) {
		t.Fatalf("AppendBinary dropped what b held")
	}
	tcSameBytes(t, out[len(prefix):], toc)
	m, err := d.MarshalBinary()
	if err != nil || !bytes.Equal(m, toc) {
		t.Fatalf("MarshalBinary differs from AppendBinary (%v)", err)
	}
	return d
}

// tcSameBytes fails naming the first differing offset.
func tcSameBytes(t *testing.T, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%d bytes, want %d; first difference at 0x%X", len(got), len(want), i)
}

// TestTOCAppendBinaryCorpus: every .utoc of the corpus, decoded and
// encoded again, is the file byte for byte.
func TestTOCAppendBinaryCorpus(t *testing.T) {
	files := tcCorpusTOCs(t)
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tcRoundTrip(t, filepath.Base(f), data)
		})
	}
	t.Logf("%d corpus TOCs encode to their bytes", len(files))
}

// TestTOCAppendBinaryBuilt: every layout the test builder writes (TOC
// versions 1-10, every method, with and without AES and partitions) and
// the shipped demo containers come back byte for byte.
func TestTOCAppendBinaryBuilt(t *testing.T) {
	n := 0
	for _, v := range []iostore.TocVersion{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		for _, method := range []string{"None", "Zlib", "Gzip", "LZ4"} {
			for _, enc := range []bool{false, true} {
				for _, part := range []bool{false, true} {
					if part && !v.HasPartitions() {
						continue
					}
					t.Run(fmt.Sprintf("v%d-%s-enc%v-parts%v", v, method, enc, part), func(t *testing.T) {
						var key *ue.Key
						if enc {
							key = tcTestKey()
						}
						b := tcSynthetic(t, v, method, key)
						if part {
							tcPartition(t, b)
						}
						toc, _, err := b.Build()
						if err != nil {
							t.Fatal(err)
						}
						tcRoundTrip(t, "Built.utoc", toc)
						n++
					})
				}
			}
		}
	}
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range demos {
		toc, _, err := d.Container.Build()
		if err != nil {
			t.Fatal(err)
		}
		tcRoundTrip(t, d.Name+".utoc", toc)
		shipped, err := os.ReadFile(filepath.Join("..", "examples", "containers", d.Name+".utoc"))
		if err != nil {
			t.Fatal(err)
		}
		tcRoundTrip(t, d.Name+".utoc", shipped)
		n += 2
	}
	t.Logf("%d builder TOCs encode to their bytes", n)
}

// tcDecodedGood returns the decoded TOC of the builder's version 8 Zlib
// container (with a directory index).
func tcDecodedGood(t *testing.T) *iostore.TOC {
	t.Helper()
	toc, _, _ := tcGood(t)
	d, err := iostore.DecodeTOC("Good.utoc", toc)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestTOCAppendBinaryRefuses: models the format cannot hold, or that
// contradict themselves, fail with a *ue.FormatError wrapping ErrNotEncodable
// that names the field and index.
func TestTOCAppendBinaryRefuses(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(d *iostore.TOC)
		structure string
		words     []string
	}{
		{"version 0", func(d *iostore.TOC) { d.Header.Version = 0 }, "TOC header", []string{"version 0"}},
		{"version 11", func(d *iostore.TOC) { d.Header.Version = 11 }, "TOC header", []string{"version 11"}},
		{"block size over 24 bits", func(d *iostore.TOC) { d.Header.CompressionBlockSize = 1 << 24 }, "TOC header", []string{"over 24 bits"}},
		{"block size 0", func(d *iostore.TOC) { d.Header.CompressionBlockSize = 0 }, "TOC header", []string{"CompressionBlockSize is 0"}},
		{"source hashes", func(d *iostore.TOC) { d.Header.Version, d.Header.TocSourceHashCount = 9, 2 }, "TOC header", []string{"TocSourceHashCount 2"}},
		{"too many partitions", func(d *iostore.TOC) { d.Header.PartitionCount = 5000 }, "TOC header", []string{"PartitionCount 5000"}},
		{"partition size 0", func(d *iostore.TOC) { d.Header.PartitionCount, d.Header.PartitionSize = 2, 0 }, "TOC header", []string{"PartitionSize 0"}},
		{"unknown encryption", func(d *iostore.TOC) {
			d.Header.Version, d.Header.ContainerFlags, d.Header.EncryptionMethodByte = 10, d.Header.ContainerFlags|iostore.FlagEncrypted, 7
		}, "TOC header", []string{"encryption method 7"}},
		{"metas short", func(d *iostore.TOC) { d.Metas = d.Metas[1:] }, "TOC", []string{"7 chunk ids, 7 offsets and lengths and 6 chunk metas"}},
		{"offsets short", func(d *iostore.TOC) { d.OffsetLengths = d.OffsetLengths[1:] }, "TOC", []string{"6 offsets"}},
		{"offset over 40 bits", func(d *iostore.TOC) { d.OffsetLengths[3].Offset = 1 << 40 }, "chunk 3 offset and length", []string{"over 40 bits"}},
		{"length over 40 bits", func(d *iostore.TOC) { d.OffsetLengths[2].Length = 1 << 41 }, "chunk 2 offset and length", []string{"over 40 bits"}},
		{"meta hash past 20 bytes", func(d *iostore.TOC) { d.Metas[4].Hash[25] = 1 }, "chunk meta 4", []string{"hash bytes 20-31"}},
		{"meta pad before version 8", func(d *iostore.TOC) { d.Header.Version = 5; d.Metas[1].Pad[0] = 1 }, "chunk meta 1", []string{"pad bytes"}},
		{"seeds in version 3", func(d *iostore.TOC) { d.Header.Version = 3; d.PerfectHashSeeds = []int32{1} }, "perfect-hash seeds", []string{"version 3"}},
		{"overflow in version 4", func(d *iostore.TOC) { d.Header.Version = 4; d.ChunksWithoutPerfectHash = []int32{0} }, "chunks without perfect hash", []string{"version 4"}},
		{"block offset over 40 bits", func(d *iostore.TOC) { d.Blocks[5].Offset = 1 << 40 }, "compression block 5", []string{"over 40 bits"}},
		{"compressed size over 24 bits", func(d *iostore.TOC) { d.Blocks[1].CompressedSize = 1 << 24 }, "compression block 1", []string{"over 24 bits"}},
		{"uncompressed size over 24 bits", func(d *iostore.TOC) { d.Blocks[2].UncompressedSize = 1 << 24 }, "compression block 2", []string{"over 24 bits"}},
		{"method index beyond the names", func(d *iostore.TOC) { d.Blocks[6].Method = 2 }, "compression block 6", []string{"method index 2", "names 1 methods"}},
		{"IVs without AES-CTR", func(d *iostore.TOC) { d.EncryptionIVs = make([][12]byte, len(d.Blocks)) }, "AES-CTR IVs", []string{"needs 0"}},
		{"AES-CTR without IVs", func(d *iostore.TOC) {
			d.Header.Version, d.Header.ContainerFlags, d.Header.EncryptionMethodByte = 10, d.Header.ContainerFlags|iostore.FlagEncrypted, 2
		}, "AES-CTR IVs", []string{"0 IVs", "needs 13"}},
		{"method name too long", func(d *iostore.TOC) { d.Methods[0] = strings.Repeat("Z", 33) }, "compression method name 1", []string{"33 bytes"}},
		{"method name not ASCII", func(d *iostore.TOC) { d.Methods[0] = "Zlib\x00" }, "compression method name 1", []string{"printable"}},
		{"method name not ASCII 2", func(d *iostore.TOC) { d.Methods[0] = "Zlïb" }, "compression method name 1", []string{"printable"}},
		{"256 methods", func(d *iostore.TOC) { d.Methods = slices.Repeat([]string{"Zlib"}, 256) }, "compression method names", []string{"256 names"}},
		{"signed without signatures", func(d *iostore.TOC) { d.Header.ContainerFlags |= iostore.FlagSigned }, "signatures", []string{"no signatures"}},
		{"signatures without the flag", func(d *iostore.TOC) {
			d.Signatures = &iostore.Signatures{BlockHashes: make([][20]byte, len(d.Blocks))}
		}, "signatures", []string{"not flagged Signed"}},
		{"signature sizes differ", func(d *iostore.TOC) {
			d.Header.ContainerFlags |= iostore.FlagSigned
			d.Signatures = &iostore.Signatures{TocSignature: make([]byte, 4), BlockSignature: make([]byte, 5), BlockHashes: make([][20]byte, len(d.Blocks))}
		}, "signatures", []string{"4 bytes", "5"}},
		{"block hash count", func(d *iostore.TOC) {
			d.Header.ContainerFlags |= iostore.FlagSigned
			d.Signatures = &iostore.Signatures{BlockHashes: make([][20]byte, 3)}
		}, "block SHA-1 hashes", []string{"3 hashes for 12"}},
		{"directory index in version 1", func(d *iostore.TOC) { d.Header.Version = 1 }, "directory index", []string{"version 1"}},
		{"on-demand metas missing", func(d *iostore.TOC) { d.Header.Version = 6; d.Header.ContainerFlags |= iostore.FlagOnDemand }, "on-demand metas", []string{"needs 380"}},
		{"on-demand metas unflagged", func(d *iostore.TOC) { d.Header.Version = 6; d.OnDemandMetas = make([]byte, 380) }, "on-demand metas", []string{"380 bytes", "needs 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tcDecodedGood(t)
			if len(d.ChunkIDs) != 7 || len(d.Blocks) != 12 || len(d.Methods) != 1 {
				t.Fatalf("the good TOC changed: %d chunks, %d blocks, %d methods", len(d.ChunkIDs), len(d.Blocks), len(d.Methods))
			}
			if _, err := d.AppendBinary(nil); err != nil {
				t.Fatal(err)
			}
			tt.edit(d)
			out, err := d.AppendBinary([]byte("x"))
			if out != nil {
				t.Errorf("returned %d bytes with the error", len(out))
			}
			tcCheckEncodeErr(t, err, "Good.utoc", tt.structure, tt.words...)
		})
	}
}

// tcCheckEncodeErr checks an encoding error: a *ue.FormatError wrapping
// ErrNotEncodable, naming the file (when there is one) and structure, with
// no offset.
func tcCheckEncodeErr(t *testing.T, err error, file, structure string, words ...string) {
	t.Helper()
	var fe *ue.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is %T, not *ue.FormatError", err, err)
	}
	msg := err.Error()
	switch {
	case !errors.Is(err, iostore.ErrNotEncodable):
		t.Errorf("%q is not ErrNotEncodable", msg)
	case fe.Offset != -1:
		t.Errorf("%q has an offset", msg)
	case file != "" && !strings.HasPrefix(msg, file+": "):
		t.Errorf("%q does not name the file %q", msg, file)
	case fe.Struct != structure:
		t.Errorf("%q: structure %q, want %q", msg, fe.Struct, structure)
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
}

// TestTOCAppendBinaryHeader: reserved bytes and unused fields come from a
// decoded header only, and only when neither version uses them; counts
// come from the slices, constants are written as such.
func TestTOCAppendBinaryHeader(t *testing.T) {
	b := tcSynthetic(t, iostore.VersionPartitionSize, "None", nil)
	toc, _, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	// A version 3 TOC with bytes in its reserved places (and in the later
	// versions' fields, which version 3 does not read) keeps them.
	odd := bytes.Clone(toc)
	for _, r := range [][2]int{{17, 20}, {81, 84}, {84, 88}, {96, 144}} {
		for i := r[0]; i < r[1]; i++ {
			odd[i] = byte(i)
		}
	}
	binary.LittleEndian.PutUint32(odd[40:], 7) // no method names: unused
	d := tcRoundTrip(t, "Odd.utoc", odd)

	// Without a decoded header they are 0, and the constants the engine writes.
	d.Header.Raw = [iostore.HeaderSize]byte{}
	fresh, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(toc)
	tcSameBytes(t, fresh, want)

	// Counts follow the slices, not stale header fields.
	d = tcDecodedGood(t)
	d.Header.TocEntryCount, d.Header.TocCompressedBlockEntryCount, d.Header.DirectoryIndexSize = 1, 2, 3
	d.ChunkIDs, d.OffsetLengths, d.Metas = d.ChunkIDs[:6], d.OffsetLengths[:6], d.Metas[:6]
	out, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := iostore.DecodeTOC("Edited.utoc", out)
	if err != nil {
		t.Fatal(err)
	}
	if e.Header.TocEntryCount != 6 || e.Header.TocCompressedBlockEntryCount != 12 || int(e.Header.DirectoryIndexSize) != len(d.DirectoryIndex) ||
		!slices.Equal(e.ChunkIDs, d.ChunkIDs) || !slices.Equal(e.OffsetLengths, d.OffsetLengths) || !slices.Equal(e.Metas, d.Metas) {
		t.Errorf("edited TOC decodes to %+v", e.Header)
	}

	// A field the old version had is not carried into a version without it.
	d = tcDecodedGood(t)
	d.PerfectHashSeeds = []int32{-1, -2, -3}
	out, err = d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = iostore.DecodeTOC("Seeded.utoc", out); err != nil || len(d.PerfectHashSeeds) != 3 {
		t.Fatalf("%v, %d seeds", err, len(d.PerfectHashSeeds))
	}
	d.Header.Version, d.PerfectHashSeeds, d.ChunksWithoutPerfectHash = iostore.VersionPartitionSize, nil, nil
	for i := range d.Metas {
		d.Metas[i].Pad = [3]byte{}
	}
	out, err = d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(out[84:]); got != 0 {
		t.Errorf("version 3 header carries the version 8 seed count %d", got)
	}
}

// tcSectionModels returns TOC models with the sections builder containers
// lack: signatures, perfect-hash seeds with an overflow list, version 6
// on-demand metas, version 10 AES-CTR IVs, trailing bytes.
func tcSectionModels(t testing.TB) map[string]*iostore.TOC {
	model := func(v iostore.TocVersion, n int) *iostore.TOC {
		d := tcPerfectTOC(tcIDs(t, n), v)
		d.Methods = []string{"Zlib", "Oodle"}
		for i := range n {
			d.Blocks = append(d.Blocks, iostore.CompressionBlock{Offset: uint64(i) << 12, CompressedSize: 100, UncompressedSize: 200, Method: uint8(i % 3)})
		}
		return d
	}
	out := map[string]*iostore.TOC{}

	d := model(iostore.VersionPerfectHashWithOverflow, 40)
	d.Header.ContainerFlags = iostore.FlagSigned | iostore.FlagCompressed
	d.Signatures = &iostore.Signatures{TocSignature: bytes.Repeat([]byte{1}, 256), BlockSignature: bytes.Repeat([]byte{2}, 256), BlockHashes: make([][20]byte, 40)}
	for i := range d.Signatures.BlockHashes {
		d.Signatures.BlockHashes[i][0] = byte(i)
	}
	if _, err := iostore.ApplyPerfectHashPrimes(d, []uint32{2}); err != nil || len(d.ChunksWithoutPerfectHash) == 0 {
		t.Fatalf("no overflow (%v)", err)
	}
	out["signed, seeds and overflow"] = d

	d = model(iostore.VersionOnDemandMetaData, 6)
	d.Header.ContainerFlags = iostore.FlagOnDemand
	d.OnDemandMetas = make([]byte, 20*12)
	for i := range d.OnDemandMetas {
		d.OnDemandMetas[i] = byte(i)
	}
	out["on-demand metas"] = d

	d = model(iostore.VersionContainerEncryptionMethod, 5)
	d.Header.ContainerFlags = iostore.FlagEncrypted | iostore.FlagIndexed
	d.Header.EncryptionMethodByte = byte(iostore.EncryptionAESCTR)
	d.EncryptionIVs = make([][12]byte, 6)
	for i := range d.EncryptionIVs {
		d.EncryptionIVs[i][11] = byte(i)
	}
	d.DirectoryIndex = bytes.Repeat([]byte{0xAB}, 32) // encrypted bytes, as stored
	d.Trailing = []byte("tail")
	out["AES-CTR IVs"] = d
	return out
}

// TestTOCAppendBinarySections encodes the sections builder containers lack
// and decodes them to the same model, and back to the same bytes.
func TestTOCAppendBinarySections(t *testing.T) {
	for name, m := range tcSectionModels(t) {
		t.Run(name, func(t *testing.T) {
			out, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			d := tcRoundTrip(t, "Sections.utoc", out)
			same := slices.Equal(d.ChunkIDs, m.ChunkIDs) && slices.Equal(d.OffsetLengths, m.OffsetLengths) && slices.Equal(d.Metas, m.Metas) &&
				slices.Equal(d.PerfectHashSeeds, m.PerfectHashSeeds) && slices.Equal(d.ChunksWithoutPerfectHash, m.ChunksWithoutPerfectHash) &&
				slices.Equal(d.Blocks, m.Blocks) && slices.Equal(d.EncryptionIVs, m.EncryptionIVs) && slices.Equal(d.Methods, m.Methods) &&
				bytes.Equal(d.DirectoryIndex, m.DirectoryIndex) && bytes.Equal(d.OnDemandMetas, m.OnDemandMetas) && bytes.Equal(d.Trailing, m.Trailing) &&
				(d.Signatures == nil) == (m.Signatures == nil)
			if s := m.Signatures; s != nil && same {
				same = bytes.Equal(d.Signatures.TocSignature, s.TocSignature) && bytes.Equal(d.Signatures.BlockSignature, s.BlockSignature) &&
					slices.Equal(d.Signatures.BlockHashes, s.BlockHashes)
			}
			if !same {
				t.Errorf("decodes to a different model")
			}
		})
	}
}
