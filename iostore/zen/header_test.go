package zen_test

import (
	"bytes"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore/zen"
)

// tcReaderAt is a package's bytes that count how far they were read.
type tcReaderAt struct {
	data []byte
	end  atomic.Int64
}

func (r *tcReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := bytes.NewReader(r.data).ReadAt(p, off)
	for {
		old := r.end.Load()
		if off+int64(n) <= old || r.end.CompareAndSwap(old, off+int64(n)) {
			break
		}
	}
	return n, err
}

// headerView is what DecodePackageHeader gives of a package: all but the
// export data.
func headerView(p *zen.Package) *zen.Package {
	q := *p
	q.Exports = append([]zen.Export(nil), p.Exports...)
	for k := range q.Exports {
		q.Exports[k].Data = nil
	}
	q.Trailing = nil
	return &q
}

// TestDecodePackageHeaderCorpus decodes the header of every zen package of
// the corpus from a reader and checks that it is the package DecodePackage
// decodes, but for the export data: the same names, maps, export entries,
// header size and store entry; that it read no more than the header (or
// the first 64 KiB); and that Encode refuses it rather than lose the data.
func TestDecodePackageHeaderCorpus(t *testing.T) {
	pkgs := corpusPackages(t)
	checked := 0
	for _, cp := range pkgs {
		full, err := zen.DecodePackage(cp.name, cp.data, nil)
		if err != nil {
			continue // TestCorpusPackagesVerify reports it
		}
		r := &tcReaderAt{data: cp.data}
		p, err := zen.DecodePackageHeader(cp.name, r, int64(len(cp.data)), nil)
		if err != nil {
			t.Fatalf("%s: %v", cp.name, err)
		}
		if got, want := p.HeaderSize(), full.HeaderSize(); got != want {
			t.Fatalf("%s: header size %d, want %d", cp.name, got, want)
		}
		if p.Size() != len(cp.data) || p.PackageName() != full.PackageName() {
			t.Fatalf("%s: size %d name %s, want %d %s", cp.name, p.Size(), p.PackageName(), len(cp.data), full.PackageName())
		}
		if read := r.end.Load(); read > int64(max(full.HeaderSize(), 64<<10)) {
			t.Fatalf("%s: read %d bytes for a %d-byte header", cp.name, read, full.HeaderSize())
		}
		if !reflect.DeepEqual(p.Exports, headerView(full).Exports) || !reflect.DeepEqual(p.Imports, full.Imports) || !reflect.DeepEqual(p.Names, full.Names) {
			t.Fatalf("%s: the header decodes differently from the whole package", cp.name)
		}
		if cp.header != 0 {
			for _, hv := range []zen.HeaderVersion{cp.header} {
				got, gerr := p.StoreEntry(hv, cp.entry)
				want, werr := full.StoreEntry(hv, cp.entry)
				if (gerr != nil) != (werr != nil) || gerr == nil && !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: store entry %+v (%v), want %+v (%v)", cp.name, got, gerr, want, werr)
				}
			}
		}
		if _, err := p.Encode(); !errors.Is(err, zen.ErrNotEncodable) {
			t.Fatalf("%s: Encode of a header-only package: %v, want ErrNotEncodable", cp.name, err)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no package checked")
	}
}

// TestDecodePackageHeaderRefuses gives DecodePackageHeader what
// DecodePackage refuses for the header's sake: every prefix of a real
// package cut inside its header, and a package whose last export's data
// runs past the end (the header checked against the size given).
func TestDecodePackageHeaderRefuses(t *testing.T) {
	cp := corpusSample(t, "")
	full, err := zen.DecodePackage(cp.name, cp.data, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := full.HeaderSize()
	for _, tc := range []struct {
		name string
		size int
	}{
		{"Empty", 0},
		{"Summary", 32},
		{"HalfHeader", hs / 2},
		{"HeaderLessOne", hs - 1},
		{"DataLessOne", len(cp.data) - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.size >= len(cp.data) || tc.size < 0 {
				t.Skipf("the sample is %d bytes", len(cp.data))
			}
			data := cp.data[:tc.size]
			_, werr := zen.DecodePackage(cp.name, data, nil)
			_, err := zen.DecodePackageHeader(cp.name, bytes.NewReader(data), int64(len(data)), nil)
			if werr == nil {
				t.Fatalf("DecodePackage accepts %d of %d bytes", tc.size, len(cp.data))
			}
			if err == nil {
				t.Fatalf("DecodePackageHeader accepts %d of %d bytes, which DecodePackage refuses: %v", tc.size, len(cp.data), werr)
			}
		})
	}
	if _, err := zen.DecodePackageHeader(cp.name, bytes.NewReader(cp.data), -1, nil); err == nil {
		t.Fatal("a negative size is accepted")
	}
}

// FuzzPackageHeader feeds arbitrary bytes to DecodePackageHeader, seeded
// with the corpus's loose packages: it must never panic, must accept
// whatever DecodePackage accepts, and what it accepts must have the header
// size DecodePackage finds.
func FuzzPackageHeader(f *testing.F) {
	pkgs, err := loadCorpusPackages(corpus.Dir(f), nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, cp := range pkgs {
		f.Add(cp.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		p, err := zen.DecodePackageHeader("fuzz", bytes.NewReader(data), int64(len(data)), nil)
		full, ferr := zen.DecodePackage("fuzz", data, nil)
		if ferr == nil {
			if err != nil {
				t.Fatalf("DecodePackage accepts what DecodePackageHeader refuses: %v", err)
			}
			if p.HeaderSize() != full.HeaderSize() {
				t.Fatalf("header size %d, DecodePackage finds %d", p.HeaderSize(), full.HeaderSize())
			}
		}
	})
}
