package writer_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// Encode a decoded package: the preserve layout reproduces it byte for
// byte; the compact layout lays it out as the engine saves it.
func ExampleEncode() {
	p, err := reader.ReadFile("../examples/packages/UnrmodDemo.u")
	if err != nil {
		log.Fatal(err)
	}
	out, rep, err := writer.Encode(p, writer.Options{Layout: writer.Preserve})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Identical, bytes.Equal(out, p.Source()))
	out, _, err = writer.Encode(p, writer.Options{Layout: writer.Compact})
	if err != nil {
		log.Fatal(err)
	}
	q, err := writer.Check("compact.u", out)
	fmt.Println(err, len(q.Exports) == len(p.Exports))
	// Output:
	// true true
	// <nil> true
}
