package writer_test

import (
	"bytes"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// benchFile is the largest map of the corpus (about 1 MB).
const benchFile = "legacy/ut99_stock/CTF-Face.unr"

func benchPackage(b *testing.B) *reader.Package {
	b.Helper()
	p, err := reader.ReadFile(corpus.Path(b, benchFile))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

var benchSink []byte

func benchEncode(b *testing.B, p *reader.Package, layout writer.Layout) {
	b.Helper()
	b.SetBytes(int64(len(p.Source())))
	b.ReportAllocs()
	for b.Loop() {
		out, _, err := writer.Encode(p, writer.Options{Layout: layout})
		if err != nil {
			b.Fatal(err)
		}
		benchSink = out
	}
}

// BenchmarkEncodePreserve encodes an unchanged package in place: the output
// is the input.
func BenchmarkEncodePreserve(b *testing.B) {
	p := benchPackage(b)
	out, _, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
	if err != nil || !bytes.Equal(out, p.Source()) {
		b.Fatalf("preserve is not byte-identical (err %v)", err)
	}
	benchEncode(b, p, writer.Preserve)
}

// BenchmarkEncodeCompact rebuilds the file in the engine's layout; the data
// does not move, so nothing is rebased.
func BenchmarkEncodeCompact(b *testing.B) {
	benchEncode(b, benchPackage(b), writer.Compact)
}

// BenchmarkEncodeCompactShifted adds a name first, so the name table grows,
// every export's data moves and every texture mip offset is rebased.
func BenchmarkEncodeCompactShifted(b *testing.B) {
	p := benchPackage(b)
	p.Names = append(p.Names, reader.Name{Name: "BenchName", Flags: reader.NewNameFlags})
	// Verify wants the last generation to match the tables.
	gens := append([]reader.Generation(nil), p.Header.Generations...)
	gens[len(gens)-1] = reader.Generation{ExportCount: int32(len(p.Exports)), NameCount: int32(len(p.Names))}
	p.Header.Generations = gens
	out, rep, err := writer.Encode(p, writer.Options{Layout: writer.Compact})
	if err != nil {
		b.Fatal(err)
	}
	if rep.MovedExports == 0 || rep.Rebased == 0 {
		b.Fatalf("shift moved %d exports and rebased %d offsets", rep.MovedExports, rep.Rebased)
	}
	if _, err := writer.Check("CTF-Face.unr", out); err != nil {
		b.Fatal(err)
	}
	benchEncode(b, p, writer.Compact)
	b.ReportMetric(float64(rep.Rebased), "rebased/op")
}
