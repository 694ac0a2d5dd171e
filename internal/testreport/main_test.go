package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    corpus.go:23: UNRMOD_CORPUS is not set; skipping tests on real files\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    x_test.go:9: no fixture\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Test":"TestD","Output":"    d_test.go:3: boom\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestD"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}`,
		`{"Action":"fail","Package":"p"}`,
		`{"Action":"output","Package":"q","Output":"ok  \tq\t0.01s\n"}`,
		`{"Action":"pass","Package":"q"}`,
	}, "\n")
	var out bytes.Buffer
	r, err := summarize(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.passed != 1 || r.failed != 1 || r.skipped != 2 || r.corpusSkipped != 1 || len(r.failedPkgs) != 1 {
		t.Errorf("report %+v", r)
	}
	text := out.String()
	for _, want := range []string{"d_test.go:3: boom", "ok  \tq", "1 tests passed, 1 failed, 2 skipped (1 of them test real files", "FAIL: p"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "no fixture") || strings.Contains(text, "=== RUN") {
		t.Errorf("output shows passing or skipped tests' lines:\n%s", text)
	}
}
