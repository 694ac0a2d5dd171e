package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// containerVerifyDoc is what verify checked in an IoStore container.
type containerVerifyDoc struct {
	Chunks        int `json:"chunks"`
	Blocks        int `json:"blocks"`
	HashesChecked int `json:"hashes_checked"`
	// NotChecked counts chunks unrmod cannot decode (Oodle): their
	// structure is checked, their hash is not. NotCheckedWhy says why.
	NotChecked    int    `json:"not_checked"`
	NotCheckedWhy string `json:"not_checked_why,omitempty"`
	// PackagesChecked counts package chunks decoded as zen packages and
	// checked.
	PackagesChecked int `json:"packages_checked"`
}

// verifyContainerFile opens and verifies one IoStore container.
func verifyContainerFile(file string, key *keyFlag) verifyFileDoc {
	r := verifyFileDoc{File: file, Kind: "iostore", Problems: []problemDoc{}}
	c, err := openContainer(file, key)
	if err != nil {
		r.Problems = append(r.Problems, containerReadProblem(err))
		return r
	}
	defer c.Close()
	rep := c.Verify(nil)
	r.Container = &containerVerifyDoc{
		Chunks: len(c.Chunks()), Blocks: len(c.TOC().Blocks),
		HashesChecked: rep.HashesChecked, NotChecked: rep.NotChecked, NotCheckedWhy: rep.NotCheckedWhy,
		PackagesChecked: rep.PackagesChecked,
	}
	for _, q := range rep.Problems {
		d := problemDoc{Struct: q.Struct, Message: reword(q.Err, q.Msg), Text: reword(q.Err, q.String())}
		if q.Offset >= 0 {
			off := q.Offset
			d.Offset = &off
		}
		r.Problems = append(r.Problems, d)
	}
	r.OK = len(r.Problems) == 0
	return r
}

// containerReadProblem turns an open error into a problem without
// repeating the file name the output line starts with.
func containerReadProblem(err error) problemDoc {
	var fe *ue.FormatError
	if errors.As(err, &fe) {
		q := ue.Problem{Struct: fe.Struct, Offset: fe.Offset, Msg: errorMsg(err)}
		d := problemDoc{Struct: q.Struct, Message: q.Msg, Text: q.String()}
		if fe.Offset >= 0 {
			off := fe.Offset
			d.Offset = &off
		}
		return d
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return problemDoc{Message: errText(err), Text: errText(err)}
}

// containerSummary is the text after "ok  FILE" for a container.
func (d *containerVerifyDoc) summary() string {
	s := fmt.Sprintf("%s, %s, %s checked", plural(d.Chunks, "chunk"), plural(d.Blocks, "block"), plural(d.HashesChecked, "chunk hash"))
	if d.PackagesChecked > 0 {
		s += fmt.Sprintf(", %s checked", plural(d.PackagesChecked, "zen package"))
	}
	if d.NotChecked > 0 {
		s += fmt.Sprintf("; %d not checked: %s", d.NotChecked, d.NotCheckedWhy)
	}
	return s
}

// plural returns "1 chunk", "2 chunks", "3 chunk hashes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "sh") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
