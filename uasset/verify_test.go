package uasset_test

import (
	"testing"

	"github.com/unrmod/unrmod/uasset"
)

// TestCorpusProblems verifies every asset of the corpus: the engine wrote
// them, so none has a problem.
func TestCorpusProblems(t *testing.T) {
	n := 0
	for _, a := range corpusAssets(t) {
		p, err := uasset.Decode(a.name, a.uasset, a.uexp, nil)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		for _, q := range p.Problems() {
			t.Errorf("%s: %v", a.name, q)
		}
		n++
	}
	t.Logf("%d assets verified", n)
}
