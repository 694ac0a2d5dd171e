package iostore_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// The corpus has no UE 6.0 container: these tests read and write TOC
// version 10 containers the Writer builds, a plain one and encrypted twins
// with the same chunks (AES-ECB, header method 1, and AES-CTR, method 2).

// tcV10 builds the synthetic container at TOC version 10, plain (key nil),
// AES-ECB or AES-CTR, and opens it with key.
func tcV10(t *testing.T, method string, key *ue.Key, ctr, part bool) *iostore.Container {
	t.Helper()
	b := tcSynthetic(t, iostore.VersionContainerEncryptionMethod, method, key)
	b.CTR = ctr
	if part {
		tcPartition(t, b)
	}
	return tcBuildOpen(t, b, "Test", key)
}

// tcExtracted extracts c and returns each file's bytes by its path under
// the output folder.
func tcExtracted(t *testing.T, c *iostore.Container) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if _, err := c.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tcPaths(c *iostore.Container) []string {
	var out []string
	for _, ch := range c.Chunks() {
		out = append(out, fmt.Sprintf("%v %s", ch.ID, ch.Path))
	}
	slices.Sort(out)
	return out
}

// TestV10Twins reads an AES-CTR and an AES-ECB version 10 container beside
// their plain twin: the header records the method, the CTR TOC holds one
// IV per block and one for the directory index, and listing, reading,
// extracting and verifying give what the plain twin gives.
func TestV10Twins(t *testing.T) {
	key := tcTestKey()
	for _, method := range []string{"None", "Zlib", "LZ4"} {
		for _, part := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s-parts%v", method, part), func(t *testing.T) {
				plain := tcV10(t, method, nil, false, part)
				if h := plain.Header(); h.Encryption() != iostore.EncryptionNone || h.EncryptionMethodByte != 0 || len(plain.TOC().EncryptionIVs) != 0 {
					t.Fatalf("plain: encryption %v, method byte %d, %d IVs", h.Encryption(), h.EncryptionMethodByte, len(plain.TOC().EncryptionIVs))
				}
				wantFiles := tcExtracted(t, plain)
				for _, tt := range []struct {
					ctr    bool
					method iostore.EncryptionMethod
				}{{false, iostore.EncryptionAESECB}, {true, iostore.EncryptionAESCTR}} {
					c := tcV10(t, method, key, tt.ctr, part)
					h := c.Header()
					if h.Version != 10 || h.Encryption() != tt.method || h.EncryptionMethodByte != uint8(tt.method) {
						t.Fatalf("%v: version %d, encryption %v, method byte %d", tt.method, h.Version, h.Encryption(), h.EncryptionMethodByte)
					}
					ivs := c.TOC().EncryptionIVs
					switch {
					case tt.ctr && len(ivs) != len(c.TOC().Blocks)+1:
						t.Fatalf("CTR: %d IVs for %d blocks and the index", len(ivs), len(c.TOC().Blocks))
					case tt.ctr && len(ivs) > 1 && ivs[0] == ivs[1]:
						t.Errorf("CTR: blocks 0 and 1 share IV %x", ivs[0])
					case !tt.ctr && len(ivs) != 0:
						t.Errorf("ECB: %d IVs", len(ivs))
					}
					if got, want := tcPaths(c), tcPaths(plain); !slices.Equal(got, want) {
						t.Errorf("%v: ls\n%s\nwant\n%s", tt.method, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					for i := range c.Chunks() {
						a, err1 := plain.ReadChunk(i)
						b, err2 := c.ReadChunk(i)
						if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
							t.Fatalf("%v: chunk %d differs (%v, %v)", tt.method, i, err1, err2)
						}
					}
					if got := tcExtracted(t, c); len(got) != len(wantFiles) {
						t.Errorf("%v: extracted %d files, want %d", tt.method, len(got), len(wantFiles))
					} else {
						for p, data := range wantFiles {
							if !bytes.Equal(got[p], data) {
								t.Errorf("%v: extracted %s differs", tt.method, p)
							}
						}
					}
					if r := c.Verify(&iostore.VerifyOptions{Workers: 1}); !r.OK() {
						t.Errorf("%v: verify: %v", tt.method, r.Problems)
					}
				}
			})
		}
	}
}

// TestV10CTRKeys opens an AES-CTR container without its key (chunks listed,
// paths and data refused with ErrKeyRequired) and with a wrong one
// (ErrWrongKey).
func TestV10CTRKeys(t *testing.T) {
	b := tcSynthetic(t, iostore.VersionContainerEncryptionMethod, "Zlib", tcTestKey())
	b.CTR = true
	utoc, err := b.WriteFiles(t.TempDir(), "Test")
	if err != nil {
		t.Fatal(err)
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.Chunks()) != len(b.Chunks) {
		t.Errorf("without the key: %d chunks, want %d", len(c.Chunks()), len(b.Chunks))
	}
	if _, err := c.ReadChunk(0); !errors.Is(err, iostore.ErrKeyRequired) {
		t.Errorf("ReadChunk without the key: %v, want ErrKeyRequired", err)
	}
	if _, err := c.Extract(t.TempDir(), nil); !errors.Is(err, iostore.ErrKeyRequired) {
		t.Errorf("Extract without the key: %v, want ErrKeyRequired", err)
	}
	if r := c.Verify(nil); r.OK() || !strings.Contains(fmt.Sprint(r.Problems), "key") {
		t.Errorf("Verify without the key: %v", r.Problems)
	}
	wrong := *tcTestKey()
	wrong[0] ^= 1
	if c, err := iostore.Open(utoc, &iostore.Options{Key: &wrong}); !errors.Is(err, iostore.ErrWrongKey) {
		if c != nil {
			c.Close()
		}
		t.Errorf("wrong key: %v, want ErrWrongKey", err)
	}
}

// TestV10CTRDamage damages a block's IV in the .utoc, a stored block in
// the .ucas and the directory index's IV: each must fail with an error
// naming what is wrong, never read as good data.
func TestV10CTRDamage(t *testing.T) {
	key := tcTestKey()
	b := tcSynthetic(t, iostore.VersionContainerEncryptionMethod, "Zlib", key)
	b.CTR = true
	utoc, err := b.WriteFiles(t.TempDir(), "Test")
	if err != nil {
		t.Fatal(err)
	}
	good, err := iostore.Open(utoc, &iostore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	toc := good.TOC()
	ivAt := int64(-1)
	for _, s := range toc.Sections {
		if s.Name == "AES-CTR IVs" {
			ivAt = s.Offset
		}
	}
	if ivAt < 0 {
		t.Fatalf("no AES-CTR IV section in %v", toc.Sections)
	}
	// The bulk-data chunk: several compressed blocks.
	bulk := 1
	ch := good.Chunks()[bulk]
	k := ch.FirstBlock + 1
	tocBytes, _ := os.ReadFile(utoc)
	cas, _ := os.ReadFile(iostore.PartitionPath(utoc, 0))
	flip := func(b []byte, at int64) []byte {
		b = slices.Clone(b)
		b[at] ^= 0x40
		return b
	}
	write := func(t *testing.T, utocData, casData []byte) string {
		out := filepath.Join(t.TempDir(), "Test.utoc")
		if err := os.WriteFile(out, utocData, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(iostore.PartitionPath(out, 0), casData, 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		utoc, cas []byte
		open      string // the error Open gives, or "" when it opens
	}{
		{"block IV", flip(tocBytes, ivAt+int64(k)*12+3), cas, ""},
		{"stored block", tocBytes, flip(cas, int64(toc.Blocks[k].Offset)+5), ""},
		{"directory index IV", flip(tocBytes, ivAt+int64(len(toc.Blocks))*12), cas, "directory index"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := iostore.Open(write(t, tt.utoc, tt.cas), &iostore.Options{Key: key})
			if tt.open != "" {
				if err == nil {
					c.Close()
					t.Fatal("damaged container opens")
				}
				t.Logf("%v", err)
				if !strings.Contains(err.Error(), tt.open) || !strings.Contains(err.Error(), "Test.utoc") {
					t.Errorf("error %q does not name the file and %s", err, tt.open)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if data, err := c.ReadChunk(bulk); err == nil {
				if want, _ := good.ReadChunk(bulk); bytes.Equal(data, want) {
					t.Fatal("damage not seen")
				}
				t.Fatal("damaged chunk reads without an error")
			} else if t.Logf("%v", err); !strings.Contains(err.Error(), fmt.Sprintf("compression block %d", k)) && !strings.Contains(err.Error(), "hash") {
				t.Errorf("error %q names neither the block nor the hash", err)
			}
			if r := c.Verify(&iostore.VerifyOptions{Workers: 1}); r.OK() {
				t.Error("verify passes a damaged container")
			}
		})
	}
}

// TestRewriteV10 rewrites plain, AES-ECB and AES-CTR version 10 containers
// without changes (preserve: the same files; compact: the same stored
// blocks and, for CTR, the same IVs) and with a chunk replaced.
func TestRewriteV10(t *testing.T) {
	key := tcTestKey()
	for _, tt := range []struct {
		name string
		key  *ue.Key
		ctr  bool
	}{{"plain", nil, false}, {"ECB", key, false}, {"CTR", key, true}} {
		for _, part := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s-parts%v", tt.name, part), func(t *testing.T) {
				src := tcV10(t, "Zlib", tt.key, tt.ctr, part)
				dir := t.TempDir()
				out := filepath.Join(dir, "preserve", "Test.utoc")
				res, err := iostore.Rewrite(src, out, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Identical {
					t.Error("preserve: not reported identical")
				}
				sameFiles(t, filepath.Join(filepath.Dir(src.File()), "Test.utoc"), out, len(src.Partitions()))
				out = filepath.Join(dir, "compact", "Test.utoc")
				if _, err := iostore.Rewrite(src, out, nil, &iostore.RewriteOptions{Layout: iostore.Compact, Verify: iostore.VerifyAll}); err != nil {
					t.Fatal(err)
				}
				sameChunks(t, src, out, tt.key, nil)
				got := openVerified(t, out, tt.key)
				if got.Header().EncryptionMethodByte != src.Header().EncryptionMethodByte {
					t.Errorf("compact: method byte %d, want %d", got.Header().EncryptionMethodByte, src.Header().EncryptionMethodByte)
				}
				if tt.ctr {
					for _, ch := range src.Chunks() {
						_, g := findChunk(t, got, ch)
						for k := 0; k < ch.NumBlocks; k++ {
							if a, b := src.TOC().EncryptionIVs[ch.FirstBlock+k], got.TOC().EncryptionIVs[g.FirstBlock+k]; a != b {
								t.Fatalf("compact: chunk %v block %d: IV %x, want %x", ch.ID, k, b, a)
							}
						}
					}
				}
				// One chunk replaced, in both layouts.
				ch := src.Chunks()[1]
				data := tcData(9, 3*4096+7)
				for _, lay := range []iostore.RewriteLayout{iostore.Preserve, iostore.Compact} {
					out := filepath.Join(dir, "changed-"+lay.String(), "Test.utoc")
					_, err := iostore.Rewrite(src, out, []iostore.ChunkChange{{ID: ch.ID, Data: bytes.NewReader(data)}}, &iostore.RewriteOptions{Layout: lay})
					if err != nil {
						t.Fatal(err)
					}
					sameChunks(t, src, out, tt.key, map[iostore.ChunkID][]byte{ch.ID: data})
					if g := openVerified(t, out, tt.key); tt.ctr && len(g.TOC().EncryptionIVs) != len(g.TOC().Blocks)+1 {
						t.Errorf("%v: %d IVs for %d blocks", lay, len(g.TOC().EncryptionIVs), len(g.TOC().Blocks))
					}
				}
			})
		}
	}
}

// TestRewriteV10Encrypt encrypts a plain version 10 container in a compact
// rewrite: the output is AES-CTR, what pack writes for UE 6.0, and holds
// the same chunks.
func TestRewriteV10Encrypt(t *testing.T) {
	key := tcTestKey()
	src := tcV10(t, "Zlib", nil, false, false)
	out := filepath.Join(t.TempDir(), "Test.utoc")
	if _, err := iostore.Rewrite(src, out, nil, &iostore.RewriteOptions{Layout: iostore.Compact, Key: key}); err != nil {
		t.Fatal(err)
	}
	got := openVerified(t, out, key)
	if h := got.Header(); h.Encryption() != iostore.EncryptionAESCTR || h.EncryptionMethodByte != 2 || len(got.TOC().EncryptionIVs) != len(got.TOC().Blocks)+1 {
		t.Fatalf("encryption %v, method byte %d, %d IVs", h.Encryption(), h.EncryptionMethodByte, len(got.TOC().EncryptionIVs))
	}
	if got, want := tcPaths(got), tcPaths(src); !slices.Equal(got, want) {
		t.Errorf("ls %v, want %v", got, want)
	}
	for i, ch := range src.Chunks() {
		j, _ := findChunk(t, got, ch)
		a, err1 := src.ReadChunk(i)
		b, err2 := got.ReadChunk(j)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("chunk %v differs (%v, %v)", ch.ID, err1, err2)
		}
	}
}

// TestWriterCTRRefusals: AES-CTR needs a key and TOC version 10.
func TestWriterCTRRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		opts iostore.WriterOptions
		want string
	}{
		{iostore.WriterOptions{Version: 10, CTR: true}, "needs a key"},
		{iostore.WriterOptions{Version: 8, CTR: true, Key: tcTestKey()}, "cannot record AES-CTR"},
	} {
		if _, err := iostore.NewWriter(filepath.Join(dir, "X.utoc"), &tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.opts, err, tt.want)
		}
	}
}
