package zen_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/fuzzbound"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestDecodePackageStreamCorpus decodes every zen package of the corpus
// with DecodePackageStream and checks that EncodeStream gives the package
// byte for byte, read in order and at random offsets; that it read no
// export's data to do so; and that a changed export (loaded, its data
// grown) gives what Encode gives for the same change on the package
// decoded whole, header offsets and later exports shifted.
func TestDecodePackageStreamCorpus(t *testing.T) {
	pkgs := corpusPackages(t)
	streamed, changed := 0, 0
	for _, cp := range pkgs {
		full, err := zen.DecodePackage(cp.name, cp.data, nil)
		if err != nil {
			continue // TestCorpusPackagesVerify reports it
		}
		r := &tcReaderAt{data: cp.data}
		p, err := zen.DecodePackageStream(cp.name, r, int64(len(cp.data)), nil)
		if errors.Is(err, zen.ErrNotStreamable) {
			if len(full.KeptRaw()) == 0 {
				t.Fatalf("%s: %v, but the package encodes canonically", cp.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", cp.name, err)
		}
		if read := r.end.Load(); read > int64(max(full.HeaderSize(), 64<<10)) && read < int64(len(cp.data))-int64(len(full.Trailing)) {
			t.Fatalf("%s: read %d bytes for a %d-byte header", cp.name, read, full.HeaderSize())
		}
		if _, err := p.Encode(); err == nil {
			t.Fatalf("%s: Encode of a streamed package did not refuse", cp.name)
		}
		s, err := p.EncodeStream()
		if err != nil {
			t.Fatalf("%s: %v", cp.name, err)
		}
		got, err := io.ReadAll(s.NewReader())
		if err != nil || !bytes.Equal(got, cp.data) || s.Size() != int64(len(cp.data)) {
			t.Fatalf("%s: the stream differs from the package (%v)", cp.name, err)
		}
		for _, off := range []int64{0, 1, int64(len(s.Header)) - 1, int64(len(cp.data)) / 2, int64(len(cp.data)) - 3} {
			if off < 0 || off >= int64(len(cp.data)) {
				continue
			}
			b := make([]byte, min(int64(len(cp.data))-off, 7))
			if n, err := s.ReadAt(b, off); n != len(b) || err != nil || !bytes.Equal(b, cp.data[off:off+int64(n)]) {
				t.Fatalf("%s: ReadAt(%d) = %d, %v", cp.name, off, n, err)
			}
		}
		streamed++
		// Grow the last export with data (the one whose change shifts the
		// most offsets in a 5.3+ package).
		k := -1
		for i := range full.Exports {
			if len(full.Exports[i].Data) > 0 {
				k = i
			}
		}
		if k < 0 {
			continue
		}
		if err := p.LoadExport(k); err != nil {
			t.Fatal(err)
		}
		p.Exports[k].Data = append(bytes.Clone(p.Exports[k].Data), 1, 2, 3, 4)
		full.Exports[k].Data = append(full.Exports[k].Data, 1, 2, 3, 4)
		full.ForgetRaw()
		want, err := full.Encode()
		if err != nil {
			continue // a change the encoder refuses either way
		}
		s, err = p.EncodeStream()
		if err != nil {
			t.Fatalf("%s: %v", cp.name, err)
		}
		got, err = io.ReadAll(s.NewReader())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: the changed stream differs from the changed package (%v)", cp.name, err)
		}
		changed++
	}
	if streamed == 0 || changed == 0 {
		t.Fatalf("%d packages streamed, %d changed: none", streamed, changed)
	}
	t.Logf("%d packages streamed, %d changed", streamed, changed)
}

// FuzzPackageStream checks DecodePackageStream on any bytes: it refuses
// what DecodePackage refuses, and what it accepts EncodeStream writes
// back byte for byte.
func FuzzPackageStream(f *testing.F) {
	pkgs, err := loadCorpusPackages(corpus.Dir(f), nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, cp := range pkgs {
		f.Add(cp.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzbound.Check(t, time.Now(), len(data))
		p, err := zen.DecodePackageStream("fuzz", bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			return
		}
		if _, ferr := zen.DecodePackage("fuzz", data, nil); ferr != nil {
			t.Fatalf("DecodePackageStream accepts what DecodePackage refuses: %v", ferr)
		}
		s, err := p.EncodeStream()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s.NewReader())
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("the stream differs from the package (%v)", err)
		}
	})
}
