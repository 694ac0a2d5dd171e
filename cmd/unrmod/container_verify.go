package main

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/report"
)

// verifyContainerFile opens and verifies one IoStore container.
// A container that passes with every chunk's data checked is remembered in
// checks (nil: nothing is), for a rewrite of it to rely on.
func verifyContainerFile(file string, key *keyFlag, checks *checkcache.Cache) report.FileVerify {
	c, err := openContainer(file, key)
	if err != nil {
		return report.FileVerify{File: file, Kind: "iostore", Problems: []report.Problem{containerReadProblem(err)}}
	}
	defer c.Close()
	// Verify's data check is a superset of the check a rewrite makes of
	// its source, so a rewrite may rely on it.
	chk := checks.Watch(file, c)
	r := report.VerifyContainer(file, c, reportOptions())
	d := r.Container
	chk.Finish(r.OK && d != nil && d.NotChecked == 0)
	if !r.OK {
		// A container verify finds damaged is never relied on, even
		// when its files look as they did when it passed (a byte changed
		// on disk without a write).
		checks.Forget(file)
	}
	// Chunks whose Oodle blocks no library decodes are not verified: the
	// run fails, saying how to give the library.
	if d != nil && d.NotChecked > 0 && strings.Contains(d.NotCheckedWhy, "Oodle") {
		msg := fmt.Sprintf("%s not checked against their hashes: their Oodle blocks need the game's own Oodle library (oo2core_9_win64.dll, liboo2corelinux64.so.9); give it with %s",
			plural(d.NotChecked, "chunk"), oodleHow)
		r.Problems = append(r.Problems, report.Problem{Struct: "chunk data", Message: msg, Text: "chunk data: " + msg})
		r.OK = false
	}
	return r
}

// containerReadProblem turns an open error into a problem without
// repeating the file name the output line starts with.
func containerReadProblem(err error) report.Problem {
	return report.ReadProblem(err, reportOptions())
}

// containerSummary is the text after "ok  FILE" for a container.
func containerSummary(d *report.ContainerVerify) string {
	s := fmt.Sprintf("%s, %s, %s checked", plural(d.Chunks, "chunk"), plural(d.Blocks, "block"), plural(d.HashesChecked, "chunk hash"))
	if d.PackagesChecked > 0 {
		s += fmt.Sprintf(", %s checked", plural(d.PackagesChecked, "zen package"))
	}
	if d.ShaderLibrariesChecked > 0 {
		s += fmt.Sprintf(", %s checked", plural(d.ShaderLibrariesChecked, "shader library"))
	}
	if d.NotChecked > 0 {
		s += fmt.Sprintf("; %d not checked: %s", d.NotChecked, d.NotCheckedWhy)
	}
	return s
}

// plural returns "1 chunk", "2 chunks", "3 chunk hashes", "4 shader libraries".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ry") {
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	if strings.HasSuffix(noun, "sh") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
