// Package oodletest gives tests an Oodle library to load: the game's own
// when UNRMOD_OODLE names one, otherwise a stand-in compiled from
// standin.c with the system's C compiler, which exports the same C ABI
// with a trivial codec of its own and can answer the blocks of the corpus'
// Oodle containers and paks with the bytes of their uncompressed or Zlib
// twins. So loading and calling the library are tested on every run, and
// the Oodle fixtures extract and verify through a run-time library.
package oodletest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// EnvVar names the variable that points at a real Oodle library, as
// cmd/unrmod reads it.
const EnvVar = "UNRMOD_OODLE"

// FixtureKey is the public AES key of the encrypted CUE4Parse fixtures.
const FixtureKey = "CUE4ParseFixtureAESKey0123456789"

//go:embed testdata/standin.c
var source []byte

// Record is one block the stand-in answers: its compressed bytes, and the
// bytes it decodes to.
type Record struct{ Comp, Raw []byte }

// Real returns the library UNRMOD_OODLE names, or "".
func Real() string { return os.Getenv(EnvVar) }

// Library returns the Oodle library tests load: UNRMOD_OODLE when set (real
// is then true), else a stand-in built by StandIn answering recs.
func Library(tb testing.TB, recs []Record) (path string, real bool) {
	tb.Helper()
	if p := Real(); p != "" {
		return p, true
	}
	return StandIn(tb, recs), false
}

// StandIn compiles testdata/standin.c into a shared library in a temporary folder
// and returns its path; with recs, it answers those blocks too. It skips
// the test when the machine has no C compiler, and fails it when the
// compiler fails.
func StandIn(tb testing.TB, recs []Record) string {
	tb.Helper()
	return build(tb, source, recs)
}

// BuildC compiles the C source src into a shared library, as StandIn
// does (for tests of libraries that lack a function).
func BuildC(tb testing.TB, src string) string {
	tb.Helper()
	return build(tb, []byte(src), nil)
}

func build(tb testing.TB, src []byte, recs []Record) string {
	tb.Helper()
	if runtime.GOOS == "windows" {
		tb.Skip("the stand-in Oodle library is built for Linux and macOS; set UNRMOD_OODLE to the game's oo2core DLL")
	}
	cc := compiler()
	if cc == "" {
		tb.Skip("no C compiler (cc, gcc or clang) to build the stand-in Oodle library; set UNRMOD_OODLE to test the game's own")
	}
	dir := tb.TempDir()
	c := filepath.Join(dir, "standin.c")
	if err := os.WriteFile(c, src, 0o644); err != nil {
		tb.Fatal(err)
	}
	lib := filepath.Join(dir, "liboo2standin.so")
	args := []string{"-shared", "-fPIC", "-O1", "-o", lib, c}
	if recs != nil {
		table := filepath.Join(dir, "table.bin")
		if err := os.WriteFile(table, encodeTable(recs), 0o644); err != nil {
			tb.Fatal(err)
		}
		args = append(args, `-DTABLE="`+table+`"`)
	}
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
	return lib
}

// compiler returns the C compiler, or "".
func compiler() string {
	for _, name := range []string{os.Getenv("CC"), "cc", "gcc", "clang"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// encodeTable lays out recs as testdata/standin.c reads them.
func encodeTable(recs []Record) []byte {
	var b []byte
	for _, r := range recs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r.Comp)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r.Raw)))
		b = append(append(b, r.Comp...), r.Raw...)
	}
	return b
}

// Twin is an Oodle container or pak of the corpus and its twin: the same
// files written without Oodle (Zlib or uncompressed), beside it.
type Twin struct {
	Oodle, Plain string  // absolute paths
	Key          *ue.Key // the fixtures' key, when Oodle is encrypted
	Pak          bool
}

// Twins finds, by kind, every container and pak of the corpus that holds
// Oodle blocks and has a twin in a sibling folder: a container with the
// same chunks and chunk hashes, or a pak with the same paths and sizes.
// It skips the test when UNRMOD_CORPUS is unset.
func Twins(tb testing.TB) []Twin {
	tb.Helper()
	dir := corpus.Dir(tb)
	var utocs, paks []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			switch strings.ToLower(filepath.Ext(p)) {
			case ".utoc":
				utocs = append(utocs, p)
			case ".pak":
				paks = append(paks, p)
			}
		}
		return nil
	})
	key, _ := ue.ParseKey(FixtureKey)
	var out []Twin
	for _, p := range utocs {
		c, k := openContainer(p, &key)
		if c == nil {
			continue
		}
		if hasOodle(c.TOC().Methods) {
			for _, q := range siblings(p, utocs) {
				if d, _ := openContainer(q, &key); d != nil {
					if !hasOodle(d.TOC().Methods) && sameChunks(c, d) {
						out = append(out, Twin{Oodle: p, Plain: q, Key: k})
						d.Close()
						break
					}
					d.Close()
				}
			}
		}
		c.Close()
	}
	for _, p := range paks {
		r, err := pak.Open(p, nil)
		if err != nil {
			continue
		}
		if hasOodle(r.Footer.Methods) {
			for _, q := range siblings(p, paks) {
				if s, err := pak.Open(q, nil); err == nil {
					ok := !hasOodle(s.Footer.Methods) && sameFiles(&r.Reader, &s.Reader)
					s.Close()
					if ok {
						out = append(out, Twin{Oodle: p, Plain: q, Pak: true})
						break
					}
				}
			}
		}
		r.Close()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Oodle < out[j].Oodle })
	return out
}

// openContainer opens a container with data, with key when it is
// encrypted, and returns the key it needed.
func openContainer(p string, key *ue.Key) (*iostore.Container, *ue.Key) {
	c, err := iostore.Open(p, nil)
	if err != nil {
		return nil, nil
	}
	if c.DataErr() != nil {
		c.Close()
		return nil, nil
	}
	if c.Header().ContainerFlags&iostore.FlagEncrypted == 0 {
		return c, nil
	}
	c.Close()
	if c, err = iostore.Open(p, &iostore.Options{Key: key}); err != nil {
		return nil, nil
	}
	if _, err := c.DirectoryIndex(); err != nil {
		c.Close()
		return nil, nil
	}
	return c, key
}

// siblings returns the files of all that lie in a sibling folder of p's.
func siblings(p string, all []string) []string {
	parent := filepath.Dir(filepath.Dir(p))
	var out []string
	for _, q := range all {
		if q != p && filepath.Dir(filepath.Dir(q)) == parent && filepath.Dir(q) != filepath.Dir(p) {
			out = append(out, q)
		}
	}
	return out
}

func hasOodle(methods []string) bool {
	for _, m := range methods {
		if strings.EqualFold(m, "Oodle") {
			return true
		}
	}
	return false
}

// sameChunks reports whether two containers hold the same chunks with the
// same hashes, but for their container headers, whose ids and bytes name
// each container.
func sameChunks(a, b *iostore.Container) bool {
	if len(a.Chunks()) != len(b.Chunks()) {
		return false
	}
	for _, ch := range a.Chunks() {
		if ch.Type == iostore.ChunkContainerHeader {
			continue
		}
		j, ok := b.Find(ch.ID)
		if !ok || b.Chunks()[j].Size != ch.Size || b.Chunks()[j].Meta.Hash != ch.Meta.Hash {
			return false
		}
	}
	return true
}

// sameFiles reports whether two paks hold the same paths with the same
// sizes.
func sameFiles(a, b *pak.Reader) bool {
	if len(a.Files) != len(b.Files) {
		return false
	}
	for _, f := range a.Files {
		g := b.Lookup(f.Path)
		if g == nil || g.UncompressedSize != f.UncompressedSize {
			return false
		}
	}
	return true
}

// Records returns the blocks of every twin's Oodle side, each with the
// bytes its plain twin holds there: what the stand-in answers. It fails
// the test when a twin cannot be read.
func Records(tb testing.TB, twins []Twin) []Record {
	tb.Helper()
	var recs []Record
	for _, tw := range twins {
		var (
			r   []Record
			err error
		)
		if tw.Pak {
			r, err = pakRecords(tw)
		} else {
			r, err = containerRecords(tw)
		}
		if err != nil {
			tb.Fatalf("%s and its twin %s: %v", tw.Oodle, tw.Plain, err)
		}
		recs = append(recs, r...)
	}
	return recs
}

func containerRecords(tw Twin) ([]Record, error) {
	c, err := iostore.Open(tw.Oodle, &iostore.Options{Key: tw.Key})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	d, err := iostore.Open(tw.Plain, nil)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	toc := c.TOC()
	bs := uint64(toc.Header.CompressionBlockSize)
	var recs []Record
	for _, ch := range c.Chunks() {
		j, ok := d.Find(ch.ID)
		if !ok {
			continue // the container header: Twins matched the others
		}
		plain, err := d.ReadChunk(j)
		if err != nil {
			return nil, err
		}
		for k := ch.FirstBlock; k < ch.FirstBlock+ch.NumBlocks; k++ {
			b := toc.Blocks[k]
			if b.Method == 0 || !strings.EqualFold(toc.Methods[b.Method-1], "Oodle") {
				continue
			}
			stored, err := c.ReadStoredBlock(k)
			if err != nil {
				return nil, err
			}
			if tw.Key != nil {
				stored = bytes.Clone(stored)
				ue.NewECB(*tw.Key).Decrypt(stored)
			}
			start := uint64(k)*bs - ch.Offset
			end := start + uint64(b.UncompressedSize)
			if uint64(k)*bs < ch.Offset || end > uint64(len(plain)) {
				return nil, errors.New("a block outside its chunk")
			}
			recs = append(recs, Record{Comp: stored[:b.CompressedSize], Raw: plain[start:end]})
		}
	}
	return recs, nil
}

func pakRecords(tw Twin) ([]Record, error) {
	r, err := pak.Open(tw.Oodle, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := pak.Open(tw.Plain, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	raw, err := os.ReadFile(tw.Oodle)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, f := range r.Files {
		if f.Deleted || !strings.EqualFold(r.Footer.MethodName(f.Method), "Oodle") {
			continue
		}
		if f.Encrypted {
			return nil, errors.New("an encrypted Oodle pak file: the stand-in does not decrypt")
		}
		plain, err := s.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		for j, b := range f.Blocks {
			start := int64(j) * int64(f.BlockSize)
			end := min(start+int64(f.BlockSize), int64(len(plain)))
			if b.Start < 0 || b.End > int64(len(raw)) || b.Start > b.End || start > end {
				return nil, errors.New("a block outside the pak")
			}
			recs = append(recs, Record{Comp: raw[b.Start:b.End], Raw: plain[start:end]})
		}
	}
	return recs, nil
}
