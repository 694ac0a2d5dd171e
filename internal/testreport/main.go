// Command testreport reads the output of `go test -json` on standard input
// and prints what `go test` prints (a line per package, the output of every
// failing test), then a summary: how many tests passed, failed and were
// skipped, and how many of the skips were tests on real files that need
// UNRMOD_CORPUS. It exits with status 1 when a test or package failed, so
// that `make test` keeps failing when tests fail.
//
//	go test -json ./... | go run ./internal/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// report is what the events say.
type report struct {
	passed, failed, skipped, corpusSkipped int
	failedPkgs                             []string
}

func main() {
	r, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if r.failed > 0 || len(r.failedPkgs) > 0 {
		os.Exit(1)
	}
}

// summarize reads the events from in and writes the report to out.
func summarize(in io.Reader, out io.Writer) (*report, error) {
	r := &report{}
	outputs := map[string][]string{} // package/test → output lines, kept until the test ends
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintln(out, string(line)) // not an event: a build error, say
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			if e.Test != "" {
				outputs[key] = append(outputs[key], e.Output)
			} else if strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "?") || strings.Contains(e.Output, "[build failed]") || strings.HasPrefix(e.Output, "panic") || strings.HasPrefix(e.Output, "#") {
				fmt.Fprint(out, e.Output)
			} else {
				outputs[key] = append(outputs[key], e.Output)
			}
		case "pass":
			if e.Test != "" {
				r.passed++
			}
			delete(outputs, key)
		case "skip":
			if e.Test != "" {
				r.skipped++
				if strings.Contains(strings.Join(outputs[key], ""), "UNRMOD_CORPUS") {
					r.corpusSkipped++
				}
			}
			delete(outputs, key)
		case "fail":
			if e.Test != "" {
				r.failed++
			} else {
				r.failedPkgs = append(r.failedPkgs, e.Package)
			}
			for _, o := range outputs[key] {
				fmt.Fprint(out, o)
			}
			delete(outputs, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(r.failedPkgs)
	fmt.Fprintf(out, "\n%d tests passed, %d failed, %d skipped", r.passed, r.failed, r.skipped)
	if r.corpusSkipped > 0 {
		fmt.Fprintf(out, " (%d of them test real files: set UNRMOD_CORPUS to the corpus folder to run them)", r.corpusSkipped)
	}
	fmt.Fprintln(out)
	if len(r.failedPkgs) > 0 {
		fmt.Fprintf(out, "FAIL: %s\n", strings.Join(r.failedPkgs, ", "))
	}
	return r, nil
}
