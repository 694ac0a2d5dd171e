package reader_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
)

// benchFile is the largest map of the corpus (about 1 MB).
const benchFile = "legacy/ut99_stock/CTF-Face.unr"

func benchData(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile(corpus.Path(b, benchFile))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

var benchSink any

// BenchmarkRead decodes the whole package: header, tables, reference and
// outer-chain checks (export data is referenced, not copied).
func BenchmarkRead(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := reader.Read("CTF-Face.unr", data)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = p
	}
}

// BenchmarkVerify checks every structural rule of an already decoded
// package, including every export's property list and native layout.
func BenchmarkVerify(b *testing.B) {
	data := benchData(b)
	p, err := reader.Read("CTF-Face.unr", data)
	if err != nil {
		b.Fatal(err)
	}
	if probs := p.Verify(); len(probs) > 0 {
		b.Fatalf("%d problems, first: %v", len(probs), probs[0])
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		benchSink = p.Verify()
	}
}

// BenchmarkCopyBaseline copies the file into a new buffer: the floor for any
// operation that produces the file's bytes.
func BenchmarkCopyBaseline(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		benchSink = bytes.Clone(data)
	}
}
